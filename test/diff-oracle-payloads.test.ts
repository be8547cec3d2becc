/**
 * Property test of the NATS differ's payload comparison (through the schema diff it calls, mapped to
 * its audiences), against the schema oracle's witnesses (test/helpers/diff-oracle-payloads.ts): a
 * payload the new schema accepts and the old refused breaks the channel's subscribers, one the old
 * accepted and the new refuses breaks its publishers; each must be flagged for them.
 *
 * Seeded: `DIFF_ORACLE_SEED=<n>` reproduces another run, `DIFF_ORACLE_PAIRS=<n>` sets its size. Each
 * run prints one line: pairs, witnesses, how many were caught, and how often a warning was needed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { natsDiffer } from '../src/formats/nats/diff/index.js'
import { payloadReport, runPayloadProperty } from './helpers/diff-oracle-payloads.js'
import { Random, oracleSeed } from './helpers/diff-oracle-random.js'

const SEED = oracleSeed(3035)
const PAIRS = Number(process.env.DIFF_ORACLE_PAIRS ?? 120)
const folder = mkdtempSync(join(tmpdir(), 'unplugin-contracts-diff-oracle-payloads-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

describe('NATS differ against the payload oracle', () => {
  for (const refs of [false, true]) {
    it(`flags every payload edit with a witness for the party it breaks${refs ? ' (payloads with $refs to components)' : ''}`, async () => {
      const seed = SEED + (refs ? 1 : 0)
      const stats = await runPayloadProperty({ random: new Random(seed), pairs: PAIRS / 2, folder: join(folder, String(refs)), differ: natsDiffer, refs })
      console.log(payloadReport(seed, refs, stats))
      expect(stats.skipped, stats.skipReasons.join('\n')).toBeLessThan(stats.pairs / 5)
      expect(stats.judged - stats.unwitnessed).toBeGreaterThan(stats.judged / 3)
      expect(stats.violations.slice(0, 5), `${stats.violations.length} violations (seed ${seed})`).toEqual([])
    })
  }
})
