/**
 * Rust identifiers for generated code: every name from a document mapped to an identifier that is
 * valid, passes rustc's case lints and clippy's default lints, and is distinct from every other name
 * in the same Rust namespace (document names, the crate's own items, the prelude, std). Every string
 * is an escaped literal.
 */

/** Strict and reserved keywords of Rust 2021 and 2024 (raw identifiers for those that allow `r#`). */
const KEYWORDS = new Set(
  (
    'as break const continue crate else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super ' +
    'trait true type unsafe use where while async await dyn abstract become box do final macro override priv typeof unsized virtual yield try union gen'
  ).split(' '),
)
/** Keywords that cannot be raw identifiers: suffixed instead. */
const NOT_RAW = new Set(['crate', 'self', 'Self', 'super'])

/**
 * Type-namespace names a generated module relies on and a document name must not shadow: the
 * prelude's types, traits and variants (`Result`, `Option`, `String`, `Some`, ...), and the
 * primitive types and crates generated code names by one segment (`str`, `core`, `serde`, ...).
 */
export const PRELUDE_NAMES: readonly string[] = [
  ...'Option Result String Vec Box Some None Ok Err Copy Clone Send Sync Sized Unpin Drop Fn FnMut FnOnce Default Eq PartialEq Ord PartialOrd'.split(' '),
  ...'Iterator IntoIterator DoubleEndedIterator ExactSizeIterator Extend FromIterator ToString ToOwned AsRef AsMut From Into TryFrom TryInto'.split(' '),
  ...'Debug Hash Display Error Value Map Number FromStr Self'.split(' '),
  ...'str bool char u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64'.split(' '),
  ...'core std alloc serde serde_json proc_macro test'.split(' '),
]

export type Style = 'snake' | 'camel' | 'screaming'

/** Words of a name: split on anything but ASCII letters and digits, and at lower-to-upper changes. */
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase())
}

/**
 * A name in a style, as a valid identifier: never empty, never a lone `_` or a leading underscore
 * or digit (clippy's `just_underscores_and_digits`, `used_underscore_binding`), keywords raw
 * (`r#type`) or, where Rust allows no raw form, suffixed (`self_`, `Self_`).
 */
export function styled(name: string, style: Style): string {
  const ws = words(name)
  let id = style === 'camel' ? ws.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('') : style === 'snake' ? ws.join('_') : ws.join('_').toUpperCase()
  if (id === '') id = style === 'snake' ? 'x' : 'X'
  else if (/^[0-9]/.test(id)) id = (style === 'snake' ? 'n' : 'N') + id
  if (NOT_RAW.has(id)) return `${id}_`
  return KEYWORDS.has(id) ? `r#${id}` : id
}

export const snakeCase = (name: string) => styled(name, 'snake')
export const camelType = (name: string) => styled(name, 'camel')
export const screamingCase = (name: string) => styled(name, 'screaming')

/** The identifier without its raw prefix: what the name is (and a file name, a serde name). */
export const bare = (id: string) => id.replace(/^r#/, '')

/**
 * The `n`th variant of a taken identifier, in its style's case (lints allow it): `type` -> `type_2`,
 * `self_` -> `self_2`, `AB` -> `AB2` (not `AB_2`: an underscore beside a letter is not camel case),
 * `A1` -> `A1_2`, `Self_` -> `Self2`.
 */
function numbered(id: string, n: number, style: Style): string {
  const base = bare(id).replace(/_+$/, '')
  if (style === 'camel') return /[0-9]$/.test(base) ? `${base}_${n}` : `${base}${n}`
  return `${base}_${n}`
}

/**
 * One Rust namespace: distinct keys get distinct identifiers (injective), the same key the same
 * identifier, reserved names never; deterministic for one order of calls. Cost: each `get` tries
 * at most (names already given + reserved + 1) suffixes, each a set lookup.
 */
export class Names {
  /** Identifiers given or reserved, without the raw prefix (`r#type` and `type` are one name). */
  private readonly taken = new Set<string>()
  private readonly given = new Map<string, string>()
  constructor(
    private readonly style: Style,
    reserved: Iterable<string> = [],
  ) {
    for (const r of reserved) this.taken.add(bare(r))
  }

  /** The identifier of `key`, made from `name` (the key itself by default) in `style`. */
  get(key: string, name: string = key, style: Style = this.style): string {
    const known = this.given.get(key)
    if (known !== undefined) return known
    const base = styled(name, style)
    let id = base
    for (let n = 2; this.taken.has(bare(id)); n++) id = numbered(base, n, style)
    this.taken.add(bare(id))
    this.given.set(key, id)
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
