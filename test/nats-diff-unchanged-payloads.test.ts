/**
 * The NATS differ's proof that a payload is unchanged (nats/diff/unchanged-schema.ts), held to the
 * schema diff it stands in for: on random documents of small schemas that name each other by `$ref`
 * (chains, cycles, a reference that names nothing, a discriminator), each edited at one random place
 * or not at all, a payload proven unchanged must be one the schema diff reports no change for; and
 * the proof is not vacuous (it is given for most payloads of an unedited document). Then the cases
 * it must refuse, each with the schema diff reporting a change.
 */
import { describe, expect, it } from 'vitest'
import { diffSchemas } from '../src/core/diff/schema-diff.js'
import type { DiffSide } from '../src/core/diff/types.js'
import { version, type Version } from '../src/formats/nats/diff/context.js'
import { schemaSide } from '../src/formats/nats/diff/payloads.js'
import { unchangedPayload } from '../src/formats/nats/diff/unchanged-schema.js'
import type { NatsModel } from '../src/formats/nats/model.js'
import { random } from './helpers/seeded-random.js'

const side = (file: string) =>
  ({ file, model: { channels: [], operations: [], streams: [], consumers: [] } as unknown as NatsModel, read: async () => '' }) as DiffSide<NatsModel>
const versionOf = (file: string, doc: unknown): Version => version(side(file), { file, value: doc, at: (pointer) => ({ file, pointer, line: 1, column: 1 }) })

const NAMES = ['A', 'B', 'C', 'D']

/** A small schema: scalars with bounds, objects, arrays, enums, and references to the components (or to none). */
function schema(next: () => number, depth: number): unknown {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!
  const roll = next()
  if (depth > 2 || roll < 0.25) return pick([{ type: 'string' }, { type: 'string', maxLength: 8 }, { type: 'integer', minimum: 0 }, { enum: ['x', 'y'] }, true])
  if (roll < 0.5) return { $ref: `#/components/schemas/${pick([...NAMES, 'Missing'])}` }
  if (roll < 0.75) return { type: 'object', properties: { a: schema(next, depth + 1), b: schema(next, depth + 1) }, required: pick([[], ['a'], ['a', 'b']]) }
  if (roll < 0.9) return { type: 'array', items: schema(next, depth + 1), maxItems: pick([2, 4]) }
  return { oneOf: [schema(next, depth + 1), schema(next, depth + 1)], discriminator: { propertyName: 'kind' } }
}

/** Every object and array inside `value`, with the key that holds each (for an edit). */
function places(value: unknown, out: Array<{ holder: Record<string, unknown> | unknown[]; key: string | number }> = []): typeof out {
  if (Array.isArray(value))
    value.forEach((item, i) => {
      out.push({ holder: value, key: i })
      places(item, out)
    })
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) {
      out.push({ holder: value as Record<string, unknown>, key })
      places(item, out)
    }
  return out
}

/** One random edit somewhere in `doc` (a value replaced by another small schema or a bound changed), or none. */
function edited(doc: unknown, next: () => number): unknown {
  const copy = structuredClone(doc)
  const roll = next()
  if (roll < 0.3) return copy
  const all = places((copy as { components: unknown }).components).concat(places((copy as { payload: unknown }).payload))
  if (all.length === 0) return copy
  const { holder, key } = all[Math.floor(next() * all.length)]!
  if (roll < 0.6) (holder as Record<string, unknown>)[key as string] = schema(next, 2)
  else if (typeof (holder as Record<string, unknown>)[key as string] === 'number') (holder as Record<string, number>)[key as string]! += 1
  else (holder as Record<string, unknown>)[key as string] = { type: 'number' }
  return copy
}

function document(next: () => number): unknown {
  const schemas: Record<string, unknown> = {}
  for (const name of NAMES) schemas[name] = schema(next, 0)
  return { components: { schemas }, payload: schema(next, 0) }
}

describe('a payload proven unchanged without the schema diff', () => {
  it('is one the schema diff reports no change for, on random documents and edits', () => {
    let proven = 0
    let unedited = 0
    let provenUnedited = 0
    let changed = 0
    for (let seed = 1; seed <= 1500; seed++) {
      const next = random(seed)
      const before = document(next)
      const after = edited(before, next)
      const old = versionOf('/c/old.yaml', before)
      const now = versionOf('/c/new.yaml', after)
      const same = unchangedPayload(old, '/payload', now, '/payload')
      const changes = diffSchemas(schemaSide(old, '/payload'), schemaSide(now, '/payload'))
      if (same) {
        proven++
        expect(changes, `seed ${seed}`).toEqual([])
      }
      if (changes.length > 0) changed++
      if (JSON.stringify(before) === JSON.stringify(after)) {
        unedited++
        if (same) provenUnedited++
      }
    }
    // Not vacuous: most unedited payloads are proven so (the rest reach a discriminator or a
    // reference that names nothing), and many edits reach the payload.
    expect(proven).toBeGreaterThan(300)
    expect(provenUnedited).toBeGreaterThan(unedited / 2)
    expect(changed).toBeGreaterThan(200)
  })

  it('is refused where a target it reaches changed, names nothing, or is named by a discriminator; where the roots declare other drafts', () => {
    const doc = (money: unknown, extra: Record<string, unknown> = {}) => ({
      ...extra,
      components: { schemas: { Money: money, Line: { type: 'object', properties: { price: { $ref: '#/components/schemas/Money' } } } } },
      payload: { type: 'object', properties: { line: { $ref: '#/components/schemas/Line' } } },
    })
    const money = { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } }
    const cases: Array<[string, unknown, unknown, boolean]> = [
      ['the same documents', doc(money), doc(money), true],
      ['members in another order', doc(money), doc({ properties: { amount: { type: 'number' } }, required: ['amount'], type: 'object' }), true],
      ['a target two references away changed', doc(money), doc({ ...money, required: ['amount', 'currency'] }), false],
      ['a reference that names nothing', doc({ $ref: '#/components/schemas/None' }), doc({ $ref: '#/components/schemas/None' }), false],
      ['a discriminator', doc({ ...money, discriminator: { propertyName: 'amount' } }), doc({ ...money, discriminator: { propertyName: 'amount' } }), false],
      ['other drafts declared at the roots', doc(money, { $schema: 'https://json-schema.org/draft-07/schema' }), doc(money), false],
    ]
    for (const [name, before, after, expected] of cases) {
      const old = versionOf('/c/old.yaml', before)
      const now = versionOf('/c/new.yaml', after)
      expect(unchangedPayload(old, '/payload', now, '/payload'), name).toBe(expected)
    }
    // The refused change is one the schema diff reports.
    const old = versionOf('/c/old.yaml', doc(money))
    const now = versionOf('/c/new.yaml', doc({ ...money, required: ['amount', 'currency'] }))
    expect(diffSchemas(schemaSide(old, '/payload'), schemaSide(now, '/payload')).map((c) => c.rule)).toContain('schema-required-added')
  })
})
