/**
 * NATS token domains of the contract profile v0.2 ("Token domains and channels"): finite languages
 * of subject tokens, with no regular expressions, escaping or case folding. Shared by the
 * generated subject objects (membership) and the compiler (intersection, disjointness).
 */
export type Alphabet = 'lower' | 'ascii' | 'hex'

export type TokenType =
  | { readonly kind: 'enum'; readonly values: readonly string[] }
  | {
      readonly kind: 'token'
      readonly alphabet: Alphabet
      readonly first: 'letter' | 'any'
      readonly minLength: number
      readonly maxLength: number
      readonly prefix: string
    }

/** The characters of each alphabet, and of base ASCII tokens (`[A-Za-z0-9_-]`). */
export const ALPHABETS: Readonly<Record<Alphabet | 'base', string>> = {
  lower: 'abcdefghijklmnopqrstuvwxyz0123456789_-',
  ascii: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-',
  hex: '0123456789abcdef',
  base: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-',
}

const tables = new Map<string, Uint8Array>()
/** 128-entry membership table for an alphabet: charCodeAt lookups instead of regular expressions. */
function table(chars: string): Uint8Array {
  let t = tables.get(chars)
  if (!t) {
    t = new Uint8Array(128)
    for (let i = 0; i < chars.length; i++) t[chars.charCodeAt(i)] = 1
    tables.set(chars, t)
  }
  return t
}

const isLetter = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122)

/** True when `value` is a token of base ASCII (`[A-Za-z0-9_-]+`). */
export function isBaseToken(value: string): boolean {
  if (value.length === 0) return false
  const t = table(ALPHABETS.base)
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c > 127 || t[c] === 0) return false
  }
  return true
}

const valueSets = new WeakMap<readonly string[], Set<string>>()
/** An enum's values as a set, made once per list (long enums are looked up, not scanned). */
function valueSet(values: readonly string[]): Set<string> {
  let set = valueSets.get(values)
  if (!set) valueSets.set(values, (set = new Set(values)))
  return set
}

/** Membership: is `value` in the language of `type`? (Lengths are bytes; every allowed character is one byte.) */
export function inDomain(type: TokenType, value: string): boolean {
  if (type.kind === 'enum') return type.values.length > 16 ? valueSet(type.values).has(value) : type.values.includes(value)
  const { prefix, minLength, maxLength } = type
  if (value.length < minLength || value.length > maxLength || !value.startsWith(prefix)) return false
  const t = table(ALPHABETS[type.alphabet])
  const start = prefix.length
  if (type.first === 'letter' && (value.length === start || !isLetter(value.charCodeAt(start)))) return false
  for (let i = start; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c > 127 || t[c] === 0) return false
  }
  return true
}

/** A compiled membership test, for the hot paths of render and parse: fields read once, one table. */
export function domainCheck(type: TokenType): (value: string) => boolean {
  if (type.kind === 'enum') {
    // A few values (the usual enum: regions, environments) are compared directly, which is about
    // twice as fast as a Set lookup for up to four (bench/subjects.ts); more use the Set.
    const [a, b, c, d] = type.values
    switch (type.values.length) {
      case 1:
        return (value) => value === a
      case 2:
        return (value) => value === a || value === b
      case 3:
        return (value) => value === a || value === b || value === c
      case 4:
        return (value) => value === a || value === b || value === c || value === d
    }
    const values = new Set(type.values)
    return (value) => values.has(value)
  }
  const { prefix, minLength, maxLength } = type
  const t = table(ALPHABETS[type.alphabet])
  const start = prefix.length
  const letter = type.first === 'letter'
  return (value) => {
    const n = value.length
    if (n < minLength || n > maxLength || (start > 0 && !value.startsWith(prefix))) return false
    if (letter && (n === start || !isLetter(value.charCodeAt(start)))) return false
    for (let i = start; i < n; i++) {
      const c = value.charCodeAt(i)
      if (c > 127 || t[c] === 0) return false
    }
    return true
  }
}

/** Is the language empty? (Checked on token types before anything uses them.) */
export function isEmptyLanguage(type: TokenType): boolean {
  return !hasMember(type)
}

function hasMember(type: TokenType): boolean {
  if (type.kind === 'enum') return type.values.length > 0
  const needed = type.prefix.length + (type.first === 'letter' ? 1 : 0)
  return Math.max(type.minLength, needed) <= type.maxLength && (type.first === 'any' || lettersOf(ALPHABETS[type.alphabet]).length > 0)
}

const letters = new Map<string, string>()
function lettersOf(chars: string): string {
  let out = letters.get(chars)
  if (out === undefined) letters.set(chars, (out = [...chars].filter((c) => isLetter(c.charCodeAt(0))).join('')))
  return out
}

const commonCache = new Map<string, Map<string, string>>()
/**
 * The characters two alphabets share (cached: the overlap check calls this for every pair of
 * positions; keyed by the two strings themselves, not by a concatenation built on every call).
 */
function commonChars(a: string, b: string): string {
  let byB = commonCache.get(a)
  if (byB === undefined) commonCache.set(a, (byB = new Map()))
  let out = byB.get(b)
  if (out === undefined) byB.set(b, (out = [...a].filter((c) => b.includes(c)).join('')))
  return out
}

/**
 * Do two token languages share a token? Decided exactly: enums by membership, and two `token`
 * types by aligning their prefixes (the shorter must begin the longer, and the rest of the longer
 * prefix must fit the shorter's suffix rules), then asking whether one length fits both bounds.
 */
export function intersects(a: TokenType, b: TokenType): boolean {
  // Enum against enum walks the shorter list against the longer one's set: O(n + m), where two
  // lists of 80,000 values compared pairwise took 19 s.
  if (a.kind === 'enum' && b.kind === 'enum' && a.values.length > b.values.length) return b.values.some((v) => inDomain(a, v))
  if (a.kind === 'enum') return a.values.some((v) => inDomain(b, v))
  if (b.kind === 'enum') return b.values.some((v) => inDomain(a, v))
  const [short, long] = a.prefix.length <= b.prefix.length ? [a, b] : [b, a]
  if (!long.prefix.startsWith(short.prefix)) return false
  const shortChars = ALPHABETS[short.alphabet]
  const extra = long.prefix.slice(short.prefix.length)
  // The part of the longer prefix past the shorter one is the start of the shorter type's suffix.
  if ([...extra].some((c) => !shortChars.includes(c))) return false
  if (extra.length > 0 && short.first === 'letter' && !isLetter(extra.charCodeAt(0))) return false
  // What follows both prefixes is drawn from both alphabets.
  const common = commonChars(ALPHABETS[long.alphabet], shortChars)
  const letterFirst = long.first === 'letter' || (extra.length === 0 && short.first === 'letter')
  if (letterFirst && lettersOf(common).length === 0) return false
  const lo = Math.max(a.minLength, b.minLength, long.prefix.length + (letterFirst ? 1 : 0))
  const hi = Math.min(a.maxLength, b.maxLength)
  if (lo > hi) return false
  return common.length > 0 || lo === long.prefix.length
}

/**
 * The members of a language when there are at most `limit` of them, otherwise undefined. Used to
 * decide, exactly, whether literal stream subjects cover a channel position.
 */
export function enumerate(type: TokenType, limit: number): string[] | undefined {
  if (type.kind === 'enum') return type.values.length <= limit ? [...type.values] : undefined
  const chars = ALPHABETS[type.alphabet]
  const out: string[] = []
  const grow = (current: string): boolean => {
    if (current.length >= type.minLength && inDomain(type, current)) {
      out.push(current)
      if (out.length > limit) return false
    }
    if (current.length >= type.maxLength) return true
    // Only extensions that can still become members: the first suffix character may have to be a letter.
    const next = type.first === 'letter' && current.length === type.prefix.length ? lettersOf(chars) : chars
    for (const c of next) if (!grow(current + c)) return false
    return true
  }
  return grow(type.prefix) ? out : undefined
}

/** A literal token as a language of one member, so literals and placeholders compare alike. */
export function literal(value: string): TokenType {
  return { kind: 'enum', values: [value] }
}
