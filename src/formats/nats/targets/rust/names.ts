/** Rust identifiers and literals for generated code: every name from a document sanitized, every string escaped. */

/** Strict and reserved keywords of Rust 2021 (raw identifiers for those that allow `r#`). */
const KEYWORDS = new Set(
  (
    'as break const continue crate else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super ' +
    'trait true type unsafe use where while async await dyn abstract become box do final macro override priv typeof unsized virtual yield try union'
  ).split(' '),
)
/** Keywords that cannot be raw identifiers: suffixed instead. */
const NOT_RAW = new Set(['crate', 'self', 'Self', 'super'])

/** Words of a name: split on anything but ASCII letters and digits, and at lower-to-upper changes. */
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase())
}

function guard(id: string): string {
  if (id === '' || /^[0-9]/.test(id)) id = `_${id}`
  if (id === '_') id = '_x'
  if (NOT_RAW.has(id)) return `${id}_`
  return KEYWORDS.has(id) ? `r#${id}` : id
}

export const snakeCase = (name: string) => guard(words(name).join('_'))
export const camelType = (name: string) =>
  guard(
    words(name)
      .map((w) => w[0]!.toUpperCase() + w.slice(1))
      .join(''),
  )
export const screamingCase = (name: string) => guard(words(name).join('_').toUpperCase())

/** Distinct identifiers for distinct names: a second name that sanitizes the same gets `_2`, `_3`, ... */
export class Names {
  private readonly taken = new Set<string>()
  private readonly given = new Map<string, string>()
  constructor(
    private readonly style: (name: string) => string,
    reserved: readonly string[] = [],
  ) {
    for (const r of reserved) this.taken.add(r)
  }
  get(name: string): string {
    const known = this.given.get(name)
    if (known !== undefined) return known
    const base = this.style(name)
    let id = base
    for (let n = 2; this.taken.has(id); n++) id = base.startsWith('r#') ? `${base.slice(2)}_${n}` : `${base}_${n}`
    this.taken.add(id)
    this.given.set(name, id)
    return id
  }
}

/** A Rust string literal: printable ASCII as it is, `"` and `\` escaped, everything else as `\u{...}`. */
export function rustString(text: string): string {
  let out = '"'
  for (const c of text) {
    const code = c.codePointAt(0)!
    if (c === '"' || c === '\\') out += `\\${c}`
    else if (code >= 0x20 && code < 0x7f) out += c
    else out += `\\u{${code.toString(16)}}`
  }
  return out + '"'
}

/** Text for a `///` or `//!` comment line: one line, no control characters. */
export function docText(text: string): string {
  return text.replace(/[\p{Cc}\u2028\u2029]+/gu, ' ').trim()
}
