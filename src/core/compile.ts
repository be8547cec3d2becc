import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { GenMapping, addMapping, setSourceContent, toEncodedMap, type EncodedSourceMap } from '@jridgewell/gen-mapping'
import { hasErrors, sortDiagnostics, type Diagnostic } from './diagnostics.js'
import type { ContractFormat, InputHost } from './format.js'
import { packageVersion } from './package-info.js'
import { findFormat } from './registry.js'
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

/** Query keys bundlers add on their own; never a user's mistake. */
const BUNDLER_QUERY_KEYS = new Set(['t', 'v', 'import', 'direct'])

class InputError extends Error {
  constructor(readonly diagnostic: Diagnostic) {
    super(diagnostic.message)
  }
}

interface CacheEntry {
  inputs: Map<string, string>
  result: CompileResult
}

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex')
const utf8 = new TextDecoder('utf-8', { fatal: true })

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
    if (entry && (await stillValid(entry.inputs))) {
      // Refresh its place so the cache keeps what is used.
      this.cache.delete(key)
      this.cache.set(key, entry)
      return entry.result
    }
    this.compilations++
    const inputs = new Map<string, string>()
    const result = await runPipeline(path, options, inputs)
    this.cache.set(key, { inputs, result })
    if (this.cache.size > this.maxEntries) this.cache.delete(this.cache.keys().next().value!)
    return result
  }

  clear(): void {
    this.cache.clear()
  }
}

async function stillValid(inputs: Map<string, string>): Promise<boolean> {
  for (const [path, digest] of inputs) {
    try {
      if (sha256(await readFile(path)) !== digest) return false
    } catch {
      return false
    }
  }
  return true
}

async function runPipeline(file: string, options: CompileOptions, inputs: Map<string, string>): Promise<CompileResult> {
  const fail = (diagnostics: Diagnostic[], format?: string): CompileResult => ({
    file,
    format,
    diagnostics: sortDiagnostics(diagnostics),
    dependencies: [...inputs.keys()],
  })
  const format = findFormat(file)
  if (!format) {
    return fail([problem('CONTRACTS_UNKNOWN_FORMAT', file, `No contract format handles ${file}. Known: *.spec.json (Benzene).`)])
  }
  const texts = new Map<string, string>()
  const host: InputHost = {
    async readText(path) {
      const abs = resolve(path)
      let bytes: Buffer
      try {
        bytes = await readFile(abs)
      } catch (error) {
        throw new InputError(problem('CONTRACTS_READ_FAILED', abs, `Cannot read ${abs}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`))
      }
      inputs.set(abs, sha256(bytes))
      try {
        const text = utf8.decode(bytes)
        texts.set(abs, text)
        return text
      } catch {
        throw new InputError(problem('CONTRACTS_NOT_UTF8', abs, `${abs} is not valid UTF-8.`))
      }
    },
  }
  try {
    const query = parseQuery(options.query, format, file)
    if (hasErrors(query.diagnostics)) return fail(query.diagnostics, format.name)
    const parsed = await format.parse(file, host)
    if (!parsed.parsed || hasErrors(parsed.diagnostics)) return fail(parsed.diagnostics, format.name)
    const validation = format.validate(parsed.parsed)
    const found = [...parsed.diagnostics, ...validation]
    if (hasErrors(found)) return fail(found, format.name)
    const normalized = format.normalize(parsed.parsed, query.values, options[format.name as 'benzene'])
    found.push(...normalized.diagnostics)
    if (!normalized.model || hasErrors(found)) return fail(found, format.name)
    const generated = format.generate(normalized.model)
    return {
      file,
      format: format.name,
      code: generated.code,
      map: sourceMap(file, generated.mappings ?? [], texts.get(file) ?? ''),
      dts: generated.dts,
      diagnostics: sortDiagnostics(found),
      dependencies: [...inputs.keys()],
    }
  } catch (error) {
    if (error instanceof InputError) return fail([error.diagnostic], format.name)
    // A bug of ours must still come out as a diagnostic, never as a crash of the user's build.
    const message = error instanceof Error ? error.stack ?? error.message : String(error)
    return fail([problem('CONTRACTS_INTERNAL', file, `Internal compiler error (please report it): ${message}`)], format.name)
  }
}

function problem(code: string, file: string, message: string): Diagnostic {
  return { code, severity: 'error', message, file, pointer: '', line: 1, column: 1 }
}

function parseQuery(raw: string | undefined, format: ContractFormat, file: string) {
  const values = new Map<string, string>()
  const diagnostics: Diagnostic[] = []
  for (const [key, value] of new URLSearchParams((raw ?? '').replace(/^\?/, ''))) {
    if (BUNDLER_QUERY_KEYS.has(key)) continue
    if (!format.queryKeys.includes(key)) {
      diagnostics.push({
        ...problem('CONTRACTS_UNKNOWN_QUERY', file, `Unknown import query parameter ${JSON.stringify(key)} for a ${format.name} contract. Known: ${format.queryKeys.join(', ')}.`),
        data: { key, known: [...format.queryKeys] },
      })
    }
    values.set(key, value)
  }
  return { values, diagnostics }
}

/** Line-level map: each generated line that a format ties to a pointer maps to that value's position. */
function sourceMap(file: string, mappings: Array<{ line: number; position: { line: number; column: number } }>, text: string): EncodedSourceMap {
  const map = new GenMapping({ file: file + '.js' })
  setSourceContent(map, file, text)
  for (const { line, position } of mappings) {
    addMapping(map, { generated: { line, column: 0 }, source: file, original: { line: position.line, column: position.column - 1 } })
  }
  return toEncodedMap(map)
}

export const defaultCompiler = new ContractCompiler()

/** Compiles one contract file. Never throws: problems come back as `diagnostics`. */
export function compile(file: string, options?: CompileOptions): Promise<CompileResult> {
  return defaultCompiler.compile(file, options)
}
