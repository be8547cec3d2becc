import { readFileSync } from 'node:fs'
import { append } from '../core/append.js'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { ContractCompiler, type CompileOptions } from '../core/compile.js'
import { hasErrors, type Diagnostic } from '../core/diagnostics.js'
import { packageVersion } from '../core/package-info.js'
import { formatDiagnostic, sourceReader } from '../core/report.js'
import { formats } from '../formats/index.js'
import { sidecarPath, writeSidecar } from '../plugin/sidecar.js'
import { provisionCommand, type ProvisionFlags } from './nats-provision.js'
import { toDot, toHtml, toMermaid, toSvg, topology } from '../formats/nats/topology/index.js'
import { mkdir, writeFile } from 'node:fs/promises'
import { basename, dirname, join, relative, resolve as resolvePath, sep } from 'node:path'
import { rustCrate } from '../formats/nats/targets/rust/crate.js'
import type { NatsModel } from '../formats/nats/model.js'

const compiler = new ContractCompiler({ formats })

const HELP = `contracts ${packageVersion}: check contracts, print their hashes, write their types.

Usage:
  contracts check <files...> [--json | --format github] [--topics a,b] [--include-reserved] [--names <file.json>]
  contracts hash <file> [--topic <id> [--version <v>] | --topics a,b] [--include-reserved]
  contracts inspect <file> [--topics a,b] [--include-reserved] [--names <file.json>] [--json]
  contracts types <files...> [--topics a,b] [--include-reserved] [--names <file.json>]
  contracts generate --target rust|typescript --out <dir> [--serde] <documents...>
  contracts topology <documents or bundle folders...> [--format json|mermaid|dot|svg|html] [--out <file>]
  contracts nats provision <documents...> --server <url> [--creds <file>] [--dry-run] [--update]
                           [--allow-older-server] [--json]

generate writes, for tools that cannot run a bundler plugin, the TypeScript module and declarations
the plugin serves (--target typescript, any format), or a Rust crate from NATS application documents
(--target rust: one module per application, std only; --serde adds payload types behind a
cargo feature "serde", off by default).

topology projects NATS application documents (a folder: the application documents its
bundle.lock.json lists) into the system-wide picture the compiler verified: JSON (default),
Mermaid (renders in GitHub Markdown), Graphviz DOT, or a self-contained SVG or HTML page
laid out with ELK.

nats provision creates the contract-owned JetStream streams and consumers that are missing and
reports every field that differs (--update changes contract-owned ones; external resources are
never created or changed). --server defaults to NATS_URL, --creds to NATS_CREDS.

--names reads a JSON object of export names, keyed by topic or topic@version, as the
plugin's \`benzene.names\` option: {"payments:get-all": "listPayments"}.

Exit status: 0 no errors, 1 a contract has errors, 2 usage error.`

class UsageError extends Error {}

const scopeFlags = {
  topics: { type: 'string' },
  'include-reserved': { type: 'boolean' },
  names: { type: 'string' },
  json: { type: 'boolean' },
  topic: { type: 'string' },
  version: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  server: { type: 'string' },
  creds: { type: 'string' },
  'dry-run': { type: 'boolean' },
  update: { type: 'boolean' },
  'allow-older-server': { type: 'boolean' },
  format: { type: 'string' },
  out: { type: 'string' },
  target: { type: 'string' },
  serde: { type: 'boolean' },
} satisfies ParseArgsConfig['options']

/** The flags each command takes (`--help` goes with every one). */
const COMMAND_FLAGS: Readonly<Record<string, readonly string[]>> = {
  check: ['json', 'format', 'topics', 'include-reserved', 'names'],
  hash: ['topic', 'version', 'topics', 'include-reserved'],
  inspect: ['topics', 'include-reserved', 'names', 'json'],
  types: ['topics', 'include-reserved', 'names'],
  generate: ['target', 'out', 'serde'],
  topology: ['format', 'out'],
  nats: ['server', 'creds', 'dry-run', 'update', 'allow-older-server', 'json'],
}

type Flags = { topics?: string; 'include-reserved'?: boolean; names?: string; json?: boolean; topic?: string; version?: string; format?: string }
/** The flags with `--names` read: the export names the file gives. */
type Resolved = Omit<Flags, 'names'> & { names?: Readonly<Record<string, unknown>> }
type Output = { out: (text: string) => void; err: (text: string) => void }

/** Runs the CLI and returns its exit status; `main` below wires it to the process. */
export async function run(argv: readonly string[], io: Output): Promise<number> {
  const [command, ...rest] = argv
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    io.out(HELP)
    return command === undefined ? 2 : 0
  }
  if (command === '--version' || command === '-v') {
    io.out(packageVersion)
    return 0
  }
  try {
    const { values, positionals } = parseArgs({ args: [...rest], options: scopeFlags, allowPositionals: true, strict: true })
    if (values.help) {
      io.out(HELP)
      return 0
    }
    // A flag another command takes is a mistake here, not something to ignore silently.
    const allowed = COMMAND_FLAGS[command]
    if (allowed) {
      const stray = Object.keys(values).find((flag) => !allowed.includes(flag))
      if (stray !== undefined)
        throw new UsageError(`--${stray} does not apply to \`contracts ${command}\` (it takes ${allowed.map((f) => `--${f}`).join(', ') || 'no flags'}).`)
    }
    const flags = resolve(values as Flags)
    switch (command) {
      case 'check':
        return await check(positionals, flags, io)
      case 'hash':
        return await hash(single(positionals, 'hash'), flags, io)
      case 'inspect':
        return await inspectCommand(single(positionals, 'inspect'), flags, io)
      case 'types':
        return await types(positionals, flags, io)
      case 'generate':
        return await generateCommand(positionals, values as { target?: string; out?: string; serde?: boolean }, io)
      case 'topology':
        return await topologyCommand(positionals, values as { format?: string; out?: string }, io)
      case 'nats': {
        const [sub, ...files] = positionals
        if (sub !== 'provision') throw new UsageError('`contracts nats` has one command: provision.')
        const inspect = async (file: string) => {
          const result = await compiler.inspect(file)
          const failed = hasErrors(result.diagnostics) || result.data === undefined
          if (failed) printDiagnostics(result.diagnostics, io, result.dependencies)
          return { data: result.data, failed }
        }
        const status = await provisionCommand(files, values as ProvisionFlags, inspect, io)
        if (typeof status === 'string') throw new UsageError(status)
        return status
      }
      default:
        throw new UsageError(`Unknown command ${JSON.stringify(command)}.`)
    }
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`contracts: ${(error as Error).message}\n\n${HELP}`)
      return 2
    }
    throw error
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
  }
}

/** `contracts generate`: files for a target, written under --out; diagnostics on stderr and nothing written when a document fails. */
async function generateCommand(files: string[], flags: { target?: string; out?: string; serde?: boolean }, io: Output): Promise<number> {
  if (flags.target !== 'rust' && flags.target !== 'typescript') throw new UsageError('`contracts generate` needs --target rust or --target typescript.')
  if (!flags.out) throw new UsageError('`contracts generate` needs --out <dir>.')
  if (files.length === 0) throw new UsageError('`contracts generate` needs at least one document.')
  const written: Array<{ path: string; text: string }> = []
  let failed = false
  const models: NatsModel[] = []
  for (const file of files) {
    if (flags.target === 'typescript') {
      const result = await compiler.compile(file)
      printDiagnostics(result.diagnostics, io, result.dependencies)
      if (result.code === undefined || result.dts === undefined) {
        failed = true
        continue
      }
      const name = result.format === 'nats' ? natsModuleName(result.code) : basename(file).replace(/\.(spec|dasp)?\.?(json|ya?ml)$/, '')
      written.push({ path: `${name}.js`, text: result.code }, { path: `${name}.d.ts`, text: result.dts })
    } else {
      const result = await compiler.inspect(file)
      printDiagnostics(result.diagnostics, io, result.dependencies)
      if (hasErrors(result.diagnostics) || result.data === undefined) failed = true
      else if (result.format !== 'nats') {
        io.err(`contracts: ${file} is not a NATS contract; the Rust target reads NATS application documents.`)
        failed = true
      } else models.push({ ...(result.data as NatsModel), file })
    }
  }
  if (failed) return 1
  if (flags.target === 'rust') written.push(...rustCrate(models, basename(resolvePath(flags.out)), { serde: flags.serde === true }))
  for (const file of written) {
    const path = join(flags.out, ...file.path.split('/'))
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, file.text)
  }
  io.err(`wrote ${written.length} files under ${flags.out}`)
  return 0
}

/** A NATS module's file name: its contract id (documents are often all called asyncapi.yaml). */
function natsModuleName(code: string): string {
  const id = /"id":"((?:[^"\\]|\\.)*)"/.exec(code)?.[1] ?? 'contract'
  return id.replace(/[^A-Za-z0-9_-]+/g, '_')
}

const TOPOLOGY_FORMATS = ['json', 'mermaid', 'dot', 'svg', 'html'] as const

/** `contracts topology`: the projection on stdout (or `--out`), diagnostics on stderr; no picture when a document fails. */
async function topologyCommand(inputs: string[], flags: { format?: string; out?: string }, io: Output): Promise<number> {
  if (inputs.length === 0) throw new UsageError('`contracts topology` needs at least one document or bundle folder.')
  const format = flags.format ?? 'json'
  if (!(TOPOLOGY_FORMATS as readonly string[]).includes(format))
    throw new UsageError(`--format ${JSON.stringify(format)} is not one of ${TOPOLOGY_FORMATS.join(', ')}.`)
  const result = await topology(inputs, compiler)
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
            : JSON.stringify(result.topology, null, 2) + '\n'
  if (flags.out) {
    await writeFile(flags.out, text)
    io.err(`wrote ${flags.out}`)
  } else io.out(text.replace(/\n$/, ''))
  return 0
}

/** Diagnostics with code frames of the files the compile read (`dependencies`), and of no other. */
function printDiagnostics(diagnostics: readonly Diagnostic[], io: Output, dependencies: Iterable<string>): void {
  const read = sourceReader(dependencies)
  for (const d of diagnostics) io.err(formatDiagnostic(d, read) + '\n')
}

/** A diagnostic as a GitHub Actions annotation (`::error file=...,line=...,col=...,title=CODE::message`), escaped as workflow commands require. */
function githubAnnotation(d: Diagnostic): string {
  const data = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
  const property = (s: string) => data(s).replace(/:/g, '%3A').replace(/,/g, '%2C')
  const file = relative(process.cwd(), d.file).split(sep).join('/') || d.file
  return `::${d.severity === 'error' ? 'error' : 'warning'} file=${property(file)},line=${d.line},col=${d.column},title=${property(d.code)}::${data(d.message)}`
}

async function check(files: string[], flags: Resolved, io: Output): Promise<number> {
  if (files.length === 0) throw new UsageError('`contracts check` needs at least one file.')
  if (flags.format !== undefined && flags.format !== 'github') throw new UsageError('`contracts check --format` takes github (or use --json).')
  const all: Diagnostic[] = []
  const read: string[] = []
  for (const file of files) {
    const result = await compiler.compile(file, options(flags))
    append(all, result.diagnostics)
    append(read, result.dependencies)
  }
  if (flags.json) io.out(JSON.stringify({ diagnostics: all }, null, 2))
  else if (flags.format === 'github') {
    // GitHub Actions workflow commands: one annotation per diagnostic, paths relative to the checkout.
    for (const d of all) io.out(githubAnnotation(d))
    const errors = all.filter((d) => d.severity === 'error').length
    io.err(errors === 0 ? `${files.length} contract${files.length === 1 ? '' : 's'} checked: no errors.` : `${errors} error${errors === 1 ? '' : 's'}.`)
  } else {
    printDiagnostics(all, io, read)
    const errors = all.filter((d) => d.severity === 'error').length
    io.err(errors === 0 ? `${files.length} contract${files.length === 1 ? '' : 's'} checked: no errors.` : `${errors} error${errors === 1 ? '' : 's'}.`)
  }
  return hasErrors(all) ? 1 : 0
}

async function hash(file: string, flags: Resolved, io: Output): Promise<number> {
  if (flags.topic !== undefined && flags.topics !== undefined) throw new UsageError('Use --topic or --topics, not both.')
  if (flags.version !== undefined && flags.topic === undefined) throw new UsageError('--version goes with --topic.')
  // A topic's hash is asked with that topic in scope, reserved or not.
  const scoped = flags.topic === undefined ? flags : { ...flags, topics: flags.topic }
  const result = await compiler.hash(file, { topic: flags.topic, version: flags.version }, options(scoped))
  if (hasErrors(result.diagnostics)) {
    printDiagnostics(result.diagnostics, io, result.dependencies)
    return 1
  }
  if (result.hash === undefined) {
    io.err(`contracts: ${result.usage ?? `no hash for ${file}.`}`)
    return 2
  }
  io.out(result.hash)
  return 0
}

async function inspectCommand(file: string, flags: Resolved, io: Output): Promise<number> {
  const result = await compiler.inspect(file, options(flags))
  if (hasErrors(result.diagnostics) || result.data === undefined) {
    if (flags.json) io.out(JSON.stringify({ diagnostics: result.diagnostics }, null, 2))
    else printDiagnostics(result.diagnostics, io, result.dependencies)
    return 1
  }
  if (flags.json) io.out(JSON.stringify(result.data, null, 2))
  else for (const line of result.text ?? []) io.out(line)
  return 0
}

async function types(files: string[], flags: Resolved, io: Output): Promise<number> {
  if (files.length === 0) throw new UsageError('`contracts types` needs at least one file.')
  let failed = false
  for (const file of files) {
    const result = await compiler.compile(file, options(flags))
    printDiagnostics(result.diagnostics, io, result.dependencies)
    if (result.dts === undefined) {
      failed = true
      continue
    }
    const wrote = await writeSidecar(result.file, result.dts)
    io.err(`${wrote ? 'wrote' : 'unchanged'} ${sidecarPath(result.file)}`)
  }
  return failed ? 1 : 0
}
