/**
 * The schema diff's property (test/diff-oracle-schemas.test.ts) for payloads with `$ref`s to component
 * schemas: an edit of a component the payload names leaves the payload's own text unchanged, and only
 * following the `$ref` (`SchemaSide.resolve`) shows that the accepted values changed. A retargeted
 * `$ref` is an edit of the payload. Judged by the same witnesses, ajv resolving the `$ref`s.
 *
 * Seeded: `DIFF_ORACLE_SEED=<n>` reproduces another run, `DIFF_ORACLE_PAIRS=<n>` sets its size. Each
 * run prints one line: pairs, witnesses, how many were caught, and how often a warning was needed.
 */
import { describe, expect, it } from 'vitest'
import { diffSchemas } from '../src/core/diff/schema-diff.js'
import { Random, oracleSeed } from './helpers/diff-oracle-random.js'
import { runSchemaProperty, schemaReport } from './helpers/diff-oracle-schemas.js'

const SEED = oracleSeed(20261203)
const PAIRS = Number(process.env.DIFF_ORACLE_PAIRS ?? 600)

describe('schema diff against the witness oracle, through $refs', () => {
  it('follows $refs: an edit of a component schema the payload names changes the payload', () => {
    const seed = SEED + 3
    const stats = runSchemaProperty({ random: new Random(seed), pairs: PAIRS / 3, depth: 2, engine: diffSchemas, refs: true })
    console.log(schemaReport(seed, stats))
    expect(stats.witnessed).toBeGreaterThan(stats.pairs / 3)
    expect([...stats.byLabel.keys()].some((l) => l.startsWith('ref-target-'))).toBe(true)
    expect(stats.byLabel.get('ref-retargeted') ?? 0).toBeGreaterThan(0)
    expect(stats.violations.slice(0, 5), `${stats.violations.length} violations (seed ${seed})`).toEqual([])
    expect(stats.caught).toBe(stats.witnessed)
  })
})
