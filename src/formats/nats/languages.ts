import type { TemplateToken } from '../../runtime/subjects.js'
import { enumerate, inDomain, intersects, type TokenType } from '../../runtime/tokens.js'

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

/**
 * Do the patterns together match every subject of the language? Exact: a position whose language
 * is small is split into its tokens (each must be covered), a large one can only be covered by a
 * wildcard, and a final `>` covers every remaining position.
 */
export function patternsCover(patterns: ReadonlyArray<readonly PatternPosition[]>, language: Language, at = 0): boolean {
  if (at === language.length) return patterns.some((p) => p.length === at)
  // A final `>` here covers every remaining position (the common case, `svc.>`: decided first,
  // before the lists below are made; this runs for every JetStream publish, bench/).
  if (patterns.some((p) => p.length === at + 1 && p[at] === '>')) return true
  const wild: Array<readonly PatternPosition[]> = []
  const literal: Array<readonly PatternPosition[]> = []
  for (const p of patterns) {
    if (p.length <= at) continue
    if (p[at] === '*') wild.push(p)
    else if (p[at] !== '>') literal.push(p)
  }
  const members = enumerate(language[at]!, ENUMERATION_LIMIT)
  if (members === undefined) return patternsCover(wild, language, at + 1)
  return members.every((token) => {
    const next = wild.slice()
    for (const p of literal) if ((p[at] as TokenType).kind === 'enum' && (p[at] as { values: readonly string[] }).values.includes(token)) next.push(p)
    return patternsCover(next, language, at + 1)
  })
}
