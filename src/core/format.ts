import type { Diagnostic } from './diagnostics.js'

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
  dts: string
  /** Generated lines (1-based) tied to the position of what they were generated from. */
  mappings?: Array<{ line: number; position: { line: number; column: number } }>
  /** Problems only generation can see (a schema the validator compiler refuses); errors stop the build. */
  diagnostics?: Diagnostic[]
}

/**
 * One contract format: `match` claims files by name, then `parse -> validate -> normalize ->
 * generate`. A stage that reports an error ends the pipeline; the stages after it never see
 * invalid input.
 */
export interface ContractFormat<Parsed = unknown, Model = unknown, Options = unknown> {
  name: string
  match(file: string): boolean
  /** Query keys this format reads from an import such as `./x.spec.json?topics=a,b`. */
  queryKeys: readonly string[]
  parse(file: string, host: InputHost): Promise<{ parsed?: Parsed; diagnostics: Diagnostic[] }>
  validate(parsed: Parsed): Diagnostic[]
  normalize(parsed: Parsed, query: ImportQuery, options: Options | undefined): { model?: Model; diagnostics: Diagnostic[] }
  generate(model: Model): Generated
  /** A JSON description of the document in scope, for `contracts inspect` and `contracts hash`. */
  inspect?(parsed: Parsed, query: ImportQuery, options: Options | undefined): { data?: unknown; diagnostics: Diagnostic[] }
}
