/**
 * An edit that changes no accepted value is never called breaking (docs/diff.md: `breaking` only
 * where a witness exists). An outside pass found three such edits reported as narrowing with no
 * witness: a value dropped from an enum that the type already refused, `null` dropped from the enum
 * of a `nullable` node (which admits it beside its enum), and `exclusiveMinimum: true` with
 * `minimum: 0` rewritten as `minimum: 1` on integers.
 *
 * The property test is the oracle: random `type`/`nullable`/`enum`/bounds nodes over a small domain,
 * each node's accepted values computed by brute force with a reading of OpenAPI 3.0 written here (not
 * the engine's), and the engine's effect held to it: `none` when the sets are equal, and no
 * `narrows` or `widens` without a value that shows it.
 */
import { Ajv } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { diffSchemas } from '../src/core/diff/schema-diff.js'
import type { SchemaChange } from '../src/core/diff/schema-diff-types.js'
import { MAX_DOCUMENT_NORMAL_FORM_NODES, MAX_NORMAL_FORM_NODES, normalFormStats, sameNormalForm } from '../src/core/diff/schema/normal-form.js'
import type { SchemaDiffContext } from '../src/core/diff/schema/context.js'
import { sideOf } from './helpers/schema-diff.js'

const P = '/components/schemas/Order'
const doc = (order: unknown) => ({ openapi: '3.0.1', components: { schemas: { Order: order } } })
const run = (old: unknown, next: unknown): SchemaChange[] =>
  diffSchemas(sideOf(doc(old), P, { file: '/virtual/old.json' }), sideOf(doc(next), P, { file: '/virtual/new.json' }), { dialect: 'openapi-3.0' })
const effects = (changes: SchemaChange[]) => changes.map((c) => `${c.rule} ${c.effect}`)
/** The same, on two plain JSON Schema (draft-07 and later) nodes. */
const runJson = (old: unknown, next: unknown): SchemaChange[] => diffSchemas(sideOf(old), sideOf(next), { dialect: 'json-schema' })
/** Every change between the two nodes is `none`. */
const movesNothing = (old: unknown, next: unknown) => {
  const changes = runJson(old, next)
  expect(
    changes.every((c) => c.effect === 'none'),
    effects(changes).join(', '),
  ).toBe(true)
}

describe('edits that change no accepted value', () => {
  it.each([
    ['a value the type refused, dropped from the enum', { type: 'string', enum: ['a', 1] }, { type: 'string', enum: ['a'] }],
    ['a value the type refuses, added to the enum', { type: 'string', enum: ['a'] }, { type: 'string', enum: ['a', 1] }],
    ['null dropped from the enum of a nullable node', { type: 'string', nullable: true, enum: ['a', null] }, { type: 'string', nullable: true, enum: ['a'] }],
    ['an exclusive minimum on integers written as the next integer', { type: 'integer', minimum: 0, exclusiveMinimum: true }, { type: 'integer', minimum: 1 }],
    [
      'an exclusive maximum on integers written as the integer below',
      { type: 'integer', maximum: 10, exclusiveMaximum: true },
      { type: 'integer', maximum: 9 },
    ],
    ['a fractional minimum on integers', { type: 'integer', minimum: 0.5 }, { type: 'integer', minimum: 1 }],
    // An outside pass: no multiple of 5 lies between the two bounds.
    ['a minimum on multiples of 5 raised across none', { type: 'integer', multipleOf: 5, minimum: 1 }, { type: 'integer', multipleOf: 5, minimum: 3 }],
    ['a maximum on even integers lowered across none', { type: 'integer', multipleOf: 2, maximum: 11 }, { type: 'integer', multipleOf: 2, maximum: 10 }],
    // The same pass: keywords that another keyword of the node already implies.
    ['multipleOf 1 on numbers written as type integer', { type: 'number', multipleOf: 1 }, { type: 'integer' }],
    ['minProperties 1 beside a required member', { type: 'object', required: ['a'] }, { type: 'object', required: ['a'], minProperties: 1 }],
    ['uniqueItems on arrays of at most one item', { type: 'array', maxItems: 1 }, { type: 'array', maxItems: 1, uniqueItems: true }],
    ['an allOf member repeated', { allOf: [{ type: 'string' }] }, { allOf: [{ type: 'string' }, { type: 'string' }] }],
    ['an anyOf branch repeated', { anyOf: [{ type: 'string' }] }, { anyOf: [{ type: 'string' }, { type: 'string' }] }],
    ['a not of a type the node never admits', { type: 'string' }, { type: 'string', not: { type: 'integer' } }],
    ['an anyOf branch another branch already covers', { anyOf: [{ type: 'string' }] }, { anyOf: [{ type: 'string' }, { type: 'string', maxLength: 2 }] }],
    [
      'an allOf member another member already implies',
      { allOf: [{ type: 'string', maxLength: 2 }] },
      { allOf: [{ type: 'string', maxLength: 2 }, { type: 'string' }] },
    ],
  ])('%s: info, the same values', (_, old, next) => {
    for (const [a, b] of [
      [old, next],
      [next, old],
    ])
      expect(effects(run(a, b)).filter((e) => !e.endsWith(' none'))).toEqual([])
  })

  it.each([
    [
      'a value the type admits, dropped from the enum',
      { type: 'string', enum: ['a', 'b'] },
      { type: 'string', enum: ['a'] },
      'schema-enum-value-removed narrows',
    ],
    ['an integer dropped from the enum of integers', { type: 'integer', enum: [1, 2] }, { type: 'integer', enum: [1] }, 'schema-enum-value-removed narrows'],
    [
      'an exclusive minimum on numbers written as the next integer',
      { type: 'number', minimum: 0, exclusiveMinimum: true },
      { type: 'number', minimum: 1 },
      'schema-minimum-increased narrows',
    ],
    [
      'an exclusive minimum on integers raised by two',
      { type: 'integer', minimum: 0, exclusiveMinimum: true },
      { type: 'integer', minimum: 2 },
      'schema-minimum-increased narrows',
    ],
    [
      'a minimum on even integers raised across one',
      { type: 'integer', multipleOf: 2, minimum: 1 },
      { type: 'integer', multipleOf: 2, minimum: 3 },
      'schema-minimum-increased narrows',
    ],
    ['uniqueItems on arrays of two', { type: 'array', maxItems: 2 }, { type: 'array', maxItems: 2, uniqueItems: true }, 'schema-unique-items-added narrows'],
    ['minProperties 1 on an object of no required member', { type: 'object' }, { type: 'object', minProperties: 1 }, 'schema-min-properties-increased narrows'],
    ['multipleOf 2 on integers', { type: 'integer' }, { type: 'integer', multipleOf: 2 }, 'schema-multiple-of-narrowed narrows'],
    [
      'two anyOf branches of equal values both removed',
      { anyOf: [{ type: 'string' }, { type: 'string', minLength: 0 }, { type: 'integer' }] },
      { anyOf: [{ type: 'integer' }] },
      'schema-any-of-branch-removed narrows',
    ],
    [
      'an anyOf branch no other covers removed',
      { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      { anyOf: [{ type: 'string' }] },
      'schema-any-of-branch-removed narrows',
    ],
  ])('near: %s still narrows, with a witness', (_, old, next, expected) => {
    const changes = run(old, next)
    expect(effects(changes)).toContain(expected)
    expect(changes.find((c) => `${c.rule} ${c.effect}` === expected)!.witness).toBeDefined()
  })
})

describe('members that repeat one another', () => {
  it('two equal members added together are still a change: one repeats the other, but neither was kept', () => {
    const changes = run({ type: 'string', allOf: [] }, { type: 'string', allOf: [{ minLength: 2 }, { minLength: 2 }] })
    expect(effects(changes)).toContain('schema-all-of-member-added narrows')
  })
})

describe('the sentence of a change that moves no value', () => {
  it('says the few values were judged one by one, or that the version admits none of the type, as the case is', () => {
    // An outside pass: "accepts none here" was said of a node that admits 0, 5 and 10.
    const few = run({ type: 'integer', minimum: 0, maximum: 10, multipleOf: 5 }, { type: 'integer', minimum: 0, maximum: 12, multipleOf: 5 })
    expect(few.map((c) => [c.rule, c.effect])).toEqual([['schema-maximum-increased', 'none']])
    expect(few[0]!.message).toMatch(/admits only a few values here, judged one by one, and none of them moves/)
    expect(few[0]!.message).not.toMatch(/accepts none/)
    const none = run({ type: 'string', maximum: 10 }, { type: 'string', maximum: 12 })
    expect(none.map((c) => [c.rule, c.effect])).toEqual([['schema-maximum-increased', 'none']])
    expect(none[0]!.message).toMatch(/it constrains only numbers, and the new version accepts none here/)
  })
})

describe('the bound on judging values', () => {
  it('past 2,000 values judged in one diff, a change is kept as its keyword reads, never dropped', () => {
    // Forty properties, each dropping 100 numbers from the enum of a string (which refused them anyway).
    const property = (numbers: boolean) => ({ type: 'string', enum: ['a', ...(numbers ? Array.from({ length: 100 }, (_, i) => i) : [])] })
    const object = (numbers: boolean) => ({
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`p${i}`, property(numbers)])),
    })
    const changes = run(object(true), object(false)).filter((c) => c.rule.startsWith('schema-enum') || c.rule === 'schema-keyword-rewritten')
    expect(changes).toHaveLength(40)
    const none = changes.filter((c) => c.effect === 'none').length
    const kept = changes.filter((c) => c.effect === 'narrows').length
    // The first are judged (no value moves: none); once the bound is spent, the rest stay narrowings.
    expect(none).toBeGreaterThan(0)
    expect(kept).toBeGreaterThan(0)
    expect(none + kept).toBe(40)
  })
})

/**
 * The values the property test judges schemas on: every bound the nodes draw, a number between each
 * two of them and beyond both ends, so two nodes that agree on the domain agree on every value.
 */
const DOMAIN: unknown[] = [null, true, false, 'a', 'b', '', [], {}, -10, -2, -1.5, -1, -0.5, 0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 10]

/** A node of the small dialect the property test draws from (OpenAPI 3.0). */
interface Node {
  type?: 'string' | 'integer' | 'number' | 'boolean'
  nullable?: boolean
  enum?: unknown[]
  minimum?: number
  maximum?: number
  exclusiveMinimum?: boolean
  exclusiveMaximum?: boolean
}

/**
 * OpenAPI 3.0 as the project documents it (docs/diff-schemas.md): `nullable: true` admits `null`
 * beside whatever the rest admits; `type` (never `null` in 3.0) refuses it, and a node without a
 * `type` admits it like any value; bounds bind numbers only.
 */
function accepts(node: Node, value: unknown): boolean {
  if (node.nullable === true && value === null) return true
  const kind =
    value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value
  if (node.type !== undefined) {
    const ok = node.type === kind || (node.type === 'number' && kind === 'integer')
    if (!ok) return false
  }
  if (node.enum !== undefined && !node.enum.some((v) => JSON.stringify(v) === JSON.stringify(value))) return false
  if (typeof value === 'number') {
    if (node.minimum !== undefined && (node.exclusiveMinimum ? value <= node.minimum : value < node.minimum)) return false
    if (node.maximum !== undefined && (node.exclusiveMaximum ? value >= node.maximum : value > node.maximum)) return false
  }
  return true
}

const node: fc.Arbitrary<Node> = fc.record(
  {
    type: fc.constantFrom('string', 'integer', 'number', 'boolean'),
    nullable: fc.boolean(),
    enum: fc.uniqueArray(fc.constantFrom<unknown>(null, 'a', 'b', 0, 1, 2, 1.5, true), { minLength: 1, maxLength: 4 }),
    minimum: fc.constantFrom(-1, 0, 0.5, 1, 2),
    maximum: fc.constantFrom(1, 1.5, 2, 3),
    exclusiveMinimum: fc.boolean(),
    exclusiveMaximum: fc.boolean(),
  },
  { requiredKeys: [] },
)

describe('the engine against brute force over a small domain (property)', () => {
  it('equal sets give no effect but none; a narrowing or widening has a value that shows it', () => {
    let equalCases = 0
    fc.assert(
      fc.property(node, node, (a, b) => {
        const oldSet = DOMAIN.filter((v) => accepts(a, v)).map((v) => JSON.stringify(v))
        const newSet = DOMAIN.filter((v) => accepts(b, v)).map((v) => JSON.stringify(v))
        const lost = oldSet.filter((v) => !newSet.includes(v))
        const gained = newSet.filter((v) => !oldSet.includes(v))
        const changes = run(a, b)
        const said = new Set(changes.map((c) => c.effect))
        // Sets over the domain equal and the schemas differ only where the domain decides (the
        // domain holds every value at and between the bounds it draws): nothing but `none`.
        if (lost.length === 0 && gained.length === 0) {
          equalCases++
          expect(
            [...said].filter((e) => e !== 'none'),
            JSON.stringify([a, b, changes]),
          ).toEqual([])
        }
        if (said.has('narrows') || said.has('both')) expect(lost.length, JSON.stringify([a, b, changes])).toBeGreaterThan(0)
        if (said.has('widens') || said.has('both')) expect(gained.length, JSON.stringify([a, b, changes])).toBeGreaterThan(0)
      }),
      { numRuns: 600, seed: 20261206 },
    )
    expect(equalCases).toBeGreaterThan(10)
  })
})

// An outside pass (an ajv oracle on draft-07 payloads): `contains` with a schema that accepts
// everything still refuses the empty array, and was read as no `contains` (no finding when added or
// removed); a `minItems: 1` beside a `contains` that already refuses `[]` was called breaking.
describe('contains', () => {
  it.each([
    ['contains: {} added', { type: 'array' }, { type: 'array', contains: {} }, 'narrows', 'old'],
    ['contains: true added', { type: 'array' }, { type: 'array', contains: true }, 'narrows', 'old'],
    ['contains: true removed', { type: 'array', contains: true }, { type: 'array' }, 'widens', 'new'],
    ['contains of a type added', { type: 'array' }, { type: 'array', contains: { type: 'string' } }, 'narrows', 'old'],
  ])('%s: the empty array is its witness', (_, old, next, effect, acceptedBy) => {
    const [change] = runJson(old, next)
    expect([change!.effect, change!.witness]).toEqual([effect, { value: [], acceptedBy }])
  })

  it('minItems: 1 beside a contains that already refuses the empty array changes nothing; on a string node contains is no change', () => {
    expect(effects(runJson({ type: 'array', contains: { type: 'string' } }, { type: 'array', contains: { type: 'string' }, minItems: 1 }))).toEqual([
      'schema-min-items-increased none',
    ])
    expect(effects(runJson({ type: 'string' }, { type: 'string', contains: {} }))).toEqual(['schema-keyword-rewritten none'])
  })
})

// The same pass: the keywords that take a subschema were walked on a node that admits no value of
// their type, and a change inside read as a change of the node (`items` added beside `type: string`
// was breaking for senders); the scalar keywords were already gated.
describe('array and object keywords on a node that admits no array or object', () => {
  it.each([
    ['items', { items: { type: 'integer' } }],
    ['a tuple', { items: [{ type: 'integer' }] }],
    ['contains', { contains: { type: 'integer' } }],
    ['additionalProperties: false', { additionalProperties: false }],
    ['properties', { properties: { a: { type: 'integer' } } }],
    ['propertyNames', { propertyNames: { maxLength: 1 } }],
    ['required', { required: ['a'] }],
  ])('%s added beside type: string changes no value', (_, added) => {
    const changes = runJson({ type: 'string' }, { type: 'string', ...added })
    expect(changes.length).toBeGreaterThan(0)
    expect(
      changes.every((c) => c.effect === 'none'),
      effects(changes).join(', '),
    ).toBe(true)
  })

  it('a change inside such a keyword changes no value either; on a node that admits objects it still does', () => {
    const inside = runJson({ type: 'boolean', properties: { a: { type: 'string' } } }, { type: 'boolean', properties: { a: { type: 'integer' } } })
    expect(
      inside.every((c) => c.effect === 'none'),
      effects(inside).join(', '),
    ).toBe(true)
    const open = runJson(
      { type: ['boolean', 'object'], properties: { a: { type: 'string' } } },
      { type: ['boolean', 'object'], properties: { a: { type: 'integer' } } },
    )
    expect(effects(open)).toContain('schema-type-changed both')
  })
})

// The same pass: `false` and `{not: {}}` both accept nothing, and were read as different schemas.
describe('a schema that accepts nothing, written as false or as not of anything', () => {
  it.each([
    ['a property', { type: 'object', properties: { a: false } }, { type: 'object', properties: { a: { not: {} } } }],
    ['additionalProperties', { type: 'object', additionalProperties: false }, { type: 'object', additionalProperties: { not: {} } }],
    ['items', { type: 'array', items: false }, { type: 'array', items: { not: true, description: 'none' } }],
  ])('%s: no value moves', (_, old, next) => {
    movesNothing(old, next)
  })

  it('not of a schema that constrains is still compared; not added to a node narrows it', () => {
    expect(effects(runJson({ type: 'object', properties: { a: false } }, { type: 'object', properties: { a: { not: { type: 'string' } } } }))).toEqual([
      'schema-constraint-removed widens',
    ])
    expect(runJson({ type: 'integer' }, { type: 'integer', not: {} }).map((c) => c.effect)).toContain('narrows')
  })
})

// The same pass: a combinator whose members accept every value was called breaking when it appeared.
describe('a combinator that accepts every value', () => {
  it.each([
    ['allOf: [{}] added', { type: 'string' }, { type: 'string', allOf: [{}] }],
    ['anyOf with an accept-all branch added', { type: 'string' }, { type: 'string', anyOf: [{}, { type: 'null' }] }],
    ['oneOf: [{}] added', { type: 'string' }, { type: 'string', oneOf: [{}] }],
    ['a branch changed beside an accept-all branch', { anyOf: [{}, { type: 'string' }] }, { anyOf: [{}, { type: 'string', maxLength: 1 }] }],
  ])('%s: no value moves', (_, old, next) => {
    movesNothing(old, next)
  })

  it('oneOf with two accept-all branches accepts nothing, and an allOf with a constraining member still narrows', () => {
    expect(runJson({ type: 'string' }, { type: 'string', oneOf: [{}, {}] }).map((c) => c.effect)).toContain('narrows')
    expect(runJson({ type: 'string' }, { type: 'string', allOf: [{}, { maxLength: 1 }] }).map((c) => c.effect)).toContain('narrows')
  })
})

// The same pass: `if` without `then` or `else` constrains nothing, and a branch `if` never selects
// (under `if: false`, `then`; under `if: true`, `else`) neither; both were warnings or breaking.
describe('conditionals that constrain nothing', () => {
  it.each([
    ['an if alone added', { type: 'integer' }, { type: 'integer', if: { minimum: 3 } }],
    ['an if alone changed', { type: 'integer', if: { minimum: 3 } }, { type: 'integer', if: { minimum: 4 } }],
    ['then changed under if: false', { type: 'integer', if: false, then: { minimum: 0 } }, { type: 'integer', if: false, then: { minimum: 5 } }],
    ['else changed under if: {}', { type: 'integer', if: {}, else: { minimum: 0 } }, { type: 'integer', if: {}, else: { minimum: 5 } }],
  ])('%s: no value moves', (_, old, next) => {
    movesNothing(old, next)
  })

  it('then under an if that may hold still narrows', () => {
    const changes = runJson({ type: 'integer', if: { minimum: 1 }, then: { minimum: 0 } }, { type: 'integer', if: { minimum: 1 }, then: { minimum: 5 } })
    expect(changes.map((c) => c.effect)).toContain('narrows')
  })
})

// The same pass: draft-07 `dependencies` (and 2019-09's `dependentRequired`) were compared only as
// text, a warning even where a value plainly moved. Each name required when a member is present is a
// conditional `required`, with a witness the engine's validator checks (ajv is the oracle here).
describe('dependencies and dependentRequired', () => {
  const ajv = new Ajv2020({ strict: false })
  const draft7 = (schema: Record<string, unknown>) => {
    // ajv's 2020 validator reads the array form as dependentRequired and the schema form as dependentSchemas.
    const { dependencies, ...rest } = schema
    if (!isObjectValue(dependencies)) return rest
    const required = Object.fromEntries(Object.entries(dependencies).filter(([, v]) => Array.isArray(v)))
    const schemas = Object.fromEntries(Object.entries(dependencies).filter(([, v]) => !Array.isArray(v)))
    return { ...rest, dependentRequired: required, dependentSchemas: schemas }
  }
  const isObjectValue = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
  it.each([
    ['a dependency added', { type: 'object' }, { type: 'object', dependencies: { a: ['b'] } }, 'schema-required-added narrows'],
    ['a dependency removed', { type: 'object', dependencies: { a: ['b'] } }, { type: 'object' }, 'schema-required-removed widens'],
    [
      'a name added to a dependency',
      { type: 'object', dependencies: { a: ['b'] } },
      { type: 'object', dependencies: { a: ['b', 'c'] } },
      'schema-required-added narrows',
    ],
    ['dependentRequired added', { type: 'object' }, { type: 'object', dependentRequired: { a: ['b'] } }, 'schema-required-added narrows'],
  ])('%s: its effect, with a witness ajv agrees with', (_, old, next, expected) => {
    const changes = runJson(old, next)
    expect(effects(changes)).toEqual([expected])
    const { value, acceptedBy } = changes[0]!.witness!
    const [a, b] = [ajv.validate(draft7(old), value), ajv.validate(draft7(next), value)]
    expect([a, b]).toEqual(acceptedBy === 'old' ? [true, false] : [false, true])
  })

  it('one form changed to the other is unknown; an unchanged entry is no change', () => {
    expect(effects(runJson({ type: 'object', dependencies: { a: ['b'] } }, { type: 'object', dependencies: { a: { required: ['b'] } } }))).toEqual([
      'schema-keyword-changed unknown',
    ])
    expect(effects(runJson({ type: 'object', dependencies: { a: ['b'] } }, { type: 'object', dependencies: { a: ['b'] } }))).toEqual([])
    // The pass's re-run: b required anyway, so requiring it when a is present moves nothing.
    expect(effects(runJson({ type: 'object', required: ['a', 'b'] }, { type: 'object', required: ['a', 'b'], dependencies: { a: ['b'] } }))).toEqual([
      'schema-required-added none',
    ])
  })

  it.each([
    ['through a chain from the member (a needs c, c needs b)', { a: ['c'], c: ['b'] }, { a: ['c', 'b'], c: ['b'] }],
    ['through a chain from a required name', { r: ['b'] }, { r: ['b'], a: ['b'] }],
  ])('a name the other dependencies already require where the member is present moves nothing: %s', (_, before, after) => {
    const node = (dependencies: object) => ({ type: 'object', required: ['r'], dependencies })
    const changes = runJson(node(before), node(after))
    expect(effects(changes)).toEqual(['schema-required-added none'])
    // The judge agrees: no object of a few members over these names tells the two apart.
    const names = ['a', 'b', 'c', 'r']
    for (let mask = 0; mask < 1 << names.length; mask++) {
      const value = Object.fromEntries(names.filter((__, i) => mask & (1 << i)).map((name) => [name, 1]))
      expect(ajv.validate(draft7(node(after)), value), JSON.stringify(value)).toBe(ajv.validate(draft7(node(before)), value))
    }
  })

  it('a chain that does not reach the name while the member is present still narrows, with a witness', () => {
    // c requires b, but nothing requires c when a is present.
    const old = { type: 'object', dependencies: { c: ['b'] } }
    const next = { type: 'object', dependencies: { c: ['b'], a: ['b'] } }
    const changes = runJson(old, next)
    expect(effects(changes)).toEqual(['schema-required-added narrows'])
    const { value, acceptedBy } = changes[0]!.witness!
    expect(acceptedBy).toBe('old')
    expect([ajv.validate(draft7(old), value), ajv.validate(draft7(next), value)]).toEqual([true, false])
  })
})

// The same pass's remaining family: a bound that the node's other keywords already imply was read
// keyword by keyword (`maxProperties: 1` on a closed one-member object was breaking for senders), and
// a node that admits one value of its type (`maxLength: 0`, `items: false`) was not judged on it.
/** A payload holding a recursive tree whose nodes have a value and children (at most `max`). */
const tree = (max?: number) => ({
  type: 'object',
  required: ['tree'],
  properties: { tree: { $ref: '#/definitions/Node' } },
  definitions: {
    Node: {
      type: 'object',
      required: ['value'],
      properties: {
        value: { type: 'integer' },
        children: { type: 'array', items: { $ref: '#/definitions/Node' }, ...(max === undefined ? {} : { maxItems: max }) },
      },
    },
  },
})

describe('bounds the node already implies', () => {
  const closed = { type: 'object', properties: { a: {} }, additionalProperties: false }
  it.each([
    ['maxProperties on a closed object of one member', closed, { ...closed, maxProperties: 1 }],
    ['maxProperties on a closed object whose other member is false', { ...closed, properties: { a: {}, b: false } }, { ...closed, maxProperties: 1 }],
    [
      'maxProperties beside propertyNames that lists two names',
      { type: 'object', propertyNames: { enum: ['a', 'b'] } },
      { type: 'object', propertyNames: { enum: ['a', 'b'] }, maxProperties: 2 },
    ],
    [
      'maxProperties: 1 beside propertyNames that admit only the empty name',
      { type: 'object', propertyNames: { maxLength: 0 } },
      { type: 'object', propertyNames: { maxLength: 0 }, maxProperties: 1 },
    ],
    [
      'minProperties: 2 beside a required name and the name it depends on',
      { type: 'object', required: ['a'], dependencies: { a: ['b'] } },
      { type: 'object', required: ['a'], dependencies: { a: ['b'] }, minProperties: 2 },
    ],
    [
      'maxItems on a closed tuple',
      { type: 'array', items: [{}, {}], additionalItems: false },
      { type: 'array', items: [{}, {}], additionalItems: false, maxItems: 2 },
    ],
    [
      'maxItems on a closed prefixItems tuple',
      { type: 'array', prefixItems: [{}, {}], items: false },
      { type: 'array', prefixItems: [{}, {}], items: false, maxItems: 3 },
    ],
    [
      'maxItems on unique booleans',
      { type: 'array', items: { type: 'boolean' }, uniqueItems: true },
      { type: 'array', items: { type: 'boolean' }, uniqueItems: true, maxItems: 2 },
    ],
    [
      'maxItems on unique values of a two-value enum',
      { type: 'array', items: { enum: [1, 2] }, uniqueItems: true },
      { type: 'array', items: { enum: [1, 2] }, uniqueItems: true, maxItems: 2 },
    ],
    ['maxLength on a string const', { type: 'string', const: 'abc' }, { type: 'string', const: 'abc', maxLength: 3 }],
    ['minLength on strings of an enum', { type: 'string', enum: ['ab', 'abc'] }, { type: 'string', enum: ['ab', 'abc'], minLength: 2 }],
    ['minProperties beside two required members', { type: 'object', required: ['a', 'b'] }, { type: 'object', required: ['a', 'b'], minProperties: 2 }],
    ['propertyNames: false and maxProperties: 0', { type: 'object', propertyNames: false }, { type: 'object', maxProperties: 0 }],
    ['items: false and maxItems: 0', { type: 'array', items: false }, { type: 'array', maxItems: 0 }],
    ['maxLength: 0 and const ""', { type: 'string', maxLength: 0 }, { type: 'string', const: '' }],
    ['an enum of null beside type null', { type: 'null' }, { type: 'null', enum: [null, 1] }],
    ['a double not', { type: 'integer' }, { not: { not: { type: 'integer' } } }],
    // Branches and members whose constraints the node's type leaves no value to act on.
    ['an allOf of number bounds beside type null', { type: 'null' }, { type: 'null', allOf: [{ minimum: 0.5, maximum: 10 }] }],
    [
      'a string branch changed under type boolean',
      { type: 'boolean', anyOf: [{ type: 'integer' }, { type: 'string', minLength: 3 }] },
      { type: 'boolean', anyOf: [{ type: 'integer' }, { type: 'string', oneOf: [{}, { type: 'array' }] }] },
    ],
    [
      'an object branch changed under type string',
      { type: 'string', minLength: 3, anyOf: [{ type: ['object', 'integer'], properties: { a: { type: 'number' } } }, { type: 'boolean' }] },
      { type: 'string', minLength: 3, anyOf: [{ type: ['object', 'integer'], properties: { a: { type: 'number', multipleOf: 1 } } }, { type: 'boolean' }] },
    ],
    ['maxLength on an anchored pattern of two characters', { type: 'string', pattern: '^[a-z]{2}$' }, { type: 'string', pattern: '^[a-z]{2}$', maxLength: 2 }],
    ['minLength on a pattern that needs three characters', { type: 'string', pattern: 'a.c' }, { type: 'string', pattern: 'a.c', minLength: 3 }],
    [
      'maxLength on an alternation of bounded words',
      { type: 'string', pattern: '^(x|yy|😀😀😀)$' },
      { type: 'string', pattern: '^(x|yy|😀😀😀)$', maxLength: 3 },
    ],
    [
      'an integer branch added under type string',
      { type: 'string', anyOf: [{ type: 'string' }] },
      { type: 'string', anyOf: [{ type: 'string' }, { type: 'integer' }] },
    ],
  ])('%s: no value moves, either way', (_, old, next) => {
    movesNothing(old, next)
    movesNothing(next, old)
  })

  it('a keyword removed beside a double not widens, and nothing narrows', () => {
    const changes = runJson({ not: { not: { type: 'integer' } }, minimum: 0 }, { not: { not: { type: 'integer' } } })
    expect(changes.filter((c) => c.effect !== 'none').map((c) => `${c.rule} ${c.effect}`)).toEqual(['schema-minimum-decreased widens'])
  })

  it.each([
    [
      'maxItems below the unique booleans',
      { type: 'array', items: { type: 'boolean' }, uniqueItems: true },
      { type: 'array', items: { type: 'boolean' }, uniqueItems: true, maxItems: 1 },
    ],
    ['maxProperties below the closed object', { ...closed, properties: { a: {}, b: {} } }, { ...closed, properties: { a: {}, b: {} }, maxProperties: 1 }],
    [
      'maxItems below the closed tuple',
      { type: 'array', items: [{}, {}], additionalItems: false },
      { type: 'array', items: [{}, {}], additionalItems: false, maxItems: 1 },
    ],
    [
      'minProperties above a required name and its dependency',
      { type: 'object', required: ['a'], dependencies: { a: ['b'] } },
      { type: 'object', required: ['a'], dependencies: { a: ['b'] }, minProperties: 3 },
    ],
    ['minProperties above the required members', { type: 'object', required: ['a'] }, { type: 'object', required: ['a'], minProperties: 2 }],
    ['maxLength: 0 and a pattern that refuses ""', { type: 'string', maxLength: 0 }, { type: 'string', maxLength: 0, pattern: '^a' }],
    ['maxItems on the children of a recursive tree (its items a reference)', tree(), tree(1)],
    ['maxLength below an anchored pattern', { type: 'string', pattern: '^[a-z]{2}$' }, { type: 'string', pattern: '^[a-z]{2}$', maxLength: 1 }],
    ['maxLength on an unanchored pattern', { type: 'string', pattern: '^[a-z]' }, { type: 'string', pattern: '^[a-z]', maxLength: 5 }],
    ['a double not of a narrower schema', { type: 'integer' }, { not: { not: { type: 'integer', minimum: 0 } } }],
    [
      'a branch of a type the node admits changed beside one it does not',
      { type: ['string', 'boolean'], anyOf: [{ type: 'integer' }, { type: 'string' }] },
      { type: ['string', 'boolean'], anyOf: [{ type: 'integer' }, { type: 'string', minLength: 3 }] },
    ],
  ])('%s: still narrows, with a witness ajv agrees with', (_, old, next) => {
    // draft-07's tuple (`items` as a list) is no 2020-12 schema: judged by ajv's draft-07 validator.
    const ajv = JSON.stringify([old, next]).includes('"items":[') ? new Ajv({ strict: false }) : new Ajv2020({ strict: false })
    const changes = runJson(old, next)
    const narrowing = changes.filter((c) => c.effect === 'narrows')
    expect(narrowing.length, effects(changes).join(', ')).toBeGreaterThan(0)
    const witnessed = narrowing.find((c) => c.witness !== undefined)
    expect(witnessed, effects(changes).join(', ')).toBeDefined()
    const { value, acceptedBy } = witnessed!.witness!
    expect([acceptedBy, ajv.validate(old, value), ajv.validate(next, value)]).toEqual(['old', true, false])
  })
})

describe('a count witness', () => {
  it.each([
    ['maxItems lowered from 16 to 8', { type: 'array', items: { type: 'string' }, maxItems: 16 }, { type: 'array', items: { type: 'string' }, maxItems: 8 }, 9],
    ['maxItems raised from 2 to 5', { type: 'array', maxItems: 2 }, { type: 'array', maxItems: 5 }, 3],
    ['minItems raised from 2 to 5', { type: 'array', minItems: 2 }, { type: 'array', minItems: 5 }, 2],
    ['minLength lowered from 4 to 1', { type: 'string', minLength: 4 }, { type: 'string', minLength: 1 }, 1],
    ['maxProperties lowered from 3 to 1', { type: 'object', maxProperties: 3 }, { type: 'object', maxProperties: 1 }, 2],
  ])('%s: the smallest count that moves', (_, old, next, size) => {
    const [change] = runJson(old, next)
    const value = change!.witness!.value as string | unknown[] | Record<string, unknown>
    expect(typeof value === 'object' && !Array.isArray(value) ? Object.keys(value).length : value.length).toBe(size)
  })
})

// Documented values written as branches (`oneOf: [{const: "a", title: ...}, ...]`, a common way to
// give each value a title) were read by their keywords alone: a length or type keyword beside them
// that every listed value meets was called a narrowing with no witness.
describe('values listed by the branches of a combinator', () => {
  const documented = {
    oneOf: [
      { const: 'ab', title: 'A' },
      { const: 'cd', title: 'C' },
    ],
  }
  it.each([
    ['maxLength every documented value meets', documented, { ...documented, maxLength: 2 }],
    ['type string beside documented strings', documented, { ...documented, type: 'string' }],
    ['maxLength beside documented strings of a typed node', { ...documented, type: 'string' }, { ...documented, type: 'string', maxLength: 2 }],
    [
      'minLength beside an anyOf of enums',
      { anyOf: [{ enum: ['ab'] }, { enum: ['cd', 'ef'] }] },
      { anyOf: [{ enum: ['ab'] }, { enum: ['cd', 'ef'] }], minLength: 2 },
    ],
    [
      'maxItems at the values unique items of documented values can take',
      { type: 'array', uniqueItems: true, items: documented },
      { type: 'array', uniqueItems: true, items: documented, maxItems: 2 },
    ],
    ['a pattern every value of an allOf member meets', { allOf: [{ enum: ['ab', 'abc'] }, {}] }, { allOf: [{ enum: ['ab', 'abc'] }, {}], pattern: '^ab' }],
  ])('%s moves nothing', (_, old, next) => movesNothing(old, next))

  it.each([
    ['maxLength that one documented value exceeds', documented, { ...documented, maxLength: 1 }, 'schema-max-length-decreased'],
    // The enum's own values are the witnesses too (a string of `a`s is no value it lists).
    ['maxLength below an enum value', { enum: ['abcd', 'x'] }, { enum: ['abcd', 'x'], maxLength: 1 }, 'schema-max-length-decreased'],
    [
      'minLength above an enum value',
      { type: 'string', enum: ['abcd', 'x'] },
      { type: 'string', enum: ['abcd', 'x'], minLength: 2 },
      'schema-min-length-increased',
    ],
    [
      'maxItems below the values unique items can take',
      { type: 'array', uniqueItems: true, items: documented },
      { type: 'array', uniqueItems: true, items: documented, maxItems: 1 },
      'schema-max-items-decreased',
    ],
    // A branch whose values are unknown (a string of any length) leaves the keyword read as written.
    [
      'maxLength beside a branch of any string',
      { oneOf: [{ const: 'ab' }, { type: 'string' }] },
      { oneOf: [{ const: 'ab' }, { type: 'string' }], maxLength: 2 },
      'schema-max-length-decreased',
    ],
  ])('%s narrows, with a witness ajv agrees with', (_, old, next, rule) => {
    const changes = runJson(old, next)
    expect(effects(changes)).toEqual([`${rule} narrows`])
    const { value, acceptedBy } = changes[0]!.witness!
    expect(acceptedBy).toBe('old')
    expect([new Ajv({ strict: false }).validate(old, value), new Ajv({ strict: false }).validate(next, value)]).toEqual([true, false])
  })
})

// A disjunction rewritten: `anyOf` as a `oneOf` whose branches exclude each other (or back) is the
// same schema, and documented `const` branches exclude each other (the two readings a team's
// refactor meets).
describe('anyOf written as oneOf', () => {
  const types = [{ type: 'string' }, { type: 'integer' }]
  it.each([
    ['anyOf of two types as oneOf', { anyOf: types }, { oneOf: types }],
    ['oneOf of two types as anyOf', { oneOf: types }, { anyOf: types }],
    [
      'anyOf of documented values as oneOf',
      { anyOf: [{ const: 'a' }, { const: 'b' }] },
      {
        oneOf: [
          { const: 'a', title: 'A' },
          { const: 'b', title: 'B' },
        ],
      },
    ],
  ])('%s moves nothing', (_, old, next) => movesNothing(old, next))

  it('a branch changed in the same edit is still compared with its counterpart', () => {
    const changes = runJson(
      { anyOf: [{ type: 'string', maxLength: 5 }, { type: 'integer' }] },
      { oneOf: [{ type: 'string', maxLength: 3 }, { type: 'integer' }] },
    )
    expect(effects(changes).filter((e) => !e.endsWith(' none'))).toEqual(['schema-max-length-decreased narrows'])
    expect(changes.find((c) => c.effect === 'narrows')!.new!.pointer).toBe('/oneOf/0/maxLength')
  })

  it('branches that overlap are not the same disjunction: a value both accept is refused by the oneOf', () => {
    const overlapping = [{ type: 'string' }, { type: 'string', maxLength: 2 }]
    const changes = runJson({ anyOf: overlapping }, { oneOf: overlapping })
    expect(changes.some((c) => c.effect === 'narrows' || c.effect === 'both' || c.effect === 'unknown')).toBe(true)
  })

  it('a documented value added to a oneOf of const branches widens, with the value as witness', () => {
    const old = { oneOf: [{ const: 'a' }, { const: 'b' }] }
    const next = { oneOf: [{ const: 'a' }, { const: 'b' }, { const: 'c' }] }
    const changes = runJson(old, next)
    expect(effects(changes)).toEqual(['schema-one-of-branch-added widens'])
    expect(changes[0]!.witness).toEqual({ value: 'c', acceptedBy: 'new' })
  })
})

// The same schema written another way (normal-form.ts): an allOf "inheritance" flattened into one
// object, or introduced, and a type list written as anyOf branches, read keyword by keyword as a
// constraint removed and properties, required names and a type added, each breaking with no witness.
describe('the same schema written another way', () => {
  const base = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }
  const inherited = { definitions: { Base: base, X: { allOf: [{ $ref: '#/definitions/Base' }, { properties: { n: { type: 'integer' } }, required: ['n'] }] } } }
  const flat = { definitions: { X: { type: 'object', properties: { id: { type: 'string' }, n: { type: 'integer' } }, required: ['id', 'n'] } } }
  const at = (old: unknown, next: unknown) => diffSchemas(sideOf(old, '/definitions/X'), sideOf(next, '/definitions/X'), { dialect: 'json-schema' })
  const nothing = (changes: SchemaChange[]) => expect(effects(changes).filter((e) => !e.endsWith(' none'))).toEqual([])

  it('an allOf of a base and its own members, flattened into one object, and back', () => {
    nothing(at(inherited, flat))
    nothing(at(flat, inherited))
  })
  it('a property both members list with the same schema, flattened', () => {
    const twice = {
      definitions: { X: { allOf: [{ properties: { id: { type: 'string' } }, required: ['id'] }, { properties: { id: { type: 'string' }, n: {} } }] } },
    }
    const once = { definitions: { X: { properties: { id: { type: 'string' }, n: {} }, required: ['id'] } } }
    nothing(at(twice, once))
    nothing(at(once, twice))
  })
  it('integer beside number in a type list or its branches (every integer is a number)', () => {
    movesNothing({ anyOf: [{ type: 'integer' }, { type: 'number' }] }, { type: 'number' })
    movesNothing({ allOf: [{ type: ['integer', 'number'] }, { minimum: 0 }] }, { type: 'number', minimum: 0 })
  })
  it('properties in one member and patternProperties in another, flattened (neither reads the other)', () => {
    const split = { allOf: [{ type: 'object', properties: { id: { type: 'string' } } }, { patternProperties: { '^x-': { type: 'string' } } }] }
    const flat = { type: 'object', properties: { id: { type: 'string' } }, patternProperties: { '^x-': { type: 'string' } } }
    movesNothing(split, flat)
    movesNothing(flat, split)
    // With an additionalProperties beside one of them, which reads both, the members do not merge.
    const closed = { allOf: [{ properties: { id: {} }, additionalProperties: false }, { patternProperties: { '^x-': {} } }] }
    expect(runJson(closed, { properties: { id: {} }, patternProperties: { '^x-': {} }, additionalProperties: false }).some((c) => c.effect !== 'none')).toBe(
      true,
    )
  })
  it('two type keywords in different members admit the types both name', () => {
    const nullableBase = {
      allOf: [
        { type: ['object', 'null'], properties: { id: { type: 'string' } } },
        { type: 'object', required: ['id'] },
      ],
    }
    movesNothing(nullableBase, { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] })
    movesNothing({ allOf: [{ type: 'number' }, { type: 'integer', minimum: 0 }] }, { type: 'integer', minimum: 0 })
    // The union is not the same schema: null is admitted by one and refused by the other.
    const union = runJson(nullableBase, { type: ['object', 'null'], properties: { id: { type: 'string' } }, required: ['id'] })
    expect(union.some((c) => c.effect === 'widens')).toBe(true)
  })
  it('a bound a member tightens, flattened into the tighter bound (both hold where the tighter does)', () => {
    const base = { type: 'string', minLength: 1, maxLength: 50 }
    movesNothing({ allOf: [base, { maxLength: 10 }] }, { type: 'string', minLength: 1, maxLength: 10 })
    movesNothing({ type: 'integer', minimum: 5, maximum: 9 }, { allOf: [{ type: 'integer', minimum: 0, maximum: 9 }, { minimum: 5 }] })
    movesNothing(
      { allOf: [{ type: 'array', uniqueItems: false }, { uniqueItems: true, minItems: 2 }, { minItems: 1 }] },
      { type: 'array', uniqueItems: true, minItems: 2 },
    )
    // A property a derived type tightens (its base's maxLength, its enum narrowed): the conjunction of the two.
    const derived = {
      allOf: [
        { type: 'object', properties: { name: { type: 'string', maxLength: 50 }, s: { type: 'string', enum: ['a', 'b', 'c'] } }, required: ['s'] },
        { properties: { name: { maxLength: 10 }, s: { enum: ['c', 'a', 'x'] } } },
      ],
    }
    const flat = { type: 'object', properties: { name: { type: 'string', maxLength: 10 }, s: { type: 'string', enum: ['a', 'c'] } }, required: ['s'] }
    movesNothing(derived, flat)
    movesNothing(flat, derived)
    expect(
      runJson(derived, { ...flat, properties: { ...flat.properties, s: { type: 'string', enum: ['a', 'b', 'c'] } } }).some((c) => c.effect === 'widens'),
    ).toBe(true)
    // The looser bound is another schema: a string of 20 characters is refused by the allOf.
    const loose = runJson({ allOf: [base, { maxLength: 10 }] }, base)
    expect(loose.some((c) => c.effect === 'widens')).toBe(true)
    // A boolean exclusiveMaximum reads its own object's maximum: not merged across members.
    const draft04 = { allOf: [{ maximum: 10, exclusiveMaximum: true }, { maximum: 5 }] }
    expect(runJson(draft04, { maximum: 5, exclusiveMaximum: true }).some((c) => c.effect !== 'none')).toBe(true)
  })
  it('a schema that admits nothing written another way ({not: {}} in an allOf, against false)', () => {
    movesNothing({ allOf: [{ not: true }] }, { not: true })
    movesNothing({ allOf: [{ not: {} }] }, { not: {} })
    movesNothing({ allOf: [{ not: {} }, { type: 'string' }] }, false)
    movesNothing(false, { allOf: [{ not: {} }] })
    // Near: a not that admits something is not false.
    expect(runJson({ allOf: [{ not: { type: 'string' } }] }, false).some((c) => c.effect === 'narrows')).toBe(true)
  })
  it('a schema that constrains nothing ({}, or only annotations) is true, in a merged member too', () => {
    movesNothing({ allOf: [{ properties: { a: {} } }, { required: ['a'] }] }, { properties: { a: true }, required: ['a'] })
    movesNothing({ allOf: [{ properties: { a: { description: 'any' } } }, { required: ['a'] }] }, { properties: { a: true }, required: ['a'] })
    movesNothing({ allOf: [{ items: true }, { minItems: 1 }] }, { items: {}, minItems: 1 })
  })
  it('two members flattened into one beside a member that cannot merge (it closes itself), and back', () => {
    const defs = {
      Base: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      Closed: { properties: { id: {}, n: {}, x: {} }, additionalProperties: false },
    }
    const inherited = {
      definitions: { ...defs, X: { allOf: [{ $ref: '#/definitions/Base' }, { properties: { n: { type: 'integer' } } }, { $ref: '#/definitions/Closed' }] } },
    }
    const flattened = {
      definitions: {
        ...defs,
        X: { allOf: [{ type: 'object', properties: { id: { type: 'string' }, n: { type: 'integer' } }, required: ['id'] }, { $ref: '#/definitions/Closed' }] },
      },
    }
    const at = (old: unknown, next: unknown) => diffSchemas(sideOf(old, '/definitions/X'), sideOf(next, '/definitions/X'), { dialect: 'json-schema' })
    for (const [a, b] of [
      [inherited, flattened],
      [flattened, inherited],
    ])
      expect(effects(at(a, b)).filter((e) => !e.endsWith(' none'))).toEqual([])
    // A real change beside the flattening is still found: the flattened member requires n as well.
    const required = structuredClone(flattened)
    ;(required.definitions.X.allOf[0] as { required: string[] }).required.push('n')
    expect(at(inherited, required).some((c) => c.effect === 'narrows')).toBe(true)
  })
  it('a type list written as anyOf branches of one type each, and back', () => {
    movesNothing({ type: ['string', 'null'] }, { anyOf: [{ type: 'string' }, { type: 'null' }] })
    movesNothing({ anyOf: [{ type: 'string' }, { type: 'null' }] }, { type: ['null', 'string'] })
  })

  it.each([
    // A real change beside the rewrite: the flattened object requires one more member.
    ['flattened with a member required', { ...flat.definitions.X, required: ['id', 'n', 'x'] }, 'narrows'],
    // A closed member reads only its own properties: closing the merged object is not the same schema.
    ['flattened and closed', { ...flat.definitions.X, additionalProperties: false }, 'narrows'],
  ])('%s: still read keyword by keyword, and breaking', (_, x, effect) => {
    const changes = at(inherited, { definitions: { X: x } })
    expect(changes.some((c) => c.effect === effect)).toBe(true)
  })

  it('an allOf whose member closes itself is not merged (its additionalProperties reads its own properties alone)', () => {
    const closedMember = { definitions: { X: { allOf: [{ properties: { id: { type: 'string' } }, additionalProperties: false }, { properties: { n: {} } }] } } }
    const merged = { definitions: { X: { properties: { id: { type: 'string' }, n: {} }, additionalProperties: false } } }
    // The two differ: {id, n} is refused by the allOf (n is additional to the first member), accepted by the merged object.
    const changes = at(closedMember, merged)
    expect(changes.some((c) => c.effect !== 'none')).toBe(true)
    const ajv = new Ajv({ strict: false })
    expect([
      ajv.validate({ ...closedMember, $ref: '#/definitions/X' }, { id: 'a', n: 1 }),
      ajv.validate({ ...merged, $ref: '#/definitions/X' }, { id: 'a', n: 1 }),
    ]).toEqual([false, true])
  })
})

describe('normal forms against ajv (property)', () => {
  // Members over two property names and a few keywords of each kind, merged naively into one object
  // (properties and required united, every other keyword of the last member that has it): where the
  // engine says such a rewrite moves nothing, ajv must find no value of the domain that tells the
  // allOf from the merged object. A naive merge is often wrong (a closed member, two minimums, a
  // type and a nullable apart), which is what the rewrite must never hide.
  const leaf = fc.constantFrom<object>({}, { type: 'string' }, { type: 'integer' }, { type: 'string', maxLength: 1 }, { minimum: 1 })
  const properties = fc.dictionary(fc.constantFrom('a', 'b'), leaf, { minKeys: 1, maxKeys: 2 })
  const closing = fc.constantFrom<unknown>(false, { type: 'integer' })
  // One or two keywords a member (most members of a real allOf are small), so that several members
  // often merge and the keywords that read one another meet across members.
  const member = fc.oneof(
    fc.record({ properties }),
    fc.record({ properties, additionalProperties: closing }),
    fc.record({ additionalProperties: closing }),
    fc.record({ required: fc.subarray(['a', 'b'], { minLength: 1 }) }),
    fc.record({ type: fc.constantFrom<unknown>('object', ['object', 'null'], 'string') }),
    fc.record({ minProperties: fc.constantFrom(1, 2) }),
    fc.record({ maxLength: fc.constantFrom(1, 2) }),
  ) as fc.Arbitrary<Record<string, unknown>>
  const naive = (members: Array<Record<string, unknown>>) => {
    const out: Record<string, unknown> = {}
    for (const m of members)
      for (const [k, v] of Object.entries(m)) {
        if (k === 'properties') out.properties = { ...(out.properties as object), ...(v as object) }
        else if (k === 'required') out.required = [...new Set([...((out.required as string[]) ?? []), ...(v as string[])])]
        else out[k] = v
      }
    return out
  }
  const values: unknown[] = [
    null,
    'x',
    'xyz',
    1,
    2.5,
    true,
    [],
    {},
    { a: 'x' },
    { a: 1 },
    { b: 'x' },
    { a: 'x', b: 1 },
    { a: 'xy', b: 'x' },
    { c: 1 },
    { a: 2, c: 'x' },
  ]
  it('no rewrite the engine calls the same schema admits a value the other refuses', () => {
    const ajv = new Ajv({ strict: false })
    let same = 0
    fc.assert(
      fc.property(fc.array(member, { minLength: 1, maxLength: 3 }), fc.boolean(), (members, flatFirst) => {
        const allOf = { allOf: members }
        const flat = naive(members)
        const [old, next] = flatFirst ? [flat, allOf] : [allOf, flat]
        const changes = runJson(old, next)
        if (changes.some((c) => c.effect !== 'none')) return
        same++
        const judge = [ajv.compile(old), ajv.compile(next)]
        for (const value of values) expect(judge[0]!(value), JSON.stringify({ old, next, value })).toBe(judge[1]!(value))
      }),
      { numRuns: 400 },
    )
    expect(same).toBeGreaterThan(20)
  })
})

describe('normal forms: keywords that read a sibling in OpenAPI 3.0', () => {
  it.each([
    // A member's boolean exclusiveMinimum without its minimum bounds nothing; merged beside the other member's minimum it excludes 0.
    [
      'exclusiveMinimum: true apart from its minimum',
      { allOf: [{ exclusiveMinimum: true }, { type: 'number', minimum: 0 }] },
      { type: 'number', minimum: 0, exclusiveMinimum: true },
    ],
    // format int32 apart from type integer checks no range; merged it does.
    ['format int32 apart from its type', { allOf: [{ format: 'int32' }, { type: 'integer' }] }, { type: 'integer', format: 'int32' }],
    // nullable apart from its type lets null through nothing; merged it admits null.
    ['nullable apart from its type', { allOf: [{ nullable: true }, { type: 'string' }] }, { type: 'string', nullable: true }],
    // nullable adds null to its own schema's enum only.
    ['nullable apart from an enum', { allOf: [{ type: 'string', nullable: true }, { enum: ['a'] }] }, { type: 'string', nullable: true, enum: ['a'] }],
    // A readOnly property is required in responses only: which required list reads it depends on the member.
    [
      'required apart from a readOnly property',
      { allOf: [{ type: 'object', properties: { id: { type: 'string', readOnly: true } } }, { required: ['id'] }] },
      { type: 'object', properties: { id: { type: 'string', readOnly: true } }, required: ['id'] },
    ],
  ])('%s is not merged: the edit still moves values', (_, old, next) => {
    expect(run(old, next).some((c) => c.effect !== 'none')).toBe(true)
  })
})

describe('normal forms: bounded work', () => {
  const at = (value: unknown) => ({ file: '/virtual/x.json', document: value, pointer: '', value })
  const context = (walked: number) => ({ normalFormNodes: walked, dialect: 'json-schema', refSiblings: 'apply' }) as unknown as SchemaDiffContext
  const typeList = at({ type: ['null', 'string'] })
  const branches = at({ anyOf: [{ type: 'string' }, { type: 'null' }] })

  it('a diff past its budget of normal-form nodes compares keyword by keyword: no more walks', () => {
    expect(sameNormalForm(context(0), typeList, branches)).toBe(true)
    const before = normalFormStats.walked
    expect(sameNormalForm(context(MAX_NORMAL_FORM_NODES), typeList, branches)).toBe(false)
    expect(normalFormStats.walked).toBe(before)
  })

  it("all of one document's calls together: past MAX_DOCUMENT_NORMAL_FORM_NODES, no more walks; each call adds what it walked", () => {
    const old = { type: ['null', 'string'] }
    const next = { anyOf: [{ type: 'string' }, { type: 'null' }] }
    const tally = { pairs: 0, normalFormNodes: 0 }
    expect(diffSchemas(sideOf(old), sideOf(next), { dialect: 'json-schema', tally }).every((c) => c.effect === 'none')).toBe(true)
    expect(tally.normalFormNodes).toBeGreaterThan(0)
    const spent = { pairs: 0, normalFormNodes: MAX_DOCUMENT_NORMAL_FORM_NODES }
    const before = normalFormStats.walked
    expect(diffSchemas(sideOf(old), sideOf(next), { dialect: 'json-schema', tally: spent }).some((c) => c.effect !== 'none')).toBe(true)
    expect(normalFormStats.walked).toBe(before)
  })

  it('a pair that differs in its types at every node is compared keyword by keyword, each walk bounded', () => {
    // 60 properties each a tree of 120 nodes, every node typed in the old version and untyped in the
    // new: each pair tries normal forms of its subtree (at most 2,000 nodes a version).
    const tree = (typed: boolean, depth: number): Record<string, unknown> =>
      depth === 0
        ? typed
          ? { type: 'string' }
          : {}
        : { ...(typed ? { type: 'object' } : {}), properties: { a: tree(typed, depth - 1), b: { maxLength: depth } } }
    const root = (typed: boolean) => ({
      ...(typed ? { type: 'object' } : {}),
      properties: Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`p${i}`, tree(typed, 60)])),
    })
    const before = normalFormStats.walked
    const changes = runJson(root(true), root(false))
    expect(changes.filter((c) => c.rule === 'schema-type-widened').length).toBeGreaterThan(100)
    expect(normalFormStats.walked - before).toBeLessThanOrEqual(MAX_NORMAL_FORM_NODES + 4_000)
  })
})
