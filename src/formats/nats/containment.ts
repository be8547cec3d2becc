import { ALPHABETS, enumerate, inDomain, type TokenType } from '../../runtime/nats/tokens.js'

type TokenKind = Extract<TokenType, { kind: 'token' }>

const LETTERS = /[A-Za-z]/
// The alphabets are a handful of fixed strings, asked for at every position of every length of
// every comparison (a 5,000-channel diff compares each channel's tokens both ways): each answer once.
const letters = new Map<string, string>()
function lettersOf(chars: string): string {
  let found = letters.get(chars)
  if (found === undefined) letters.set(chars, (found = [...chars].filter((c) => LETTERS.test(c)).join('')))
  return found
}
const withinMemo = new Map<string, boolean>()
function within(inner: string, outer: string): boolean {
  if (inner.length <= 1) return inner === '' || outer.includes(inner)
  const key = `${inner}\u0000${outer}`
  let found = withinMemo.get(key)
  if (found === undefined) {
    found = [...inner].every((c) => outer.includes(c))
    // Bounded: keys are pairs of alphabet-derived strings (a few dozen), plus prefixes' single characters above.
    if (withinMemo.size < 4096) withinMemo.set(key, found)
  }
  return found
}

/**
 * The characters a token type allows at position `i` of its tokens of length `n`, or undefined
 * when it has no token of that length. A token type's tokens of one length are one product of
 * per-position sets: the prefix characters, then the first suffix character (a letter when `first`
 * is letter), then the alphabet. That is what makes containment exact below.
 */
function setAt(t: TokenKind, n: number, i: number): string | undefined {
  const p = t.prefix.length
  if (i < p) return t.prefix[i]
  const chars = ALPHABETS[t.alphabet]
  return i === p && t.first === 'letter' ? lettersOf(chars) : chars
}

function hasLength(t: TokenKind, n: number): boolean {
  const p = t.prefix.length
  if (n < t.minLength || n > t.maxLength || n < p + (t.first === 'letter' ? 1 : 0)) return false
  // Every position must allow a character (an alphabet without letters has no letter-first token).
  return n === p || (setAt(t, n, p) ?? '').length > 0
}

/**
 * Is every token of `a` a token of `b`? Exact: an enum side is decided by its members (a token
 * type against an enum by enumerating it, when it has no more members than the enum); two token
 * types length by length, each length's product of position sets against the other's (positions
 * past both prefixes hold the two alphabets, compared once). O(maxLength x (prefix + alphabet)).
 */
export function tokenTypeContains(b: TokenType, a: TokenType): boolean {
  if (a.kind === 'enum') return a.values.every((v) => inDomain(b, v))
  if (b.kind === 'enum') {
    const members = enumerate(a, b.values.length)
    return members !== undefined && members.every((v) => inDomain(b, v))
  }
  const rest = Math.max(a.prefix.length, b.prefix.length) + 1
  for (let n = a.minLength; n <= a.maxLength; n++) {
    if (!hasLength(a, n)) continue
    if (!hasLength(b, n)) return false
    for (let i = 0; i < Math.min(n, rest); i++) if (!within(setAt(a, n, i)!, setAt(b, n, i)!)) return false
    if (n > rest && !within(ALPHABETS[a.alphabet], ALPHABETS[b.alphabet])) return false
  }
  return true
}

/** Do two token types denote the same set of tokens? (Link languages compare this, not definitions.) */
export function sameTokenLanguage(a: TokenType, b: TokenType): boolean {
  return tokenTypeContains(a, b) && tokenTypeContains(b, a)
}
