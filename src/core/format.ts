import type { Diagnostic } from './diagnostics.js'
import type { CompileMemos } from './memo.js'

/**
 * Texts that stand in for files on disk: an editor's unsaved documents, by absolute path. A read
 * of such a path gets this text instead of the file's bytes (digested as its UTF-8 encoding), under
 * the same confinement and size limit; any other path is read from disk.
 */
export interface SourceOverlay {
  text(path: string): string | undefined
  /**
   * The bytes behind `text`, where the overlay has them (a version read from git): read as a file's
   * are, so bytes that are not text are CONTRACTS_NOT_UTF8 there too (`text` then holds them with
   * replacements, for code frames only). Past `LIMITS.fileBytes`, their size.
   */
  bytes?(path: string): Uint8Array | { size: number } | undefined
  /**
   * What is at a path in the version the overlay stands for, when that is not what the disk has: a
   * version read from git lacks a file the working tree has (`missing`), or has a link where the
   * working tree has a file (`symlink`). `undefined` (or no `kind` at all): as on disk, and a
   * `file` wherever `text` has a text. A path it calls anything but a file is never read, from the
   * overlay or the disk; one it calls a file is read from `text` and is not looked at on disk.
   */
  kind?(path: string): PathKind | undefined
}

/** What is at a path, without following a symbolic link there (`InputHost.kind`). */
export type PathKind = 'file' | 'directory' | 'symlink' | 'missing' | 'other'

/** What a format may read while compiling: every read becomes a dependency (and a cache input). */
export interface InputHost {
  readText(file: string): Promise<string>
  /** The text and the SHA-256 (lowercase hex) of the exact bytes. */
  read(file: string): Promise<{ text: string; sha256: string }>
  /** What is at a path, without following a symlink there. */
  kind(file: string): Promise<'file' | 'directory' | 'symlink' | 'missing' | 'other'>
  /**
   * Reads are confined to the contract's folder tree; a format whose documents belong to a larger
   * tree (a NATS bundle, rooted at its lock) widens it to that folder before reading there.
   */
  allowTree(dir: string): void
}

/** The import query, already split; a format declares which keys it understands. */
export type ImportQuery = ReadonlyMap<string, string>

export interface Generated {
  code: string
  /** The module's export names, in the order written: tools list them without reading `code`. */
  exports: readonly string[]
  /** What identifies the contract the module was made from (a contract hash, a document digest), when the format has one. */
  identity?: string
  /**
   * May be a getter (and should be, for a format whose declarations cost much to write): core reads
   * it once, when the compile's `dts` is first read, which a build without sidecars never does.
   */
  dts: string
  /** Generated lines (1-based) tied to the position of what they were generated from. */
  mappings?: Array<{ line: number; position: { line: number; column: number } }>
}

/** What a format says about a document in scope: data for tools, lines for people. */
export interface Inspection {
  /** JSON-serializable (`contracts inspect --json`). */
  data: unknown
  /** The same for a terminal (`contracts inspect`), one entry per line. */
  text: string[]
}

/** Which hash `contracts hash` prints: the default one, or one topic's (by id, and version when several). */
export interface HashSelector {
  topic?: string
  version?: string
  /** The topic's entry without a version, when it also has versioned ones. */
  unversioned?: boolean
}

/** The answer to a hash question: the hash, or why the question does not apply (a usage error). */
export type HashAnswer = { hash: string } | { usage: string }

/**
 * One contract format. `match` claims files by name, `resolveOptions` turns the caller's options
 * and the import query into the format's own, then the stages run in order:
 *
 *   load -> check -> model -> generate        (and inspect, from the model)
 *
 * A stage that reports an error ends the pipeline: the stages after it never see invalid input.
 * Each stage hands its result forward (`load` its input, `check` the facts it derived), so no
 * stage rebuilds what an earlier one made.
 */
export interface ContractFormat<Input = unknown, Checked = unknown, Model = unknown, Options = unknown> {
  name: string
  match(file: string): boolean
  /**
   * The file names `match` claims, as a RegExp ending in `$` (no flags): plugins build their
   * bundlers' hook filters from it, so an import no format claims never reaches the plugin's code.
   * A format without one is asked about every import.
   */
  pattern?: RegExp
  /** Query keys this format reads from an import such as `./x.spec.json?topics=a,b`. */
  queryKeys: readonly string[]
  /** The format's options from what the caller passed under its name (untrusted) and the query; problems as diagnostics. */
  resolveOptions(raw: unknown, query: ImportQuery, file: string): { options: Options; diagnostics: Diagnostic[] }
  /** Reads the document and every file it depends on (`memos` as for `model`: the same result with or without them). */
  load(file: string, host: InputHost, memos?: CompileMemos): Promise<{ input?: Input; diagnostics: Diagnostic[] }>
  /** The format's rules; `checked` carries what they derived, for `model`. */
  check(input: Input, memos?: CompileMemos): { checked: Checked; diagnostics: Diagnostic[] }
  /** The normalized model generation reads (scope, names, hashes, ordering for determinism). */
  /**
   * `memos`: what the compiler keeps across its compiles by content (`CompileMemos`), so that a
   * recompile after an edit redoes only what the edit touched. A stage must give the same result
   * with or without them.
   */
  model(checked: Checked, options: Options, memos?: CompileMemos): { model?: Model; diagnostics: Diagnostic[] }
  generate(model: Model, memos?: CompileMemos): Generated
  inspect(model: Model): Inspection
  /** `contracts hash`; a format without contract hashes answers with the usage message naming what it has instead. */
  hash(model: Model, selector: HashSelector): HashAnswer
}

/**
 * A format registered before it is loaded: its name and the files it claims (all a compiler needs
 * to pick the format of a file, and all the plugin needs to build its hook filters), and the format
 * itself, imported on the first file it claims. A process that compiles only NATS documents never
 * loads the Benzene or DASP code, and one that resolves no contract loads none (each format is
 * dozens of modules: loading them was most of a fresh process's first compile, bench/cold-start.ts).
 * Make one with `lazyFormat`.
 */
export interface LazyFormat<Input = unknown, Checked = unknown, Model = unknown, Options = unknown> {
  name: string
  /** Must claim exactly the files the loaded format's `match` claims. */
  match(file: string): boolean
  /** As `ContractFormat.pattern`. */
  pattern?: RegExp
  /** The format (typically a dynamic `import()`); called on the first file it claims, at most once (`lazyFormat` keeps the promise). */
  implementation(): Promise<ContractFormat<Input, Checked, Model, Options>>
  /**
   * The format's query keys and option resolution alone (the very ones the format has), from a
   * module far smaller than the format. A compile that the persistent cache answers needs nothing
   * more, so a second build with unchanged contracts loads no format. Optional: without it, the
   * format is loaded for every compile.
   */
  options?(): Promise<FormatOptions<Options>>
}

/** What a compile asks of a format before reading anything: the query keys it reads and its options resolved. */
export type FormatOptions<Options = unknown> = Pick<ContractFormat<unknown, unknown, unknown, Options>, 'queryKeys' | 'resolveOptions'>

/** What a compiler is given for each format: the format itself, or a lazily loaded one. */
export type RegisteredFormat<Input = unknown, Checked = unknown, Model = unknown, Options = unknown> =
  ContractFormat<Input, Checked, Model, Options> | LazyFormat<Input, Checked, Model, Options>

/** Whether a registered format is loaded on demand (`LazyFormat`) rather than given whole. */
export function isLazyFormat<Input, Checked, Model, Options>(
  format: RegisteredFormat<Input, Checked, Model, Options>,
): format is LazyFormat<Input, Checked, Model, Options> {
  return typeof (format as Partial<LazyFormat>).implementation === 'function'
}

/**
 * A `LazyFormat` whose `match` is its `pattern` and whose implementation is loaded once: the
 * first call starts the import, every later one gets the same promise. A loaded format whose name
 * is not the one registered is refused (the compile reports it as `CONTRACTS_INTERNAL`).
 */
export function lazyFormat<Input, Checked, Model, Options>(descriptor: {
  name: string
  pattern: RegExp
  load: () => Promise<ContractFormat<Input, Checked, Model, Options>>
  /** `LazyFormat.options`, loaded once too. */
  options?: () => Promise<FormatOptions<Options>>
}): LazyFormat<Input, Checked, Model, Options> {
  const { name, pattern, load, options } = descriptor
  let loading: Promise<ContractFormat<Input, Checked, Model, Options>> | undefined
  let loadingOptions: Promise<FormatOptions<Options>> | undefined
  return {
    name,
    pattern,
    match: (file) => pattern.test(file),
    implementation: () =>
      (loading ??= load().then((format) => {
        if (format.name !== name) throw new Error(`the format registered as ${JSON.stringify(name)} loaded as ${JSON.stringify(format.name)}`)
        return format
      })),
    ...(options ? { options: () => (loadingOptions ??= options()) } : {}),
  }
}
