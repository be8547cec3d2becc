/** OpenAPI 3.0 patterns (ECMA-262 without the Unicode flag), rewritten in Unicode-mode syntax: the same verdicts. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { unicodeModeSource } from '../src/core/pattern-dialect.js'
import { buildTimeMatcher } from '../src/core/pattern-safety.js'

/** Atoms of the non-Unicode dialect, identity escapes and Annex B forms included. */
const atom = fc.constantFrom(
  'a',
  'b',
  '-',
  '.',
  '\\-',
  '\\.',
  '\\/',
  '\\d',
  '\\D',
  '\\w',
  '\\s',
  '\\b',
  '\\x41',
  '\\u00e9',
  '\\0',
  '\\cJ',
  '\\p',
  '{',
  '}',
  ']',
  '[a-c]',
  '[^a]',
  '[\\-.]',
  '[\\w\\-]',
  '[]',
  '[^]',
  'é',
  '\\n',
  '\\t',
  // Annex B: a lookahead may be quantified without the Unicode flag.
  '(?=a)',
  '(?!b)',
  '(?=(a))',
)
const quantifier = fc.constantFrom('', '', '*', '+', '?', '{2}', '{1,3}', '*?', '{2,}')
const piece = fc.tuple(atom, quantifier).map(([a, q]) => (a === '\\b' || a === '{' || a === '}' ? a : a + q))
const sequence = fc.array(piece, { minLength: 1, maxLength: 5 }).map((p) => p.join(''))
const pattern = fc
  .tuple(fc.constantFrom('', '^'), fc.array(sequence, { minLength: 1, maxLength: 3 }), fc.constantFrom('', '$'), fc.boolean())
  .map(([start, alts, end, group]) => (group ? `${start}(?:${alts.join('|')})${end}` : `${start}${alts.join('|')}${end}`))
/** Basic Multilingual Plane text: where the two modes agree by definition. */
const text = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '-', '.', '/', '1', '_', ' ', '\n', 'A', 'é', 'p', '{', '}', '\u0000'), maxLength: 8 })

describe('pattern dialect', () => {
  it('every non-Unicode pattern the generator accepts means the same in Unicode-mode syntax, on BMP text', () => {
    let compared = 0
    fc.assert(
      fc.property(pattern, fc.array(text, { minLength: 1, maxLength: 8 }), (source, samples) => {
        let original: RegExp
        try {
          original = new RegExp(source)
        } catch {
          expect(unicodeModeSource(source)).toMatchObject({ ok: false, invalid: true })
          return
        }
        // Every pattern of the dialect has a Unicode-mode form (none fails the build).
        const read = unicodeModeSource(source)
        if (!read.ok) throw new Error(`${source} has no Unicode-mode form: ${read.reason}`)
        const rewritten = new RegExp(read.source, 'u')
        for (const sample of samples) expect([source, sample, rewritten.test(sample)]).toEqual([source, sample, original.test(sample)])
        compared++
      }),
      { numRuns: 2000 },
    )
    expect(compared).toBeGreaterThan(1000)
  })

  it("Annex B's quantified lookahead is written by its meaning: required once, or an empty match with its groups unset", () => {
    expect(unicodeModeSource('^(?=a)*b')).toEqual({ ok: true, source: '^(?:)b' })
    expect(unicodeModeSource('(?!a)+b')).toEqual({ ok: true, source: '(?!a)b' })
    expect(unicodeModeSource('(?=(a))?\\1b')).toEqual({ ok: true, source: '(?:(?!)(?=(a)))?\\1b' })
    for (const [pattern, sample] of [
      ['^(?=a)*b', 'b'],
      ['(?=(a))?\\1b', 'ab'],
      ['(?=(a)){2}\\1b', 'aab'],
      ['(?=(a)){2}\\1b', 'b'],
    ])
      expect(new RegExp((unicodeModeSource(pattern) as { source: string }).source, 'u').test(sample), pattern).toBe(new RegExp(pattern).test(sample))
  })

  it('a literal astral character is one character, quantified or not', () => {
    const read = unicodeModeSource('^😀+$')
    expect(read).toEqual({ ok: true, source: '^\\u{1f600}+$' })
    expect(new RegExp((read as { source: string }).source, 'u').test('😀😀')).toBe(true)
  })

  it('a leading inline options group ((?i), (?s), (?m), (?n), combined) means the flags on the rest: against V8 given those flags', () => {
    // The oracle is V8's own RegExp with the same flags (no modifier group in it); the pattern under
    // test runs on the validators' engines (a modifier group is never native: linear or budgeted).
    // Samples are ASCII, where Unicode and non-Unicode case folding agree.
    const ascii = fc.string({ unit: fc.constantFrom('a', 'b', 'A', 'B', '-', '.', '1', '\n', ' '), maxLength: 8 })
    const options = fc.subarray(['i', 'm', 's', 'n'], { minLength: 1 }).map((o) => o.join(''))
    let compared = 0
    fc.assert(
      fc.property(options, pattern, fc.array(ascii, { minLength: 1, maxLength: 6 }), (opts, source, samples) => {
        let oracle: RegExp
        try {
          oracle = new RegExp(source, opts.replace('n', ''))
        } catch {
          expect(unicodeModeSource(`(?${opts})${source}`)).toMatchObject({ ok: false })
          return
        }
        const read = unicodeModeSource(`(?${opts})${source}`)
        if (!read.ok) throw new Error(`(?${opts})${source}: ${read.reason}`)
        expect(read.inlineOptions).toBe(`(?${opts})`)
        const matcher = buildTimeMatcher(`(?${opts})${source}`)
        for (const sample of samples) expect([opts, source, sample, matcher.test(sample)]).toEqual([opts, source, sample, oracle.test(sample)])
        compared++
      }),
      { numRuns: 400 },
    )
    expect(compared).toBeGreaterThan(200)
  })

  it('only a leading group of those options is read so: (?x), a group later on, or two groups stay invalid', () => {
    for (const pattern of ['(?x)^a b$', '^a(?i)b$', '(?i)(?s)a', '(?-i)a', '(?i']) expect(unicodeModeSource(pattern), pattern).toMatchObject({ ok: false })
    expect(unicodeModeSource('(?n)^a$')).toEqual({ ok: true, source: '^a$', inlineOptions: '(?n)' })
    expect(unicodeModeSource('(?si)^a.$')).toMatchObject({ ok: true, source: '(?is:^a.$)' })
  })
})
