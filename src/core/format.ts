import type { Diagnostic } from './diagnostics.js'
import type { CompileMemos } from './memo.js'

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
  /** Reads the document and every file it depends on. */
  load(file: string, host: InputHost): Promise<{ input?: Input; diagnostics: Diagnostic[] }>
  /** The format's rules; `checked` carries what they derived, for `model`. */
  check(input: Input): { checked: Checked; diagnostics: Diagnostic[] }
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
