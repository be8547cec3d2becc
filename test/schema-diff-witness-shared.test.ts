/**
 * The witness search's shortcuts against the plain search: a candidate the changed node itself
 * refuses is skipped without validating the whole payload, but only where a chain of conjunctive
 * applicators (properties, items, allOf, `$ref`) leads from the payload's root to the node
 * (src/core/diff/schema/witness-path.ts); and a member of the payload's value that every candidate
 * shares is validated once, its verdict kept (src/core/diff/schema/accepts.ts). A changed shared component is reached from many payloads, each
 * diffed with its own call as a format does, through paths with and without other applicators
 * (`anyOf`, `oneOf`, `not`, `if`, `additionalProperties`, an array's items): the changes, witnesses
 * included, must be exactly the plain search's, and every witness must be one for the payload
 * (ajv, written apart from the engine: accepted by its side's payload and refused by the other's).
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { SchemaChange } from '../src/core/diff/schema-diff-types.js'
import { verdictMemo } from '../src/core/diff/schema/accepts.js'
import { witnessPrecheck } from '../src/core/diff/schema/witness.js'
import { Random } from './helpers/diff-oracle-random.js'
import { Acceptance, randomEdit, randomSchema, refTo, type Schema } from './helpers/diff-oracle-schemas.js'
import { cloneJson, diffEachPayload, type ComponentsDoc, type Json } from './helpers/schema-diff.js'

type Doc = ComponentsDoc

/** Where a payload names the shared component: plain paths the proof accepts, and paths through applicators it must refuse. */
function placement(random: Random): Schema {
  const shared = refTo('Shared')
  switch (random.int(0, 8)) {
    case 0:
      return shared
    case 1:
      return { type: 'object', properties: { inner: shared }, required: random.chance(0.5) ? ['inner'] : [] }
    case 2:
      return { type: 'array', items: shared, ...(random.chance(0.5) ? { minItems: 1 } : {}) }
    case 3:
      return { allOf: [shared, randomSchema(random, 1)] }
    case 4:
      return { anyOf: [shared, randomSchema(random, 1)] }
    case 5:
      return { oneOf: [shared, { type: 'string' }] }
    case 6:
      return { if: { type: 'object' }, then: shared, else: randomSchema(random, 1) }
    case 7:
      return { type: 'object', properties: { inner: shared }, additionalProperties: randomSchema(random, 1), required: ['inner'] }
    default:
      return { not: { not: shared } }
  }
}

function payload(random: Random, index: number): Schema {
  const properties: Schema = { [`own${index}`]: randomSchema(random, 1), shared: placement(random) }
  if (random.chance(0.4)) properties.again = placement(random)
  const required = Object.keys(properties).filter(() => random.chance(0.6))
  const root: Schema = {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    ...(random.chance(0.3) ? { additionalProperties: false } : {}),
  }
  return random.chance(0.2) ? { allOf: [root, randomSchema(random, 1)] } : root
}

function documents(seed: number, payloads: number): { old: Doc; new: Doc } {
  const random = new Random(seed)
  const shared = randomSchema(random, 2)
  const edit = randomEdit(random, shared)
  const old: Doc = { components: { schemas: { Shared: edit.old } } }
  const next: Doc = { components: { schemas: { Shared: edit.new } } }
  for (let i = 0; i < payloads; i++) {
    const p = payload(random, i)
    old.components.schemas[`P${i}`] = p
    next.components.schemas[`P${i}`] = random.chance(0.15) ? randomEdit(random, p).new : cloneJson(p)
  }
  return { old, new: next }
}

/** `shortcuts`: the node precheck and the kept verdicts (accepts.ts) on; off, the plain search validates every candidate whole. */
function diffAll(docs: { old: Doc; new: Doc }, payloads: number, dialect: 'json-schema' | 'openapi-3.0', shortcuts: boolean): SchemaChange[][] {
  witnessPrecheck.enabled = shortcuts
  verdictMemo.enabled = shortcuts
  return diffEachPayload(docs, payloads, dialect)
}

afterEach(() => {
  witnessPrecheck.enabled = true
  verdictMemo.enabled = true
})

describe('a witness candidate checked against its node first', () => {
  it('finds exactly the plain search’s witnesses, each valid for the payload, on random edits of a shared component', () => {
    const acceptance = new Acceptance()
    const base = Number(process.env.DIFF_WITNESS_SEED ?? 1)
    const cases = 80
    const payloads = 6
    let witnesses = 0
    const skippedBefore = witnessPrecheck.skipped
    const reusedBefore = verdictMemo.reused
    for (let seed = base; seed < base + cases; seed++) {
      const docs = documents(seed, payloads)
      const dialect = seed % 4 === 0 ? 'openapi-3.0' : 'json-schema'
      const plain = diffAll(docs, payloads, dialect, false)
      const checked = diffAll(docs, payloads, dialect, true)
      expect(checked, `seed ${seed}: ${JSON.stringify(docs)}`).toEqual(plain)
      if (dialect !== 'json-schema') continue
      for (let i = 0; i < payloads; i++) {
        for (const change of checked[i]!) {
          if (!change.witness) continue
          witnesses++
          const value = change.witness.value as Json
          const [accepting, refusing] = change.witness.acceptedBy === 'new' ? [docs.new, docs.old] : [docs.old, docs.new]
          const name = `P${i}`
          const at = `seed ${seed}, ${name}, ${change.rule}: ${JSON.stringify(value)}`
          expect(acceptance.accepts(accepting.components.schemas[name]!, value, accepting.components.schemas), at).toBe(true)
          expect(acceptance.accepts(refusing.components.schemas[name]!, value, refusing.components.schemas), at).toBe(false)
        }
      }
    }
    // Not vacuous: witnesses were found, the shortcut skipped candidates on the way, and kept verdicts were read.
    expect(witnesses).toBeGreaterThan(cases / 2)
    expect(witnessPrecheck.skipped - skippedBefore).toBeGreaterThan(0)
    expect(verdictMemo.reused - reusedBefore).toBeGreaterThan(0)
  })

  it('skips what the node refuses on a plain path, and not through an applicator that could accept the value another way', () => {
    const money = (max: number): Schema => ({
      type: 'object',
      properties: { tags: { type: 'array', items: { type: 'object' }, uniqueItems: true, maxItems: max } },
    })
    const doc = (max: number, wrap: (s: Schema) => Schema): Doc => ({
      components: { schemas: { Shared: money(max), P0: { type: 'object', required: ['m'], properties: { m: wrap(refTo('Shared')) } } } },
    })
    for (const [wrap, shortcut] of [
      [(s: Schema) => s, true],
      [(s: Schema) => ({ anyOf: [s, { type: 'object', properties: { tags: { type: 'array' } } }] }), false],
    ] as const) {
      const docs = { old: doc(4, wrap), new: doc(2, wrap) }
      const plain = diffAll(docs, 1, 'json-schema', false)
      const before = witnessPrecheck.skipped
      const checked = diffAll(docs, 1, 'json-schema', true)
      expect(checked).toEqual(plain)
      const change = checked[0]!.find((c) => c.rule === 'schema-max-items-decreased')
      expect(change?.effect).toBe('narrows')
      // The candidates are arrays of nulls, numbers, strings or booleans, or of one minimal object repeated: every one refused by the
      // unique object items, so no witness either way.
      expect(change?.witness).toBeUndefined()
      expect(witnessPrecheck.skipped - before > 0).toBe(shortcut)
    }
  })
})
