/**
 * The witness validator (src/core/diff/schema/accepts.ts) and the proof that lets a candidate be
 * checked at its node (witness-path.ts) do bounded work whatever the schema's lists hold: every
 * member, item, name or value a validation visits spends its budget, and once the budget is spent
 * the members left are not visited (they could answer nothing). Counted here by the reads of a
 * schema's list (a proxy that refuses to be read past a bound), not by time: a hostile document's
 * `allOf` of a hundred thousand members was visited whole by each of a diff's thousands of
 * validations (31 s for one schema pair before).
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { acceptsValue, validationStats } from '../src/core/diff/schema/accepts.js'
import { MAX_DOCUMENT_CHANGES, MAX_DOCUMENT_VALIDATION_STEPS, type SchemaAt, type SchemaDiffContext } from '../src/core/diff/schema/context.js'
import { diffSchemas } from '../src/core/diff/schema-diff.js'
import { nodeBindsRoot } from '../src/core/diff/schema/witness-path.js'
import { sideOf } from './helpers/schema-diff.js'

const context = () => ({ dialect: 'json-schema', refSiblings: 'apply', validationSteps: 0 }) as unknown as SchemaDiffContext
const at = (value: unknown): SchemaAt => ({ file: '/virtual/x.json', document: value, pointer: '', value })

/** `items`, read through a proxy that counts the reads of its entries and throws past `limit` of them. */
function counted<T>(items: T[], limit: number): { list: T[]; reads: () => number } {
  let reads = 0
  const list = new Proxy(items, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key) && ++reads > limit) throw new Error(`read past ${limit} entries`)
      return Reflect.get(target, key, receiver) as unknown
    },
  })
  return { list, reads: () => reads }
}

const MANY = 100_000
/** What one validation may visit: its budget (5,000 steps), with room for the steps that spend none. */
const ONE_VALIDATION = 6_000

describe('the witness validator visits at most its budget of any list', () => {
  it('allOf, anyOf and oneOf of a hundred thousand members', () => {
    // Every member accepts: the allOf and the oneOf are unsure past the budget, the anyOf sure at its first branch.
    for (const [key, verdict] of [
      ['allOf', undefined],
      ['anyOf', true],
      ['oneOf', undefined],
    ] as const) {
      const { list, reads } = counted(
        Array.from({ length: MANY }, () => ({ type: 'string' })),
        ONE_VALIDATION,
      )
      expect(acceptsValue(context(), 'old', at({ [key]: list }), 'x'), key).toBe(verdict)
      expect(reads()).toBeLessThanOrEqual(ONE_VALIDATION)
    }
  })
  it('answers what the members it visited prove: a refusing allOf member, an accepting anyOf branch', () => {
    const refusing = counted([false, ...Array.from({ length: MANY }, () => ({}))], ONE_VALIDATION)
    expect(acceptsValue(context(), 'old', at({ allOf: refusing.list }), 'x')).toBe(false)
    const accepting = counted([true, ...Array.from({ length: MANY }, () => ({}))], ONE_VALIDATION)
    expect(acceptsValue(context(), 'old', at({ anyOf: accepting.list }), 'x')).toBe(true)
    // Two accepted oneOf branches are a sure refusal, however many are left unread.
    const twice = counted([true, true, ...Array.from({ length: MANY }, () => ({}))], ONE_VALIDATION)
    expect(acceptsValue(context(), 'old', at({ oneOf: twice.list }), 'x')).toBeUndefined()
  })
  it('an enum, a type list and a required list of a hundred thousand entries', () => {
    const values = counted(
      Array.from({ length: MANY }, (_, i) => `v${i}`),
      ONE_VALIDATION,
    )
    expect(acceptsValue(context(), 'old', at({ enum: values.list }), 'x')).toBeUndefined()
    const types = counted(
      Array.from({ length: MANY }, () => 'integer'),
      ONE_VALIDATION,
    )
    expect(acceptsValue(context(), 'old', at({ type: types.list }), 'x')).toBeUndefined()
    const names = counted(
      Array.from({ length: MANY }, (_, i) => `p${i}`),
      ONE_VALIDATION,
    )
    const all = Object.fromEntries(Array.from({ length: MANY }, (_, i) => [`p${i}`, 1]))
    expect(acceptsValue(context(), 'old', at({ required: names.list }), all)).toBeUndefined()
  })
  it('a value of a hundred thousand members against properties, patternProperties, additionalProperties and propertyNames', () => {
    const value = Object.fromEntries(Array.from({ length: MANY }, (_, i) => [`p${i}`, 1]))
    for (const schema of [
      { properties: { p0: { type: 'integer' } } },
      { patternProperties: { '^p': { type: 'integer' } } },
      { additionalProperties: { type: 'integer' } },
      { propertyNames: { minLength: 1 } },
      { minProperties: 1 },
    ])
      expect(acceptsValue(context(), 'old', at(schema), value), JSON.stringify(schema)).toBeUndefined()
    // A refusal found before the budget is spent is still sure.
    expect(acceptsValue(context(), 'old', at({ additionalProperties: false }), value)).toBe(false)
  })
})

describe('the proof that a node binds its root', () => {
  it('gives up on an allOf past its cap before it makes any member', () => {
    const { list, reads } = counted(
      Array.from({ length: MANY }, () => ({ properties: { a: {} } })),
      0,
    )
    const root = at({ allOf: list })
    expect(nodeBindsRoot(context(), 'old', root, [{ property: 'a' }], { ...root, pointer: '/allOf/0/properties/a', value: {} })).toBe(false)
    expect(reads()).toBe(0)
  })
})

describe("a document's validations, all its calls together", () => {
  it('stop at MAX_DOCUMENT_VALIDATION_STEPS: later changes are kept, without a witness', () => {
    // One hostile pair takes about 7 million steps (its 200 witness searches, none proven); five
    // payloads of it in one document took 36 million, and a document of a thousand, minutes.
    const k = 1_000
    const members = Array.from({ length: k }, (_, i) => ({ properties: { [`p${i}`]: { type: 'string' } }, required: [`p${i}`] }))
    const flat = { properties: Object.fromEntries(members.map((_, i) => [`p${i}`, { type: 'string' }])), required: members.map((_, i) => `p${i}`) }
    const tally = { pairs: 0 }
    const before = validationStats.steps
    const counts: number[] = []
    for (let call = 0; call < 5; call++) counts.push(diffSchemas(sideOf({ allOf: members }), sideOf(flat), { dialect: 'json-schema', tally }).length)
    const spent = validationStats.steps - before
    // At most the bound and what one witness search (40 candidates, two validations each) adds past it.
    expect(spent).toBeLessThanOrEqual(MAX_DOCUMENT_VALIDATION_STEPS + 40 * 2 * 5_000)
    expect((tally as { validationSteps?: number }).validationSteps).toBe(spent)
    // Every call still reports its changes (the same number, each capped the same way).
    expect(new Set(counts).size).toBe(1)
    expect(counts[0]).toBeGreaterThan(0)
  })
})

describe('patterns the validator runs', () => {
  afterEach(() => vi.restoreAllMocks())
  // `^(a|a)*$` on `aaaa…!` doubles JavaScript's matching time with each character (68 s at 30):
  // such a pattern runs where the generated validators run it (pattern-safety.ts), never as a
  // RegExp, which nothing can stop once it runs. Checked by refusing any RegExp match of it.
  const catastrophic = ['^(a|a)*$', '^(a+)+$']
  const refuseBacktracking = () => {
    const test = RegExp.prototype.test
    const exec = RegExp.prototype.exec
    const guard = (regex: RegExp) => {
      if (catastrophic.includes(regex.source)) throw new Error(`${regex.source} ran on a backtracking matcher`)
    }
    vi.spyOn(RegExp.prototype, 'test').mockImplementation(function (this: RegExp, text: string) {
      guard(this)
      return test.call(this, text)
    })
    vi.spyOn(RegExp.prototype, 'exec').mockImplementation(function (this: RegExp, text: string) {
      guard(this)
      return exec.call(this, text)
    })
  }
  const v = `${'a'.repeat(30)}!`
  it.each([
    ['a listed value', { type: 'string', pattern: '^(a|a)*$', enum: [v, 'b'] }, { type: 'string', pattern: '^(a|a)*$', enum: [v, 'b'], maxLength: 10 }],
    [
      "a witness's member",
      { type: 'object', required: ['s'], properties: { s: { type: 'string', pattern: '^(a|a)*$', const: v } } },
      { type: 'object', required: ['s', 't'], properties: { s: { type: 'string', pattern: '^(a|a)*$', const: v } } },
    ],
    [
      'a listed object’s names',
      { type: 'object', propertyNames: { pattern: '^(a+)+$' }, enum: [{ [v]: 1 }, {}] },
      { type: 'object', propertyNames: { pattern: '^(a+)+$' }, enum: [{ [v]: 1 }, {}], maxProperties: 0 },
    ],
  ])('%s against a pattern a backtracking matcher takes exponential time on', (_, old, next) => {
    refuseBacktracking()
    for (const dialect of ['json-schema', 'openapi-3.0'] as const) expect(diffSchemas(sideOf(old), sideOf(next), { dialect }).length).toBeGreaterThan(0)
  })
  it('a pattern proven cheap still runs as a RegExp and decides: a witness through it', () => {
    const changes = diffSchemas(sideOf({ type: 'string', pattern: '^[a-z]+$' }), sideOf({ type: 'string', pattern: '^[a-z]+$', maxLength: 2 }), {
      dialect: 'json-schema',
    })
    expect(changes.find((c) => c.effect === 'narrows')?.witness).toBeDefined()
  })
})

describe('a long chain of references alone', () => {
  it('is followed once a node, however many pairs pass through it, and across the calls of one document', () => {
    // $defs L0 -> L1 -> ... -> L{n-1} (references alone), the last link a string whose maxLength changes.
    const n = 2_000
    const chain = (maxLength: number) => ({
      $ref: '#/$defs/L0',
      $defs: Object.fromEntries(Array.from({ length: n }, (_, i) => [`L${i}`, i < n - 1 ? { $ref: `#/$defs/L${i + 1}` } : { type: 'string', maxLength }])),
    })
    let resolutions = 0
    const counted = (side: ReturnType<typeof sideOf>) => ({
      ...side,
      resolve: (ref: string, from: { file: string; pointer: string }) => {
        resolutions++
        return side.resolve(ref, from)
      },
    })
    const [old, next] = [chain(10), chain(5)]
    const tally = { pairs: 0 }
    const first = diffSchemas(counted(sideOf(old)), counted(sideOf(next)), { dialect: 'json-schema', tally })
    expect(first.some((c) => c.effect === 'narrows')).toBe(true)
    // Each link resolved a few times a side (its pair, and once more for the chain's verdict), not 64 hops from every link.
    expect(resolutions).toBeLessThan(8 * n)
    const afterFirst = resolutions
    diffSchemas(counted(sideOf(old)), counted(sideOf(next)), { dialect: 'json-schema', tally })
    expect(resolutions - afterFirst).toBeLessThan(8 * n)
  })
})

describe("a document's changes, all its calls together", () => {
  const wide = (type: string) => ({ type: 'object', properties: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`p${i}`, { type }])) })
  it('each call adds the changes it reported; past MAX_DOCUMENT_CHANGES a pair written differently is one schema-not-compared change', () => {
    const tally: { pairs: number; changes?: number } = { pairs: 0 }
    const first = diffSchemas(sideOf(wide('string')), sideOf(wide('integer')), { dialect: 'json-schema', tally })
    expect(first.length).toBeGreaterThan(250)
    expect(tally.changes).toBe(first.length)
    const spent = { pairs: 0, changes: MAX_DOCUMENT_CHANGES }
    const past = diffSchemas(sideOf(wide('string')), sideOf(wide('integer')), { dialect: 'json-schema', tally: spent })
    expect(past.map((c) => `${c.rule} ${c.effect}`)).toEqual(['schema-not-compared unknown'])
    expect(past[0]!.message).toContain('50,000 changes')
    // A pair written the same has none, past the bound too.
    expect(diffSchemas(sideOf(wide('string')), sideOf(wide('string')), { dialect: 'json-schema', tally: spent })).toEqual([])
  })
})
