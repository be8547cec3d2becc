/**
 * `contracts diff`, whatever the format: compiles both versions of a contract, refuses to compare a
 * version that has errors (its diagnostics are the answer, as `contracts check` gives them), runs the
 * format's differ on the two models, and judges the findings (order, duplicates, `--audience`, the
 * ignore file, `--fail-on`). Core names no format: the caller hands the formats and the differ loader
 * (`src/formats/index.ts`, `src/formats/diffs.ts`).
 *
 * Cost: two compiles (each version's model, without generating code) plus the differ's own bound,
 * plus sorting the findings (n log n).
 */
import { dirname, resolve } from 'node:path'
import { ContractCompiler } from '../compile.js'
import { hasErrors, type Diagnostic } from '../diagnostics.js'
import type { RegisteredFormat, SourceOverlay } from '../format.js'
import { InputError, fileProblem, recordingHost } from '../input-host.js'
import { countLevels, concerns, fails, sortFindings, type FailOn } from './findings.js'
import { expired, matches, today as currentDay, type IgnoreEntry, type IgnoreList } from './ignore.js'
import type { DiffFinding, DiffLevel, DiffRule, DiffSide, FormatDiffer } from './types.js'

/** Loads a format's differ by the format's name (`loadDiffer` of `src/formats/diffs.ts`); undefined when it has none. */
export type DifferLoader = (format: string) => Promise<FormatDiffer<any> | undefined>

/** What the runner is given instead of naming formats itself. */
export interface DiffEnvironment {
  formats: readonly RegisteredFormat<any, any, any, any>[]
  loadDiffer: DifferLoader
}

/** One version of a contract: its file, read from disk, or through an overlay (the version a git ref has). */
export interface DiffVersionInput {
  file: string
  /** Texts (and kinds) that stand for the files of this version (`gitOverlay` in against.ts). */
  overlay?: SourceOverlay
  /** A compiler to reuse across the files of one version (it must have `overlay` as its overlay); one is made otherwise. */
  compiler?: ContractCompiler
}

/** A usage error: the two files are not of one format, a format has no differ, a file is no contract. */
export class DiffUsageError extends Error {}

/** What the runner says of one version. */
export interface DiffVersionReport {
  file: string
  /** The compile's diagnostics (warnings too); errors mean no diff was made. */
  diagnostics: Diagnostic[]
  /** The files the compile read (for code frames and watching). */
  dependencies: string[]
}

/** The outcome of comparing two versions of one contract. */
export interface DiffPairResult {
  /**
   * `changed`: both versions exist and were compared; `added` or `removed`: the contract exists in one
   * version only (`--against`), reported as `contract-added` or `contract-removed`.
   */
  change: 'changed' | 'added' | 'removed'
  format: string
  old: DiffVersionReport
  new: DiffVersionReport
  /** Whether both versions compiled without errors; when false there are no findings and the run fails (exit 1). */
  valid: boolean
  /** The differ's findings, sorted and each once (none when a version is invalid). */
  findings: DiffFinding[]
  /** The differ's rule catalogue (for SARIF rules). */
  rules: readonly DiffRule[]
}

/** As `DiffPairResult`, for a contract that exists in one version only: the version there is reported, the other absent. */
export type DiffEntry = Omit<DiffPairResult, 'old' | 'new'> & { old?: DiffVersionReport; new?: DiffVersionReport }

/** `--audience`, the ignore file and `--fail-on`, applied to findings. */
export interface DiffSelection {
  /** Keep only findings that name this audience kind (or break everyone). */
  audience?: string
  /** @default 'breaking' */
  failOn?: FailOn
  ignore?: IgnoreList
  /** The contract the findings are of (its file), for ignore entries that name one (`contract`). */
  contract?: string
  /** The day expiry is judged on (`YYYY-MM-DD`, UTC); today by default. */
  today?: string
}

/** A finding an ignore entry accepted. */
export interface IgnoredFinding {
  finding: DiffFinding
  reason: string
  entry: IgnoreEntry
}

export interface DiffVerdict {
  /** The findings shown: of the audience asked for, not ignored; sorted, each once. */
  findings: DiffFinding[]
  ignored: IgnoredFinding[]
  /** Entries of the ignore file past their date (they ignore nothing any more). */
  expired: IgnoreEntry[]
  /** Entries in date that name no finding of the diff, whatever its audience (a misspelt rule id, a pointer that moved). */
  unused: IgnoreEntry[]
  counts: Record<DiffLevel, number>
  /** Whether a shown finding is at or above `--fail-on`. */
  failed: boolean
}

/**
 * A side's `read`: the files of that version (through its overlay), confined to the trees the compile
 * read from (the contract's folder, and the folders of every file it read: a NATS bundle's root),
 * never through a link; undefined for a file that is missing there, refused, or unreadable.
 */
export function versionReader(contract: string, dependencies: readonly string[], overlay?: SourceOverlay): DiffSide<unknown>['read'] {
  // One host for the version, each folder allowed once: a host and every dependency's folder (each
  // resolved through realpath) a read made a DASP diff of n definitions read n times n folders, and
  // an outside pass saw 4,000 run out of memory after five minutes.
  const host = recordingHost(dirname(resolve(contract)), overlay)
  for (const folder of new Set(dependencies.map((dependency) => dirname(dependency)))) host.allowTree(folder)
  return async (file) => {
    try {
      return await host.readText(resolve(file))
    } catch (error) {
      if (error instanceof InputError) return undefined
      throw error
    }
  }
}

/**
 * Compares two versions of one contract. Throws `DiffUsageError` when the files are not both
 * claimed by one format that has a differ; never throws on what the documents hold (a differ that
 * throws is reported as `CONTRACTS_INTERNAL` on the new file, and the pair is invalid).
 */
export async function diffPair(old: DiffVersionInput, next: DiffVersionInput, env: DiffEnvironment): Promise<DiffPairResult> {
  const oldCompiler = old.compiler ?? new ContractCompiler({ formats: env.formats, ...(old.overlay ? { overlay: old.overlay } : {}) })
  const newCompiler = next.compiler ?? new ContractCompiler({ formats: env.formats, ...(next.overlay ? { overlay: next.overlay } : {}) })
  const oldFormat = oldCompiler.formatOf(resolve(old.file))
  const newFormat = newCompiler.formatOf(resolve(next.file))
  const known = env.formats.map((f) => f.name).join(', ')
  for (const [format, file] of [
    [oldFormat, old.file],
    [newFormat, next.file],
  ] as const)
    if (format === undefined) throw new DiffUsageError(`No contract format handles ${file} (formats: ${known}).`)
  if (oldFormat!.name !== newFormat!.name)
    throw new DiffUsageError(`${old.file} is a ${oldFormat!.name} contract and ${next.file} a ${newFormat!.name} one: both versions must be of one format.`)
  const format = newFormat!.name
  const differ = await env.loadDiffer(format)
  if (differ === undefined) throw new DiffUsageError(`The ${format} format has no differ.`)
  const [oldModel, newModel] = await Promise.all([oldCompiler.model(old.file, oldFormat!), newCompiler.model(next.file, newFormat!)])
  const report = (r: typeof oldModel): DiffVersionReport => ({ file: r.file, diagnostics: r.diagnostics, dependencies: r.dependencies })
  const result = { change: 'changed' as const, format, old: report(oldModel), new: report(newModel), rules: differ.rules }
  if (hasErrors(oldModel.diagnostics) || hasErrors(newModel.diagnostics) || oldModel.model === undefined || newModel.model === undefined)
    return { ...result, valid: false, findings: [] }
  const side = (r: typeof oldModel, overlay?: SourceOverlay): DiffSide<unknown> => ({
    file: r.file,
    model: r.model,
    read: versionReader(r.file, r.dependencies, overlay),
  })
  try {
    const findings = await differ.diff(side(oldModel, old.overlay), side(newModel, next.overlay))
    return { ...result, valid: true, findings: sortFindings(findings) }
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error)
    const internal = fileProblem('CONTRACTS_INTERNAL', newModel.file, `Internal error in the ${format} differ (please report it): ${message}`)
    return { ...result, new: { ...result.new, diagnostics: [...result.new.diagnostics, internal] }, valid: false, findings: [] }
  }
}

/**
 * Applies `--audience`, the ignore file and `--fail-on` to findings (of one pair or of several):
 * what is shown, what was ignored and why, which ignore entries expired, and whether the run fails.
 * An expired entry ignores nothing; an entry ignores a finding of any audience.
 */
export function judge(findings: readonly DiffFinding[], selection: DiffSelection = {}): DiffVerdict {
  const failOn = selection.failOn ?? 'breaking'
  const day = selection.today ?? currentDay()
  const entries = selection.ignore?.entries ?? []
  const live = entries.filter((e) => !expired(e, day))
  const shown: DiffFinding[] = []
  const ignored: IgnoredFinding[] = []
  // Each entry in date names a finding of the diff, of any audience, or it is stale: O(entries x findings), both capped by what the files hold.
  const used = new Set<IgnoreEntry>()
  for (const finding of findings) for (const e of live) if (!used.has(e) && matches(e, finding, selection.contract)) used.add(e)
  for (const finding of sortFindings(findings)) {
    if (selection.audience !== undefined && !concerns(finding, selection.audience)) continue
    const entry = live.find((e) => matches(e, finding, selection.contract))
    if (entry) ignored.push({ finding, reason: entry.reason, entry })
    else shown.push(finding)
  }
  return {
    findings: shown,
    ignored,
    expired: entries.filter((e) => expired(e, day)),
    unused: live.filter((e) => !used.has(e)),
    counts: countLevels(shown),
    failed: shown.some((f) => fails(f, failOn)),
  }
}

/** `diffPair` then `judge`: one contract's two versions, judged; `status` is the exit status (0, or 1 for a failing finding or an invalid version). */
export async function diffContracts(
  old: DiffVersionInput,
  next: DiffVersionInput,
  env: DiffEnvironment,
  selection: DiffSelection = {},
): Promise<DiffPairResult & { verdict: DiffVerdict; status: 0 | 1 }> {
  const pair = await diffPair(old, next, env)
  const verdict = judge(pair.findings, { contract: pair.new.file, ...selection })
  return { ...pair, verdict, status: !pair.valid || verdict.failed ? 1 : 0 }
}
