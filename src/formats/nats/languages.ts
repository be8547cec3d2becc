import type { TemplateToken } from '../../runtime/nats/subjects.js'
import { enumerate, inDomain, intersects, isEmptyLanguage, type Alphabet, type TokenType } from '../../runtime/nats/tokens.js'

/** A subject language: one token language per position (a channel address, after its placeholders' domains). */
export type Language = readonly TokenType[]
/** A subscription pattern position: a language, `*`, or a final `>`. */
export type PatternPosition = TokenType | '*' | '>'

/** Do two channel languages share a subject? Exactly: same length and every position intersects. */
export function languagesIntersect(a: Language, b: Language): boolean {
  return a.length === b.length && a.every((t, i) => intersects(t, b[i]!))
}

/** Does a pattern (filter, stream subject, consumer filter) match at least one subject of the language? */
export function patternIntersects(pattern: readonly PatternPosition[], language: Language): boolean {
  const tail = pattern[pattern.length - 1] === '>'
  const fixed = tail ? pattern.length - 1 : pattern.length
  if (tail ? language.length <= fixed : language.length !== fixed) return false
  for (let i = 0; i < fixed; i++) {
    const p = pattern[i]!
    if (p !== '*' && !intersects(p as TokenType, language[i]!)) return false
  }
  return true
}

/**
 * `patternIntersects(positions(tokens, types), language)` without building the positions: a literal
 * token meets a position when the position's language has it. (Every filter of every channel is
 * checked: the positions and their one-literal languages were most of the rule's allocation, bench/.)
 * A placeholder written more than once stands for one token in all its positions
 * (`probe.{a}.{a}.{a}`): its domain and the languages of all those positions must share one token,
 * not each position separately. O(positions) intersections of token types.
 */
export function templateIntersects(tokens: readonly TemplateToken[], types: Readonly<Record<string, TokenType>>, language: Language): boolean {
  const tail = tokens[tokens.length - 1] === '>'
  const fixed = tail ? tokens.length - 1 : tokens.length
  if (tail ? language.length <= fixed : language.length !== fixed) return false
  // What each repeated placeholder can still be, narrowed by every position it stands in.
  let narrowed: Map<string, TokenType> | undefined
  // The placeholders met so far: the first by itself, a set only from a second one on (most filters
  // have one placeholder, and every filter of every channel passes here, bench/).
  let firstParam: string | undefined
  let seen: Set<string> | undefined
  for (let i = 0; i < fixed; i++) {
    const token = tokens[i]!
    if (token === '*') continue
    if (typeof token === 'string') {
      if (!inDomain(language[i]!, token)) return false
      continue
    }
    if (!intersects(types[token.param]!, language[i]!)) return false
    if (firstParam === undefined) {
      firstParam = token.param
      continue
    }
    if (token.param !== firstParam && !seen?.has(token.param)) {
      ;(seen ??= new Set()).add(token.param)
      continue
    }
    narrowed ??= new Map()
    // The second position of a placeholder: start from its domain and its first position.
    let current = narrowed.get(token.param)
    if (current === undefined) {
      const first = tokens.findIndex((t) => typeof t === 'object' && t.param === token.param)
      current = intersection(types[token.param]!, language[first]!)
    }
    current = current && intersection(current, language[i]!)
    if (current === undefined) return false
    narrowed.set(token.param, current)
  }
  return true
}

/**
 * The tokens two token languages share, as a token language, or undefined when they share none.
 * Exact: an enum keeps the values the other has; two `token` types align their prefixes as
 * `intersects` does, and what follows the longer prefix is drawn from the smaller alphabet
 * (hex within lower within ascii), within both length bounds. O(enum values) or O(prefix length).
 */
export function intersection(a: TokenType, b: TokenType): TokenType | undefined {
  if (a.kind === 'enum' || b.kind === 'enum') {
    const [list, other] = a.kind === 'enum' ? [a, b] : [b as Extract<TokenType, { kind: 'enum' }>, a]
    const values = list.values.filter((v) => inDomain(other, v))
    return values.length > 0 ? { kind: 'enum', values } : undefined
  }
  if (!intersects(a, b)) return undefined
  const [short, long] = a.prefix.length <= b.prefix.length ? [a, b] : [b, a]
  const extra = long.prefix.length - short.prefix.length
  const alphabet = SMALLER[a.alphabet][b.alphabet]
  const type: TokenType = {
    kind: 'token',
    alphabet,
    first: long.first === 'letter' || (extra === 0 && short.first === 'letter') ? 'letter' : 'any',
    minLength: Math.max(a.minLength, b.minLength),
    maxLength: Math.min(a.maxLength, b.maxLength),
    prefix: long.prefix,
  }
  return isEmptyLanguage(type) ? undefined : type
}

/** The smaller of two nested alphabets (hex within lower within ascii): what both allow. */
const SMALLER: Readonly<Record<Alphabet, Readonly<Record<Alphabet, Alphabet>>>> = {
  hex: { hex: 'hex', lower: 'hex', ascii: 'hex' },
  lower: { hex: 'hex', lower: 'lower', ascii: 'lower' },
  ascii: { hex: 'hex', lower: 'lower', ascii: 'ascii' },
}

const ENUMERATION_LIMIT = 256

/** Steps `patternsCover` may take before it gives up (far above any real stream's subjects list). */
export const COVER_STEP_LIMIT = 200_000

/** Thrown when a cover question needs more than `COVER_STEP_LIMIT` steps. */
export class CoverUndecided extends Error {}

/**
 * Do the patterns together match every subject of the language? Exact, and decided by classes,
 * not by enumeration: at each position the tokens of the language (when it has at most 256) are
 * grouped by the set of patterns whose literal there they match; tokens of one group leave the
 * same patterns alive, so one recursion decides them all. A position whose language is larger can
 * only be covered by a wildcard, and a final `>` covers every remaining position. Sub-questions
 * (position, live patterns) are answered once (memoized).
 *
 * Complexity: a channel whose positions are all covered by `*` costs O(positions x patterns);
 * in general the work is bounded by the distinct (position, live patterns) states, each costing
 * O(256 x patterns). `s.*.*.*.*.*.*.*.*` over 8 hex parameters, which enumerated 16^8 subjects, is
 * now 9 states. Past `COVER_STEP_LIMIT` steps it throws `CoverUndecided` (the rule reports it).
 */
export function patternsCover(patterns: ReadonlyArray<readonly PatternPosition[]>, language: Language): boolean {
  // One pattern that covers the language alone (`svc.>` over `svc.{id}.events`: most streams and
  // channels) answers without the search, its memo and its keys (bench/: a twentieth of a
  // 500-channel compile's allocation). Only where the search cannot run past its step limit: it
  // makes at most 4^patterns calls per position (2^patterns sets of live patterns, each with at
  // most 2^patterns groups), so the answer, and when it would throw, stay the search's own.
  if ((language.length + 1) * 4 ** patterns.length < COVER_STEP_LIMIT) for (const pattern of patterns) if (coversAlone(pattern, language)) return true
  const memo = new Map<string, boolean>()
  let steps = 0
  const cover = (at: number, live: readonly number[]): boolean => {
    if (++steps > COVER_STEP_LIMIT) throw new CoverUndecided(`deciding the cover took more than ${COVER_STEP_LIMIT} steps`)
    if (at === language.length) return live.some((i) => patterns[i]!.length === at)
    const key = `${at}:${live.join(',')}`
    const known = memo.get(key)
    if (known !== undefined) return known
    // A final `>` here covers every remaining position (the common case, `svc.>`: decided first).
    let answer = live.some((i) => patterns[i]!.length === at + 1 && patterns[i]![at] === '>')
    if (!answer) {
      const wild: number[] = []
      const literal: number[] = []
      for (const i of live) {
        const p = patterns[i]!
        if (p.length <= at) continue
        if (p[at] === '*') wild.push(i)
        else if (p[at] !== '>') literal.push(i)
      }
      const members = enumerate(language[at]!, ENUMERATION_LIMIT)
      if (members === undefined) answer = cover(at + 1, wild)
      else {
        // Tokens grouped by the literal patterns they match: one recursion per group.
        const groups = new Map<string, number[]>()
        for (const token of members) {
          const matched = literal.filter((i) => inDomain(patterns[i]![at] as TokenType, token))
          const signature = matched.join(',')
          if (!groups.has(signature)) groups.set(signature, mergeSorted(wild, matched))
        }
        answer = true
        for (const next of groups.values()) {
          if (!cover(at + 1, next)) {
            answer = false
            break
          }
        }
      }
    }
    memo.set(key, answer)
    return answer
  }
  return cover(
    0,
    patterns.map((_, i) => i),
  )
}

/** Whether `pattern` alone matches every subject of `language` (at each position `*`, a final `>`, or a literal every value of an enum is); false when it cannot tell. */
function coversAlone(pattern: readonly PatternPosition[], language: Language): boolean {
  for (let at = 0; at < pattern.length; at++) {
    if (at >= language.length) return false
    const p = pattern[at]!
    // A `>` takes one token or more: there is one here.
    if (p === '>') return at === pattern.length - 1
    if (p === '*') continue
    // A literal covers an enum whose every value it is (a literal of the address is an enum of
    // one); other positions are left to the search.
    const position = language[at]!
    if (position.kind !== 'enum' || position.values.length > ENUMERATION_LIMIT) return false
    for (const token of position.values) if (!inDomain(p, token)) return false
  }
  return pattern.length === language.length
}

function mergeSorted(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = []
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]! < b[j]!)) out.push(a[i++]!)
    else out.push(b[j++]!)
  }
  return out
}
