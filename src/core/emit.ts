import { sortKeys } from '../runtime/shared/sort-keys.js'
import { INVISIBLE_CLASS, terminalSafe } from './terminal-text.js'
/**
 * Helpers for writing generated code. Every string that comes from a contract document goes through
 * `jsString`, never through a template: the result is a JavaScript (and TypeScript) string literal
 * that cannot end early, start a template substitution or close an inline `<script>`.
 */
export function jsString(value: string): string {
  // Printable ASCII without a quote, backslash, `<` or `>` (nearly every name, address and id) is
  // its own literal: no stringify and no test of its JSON for what needs a second pass (bench/: a
  // NATS module writes thousands).
  if (plainAscii(value)) return '"' + value + '"'
  // JSON.stringify escapes quotes, backslashes, control characters and lone surrogates; the rest
  // closes the gaps between a JSON string and a string literal embedded anywhere.
  const json = JSON.stringify(value)
  // One test first: almost no string needs the second pass (generation time, bench/).
  return UNSAFE_IN_SCRIPT.test(json) ? json.replace(UNSAFE_IN_SCRIPT_ALL, scriptEscape) : json
}

/** Whether every character of `value` is printable ASCII other than a quote, a backslash, `<` and `>`: written as it is by `jsString`. */
function plainAscii(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c < 0x20 || c > 0x7e || c === 34 || c === 92 || c === 60 || c === 62) return false
  }
  return true
}

/**
 * Beside the line separators and `<`/`>`: the characters that draw nothing or reorder what a reader
 * sees (direction overrides and isolates, zero-width characters, the byte order mark), written as
 * `\\u` escapes of the same value, so a name from a contract reads in the generated file as it is
 * (the Rust target and the pictures escape them too). The zero-width joiners, which scripts and
 * emoji need, are kept.
 */
const UNSAFE_IN_SCRIPT = new RegExp(`[\\u2028\\u2029<>${INVISIBLE_CLASS}]`)
const UNSAFE_IN_SCRIPT_ALL = new RegExp(UNSAFE_IN_SCRIPT.source, 'g')
const SCRIPT_ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e' }
const scriptEscape = (c: string) => SCRIPT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`

/** A JSON value as a JavaScript expression, with every string escaped as `jsString` escapes it. */
export function jsLiteral(value: unknown): string {
  // A string (most of a schema's values) is exactly what `jsString` writes, by its faster path.
  if (typeof value === 'string') return jsString(value)
  // JSON text is a JavaScript expression for the same value, but for a `__proto__` key (an object
  // literal would set the prototype) and what JSON cannot say (undefined, non-finite numbers): one
  // native stringify and one escape pass when the value has neither, the member-by-member form otherwise.
  if (plainJson(value, 0)) {
    const json = JSON.stringify(value)
    return UNSAFE_IN_SCRIPT.test(json) ? json.replace(UNSAFE_IN_SCRIPT_ALL, scriptEscape) : json
  }
  return memberwiseLiteral(value)
}

function plainJson(value: unknown, depth: number): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true
  if (typeof value === 'number') return Number.isFinite(value)
  if (typeof value !== 'object' || depth > 256) return false
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!plainJson(value[i], depth + 1)) return false
    return true
  }
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return false
  const keys = Object.keys(value)
  for (let i = 0; i < keys.length; i++) if (keys[i] === '__proto__' || !plainJson((value as Record<string, unknown>)[keys[i]!], depth + 1)) return false
  return true
}

function memberwiseLiteral(value: unknown): string {
  if (typeof value === 'string') return jsString(value)
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(memberwiseLiteral).join(', ')}]`
  if (typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>).map(([k, v]) => `[${jsString(k)}]: ${memberwiseLiteral(v)}`)
    return `{ ${members.join(', ')} }`
  }
  return 'undefined'
}

/**
 * Text safe on one comment line, `//` or `/* ... *\/` alike: no line terminator (a file name holding
 * `\n` would otherwise end a `//` comment and start code) and no `*\/`.
 */
export function commentText(value: string): string {
  return terminalSafe(value.replace(/\*\//g, '*\\/').replace(LINE_TERMINATORS, ' '))
}

/** Text safe inside a JSDoc block, one entry per line of the original (any ECMAScript line terminator). */
export function commentLines(value: string): string[] {
  // Each line as a reader sees it: controls, direction overrides and zero-width characters written as
  // `\u{...}` (as every other output writes them), so no description reorders or hides its text.
  return value
    .replace(/\*\//g, '*\\/')
    .split(/\r\n|[\n\r\u2028\u2029]/)
    .map(terminalSafe)
}

const LINE_TERMINATORS = /[\n\r\u2028\u2029]/g

const RESERVED_WORDS = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for ' +
    'function if import in instanceof new null return super switch this throw true try typeof var void while with ' +
    'yield let static implements interface package private protected public await arguments eval undefined NaN Infinity'
  ).split(' '),
)

/**
 * Names a generated type may not take: TypeScript refuses the first row as alias names, and the
 * second are type operators a reference cannot start with (`p: keyof` does not parse); the rest
 * are globals an application's own code refers to, which an imported type of the same name would
 * shadow.
 */
const RESERVED_TYPE_NAMES = new Set(
  (
    'any unknown never string number boolean symbol object bigint undefined null void ' +
    'keyof infer readonly unique as asserts is satisfies ' +
    'Array ReadonlyArray Promise PromiseLike Record Partial Required Readonly Pick Omit Exclude Extract NonNullable ' +
    'ReturnType Parameters Awaited Date Error Object String Number Boolean Symbol BigInt Map Set WeakMap WeakSet ' +
    'Function JSON Math RegExp Uint8Array ArrayBuffer URL Headers Response Request'
  ).split(' '),
)

/** True when `name` can be used as an exported `const` binding. */
export function isValidIdentifier(name: string): boolean {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) && !RESERVED_WORDS.has(name)
}

/** A property key for an object type or literal: bare when it is an identifier name, quoted otherwise. */
export function propertyKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : jsString(name)
}

/**
 * Turns an arbitrary schema name into a type identifier, the same way for declarations and
 * references: characters outside `[A-Za-z0-9_]` become `_`, a leading digit gets `_`, reserved
 * words get a trailing `_`. `taken` resolves collisions deterministically (`Name_2`, `Name_3`, ...).
 */
export function toTypeIdentifier(name: string, taken: Set<string>): string {
  let base = name.replace(/[^A-Za-z0-9_]/g, '_')
  if (base === '' || /^[0-9]/.test(base)) base = '_' + base
  if (RESERVED_WORDS.has(base) || RESERVED_TYPE_NAMES.has(base)) base += '_'
  let candidate = base
  for (let n = 2; taken.has(candidate); n++) candidate = `${base}_${n}`
  taken.add(candidate)
  return candidate
}

/**
 * A deep copy with object keys in code-unit order (arrays keep theirs). Generated code is built
 * from such copies wherever a document's key order carries no meaning, so reordering keys never
 * changes a byte of the output. `fromEntries` keeps keys such as `__proto__` as own properties.
 */
export { sortKeys }

export function sortedCopy<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortedCopy) as T
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const key of sortKeys(Object.keys(value))) {
    const copy = sortedCopy((value as Record<string, unknown>)[key])
    // Assigning `__proto__` would set the prototype; it is data here, as it was in the document.
    if (key === '__proto__') Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true })
    else out[key] = copy
  }
  return out as T
}

/**
 * Lines of generated text, joined into flat chunks as they come. A line built from template
 * pieces is a tree of small strings; kept until one final join, every piece of a large module
 * survives young-generation collections and is copied into the old one (bench/: on a 5,000-channel
 * contract most of generation's time went to that). A chunk of up to 256 lines joined at once is
 * one flat string, and its pieces die young. A chunk is closed once it holds `CHUNK_CHARS`
 * characters: a string past V8's largest regular object (128 KB) is allocated in fresh pages of
 * their own, which cost about as much again as the copy (bench/: joining 2 MB of validator code
 * in chunks of 256 lines, about 1 MB each, took twice the time of chunks of 64 KB).
 */
export class LineBuilder {
  private pending: string[] = []
  private readonly chunks: string[] = []
  /** Characters in `pending`. */
  private chars = 0
  /** Lines pushed so far. */
  length = 0

  push(...lines: string[]): void {
    for (const line of lines) {
      this.pending.push(line)
      this.chars += line.length
      if (this.chars >= CHUNK_CHARS || this.pending.length >= 256) this.flush()
    }
    this.length += lines.length
  }

  /** All lines joined with `\n`. */
  text(): string {
    this.flush()
    return this.chunks.join('\n')
  }

  private flush(): void {
    if (this.pending.length === 0) return
    this.chunks.push(this.pending.join('\n'))
    this.pending = []
    this.chars = 0
  }
}

/** The characters after which `LineBuilder` closes a chunk: its join stays a regular young object. */
const CHUNK_CHARS = 64 * 1024

/**
 * The export statements of a generated module and its export list, made by the same calls: a name is
 * listed because its statement was written, so what tools show (the dev page, `Generated.exports`)
 * cannot drift from what the module exports.
 */
export class ModuleExports {
  private readonly written: string[] = []

  /** The module's export names, in the order written. */
  get names(): readonly string[] {
    return this.written
  }

  /** `export const <name> = <value>;` (`name` is generated: an identifier, never document text). */
  const(name: string, value: string): string {
    this.written.push(name)
    return `export const ${name} = ${value};`
  }

  /** `export { <names> } from <module>;` */
  from(names: readonly string[], module: string): string {
    this.written.push(...names)
    return `export { ${names.join(', ')} } from ${jsString(module)};`
  }
}
