import { readFileSync } from 'node:fs'
import { append } from '../core/append.js'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { ContractCompiler, type CompileOptions } from '../core/compile.js'
import { hasErrors, unreported, type Diagnostic } from '../core/diagnostics.js'
import { packageVersion } from '../core/package-info.js'
import { COMMANDS, OVERVIEW, commandFlags, commandHelp } from './help.js'
import { formatDiagnostic, sourceReader } from '../core/report.js'
import { terminalLine, terminalSafe } from '../core/terminal-text.js'
import { annotationFile, commandData, commandProperty } from './workflow-command.js'
import { formats, natsFormat } from '../formats/index.js'
import { SidecarWriter, declaredQueries } from '../plugin/sidecar.js'
import { splitQuery } from '../plugin/module-id.js'
import { provisionCommand, type ProvisionFlags } from './nats-provision.js'
import {
  removeOwnedFile,
  withMarker,
  writeOwnedFile,
  writeOwnedFiles,
  type MarkerSyntax,
  type OwnedFile,
  type WriteDone,
  type WriteRefusal,
  type WriteResult,
} from '../core/safe-write.js'
import { MAX_LOOKED, staleOutputs } from './stale-outputs.js'
import { writeRefusedDiagnostic } from '../core/write-refused.js'
import { basename, dirname, relative, resolve as resolvePath, sep } from 'node:path'
import type { NatsModel } from '../formats/nats/model.js'
import type { DiffFlags } from './diff.js'
import { PersistentCache, defaultCacheDir, defaultCacheOff } from '../core/persistent-cache.js'
import { jsonText } from './json-text.js'
import { watchPaths } from './watch-paths.js'

const compiler = new ContractCompiler({ formats })

class UsageError extends Error {}

const scopeFlags = {
  topics: { type: 'string' },
  'include-reserved': { type: 'boolean' },
  names: { type: 'string' },
  json: { type: 'boolean' },
  topic: { type: 'string' },
  version: { type: 'string' },
  unversioned: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  server: { type: 'string' },
  creds: { type: 'string' },
  'dry-run': { type: 'boolean' },
  update: { type: 'boolean' },
  'allow-older-server': { type: 'boolean' },
  'allow-data-loss': { type: 'boolean' },
  adopt: { type: 'boolean' },
  format: { type: 'string' },
  out: { type: 'string' },
  target: { type: 'string' },
  serde: { type: 'boolean' },
  clean: { type: 'boolean' },
  watch: { type: 'boolean' },
  'cache-dir': { type: 'string' },
  'no-cache': { type: 'boolean' },
  stdio: { type: 'boolean' },
  check: { type: 'boolean' },
  against: { type: 'string' },
  'fail-on': { type: 'string' },
  audience: { type: 'string' },
  ignore: { type: 'string' },
} satisfies ParseArgsConfig['options']

type Flags = {
  topics?: string
  'include-reserved'?: boolean
  names?: string
  json?: boolean
  topic?: string
  version?: string
  unversioned?: boolean
  format?: string
}
/** The flags with `--names` read: the export names the file gives. */
type Resolved = Omit<Flags, 'names'> & { names?: Readonly<Record<string, unknown>> }
type Output = { out: (text: string) => void; err: (text: string) => void }

/** Runs the CLI and returns its exit status; `main` below wires it to the process. */
export async function run(argv: readonly string[], io: Output): Promise<number> {
  // Each run starts from nothing, as a fresh process of the binary does: a caller that runs the
  // command twice in one process sees the files as they are now and asks the persistent cache again.
  compiler.clear()
  const [command, ...rest] = argv
  if (command === undefined || command === '--help' || command === '-h') {
    io.out(OVERVIEW)
    return command === undefined ? 2 : 0
  }
  if (command === 'help') {
    const topic = rest[0]
    if (topic === undefined) io.out(OVERVIEW)
    else if (COMMANDS[topic]) io.out(commandHelp(topic))
    else return usage(io, `There is no command ${JSON.stringify(topic)}.`)
    return 0
  }
  if (command === '--version' || command === '-v') {
    io.out(packageVersion)
    return 0
  }
  if (!COMMANDS[command]) return usage(io, `There is no command ${JSON.stringify(command)}.`)
  try {
    const { values, positionals, tokens } = parseArgs({ args: [...rest], options: scopeFlags, allowPositionals: true, strict: true, tokens: true })
    // A flag with a value given twice (`--out a --out b`): parseArgs keeps the last without a word.
    const seen = new Set<string>()
    for (const token of tokens)
      if (token.kind === 'option' && token.value !== undefined) {
        if (seen.has(token.name)) throw new UsageError(`--${token.name} is given more than once; give it once.`)
        seen.add(token.name)
      }
    if (values.help) {
      io.out(commandHelp(command))
      return 0
    }
    // A flag another command takes is a mistake here, not something to ignore silently.
    const allowed = commandFlags(command)!
    const stray = Object.keys(values).find((flag) => flag !== 'help' && !allowed.includes(flag))
    if (stray !== undefined)
      throw new UsageError(`--${stray} does not apply to \`contracts ${command}\` (it takes ${allowed.map((f) => `--${f}`).join(', ') || 'no flags'}).`)
    const flags = resolve(values as Flags)
    if (command === 'check' || command === 'inspect' || command === 'types') benzeneOnly(positionals, flags)
    if (allowed.includes('no-cache')) useCache(values as CacheFlags)
    switch (command) {
      case 'check':
        return values.watch ? await watchCheck(onceEach(positionals), flags, io) : await check(onceEach(positionals), flags, io)
      case 'hash':
        return await hash(single(positionals, 'hash'), flags, io)
      case 'inspect':
        return await inspectCommand(single(positionals, 'inspect'), flags, io)
      case 'types':
        return await types(onceEach(positionals, true), flags, io)
      case 'generate':
        return await generateCommand(onceEach(positionals), values as { target?: string; out?: string; serde?: boolean; clean?: boolean }, io)
      case 'topology':
        return await topologyCommand(positionals, values as { format?: string; out?: string }, io)
      case 'inputs':
        return await inputsCommand(onceEach(positionals), flags, io)
      case 'diff': {
        // Loaded only for this command: the runner, git and the report writers.
        const { diffCommand } = await import('./diff.js')
        const status = await diffCommand(positionals, values as DiffFlags, io, {
          frames: (diagnostics, read) => {
            if (typeof read === 'function') for (const d of diagnostics) io.err(formatDiagnostic(d, read) + '\n')
            else printDiagnostics(diagnostics, io, read)
          },
          annotation: githubAnnotation,
        })
        if (typeof status !== 'number') throw new UsageError(status.usage)
        return status
      }
      case 'lock': {
        // Loaded only for this command, as the language server is.
        const { lockCommand } = await import('./lock.js')
        const status = lockCommand(positionals, values as { check?: boolean; json?: boolean }, io, (diagnostics, read) =>
          printDiagnostics(diagnostics, io, read),
        )
        if (typeof status !== 'number') throw new UsageError(status.usage)
        return status
      }
      case 'lsp': {
        if (positionals.length > 0) throw new UsageError('`contracts lsp` takes no files: the editor sends the documents it opens.')
        // Loaded only for this command (src/cli/lsp/): it speaks LSP on stdin and stdout until the editor ends the session.
        const { serveLanguageServer } = await import('./lsp/server.js')
        return await serveLanguageServer()
      }
      default: {
        const [sub, ...files] = positionals
        if (sub !== 'provision') throw new UsageError('`contracts nats` has one command: provision.')
        const reported = firstTimeOnly()
        const model = async (file: string) => {
          const result = await compiler.model(file, natsFormat)
          const failed = hasErrors(result.diagnostics)
          if (failed) printDiagnostics(reported(result.diagnostics), io, result.dependencies)
          return { model: result.model, failed }
        }
        const status = await provisionCommand(onceEach(files), values as ProvisionFlags, model, io)
        if (typeof status === 'string') throw new UsageError(status)
        return status
      }
    }
  } catch (error) {
    if (error instanceof UsageError) return usage(io, error.message, command)
    // Not every error's code is a string (a JetStream error's is a number).
    const code = (error as { code?: unknown }).code
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) return usage(io, parseArgsSentence(error as Error, rest), command)
    throw error
  }
}

/**
 * A run's filter of diagnostics already reported: a report repeated by a later compile of the run
 * (another import of the same contract; two contracts of one NATS bundle, each reporting the bundle's
 * lock or a locked file) is left out, so each is printed, annotated or listed once, as a build prints it.
 */
function firstTimeOnly(): (diagnostics: readonly Diagnostic[]) => Diagnostic[] {
  const seen = new Set<string>()
  return (diagnostics) => unreported(diagnostics, seen)
}

/**
 * Each document once, as first given: the same path written twice (`a.spec.json ./a.spec.json`, or
 * globs that overlap) is one document, checked, counted and written once. `withQuery`: `types`
 * arguments, where `x.spec.json?topics=a` is another import of the same document.
 */
function onceEach(files: readonly string[], withQuery = false): string[] {
  const seen = new Set<string>()
  return files.filter((argument) => {
    // `x.spec.json?` (the empty query, declared for TypeScript) is not `x.spec.json`.
    const [file, query] = withQuery && argument.includes('?') ? splitQuery(argument) : [argument, undefined]
    const key = query === undefined ? resolvePath(file) : `${resolvePath(file)}?${query}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

type CacheFlags = { 'cache-dir'?: string; 'no-cache'?: boolean }

/**
 * The persistent cache of the commands that compile (`check`, `types`, `generate`, `inputs`): in
 * `--cache-dir`, or `node_modules/.cache/unplugin-contracts` of the nearest package; none with
 * `--no-cache`, or outside any package without `--cache-dir`. Paths in its entries are relative to the working directory.
 */
function useCache(flags: CacheFlags): void {
  if (flags['no-cache'] && flags['cache-dir'] !== undefined) throw new UsageError('Use --cache-dir or --no-cache, not both.')
  if (flags['cache-dir'] === '') throw new UsageError('--cache-dir needs a folder.')
  const root = process.cwd()
  const off = flags['no-cache'] || (flags['cache-dir'] === undefined && defaultCacheOff())
  // Outside any package (no package.json from here up) and no --cache-dir: nothing kept (defaultCacheDir).
  const dir = off ? undefined : (flags['cache-dir'] ?? defaultCacheDir(root))
  compiler.persistent = dir === undefined ? undefined : new PersistentCache({ dir: resolvePath(dir), root })
}

/** A usage error: the sentence, then where to read more (the command's page, not the whole overview). */
function usage(io: Output, sentence: string, command?: string): number {
  // A sentence may quote what was typed (a flag, a command, a path): controls and direction marks escaped.
  io.err(`contracts: ${terminalSafe(sentence)}\n\n${command ? commandHelp(command) : OVERVIEW}`)
  return 2
}

/**
 * `parseArgs` explains its errors for programmers (`as in '-- "--bogus"'`); a user gets the flag and
 * what is wrong with it.
 */
function parseArgsSentence(error: Error, args: readonly string[]): string {
  const flag = terminalLine(/'(-{1,2}[^' ]+)/.exec(error.message)?.[1] ?? 'a flag')
  const code = (error as { code?: string }).code
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    // A file named `-old.spec.json` reads as the short flags -o, -l, -d...: name what was typed, and how to pass such a file.
    const typed = /^-[^-]/.test(flag) ? args.find((arg) => arg.length > 2 && arg.startsWith(flag) && !arg.includes('=')) : undefined
    if (typed !== undefined)
      return `There is no flag ${flag} (in ${terminalLine(JSON.stringify(typed))}): a file whose name starts with "-" is written ./${terminalLine(typed)}, or after --.`
    return `There is no flag ${flag}.`
  }
  if (/argument missing/.test(error.message)) return `${flag} needs a value (${flag} <value>).`
  if (/does not take an argument/.test(error.message)) return `${flag} takes no value.`
  return `${flag}: ${error.message}`
}

/** Topic scoping is a Benzene option and export names a Benzene and NATS one: on another file they would be ignored, so they are refused. */
function benzeneOnly(files: readonly string[], flags: Resolved): void {
  const given = (['topics', 'include-reserved', 'names'] as const).filter((f) => flags[f] !== undefined)
  if (given.length === 1 && given[0] === 'names' && files.every((file) => compiler.formatOf(file)?.name !== 'dasp')) return
  if (given.length === 0) return
  for (const file of files) {
    const format = compiler.formatOf(file)?.name
    if (format !== undefined && format !== 'benzene')
      throw new UsageError(`--${given[0]} applies to Benzene contracts; ${file} is a ${format === 'nats' ? 'NATS' : 'DASP'} contract.`)
  }
}

function single(positionals: string[], command: string): string {
  if (positionals.length !== 1) throw new UsageError(`\`contracts ${command}\` takes exactly one file.`)
  return positionals[0]!
}

/**
 * Reads the `--names` file once: a JSON object, whose values the Benzene options check like the
 * plugin's (`BENZENE_INVALID_OPTION`). A file that cannot be read or is not a JSON object is a
 * usage error.
 */
function resolve(flags: Flags): Resolved {
  const { names: file, ...rest } = flags
  if (file === undefined) return rest
  let names: unknown
  try {
    names = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new UsageError(`--names ${JSON.stringify(file)}: ${(error as Error).message}`)
  }
  if (typeof names !== 'object' || names === null || Array.isArray(names))
    throw new UsageError(`--names ${JSON.stringify(file)}: not a JSON object of export names.`)
  return { ...rest, names: names as Record<string, unknown> }
}

function options(flags: Resolved): CompileOptions {
  const topics = flags.topics
    ?.split(',')
    .map((t) => t.trim())
    .filter(Boolean)
  return {
    benzene: {
      ...(topics ? { topics } : {}),
      ...(flags['include-reserved'] ? { includeReserved: true } : {}),
      ...(flags.names ? { names: flags.names } : {}),
    },
    // The same file names NATS channels (keyed by channel id) for NATS documents.
    ...(flags.names ? { nats: { names: flags.names } } : {}),
  }
}

/** `contracts generate`: files for a target, written under --out; diagnostics on stderr and nothing written when a document fails. */
async function generateCommand(files: string[], flags: { target?: string; out?: string; serde?: boolean; clean?: boolean }, io: Output): Promise<number> {
  if (flags.target !== 'rust' && flags.target !== 'typescript') throw new UsageError('`contracts generate` needs --target rust or --target typescript.')
  if (!flags.out) throw new UsageError('`contracts generate` needs --out <dir>.')
  if (files.length === 0) throw new UsageError('`contracts generate` needs at least one document.')
  if (flags.serde === true && flags.target !== 'rust') throw new UsageError('--serde applies to `--target rust` only (it adds payload types to the crate).')
  const written: OwnedFile[] = []
  let failed = false
  const models: NatsModel[] = []
  const reported = firstTimeOnly()
  for (const file of files) {
    if (flags.target === 'typescript') {
      const result = await compiler.compile(file)
      printDiagnostics(reported(result.diagnostics), io, result.dependencies)
      if (result.code === undefined || result.dts === undefined) {
        failed = true
        continue
      }
      // A NATS module is named by its contract id (documents are often all called asyncapi.yaml),
      // read off the model the module was generated from (the cache answers: no second compile).
      const nats = result.format === 'nats' ? (await compiler.model(file, natsFormat)).model : undefined
      const name = (nats ? moduleName(nats.contract.id) : stemName(basename(file).replace(/\.(spec|dasp)?\.?(json|ya?ml)$/, ''))) || 'contract'
      written.push(
        { path: `${name}.js`, text: withMarker(result.code, 'slash'), from: file },
        { path: `${name}.d.ts`, text: withMarker(result.dts, 'slash'), from: file },
      )
    } else {
      const result = await compiler.model(file, natsFormat)
      printDiagnostics(reported(result.diagnostics), io, result.dependencies)
      if (hasErrors(result.diagnostics)) failed = true
      else if (result.model === undefined) {
        io.err(terminalLine(`contracts: ${file} is not a NATS contract; the Rust target reads NATS application documents.`))
        failed = true
      } else models.push(result.model)
    }
  }
  if (failed) return 1
  // The target's code is loaded when it is asked for, as a format's is on its first file.
  if (flags.target === 'rust') {
    const { rustCrate } = await import('../formats/nats/targets/rust/crate.js')
    const { RustUnsupported } = await import('../formats/nats/targets/rust/payloads.js')
    let files: ReturnType<typeof rustCrate>
    try {
      files = rustCrate(models, basename(resolvePath(flags.out)), { serde: flags.serde === true })
    } catch (error) {
      if (!(error instanceof RustUnsupported)) throw error
      // A diagnostic like any other: its code, and where the schema (or channel) is in the document.
      const { rustUnsupported } = await import('../formats/nats/targets/rust/refusal.js')
      const diagnostic = rustUnsupported(error, readFileSync)
      printDiagnostics([diagnostic], io, [diagnostic.file])
      io.err(terminalLine('contracts: the Rust target cannot write this document; nothing was written.'))
      return 1
    }
    for (const file of files)
      written.push({ path: file.path, text: withMarker(file.text, file.path.endsWith('.toml') ? 'hash' : 'slash'), from: 'the Rust crate' })
  }
  // All or nothing: two outputs of one name, a link or a file the project did not write under
  // --out, and nothing is written (`writeOwnedFiles`); atomic, so a full disk half-way through
  // leaves the folder as it was too (every file is written beside its target before any is renamed).
  const result = writeOwnedFiles(flags.out, written, { createRoot: true, atomic: true })
  if (!result.ok) {
    const duplicates = result.refused.filter((r) => r.reason === 'duplicate')
    if (duplicates.length > 0) throw new UsageError(duplicates.map((r) => terminalLine(r.message)).join('\n'))
    return refusedWrites(result, io)
  }
  const unchanged = result.files.filter((f) => f.status === 'unchanged').length
  io.err(terminalLine(`wrote ${result.files.length - unchanged} files under ${flags.out}${unchanged ? ` (${unchanged} unchanged)` : ''}`))
  return staleFiles(flags.out, flags.target, result.files, flags.clean === true, io)
}

/** Lines of stale files listed, at most (the count says the rest). */
const STALE_LINES = 20

/**
 * What an earlier `generate` wrote under --out that this run did not (stale-outputs.ts): listed, or
 * with --clean removed (a file that changed into something else since the look is refused, exit 1).
 */
function staleFiles(out: string, target: 'rust' | 'typescript', written: readonly WriteDone[], clean: boolean, io: Output): number {
  const stale = staleOutputs(out, target, new Set(written.map((f) => f.path)))
  if (stale.truncated)
    io.err(terminalLine(`contracts: ${stale.folder} holds more than ${MAX_LOOKED} entries; files past them were not looked at for stale outputs.`))
  if (stale.files.length === 0) return 0
  if (!clean) {
    for (const file of stale.files.slice(0, STALE_LINES)) io.err(terminalLine(`stale ${file}`))
    const more = stale.files.length - STALE_LINES
    io.err(
      terminalLine(
        `${more > 0 ? `and ${more} more: ` : ''}${stale.files.length} generated ${stale.files.length === 1 ? 'file' : 'files'} under ${out} not written by this run (an earlier run's, for a document or application no longer given); --clean removes them.`,
      ),
    )
    return 0
  }
  const refused: WriteRefusal[] = []
  for (const file of stale.files) {
    const removed = removeOwnedFile(resolvePath(out), file)
    if (removed.ok) io.err(terminalLine(`removed ${file}`))
    else refused.push(...removed.refused)
  }
  if (refused.length === 0) return 0
  printDiagnostics(refused.map(writeRefusedDiagnostic), io, [])
  return 1
}

/** Refused writes as `CONTRACTS_WRITE_REFUSED` diagnostics on stderr; exit status 1. */
function refusedWrites(result: WriteResult & { ok: false }, io: Output): number {
  printDiagnostics(result.refused.map(writeRefusedDiagnostic), io, [])
  return 1
}

/** A write's outcome as the CLI reports it: `wrote x`, `unchanged x` (the CLI removes nothing). */
const said = (status: WriteDone['status']) => (status === 'written' ? 'wrote' : status === 'removed' ? 'removed' : 'unchanged')

/** What a written file says of itself, as `contracts types` and `generate` report it. */
function reportWrite(result: WriteResult, io: Output): boolean {
  if (!result.ok) {
    refusedWrites(result, io)
    return false
  }
  for (const file of result.files) io.err(terminalLine(`${said(file.status)} ${file.path}`))
  return true
}

/** A file name from a contract id: what a file name may not hold becomes `_`. */
function moduleName(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]+/g, '_')
}

/**
 * A file name from a contract's file stem (`payments` of `payments.spec.json`), as `moduleName`
 * makes one from an id, dots kept (`payments.v2`) but not first (`.x` would hide the file, `..` leave
 * the folder). The stem was used as it was: a name with a newline, U+202E or a backslash reached the
 * output's file name, and `a:b` (a plain name on POSIX) was refused as a drive.
 */
function stemName(stem: string): string {
  return stem.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^\./, '_')
}

const TOPOLOGY_FORMATS = ['json', 'mermaid', 'dot', 'svg', 'html'] as const
/** The comment each picture's file carries its generated-file marker in (`--out` only: stdout is the user's to redirect). */
const TOPOLOGY_MARKERS: Record<(typeof TOPOLOGY_FORMATS)[number], MarkerSyntax> = { json: 'json', mermaid: 'mermaid', dot: 'slash', svg: 'xml', html: 'html' }

/** `contracts topology`: the projection on stdout (or `--out`), diagnostics on stderr; no picture when a document fails. */
async function topologyCommand(inputs: string[], flags: { format?: string; out?: string }, io: Output): Promise<number> {
  if (inputs.length === 0) throw new UsageError('`contracts topology` needs at least one document or bundle folder.')
  const format = flags.format ?? 'json'
  if (!(TOPOLOGY_FORMATS as readonly string[]).includes(format))
    throw new UsageError(`--format ${JSON.stringify(format)} is not one of ${TOPOLOGY_FORMATS.join(', ')}.`)
  const { toDot, toHtml, toMermaid, toSvg, topology } = await import('../formats/nats/topology/index.js')
  // One run over every document of the bundles, whose files do not change meanwhile: a compiler of its
  // own that looks at each file once (CompilerOptions.snapshot), with the command's persistent cache.
  const once = new ContractCompiler({ formats, snapshot: true, ...(compiler.persistent ? { cache: compiler.persistent } : {}) })
  const result = await topology(inputs, once)
  printDiagnostics(result.diagnostics, io, new Set(result.diagnostics.map((d) => d.file)))
  if (!result.topology) return 1
  const text =
    format === 'mermaid'
      ? toMermaid(result.topology)
      : format === 'dot'
        ? toDot(result.topology)
        : format === 'svg'
          ? await toSvg(result.topology)
          : format === 'html'
            ? await toHtml(result.topology)
            : jsonText(result.topology) + '\n'
  if (flags.out) {
    const out = resolvePath(flags.out)
    const result = writeOwnedFile(dirname(out), out, withMarker(text, TOPOLOGY_MARKERS[format as (typeof TOPOLOGY_FORMATS)[number]]))
    if (!result.ok) return refusedWrites(result, io)
    io.err(`${said(result.files[0]!.status)} ${flags.out}`)
  } else io.out(text.replace(/\n$/, ''))
  return 0
}

/** Diagnostics with code frames of the files the compile read (`dependencies`), and of no other. */
function printDiagnostics(diagnostics: readonly Diagnostic[], io: Output, dependencies: Iterable<string>): void {
  const read = sourceReader(dependencies)
  for (const d of diagnostics) io.err(formatDiagnostic(d, read) + '\n')
}

/** A diagnostic as a GitHub Actions annotation (`::error file=...,line=...,col=...,title=CODE::message`), escaped as workflow commands require. */
export function githubAnnotation(d: Diagnostic): string {
  return `::${d.severity === 'error' ? 'error' : 'warning'} file=${commandProperty(annotationFile(d.file))},line=${d.line},col=${d.column},title=${commandProperty(d.code)}::${commandData(d.message)}`
}

/** One `check` run: every file compiled, diagnostics printed, a summary line; what was read comes back for `--watch`. */
async function checkOnce(
  files: string[],
  flags: Resolved,
  io: Output,
  using: ContractCompiler = compiler,
): Promise<{ status: number; read: Set<string>; looked: Set<string> }> {
  const all: Diagnostic[] = []
  const read = new Set<string>()
  const looked = new Set<string>()
  let failed = 0
  const reported = firstTimeOnly()
  for (const file of files) {
    const result = await using.compile(file, { ...options(flags), declarations: false })
    append(all, reported(result.diagnostics))
    for (const dependency of result.dependencies) read.add(dependency)
    read.add(resolvePath(file))
    // A file made later where the check looked and found none changes its verdict: watched too.
    for (const absent of result.absentDependencies) looked.add(absent)
    if (hasErrors(result.diagnostics)) failed++
  }
  if (flags.json) io.out(jsonText({ diagnostics: all }))
  // GitHub Actions workflow commands: one annotation per diagnostic, paths relative to the checkout.
  else if (flags.format === 'github') for (const d of all) io.out(githubAnnotation(d))
  // Loaded only when asked for: its rule catalogue names every format's rules, which a check of one
  // format must not load (cold start).
  else if (flags.format === 'sarif') io.out(jsonText((await import('./sarif.js')).sarifLog(all)))
  else printDiagnostics(all, io, read)
  io.err(checkSummary(files.length, failed, all))
  return { status: failed > 0 ? 1 : 0, read, looked }
}

/** `3 contracts checked: 1 failed (2 errors, 1 warning).` */
export function checkSummary(files: number, failed: number, diagnostics: readonly Diagnostic[]): string {
  const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`
  const errors = diagnostics.filter((d) => d.severity === 'error').length
  const warnings = diagnostics.length - errors
  const counts = [errors ? count(errors, 'error') : '', warnings ? count(warnings, 'warning') : ''].filter(Boolean).join(', ')
  const head = `${count(files, 'contract')} checked`
  if (failed > 0) return `${head}: ${failed} failed (${counts}).`
  return `${head}: no errors${warnings ? `, ${count(warnings, 'warning')}` : ''}.`
}

function checkArguments(files: string[], flags: Resolved): void {
  if (files.length === 0) throw new UsageError('`contracts check` needs at least one file.')
  if (flags.format !== undefined && flags.format !== 'github' && flags.format !== 'sarif')
    throw new UsageError('`contracts check --format` takes github or sarif (or use --json).')
}

async function check(files: string[], flags: Resolved, io: Output): Promise<number> {
  checkArguments(files, flags)
  // One run over files that do not change meanwhile (not --watch): a compiler of its own that looks at
  // each file once (CompilerOptions.snapshot), as the topology's does; a bundle's n documents each read
  // its n files (an outside pass: 500 documents of one bundle took 39 s).
  const once = new ContractCompiler({ formats, snapshot: true, ...(compiler.persistent ? { cache: compiler.persistent } : {}) })
  return (await checkOnce(files, flags, io, once)).status
}

/**
 * `check --watch`: checks, then checks again after any file the last run read changes (or one is
 * made where it looked and found none), until SIGINT. What is watched, and how a folder that is not
 * there yet or is made again is seen, is watch-paths.ts; a burst of events is one run (40 ms
 * quiet), and a run never overlaps another.
 */
async function watchCheck(files: string[], flags: Resolved, io: Output): Promise<number> {
  checkArguments(files, flags)
  let last = await checkOnce(files, flags, io)
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> = Promise.resolve()
  const schedule = () => {
    clearTimeout(timer)
    timer = setTimeout(() => {
      running = running.then(async () => {
        io.err('')
        last = await checkOnce(files, flags, io)
        // A folder watched anew (made again, or made where a path had none) may have changed before its watch began.
        if (watched.update([...last.read, ...last.looked])) schedule()
        io.err(watchingLine(last.read.size))
      })
    }, 40)
  }
  const watched = watchPaths(schedule)
  watched.update([...last.read, ...last.looked])
  io.err(watchingLine(last.read.size))
  await new Promise<void>((done) => process.once('SIGINT', done))
  clearTimeout(timer)
  watched.close()
  await running
  return last.status
}

const watchingLine = (files: number) => `watching ${files} file${files === 1 ? '' : 's'} (Ctrl-C to stop)`

async function hash(file: string, flags: Resolved, io: Output): Promise<number> {
  if (flags.topic !== undefined && flags.topics !== undefined) throw new UsageError('Use --topic or --topics, not both.')
  if (flags.version !== undefined && flags.topic === undefined) throw new UsageError('--version goes with --topic.')
  if (flags.unversioned && flags.topic === undefined) throw new UsageError('--unversioned goes with --topic.')
  if (flags.unversioned && flags.version !== undefined) throw new UsageError('Use --version or --unversioned, not both.')
  // A topic's hash is asked with that topic in scope, reserved or not.
  const scoped = flags.topic === undefined ? flags : { ...flags, topics: flags.topic }
  const result = await compiler.hash(file, { topic: flags.topic, version: flags.version, ...(flags.unversioned ? { unversioned: true } : {}) }, options(scoped))
  if (hasErrors(result.diagnostics)) {
    printDiagnostics(result.diagnostics, io, result.dependencies)
    return 1
  }
  if (result.hash === undefined) {
    io.err(terminalLine(`contracts: ${result.usage ?? `no hash for ${file}.`}`))
    return 2
  }
  io.out(result.hash)
  return 0
}

async function inspectCommand(file: string, flags: Resolved, io: Output): Promise<number> {
  const result = await compiler.inspect(file, options(flags))
  if (hasErrors(result.diagnostics) || result.data === undefined) {
    if (flags.json) io.out(jsonText({ diagnostics: result.diagnostics }))
    else printDiagnostics(result.diagnostics, io, result.dependencies)
    return 1
  }
  if (flags.json) io.out(jsonText(result.data))
  else for (const line of result.text ?? []) io.out(terminalLine(line))
  return 0
}

/**
 * `contracts inputs`: every file the contracts depend on (what their compiles read: the contract,
 * a bundle's lock and locked files, DASP definitions and pins), and every path where a file that
 * does not exist yet would change them (a bundle lock in a folder above a NATS document, a missing
 * definition or pinned file), relative to the working directory, sorted, once each; for a monorepo
 * tool's task inputs, which hash a path that matches no file yet as soon as one is made there.
 * A contract with errors still lists what it read, its diagnostics go to stderr, and the status is 1.
 */
async function inputsCommand(files: string[], flags: Resolved, io: Output): Promise<number> {
  if (files.length === 0) throw new UsageError('`contracts inputs` needs at least one file.')
  const shown = (path: string) => relative(process.cwd(), path).split(sep).join('/') || '.'
  const contracts: Array<{ file: string; inputs: string[]; absent: string[] }> = []
  const diagnostics: Diagnostic[] = []
  let failed = false
  const reported = firstTimeOnly()
  for (const file of files) {
    const result = await compiler.compile(file, { ...options(flags), declarations: false })
    if (hasErrors(result.diagnostics)) failed = true
    const fresh = reported(result.diagnostics)
    append(diagnostics, fresh)
    if (!flags.json) printDiagnostics(fresh, io, result.dependencies)
    // The contract is an input of itself even when its compile read nothing from it (a symbolic link
    // or other non-regular file, refused until a plain file replaces it): listed as absent then.
    const unread = result.dependencies.includes(result.file) ? [] : [result.file]
    const absent = sortedOnce([...result.absentDependencies, ...unread].map(shown))
    contracts.push({ file: shown(result.file), inputs: sortedOnce([...result.dependencies.map(shown), ...absent]), absent })
  }
  const inputs = sortedOnce(contracts.flatMap((c) => c.inputs))
  const absent = sortedOnce(contracts.flatMap((c) => c.absent))
  if (flags.json) io.out(jsonText({ inputs, absent, contracts, diagnostics }))
  else if (inputs.length > 0) io.out(inputs.map(terminalLine).join('\n'))
  return failed ? 1 : 0
}

const sortedOnce = (values: readonly string[]) => [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))

/**
 * `contracts types`: the sidecar of each contract; an argument with a query
 * (`payments.spec.json?topics=payments:capture`) adds that query import's declarations to the
 * contract's `-queries.d.ts`, as the plugin writes them for the query imports a build serves: the
 * queries the file declares already are compiled again and kept (a run with one query wrote that
 * one alone over the others); one that no longer compiles is dropped, its diagnostics printed.
 */
async function types(files: string[], flags: Resolved, io: Output): Promise<number> {
  if (files.length === 0) throw new UsageError('`contracts types` needs at least one file.')
  let failed = false
  const sidecars = new SidecarWriter()
  // One contract given as several imports (`x.spec.json` and `x.spec.json?topics=a`): its diagnostics once, as a build prints them.
  const unprinted = firstTimeOnly()
  for (const argument of files) {
    const [file, query] = splitQuery(argument)
    const result = await compiler.compile(file, { ...options(flags), query })
    printDiagnostics(unprinted(result.diagnostics), io, result.dependencies)
    if (result.dts === undefined) {
      failed = true
      continue
    }
    if (query === '') {
      if (!reportWrite(sidecars.sidecar(result.file, result.dts), io)) failed = true
      // `x.spec.json?`: the import TypeScript resolves only as the empty query (`*/x.spec.json?`).
      if (argument.includes('?')) sidecars.query(result.file, '', result.dts)
    } else sidecars.query(result.file, query, result.dts)
  }
  for (const file of sidecars.queried()) {
    for (const query of declaredQueries(file)) {
      if (sidecars.has(file, query)) continue
      const result = await compiler.compile(file, { ...options(flags), query })
      if (result.dts !== undefined) sidecars.query(file, query, result.dts)
      else {
        printDiagnostics(unprinted(result.diagnostics), io, result.dependencies)
        io.err(terminalLine(`contracts: ${file}?${query}, declared before, no longer compiles: its declarations are dropped.`))
        failed = true
      }
    }
    if (!reportWrite(sidecars.writeQueries(file), io)) failed = true
  }
  return failed ? 1 : 0
}
