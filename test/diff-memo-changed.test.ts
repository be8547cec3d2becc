/**
 * The memo of changed pairs (src/core/diff/schema/memo-changed.ts) against the plain walk: a
 * changed shared component reached from many payloads, each payload diffed with its own call as a
 * format does, must give exactly the changes (rules, effects, locations, sentences, witnesses) the
 * walk gives with the memo off. Random components and edits (the oracle's generators), random
 * payloads naming them at different depths, both dialects; each seed reproduces its case.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { SchemaChange } from '../src/core/diff/schema-diff-types.js'
import { changedPairMemo } from '../src/core/diff/schema/memo-changed.js'
import { Random } from './helpers/diff-oracle-random.js'
import { randomEdit, randomSchema, refTo, type Schema } from './helpers/diff-oracle-schemas.js'
import { cloneJson, diffEachPayload, type ComponentsDoc } from './helpers/schema-diff.js'

type Doc = ComponentsDoc

/** A payload naming `Shared` from a few places (a property, an array's items, nested), with members of its own. */
function payload(random: Random, index: number): Schema {
  const properties: Schema = { [`own${index}`]: randomSchema(random, 1) }
  const required: string[] = []
  if (random.chance(0.8)) properties.shared = refTo('Shared')
  if (random.chance(0.5)) properties.list = { type: 'array', items: refTo('Shared'), ...(random.chance(0.5) ? { minItems: 1 } : {}) }
  if (random.chance(0.4)) properties.nested = { type: 'object', properties: { inner: refTo('Shared') }, required: random.chance(0.5) ? ['inner'] : [] }
  if (random.chance(0.3)) properties.other = refTo('Other')
  if (!('shared' in properties) && !('list' in properties) && !('nested' in properties)) properties.shared = refTo('Shared')
  for (const name of Object.keys(properties)) if (random.chance(0.6)) required.push(name)
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), ...(random.chance(0.3) ? { additionalProperties: false } : {}) }
}

/** Two versions of a document: `Shared` (sometimes naming `Other`) edited, the payloads sometimes edited too. */
function documents(seed: number, payloads: number): { old: Doc; new: Doc } {
  const random = new Random(seed)
  const other = randomSchema(random, 1)
  const shared = randomSchema(random, 2, random.chance(0.3) ? ['Other'] : [])
  const sharedEdit = randomEdit(random, shared)
  const otherNew = random.chance(0.3) ? randomEdit(random, other).new : other
  const old: Doc = { components: { schemas: { Shared: shared, Other: other } } }
  const next: Doc = { components: { schemas: { Shared: sharedEdit.new, Other: otherNew } } }
  for (let i = 0; i < payloads; i++) {
    const p = payload(random, i)
    old.components.schemas[`P${i}`] = p
    next.components.schemas[`P${i}`] = random.chance(0.2) ? randomEdit(random, p).new : cloneJson(p)
  }
  return { old, new: next }
}

/** Every payload diffed with its own call, on fresh copies of the documents (the memo is keyed by the documents). */
function diffAll(docs: { old: Doc; new: Doc }, payloads: number, dialect: 'json-schema' | 'openapi-3.0', memo: boolean): SchemaChange[][] {
  changedPairMemo.enabled = memo
  return diffEachPayload(docs, payloads, dialect)
}

afterEach(() => {
  changedPairMemo.enabled = true
})

describe('changed pairs settled once across calls', () => {
  it('gives the same changes as the plain walk on random edits of a shared component', () => {
    const base = Number(process.env.DIFF_MEMO_SEED ?? 1)
    const cases = 60
    const payloads = 8
    let replays = 0
    let changes = 0
    let witnesses = 0
    for (let seed = base; seed < base + cases; seed++) {
      const docs = documents(seed, payloads)
      const dialect = seed % 3 === 0 ? 'openapi-3.0' : 'json-schema'
      const plain = diffAll(docs, payloads, dialect, false)
      const before = changedPairMemo.replays
      const memoized = diffAll(docs, payloads, dialect, true)
      replays += changedPairMemo.replays - before
      expect(memoized, `seed ${seed}: ${JSON.stringify(docs)}`).toEqual(plain)
      for (const list of plain) {
        changes += list.length
        witnesses += list.filter((c) => c.witness !== undefined).length
      }
    }
    // Not vacuous: the memo answered many calls, on edits that changed something, witnesses included.
    expect(replays).toBeGreaterThan(cases)
    expect(changes).toBeGreaterThan(cases)
    expect(witnesses).toBeGreaterThan(0)
  })

  it('replays a changed component for every payload after the first, each with its own witness', () => {
    const Money = (required: string[]) => ({
      type: 'object',
      required,
      properties: { amount: { type: 'number' }, currency: { type: 'string', enum: ['EUR', 'USD'] } },
      additionalProperties: false,
    })
    const doc = (required: string[]): Doc => {
      const schemas: Record<string, Schema> = { Shared: Money(required) }
      for (let i = 0; i < 5; i++)
        schemas[`P${i}`] = { type: 'object', required: ['price'], properties: { price: refTo('Shared'), [`n${i}`]: { type: 'integer' } } }
      return { components: { schemas } }
    }
    const docs = { old: doc(['amount']), new: doc(['amount', 'currency']) }
    const plain = diffAll(docs, 5, 'json-schema', false)
    const before = changedPairMemo.replays
    const memoized = diffAll(docs, 5, 'json-schema', true)
    expect(changedPairMemo.replays - before).toBe(4)
    expect(memoized).toEqual(plain)
    for (const list of memoized) {
      const required = list.find((c) => c.rule === 'schema-required-added')
      expect(required?.effect).toBe('narrows')
      expect(required?.old?.pointer).toBe('/components/schemas/Shared/required')
      // The witness is the payload's own: the shared value placed at its `price`.
      expect(required?.witness?.value).toEqual({ price: { amount: 0 } })
    }
  })
})
