import { append } from './append.js'
import { dirname, resolve } from 'node:path'
import { GenMapping, addMapping, setSourceContent, toEncodedMap, type EncodedSourceMap } from '@jridgewell/gen-mapping'
import { capDiagnostics, hasErrors, type Diagnostic } from './diagnostics.js'
import type { ContractFormat, Generated, ImportQuery } from './format.js'
import { InputError, fileProblem, readRegularFile, recordingHost, sha256 } from './input-host.js'
import { LIMITS } from './limits.js'
import { packageVersion } from './package-info.js'
import { findFormat, formats } from './registry.js'
import type { BenzeneOptions } from '../formats/benzene/options.js'

export interface CompileOptions {
  /** The import query, e.g. `topics=payments:capture&includeReserved` (a leading `?` is allowed). */
  query?: string
  /** Options for Benzene `*.spec.json` documents; the import query overrides them. */
  benzene?: BenzeneOptions
}

export interface CompileResult {
  file: string
  /** Name of the format that claimed the file, when one did. */
  format?: string
  /** The ES module; absent when there are errors. */
  code?: string
  /** Source map from the module back to the contract document. */
  map?: EncodedSourceMap
  /** TypeScript declarations for the module; absent when there are errors. */
  dts?: string
  diagnostics: Diagnostic[]
  /** Every file the result depends on (the contract first); watch all of them. */
  dependencies: string[]
}

export interface InspectResult {
  file: string
  format?: string
  /** What the format reports about the document in scope (`contracts inspect --json`). */
  data?: unknown
  diagnostics: Diagnostic[]
  dependencies: string[]
}

/** Query keys bundlers add on their own; never a user's mistake. */
const BUNDLER_QUERY_KEYS = new Set(['t', 'v', 'import', 'direct'])

interface CacheEntry {
  inputs: Map<string, string>
  result: CompileResult
}

/**
 * Compiles contract files, with a cache keyed by the options, the package version and the digest
 * of every byte read: an entry is reused only when each file it read still has the same digest.
 */
export class ContractCompiler {
  /** Pipeline runs that were not served from the cache (for tests and benchmarks). */
  compilations = 0
  private readonly cache = new Map<string, CacheEntry>()

  constructor(private readonly maxEntries = 256) {}

  async compile(file: string, options: CompileOptions = {}): Promise<CompileResult> {
    const path = resolve(file)
    const key = sha256(JSON.stringify([packageVersion, path, options.query ?? '', options.benzene ?? null]))
    const entry = this.cache.get(key)
    if (entry && stillValid(entry.inputs)) {
      this.cache.delete(key) // re-inserted below: the cache evicts the least recently used entry
      this.cache.set(key, entry)
      return entry.result
    }
    this.compilations++
    const { result, inputs } = await runStages<CompileResult>(path, options, (format, parsed, query, diagnostics, texts) => {
      const normalized = format.normalize(parsed, query, options[format.name as keyof CompileOptions])
      append(diagnostics, normalized.diagnostics)
      if (!normalized.model || hasErrors(diagnostics)) return {}
      const generated = format.generate(normalized.model)
      append(diagnostics, generated.diagnostics ?? [])
      if (hasErrors(diagnostics)) return {}
      return { code: generated.code, dts: generated.dts, map: sourceMap(path, generated, texts.get(path) ?? '') }
    })
    this.cache.set(key, { inputs, result })
    if (this.cache.size > this.maxEntries) this.cache.delete(this.cache.keys().next().value!)
    return result
  }

  clear(): void {
    this.cache.clear()
  }
}

function stillValid(inputs: Map<string, string>): boolean {
  for (const [path, digest] of inputs) {
    try {
      const bytes = readRegularFile(path, LIMITS.fileBytes)
      if (!Buffer.isBuffer(bytes) || sha256(bytes) !== digest) return false
    } catch {
      return false
    }
  }
  return true
}

type Finish<R> = (
  format: ContractFormat,
  parsed: unknown,
  query: ImportQuery,
  diagnostics: Diagnostic[],
  texts: Map<string, string>,
) => Partial<R>

/**
 * The stages every command shares: find the format, check the query, parse, validate. `finish`
 * runs only on a document without errors. Nothing here throws: a bug becomes `CONTRACTS_INTERNAL`.
 */
async function runStages<R extends { diagnostics: Diagnostic[] }>(
  file: string,
  options: CompileOptions,
  finish: Finish<R>,
): Promise<{ result: R & { file: string; format?: string; dependencies: string[] }; inputs: Map<string, string> }> {
  const host = recordingHost(dirname(file))
  const done = (diagnostics: Diagnostic[], format?: ContractFormat, extra: Partial<R> = {}) => ({
    result: { ...extra, file, format: format?.name, diagnostics: capDiagnostics(diagnostics), dependencies: [...host.digests.keys()] } as R & {
      file: string
      format?: string
      dependencies: string[]
    },
    inputs: host.digests,
  })
  const format = findFormat(file)
  if (!format) {
    const known = formats.map((f) => f.name).join(', ')
    return done([fileProblem('CONTRACTS_UNKNOWN_FORMAT', file, `No contract format handles ${file} (formats: ${known}).`)])
  }
  try {
    const query = parseQuery(options.query, format, file)
    if (hasErrors(query.diagnostics)) return done(query.diagnostics, format)
    const parsed = await format.parse(file, host)
    const diagnostics = [...parsed.diagnostics]
    if (parsed.parsed === undefined || hasErrors(diagnostics)) return done(diagnostics, format)
    append(diagnostics, format.validate(parsed.parsed))
    if (hasErrors(diagnostics)) return done(diagnostics, format)
    const extra = finish(format, parsed.parsed, query.values, diagnostics, host.texts)
    return done(diagnostics, format, extra)
  } catch (error) {
    if (error instanceof InputError) return done([error.diagnostic], format)
    // A bug of ours must still come out as a diagnostic, never as a crash of the user's build.
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error)
    return done([fileProblem('CONTRACTS_INTERNAL', file, `Internal compiler error (please report it): ${message}`)], format)
  }
}

function parseQuery(raw: string | undefined, format: ContractFormat, file: string) {
  const values = new Map<string, string>()
  const diagnostics: Diagnostic[] = []
  for (const [key, value] of new URLSearchParams((raw ?? '').replace(/^\?/, ''))) {
    if (BUNDLER_QUERY_KEYS.has(key)) continue
    if (!format.queryKeys.includes(key)) {
      diagnostics.push({
        ...fileProblem('CONTRACTS_UNKNOWN_QUERY', file, `Unknown import query parameter ${JSON.stringify(key)} for a ${format.name} contract (known: ${format.queryKeys.join(', ')}).`),
        data: { key, known: [...format.queryKeys] },
      })
    }
    values.set(key, value)
  }
  return { values, diagnostics }
}

/** Line-level map: each generated line that a format ties to a source position maps there. */
function sourceMap(file: string, generated: Generated, text: string): EncodedSourceMap {
  const map = new GenMapping({ file: file + '.js' })
  setSourceContent(map, file, text)
  for (const { line, position } of generated.mappings ?? []) {
    addMapping(map, { generated: { line, column: 0 }, source: file, original: { line: position.line, column: position.column - 1 } })
  }
  return toEncodedMap(map)
}

export const defaultCompiler = new ContractCompiler()

/** Compiles one contract file. Never throws: problems come back as `diagnostics`. */
export function compile(file: string, options?: CompileOptions): Promise<CompileResult> {
  return defaultCompiler.compile(file, options)
}

/** Parses, validates and describes a contract without generating code (`contracts inspect`). */
export async function inspect(file: string, options: CompileOptions = {}): Promise<InspectResult> {
  const { result } = await runStages<InspectResult>(resolve(file), options, (format, parsed, query, diagnostics) => {
    if (!format.inspect) return {}
    const inspected = format.inspect(parsed, query, options[format.name as keyof CompileOptions])
    append(diagnostics, inspected.diagnostics)
    return hasErrors(diagnostics) ? {} : { data: inspected.data }
  })
  return result
}
