import type { TemplateToken } from '../../runtime/nats/subjects.js'
import { enumerate, inDomain, intersects, type TokenType } from '../../runtime/nats/tokens.js'

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
 */
export function templateIntersects(tokens: readonly TemplateToken[], types: Readonly<Record<string, TokenType>>, language: Language): boolean {
  const tail = tokens[tokens.length - 1] === '>'
  const fixed = tail ? tokens.length - 1 : tokens.length
  if (tail ? language.length <= fixed : language.length !== fixed) return false
  for (let i = 0; i < fixed; i++) {
    const token = tokens[i]!
    if (token === '*') continue
    if (typeof token === 'string' ? !inDomain(language[i]!, token) : !intersects(types[token.param]!, language[i]!)) return false
  }
  return true
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
