import { basename, dirname, resolve } from 'node:path'
import type { EncodedSourceMap } from '@jridgewell/gen-mapping'
import { append } from './append.js'
import { readPast } from './codes.js'
import { capDiagnostics, hasErrors, type Diagnostic } from './diagnostics.js'
import {
  isLazyFormat,
  type ContractFormat,
  type Generated,
  type HashAnswer,
  type HashSelector,
  type ImportQuery,
  type Inspection,
  type LazyFormat,
  type PathKind,
  type RegisteredFormat,
  type SourceOverlay,
} from './format.js'
import {
  InputError,
  ReadCache,
  decodedText,
  fileProblem,
  overlaid,
  overlaidKind,
  readRegularFileTransient,
  recordingHost,
  sha256,
  type ReadText,
} from './input-host.js'
import { lazyRequire } from './lazy-require.js'
import { LIMITS } from './limits.js'
import { CompileMemos } from './memo.js'
import { packageVersion } from './package-info.js'
import type { CacheHit, PersistentCache, StoredCompile } from './persistent-cache.js'

/**
 * What a compile is asked: the import query, and each format's options under its name
 * (`{ benzene: { topics: [...] } }`). Core reads none of them: the format that claims the file
 * resolves and validates its own (`ContractFormat.resolveOptions`).
 */
export interface CompileOptions {
  /** The import query, e.g. `topics=payments:capture&includeReserved` (a leading `?` is allowed). */
  query?: string
  /**
   * Whether the result shows `dts` (default true). Not part of what is compiled: the declarations
   * are written from the compile's own model when `dts` is first read, whatever was asked, so a
   * compile asked for none and one asked for them are one compile (one cache entry). `contracts
   * check` and a build that writes no sidecars (`types: false`) ask for none.
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
  /**
   * Source map from the module back to the contract document. A getter: made when first read, so
   * a compile whose map nobody reads (`contracts check`) does not make one, nor load the writer.
   */
  map?: EncodedSourceMap
  /**
   * TypeScript declarations for the module; absent when there are errors. A getter: written from
   * the compile's model on first read and kept, so a dev server serves the module at once and
   * writes the sidecars later from the same compile. A bug writing them is a `CONTRACTS_INTERNAL`
   * diagnostic added to `diagnostics` then (and `dts` is undefined).
   */
  dts?: string
  /** The module's export names (absent when there are errors): a tool lists them without parsing `code`. */
  exports?: readonly string[]
  /** The contract's identity, when the format has one: Benzene's contract hash, a NATS document's digest. */
  identity?: string
  diagnostics: Diagnostic[]
  /** Every file the result depends on (the contract first); watch all of them. */
  dependencies: string[]
  /**
   * Every other path the compile looked at and read nothing from: where it looked for a file and
   * found none (a `bundle.lock.json` in each folder above a NATS document up to the one that has
   * it, a missing DASP definition or pinned file), or found one it refused (a symbolic link). A
   * file created or replaced there changes the result, so a tool that caches by `dependencies`
   * must watch these too.
   */
  absentDependencies: string[]
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
  /** As `CompileResult.absentDependencies`. */
  absentDependencies: string[]
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
  /** As `CompileResult.absentDependencies`. */
  absentDependencies: string[]
}

/** A format's model of a contract (`ContractCompiler.model`), typed by the format asked for. */
export interface ModelResult<Model> {
  file: string
  /** Name of the format that claimed the file, when one did (not necessarily the one asked for). */
  format?: string
  /**
   * The model, when the file is the asked format's and has no errors. It may be the one a compile
   * of the same file and options generated its module from (kept with the cached result): read it,
   * never change it.
   */
  model?: Model
  diagnostics: Diagnostic[]
  dependencies: string[]
  /** As `CompileResult.absentDependencies`. */
  absentDependencies: string[]
}

export interface CompilerOptions {
  /**
   * The formats this compiler knows, in the order they are tried (`src/formats/index.ts` lists the
   * built-in ones): each a `ContractFormat`, or a `LazyFormat` loaded on the first file it claims.
   */
  formats: readonly RegisteredFormat<any, any, any, any>[]
  /** Compiled results kept (least recently used evicted first). */
  maxEntries?: number
  /**
   * Compiled results kept on disk between processes (`PersistentCache`): a compile this compiler
   * has not made yet is answered from there when every file it read is unchanged.
   * @default none
   */
  cache?: PersistentCache
  /**
   * Texts read instead of the files at their paths (an editor's unsaved documents: `contracts lsp`).
   * Reads stay confined as without it, and a cached result stands only while each file it read,
   * overlaid or not, still has the digest it was compiled from (and each path it probed, the kind).
   * A compiler with an overlay neither reads nor writes the persistent cache, which knows only the
   * files on disk. Without it, every read is from disk.
   */
  overlay?: SourceOverlay
  /**
   * The files do not change while this compiler lives: one command's run over many documents
   * (`contracts topology`). A file, a path's confinement and its kind are then looked at once, not
   * again for each document that reads them (`ReadCache`). Never for a compiler that outlives an
   * edit (a dev server, a watch).
   * @default false
   */
  snapshot?: boolean
}

/** Query keys bundlers add on their own; never a user's mistake. */
const BUNDLER_QUERY_KEYS = new Set(['t', 'v', 'import', 'direct'])

type AnyFormat = ContractFormat<any, any, any, any>
type AnyRegistered = RegisteredFormat<any, any, any, any>

/**
 * A compile's question, answered once per call: the claiming format, the query it reads, its
 * resolved options, and the cache key they make. `failure` is what resolving threw (a bug, reported
 * as `CONTRACTS_INTERNAL` by the pipeline; such a request has no key and is never cached).
 */
interface Request {
  /** The format, as this compiler was given it, that claims the file. */
  registered?: AnyRegistered
  /** The format itself (loaded, when it was registered lazily); absent when loading it failed. */
  format?: AnyFormat
  /** The import query as given (the persistent cache's key holds it). */
  rawQuery?: string
  query?: { values: ImportQuery; diagnostics: Diagnostic[] }
  resolved?: { options: unknown; diagnostics: Diagnostic[] }
  key?: string
  failure?: unknown
}

/** What load, check and model made of a file: the model when there were no errors. */
interface Modeled {
  registered?: AnyRegistered
  format?: AnyFormat
  model?: unknown
  diagnostics: Diagnostic[]
  host: ReturnType<typeof recordingHost>
}

interface CacheEntry {
  /** Each file read, with its digest: the entry stands while all still have it. */
  inputs: ReadonlyMap<string, string>
  /** Each path whose kind a format asked, with the answer: it must still be the same. */
  probes: ReadonlyMap<string, PathKind>
  registered?: AnyRegistered
  format?: AnyFormat
  /**
   * The model the module was generated from (and the declarations are written from, on demand).
   * None for a result read from the persistent cache: `model()` then makes it once.
   */
  model?: unknown
  /** The result, `dts` on demand; `bare` is the same without `dts` (`declarations: false`). */
  result: CompileResult
  bare: CompileResult
  /** The generated lines tied to source positions (what the persistent cache keeps of the source map). */
  mappings?: Generated['mappings']
  /** False for a result read from disk without declarations: a compile that wants them compiles. */
  declarable: boolean
  /**
   * A read failed (nothing recorded of that file) or a bug: neither the persistent cache nor this
   * compiler's memory answers with it, since nothing tells when it stops being right (a contract
   * that was missing, a folder or a link is made a regular file again).
   */
  volatile: boolean
  /** The contract's text as the compile read it (the source map's content). */
  text: string
}

/** The key of an entry adopted without its source map's lines (`ContractCompiler.adopt`): only `answered(..., false)` reads it. */
const MAPLESS = '#mapless'

/**
 * Compiles contract files with the formats it is given, with a cache keyed by the claiming
 * format's resolved options, the query, the package version and the digest of every byte read:
 * an entry is reused only when each file it read still has the same digest.
 */
export class ContractCompiler {
  /** Pipeline runs that were not served from the cache (for tests and benchmarks). */
  compilations = 0
  readonly formats: readonly AnyRegistered[]
  /**
   * The compiled results kept on disk (`CompilerOptions.cache`); the plugin sets it once it knows
   * the bundler's cache folder, before its first compile.
   */
  persistent: PersistentCache | undefined
  private readonly maxEntries: number
  private readonly cache = new Map<string, CacheEntry>()
  /** What the stages keep by content across this compiler's compiles (`CompileMemos`). */
  readonly memos = new CompileMemos()
  /** Files this compiler has read, reused while unchanged (`ReadCache`). */
  private readonly reads: ReadCache
  /**
   * Files this compiler has compiled. The memos serve a file's recompiles only (a dev server's or
   * a watch build's edits): a file's first compile, which is every compile of a one-shot build,
   * does not pay for their keys (the JSON text of every schema, ~5% of a 1,000-topic compile).
   */
  private readonly compiled = new Set<string>()
  private readonly overlay: SourceOverlay | undefined
  /** Each lazily registered format, once loading it has started. */
  private readonly loaded = new Map<AnyRegistered, Promise<AnyFormat>>()

  constructor(options: CompilerOptions) {
    this.formats = options.formats
    this.maxEntries = options.maxEntries ?? 256
    this.persistent = options.cache
    this.overlay = options.overlay
    this.reads = new ReadCache(undefined, options.snapshot === true)
  }

  /** The format that claims a file name, if any, as this compiler was given it (a lazy one is not loaded). */
  formatOf(file: string): AnyRegistered | undefined {
    return this.formats.find((format) => format.match(file))
  }

  /** A registered format itself: a lazy one is loaded on first use, once per compiler. */
  private implementation(registered: AnyRegistered): Promise<AnyFormat> {
    if (!isLazyFormat(registered)) return Promise.resolve(registered)
    let loading = this.loaded.get(registered)
    if (loading === undefined) this.loaded.set(registered, (loading = registered.implementation()))
    return loading
  }

  async compile(file: string, options: CompileOptions = {}): Promise<CompileResult> {
    const path = resolve(file)
    // With a persistent cache, the format itself is loaded only when the cache does not answer.
    const request = await this.request(path, options, this.persistent === undefined || this.overlay !== undefined)
    const declarations = options.declarations !== false
    const view = (entry: CacheEntry) => (declarations ? entry.result : entry.bare)
    // A file the cached entry read, found changed, is read by the compile below from what the check read.
    const changed = new Map<string, ReadText>()
    const cached = this.cached(request, declarations, request.key, changed)
    if (cached) return view(cached)
    const stored = this.stored(path, request, declarations)
    if (stored) {
      this.remember(request.key!, stored)
      return view(stored)
    }
    await this.loadFormat(request)
    this.compilations++
    const memos = this.recompiling(path)
    const modeled = await this.modelStages(path, request, memos, changed)
    // Kept on disk with its declarations when they are read (a build's sidecar reads them at once).
    // A compile that asked for them and has not read them by the next turn of the event loop has
    // them written then, so that the entry answers the next compile that asks; or, with
    // `declarationsWhenRead` (a dev server, which writes its sidecars once the saves pause), is kept
    // without them until they are read. A compile that shows none, or has none, is kept as it is.
    let declared = false
    const entry = generated(path, modeled, memos, (dts) => {
      declared = true
      this.persist(path, request, entry, dts)
    })
    if (request.key !== undefined) this.remember(request.key, entry)
    const persistent = this.question(request) && this.persistent
    if (!declarations || entry.model === undefined) this.persist(path, request, entry, undefined)
    else if (persistent)
      setImmediate(() => {
        if (declared) return
        if (persistent.declarationsWhenRead) this.persist(path, request, entry, undefined)
        else void entry.result.dts
      })
    return view(entry)
  }

  /**
   * The model `format` makes of `file` (what the CLI's targets and the topology read), typed by
   * that format; no model when another format claims the file (`format` says which) or it has
   * errors. Served from the cache when this compiler compiled the file with the same options and
   * it has not changed since; otherwise loaded, checked and modeled without generating code.
   */
  async model<Model>(file: string, format: RegisteredFormat<any, any, Model, any>, options: CompileOptions = {}): Promise<ModelResult<Model>> {
    const path = resolve(file)
    const request = await this.request(path, options)
    const cached = this.cached(request, false)
    const { diagnostics, dependencies, absentDependencies } = cached?.result ?? {}
    // The format asked for is the one that claims the file whether it is named as registered (a
    // lazy format) or as loaded (the format itself: the NATS topology and the CLI name it so).
    const asked = (claimed: { registered?: AnyRegistered; format?: AnyFormat }) =>
      claimed.format !== undefined && (claimed.format === format || claimed.registered === format)
    // A result read from disk may have been served without loading its format: loaded now.
    if (cached && cached.format === undefined && cached.registered !== undefined) {
      try {
        cached.format = await this.implementation(cached.registered)
      } catch {
        // Left undefined: the format is not the one asked for (the compile below reports why).
      }
    }
    // A result read from disk has no model: it is made once, here, and kept with the result.
    if (cached && cached.model === undefined && asked(cached) && !hasErrors(diagnostics!)) {
      const modeled = await this.modelStages(path, request, undefined)
      if (asked(modeled) && !hasErrors(modeled.diagnostics)) cached.model = modeled.model
      return { ...outcome(path, modeled, modeled.diagnostics), model: asked(modeled) ? (modeled.model as Model | undefined) : undefined }
    }
    if (cached)
      return {
        file: path,
        format: cached.registered?.name,
        model: asked(cached) ? (cached.model as Model) : undefined,
        diagnostics: diagnostics!,
        dependencies: dependencies!,
        absentDependencies: absentDependencies!,
      }
    const modeled = await this.modelStages(path, request, undefined)
    return { ...outcome(path, modeled, modeled.diagnostics), model: asked(modeled) ? (modeled.model as Model | undefined) : undefined }
  }

  /**
   * A compile answered without running the pipeline, from this compiler's memory or its persistent
   * cache; undefined when the pipeline must run (the plugin then hands it to a worker thread:
   * `transferable` there, `adopt` here). With `maps: false`, an entry adopted without the lines of
   * its source map answers too.
   */
  async answered(file: string, options: CompileOptions = {}, maps = true): Promise<CompileResult | undefined> {
    const path = resolve(file)
    const request = await this.request(path, options, this.persistent === undefined || this.overlay !== undefined)
    const declarations = options.declarations !== false
    const cached =
      this.cached(request, declarations) ?? (maps || request.key === undefined ? undefined : this.cached(request, declarations, request.key + MAPLESS))
    if (cached) return declarations ? cached.result : cached.bare
    const stored = this.stored(path, request, declarations)
    if (!stored) return undefined
    this.remember(request.key!, stored)
    return declarations ? stored.result : stored.bare
  }

  /**
   * `compile`, as data another thread can take (a worker's answer): the result with the digest of
   * every file read and the kind of every path probed, the declarations when asked for (read now,
   * so that the persistent cache keeps them), and with `maps` the source map's lines and the
   * contract's text. Undefined when the compile left no entry to describe (a request that failed
   * before it had a key): the asking thread compiles it itself.
   */
  async transferable(file: string, options: CompileOptions = {}, maps = true): Promise<CacheHit | undefined> {
    const path = resolve(file)
    const result = await this.compile(path, options)
    const request = await this.request(path, options, false)
    const entry = request.key === undefined ? undefined : this.cache.get(request.key)
    const declarations = options.declarations !== false
    if (!entry || (declarations ? entry.result : entry.bare) !== result) return undefined
    const dts = declarations ? result.dts : undefined
    const stored: StoredCompile = {
      ...(result.code !== undefined ? { code: result.code, exports: result.exports } : {}),
      ...(dts !== undefined ? { dts } : {}),
      ...(result.identity !== undefined ? { identity: result.identity } : {}),
      diagnostics: result.diagnostics,
      ...(maps && result.code !== undefined ? { mappings: entry.mappings } : {}),
      inputs: entry.inputs,
      probes: entry.probes,
    }
    return { stored, text: maps ? entry.text : '' }
  }

  /**
   * A compile another thread made (`transferable`) as this compiler's result, kept in its memory as
   * a result read from the persistent cache is (no model: `model()` makes it when asked). Kept
   * without its source map's lines, it answers only `answered(..., false)`.
   */
  async adopt(file: string, options: CompileOptions, made: CacheHit): Promise<CompileResult> {
    const path = resolve(file)
    const request = await this.request(path, options, false)
    if (request.registered === undefined || request.key === undefined) return this.compile(path, options)
    const entry = fromDisk(path, request.registered, request.format, made)
    this.remember(made.stored.mappings !== undefined || made.stored.code === undefined ? request.key : request.key + MAPLESS, entry)
    return options.declarations !== false ? entry.result : entry.bare
  }

  /** Loads, checks and models a contract without generating code, and describes it (`contracts inspect`). */
  async inspect(file: string, options: CompileOptions = {}): Promise<InspectResult> {
    const path = resolve(file)
    return this.finish<InspectResult>(path, await this.modelStages(path, await this.request(path, options), undefined), (format, model) => {
      const inspection: Inspection = format.inspect(model)
      return { data: inspection.data, text: inspection.text }
    })
  }

  /** The hash `contracts hash` prints, as the claiming format defines it. */
  async hash(file: string, selector: HashSelector, options: CompileOptions = {}): Promise<HashResult> {
    const path = resolve(file)
    return this.finish<HashResult>(path, await this.modelStages(path, await this.request(path, options), undefined), (format, model) => {
      const answer: HashAnswer = format.hash(model, selector)
      return 'hash' in answer ? { hash: answer.hash } : { usage: answer.usage }
    })
  }

  clear(): void {
    this.cache.clear()
    this.memos.clear()
    this.compiled.clear()
    this.reads.clear()
  }

  /** The memos when `file` was compiled before (then kept, filled and read); undefined on its first compile. */
  private recompiling(file: string): CompileMemos | undefined {
    if (this.compiled.has(file)) return this.memos
    if (this.compiled.size >= 4096) this.compiled.clear()
    this.compiled.add(file)
    return undefined
  }

  /**
   * The claiming format (loaded now if it was registered lazily), the query and the options,
   * resolved once for a call: the cache key is made of them and the pipeline reads them (it used to
   * resolve them a second time).
   */
  private async request(file: string, options: CompileOptions, withFormat = true): Promise<Request> {
    const registered = this.formatOf(file)
    if (!registered) return { key: cacheKey(file, '', options.query, null) }
    let format: AnyFormat | undefined
    try {
      // A lazy format's options alone (its `options()`), when the format itself may not be needed.
      const light = !withFormat && isLazyFormat(registered) && registered.options !== undefined
      if (!light) format = await this.implementation(registered)
      const asks = format ?? (await (registered as LazyFormat<any, any, any, any>).options!())
      const query = parseQuery(options.query, registered.name, asks.queryKeys, file)
      const resolved = asks.resolveOptions(options[registered.name], query.values, file)
      // Refused options resolve to defaults: the refusal is part of the key, so a compile with the
      // defaults themselves is not answered with the refusal's diagnostics (nor the other way round).
      const refused = resolved.diagnostics.length > 0 ? resolved.diagnostics.map((d) => d.message) : undefined
      const key = cacheKey(file, registered.name, options.query, refused ? { options: resolved.options, refused } : resolved.options)
      return { registered, format, rawQuery: options.query, query, resolved, key }
    } catch (failure) {
      return { registered, format, failure }
    }
  }

  /**
   * Loads the format of a request that was answered without it (`request(..., false)`), before its
   * stages run. A format that fails to load fails the request as it would have failed `request`:
   * no key, so nothing of it is cached.
   */
  private async loadFormat(request: Request): Promise<void> {
    if (request.format !== undefined || request.registered === undefined || request.failure !== undefined) return
    try {
      request.format = await this.implementation(request.registered)
    } catch (failure) {
      request.failure = failure
      request.key = undefined
    }
  }

  /**
   * The cached entry of a request whose inputs are all unchanged (then the most recently used), and
   * that has declarations when they are asked for; otherwise undefined.
   */
  private cached(request: Request, declarations: boolean, key = request.key, changed?: Map<string, ReadText>): CacheEntry | undefined {
    const entry = key === undefined ? undefined : this.cache.get(key)
    if (!entry || entry.volatile || (declarations && !entry.declarable) || !stillValid(entry.inputs, entry.probes, this.overlay, changed)) return undefined
    this.cache.delete(key!) // re-inserted: the cache evicts the least recently used entry
    this.cache.set(key!, entry)
    return entry
  }

  private remember(key: string, entry: CacheEntry): void {
    this.cache.delete(key)
    this.cache.set(key, entry)
    if (this.cache.size > this.maxEntries) this.cache.delete(this.cache.keys().next().value!)
  }

  /** What the persistent cache's key is made of, for a request it may answer (a claimed file, options resolved). */
  private question(request: Request) {
    if (!this.persistent || this.overlay || request.key === undefined || request.registered === undefined || request.resolved === undefined) return undefined
    // Its key holds the resolved options only: a compile with refused options is not kept on disk.
    if (request.resolved.diagnostics.length > 0) return undefined
    return { format: request.registered.name, query: request.rawQuery ?? '', options: request.resolved.options }
  }

  /** The persistent cache's answer, as an entry of this compiler's; none when it has none, or none with the declarations asked for. */
  private stored(file: string, request: Request, declarations: boolean): CacheEntry | undefined {
    const question = this.question(request)
    const hit = question && this.persistent!.read(question, file, declarations)
    return hit ? fromDisk(file, request.registered!, request.format, hit) : undefined
  }

  /** Writes a compile to the persistent cache (with `dts` when it has been read), unless it must not be kept. */
  private persist(file: string, request: Request, entry: CacheEntry, dts: string | undefined): void {
    const question = this.question(request)
    if (!question || entry.volatile || entry.result.diagnostics.some((d) => d.code === 'CONTRACTS_INTERNAL')) return
    const { bare } = entry
    this.persistent!.write(question, file, {
      code: bare.code,
      dts,
      exports: bare.exports,
      identity: bare.identity,
      diagnostics: bare.diagnostics,
      mappings: entry.mappings,
      inputs: entry.inputs,
      probes: entry.probes,
    })
  }

  /**
   * The stages every command shares: check the query and the options, load, check, model; a stage
   * that reports an error ends it. Nothing here throws: a bug becomes `CONTRACTS_INTERNAL`.
   */
  private async modelStages(file: string, request: Request, memos: CompileMemos | undefined, changed?: Map<string, ReadText>): Promise<Modeled> {
    const host = recordingHost(dirname(file), this.overlay, this.reads, changed)
    const { registered, format } = request
    if (!registered) {
      const known = this.formats.map((f) => f.name).join(', ')
      // `contracts check src`: say that a folder is given, not only that no format claims its name.
      const folder =
        (await host.kind(file)) === 'directory' ? ': it is a folder; give the contract files in it, for example with a shell glob such as dir/*.spec.json' : ''
      return { host, diagnostics: [fileProblem('CONTRACTS_UNKNOWN_FORMAT', file, `No contract format handles ${file} (formats: ${known})${folder}.`)] }
    }
    const claimed = { registered, format, host }
    try {
      if (request.failure !== undefined || format === undefined) throw request.failure
      const { query, resolved } = request as Required<Pick<Request, 'query' | 'resolved'>>
      if (hasErrors(query.diagnostics)) return { ...claimed, diagnostics: query.diagnostics }
      if (hasErrors(resolved.diagnostics)) return { ...claimed, diagnostics: resolved.diagnostics }
      // Query warnings (CONTRACTS_QUERY_UNTYPED) first, then the options'.
      const diagnostics = [...query.diagnostics, ...resolved.diagnostics]
      const loaded = await format.load(file, host, memos)
      append(diagnostics, loaded.diagnostics)
      // Checked past a key mistake (a duplicate key: codes.ts READ_PAST), never modelled.
      if (loaded.input === undefined || !readPast(diagnostics)) return { ...claimed, diagnostics }
      const checked = format.check(loaded.input, memos)
      append(diagnostics, checked.diagnostics)
      if (hasErrors(diagnostics)) return { ...claimed, diagnostics }
      const modeled = format.model(checked.checked, resolved.options, memos)
      append(diagnostics, modeled.diagnostics)
      if (modeled.model === undefined || hasErrors(diagnostics)) return { ...claimed, diagnostics }
      return { ...claimed, model: modeled.model, diagnostics }
    } catch (error) {
      return { ...claimed, diagnostics: [caught(error, file)] }
    }
  }

  /** `inspect` and `hash`: `answer` runs on a model without errors; a throw in it is `CONTRACTS_INTERNAL`. */
  private finish<R extends { diagnostics: Diagnostic[] }>(file: string, modeled: Modeled, answer: (format: AnyFormat, model: unknown) => Partial<R>): R {
    if (modeled.model === undefined) return outcome(file, modeled, modeled.diagnostics) as R
    try {
      return outcome(file, modeled, modeled.diagnostics, answer(modeled.format!, modeled.model)) as unknown as R
    } catch (error) {
      return outcome(file, modeled, [caught(error, file)]) as R
    }
  }
}

/** What every result carries (after what a command adds, in that order), with the diagnostics capped. */
function outcome<Extra extends object>(file: string, modeled: Modeled, diagnostics: Diagnostic[], extra?: Extra) {
  return {
    ...extra,
    file,
    format: modeled.registered?.name,
    diagnostics: capDiagnostics(diagnostics),
    dependencies: [...modeled.host.digests.keys()],
    absentDependencies: absentPaths(modeled.host.probes, modeled.host.digests),
  } as Extra & { file: string; format?: string; diagnostics: Diagnostic[]; dependencies: string[]; absentDependencies: string[] }
}

/**
 * The probed paths a compile read nothing from (folders left out: what changes there is a file
 * below, itself probed or read). Each held no file, or one the format refused; a file made there
 * is as much an edit as a changed byte of a file read.
 */
function absentPaths(probes: ReadonlyMap<string, PathKind>, inputs: ReadonlyMap<string, string>): string[] {
  const paths: string[] = []
  for (const [path, kind] of probes) if (kind !== 'directory' && !inputs.has(path)) paths.push(path)
  return paths
}

/** An error thrown in the pipeline: a file that cannot be read, or a bug of ours (never a crash of the user's build). */
function caught(error: unknown, file: string): Diagnostic {
  if (error instanceof InputError) return error.diagnostic
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error)
  return fileProblem('CONTRACTS_INTERNAL', file, `Internal compiler error (please report it): ${message}`)
}

function cacheKey(file: string, format: string, query: string | undefined, options: unknown): string {
  return sha256(JSON.stringify([packageVersion, file, format, query ?? '', options ?? null]))
}

/**
 * The cache entry of a compile: the module generated now, the declarations when `dts` is first
 * read (from the same model, once), and the model kept for `ContractCompiler.model`.
 */
function generated(file: string, modeled: Modeled, memos: CompileMemos | undefined, declared: (dts: string | undefined) => void): CacheEntry {
  const { digests: inputs, probes } = modeled.host
  const volatile = modeled.host.unreadable.size > 0
  const failed = (diagnostics: Diagnostic[]): CacheEntry => {
    const result = outcome(file, modeled, diagnostics)
    return { inputs, probes, registered: modeled.registered, format: modeled.format, result, bare: result, declarable: true, volatile, text: '' }
  }
  if (modeled.model === undefined) return failed(modeled.diagnostics)
  let output: Generated
  try {
    output = modeled.format!.generate(modeled.model, memos)
  } catch (error) {
    return failed([caught(error, file)])
  }
  const described = { exports: output.exports, ...(output.identity !== undefined ? { identity: output.identity } : {}) }
  const bare: CompileResult = outcome(file, modeled, modeled.diagnostics, {
    code: output.code,
    dts: undefined as string | undefined,
    map: undefined,
    ...described,
  })
  const text = modeled.host.texts.get(file) ?? ''
  const map = lazySourceMap(file, () => output.mappings, text, bare)
  // The declarations are read off `output` once (a format may write them in a getter), then kept.
  let pending: Generated | undefined = output
  let dts: string | undefined
  const result: CompileResult = {
    code: bare.code,
    get dts() {
      if (pending !== undefined) {
        const from = pending
        pending = undefined
        try {
          dts = from.dts
        } catch (error) {
          bare.diagnostics.push(caught(error, file))
        }
        declared(dts)
      }
      return dts
    },
    get map() {
      return map()
    },
    ...described,
    file: bare.file,
    format: bare.format,
    diagnostics: bare.diagnostics,
    dependencies: bare.dependencies,
    absentDependencies: bare.absentDependencies,
  }
  const { registered, format } = modeled
  // The mappings are read when a source map or the persistent cache asks (a format may find its
  // positions only then: a scan of the whole text).
  return {
    inputs,
    probes,
    registered,
    format,
    model: modeled.model,
    result,
    bare,
    get mappings() {
      return output.mappings
    },
    declarable: true,
    volatile,
    text,
  }
}

/** An entry of the persistent cache as one of the compiler's: the result as a compile shapes it, its source map made again. */
function fromDisk(file: string, registered: AnyRegistered, format: AnyFormat | undefined, hit: CacheHit): CacheEntry {
  const { stored } = hit
  const common = {
    file,
    format: registered.name,
    diagnostics: stored.diagnostics,
    dependencies: [...stored.inputs.keys()],
    absentDependencies: absentPaths(stored.probes, stored.inputs),
  }
  const entry = { inputs: stored.inputs, probes: stored.probes, registered, format, mappings: stored.mappings, volatile: false, text: hit.text }
  if (stored.code === undefined) return { ...entry, result: common, bare: common, declarable: true }
  const described = { exports: stored.exports ?? [], ...(stored.identity !== undefined ? { identity: stored.identity } : {}) }
  const bare: CompileResult = { code: stored.code, dts: undefined, map: undefined, ...described, ...common }
  const map = lazySourceMap(file, () => stored.mappings, hit.text, bare)
  const result: CompileResult = {
    code: stored.code,
    dts: stored.dts,
    get map() {
      return map()
    },
    ...described,
    ...common,
  }
  return { ...entry, result, bare, declarable: stored.dts !== undefined }
}

/**
 * Whether every file an entry read still has its digest, and every path it probed still holds what
 * it held. A file found changed is decoded into `changed` (its text and digest, when it is UTF-8),
 * for the compile that follows the miss to read instead of reading and digesting it again.
 */
function stillValid(
  inputs: ReadonlyMap<string, string>,
  probes: ReadonlyMap<string, PathKind>,
  overlay: SourceOverlay | undefined,
  changed?: Map<string, ReadText>,
): boolean {
  for (const [path, digest] of inputs) {
    try {
      // Into the buffer the next read reuses: only digested here (a fresh buffer of a few hundred
      // kilobytes cost more to touch than the read).
      const fromOverlay = overlaid(path, overlay)
      const bytes = fromOverlay ?? readRegularFileTransient(path, LIMITS.fileBytes)
      if (!Buffer.isBuffer(bytes)) return false
      const now = sha256(bytes)
      if (now === digest) continue
      const text = changed !== undefined && fromOverlay === undefined ? decodedText(bytes, path) : undefined
      if (text !== undefined) changed!.set(path, { text, sha256: now })
      return false
    } catch {
      return false
    }
  }
  for (const [path, kind] of probes) if (overlaidKind(path, overlay) !== kind) return false
  return true
}

function parseQuery(raw: string | undefined, format: string, queryKeys: readonly string[], file: string): { values: ImportQuery; diagnostics: Diagnostic[] } {
  const values = new Map<string, string>()
  const diagnostics: Diagnostic[] = []
  const repeated = new Set<string>()
  for (const [key, value] of new URLSearchParams((raw ?? '').replace(/^\?/, ''))) {
    if (BUNDLER_QUERY_KEYS.has(key)) continue
    if (!queryKeys.includes(key)) {
      diagnostics.push({
        ...fileProblem(
          'CONTRACTS_UNKNOWN_QUERY',
          file,
          queryKeys.length === 0
            ? `Unknown import query parameter ${JSON.stringify(key)}: a ${format} contract takes no query parameters.`
            : `Unknown import query parameter ${JSON.stringify(key)} for a ${format} contract (known: ${queryKeys.join(', ')}).`,
        ),
        data: { key, known: [...queryKeys] },
      })
    } else if (values.has(key) && !repeated.has(key)) {
      repeated.add(key)
      diagnostics.push({
        ...fileProblem(
          'CONTRACTS_REPEATED_QUERY',
          file,
          `The import query gives ${JSON.stringify(key)} more than once; one value would be dropped. Give it once${key === 'topics' ? ' (a list is comma-separated: topics=a,b)' : ''}.`,
        ),
        data: { key },
      })
    }
    values.set(key, value)
  }
  // The query's declarations are an ambient module `*/<name>?<query>` (src/plugin/sidecar.ts), and
  // TypeScript allows one `*` in a module pattern: said here, where every caller reports it, rather
  // than an import left untyped without a word. A `*` in the contract's own name is the same.
  const name = basename(file)
  if (raw !== undefined && (raw.includes('*') || (raw.replace(/^\?/, '') !== '' && name.includes('*'))))
    diagnostics.push({
      ...fileProblem(
        'CONTRACTS_QUERY_UNTYPED',
        file,
        raw.includes('*')
          ? `The import query ${JSON.stringify(raw.replace(/^\?/, ''))} holds "*", which TypeScript's module patterns cannot match literally: this import gets no declarations (write "*" as "%2A").`
          : `The contract's file name ${JSON.stringify(name)} holds "*", which TypeScript's module patterns cannot match literally: its query imports get no declarations.`,
      ),
    })
  return { values, diagnostics }
}

/** The source-map writer, loaded with the first map read (four packages a compile alone does not need). */
const genMapping = lazyRequire<typeof import('@jridgewell/gen-mapping')>('@jridgewell/gen-mapping')

/**
 * A result's source map, made on first read and kept, and set as `bare`'s `map` getter too (the
 * same map, in the same place among its keys). A bug making it is a `CONTRACTS_INTERNAL` added to
 * the result's diagnostics then, and the map is undefined.
 */
function lazySourceMap(file: string, mappings: () => Generated['mappings'], text: string, bare: CompileResult): () => EncodedSourceMap | undefined {
  let made: { map?: EncodedSourceMap } | undefined
  const map = () => {
    if (made === undefined) {
      made = {}
      try {
        made.map = sourceMap(file, mappings(), text)
      } catch (error) {
        bare.diagnostics.push(caught(error, file))
      }
    }
    return made.map
  }
  Object.defineProperty(bare, 'map', { get: map, enumerable: true, configurable: true })
  return map
}

/** Line-level map: each generated line that a format ties to a source position maps there. */
function sourceMap(file: string, mappings: Generated['mappings'], text: string): EncodedSourceMap {
  const { GenMapping, addMapping, setSourceContent, toEncodedMap } = genMapping()
  const map = new GenMapping({ file: file + '.js' })
  setSourceContent(map, file, text)
  for (const { line, position } of mappings ?? []) {
    addMapping(map, { generated: { line, column: 0 }, source: file, original: { line: position.line, column: position.column - 1 } })
  }
  return toEncodedMap(map)
}
