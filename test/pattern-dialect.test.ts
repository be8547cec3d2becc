/** OpenAPI 3.0 patterns (ECMA-262 without the Unicode flag), rewritten in Unicode-mode syntax: the same verdicts. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { unicodeModeSource } from '../src/core/pattern-dialect.js'

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
})
