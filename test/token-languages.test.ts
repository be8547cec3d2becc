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
const members = (t: TokenType) => new Set(enumerate(t, 1_000_000)!)

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
