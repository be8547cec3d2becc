/**
 * OpenAPI 3.0 discriminators whose children are found only through `allOf` (a parent with a
 * `discriminator` and no `mapping`, each child `allOf: [{$ref: parent}, ...]`): a child added is a
 * value that now selects a schema (widens), one removed narrows, a child changed is compared, and
 * an explicit `mapping` entry takes the name first. Locations are the child's `allOf` member.
 */
import { describe, expect, it } from 'vitest'
import { diffSchemas } from '../src/core/diff/schema-diff.js'
import { sideOf } from './helpers/schema-diff.js'

const PET = '/components/schemas/Pet'
const pet = (mapping?: Record<string, string>) => ({
  type: 'object',
  required: ['kind'],
  properties: { kind: { type: 'string' }, name: { type: 'string' } },
  discriminator: { propertyName: 'kind', ...(mapping ? { mapping } : {}) },
})
const extending = (parent: string, properties: Record<string, unknown>) => ({
  allOf: [{ $ref: `#/components/schemas/${parent}` }, { type: 'object', properties }],
})
const cat = extending('Pet', { lives: { type: 'integer', maximum: 9 } })
const dog = extending('Pet', { bark: { type: 'string' } })
const puppy = extending('Dog', { age: { type: 'integer' } })

function doc(schemas: Record<string, unknown>): unknown {
  return { openapi: '3.0.1', components: { schemas } }
}
function diff(old: Record<string, unknown>, next: Record<string, unknown>) {
  return diffSchemas(sideOf(doc(old), PET, { file: '/virtual/old.json' }), sideOf(doc(next), PET, { file: '/virtual/new.json' }), { dialect: 'openapi-3.0' })
}

describe('discriminator children found through allOf (OpenAPI 3.0)', () => {
  it('a child added widens, located at its allOf member; an unrelated schema added does not', () => {
    const changes = diff({ Pet: pet(), Cat: cat }, { Pet: pet(), Cat: cat, Dog: dog })
    expect(changes).toEqual([
      expect.objectContaining({
        rule: 'schema-discriminator-mapping-added',
        effect: 'widens',
        old: { file: '/virtual/old.json', pointer: `${PET}/discriminator` },
        new: { file: '/virtual/new.json', pointer: '/components/schemas/Dog/allOf/0' },
      }),
    ])
    expect(changes[0]!.message).toMatch(/"Dog" now selects "#\/components\/schemas\/Dog" \(a schema extending it by allOf\)/)
    const near = diff({ Pet: pet(), Cat: cat }, { Pet: pet(), Cat: cat, Dog: { type: 'object', properties: { bark: { type: 'string' } } } })
    expect(near).toEqual([])
  })

  it('a grandchild removed narrows (descendants are selected too)', () => {
    const changes = diff({ Pet: pet(), Dog: dog, Puppy: puppy }, { Pet: pet(), Dog: dog })
    expect(changes).toEqual([
      expect.objectContaining({
        rule: 'schema-discriminator-mapping-removed',
        effect: 'narrows',
        old: { file: '/virtual/old.json', pointer: '/components/schemas/Puppy/allOf/0' },
        new: { file: '/virtual/new.json', pointer: `${PET}/discriminator` },
      }),
    ])
  })

  it("a child's own change is compared by direction", () => {
    const narrower = extending('Pet', { lives: { type: 'integer', maximum: 7 } })
    const changes = diff({ Pet: pet(), Cat: cat }, { Pet: pet(), Cat: narrower })
    expect(changes).toContainEqual(
      expect.objectContaining({
        rule: 'schema-maximum-decreased',
        effect: 'narrows',
        new: { file: '/virtual/new.json', pointer: '/components/schemas/Cat/allOf/1/properties/lives/maximum' },
      }),
    )
    expect(changes.every((c) => c.effect === 'narrows')).toBe(true)
  })

  it('a mapping entry that names a child takes its name: moving the child into the mapping under another value moves both ways', () => {
    const changes = diff({ Pet: pet(), Cat: cat }, { Pet: pet({ cat: '#/components/schemas/Cat' }), Cat: cat })
    expect(changes.map((c) => [c.rule, c.effect]).sort()).toEqual([
      ['schema-discriminator-mapping-added', 'widens'],
      ['schema-discriminator-mapping-removed', 'narrows'],
    ])
    const same = diff({ Pet: pet(), Cat: cat }, { Pet: pet({ Cat: '#/components/schemas/Cat' }), Cat: cat })
    expect(same.filter((c) => c.effect !== 'none')).toEqual([])
  })

  it('JSON Schema ignores the discriminator: no implicit children', () => {
    const changes = diffSchemas(sideOf(doc({ Pet: pet(), Cat: cat }), PET), sideOf(doc({ Pet: pet(), Cat: cat, Dog: dog }), PET))
    expect(changes).toEqual([])
  })

  it('a value the discriminator property cannot hold (a child’s name where it is an integer) moves nothing, gone or added; a value it can hold does', () => {
    const typed = (type: string, mapping?: Record<string, string>) => ({
      ...pet(mapping),
      properties: { kind: { type }, name: { type: 'string' } },
    })
    const square = extending('Pet', { side: { type: 'number' } })
    // "1" now maps to Cat: the implicit "Cat" leaves, which an integer `kind` never held.
    const changes = diff({ Pet: typed('integer'), Cat: square }, { Pet: typed('integer', { 1: '#/components/schemas/Cat' }), Cat: square })
    expect(changes.map((c) => [c.rule, c.effect])).toEqual([['schema-discriminator-mapping-added', 'widens']])
    // With a string `kind` the implicit "Cat" was a value a payload held: its leaving narrows.
    const strings = diff({ Pet: typed('string'), Cat: square }, { Pet: typed('string', { 1: '#/components/schemas/Cat' }), Cat: square })
    expect(strings.map((c) => [c.rule, c.effect]).sort()).toEqual([
      ['schema-discriminator-mapping-added', 'widens'],
      ['schema-discriminator-mapping-removed', 'narrows'],
    ])
  })
})

describe('a discriminated oneOf selects its members by their schema names (OpenAPI 3.0)', () => {
  const member = (name: string) => ({ $ref: `#/components/schemas/${name}` })
  const shape = { type: 'object', required: ['petType', 'name'], properties: { petType: { type: 'string' }, name: { type: 'string' } } }
  const pets = (mapping?: Record<string, string>) => ({
    Pet: { oneOf: [member('Cat'), member('Dog')], discriminator: { propertyName: 'petType', ...(mapping ? { mapping } : {}) } },
    Cat: shape,
    Dog: shape,
  })
  const names = (changes: ReturnType<typeof diff>) => changes.map((c) => [c.rule, c.effect, c.old?.pointer, c.new?.pointer])

  it('a mapping that replaces a member’s name moves both ways: "Dog" selects nothing now, "dog" selects Dog (the outside pass’s HIGH finding)', () => {
    expect(names(diff(pets(), pets({ dog: '#/components/schemas/Dog' })))).toEqual([
      ['schema-discriminator-mapping-removed', 'narrows', `${PET}/oneOf/1`, `${PET}/discriminator/mapping`],
      ['schema-discriminator-mapping-added', 'widens', `${PET}/discriminator`, `${PET}/discriminator/mapping/dog`],
    ])
  })

  it('a mapping equal to the names it replaces is no change (the outside pass’s MEDIUM finding)', () => {
    expect(diff(pets(), pets({ Cat: '#/components/schemas/Cat', Dog: '#/components/schemas/Dog' })).filter((c) => c.effect !== 'none')).toEqual([])
  })

  it('a member added or removed is a value that now selects, or no longer selects, its schema', () => {
    const three = pets()
    three.Pet = { ...three.Pet, oneOf: [member('Cat'), member('Dog'), member('Bird')] }
    const withBird = { ...three, Bird: shape }
    expect(names(diff(pets(), withBird)).filter(([rule]) => String(rule).startsWith('schema-discriminator'))).toEqual([
      ['schema-discriminator-mapping-added', 'widens', `${PET}/discriminator`, `${PET}/oneOf/2`],
    ])
  })
})
