/**
 * Soundness of the schema diff against ajv: random small schemas, one random edit each; every value
 * of a finite universe is judged by ajv under both versions. An edit the engine calls `none` or
 * `narrows` must have no value the new version accepts and the old refused, one it calls `none` or
 * `widens` no value the old accepts and the new refuses; `unknown` and `both` are always allowed.
 * Each witness must be accepted by the version it names and refused by the other.
 */
import { describe, expect, it } from 'vitest'
import { diffSchemas } from '../src/core/diff/schema-diff.js'
import type { SchemaEffect } from '../src/core/diff/schema-diff-types.js'
import { OpenApi30Oracle } from './helpers/openapi30-oracle.js'
import { SchemaGenerator, judge, random, sideOf, valueUniverse, type Json } from './helpers/schema-diff.js'

const CASES = 150
const OPENAPI_CASES = 80

/** The edit's effect as the engine claims it: what every change allows together. */
function claimed(effects: SchemaEffect[]): { widens: boolean; narrows: boolean; unknown: boolean } {
  return {
    widens: effects.some((e) => e === 'widens' || e === 'both' || e === 'unknown'),
    narrows: effects.some((e) => e === 'narrows' || e === 'both' || e === 'unknown'),
    unknown: effects.includes('unknown'),
  }
}

interface Tally {
  unknown: number
  changed: number
  witnesses: number
  failures: string[]
}

/** Judges one edit: every universe value, and every witness, against the engine's claims. */
function judgeEdit(
  tally: Tally,
  label: string,
  changes: ReturnType<typeof diffSchemas>,
  oldAccepts: (value: unknown) => boolean,
  newAccepts: (value: unknown) => boolean,
  universe: Json[],
  shown: string,
): void {
  const effects = changes.map((c) => c.effect)
  const claim = claimed(effects)
  if (claim.unknown) tally.unknown++
  if (changes.length) tally.changed++
  for (const value of universe) {
    const o = oldAccepts(value)
    const n = newAccepts(value)
    if (n && !o && !claim.widens)
      tally.failures.push(`${label}: ${JSON.stringify(value)} accepted only by new, engine said ${JSON.stringify(effects)}\n${shown}`)
    if (o && !n && !claim.narrows)
      tally.failures.push(`${label}: ${JSON.stringify(value)} accepted only by old, engine said ${JSON.stringify(effects)}\n${shown}`)
  }
  for (const change of changes) {
    if (!change.witness) continue
    tally.witnesses++
    const { value, acceptedBy } = change.witness
    const byOld = oldAccepts(value)
    const byNew = newAccepts(value)
    if (acceptedBy === 'old' ? !(byOld && !byNew) : !(byNew && !byOld))
      tally.failures.push(`${label}: witness ${JSON.stringify(change.witness)} of ${change.rule} does not hold\n${shown}`)
  }
}

describe('schema diff soundness (ajv as the judge)', () => {
  it(`${OPENAPI_CASES} random OpenAPI 3.0 edits, judged by the independent OpenAPI 3.0 reading (test/helpers/openapi30-oracle.ts)`, () => {
    const universe = valueUniverse()
    const generator = new SchemaGenerator(random(7_351), true)
    const tally: Tally = { unknown: 0, changed: 0, witnesses: 0, failures: [] }
    const P = '/components/schemas/Root'
    for (let i = 0; i < OPENAPI_CASES && tally.failures.length <= 5; i++) {
      const before = generator.document()
      const after = generator.edit(before)
      const changes = diffSchemas(sideOf(before, P), sideOf(after, P), { dialect: 'openapi-3.0' })
      const schemasOf = (doc: Record<string, Json>) => (doc.components as Record<string, Json>).schemas as Record<string, Record<string, unknown>>
      const oldAccepts = new OpenApi30Oracle(schemasOf(before)).validator({ $ref: '#/components/schemas/Root' }, 'response')
      const newAccepts = new OpenApi30Oracle(schemasOf(after)).validator({ $ref: '#/components/schemas/Root' }, 'response')
      judgeEdit(tally, `openapi case ${i}`, changes, oldAccepts, newAccepts, universe, `${JSON.stringify(before)}\n${JSON.stringify(after)}`)
    }
    console.log(
      `schema diff soundness (openapi-3.0): ${OPENAPI_CASES} edits, ${tally.changed} with changes, unknown needed in ${tally.unknown} (${((100 * tally.unknown) / Math.max(1, tally.changed)).toFixed(1)}% of those), ${tally.witnesses} witnesses checked`,
    )
    expect(tally.failures.slice(0, 5)).toEqual([])
    expect(tally.changed).toBeGreaterThan(OPENAPI_CASES / 4)
  })

  it(`${CASES} random JSON Schema 2020-12 edits, judged by ajv`, () => {
    const compile = judge()
    const universe = valueUniverse()
    const generator = new SchemaGenerator(random(20261203))
    const tally: Tally = { unknown: 0, changed: 0, witnesses: 0, failures: [] }
    for (let i = 0; i < CASES && tally.failures.length <= 5; i++) {
      const before = generator.document()
      const after = generator.edit(before)
      const changes = diffSchemas(sideOf(before), sideOf(after))
      judgeEdit(tally, `case ${i}`, changes, compile(before), compile(after), universe, `${JSON.stringify(before)}\n${JSON.stringify(after)}`)
    }
    console.log(
      `schema diff soundness (json-schema): ${CASES} edits, ${tally.changed} with changes, unknown needed in ${tally.unknown} (${((100 * tally.unknown) / Math.max(1, tally.changed)).toFixed(1)}% of those), ${tally.witnesses} witnesses checked`,
    )
    expect(tally.failures.slice(0, 5)).toEqual([])
    expect(tally.changed).toBeGreaterThan(CASES / 2)
  })
})
