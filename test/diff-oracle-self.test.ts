/**
 * The diff oracle tested on itself, so that its passing means something: the generators make edits
 * that break and edits that do not (both ways), the witness finders find the known witness of
 * hand-made pairs, and the properties fail for an engine or differ that reports nothing and pass for
 * one that flags everything.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { SchemaChange } from '../src/core/diff/schema-diff-types.js'
import type { DiffFinding, FormatDiffer } from '../src/core/diff/types.js'
import type { NatsModel } from '../src/formats/nats/model.js'
import { Random } from './helpers/diff-oracle-random.js'
import {
  Acceptance,
  EDIT_LABELS,
  findWitnesses,
  randomEdit,
  randomRefPair,
  randomSchema,
  refTo,
  runSchemaProperty,
  schemaViolations,
  valueUniverse,
  type Schema,
  type SchemaPair,
} from './helpers/diff-oracle-schemas.js'
import {
  CHANNEL_EDIT_LABELS,
  CHANNEL_ID,
  applicationDocument,
  channelSubjects,
  domainValues,
  randomChannel,
  randomChannelEdit,
  subjectViolations,
  subjectWitnesses,
  type ChannelSpec,
} from './helpers/diff-oracle-subjects.js'
import { runSubjectProperty } from './helpers/diff-oracle-subjects-run.js'
import { runPayloadProperty } from './helpers/diff-oracle-payloads.js'

const universe = valueUniverse()
const acceptance = new Acceptance()
const pairOf = (old: Schema, next: Schema): SchemaPair => ({ old, new: next, edit: { label: 'hand-made', at: '' } })
const change = (effect: SchemaChange['effect'], witness?: SchemaChange['witness']): SchemaChange => ({
  rule: 'oracle-fake',
  effect,
  message: 'A fake change.',
  ...(witness ? { witness } : {}),
})

describe('the schema oracle', () => {
  it('has a universe of distinct values', () => {
    expect(new Set(universe.map((v) => JSON.stringify(v))).size).toBe(universe.length)
    expect(universe.length).toBeGreaterThan(300)
  })

  it('finds the known witness of hand-made pairs, in the right direction', () => {
    const cases: Array<{ old: Schema; new: Schema; widening: unknown[]; narrowing: unknown[] }> = [
      // integer -> number: a non-integer is newly accepted; nothing is lost.
      { old: { type: 'integer' }, new: { type: 'number' }, widening: [2.5, -0.5, 0.5], narrowing: [] },
      // a required property added: the object without it is lost.
      { old: { type: 'object' }, new: { type: 'object', required: ['a'] }, widening: [], narrowing: [{}, { b: null }] },
      // additionalProperties closed: an undeclared key is lost.
      {
        old: { type: 'object', properties: { a: {} } },
        new: { type: 'object', properties: { a: {} }, additionalProperties: false },
        widening: [],
        narrowing: [{ b: 0 }],
      },
      // an enum value added.
      { old: { enum: ['a'] }, new: { enum: ['a', 'ab'] }, widening: ['ab'], narrowing: [] },
      // a length bound lowered.
      { old: { type: 'string', maxLength: 2 }, new: { type: 'string', maxLength: 1 }, widening: [], narrowing: ['ab', 'ba', '12'] },
      // a pattern changed: both ways.
      { old: { type: 'string', pattern: '^[0-9]+$' }, new: { type: 'string', pattern: '^.$' }, widening: ['a', 'B'], narrowing: ['12'] },
      // a nested item type changed.
      { old: { type: 'array', items: { type: 'string' } }, new: { type: 'array', items: { type: 'null' } }, widening: [[null]], narrowing: [['a']] },
    ]
    for (const c of cases) {
      const found = findWitnesses(acceptance, c, universe)
      for (const w of c.widening) expect(found.widening, JSON.stringify(c)).toContainEqual(w)
      for (const w of c.narrowing) expect(found.narrowing, JSON.stringify(c)).toContainEqual(w)
      if (c.widening.length === 0) expect(found.widening, JSON.stringify(c)).toEqual([])
      if (c.narrowing.length === 0) expect(found.narrowing, JSON.stringify(c)).toEqual([])
    }
    // Through a $ref: the payload's text is the same, the component it names is not.
    const viaRef = {
      old: { type: 'object', properties: { a: { $ref: '#/components/schemas/A' } } },
      new: { type: 'object', properties: { a: { $ref: '#/components/schemas/A' } } },
      definitions: { old: { A: { type: 'integer' } }, new: { A: { type: 'number' } } },
    }
    expect(findWitnesses(acceptance, viaRef, universe).widening).toContainEqual({ a: 2.5 })
    expect(findWitnesses(acceptance, viaRef, universe).narrowing).toEqual([])
    const retargeted = {
      old: refTo('A'),
      new: refTo('B'),
      definitions: { old: { A: { type: 'string' }, B: { type: 'null' } }, new: { A: { type: 'string' }, B: { type: 'null' } } },
    }
    expect(findWitnesses(acceptance, retargeted, universe)).toMatchObject({ widening: [null], narrowing: expect.arrayContaining(['', 'a']) })
    // An edit of an annotation changes nothing.
    expect(findWitnesses(acceptance, { old: { type: 'string' }, new: { type: 'string', description: 'x' } }, universe)).toEqual({ widening: [], narrowing: [] })
  })

  it('reports a witness left unflagged, per party, and a false witness claim', () => {
    const widened = pairOf({ type: 'integer' }, { type: 'number' })
    const witnesses = findWitnesses(acceptance, widened, universe)
    const none = schemaViolations(acceptance, widened, [], witnesses)
    expect(none).toHaveLength(1)
    expect(none[0]).toMatch(/^receivers break unflagged: -0\.5 is accepted by the new schema and refused by the old; edit hand-made/)
    // Flagged for senders only: receivers still break.
    expect(schemaViolations(acceptance, widened, [change('narrows')], witnesses)[0]).toMatch(/^receivers break unflagged/)
    for (const effect of ['widens', 'both', 'unknown'] as const) expect(schemaViolations(acceptance, widened, [change(effect)], witnesses)).toEqual([])
    const narrowed = pairOf({ type: 'number' }, { type: 'integer' })
    const back = findWitnesses(acceptance, narrowed, universe)
    expect(schemaViolations(acceptance, narrowed, [change('widens')], back)[0]).toMatch(/^senders break unflagged: -0\.5 is accepted by the old schema/)
    expect(schemaViolations(acceptance, narrowed, [change('narrows')], back)).toEqual([])
    // A witness the engine claims must hold.
    expect(schemaViolations(acceptance, widened, [change('widens', { value: 2.5, acceptedBy: 'new' })], witnesses)).toEqual([])
    expect(schemaViolations(acceptance, widened, [change('widens', { value: 2, acceptedBy: 'new' })], witnesses)[0]).toMatch(
      /claims the witness 2 is accepted by the new schema only/,
    )
  })

  it('generates edits that break receivers, senders, both and neither, of every kind', () => {
    const random = new Random(7)
    const seen = { receivers: 0, senders: 0, both: 0, neither: 0 }
    const labels = new Set<string>()
    for (let i = 0; i < 400; i++) {
      const pair = randomEdit(random, randomSchema(random, 2))
      labels.add(pair.edit.label)
      expect(JSON.stringify(pair.new)).not.toBe(JSON.stringify(pair.old))
      const w = findWitnesses(acceptance, pair, universe)
      if (w.widening.length > 0 && w.narrowing.length > 0) seen.both++
      else if (w.widening.length > 0) seen.receivers++
      else if (w.narrowing.length > 0) seen.senders++
      else seen.neither++
    }
    for (const count of Object.values(seen)) expect(count).toBeGreaterThan(20)
    // Nearly every edit kind occurs in a few thousand edits (the rarest need a keyword the generator
    // seldom writes, as minItems, already present).
    for (let i = 0; i < 3000; i++) labels.add(randomEdit(random, randomSchema(random, 2)).edit.label)
    const missing = EDIT_LABELS.filter((l) => !labels.has(l))
    expect(missing.length, `never generated: ${missing.join(', ')}`).toBeLessThan(EDIT_LABELS.length / 10)
  })

  it('generates $ref pairs whose component edits break', () => {
    const random = new Random(13)
    let componentEdits = 0
    let witnessed = 0
    for (let i = 0; i < 200; i++) {
      const pair = randomRefPair(random, 2)
      expect(JSON.stringify(pair.old) + JSON.stringify(pair.definitions?.old)).not.toBe(JSON.stringify(pair.new) + JSON.stringify(pair.definitions?.new))
      if (!pair.edit.label.startsWith('ref-target-')) continue
      expect(pair.new).toEqual(pair.old)
      componentEdits++
      const w = findWitnesses(acceptance, pair, universe)
      if (w.widening.length + w.narrowing.length > 0) witnessed++
    }
    expect(componentEdits).toBeGreaterThan(40)
    expect(witnessed).toBeGreaterThan(componentEdits / 3)
  })

  it('fails an engine that reports nothing, and passes one that says unknown for every change', () => {
    const silent = runSchemaProperty({ random: new Random(11), pairs: 100, depth: 2, engine: () => [] })
    expect(silent.violations.length).toBeGreaterThan(30)
    expect(silent.caught).toBe(0)
    const cautious = runSchemaProperty({ random: new Random(11), pairs: 100, depth: 2, engine: () => [change('unknown')] })
    expect(cautious.violations).toEqual([])
    expect(cautious.unknownUsed).toBe(100)
    expect(cautious.caught).toBe(silent.witnessed)
    // An engine that flags receivers only is caught on the edits that break senders.
    const oneSided = runSchemaProperty({ random: new Random(11), pairs: 100, depth: 2, engine: () => [change('widens')] })
    expect(oneSided.violations.length).toBe(oneSided.senderWitnessed)
    expect(oneSided.violations.every((v) => v.startsWith('senders break unflagged'))).toBe(true)
  })
})

const hex1 = { kind: 'token', alphabet: 'hex', first: 'any', minLength: 1, maxLength: 1, prefix: '' } as const

function spec(address: string, types: Record<string, ChannelSpec['tokenTypes'][string]>): ChannelSpec {
  const tokens = address.split('.').map((t) => (t.startsWith('{') ? { param: t.slice(1, -1) } : { literal: t }))
  const parameters = Object.fromEntries(Object.keys(types).map((p) => [p, `k${p}`]))
  return { tokens, parameters, tokenTypes: Object.fromEntries(Object.entries(types).map(([p, t]) => [`k${p}`, t])), description: 'Events.' }
}

function finding(level: DiffFinding['level'], kind: string): DiffFinding {
  return { rule: 'oracle-fake', level, audiences: [{ kind }], message: 'A fake finding.' }
}

describe('the subject oracle', () => {
  it('expands token types from the profile words', () => {
    expect(domainValues({ kind: 'enum', values: ['eu', 'us'] })).toEqual(['eu', 'us'])
    expect(domainValues(hex1)).toEqual([...'0123456789abcdef'])
    expect(domainValues({ ...hex1, first: 'letter' })).toEqual([...'abcdef'])
    expect(domainValues({ kind: 'token', alphabet: 'lower', first: 'letter', minLength: 1, maxLength: 1, prefix: '' })).toHaveLength(26)
    expect(domainValues({ kind: 'token', alphabet: 'lower', first: 'any', minLength: 1, maxLength: 1, prefix: '' })).toHaveLength(38)
    expect(domainValues({ kind: 'token', alphabet: 'ascii', first: 'letter', minLength: 1, maxLength: 2, prefix: '' })).toHaveLength(52 + 52 * 64)
    // A prefix counts toward the length; `any` allows an empty suffix when the minimum allows it.
    const prefixed = domainValues({ kind: 'token', alphabet: 'hex', first: 'any', minLength: 1, maxLength: 2, prefix: 'x' })
    expect(prefixed).toHaveLength(17)
    expect(prefixed).toContain('x')
    expect(prefixed).toContain('xf')
    expect(domainValues({ kind: 'token', alphabet: 'hex', first: 'letter', minLength: 1, maxLength: 2, prefix: 'x' })).toEqual(
      [...'abcdef'].map((c) => 'x' + c),
    )
  })

  it('expands a channel of a document to its subjects', () => {
    const document = applicationDocument(spec('app.{p}.x.{q}', { p: { kind: 'enum', values: ['eu', 'us'] }, q: hex1 }))
    expect(document.channels[CHANNEL_ID]!.address).toBe('app.{p}.x.{q}')
    const subjects = channelSubjects(document, CHANNEL_ID)
    expect(subjects.size).toBe(32)
    expect(subjects).toContain('app.eu.x.f')
    expect(subjects).toContain('app.us.x.0')
    expect(channelSubjects(applicationDocument(spec('app.orders', {})), CHANNEL_ID)).toEqual(new Set(['app.orders']))
  })

  it('finds the known witness of hand-made pairs and reports it when unflagged', () => {
    const old = applicationDocument(spec('app.{p}', { p: { kind: 'enum', values: ['eu', 'us'] } }))
    const narrowed = applicationDocument(spec('app.{p}', { p: { kind: 'enum', values: ['eu'] } }))
    const w = subjectWitnesses(channelSubjects(old, CHANNEL_ID), channelSubjects(narrowed, CHANNEL_ID))
    expect(w).toEqual({ removed: ['app.us'], added: [] })
    const documents = { old, new: narrowed }
    const unflagged = subjectViolations('hand-made', documents, [], w)
    expect(unflagged).toHaveLength(1)
    expect(unflagged[0]).toMatch(/^publishers break unflagged: "app\.us" was a subject of the old channel/)
    expect(subjectViolations('hand-made', documents, [finding('info', 'publisher')], w)).toHaveLength(1)
    expect(subjectViolations('hand-made', documents, [finding('breaking', 'subscriber')], w)).toHaveLength(1)
    expect(subjectViolations('hand-made', documents, [finding('breaking', 'publisher')], w)).toEqual([])
    expect(subjectViolations('hand-made', documents, [finding('warning', 'publisher')], w)).toEqual([])
    // Widened: subscribers break.
    const back = subjectWitnesses(channelSubjects(narrowed, CHANNEL_ID), channelSubjects(old, CHANNEL_ID))
    expect(back).toEqual({ removed: [], added: ['app.us'] })
    expect(subjectViolations('hand-made', { old: narrowed, new: old }, [finding('breaking', 'publisher')], back)[0]).toMatch(
      /^subscribers break unflagged: "app\.us"/,
    )
    // A renamed parameter and an enum written as the equal token type change no subject.
    const renamed = applicationDocument(spec('app.{region}', { region: { kind: 'enum', values: ['us', 'eu'] } }))
    expect(subjectWitnesses(channelSubjects(old, CHANNEL_ID), channelSubjects(renamed, CHANNEL_ID))).toEqual({ removed: [], added: [] })
    const asEnum = applicationDocument(spec('a.{h}', { h: { kind: 'enum', values: [...'fedcba9876543210'] } }))
    const asToken = applicationDocument(spec('a.{h}', { h: hex1 }))
    expect(subjectWitnesses(channelSubjects(asEnum, CHANNEL_ID), channelSubjects(asToken, CHANNEL_ID))).toEqual({ removed: [], added: [] })
  })

  it('generates edits that break publishers, subscribers, both and neither; the known-safe kinds never have a witness', () => {
    const random = new Random(9)
    const seen = { publishers: 0, subscribers: 0, both: 0, neither: 0 }
    const labels = new Set<string>()
    const safe = new Set(['parameter-renamed', 'token-type-renamed', 'token-type-rewritten-equal', 'enum-values-reordered', 'description-changed'])
    for (let i = 0; i < 600; i++) {
      const pair = randomChannelEdit(random, randomChannel(random))
      labels.add(pair.edit)
      const w = subjectWitnesses(channelSubjects(applicationDocument(pair.old), CHANNEL_ID), channelSubjects(applicationDocument(pair.new), CHANNEL_ID))
      const kind = w.removed.length > 0 && w.added.length > 0 ? 'both' : w.removed.length > 0 ? 'publishers' : w.added.length > 0 ? 'subscribers' : 'neither'
      seen[kind]++
      if (safe.has(pair.edit)) expect(w, pair.edit).toEqual({ removed: [], added: [] })
      if (pair.edit === 'enum-value-removed') expect(w.removed.length, pair.edit).toBeGreaterThan(0)
      if (pair.edit === 'enum-value-added') expect(w.added.length, pair.edit).toBeGreaterThan(0)
    }
    for (const count of Object.values(seen)) expect(count).toBeGreaterThan(20)
    expect([...labels].sort()).toEqual([...CHANNEL_EDIT_LABELS].sort())
  })

  describe('against fake differs, through the compiler', () => {
    const folder = mkdtempSync(join(tmpdir(), 'unplugin-contracts-diff-oracle-self-'))
    afterAll(() => rmSync(folder, { recursive: true, force: true }))
    const fake = (findings: DiffFinding[]): FormatDiffer<NatsModel> => ({ format: 'nats', rules: [], diff: () => findings })

    it('fails a differ that reports nothing, and passes one that flags both parties', async () => {
      const silent = await runSubjectProperty({ random: new Random(3), pairs: 40, folder: join(folder, 'silent'), differ: fake([]) })
      expect(silent.skipped).toBeLessThan(8)
      expect(silent.violations.length).toBeGreaterThan(10)
      expect(silent.caught).toBe(0)
      expect(silent.disagreements).toEqual([])
      const cautious = await runSubjectProperty({
        random: new Random(3),
        pairs: 40,
        folder: join(folder, 'cautious'),
        differ: fake([finding('breaking', 'publisher'), finding('warning', 'subscriber')]),
      })
      expect(cautious.violations).toEqual([])
      expect(cautious.caught).toBe(cautious.judged - cautious.unwitnessed)
      expect(cautious.warningUsed).toBe(cautious.judged)
    })

    it('fails a differ that reports nothing on payload edits, and passes one that flags both parties', async () => {
      const silent = await runPayloadProperty({ random: new Random(5), pairs: 30, folder: join(folder, 'payload-silent'), differ: fake([]), refs: true })
      expect(silent.skipped).toBeLessThan(6)
      expect(silent.violations.length).toBeGreaterThan(5)
      expect(silent.violations.some((v) => v.startsWith('subscribers break unflagged'))).toBe(true)
      expect(silent.violations.some((v) => v.startsWith('publishers break unflagged'))).toBe(true)
      const cautious = await runPayloadProperty({
        random: new Random(5),
        pairs: 30,
        folder: join(folder, 'payload-cautious'),
        differ: fake([finding('warning', 'publisher'), finding('breaking', 'subscriber')]),
        refs: true,
      })
      expect(cautious.violations).toEqual([])
      expect(cautious.caught).toBe(cautious.judged - cautious.unwitnessed)
    })
  })
})
