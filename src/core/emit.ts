/**
 * Helpers for writing generated code. Every string that comes from a contract document goes through
 * `jsString`, never through a template: the result is a JavaScript (and TypeScript) string literal
 * that cannot end early, start a template substitution or close an inline `<script>`.
 */
export function jsString(value: string): string {
  // JSON.stringify escapes quotes, backslashes, control characters and lone surrogates; the rest
  // closes the gaps between a JSON string and a string literal embedded anywhere.
  return JSON.stringify(value)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
}

/** A JSON value as a JavaScript expression, with every string escaped by `jsString`. */
export function jsLiteral(value: unknown): string {
  if (typeof value === 'string') return jsString(value)
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(jsLiteral).join(', ')}]`
  if (typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>).map(([k, v]) => `[${jsString(k)}]: ${jsLiteral(v)}`)
    return `{ ${members.join(', ')} }`
  }
  return 'undefined'
}

/** Text safe inside a `/* ... *\/` or JSDoc comment. */
export function commentText(value: string): string {
  return value.replace(/\*\//g, '*\\/').replace(/[\u2028\u2029\r]/g, ' ')
}

const RESERVED_WORDS = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for ' +
    'function if import in instanceof new null return super switch this throw true try typeof var void while with ' +
    'yield let static implements interface package private protected public await arguments eval undefined NaN Infinity'
  ).split(' '),
)

/**
 * Names a generated type may not take: TypeScript refuses the first row as alias names; the rest
 * are globals an application's own code refers to, which an imported type of the same name would
 * shadow.
 */
const RESERVED_TYPE_NAMES = new Set(
  (
    'any unknown never string number boolean symbol object bigint undefined null void ' +
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
export function sortedCopy<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortedCopy) as T
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortedCopy((value as Record<string, unknown>)[k])])) as T
}
