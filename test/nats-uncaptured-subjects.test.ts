/**
 * The search for a subject a narrowed stream no longer captures (src/formats/nats/diff/uncaptured-subjects.ts)
 * against an oracle written apart from it: every subject of a small channel enumerated, each matched
 * against the patterns by nats-server's reading of wildcards (`*` one token, a final `>` one or more).
 * Random channels over small enum domains, a placeholder sometimes written twice (one token on both
 * positions), random old, new and required patterns; the search finds a subject exactly when the
 * enumeration does, and what it finds is one. Its budget bounds any input.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { TemplateToken } from '../src/runtime/nats/subjects.js'
import type { TokenType } from '../src/runtime/nats/tokens.js'
import { shapeOf } from '../src/formats/nats/diff/subject-inclusion.js'
import { uncapturedSubject } from '../src/formats/nats/diff/uncaptured-subjects.js'

const LITERALS = ['a', 'b', 'c']
const DOMAINS: Record<string, TokenType> = {
  p: { kind: 'enum', values: ['a', 'b'] },
  q: { kind: 'enum', values: ['b', 'c', 'd'] },
  h: { kind: 'token', alphabet: 'hex', first: 'any', minLength: 1, maxLength: 1, prefix: '' },
}

/** nats-server's match of a subject (no wildcards) against a pattern, written here from the wildcard rules. */
function matches(subject: string, pattern: string): boolean {
  const s = subject.split('.')
  const p = pattern.split('.')
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return i === p.length - 1 && s.length > i
    if (i >= s.length) return false
    if (p[i] !== '*' && p[i] !== s[i]) return false
  }
  return s.length === p.length
}

/** Every subject of the channel: each placeholder one token of its domain on all of its positions. */
function subjects(tokens: readonly TemplateToken[]): string[] {
  const params = [...new Set(tokens.filter((t): t is { param: string } => typeof t === 'object').map((t) => t.param))]
  const values = (param: string) => {
    const d = DOMAINS[param]!
    return d.kind === 'enum' ? [...d.values] : [...'0123456789abcdef']
  }
  let assignments: Array<Record<string, string>> = [{}]
  for (const param of params) assignments = assignments.flatMap((a) => values(param).map((v) => ({ ...a, [param]: v })))
  return assignments.map((a) => tokens.map((t) => (typeof t === 'string' ? t : a[t.param]!)).join('.'))
}

const token = fc.oneof(
  fc.constantFrom(...LITERALS).map((t) => t as TemplateToken),
  fc.constantFrom('p', 'q', 'h').map((param) => ({ param }) as TemplateToken),
)
const channel = fc.array(token, { minLength: 1, maxLength: 4 })
const pattern = fc
  .array(fc.constantFrom('a', 'b', 'c', 'd', '0', 'f', '*'), { minLength: 1, maxLength: 4 })
  .chain((tokens) => fc.boolean().map((tail) => (tail ? [...tokens.slice(0, -1), '>'] : tokens).join('.')))
const patterns = (max: number) => fc.array(pattern, { minLength: 0, maxLength: max })

describe('the subject a narrowed stream no longer captures', () => {
  it('is found exactly when a subject of the channel matches an old pattern, every required one and no new one (against enumeration)', () => {
    fc.assert(
      fc.property(channel, patterns(3), patterns(3), patterns(1), (tokens, was, now, must) => {
        const shape = shapeOf(tokens, DOMAINS)!
        const oracle = subjects(tokens).filter((s) => was.some((p) => matches(s, p)) && !now.some((p) => matches(s, p)) && must.every((p) => matches(s, p)))
        const answer = uncapturedSubject(shape, was, now, must, { steps: 100_000 })
        expect(answer.found ? true : (answer as { decided: boolean }).decided).toBe(true)
        if (answer.found) expect(oracle).toContain(answer.subject)
        else expect(oracle).toEqual([])
      }),
      { numRuns: 2000, seed: 20261207 },
    )
  })

  it('a placeholder written twice takes one token on both positions', () => {
    const shape = shapeOf(['x', { param: 'p' }, { param: 'p' }], DOMAINS)!
    // Per position, x.a.b would be a subject no new pattern matches; the channel has x.a.a and x.b.b only.
    expect(uncapturedSubject(shape, ['x.>'], ['x.a.*', 'x.*.b'], [], { steps: 1000 })).toEqual({ found: false, decided: true })
    expect(uncapturedSubject(shape, ['x.>'], ['x.a.*'], [], { steps: 1000 })).toEqual({ found: true, subject: 'x.b.b' })
  })

  it('a budget spent is undecided, never an answer; the searches of one stream share it', () => {
    const shape = shapeOf(['o', { param: 'h' }, { param: 'h' }, { param: 'q' }], DOMAINS)!
    const budget = { steps: 2 }
    expect(uncapturedSubject(shape, ['o.>'], ['o.*.*.d'], [], budget)).toEqual({ found: false, decided: false })
    expect(uncapturedSubject(shape, ['o.>'], [], [], budget)).toEqual({ found: false, decided: false })
  })

  it('costs at most its budget on a channel of many positions and patterns of many literals (each position a choice the new patterns leave open)', () => {
    // 12 hex positions, old `s.>`, new patterns each excluding one literal at one position: a search
    // without a bound would walk 17^12 branches.
    const tokens: TemplateToken[] = ['s', ...Array.from({ length: 12 }, (_, i) => ({ param: `h${i}` }))]
    const types = Object.fromEntries(tokens.filter((t) => typeof t === 'object').map((t) => [(t as { param: string }).param, DOMAINS.h!]))
    const shape = shapeOf(tokens, types)!
    const released = Array.from({ length: 64 }, (_, i) =>
      ['s', ...Array.from({ length: 12 }, (_, j) => (j === i % 12 ? '*' : '0123456789abcdef'[(i + j) % 16]))].join('.'),
    )
    for (const steps of [1_000, 10_000]) {
      const budget = { steps }
      const answer = uncapturedSubject(shape, ['s.>'], released, [], budget)
      expect(budget.steps).toBeGreaterThanOrEqual(-1)
      if (answer.found) expect(released.some((p) => matches(answer.subject, p))).toBe(false)
    }
  })
})
