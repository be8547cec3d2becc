/**
 * Property tests (fast-check) for the subject value objects and the language decisions, against
 * brute-force oracles written independently (test/helpers/token-oracle.ts, which says why brute
 * force over its universe is exact).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createFilter, createSubject, templateTokens, type TemplateToken } from '../src/runtime/nats/subjects.js'
import { parseAddress, parseFilter, positions } from '../src/formats/nats/address.js'
import { inDomain, intersects, literal, type TokenType } from '../src/runtime/nats/tokens.js'
import { languagesIntersect, patternIntersects, patternsCover, templateIntersects, type PatternPosition } from '../src/formats/nats/languages.js'
import { members, oracle, REPS, SECOND_REPS, words } from './helpers/token-oracle.js'

const runs = Number(process.env.PROPERTY_RUNS ?? 200)

const UNIVERSE = words(5)

/** The oracle's members of a token type among UNIVERSE's words, unless another universe is given. */
const membersOf = (type: TokenType, universe: readonly string[] = UNIVERSE): string[] => members(type, universe)

const token = fc.array(fc.constantFrom(...REPS), { minLength: 1, maxLength: 3 }).map((a) => a.join(''))
const tokenType: fc.Arbitrary<TokenType> = fc.oneof(
  fc.uniqueArray(token, { minLength: 1, maxLength: 4 }).map((values) => ({ kind: 'enum' as const, values })),
  fc
    .record({
      alphabet: fc.constantFrom('lower' as const, 'ascii' as const, 'hex' as const),
      first: fc.constantFrom('letter' as const, 'any' as const),
      prefix: fc.constantFrom('', 'a', 'g', 'G', '0', 'a0', 'G_', 'a-'),
      minLength: fc.integer({ min: 1, max: 5 }),
      span: fc.integer({ min: 0, max: 3 }),
    })
    .map(({ span, minLength, ...rest }) => ({ kind: 'token' as const, ...rest, minLength, maxLength: Math.min(5, minLength + span) })),
)

describe('token languages', () => {
  it('inDomain agrees with the regular-expression oracle', () => {
    fc.assert(
      fc.property(tokenType, fc.constantFrom(...UNIVERSE), (type, value) => inDomain(type, value) === oracle(type).test(value)),
      { numRuns: runs * 10 },
    )
  })

  it('intersects agrees with brute-force enumeration', () => {
    fc.assert(
      fc.property(tokenType, tokenType, (a, b) => {
        const ra = oracle(a)
        const rb = oracle(b)
        return intersects(a, b) === UNIVERSE.some((w) => ra.test(w) && rb.test(w))
      }),
      { numRuns: runs * 5 },
    )
  })
})

/** A template over literals and placeholders, with the token type of each placeholder. */
const template = fc
  .array(
    fc.oneof(
      token.map((t) => ({ literal: t })),
      tokenType.map((type) => ({ type })),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((parts) => {
    const tokens: TemplateToken[] = []
    const types: Record<string, TokenType> = {}
    parts.forEach((part, i) => {
      if ('literal' in part) tokens.push(part.literal)
      else {
        tokens.push({ param: `p${i}` })
        types[`p${i}`] = part.type
      }
    })
    return { tokens, types }
  })

/** One value of a token language (by brute force), if it has one in the universe. */
function sample(type: TokenType, pick: number): string | undefined {
  const members = membersOf(type)
  return members.length === 0 ? undefined : members[pick % members.length]
}

describe('subjects', () => {
  it('parse(render(p)) equals p, and render checks every value', () => {
    fc.assert(
      fc.property(template, fc.nat(), ({ tokens, types }, pick) => {
        const params: Record<string, string> = {}
        for (const [name, type] of Object.entries(types)) {
          const value = sample(type, pick)
          if (value === undefined) return true
          params[name] = value
        }
        const subject = createSubject(tokens.map((t) => (typeof t === 'string' ? t : `{${t.param}}`)).join('.'), tokens, types)
        const rendered = subject.render(params)
        expect(subject.parse(rendered)).toEqual(params)
        expect(subject.matches(rendered)).toBe(true)
        return true
      }),
      { numRuns: runs },
    )
  })

  it('parse rejects every subject outside the language', () => {
    const subjectText = fc.array(fc.oneof(token, fc.constantFrom('', '*', '>', 'a.b', 'a b')), { minLength: 1, maxLength: 5 }).map((t) => t.join('.'))
    fc.assert(
      fc.property(template, subjectText, ({ tokens, types }, text) => {
        const subject = createSubject('t', tokens, types)
        const parts = text.split('.')
        const inLanguage =
          parts.length === tokens.length && tokens.every((t, i) => (typeof t === 'string' ? parts[i] === t : oracle(types[t.param]!).test(parts[i]!)))
        return (subject.tryParse(text) !== undefined) === inLanguage
      }),
      { numRuns: runs * 5 },
    )
  })

  // tryParse scans the subject in place; the reading it must give is the split one: the same
  // segment count, each literal its whole segment, each value its whole segment. Rendered subjects
  // and their near misses (a segment lengthened, shortened, split or added) sit on that boundary.
  it('tryParse reads what splitting on "." reads, value for value, on rendered subjects and near misses', () => {
    const edit = fc.constantFrom<(s: string) => string>(
      (s) => s,
      (s) => `${s}.x`,
      (s) => `${s}x`,
      (s) => s.slice(0, -1),
      (s) => `${s}.`,
      (s) => `.${s}`,
      (s) => s.replace('.', '..'),
      (s) => s.replace('.', 'a'),
      (s) => s.replace(/[A-Za-z0-9_-](?=\.)/, '$&$&'),
      (s) => s.replace(/\.[A-Za-z0-9_-]/, '.'),
    )
    const bySplit = (tokens: readonly TemplateToken[], types: Record<string, TokenType>, text: string) => {
      const parts = text.split('.')
      if (parts.length !== tokens.length) return undefined
      const out: Record<string, string> = {}
      for (let i = 0; i < tokens.length; i++) {
        const t = tokens[i]!
        if (typeof t === 'string') {
          if (parts[i] !== t) return undefined
        } else if (!oracle(types[t.param]!).test(parts[i]!)) return undefined
        else out[t.param] = parts[i]!
      }
      return out
    }
    fc.assert(
      fc.property(template, fc.nat(), edit, ({ tokens, types }, pick, change) => {
        const params: Record<string, string> = {}
        for (const [name, type] of Object.entries(types)) {
          const value = sample(type, pick)
          if (value === undefined) return true
          params[name] = value
        }
        const subject = createSubject('t', tokens, types)
        const text = change(subject.render(params))
        expect(subject.tryParse(text)).toEqual(bySplit(tokens, types, text))
        return true
      }),
      { numRuns: runs * 5 },
    )
  })
})

describe('template text', () => {
  // Generated modules carry addresses and filters as text; the runtime reads their tokens. Every
  // text the compiler accepts must read the same on both sides.
  const piece = fc.oneof(token, fc.constantFrom('*', '>', '{a}', '{b_1}', '{x-y}', '{', '}', '{}', '{{a}}', '{a', 'a}', '', '$', '_INBOX'))
  const text = fc.array(piece, { minLength: 1, maxLength: 5 }).map((parts) => parts.join('.'))
  it('templateTokens reads every accepted address and filter as the compiler does', () => {
    let accepted = 0
    fc.assert(
      fc.property(text, (t) => {
        for (const parsed of [parseAddress(t), parseFilter(t)]) {
          if (!('tokens' in parsed)) continue
          accepted++
          expect(templateTokens(t)).toEqual(parsed.tokens)
        }
      }),
      { numRuns: runs * 5 },
    )
    expect(accepted).toBeGreaterThan(runs)
  })
})

/** Brute-force NATS subject matching: `*` is one token, a final `>` one or more. */
function natsMatch(pattern: string, subject: string): boolean {
  const p = pattern.split('.')
  const s = subject.split('.')
  if (s.some((t) => t === '')) return false
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return i === p.length - 1 && s.length > i
    if (i >= s.length) return false
    if (p[i] !== '*' && p[i] !== s[i]) return false
  }
  return p.length === s.length
}

/** natsMatch of the filter with its placeholder filled by each member in turn, one subject at a time. */
function natsMatchFilled(tokens: TemplateToken[], subject: string, members: ReadonlySet<string>): boolean {
  const s = subject.split('.')
  if (s.some((t) => t === '')) return false
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!
    if (t === '>') return i === tokens.length - 1 && s.length > i
    if (i >= s.length) return false
    if (typeof t !== 'string') {
      if (!members.has(s[i]!)) return false
    } else if (t !== '*' && t !== s[i]) return false
  }
  return tokens.length === s.length
}

describe('filters', () => {
  const enumType = fc.uniqueArray(token, { minLength: 1, maxLength: 3 }).map((values): TokenType => ({ kind: 'enum', values }))
  const filterTemplate = fc
    .tuple(
      fc.array(
        fc.oneof(
          token.map((t): TemplateToken => t),
          fc.constant('*' as TemplateToken),
          fc.constant({ param: 'x' } as TemplateToken),
        ),
        { minLength: 1, maxLength: 3 },
      ),
      fc.boolean(),
      enumType,
    )
    .map(([tokens, tail, type]) => ({ tokens: tail ? [...tokens, '>'] : tokens, type }))
  const subjects = fc.array(token, { minLength: 1, maxLength: 5 }).map((t) => t.join('.'))

  it('matches agrees with a brute-force NATS matcher over every value of the placeholders', () => {
    fc.assert(
      fc.property(filterTemplate, subjects, ({ tokens, type }, subject) => {
        const filter = createFilter('f', tokens, { x: type })
        const values = (type as { values: string[] }).values
        const expected = values.some((x) => natsMatch(filter.render({ x }), subject))
        return filter.matches(subject) === expected
      }),
      { numRuns: runs * 5 },
    )
  })
})

describe('channel languages', () => {
  const position = fc.oneof(
    token.map((t) => literal(t)),
    tokenType,
  )
  const language = fc.array(position, { minLength: 1, maxLength: 3 })
  /** Every subject of a language over `universe`, when it is small enough to list (at most 20,000). */
  const subjectsOf = (lang: TokenType[], universe: readonly string[] = UNIVERSE): string[] | undefined => {
    const lists = lang.map((type) => membersOf(type, universe))
    // Counted before any subject is written: a language too large to list is known from the counts.
    let count = 1
    for (const members of lists) if ((count *= members.length) > 20000) return undefined
    let out = ['']
    for (const members of lists) out = out.flatMap((prefix) => members.map((m) => (prefix ? `${prefix}.${m}` : m)))
    return out
  }

  it('channel overlap agrees with brute-force enumeration', () => {
    fc.assert(
      fc.property(language, language, (a, b) => {
        const sa = subjectsOf(a)
        const sb = subjectsOf(b)
        if (!sa || !sb) return true
        const set = new Set(sb)
        return languagesIntersect(a, b) === sa.some((s) => set.has(s))
      }),
      { numRuns: runs },
    )
  })

  it('a filter template meets a channel exactly when some subject of the channel matches a filled-in filter', () => {
    const filter = fc
      .tuple(
        fc.array(
          fc.oneof(
            token.map((t): TemplateToken => t),
            fc.constant<TemplateToken>('*'),
            fc.constant<TemplateToken>({ param: 'x' }),
          ),
          { minLength: 1, maxLength: 3 },
        ),
        fc.boolean(),
        tokenType,
      )
      .map(([tokens, tail, type]) => ({ tokens: tail ? [...tokens, '>' as TemplateToken] : tokens, types: { x: type } }))
    fc.assert(
      fc.property(filter, language, ({ tokens, types }, lang) => {
        const all = subjectsOf(lang)
        // A filter that uses a placeholder twice is read position by position (an over-approximation
        // noted in README's known gaps; addresses may not repeat one): held to the oracle with each
        // placeholder once.
        if (tokens.filter((t) => typeof t !== 'string').length > 1) return true
        const usesX = tokens.some((t) => typeof t !== 'string')
        const xs = usesX ? membersOf(types.x) : ['']
        // Token types with no members never reach a channel language (the compiler rejects them).
        if (!all || all.length === 0 || all.length > 2000 || xs.length === 0) return true
        // Some filled-in filter matches s exactly when s matches the filter with the placeholder's
        // position taking any member of xs (one placeholder, and no member holds a dot or wildcard).
        const members = new Set(xs)
        const expected = all.some((s) => natsMatchFilled(tokens, s, members))
        expect(templateIntersects(tokens, types, lang)).toBe(expected)
        expect(templateIntersects(tokens, types, lang)).toBe(patternIntersects(positions(tokens, types), lang))
      }),
      { numRuns: runs },
    )
  })

  it('stream subjects cover a channel exactly when every subject matches one of them', () => {
    const pattern = fc
      .tuple(fc.array(fc.oneof(token, fc.constant('*')), { minLength: 1, maxLength: 3 }), fc.boolean())
      .map(([t, tail]) => (tail ? [...t, '>'] : t))
    // "Every subject" needs a member of each class that no literal names: the second representatives.
    const universe = words(3, [...REPS, ...SECOND_REPS])
    const everySubject = (lang: TokenType[]) => (lang.some((t) => t.kind === 'token' && t.maxLength > 3) ? undefined : subjectsOf(lang, universe))
    let decided = 0
    fc.assert(
      fc.property(language, fc.array(pattern, { minLength: 1, maxLength: 3 }), (lang, patterns) => {
        const all = everySubject(lang)
        if (!all) return true
        decided++
        const positions = patterns.map((p) => p.map((t): PatternPosition => (t === '*' || t === '>' ? t : literal(t))))
        const expected = all.every((s) => patterns.some((p) => natsMatch(p.join('.'), s)))
        return patternsCover(positions, lang) === expected
      }),
      { numRuns: runs },
    )
    expect(decided).toBeGreaterThan(runs / 4)
    // The counterexample that showed one representative per class is not enough for covers.
    expect(
      patternsCover(
        [[literal('a'), '>']],
        [
          { kind: 'token', alphabet: 'hex', first: 'letter', prefix: '', minLength: 1, maxLength: 1 },
          { kind: 'enum', values: ['0'] },
        ],
      ),
    ).toBe(false)
  })
})
