/**
 * Hostile schemas: `$ref` cycles, 10,000-deep and 10,000-wide schemas, references to nothing, and
 * values that are no schema. The diff never throws, ends, and says `unknown` where it could not compare.
 */
import { describe, expect, it } from 'vitest'
import { diffSchemas } from '../src/core/diff/schema-diff.js'
import type { SchemaSide } from '../src/core/diff/schema-diff-types.js'
import { sideOf } from './helpers/schema-diff.js'

function deep(depth: number, leaf: unknown): unknown {
  let node: unknown = leaf
  for (let i = 0; i < depth; i++) node = { type: 'object', properties: { n: node } }
  return node
}

function deepArrays(depth: number, leaf: unknown): unknown {
  let node: unknown = leaf
  for (let i = 0; i < depth; i++) node = { items: node }
  return node
}

describe('schema diff on hostile input', () => {
  it('$ref cycles end, and a change inside the cycle is found once', () => {
    const doc = (max: number) => ({
      $defs: {
        A: { type: 'object', properties: { b: { $ref: '#/$defs/B' }, v: { maxLength: max } } },
        B: { type: 'object', properties: { a: { $ref: '#/$defs/A' }, self: { $ref: '#/$defs/B' } } },
        Loop: { $ref: '#/$defs/Loop' },
      },
      $ref: '#/$defs/A',
    })
    const changes = diffSchemas(sideOf(doc(5)), sideOf(doc(3)))
    expect(changes.map((c) => [c.rule, c.effect, c.new?.pointer])).toEqual([['schema-max-length-decreased', 'narrows', '/$defs/A/properties/v/maxLength']])
    const loop = { $defs: { L: { $ref: '#/$defs/L' } }, $ref: '#/$defs/L' }
    expect(diffSchemas(sideOf(loop), sideOf(loop))).toEqual([])
  })

  it('a renamed recursive schema compares equal through the rename (the back edge is completed)', () => {
    const old = { $defs: { Node: { type: 'object', properties: { next: { $ref: '#/$defs/Node' } } } }, $ref: '#/$defs/Node' }
    const renamed = { $defs: { Item: { type: 'object', properties: { next: { $ref: '#/$defs/Item' } } } }, $ref: '#/$defs/Item' }
    const changes = diffSchemas(sideOf(old), sideOf(renamed))
    expect(changes.length).toBeGreaterThan(0)
    expect(changes.every((c) => c.rule === 'schema-ref-changed' && c.effect === 'none')).toBe(true)
    const narrower = { $defs: { Item: { type: 'object', properties: { next: { $ref: '#/$defs/Item' } }, required: ['next'] } }, $ref: '#/$defs/Item' }
    const found = diffSchemas(sideOf(old), sideOf(narrower))
    // The rename's summary takes the effect of the recursive comparison, completed when the cycle closes.
    expect(found.filter((c) => c.rule === 'schema-ref-changed').every((c) => c.effect === 'narrows')).toBe(true)
    expect(found.some((c) => c.rule === 'schema-required-added')).toBe(true)
  })

  it('10,000-deep schemas: no throw, bounded, the depth cap reported as unknown', () => {
    for (const make of [deep, deepArrays]) {
      const old = make(10_000, { type: 'string' })
      const next = make(10_000, { type: 'integer' })
      const changes = diffSchemas(sideOf(old), sideOf(next))
      expect(changes.length).toBeGreaterThan(0)
      expect(changes.every((c) => c.effect === 'unknown' && c.rule === 'schema-not-compared')).toBe(true)
      expect(diffSchemas(sideOf(old), sideOf(make(10_000, { type: 'string' })))).toEqual([])
    }
  })

  it('a chain of 300 references is compared to its end, without the depth cap', () => {
    const chain = (minimum: number) => {
      const schemas: Record<string, unknown> = {}
      for (let i = 0; i < 300; i++)
        schemas[`S${i}`] = {
          type: 'object',
          properties: { n: { type: 'integer', minimum: i === 299 ? minimum : 0 }, next: { $ref: `#/$defs/S${(i + 1) % 300}` } },
        }
      return { $defs: schemas, $ref: '#/$defs/S0' }
    }
    expect(diffSchemas(sideOf(chain(0)), sideOf(chain(0)))).toEqual([])
    const changes = diffSchemas(sideOf(chain(0)), sideOf(chain(1)))
    expect(changes.map((c) => [c.rule, c.effect, c.new?.pointer])).toEqual([['schema-minimum-increased', 'narrows', '/$defs/S299/properties/n/minimum']])
    // A second call on other documents of the same text finds the same (pairs proven equal are remembered per pair of documents).
    expect(diffSchemas(sideOf(chain(0)), sideOf(chain(1)))).toEqual(changes)
  })

  it('10,000-wide schemas: the changes are capped and the cap is said', () => {
    const wide = (type: string) => ({ type: 'object', properties: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`p${i}`, { type }])) })
    const changes = diffSchemas(sideOf(wide('string')), sideOf(wide('integer')))
    expect(changes.length).toBeLessThanOrEqual(1_001)
    expect(changes.some((c) => c.rule === 'schema-not-compared' && /stopped/.test(c.message))).toBe(true)
    const enums = (n: number) => ({ enum: Array.from({ length: n }, (_, i) => i) })
    const enumChanges = diffSchemas(sideOf(enums(10_000)), sideOf(enums(10_001)))
    expect(enumChanges.map((c) => c.rule)).toEqual(['schema-enum-value-added'])
  })

  it('$ref to missing targets, and resolvers that throw, are unknown', () => {
    const old = { properties: { a: { $ref: '#/$defs/Missing' } } }
    const next = { properties: { a: { $ref: '#/$defs/Missing' }, b: { $ref: 'other.json#/nothing' } } }
    const changes = diffSchemas(sideOf(old), sideOf(next))
    expect(changes.filter((c) => c.rule === 'schema-not-compared').length).toBeGreaterThan(0)
    expect(changes.every((c) => c.effect === 'unknown' || c.effect === 'narrows')).toBe(true)
    const throwing: SchemaSide = {
      ...sideOf({ $ref: '#/x' }),
      resolve() {
        throw new Error('resolver failed')
      },
    }
    expect(diffSchemas(throwing, sideOf({ type: 'string' })).map((c) => c.effect)).toEqual(['unknown'])
  })

  it('values that are no schema, and pointers that name nothing, never throw', () => {
    const junk: unknown[] = [
      null,
      5,
      'text',
      [],
      [1, 2],
      { type: 5 },
      { properties: 3 },
      { required: 'a' },
      { enum: 'x' },
      { allOf: {} },
      { minimum: 'x' },
      { items: 'x' },
      { $ref: 7 },
    ]
    for (const a of junk) {
      for (const b of junk) {
        const changes = diffSchemas(sideOf({ s: a }, '/s'), sideOf({ s: b }, '/s'))
        for (const change of changes) expect(['unknown', 'none', 'narrows', 'widens', 'both']).toContain(change.effect)
        if (JSON.stringify(a) !== JSON.stringify(b)) expect(changes.length, `${JSON.stringify(a)} → ${JSON.stringify(b)}`).toBeGreaterThan(0)
      }
    }
    expect(() => diffSchemas(sideOf({}, '/no/such/pointer'), sideOf({}, 'not a pointer'))).not.toThrow()
    const proto = JSON.parse('{"properties": {"__proto__": {"type": "string"}}}')
    const changes = diffSchemas(sideOf(proto), sideOf({ properties: {} }))
    expect(changes.map((c) => c.rule)).toEqual(['schema-property-removed'])
  })

  it('references into other files are followed, each file named in the locations', () => {
    const files = { '/virtual/money.json': { $defs: { Money: { type: 'integer' } } } }
    const filesNext = { '/virtual/money.json': { $defs: { Money: { type: 'number' } } } }
    const old = sideOf({ properties: { total: { $ref: 'money.json#/$defs/Money' } } }, '', { files })
    const next = sideOf({ properties: { total: { $ref: 'money.json#/$defs/Money' } } }, '', { files: filesNext })
    const changes = diffSchemas(old, next)
    expect(changes).toMatchObject([
      {
        rule: 'schema-type-widened',
        effect: 'widens',
        old: { file: '/virtual/money.json', pointer: '/$defs/Money/type' },
        new: { file: '/virtual/money.json', pointer: '/$defs/Money/type' },
      },
    ])
    expect(changes[0]!.witness).toEqual({ value: { total: 0.5 }, acceptedBy: 'new' })
  })

  it('output is deterministic: the same diff twice, in the same order', () => {
    const old = { type: 'object', properties: { b: { type: 'string' }, a: { type: 'string' } }, required: ['a'] }
    const next = { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'string', maxLength: 3 }, c: {} }, required: ['a', 'b'] }
    const first = diffSchemas(sideOf(old), sideOf(next))
    expect(diffSchemas(sideOf(old), sideOf(next))).toEqual(first)
    const pointers = first.map((c) => c.new!.pointer)
    expect([...pointers].sort()).toEqual(pointers)
  })
})
