/**
 * The lengths of the strings a pattern admits (regex-language.ts `lengthRange`), which the schema
 * diff reads a `pattern`'s bound on `minLength`/`maxLength` from, held to brute force: random
 * patterns over a three-letter alphabet (anchored or not, alternation, optional parts, bounded and
 * unbounded repetition), every string of that alphabet up to 7 characters tested with the
 * platform's RegExp. The shortest admitted string found has the range's `min` length; a pattern
 * whose language is finite admits nothing longer than `max`, and some string of that length.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { lengthRange, patternLanguage } from '../src/core/diff/schema/regex-language.js'

const ALPHABET = ['a', 'b', 'c']
const LONGEST = 7
const strings: string[] = ['']
for (let i = 0; strings[i] !== undefined && strings[i]!.length < LONGEST; i++) for (const c of ALPHABET) strings.push(strings[i] + c)

/** A pattern of at most 3 parts of at most 2 alternatives; unbounded only where `star` (so finite ones stay short). */
const atom = fc.oneof(fc.constantFrom('a', 'b', 'c', '[ab]', '.'), fc.constantFrom('(a|bc)', '(b|)'))
const quantified = fc.tuple(atom, fc.constantFrom('', '?', '{2}', '{1,2}', '*', '+')).map(([a, q]) => a + q)
const pattern = fc
  .tuple(fc.boolean(), fc.array(quantified, { minLength: 1, maxLength: 3 }), fc.boolean())
  .map(([start, parts, end]) => `${start ? '^' : ''}${parts.join('')}${end ? '$' : ''}`)

describe('lengthRange', () => {
  it('agrees with brute force over a small alphabet (property)', () => {
    fc.assert(
      fc.property(pattern, (source) => {
        const language = patternLanguage(source, 'json-schema')
        expect(language.ok, source).toBe(true)
        if (!language.ok) return
        const range = lengthRange(language)
        const regex = new RegExp(source, 'u')
        const admitted = strings.filter((s) => regex.test(s)).map((s) => s.length)
        if (range === undefined) return expect(admitted, source).toEqual([])
        // Strings of other characters (`.` admits them) have the same lengths as these: the shortest is here.
        expect(Math.min(...admitted), source).toBe(range.min)
        if (Number.isFinite(range.max)) {
          expect(Math.max(...admitted), source).toBeLessThanOrEqual(range.max)
          if (range.max <= LONGEST) expect(admitted, source).toContain(range.max)
        } else expect(/\*|\+/.test(source) || !source.startsWith('^') || !source.endsWith('$'), source).toBe(true)
      }),
      { numRuns: 300 },
    )
  })

  it('counts characters, not UTF-16 units, and says infinite for an unanchored pattern', () => {
    const of = (source: string) => {
      const language = patternLanguage(source, 'json-schema')
      return language.ok ? lengthRange(language) : 'undecided'
    }
    expect(of('^(x|😀😀😀)$')).toEqual({ min: 1, max: 3 })
    expect(of('^[a-z]{2}$')).toEqual({ min: 2, max: 2 })
    expect(of('abc')).toEqual({ min: 3, max: Infinity })
    expect(of('^a*$')).toEqual({ min: 0, max: Infinity })
    expect(of('^[^\\s\\S]$')).toBeUndefined()
  })
})
