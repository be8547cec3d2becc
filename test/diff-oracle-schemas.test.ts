/**
 * Property test of the directional schema diff (`diffSchemas`) against an oracle written apart from
 * its rules (test/helpers/diff-oracle-schemas.ts): random small schemas, one random edit each, and
 * every value of a finite universe judged by ajv. No edit the engine leaves unflagged for a party may
 * have a witness that breaks that party: a value the new schema accepts and the old refused breaks a
 * receiver (flagged by `widens`, `both` or `unknown`); one the old accepted and the new refuses
 * breaks a sender (`narrows`, `both` or `unknown`). A witness the engine attaches must be true.
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

describe('schema diff against the witness oracle', () => {
  for (const depth of [1, 2]) {
    it(`flags every edit with a witness for the party it breaks (depth ${depth})`, () => {
      const seed = SEED + depth
      const stats = runSchemaProperty({ random: new Random(seed), pairs: PAIRS / 2, depth, engine: diffSchemas })
      console.log(schemaReport(seed, stats))
      // The oracle must have had something to judge: most edits change which values pass.
      expect(stats.witnessed).toBeGreaterThan(stats.pairs / 3)
      expect(stats.violations.slice(0, 5), `${stats.violations.length} violations (seed ${seed})`).toEqual([])
      expect(stats.caught).toBe(stats.witnessed)
    })
  }
})
