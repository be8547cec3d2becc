/**
 * Property test of the NATS differ's headers comparison, through the same oracle as payloads
 * (test/helpers/diff-oracle-schemas.ts): two versions of a document whose message `headers` schema
 * differs by one random schema edit (the payload fixed), compiled and diffed. Headers are maps of
 * names to strings (what nats.js sends and reads), so the values are every such map of a few names
 * and strings: one the new schema accepts and the old refused must be flagged for the channel's
 * subscribers, one the old accepted and the new refuses for its publishers. Each witness the differ
 * itself gives must be such a map and show its change (ajv's reading): a break shown only by JSON
 * values no peer can send (`{"a": 0}`) is none. A run also adds or drops the headers schema (compared
 * with no schema: any map of strings).
 *
 * Seeded: `DIFF_ORACLE_SEED=<n>` reproduces another run, `DIFF_ORACLE_PAIRS=<n>` sets its size. Each
 * run prints one line: pairs, witnesses, how many were caught, and how often a warning was needed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ContractCompiler } from '../src/core/compile.js'
import type { DiffFinding } from '../src/core/diff/types.js'
import { formats } from '../src/formats/index.js'
import { natsDiffer } from '../src/formats/nats/diff/index.js'
import { Random, oracleSeed } from './helpers/diff-oracle-random.js'
import { Acceptance, KEYS, findWitnesses, randomEdit, randomSchema, type Json, type SchemaPair } from './helpers/diff-oracle-schemas.js'
import { applicationDocument, documentText, flags, type ChannelSpec } from './helpers/diff-oracle-subjects.js'
import { modelOf, side } from './helpers/diff-oracle-subjects-run.js'

const SEED = oracleSeed(3135)
const PAIRS = Number(process.env.DIFF_ORACLE_PAIRS ?? 60)
const folder = mkdtempSync(join(tmpdir(), 'unplugin-contracts-diff-oracle-headers-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))
const compiler = new ContractCompiler({ formats })

const CHANNEL: ChannelSpec = {
  tokens: [{ literal: 'app' }, { param: 'p' }],
  parameters: { p: 'region' },
  tokenTypes: { region: { kind: 'enum', values: ['eu', 'us'] } },
  description: 'Events.',
}

/** The document with the message's headers schema (none when undefined) and a fixed payload. */
function documentWith(headers: unknown): string {
  const document = applicationDocument(CHANNEL, { payload: { type: 'object' } }) as {
    channels: Record<string, { messages: Record<string, Record<string, unknown>> }>
  }
  for (const channel of Object.values(document.channels)) {
    for (const message of Object.values(channel.messages)) if (headers !== undefined) message.headers = headers
  }
  return documentText(document)
}

/** Header values the maps hold: the empty string, around the schemas' length bounds, patterns' letters and digits. */
const STRINGS = ['', 'a', 'b', 'ab', 'ba', 'abcd', '1', '12', 'B']
/** Every map of names in KEYS to values in STRINGS (each name present or not). */
function headerUniverse(): Json[] {
  let maps: Array<Record<string, string>> = [{}]
  for (const key of KEYS) maps = maps.flatMap((m) => [m, ...STRINGS.map((v) => ({ ...m, [key]: v }))])
  return maps
}
const UNIVERSE = headerUniverse()

interface Stats {
  pairs: number
  skipped: number
  reasons: string[]
  witnessed: number
  caught: number
  warningUsed: number
  violations: string[]
  /** Witnesses the differ gave, each checked. */
  given: number
}

async function judge(
  stats: Stats,
  at: string,
  pair: Pick<SchemaPair, 'old' | 'new'>,
  texts: { old: string; new: string },
  acceptance: Acceptance,
): Promise<void> {
  stats.pairs++
  const files = { old: join(at, 'old', 'asyncapi.yaml'), new: join(at, 'new', 'asyncapi.yaml') }
  for (const version of ['old', 'new'] as const) {
    mkdirSync(join(files[version], '..'), { recursive: true })
    writeFileSync(files[version], texts[version])
  }
  const [before, after] = [await modelOf(compiler, files.old), await modelOf(compiler, files.new)]
  if (!before.model || !after.model) {
    stats.skipped++
    if (stats.reasons.length < 5) stats.reasons.push([...before.errors, ...after.errors].join('; '))
    return
  }
  const findings: DiffFinding[] = await natsDiffer.diff(side(files.old, before.model), side(files.new, after.model))
  // Each witness the differ gives stands for headers a peer can send, and shows its change.
  for (const f of findings) {
    const given = (f.data as { witness?: { value: unknown; acceptedBy: 'old' | 'new' } } | undefined)?.witness
    if (given === undefined) continue
    stats.given++
    const { value, acceptedBy } = given
    const map = typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string')
    const [taker, other] = acceptedBy === 'old' ? [pair.old, pair.new] : [pair.new, pair.old]
    const shown = map && acceptance.accepts(taker, value as Json) && !acceptance.accepts(other, value as Json)
    if (!shown)
      stats.violations.push(
        `${f.rule} ${f.level}: its witness ${JSON.stringify(value)} (accepted by ${acceptedBy}) is no map of strings that shows it; headers old ${JSON.stringify(pair.old)} -> new ${JSON.stringify(pair.new)}`,
      )
  }
  const witnesses = findWitnesses(acceptance, pair, UNIVERSE)
  const subscribers = flags(findings, 'subscriber')
  const publishers = flags(findings, 'publisher')
  if ([...subscribers, ...publishers].some((f) => f.level === 'warning')) stats.warningUsed++
  const widened = witnesses.widening[0]
  const narrowed = witnesses.narrowing[0]
  if (widened === undefined && narrowed === undefined) return
  stats.witnessed++
  const context = `headers old ${JSON.stringify(pair.old)} -> new ${JSON.stringify(pair.new)}; found ${findings.map((f) => `${f.rule} ${f.level}`).join(', ') || 'nothing'}`
  let caught = true
  if (widened !== undefined && subscribers.length === 0) {
    caught = false
    stats.violations.push(`subscribers break unflagged: ${JSON.stringify(widened)} is accepted by the new headers schema only; ${context}`)
  }
  if (narrowed !== undefined && publishers.length === 0) {
    caught = false
    stats.violations.push(`publishers break unflagged: ${JSON.stringify(narrowed)} is accepted by the old headers schema only; ${context}`)
  }
  for (const f of [...subscribers, ...publishers]) expect(f.new?.pointer ?? f.old?.pointer).toMatch(/\/messages\/event(\/headers)?/)
  if (caught) stats.caught++
}

describe('NATS differ against the schema oracle, through message headers', () => {
  it('flags every headers edit with a witness for the party it breaks', async () => {
    const random = new Random(SEED)
    const acceptance = new Acceptance()
    const stats: Stats = { pairs: 0, skipped: 0, reasons: [], witnessed: 0, caught: 0, warningUsed: 0, violations: [], given: 0 }
    // Headers are a map: each random schema (and its edit) is held under `type: object`, which
    // NATS_HEADERS_NOT_OBJECT asks of a headers schema whose own `type` would exclude it.
    const asHeaders = (schema: SchemaPair['old']) => ({ type: 'object', allOf: [schema] }) as SchemaPair['old']
    for (let i = 0; i < PAIRS; i++) {
      const edit = randomEdit(random, randomSchema(random, 2))
      const pair = { old: asHeaders(edit.old), new: asHeaders(edit.new) }
      await judge(stats, join(folder, String(i)), pair, { old: documentWith(pair.old), new: documentWith(pair.new) }, acceptance)
    }
    // Added and removed: no schema accepts any map of strings.
    for (let i = 0; i < PAIRS / 4; i++) {
      const schema = asHeaders(randomSchema(random, 2))
      const added = i % 2 === 0
      const any = { type: 'object', additionalProperties: { type: 'string' } }
      const pair = added ? { old: any, new: schema } : { old: schema, new: any }
      const texts = added ? { old: documentWith(undefined), new: documentWith(schema) } : { old: documentWith(schema), new: documentWith(undefined) }
      await judge(stats, join(folder, `presence-${i}`), pair, texts, acceptance)
    }
    console.log(
      `diff-oracle headers seed=${SEED}: ${stats.pairs} pairs, ${stats.skipped} skipped, witnessed ${stats.witnessed}, caught ${stats.caught}, ${stats.given} witnesses given and checked, warning used in ${stats.warningUsed} pairs, violations ${stats.violations.length}`,
    )
    expect(stats.skipped, stats.reasons.join('\n')).toBeLessThan(stats.pairs / 5)
    // Among maps of strings an edit of the random schema changes what it accepts less often than
    // among all values (an edit of a number's bound alone changes nothing): the bounds keep the run
    // from being vacuous.
    expect(stats.witnessed).toBeGreaterThan(stats.pairs / 8)
    expect(stats.given).toBeGreaterThan(0)
    expect(stats.violations.slice(0, 5), `${stats.violations.length} violations (seed ${SEED})`).toEqual([])
  }, 240_000)
})
