/** NATS wildcard subjects: `subjectWithin` and `subjectsOverlap` against brute force over a small alphabet. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { subjectsOverlap, subjectWithin } from '../src/runtime/nats/wildcards.js'
import { SubjectIndex } from '../src/formats/nats/subject-index.js'

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

describe('SubjectIndex', () => {
  const subjectPattern = fc
    .array(fc.constantFrom('a', 'b', 'acme', '*'), { minLength: 1, maxLength: 4 })
    .chain((tokens) => fc.boolean().map((tail) => (tail ? [...tokens, '>'] : tokens).join('.')))

  it('finds exactly the earlier patterns that overlap, as pairwise subjectsOverlap does (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(subjectPattern, { minLength: 1, maxLength: 25 }), (subjects) => {
        const index = new SubjectIndex<number>(1_000_000)
        subjects.forEach((subject, i) => {
          const found = index.overlapping(subject)!.sort((x, y) => x - y)
          const expected = subjects.slice(0, i).flatMap((other, j) => (subjectsOverlap(other, subject) ? [j] : []))
          expect([subject, found]).toEqual([subject, expected])
          index.add(subject, i)
        })
      }),
      { numRuns: 400 },
    )
  })

  it('answers undefined past its budget, and 5,000 subjects sharing first and last tokens stay far inside it', () => {
    const small = new SubjectIndex<number>(3)
    for (let i = 0; i < 10; i++) small.add(`a.${i}.x`, i)
    expect(small.overlapping('a.*.x')).toBeUndefined()
    const index = new SubjectIndex<number>(5_000_000)
    for (let i = 0; i < 5000; i++) {
      const subject = `acme.*.*.thing${i}.${['created', 'updated', 'deleted'][i % 3]}`
      expect(index.overlapping(subject)).toEqual([])
      index.add(subject, i)
    }
    expect(index.overlapping('acme.eu.x.thing42.created')).toEqual([42])
    expect(index.overlapping('acme.>')!.length).toBe(5000)
  })
})
