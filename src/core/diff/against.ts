/**
 * `contracts diff --against <ref> [files...]`: the old version of each contract read from git (the
 * file, and every file its compile reads: a NATS bundle's lock, other documents and locked files, a
 * DASP definition), the working tree as the new one. Without files, every contract that differs
 * between the ref and the working tree: its own bytes, or a file its compile reads in either version.
 * A contract added since the ref is reported as `contract-added` (info), one deleted as
 * `contract-removed` (breaking for everyone).
 *
 * Cost: one `git ls-tree` of the commit, one `git cat-file` per file the old compiles read, and one
 * `git diff` without files; when a file that is no contract changed, every contract of the repository
 * is compiled once per version to know which read it.
 */
import { resolve } from 'node:path'
import { ContractCompiler } from '../compile.js'
import { hasErrors } from '../diagnostics.js'
import { pathKind } from '../input-host.js'
import { CORE_DIFF_RULES, EVERYONE } from './core-rules.js'
import { allFiles, gitVersion, treeChanges, type GitVersion } from './git.js'
import { DiffUsageError, diffPair, type DiffEntry, type DiffEnvironment } from './runner.js'

export { GitRefError, checkRef } from './git.js'

/** What `diffAgainst` compared: the commit, and one entry per contract (in path order). */
export interface AgainstResult {
  version: GitVersion
  entries: DiffEntry[]
}

const wholeFile = (file: string) => ({ file, pointer: '', line: 1, column: 1 })

/**
 * Compares the contracts `files` (or, without files, every contract that differs) between the git
 * ref and the working tree. Throws `GitRefError` for a ref that is refused or names no commit and
 * `DiffUsageError` for a file that is no contract, is outside the repository, or exists in neither
 * version.
 */
export async function diffAgainst(ref: string, files: readonly string[] | undefined, env: DiffEnvironment, cwd = process.cwd()): Promise<AgainstResult> {
  const version = gitVersion(ref, cwd)
  const oldCompiler = new ContractCompiler({ formats: env.formats, overlay: version.overlay })
  const newCompiler = new ContractCompiler({ formats: env.formats })
  const isContract = (file: string) => newCompiler.formatOf(file) !== undefined
  const inOld = (file: string) => version.kind(file) !== 'missing'
  const inNew = (file: string) => pathKind(file) !== 'missing'
  let targets: string[]
  if (files !== undefined && files.length > 0) {
    targets = files.map((f) => resolve(cwd, f))
    for (const [i, file] of targets.entries()) {
      if (version.relative(file) === undefined) throw new DiffUsageError(`${files[i]} is outside the git working tree ${version.root}.`)
      if (!isContract(file)) throw new DiffUsageError(`No contract format handles ${files[i]}.`)
      if (!inOld(file) && !inNew(file)) throw new DiffUsageError(`${files[i]} exists neither in ${ref} nor in the working tree.`)
    }
  } else targets = await changedContracts(version, oldCompiler, newCompiler)
  const entries: DiffEntry[] = []
  for (const file of [...new Set(targets)].sort()) {
    const format = newCompiler.formatOf(file)!.name
    if (!inOld(file)) {
      const compiled = await newCompiler.model(file, newCompiler.formatOf(file)!)
      const valid = !hasErrors(compiled.diagnostics)
      const finding = {
        rule: 'contract-added',
        level: 'info' as const,
        audiences: [],
        new: wholeFile(file),
        message: `The contract ${version.relative(file)} is new since ${ref}.`,
      }
      entries.push({
        change: 'added',
        format,
        new: { file, diagnostics: compiled.diagnostics, dependencies: compiled.dependencies },
        valid,
        findings: valid ? [finding] : [],
        rules: CORE_DIFF_RULES,
      })
    } else if (!inNew(file)) {
      entries.push({
        change: 'removed',
        format,
        old: { file, diagnostics: [], dependencies: [] },
        valid: true,
        findings: [
          {
            rule: 'contract-removed',
            level: 'breaking',
            audiences: [{ kind: EVERYONE }],
            old: wholeFile(file),
            message: `The contract ${version.relative(file)} of ${ref} is deleted: every party that used it breaks.`,
          },
        ],
        rules: CORE_DIFF_RULES,
      })
    } else entries.push(await diffPair({ file, overlay: version.overlay, compiler: oldCompiler }, { file, compiler: newCompiler }, env))
  }
  return { version, entries }
}

/**
 * The contracts that differ between the version and the working tree: the contract files changed,
 * added or deleted, and those whose compile (in either version) reads a file that changed or looked
 * for one where a file was added or deleted.
 */
async function changedContracts(version: GitVersion, oldCompiler: ContractCompiler, newCompiler: ContractCompiler): Promise<string[]> {
  const changes = treeChanges(version)
  const touched = [...changes.changed, ...changes.added, ...changes.deleted]
  const isContract = (file: string) => newCompiler.formatOf(file) !== undefined
  const targets = new Set(touched.filter(isContract))
  const others = new Set(touched.filter((f) => !isContract(f)))
  if (others.size === 0) return [...targets]
  for (const file of allFiles(version)) {
    if (targets.has(file) || !isContract(file)) continue
    const registered = newCompiler.formatOf(file)!
    for (const [compiler, present] of [
      [newCompiler, pathKind(file) === 'file'],
      [oldCompiler, version.kind(file) === 'file'],
    ] as const) {
      if (!present) continue
      const compiled = await compiler.model(file, registered)
      if ([...compiled.dependencies, ...compiled.absentDependencies].some((d) => others.has(d))) {
        targets.add(file)
        break
      }
    }
  }
  return [...targets]
}
