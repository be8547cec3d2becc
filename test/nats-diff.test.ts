/**
 * The NATS differ, rule by rule: each fixture pair (fixtures/diff/nats/<rule>/{old,new}) fires its
 * rule with the level, audience and locations asserted, and the near edit (near.asyncapi.yaml)
 * does not. Models come from compiling the fixture files; the differ reads the text through the side.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ContractCompiler } from '../src/core/compile.js'
import { SCHEMA_DIFF_RULES } from '../src/core/diff/schema-diff.js'
import { levelFor, type SchemaEffect } from '../src/core/diff/schema-diff-types.js'
import type { DiffFinding, DiffLevel, DiffSide } from '../src/core/diff/types.js'
import { formats, natsFormat } from '../src/formats/index.js'
import { natsDiffer } from '../src/formats/nats/diff/index.js'
import type { NatsModel } from '../src/formats/nats/model.js'
import { testFolder } from './helpers/temp-folder.js'

const FIXTURES = resolve(__dirname, '../fixtures/diff/nats')
const compiler = new ContractCompiler({ formats })

async function side(file: string): Promise<DiffSide<NatsModel>> {
  const path = resolve(file)
  const result = await compiler.model(path, natsFormat)
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
  return { file: path, model: result.model!, read: (f) => readFile(f, 'utf8').catch(() => undefined) }
}

async function diff(old: string, next: string): Promise<DiffFinding[]> {
  return natsDiffer.diff(await side(old), await side(next))
}

interface Case {
  level: DiffLevel
  /** An audience kind the finding names (none for info). */
  audience?: string
  old?: [number, number]
  new?: [number, number]
}

// Lines and columns in the fixtures (generated from base.asyncapi.yaml by make-fixtures.py).
const CASES: Record<string, Case> = {
  'channel-removed': { level: 'breaking', audience: 'subscriber', old: [91, 5], new: [66, 3] },
  'channel-renamed': { level: 'info', old: [91, 5], new: [91, 5] },
  'channel-added': { level: 'info', old: [69, 3], new: [101, 5] },
  'subject-narrowed': { level: 'breaking', audience: 'publisher', old: [70, 14], new: [70, 14] },
  'subject-widened': { level: 'breaking', audience: 'subscriber', old: [70, 14], new: [70, 14] },
  'subject-spelling-changed': { level: 'info', old: [70, 14], new: [70, 14] },
  'subject-filter-removed': { level: 'breaking', audience: 'subscriber', old: [21, 19], new: [17, 7] },
  'subject-filter-disjoint': { level: 'breaking', audience: 'subscriber', old: [21, 19], new: [21, 19] },
  'subject-filter-changed': { level: 'info', old: [21, 19], new: [21, 19] },
  'operation-removed': { level: 'breaking', audience: 'publisher', old: [110, 5], new: [96, 3] },
  'operation-action-changed': { level: 'breaking', audience: 'subscriber', old: [110, 13], new: [110, 13] },
  'operation-reply-removed': { level: 'breaking', audience: 'requester', old: [105, 5], new: [104, 5] },
  'operation-reply-timeout-changed': { level: 'warning', audience: 'responder', old: [36, 85], new: [36, 85] },
  'operation-delivery-changed': { level: 'breaking', audience: 'deployment', old: [31, 7], new: [31, 7] },
  'message-added': { level: 'breaking', audience: 'subscriber', old: [82, 7], new: [85, 9] },
  'message-removed': { level: 'breaking', audience: 'requester', old: [83, 9], new: [82, 7] },
  'nats-stream-storage-changed': { level: 'breaking', audience: 'deployment', old: [46, 18], new: [46, 18] },
  'nats-stream-retention-changed': { level: 'breaking', audience: 'deployment', old: [45, 20], new: [45, 20] },
  'nats-stream-renamed': { level: 'breaking', audience: 'deployment', old: [43, 15], new: [43, 15] },
  'nats-stream-limit-changed': { level: 'breaking', audience: 'deployment', old: [49, 19], new: [49, 19] },
  'nats-stream-discard-changed': { level: 'breaking', audience: 'subscriber', old: [51, 18], new: [51, 18] },
  'nats-stream-subjects-narrowed': { level: 'breaking', audience: 'deployment', old: [44, 19], new: [44, 19] },
  'nats-stream-replicas-changed': { level: 'warning', audience: 'deployment', old: [47, 23], new: [47, 23] },
  'nats-stream-duplicate-window-changed': { level: 'warning', audience: 'deployment', old: [52, 27], new: [52, 27] },
  'nats-consumer-policy-changed': { level: 'breaking', audience: 'subscriber', old: [61, 25], new: [61, 25] },
  'nats-consumer-renamed': { level: 'breaking', audience: 'deployment', old: [58, 23], new: [58, 23] },
  'nats-consumer-filter-changed': { level: 'breaking', audience: 'subscriber', old: [59, 25], new: [59, 25] },
  'nats-consumer-limit-changed': { level: 'warning', audience: 'deployment', old: [63, 22], new: [63, 22] },
  'nats-deployment-binding-changed': { level: 'breaking', audience: 'deployment', old: [9, 14], new: [9, 14] },
  'nats-server-version-changed': { level: 'warning', audience: 'deployment', old: [10, 27], new: [10, 27] },
  'nats-contract-id-changed': { level: 'breaking', audience: 'subscriber', old: [7, 13], new: [7, 13] },
  'nats-section-changed': { level: 'warning', audience: 'deployment', old: [67, 12], new: [67, 12] },
  'operation-reply-added': { level: 'breaking', audience: 'responder', old: [104, 5], new: [105, 5] },
  'operation-message-removed': { level: 'breaking', audience: 'publisher', old: [110, 5], new: [112, 15] },
  'operation-message-added': { level: 'breaking', audience: 'subscriber', old: [105, 5], new: [105, 5] },
  'operation-channel-changed': { level: 'breaking', audience: 'subscriber', old: [111, 14], new: [111, 14] },
  'operation-consumer-changed': { level: 'breaking', audience: 'deployment', old: [33, 46], new: [33, 46] },
  'nats-consumer-added': { level: 'info', old: [54, 5], new: [55, 7] },
  'nats-consumer-removed': { level: 'breaking', audience: 'deployment', old: [55, 7], new: [54, 5] },
  'nats-stream-subjects-widened': { level: 'info', old: [44, 19], new: [44, 19] },
  'nats-consumer-filter-disjoint': { level: 'breaking', audience: 'subscriber', old: [59, 25], new: [70, 14] },
  'nats-stream-added': { level: 'info', old: [40, 5], new: [41, 7] },
  'nats-stream-removed': { level: 'breaking', audience: 'deployment', old: [41, 7], new: [40, 5] },
  'operation-queue-changed': { level: 'warning', audience: 'subscriber', old: [110, 5], new: [110, 5] },
  'channel-address-changed': { level: 'breaking', audience: 'requester', old: [87, 5], new: [88, 5] },
  'operation-added': { level: 'info', old: [98, 3], new: [115, 5] },
  'operation-renamed': { level: 'info', old: [110, 5], new: [110, 5] },
  'operation-reply-channel-changed': { level: 'warning', audience: 'requester', old: [112, 7], new: [112, 7] },
  'operation-stream-changed': { level: 'breaking', audience: 'publisher', old: [31, 68], new: [31, 68] },
  'nats-consumer-stream-changed': { level: 'breaking', audience: 'subscriber', old: [58, 15], new: [58, 15] },
  'message-headers-added': { level: 'breaking', audience: 'requester', old: [83, 9], new: [84, 18] },
  'message-headers-removed': { level: 'breaking', audience: 'subscriber', old: [84, 18], new: [83, 9] },
  'channel-publisher-identity-added': { level: 'breaking', audience: 'publisher', old: [17, 7], new: [23, 26] },
  'channel-publisher-identity-removed': { level: 'warning', audience: 'subscriber', old: [23, 26], new: [17, 7] },
  'channel-publisher-identity-changed': { level: 'breaking', audience: 'subscriber', old: [23, 26], new: [23, 26] },
  'channel-parameter-enum-changed': { level: 'warning', audience: 'publisher', old: [93, 15], new: [93, 23] },
  'message-content-type-changed': { level: 'warning', audience: 'subscriber', old: [96, 9], new: [96, 22] },
}

describe('nats differ: one fixture pair per rule', () => {
  for (const [rule, expected] of Object.entries(CASES)) {
    it(`${rule} fires on the edit, with level, audience and locations, and not on the near edit`, async () => {
      const folder = join(FIXTURES, rule)
      const findings = await diff(join(folder, 'old.asyncapi.yaml'), join(folder, 'new.asyncapi.yaml'))
      const found = findings.filter((f) => f.rule === rule)
      expect(found.length, JSON.stringify(findings, null, 1)).toBeGreaterThan(0)
      const finding = found.find((f) => f.level === expected.level)!
      expect(finding, JSON.stringify(found, null, 1)).toBeDefined()
      if (expected.audience) expect(finding.audiences.map((a) => a.kind)).toContain(expected.audience)
      else expect(finding.audiences).toEqual([])
      if (expected.old) expect([finding.old?.line, finding.old?.column]).toEqual(expected.old)
      else expect(finding.old).toBeUndefined()
      if (expected.new) expect([finding.new?.line, finding.new?.column]).toEqual(expected.new)
      else expect(finding.new).toBeUndefined()
      for (const f of found) {
        expect(f.old?.file ?? join(folder, 'old.asyncapi.yaml')).toBe(join(folder, 'old.asyncapi.yaml'))
        expect(f.new?.file ?? join(folder, 'new.asyncapi.yaml')).toBe(join(folder, 'new.asyncapi.yaml'))
        expect(f.message).toMatch(/\.$/)
      }
      const near = await diff(join(folder, 'old.asyncapi.yaml'), join(folder, 'near.asyncapi.yaml'))
      expect(near.filter((f) => f.rule === rule)).toEqual([])
    })
  }

  it('declares every rule a finding carries, once', async () => {
    const ids = natsDiffer.rules.map((r) => r.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const rule of Object.keys(CASES)) expect(ids).toContain(rule)
    for (const r of natsDiffer.rules) {
      expect(r.levels.length).toBeGreaterThan(0)
      expect(r.example.old).not.toBe(r.example.new)
      if (r.mirror && 'rule' in r.mirror) expect(ids).toContain(r.mirror.rule)
    }
  })

  it('reports each finding at a level and for audiences its rule declares', async () => {
    const byId = new Map(natsDiffer.rules.map((r) => [r.id, r]))
    const pairs: Array<[string, string, string]> = []
    for (const folder of readdirSync(FIXTURES)) {
      const old = join(FIXTURES, folder, 'old.asyncapi.yaml')
      if (!existsSync(old)) continue
      for (const next of ['new.asyncapi.yaml', 'near.asyncapi.yaml']) pairs.push([folder, old, join(FIXTURES, folder, next)])
    }
    for (const app of ['orders', 'payments', 'shipping']) {
      const at = (version: string) => join(FIXTURES, 'bundle', version, app, 'asyncapi', 'asyncapi.yaml')
      pairs.push([`bundle/${app}`, at('old'), at('new')])
    }
    for (const rule of readdirSync(join(FIXTURES, 'bundle-pairs'))) {
      const at = (version: string) => join(FIXTURES, 'bundle-pairs', rule, version, 'payments', 'asyncapi', 'asyncapi.yaml')
      if (!existsSync(at('old'))) continue
      for (const next of ['new', 'near']) pairs.push([`bundle-pairs/${rule}`, at('old'), at(next)])
    }
    for (const [folder, old, next] of pairs) {
      for (const f of await diff(old, next)) {
        const rule = byId.get(f.rule)
        expect(rule, f.rule).toBeDefined()
        expect(rule!.levels, `${folder}: ${f.rule}`).toContain(f.level)
        for (const a of f.audiences) expect(rule!.audiences, `${folder}: ${f.rule} ${a.kind}`).toContain(a.kind)
      }
    }
  }, 120_000)

  it('finds nothing between a document and itself, or when only info.version changed', async () => {
    const base = join(FIXTURES, 'base.asyncapi.yaml')
    expect(await diff(base, base)).toEqual([])
    const folder = join(FIXTURES, 'nats-server-version-changed')
    expect(await diff(join(folder, 'old.asyncapi.yaml'), join(folder, 'near.asyncapi.yaml'))).toEqual([])
  })

  it('gives subject witnesses that are in one language and not the other', async () => {
    const narrowed = (await diff(join(FIXTURES, 'subject-narrowed/old.asyncapi.yaml'), join(FIXTURES, 'subject-narrowed/new.asyncapi.yaml'))).find(
      (f) => f.rule === 'subject-narrowed' && f.message.includes('"entryPosted"'),
    )!
    expect(narrowed.data?.witness).toBe('ledger.us.000000000000.posted')
    const widened = (await diff(join(FIXTURES, 'subject-widened/old.asyncapi.yaml'), join(FIXTURES, 'subject-widened/new.asyncapi.yaml'))).find(
      (f) => f.rule === 'subject-widened',
    )!
    expect(widened.data?.witness).toMatch(/^ledger\.(eu|us)\.[0-9a-f]{13,16}\.posted$/)
  })

  it('maps each payload schema change to the parties by direction (whatever the engine finds)', async () => {
    const folder = join(FIXTURES, 'schema-changed')
    const findings = await diff(join(folder, 'old.asyncapi.yaml'), join(folder, 'new.asyncapi.yaml'))
    const schemaRules = new Set(SCHEMA_DIFF_RULES.map((r) => r.id))
    const found = findings.filter((f) => schemaRules.has(f.rule))
    expect(found.length).toBeGreaterThan(0)
    const receivers = new Set(['subscriber', 'responder', 'requester'])
    for (const f of found) {
      const effect = f.data?.effect as SchemaEffect
      // entryPosted has a publisher (postEntry) and a subscriber (onEntryPosted): the level is the worse of the two.
      const levels = [levelFor(effect, 'receives'), levelFor(effect, 'sends')]
      const worst = levels.includes('breaking') ? 'breaking' : levels.includes('warning') ? 'warning' : 'info'
      expect(f.level).toBe(worst)
      if (effect === 'widens') expect(f.audiences.every((a) => receivers.has(a.kind) && !a.name?.startsWith('entryPosted:postEntry ('))).toBe(true)
      expect(f.data?.channel).toBe('entryPosted')
      // Located in the payload, which the message reaches through a reference into components.
      expect(f.new!.pointer.startsWith('/components/messages/EntryPosted/payload')).toBe(true)
      expect(f.new!.line).toBeGreaterThanOrEqual(113)
    }
    const near = await diff(join(folder, 'old.asyncapi.yaml'), join(folder, 'near.asyncapi.yaml'))
    expect(near.filter((f) => schemaRules.has(f.rule))).toEqual([])
  })

  it('maps each headers schema change to the parties by direction, located at the headers', async () => {
    const folder = join(FIXTURES, 'headers-schema-changed')
    const findings = await diff(join(folder, 'old.asyncapi.yaml'), join(folder, 'new.asyncapi.yaml'))
    const schemaRules = new Set(SCHEMA_DIFF_RULES.map((r) => r.id))
    const found = findings.filter((f) => schemaRules.has(f.rule))
    expect(found.length).toBeGreaterThan(0)
    const receivers = new Set(['subscriber', 'responder'])
    for (const f of found) {
      const effect = f.data?.effect as SchemaEffect
      // balanceQuery has a requester (queryBalance, sends) and a responder (answerBalance, receives).
      const levels = [levelFor(effect, 'receives'), levelFor(effect, 'sends')]
      const worst = levels.includes('breaking') ? 'breaking' : levels.includes('warning') ? 'warning' : 'info'
      expect(f.level).toBe(worst)
      if (effect === 'narrows') expect(f.audiences.map((a) => a.kind)).toContain('requester')
      if (effect === 'widens') expect(f.audiences.every((a) => receivers.has(a.kind))).toBe(true)
      expect(f.data).toMatchObject({ member: 'headers', channel: 'balanceQuery', message: 'query' })
      expect(f.old!.pointer.startsWith('/channels/balanceQuery/messages/query/headers')).toBe(true)
      expect(f.new!.pointer.startsWith('/channels/balanceQuery/messages/query/headers')).toBe(true)
      expect(f.new!.line).toBe(84)
    }
    // The message's summary edited: nothing about its headers.
    const near = await diff(join(folder, 'old.asyncapi.yaml'), join(folder, 'near.asyncapi.yaml'))
    expect(near.filter((f) => schemaRules.has(f.rule) || f.rule.startsWith('message-headers'))).toEqual([])
  })

  it('compares a payload whose schema lies in a locked file by that file, located at the payload', async () => {
    const make = (version: string, schema: object) => {
      const root = testFolder(`nats-diff-ref-${version}-`)
      mkdirSync(join(root, 'app', 'schemas'), { recursive: true })
      const docText = [
        'asyncapi: 3.1.0',
        'info: { title: Refs, version: 1.0.0 }',
        'x-nats-contract:',
        '  version: 0.2.0-draft',
        '  contract: refs',
        '  deployment: { binding: refs-prod, minimumServerVersion: 2.11.0 }',
        '  tokenTypes:',
        '    region: { kind: enum, values: [eu, us] }',
        '  channels:',
        '    happened: { parameters: { region: region } }',
        '  operations:',
        '    announce: { publish: { api: core, confirmation: none } }',
        'channels:',
        '  happened:',
        '    address: refs.{region}.happened',
        '    parameters: { region: {} }',
        '    messages:',
        '      event:',
        "        payload: { $ref: 'schemas/event.json' }",
        'operations:',
        "  announce: { action: send, channel: { $ref: '#/channels/happened' } }",
        '',
      ].join('\n')
      const schemaText = JSON.stringify(schema)
      writeFileSync(join(root, 'app', 'refs.asyncapi.yaml'), docText)
      writeFileSync(join(root, 'app', 'schemas', 'event.json'), schemaText)
      const sha = (text: string) => createHash('sha256').update(text).digest('hex')
      const lock = {
        entries: [
          { path: 'app/refs.asyncapi.yaml', sha256: sha(docText) },
          { path: 'app/schemas/event.json', sha256: sha(schemaText) },
        ],
      }
      writeFileSync(join(root, 'bundle.lock.json'), JSON.stringify(lock))
      return join(root, 'app', 'refs.asyncapi.yaml')
    }
    const oldFile = make('old', { type: 'object', properties: { n: { type: 'integer' } } })
    const newFile = make('new', { type: 'object', properties: { n: { type: 'string' } } })
    const findings = await diff(oldFile, newFile)
    const schemaRules = new Set(SCHEMA_DIFF_RULES.map((r) => r.id))
    const found = findings.filter((f) => schemaRules.has(f.rule))
    expect(found.length).toBeGreaterThan(0)
    for (const f of found) {
      expect(f.new!.pointer).toBe('/channels/happened/messages/event/payload')
      expect([f.new!.line, f.new!.column]).toEqual([19, 18])
      expect(f.audiences.length).toBeGreaterThan(0)
    }
    // The same file content in both versions: nothing to report.
    expect((await diff(oldFile, make('same', { type: 'object', properties: { n: { type: 'integer' } } }))).filter((f) => schemaRules.has(f.rule))).toEqual([])
  })

  it("compares a renamed channel's messages across the rename", async () => {
    const folder = join(FIXTURES, 'channel-renamed-payload')
    const findings = await diff(join(folder, 'old.asyncapi.yaml'), join(folder, 'new.asyncapi.yaml'))
    expect(findings.map((f) => f.rule)).toContain('channel-renamed')
    const schemaRules = new Set(SCHEMA_DIFF_RULES.map((r) => r.id))
    const changed = findings.filter((f) => schemaRules.has(f.rule))
    expect(changed.length).toBeGreaterThan(0)
    for (const f of changed) {
      expect(f.old!.pointer.startsWith('/channels/auditTrail/messages/audit/payload')).toBe(true)
      expect(f.new!.pointer.startsWith('/channels/auditLog/messages/audit/payload')).toBe(true)
      expect(f.data?.channel).toBe('auditLog')
    }
    const near = await diff(join(folder, 'old.asyncapi.yaml'), join(folder, 'near.asyncapi.yaml'))
    expect(near.map((f) => f.rule)).toEqual(['channel-renamed'])
  })

  it('sorts findings by new location, then old, then rule, without duplicates', async () => {
    const folder = join(FIXTURES, 'subject-filter-disjoint')
    const findings = await diff(join(folder, 'old.asyncapi.yaml'), join(folder, 'new.asyncapi.yaml'))
    expect(findings.map((f) => f.rule)).toEqual(['subject-filter-disjoint', 'subject-narrowed', 'subject-widened'])
    expect(new Set(findings.map((f) => JSON.stringify(f))).size).toBe(findings.length)
  })

  it('says when a document is in no bundle', async () => {
    const folder = join(FIXTURES, 'operation-removed')
    const [finding] = await diff(join(folder, 'old.asyncapi.yaml'), join(folder, 'new.asyncapi.yaml'))
    expect(finding!.message).toContain('in no bundle')
    expect(finding!.data).toMatchObject({ affected: [], bundle: false })
  })
})

describe('nats differ: a bundle of linked applications', () => {
  const doc = (version: string, app: string) => join(FIXTURES, 'bundle', version, app, 'asyncapi', 'asyncapi.yaml')

  it('names the linked application, stream and consumer a narrowed channel reaches', async () => {
    const findings = await diff(doc('old', 'payments'), doc('new', 'payments'))
    const narrowed = findings.find((f) => f.rule === 'subject-narrowed')!
    expect(narrowed.level).toBe('breaking')
    expect(narrowed.data?.witness).toBe('payments.us.pay-aaaa.captured')
    expect(narrowed.data?.affected).toEqual([
      { application: 'shipping', operation: 'onPaymentCaptured', via: 'link' },
      // shipping declares PAYMENTS as external (payments owns it): reached through its consumer, not as capturing.
      { application: 'shipping', via: 'consumer', stream: 'PAYMENTS', consumer: 'shipping-dispatch', operation: 'onPaymentCaptured' },
    ])
    expect(narrowed.message).toContain('"shipping": operation "onPaymentCaptured" (linked)')
    // Narrowing breaks publishers: the linked subscriber is reached, not broken.
    expect(narrowed.audiences).toEqual([{ kind: 'publisher', name: 'paymentCaptured:capturePayment' }])
    expect([narrowed.new!.line, narrowed.new!.column]).toEqual([162, 14])
  })

  it('reports a breaking change no application of the bundle reaches as such, naming the subjects', async () => {
    const findings = await diff(doc('old', 'payments'), doc('new', 'payments'))
    const removed = findings.find((f) => f.rule === 'subject-filter-removed')!
    expect(removed.level).toBe('breaking')
    expect(removed.data).toMatchObject({ affected: [], bundle: true })
    expect(removed.message).toContain('No application of the bundle links, imports, captures or consumes it')
    expect(removed.message).toContain('"payments.refunds.{operationId}.vote.{peerId}" outside the bundle')
  })

  it('from the subscriber side: a narrowed channel breaks the linked publisher, and the import moved', async () => {
    const findings = await diff(doc('old', 'shipping'), doc('new', 'shipping'))
    const imported = findings.find((f) => f.rule === 'nats-import-changed')!
    expect(imported.level).toBe('warning')
    expect(imported.audiences.map((a) => a.kind)).toEqual(['deployment'])
    expect([imported.old!.pointer, imported.old!.line, imported.old!.column]).toEqual(['/x-nats-contract/imports/payments', 10, 15])
    const narrowed = findings.find((f) => f.rule === 'subject-narrowed')!
    expect(narrowed.data?.affected).toContainEqual({ application: 'payments', operation: 'capturePayment', via: 'link' })
    // The linked publisher plays the role narrowing breaks: it is an audience.
    expect(narrowed.audiences).toContainEqual({ kind: 'publisher', name: 'payments:capturePayment' })
  })

  // Rules only a bundle can fire: fixtures/diff/nats/bundle-pairs/<rule>/{old,new,near} (make-pairs.py), payments diffed.
  const pair = (rule: string, version: string) => join(FIXTURES, 'bundle-pairs', rule, version, 'payments', 'asyncapi', 'asyncapi.yaml')

  it('nats-link-removed fires when a link and the subscription it held go, naming the linked publisher; not on a near edit', async () => {
    const findings = await diff(pair('nats-link-removed', 'old'), pair('nats-link-removed', 'new'))
    const removed = findings.find((f) => f.rule === 'nats-link-removed')!
    expect(removed.level).toBe('breaking')
    expect(removed.audiences).toContainEqual({ kind: 'publisher', name: 'orders:placeOrder' })
    expect(removed.audiences).toContainEqual({ kind: 'subscriber', name: 'payments:onOrderPlaced' })
    expect([removed.old!.pointer, removed.old!.line, removed.old!.column]).toEqual(['/x-nats-contract/links/0', 12, 7])
    expect([removed.new!.pointer, removed.new!.line, removed.new!.column]).toEqual(['/x-nats-contract', 6, 3])
    expect(removed.data?.affected).toContainEqual({ application: 'orders', operation: 'placeOrder', via: 'link' })
    const near = await diff(pair('nats-link-removed', 'old'), pair('nats-link-removed', 'near'))
    expect(near.filter((f) => f.rule.startsWith('nats-link-'))).toEqual([])
  })

  it('nats-link-added fires (info) when a link is added with the subscription it holds; not on a near edit', async () => {
    const findings = await diff(pair('nats-link-added', 'old'), pair('nats-link-added', 'new'))
    const added = findings.find((f) => f.rule === 'nats-link-added')!
    expect([added.level, added.audiences, added.old?.pointer]).toEqual(['info', [], '/x-nats-contract'])
    expect([added.new!.pointer, added.new!.line, added.new!.column]).toEqual(['/x-nats-contract/links/0', 12, 7])
    const near = await diff(pair('nats-link-added', 'old'), pair('nats-link-added', 'near'))
    expect(near.filter((f) => f.rule.startsWith('nats-link-'))).toEqual([])
  })

  it("nats-stream-authority-changed fires when payments' own stream becomes the locked external artifact's; not on a near edit", async () => {
    const rule = 'nats-stream-authority-changed'
    const findings = await diff(pair(rule, 'old'), pair(rule, 'new'))
    const authority = findings.find((f) => f.rule === rule)!
    expect([authority.level, authority.audiences]).toEqual(['warning', [{ kind: 'deployment', name: 'payments' }]])
    expect([authority.old!.pointer, authority.old!.line, authority.old!.column]).toEqual(['/x-nats-contract/streams/payments', 52, 7])
    expect([authority.new!.pointer, authority.new!.line, authority.new!.column]).toEqual(['/x-nats-contract/streams/payments', 51, 15])
    expect((await diff(pair(rule, 'old'), pair(rule, 'near'))).filter((f) => f.rule === rule)).toEqual([])
  })

  it('nats-native-field-changed: no valid pair fires it (the checker refuses fields outside the closed configuration), so its mapping is checked on an edited model', async () => {
    // An external artifact with max_msg_size is refused (NATS_STREAM_CONFIG): the rule guards a later
    // profile's fields from being ignored silently, and is checked here on the compiled model edited.
    const shipping = await side(doc('old', 'shipping'))
    const sized = shipping.model.streams.map((s) => (s.key === 'payments' ? { ...s, config: { ...s.config, max_msg_size: 1024 } } : s))
    const other = (await natsDiffer.diff(shipping, { ...shipping, model: { ...shipping.model, streams: sized } })).find(
      (f) => f.rule === 'nats-native-field-changed',
    )!
    expect([other.level, other.data?.field, other.audiences]).toEqual(['warning', 'max_msg_size', [{ kind: 'deployment', name: 'payments' }]])
  })

  it('reads the bundle through the side, not the file system', async () => {
    const old = await side(doc('old', 'payments'))
    const next = await side(doc('new', 'payments'))
    const seen: string[] = []
    const hidden = (s: DiffSide<NatsModel>): DiffSide<NatsModel> => ({
      ...s,
      read: async (f) => {
        seen.push(f)
        // The other applications are not there for this side: only the document itself.
        return f === s.file ? s.read(f) : undefined
      },
    })
    const findings = await natsDiffer.diff(hidden(old), hidden(next))
    const narrowed = findings.find((f) => f.rule === 'subject-narrowed')!
    expect(narrowed.data).toMatchObject({ affected: [], bundle: false })
    expect(seen).toContain(join(FIXTURES, 'bundle', 'new', 'payments', 'asyncapi', 'bundle.lock.json'))
  })
})
