/** NATS wildcard subjects: `subjectWithin` and `subjectsOverlap` against brute force over a small alphabet. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { subjectsOverlap, subjectWithin } from '../src/formats/nats/wildcards.js'

const TOKENS = ['a', 'b']
/** Every concrete subject of 1 to 4 tokens over TOKENS. */
const SUBJECTS: string[] = []
for (let n = 1; n <= 4; n++) {
  let level = ['']
  for (let i = 0; i < n; i++) level = level.flatMap((p) => TOKENS.map((t) => (p ? `${p}.${t}` : t)))
  SUBJECTS.push(...level)
}
/** What nats-server matches, written the plain way (recursive, for the oracle only). */
function matches(pattern: string[], subject: string[]): boolean {
  if (pattern.length === 0) return subject.length === 0
  const [p, ...rest] = pattern
  if (p === '>') return rest.length === 0 && subject.length >= 1
  if (subject.length === 0) return false
  return (p === '*' || p === subject[0]) && matches(rest, subject.slice(1))
}
const pattern = fc
  .tuple(fc.array(fc.constantFrom('a', 'b', '*'), { minLength: 0, maxLength: 3 }), fc.boolean())
  .filter(([tokens, tail]) => tokens.length > 0 || tail)
  .map(([tokens, tail]) => [...tokens, ...(tail ? ['>'] : [])].join('.'))
// Subjects up to 4 tokens decide patterns of up to 3 tokens and a `>` (one more token is enough to tell).
const matched = (p: string) => SUBJECTS.filter((s) => matches(p.split('.'), s.split('.')))

describe('NATS wildcards', () => {
  it('subjectWithin(a, b) is "every subject a matches, b matches"', () => {
    fc.assert(
      fc.property(pattern, pattern, (a, b) => {
        const inB = new Set(matched(b))
        expect([a, b, subjectWithin(a, b)]).toEqual([a, b, matched(a).every((s) => inB.has(s))])
      }),
      { numRuns: 3000 },
    )
  })

  it('subjectsOverlap(a, b) is "some subject both match"', () => {
    fc.assert(
      fc.property(pattern, pattern, (a, b) => {
        const inB = new Set(matched(b))
        expect([a, b, subjectsOverlap(a, b)]).toEqual([a, b, matched(a).some((s) => inB.has(s))])
      }),
      { numRuns: 3000 },
    )
  })
})
