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
import { SchemaGenerator, judge, random, sideOf, valueUniverse } from './helpers/schema-diff.js'

const CASES = 300

/** The edit's effect as the engine claims it: what every change allows together. */
function claimed(effects: SchemaEffect[]): { widens: boolean; narrows: boolean; unknown: boolean } {
  return {
    widens: effects.some((e) => e === 'widens' || e === 'both' || e === 'unknown'),
    narrows: effects.some((e) => e === 'narrows' || e === 'both' || e === 'unknown'),
    unknown: effects.includes('unknown'),
  }
}

describe('schema diff soundness (ajv as the judge)', () => {
  it(`${CASES} random edits: no effect is claimed that a value contradicts`, () => {
    const compile = judge()
    const universe = valueUniverse()
    const next = random(20261203)
    const generator = new SchemaGenerator(next)
    let unknownCases = 0
    let changedCases = 0
    let witnesses = 0
    const failures: string[] = []
    for (let i = 0; i < CASES; i++) {
      const before = generator.document()
      const after = generator.edit(before)
      const changes = diffSchemas(sideOf(before), sideOf(after))
      const effects = changes.map((c) => c.effect)
      const claim = claimed(effects)
      if (claim.unknown) unknownCases++
      if (changes.length) changedCases++
      const oldAccepts = compile(before)
      const newAccepts = compile(after)
      for (const value of universe) {
        const o = oldAccepts(value)
        const n = newAccepts(value)
        if (n && !o && !claim.widens)
          failures.push(
            `case ${i}: ${JSON.stringify(value)} accepted only by new, engine said ${JSON.stringify(effects)}\n${JSON.stringify(before)}\n${JSON.stringify(after)}`,
          )
        if (o && !n && !claim.narrows)
          failures.push(
            `case ${i}: ${JSON.stringify(value)} accepted only by old, engine said ${JSON.stringify(effects)}\n${JSON.stringify(before)}\n${JSON.stringify(after)}`,
          )
      }
      for (const change of changes) {
        if (!change.witness) continue
        witnesses++
        const { value, acceptedBy } = change.witness
        const byOld = oldAccepts(value)
        const byNew = newAccepts(value)
        if (acceptedBy === 'old' ? !(byOld && !byNew) : !(byNew && !byOld))
          failures.push(
            `case ${i}: witness ${JSON.stringify(change.witness)} of ${change.rule} does not hold\n${JSON.stringify(before)}\n${JSON.stringify(after)}`,
          )
      }
      if (failures.length > 5) break
    }
    console.log(
      `schema diff soundness: ${CASES} edits, ${changedCases} with changes, unknown needed in ${unknownCases} (${((100 * unknownCases) / Math.max(1, changedCases)).toFixed(1)}% of those), ${witnesses} witnesses checked`,
    )
    expect(failures.slice(0, 5)).toEqual([])
    expect(changedCases).toBeGreaterThan(CASES / 4)
  })
})
