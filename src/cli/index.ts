import { append } from '../core/append.js'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { compile, inspect, type CompileOptions } from '../core/compile.js'
import { hasErrors, type Diagnostic } from '../core/diagnostics.js'
import { packageVersion } from '../core/package-info.js'
import { formatDiagnostic, sourceReader } from '../core/report.js'
import { sidecarPath, writeSidecar } from '../plugin/sidecar.js'

const HELP = `contracts ${packageVersion}: check contracts, print their hashes, write their types.

Usage:
  contracts check <files...> [--json] [--topics a,b] [--include-reserved]
  contracts hash <file> [--topic <id> [--version <v>] | --topics a,b] [--include-reserved]
  contracts inspect <file> [--topics a,b] [--include-reserved] [--json]
  contracts types <files...> [--topics a,b] [--include-reserved]

Exit status: 0 no errors, 1 a contract has errors, 2 usage error.`

class UsageError extends Error {}

const scopeFlags = {
  topics: { type: 'string' },
  'include-reserved': { type: 'boolean' },
  json: { type: 'boolean' },
  topic: { type: 'string' },
  version: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} satisfies ParseArgsConfig['options']

type Flags = { topics?: string; 'include-reserved'?: boolean; json?: boolean; topic?: string; version?: string }
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
    const flags = values as Flags
    switch (command) {
      case 'check':
        return await check(positionals, flags, io)
      case 'hash':
        return await hash(single(positionals, 'hash'), flags, io)
      case 'inspect':
        return await inspectCommand(single(positionals, 'inspect'), flags, io)
      case 'types':
        return await types(positionals, flags, io)
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

function options(flags: Flags): CompileOptions {
  const topics = flags.topics?.split(',').map((t) => t.trim()).filter(Boolean)
  return { benzene: { ...(topics ? { topics } : {}), ...(flags['include-reserved'] ? { includeReserved: true } : {}) } }
}

/** Diagnostics with code frames of the files the compile read (`dependencies`), and of no other. */
function printDiagnostics(diagnostics: readonly Diagnostic[], io: Output, dependencies: Iterable<string>): void {
  const read = sourceReader(dependencies)
  for (const d of diagnostics) io.err(formatDiagnostic(d, read) + '\n')
}

async function check(files: string[], flags: Flags, io: Output): Promise<number> {
  if (files.length === 0) throw new UsageError('`contracts check` needs at least one file.')
  const all: Diagnostic[] = []
  const read: string[] = []
  for (const file of files) {
    const result = await compile(file, options(flags))
    append(all, result.diagnostics)
    append(read, result.dependencies)
  }
  if (flags.json) io.out(JSON.stringify({ diagnostics: all }, null, 2))
  else {
    printDiagnostics(all, io, read)
    const errors = all.filter((d) => d.severity === 'error').length
    io.err(errors === 0 ? `${files.length} contract${files.length === 1 ? '' : 's'} checked: no errors.` : `${errors} error${errors === 1 ? '' : 's'}.`)
  }
  return hasErrors(all) ? 1 : 0
}

async function hash(file: string, flags: Flags, io: Output): Promise<number> {
  if (flags.topic !== undefined && flags.topics !== undefined) throw new UsageError('Use --topic or --topics, not both.')
  if (flags.version !== undefined && flags.topic === undefined) throw new UsageError('--version goes with --topic.')
  const scoped = flags.topic === undefined ? flags : { ...flags, topics: flags.topic }
  const result = await inspect(file, options(scoped))
  if (hasErrors(result.diagnostics) || result.data === undefined) {
    printDiagnostics(result.diagnostics, io, result.dependencies)
    return 1
  }
  const { hashes, entries } = result.data as { hashes: { service: string; topics: Record<string, string> }; entries: Array<{ key: string; version?: string }> }
  if (flags.topic === undefined) {
    io.out(hashes.service)
    return 0
  }
  const matching = entries.filter((entry) => flags.version === undefined || entry.version === flags.version)
  if (matching.length !== 1) {
    const choices = entries.map((entry) => (entry.version === undefined ? `${flags.topic} (unversioned)` : `${flags.topic} --version ${entry.version}`))
    io.err(`contracts: ${matching.length === 0 ? 'no' : 'more than one'} entry of ${JSON.stringify(flags.topic)} matches in ${file}; pick one of: ${choices.join(', ')}.`)
    return 2
  }
  io.out(hashes.topics[matching[0]!.key]!)
  return 0
}

async function inspectCommand(file: string, flags: Flags, io: Output): Promise<number> {
  const result = await inspect(file, options(flags))
  if (hasErrors(result.diagnostics) || result.data === undefined) {
    if (flags.json) io.out(JSON.stringify({ diagnostics: result.diagnostics }, null, 2))
    else printDiagnostics(result.diagnostics, io, result.dependencies)
    return 1
  }
  if (flags.json) io.out(JSON.stringify(result.data, null, 2))
  else {
    const data = result.data as { topics: string[]; events: string[]; hashes: { service: string; topics: Record<string, string> } }
    io.out(`${result.format} contract ${file}\nservice hash: ${data.hashes.service}`)
    for (const topic of data.topics) io.out(`  topic ${topic}  ${data.hashes.topics[topic]}`)
    for (const event of data.events) io.out(`  event ${event}`)
  }
  return 0
}

async function types(files: string[], flags: Flags, io: Output): Promise<number> {
  if (files.length === 0) throw new UsageError('`contracts types` needs at least one file.')
  let failed = false
  for (const file of files) {
    const result = await compile(file, options(flags))
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
