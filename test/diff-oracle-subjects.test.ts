/**
 * Property test of the NATS differ's subject comparison against an oracle written from the profile
 * (test/helpers/diff-oracle-subjects.ts): two versions of a small application document whose one
 * channel differs by a random edit of its address, parameters or token types, each channel expanded
 * to every concrete subject. If no finding flags publishers, every old subject is still a subject of
 * the new channel; if none flags subscribers, every new subject was an old one.
 *
 * Seeded: `DIFF_ORACLE_SEED=<n>` reproduces another run, `DIFF_ORACLE_PAIRS=<n>` sets its size. Each
 * run prints one line: pairs, witnesses, how many were caught, and how often a warning was needed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { natsDiffer } from '../src/formats/nats/diff/index.js'
import { Random, oracleSeed } from './helpers/diff-oracle-random.js'
import { runSubjectProperty, subjectReport } from './helpers/diff-oracle-subjects-run.js'

const SEED = oracleSeed(35)
const PAIRS = Number(process.env.DIFF_ORACLE_PAIRS ?? 240)
const folder = mkdtempSync(join(tmpdir(), 'unplugin-contracts-diff-oracle-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

describe('NATS differ against the subject oracle', () => {
  it('flags every edit with a witness subject for the party it breaks', async () => {
    const stats = await runSubjectProperty({ random: new Random(SEED), pairs: PAIRS, folder, differ: natsDiffer })
    console.log(subjectReport(SEED, stats))
    // Most generated pairs are valid documents; the rest are counted, with reasons.
    expect(stats.skipped, stats.skipReasons.join('\n')).toBeLessThan(stats.pairs / 5)
    expect(stats.judged - stats.unwitnessed).toBeGreaterThan(stats.judged / 3)
    // The oracle's premise: its enumeration agrees with each compiled channel's own parser.
    expect(stats.disagreements.slice(0, 5)).toEqual([])
    const labels = [...stats.violatedLabels].map(([label, n]) => `${label} ${n}`).join(', ')
    expect(stats.violations.slice(0, 5), `${stats.violations.length} violations (seed ${SEED}; pairs by edit: ${labels})`).toEqual([])
  })
})
