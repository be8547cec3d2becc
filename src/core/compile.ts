import { dirname, resolve } from 'node:path'
import { GenMapping, addMapping, setSourceContent, toEncodedMap, type EncodedSourceMap } from '@jridgewell/gen-mapping'
import { append } from './append.js'
import { capDiagnostics, hasErrors, type Diagnostic } from './diagnostics.js'
import type { ContractFormat, Generated, HashAnswer, HashSelector, ImportQuery, Inspection } from './format.js'
import { InputError, fileProblem, readRegularFile, recordingHost, sha256 } from './input-host.js'
import { LIMITS } from './limits.js'
import { CompileMemos } from './memo.js'
import { packageVersion } from './package-info.js'

/**
 * What a compile is asked: the import query, and each format's options under its name
 * (`{ benzene: { topics: [...] } }`). Core reads none of them: the format that claims the file
 * resolves and validates its own (`ContractFormat.resolveOptions`).
 */
export interface CompileOptions {
  /** The import query, e.g. `topics=payments:capture&includeReserved` (a leading `?` is allowed). */
  query?: string
  /**
   * Whether the result carries `dts` (default true). A build that writes no sidecars (`types:
   * false`) and `contracts check` ask for none, and a format that writes its declarations lazily
   * (Benzene: the TypeScript of every payload) does not write them.
   */
  declarations?: boolean
  [format: string]: unknown
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
  /** The same for people (`contracts inspect`). */
  text?: string[]
  diagnostics: Diagnostic[]
  dependencies: string[]
}

export interface HashResult {
  file: string
  format?: string
  /** The hash asked for, when the document has no errors and the format has one. */
  hash?: string
  /** Why the question does not apply (a usage error): the format has no such hash, or the selector matches no entry. */
  usage?: string
  diagnostics: Diagnostic[]
  dependencies: string[]
}

export interface CompilerOptions {
  /** The formats this compiler knows, in the order they are tried (`src/formats/index.ts` lists the built-in ones). */
  formats: readonly ContractFormat<any, any, any, any>[]
  /** Compiled results kept (least recently used evicted first). */
  maxEntries?: number
}

/** Query keys bundlers add on their own; never a user's mistake. */
const BUNDLER_QUERY_KEYS = new Set(['t', 'v', 'import', 'direct'])

interface CacheEntry {
  inputs: Map<string, string>
  result: CompileResult
}

/**
 * Compiles contract files with the formats it is given, with a cache keyed by the claiming
 * format's resolved options, the query, the package version and the digest of every byte read:
 * an entry is reused only when each file it read still has the same digest.
 */
export class ContractCompiler {
  /** Pipeline runs that were not served from the cache (for tests and benchmarks). */
  compilations = 0
  readonly formats: readonly ContractFormat<any, any, any, any>[]
  private readonly maxEntries: number
  private readonly cache = new Map<string, CacheEntry>()
  /** What the stages keep by content across this compiler's compiles (`CompileMemos`). */
  readonly memos = new CompileMemos()
  /**
   * Files this compiler has compiled. The memos serve a file's recompiles only (a dev server's or
   * a watch build's edits): a file's first compile, which is every compile of a one-shot build,
   * does not pay for their keys (the JSON text of every schema, ~5% of a 1,000-topic compile).
   */
  private readonly compiled = new Set<string>()

  constructor(options: CompilerOptions) {
    this.formats = options.formats
    this.maxEntries = options.maxEntries ?? 256
  }

  /** The format that claims a file name, if any. */
  formatOf(file: string): ContractFormat<any, any, any, any> | undefined {
    return this.formats.find((format) => format.match(file))
  }

  async compile(file: string, options: CompileOptions = {}): Promise<CompileResult> {
    const path = resolve(file)
    const format = this.formatOf(path)
    const query = format ? parseQuery(options.query, format, path) : undefined
    const resolved = format && query ? format.resolveOptions(options[format.name], query.values, path) : undefined
    const declarations = options.declarations !== false
    const key = sha256(JSON.stringify([packageVersion, path, format?.name ?? '', options.query ?? '', resolved?.options ?? null, declarations]))
    const entry = this.cache.get(key)
    if (entry && stillValid(entry.inputs)) {
      this.cache.delete(key) // re-inserted below: the cache evicts the least recently used entry
      this.cache.set(key, entry)
      return entry.result
    }
    this.compilations++
    const memos = this.recompiling(path)
    const { result, inputs } = await this.run<CompileResult>(path, options, memos, (format, model, diagnostics, texts) => {
      const generated = format.generate(model, memos)
      return { code: generated.code, dts: declarations ? generated.dts : undefined, map: sourceMap(path, generated, texts.get(path) ?? '') }
    })
    this.cache.set(key, { inputs, result })
    if (this.cache.size > this.maxEntries) this.cache.delete(this.cache.keys().next().value!)
    return result
  }

  /** Loads, checks and models a contract without generating code, and describes it (`contracts inspect`). */
  async inspect(file: string, options: CompileOptions = {}): Promise<InspectResult> {
    const { result } = await this.run<InspectResult>(resolve(file), options, undefined, (format, model) => {
      const inspection: Inspection = format.inspect(model)
      return { data: inspection.data, text: inspection.text }
    })
    return result
  }

  /** The hash `contracts hash` prints, as the claiming format defines it. */
  async hash(file: string, selector: HashSelector, options: CompileOptions = {}): Promise<HashResult> {
    const { result } = await this.run<HashResult>(resolve(file), options, undefined, (format, model) => {
      const answer: HashAnswer = format.hash(model, selector)
      return 'hash' in answer ? { hash: answer.hash } : { usage: answer.usage }
    })
    return result
  }

  clear(): void {
    this.cache.clear()
    this.memos.clear()
    this.compiled.clear()
  }

  /** The memos when `file` was compiled before (then kept, filled and read); undefined on its first compile. */
  private recompiling(file: string): CompileMemos | undefined {
    if (this.compiled.has(file)) return this.memos
    if (this.compiled.size >= 4096) this.compiled.clear()
    this.compiled.add(file)
    return undefined
  }

  /**
   * The stages every command shares: find the format, check the query, resolve the options, load,
   * check, model. `finish` runs only on a model without errors. Nothing here throws: a bug becomes
   * `CONTRACTS_INTERNAL`.
   */
  private async run<R extends { diagnostics: Diagnostic[] }>(
    file: string,
    options: CompileOptions,
    memos: CompileMemos | undefined,
    finish: (format: ContractFormat<any, any, any, any>, model: unknown, diagnostics: Diagnostic[], texts: Map<string, string>) => Partial<R>,
  ): Promise<{ result: R & { file: string; format?: string; dependencies: string[] }; inputs: Map<string, string> }> {
    const host = recordingHost(dirname(file))
    const done = (diagnostics: Diagnostic[], format?: ContractFormat<any, any, any, any>, extra: Partial<R> = {}) => ({
      result: { ...extra, file, format: format?.name, diagnostics: capDiagnostics(diagnostics), dependencies: [...host.digests.keys()] } as R & {
        file: string
        format?: string
        dependencies: string[]
      },
      inputs: host.digests,
    })
    const format = this.formatOf(file)
    if (!format) {
      const known = this.formats.map((f) => f.name).join(', ')
      return done([fileProblem('CONTRACTS_UNKNOWN_FORMAT', file, `No contract format handles ${file} (formats: ${known}).`)])
    }
    try {
      const query = parseQuery(options.query, format, file)
      if (hasErrors(query.diagnostics)) return done(query.diagnostics, format)
      const resolved = format.resolveOptions(options[format.name], query.values, file)
      if (hasErrors(resolved.diagnostics)) return done(resolved.diagnostics, format)
      const diagnostics = [...resolved.diagnostics]
      const loaded = await format.load(file, host)
      append(diagnostics, loaded.diagnostics)
      if (loaded.input === undefined || hasErrors(diagnostics)) return done(diagnostics, format)
      const checked = format.check(loaded.input)
      append(diagnostics, checked.diagnostics)
      if (hasErrors(diagnostics)) return done(diagnostics, format)
      const modeled = format.model(checked.checked, resolved.options, memos)
      append(diagnostics, modeled.diagnostics)
      if (modeled.model === undefined || hasErrors(diagnostics)) return done(diagnostics, format)
      return done(diagnostics, format, finish(format, modeled.model, diagnostics, host.texts))
    } catch (error) {
      if (error instanceof InputError) return done([error.diagnostic], format)
      // A bug of ours must still come out as a diagnostic, never as a crash of the user's build.
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error)
      return done([fileProblem('CONTRACTS_INTERNAL', file, `Internal compiler error (please report it): ${message}`)], format)
    }
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

function parseQuery(raw: string | undefined, format: ContractFormat<any, any, any, any>, file: string): { values: ImportQuery; diagnostics: Diagnostic[] } {
  const values = new Map<string, string>()
  const diagnostics: Diagnostic[] = []
  for (const [key, value] of new URLSearchParams((raw ?? '').replace(/^\?/, ''))) {
    if (BUNDLER_QUERY_KEYS.has(key)) continue
    if (!format.queryKeys.includes(key)) {
      diagnostics.push({
        ...fileProblem(
          'CONTRACTS_UNKNOWN_QUERY',
          file,
          `Unknown import query parameter ${JSON.stringify(key)} for a ${format.name} contract (known: ${format.queryKeys.join(', ')}).`,
        ),
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
