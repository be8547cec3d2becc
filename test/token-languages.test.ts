/** Token-type containment and language equality, exact: checked against enumeration of small languages. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { sameTokenLanguage, tokenTypeContains } from '../src/formats/nats/containment.js'
import { enumerate, type TokenType } from '../src/runtime/nats/tokens.js'

const tokenType: fc.Arbitrary<TokenType> = fc.oneof(
  fc
    .record({
      alphabet: fc.constantFrom('lower', 'ascii', 'hex') as fc.Arbitrary<'lower' | 'ascii' | 'hex'>,
      first: fc.constantFrom('letter', 'any') as fc.Arbitrary<'letter' | 'any'>,
      prefix: fc.constantFrom('', 'a', 'ab', 'A', '1'),
      minLength: fc.integer({ min: 1, max: 2 }),
      span: fc.integer({ min: 0, max: 1 }),
    })
    .map(({ span, ...t }) => ({ kind: 'token' as const, ...t, maxLength: t.minLength + span })),
  fc
    .uniqueArray(fc.constantFrom('a', 'ab', 'abc', 'b', 'A', '1', 'a1', 'ab1'), { minLength: 1, maxLength: 4 })
    .map((values) => ({ kind: 'enum' as const, values })),
)
const listed = new Map<string, Set<string>>()
const members = (t: TokenType) => {
  const key = JSON.stringify(t)
  let set = listed.get(key)
  if (!set) listed.set(key, (set = new Set(enumerate(t, 1_000_000)!)))
  return set
}

describe('token languages', () => {
  it('tokenTypeContains(b, a) is "every token of a is a token of b"', () => {
    fc.assert(
      fc.property(tokenType, tokenType, (a, b) => {
        const inB = members(b)
        const expected = [...members(a)].every((v) => inB.has(v))
        expect([a, b, tokenTypeContains(b, a)]).toEqual([a, b, expected])
      }),
      { numRuns: 2000 },
    )
  })

  it('sameTokenLanguage(a, b) is "a and b have the same tokens"', () => {
    fc.assert(
      fc.property(tokenType, tokenType, (a, b) => {
        const [ma, mb] = [members(a), members(b)]
        const expected = ma.size === mb.size && [...ma].every((v) => mb.has(v))
        expect([a, b, sameTokenLanguage(a, b)]).toEqual([a, b, expected])
      }),
      { numRuns: 2000 },
    )
  })

  it('links: position-by-position equality (NATS_LINK_SUBJECTS) is equality of the enumerated subject sets', () => {
    // Token types of a valid document are never empty (NATS_TOKEN_TYPE_EMPTY), so the generated ones are not.
    const position = tokenType.filter((t) => members(t).size > 0)
    const language = fc.array(position, { minLength: 1, maxLength: 3 })
    const size = (lang: TokenType[]) => lang.reduce((n, t) => n * members(t).size, 1)
    const subjects = (lang: TokenType[]) =>
      new Set(lang.reduce<string[]>((out, t) => out.flatMap((prefix) => [...members(t)].map((m) => (prefix === '' ? m : `${prefix}.${m}`))), ['']))
    let compared = 0
    fc.assert(
      fc.property(language, language, (a, b) => {
        // Listed only when small (sizes first, so nothing large is built).
        if (size(a) > 20_000 || size(b) > 20_000) return
        compared++
        const [sa, sb] = [subjects(a), subjects(b)]
        const expected = sa.size === sb.size && [...sa].every((s) => sb.has(s))
        const positional = a.length === b.length && a.every((t, i) => sameTokenLanguage(t, b[i]!))
        expect([a, b, positional]).toEqual([a, b, expected])
      }),
      { numRuns: 500 },
    )
    expect(compared).toBeGreaterThan(100)
  })

  it('a token type contains itself, and two definitions of one language are the same language', () => {
    fc.assert(
      fc.property(tokenType, (t) => {
        expect(tokenTypeContains(t, t)).toBe(true)
      }),
    )
    const acct = { kind: 'token', alphabet: 'ascii', first: 'letter', minLength: 3, maxLength: 32, prefix: 'acct_' } as const
    expect(tokenTypeContains(acct, acct)).toBe(true)
    expect(
      sameTokenLanguage({ kind: 'enum', values: ['ab'] }, { kind: 'token', alphabet: 'hex', first: 'any', minLength: 2, maxLength: 2, prefix: 'ab' }),
    ).toBe(true)
    expect(
      sameTokenLanguage({ kind: 'enum', values: ['ab'] }, { kind: 'token', alphabet: 'hex', first: 'any', minLength: 2, maxLength: 3, prefix: 'ab' }),
    ).toBe(false)
  })
})
