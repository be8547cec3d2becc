/**
 * Payload schemas by direction: the Benzene differ's mapping of each schema change to its parties,
 * with the schema engine replaced by a scripted one (these tests hold the format's mapping, not the
 * engine's classification). A request is sent by clients and received by the service; a response
 * and an event message the reverse; a component schema has the parties of every payload reaching it.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { SchemaChange, SchemaDiffOptions, SchemaEffect, SchemaSide } from '../src/core/diff/schema-diff-types.js'
import type { DiffFinding, DiffLocation } from '../src/core/diff/types.js'
import { splitPointer } from '../src/runtime/shared/json-pointer.js'
import { diffFiles } from './helpers/benzene-diff.js'

/** What the scripted engine answers, by the pointer of the old schema it is asked about. */
const script = new Map<string, (old: SchemaSide, next: SchemaSide) => SchemaChange[]>()
const calls: Array<{ old: SchemaSide; next: SchemaSide; options?: SchemaDiffOptions }> = []

vi.mock('../src/core/diff/schema-diff.js', () => ({
  SCHEMA_DIFF_RULES: [
    {
      id: 'schema-scripted',
      levels: ['breaking', 'warning', 'info'],
      audiences: ['receiver', 'sender'],
      summary: 'A scripted change.',
      example: { old: '{}', new: '{}' },
      mirror: { none: 'Scripted.' },
    },
  ],
  SettledComparisons: class {
    readonly effects = new Map()
  },
  // The scripted engine counts no pairs: the bound on them is never reached.
  countMembers: () => 0,
  documentPairBound: () => Number.POSITIVE_INFINITY,
  diffSchemas: (old: SchemaSide, next: SchemaSide, options?: SchemaDiffOptions) => {
    calls.push({ old, next, options })
    return script.get(old.pointer)?.(old, next) ?? []
  },
}))

const dir = resolve(import.meta.dirname, '../fixtures/diff/benzene/benzene-hash-changed')
const oldFile = join(dir, 'old.spec.json')
const newFile = join(dir, 'new.spec.json')

/** A change at `pointer` in both versions. */
const change = (pointer: string, effect: SchemaEffect, witness?: SchemaChange['witness']): SchemaChange => ({
  rule: 'schema-scripted',
  effect,
  old: { file: oldFile, pointer },
  new: { file: newFile, pointer },
  message: 'It changed.',
  ...(witness ? { witness } : {}),
})

const tmp = join(import.meta.dirname, '.tmp/benzene-diff-directions')

/** Writes a document for one test beside the others; returns its path. */
function writeTmp(name: string, doc: unknown): string {
  mkdirSync(tmp, { recursive: true })
  const file = join(tmp, `${name}.spec.json`)
  writeFileSync(file, JSON.stringify(doc, null, 2))
  return file
}

const scripted = async () => (await diffFiles(oldFile, newFile)).filter((f) => f.rule === 'schema-scripted')

function valueAt(doc: unknown, pointer: string): unknown {
  let node = doc
  for (const token of splitPointer(pointer)) node = (node as Record<string, unknown>)[token]
  return node
}

/** The location's line and column are where its node's JSON starts in the file. */
function expectAtNode(location: DiffLocation | undefined, file: string, pointer: string): void {
  expect(location?.file).toBe(file)
  expect(location?.pointer).toBe(pointer)
  const text = readFileSync(file, 'utf8')
  const json = JSON.stringify(valueAt(JSON.parse(text), pointer))
  expect(text.split('\n')[location!.line - 1]!.slice(location!.column - 1)[0]).toBe(json[0])
}

beforeEach(() => {
  script.clear()
  calls.length = 0
})

const byKind = (f: DiffFinding) => f.audiences.map((a) => `${a.kind}:${a.name ?? ''}`)

describe('a payload of an entry', () => {
  const refundRequest = '/requests/2/request'
  it.each<[SchemaEffect, DiffFinding['level'], string[]]>([
    ['widens', 'breaking', ['service:payments:refund']],
    ['narrows', 'breaking', ['client:payments:refund']],
    ['both', 'breaking', ['client:payments:refund', 'service:payments:refund']],
    ['unknown', 'warning', ['client:payments:refund', 'service:payments:refund']],
    ['none', 'info', []],
  ])('a request payload that %s: %s for %j', async (effect, level, audiences) => {
    const pointer = `${refundRequest}/properties/paymentId`
    script.set(refundRequest, () => [change(pointer, effect)])
    const [finding, ...rest] = await scripted()
    expect(rest).toEqual([])
    expect(finding!.level).toBe(level)
    expect(byKind(finding!)).toEqual(audiences)
    expect(finding!.message).toBe('The request payload of "payments:refund": It changed.')
    expect(finding!.data).toEqual({ effect })
    expectAtNode(finding!.old, oldFile, pointer)
    expectAtNode(finding!.new, newFile, pointer)
  })

  it.each<[string, SchemaEffect, string[]]>([
    ['/requests/2/response', 'widens', ['client:payments:refund']],
    ['/requests/2/response', 'narrows', ['service:payments:refund']],
    ['/events/1/message', 'widens', ['client:payment:failed']],
    ['/events/1/message', 'narrows', ['service:payment:failed']],
  ])('%s that %s breaks %j', async (pointer, effect, audiences) => {
    // The refund's response written inline in both versions (a bare `$ref` is compared at its component).
    const inline = (file: string, name: string) => {
      const doc = JSON.parse(readFileSync(file, 'utf8'))
      doc.requests[2].response = { type: 'object', properties: { id: { type: 'string' } } }
      return writeTmp(name, doc)
    }
    const oldInline = inline(oldFile, 'inline-old')
    const newInline = inline(newFile, 'inline-new')
    script.set(pointer, (o, n) => [{ ...change(pointer, effect), old: { file: o.file, pointer }, new: { file: n.file, pointer } }])
    const [finding] = (await diffFiles(oldInline, newInline)).filter((f) => f.rule === 'schema-scripted')
    expect(finding!.level).toBe('breaking')
    expect(byKind(finding!)).toEqual(audiences)
    expectAtNode(finding!.new, newInline, pointer)
  })

  it('leaves a payload that names the same component in both versions to that component', async () => {
    await scripted()
    const asked = calls.map((c) => c.old.pointer)
    expect(asked).toContain('/requests/2/request')
    expect(asked).toContain('/events/1/message')
    expect(asked).toContain('/components/schemas/PaymentDto')
    expect(asked).not.toContain('/requests/2/response')
    expect(asked).not.toContain('/requests/1/request')
  })

  it('passes the witness on, and asks the engine in OpenAPI 3.0 dialect with $refs resolved into components', async () => {
    script.set(refundRequest, () => [change(refundRequest, 'widens', { value: { paymentId: 1 }, acceptedBy: 'new' })])
    const [finding] = await scripted()
    expect(finding!.data).toEqual({
      effect: 'widens',
      witness: { value: { paymentId: 1 }, acceptedBy: 'new' },
      witnessIn: { topic: 'payments:refund', place: 'request' },
    })
    const call = calls.find((c) => c.old.pointer === refundRequest)!
    expect(call.options).toMatchObject({ dialect: 'openapi-3.0', int64: 'number' })
    expect(call.old.file).toBe(oldFile)
    expect(call.next.file).toBe(newFile)
    expect(call.old.resolve('#/components/schemas/Money', { file: oldFile, pointer: refundRequest })).toEqual({
      file: oldFile,
      document: call.old.document,
      pointer: '/components/schemas/Money',
    })
    expect(call.old.resolve('#/components/schemas/Nowhere', { file: oldFile, pointer: refundRequest })).toBeUndefined()
    expect(call.old.resolve('other.json#/Money', { file: oldFile, pointer: refundRequest })).toBeUndefined()
  })
})

describe('a component schema', () => {
  it('found from the component that refers to it and at itself is one finding, at the higher level', async () => {
    const pointer = '/components/schemas/Money/properties/currency'
    // As an engine that follows `$ref` reports it: from CapturePayment (which names Money) and from Money itself.
    script.set('/components/schemas/CapturePayment', () => [{ ...change(pointer, 'unknown'), message: 'Seen from CapturePayment.' }])
    script.set('/components/schemas/Money', () => [change(pointer, 'widens')])
    const findings = await scripted()
    expect(findings).toHaveLength(1)
    expect(findings[0]!.level).toBe('breaking')
    expect(byKind(findings[0]!)).toEqual(['service:payments:capture@v2'])
    expect(findings[0]!.message).toBe('Component schema "Money": It changed.')
    expectAtNode(findings[0]!.old, oldFile, pointer)
    // At one level, the audiences of both.
    script.set('/components/schemas/Money', () => [change(pointer, 'narrows')])
    script.set('/components/schemas/CapturePayment', () => [change(pointer, 'widens')])
    const [both] = await scripted()
    expect(byKind(both!)).toEqual(['client:payments:capture@v2', 'service:payments:capture@v2'])
  })

  it('shared by responses and an event: a narrowing breaks the service for each, a widening each client', async () => {
    script.set('/components/schemas/PaymentDto', () => [change('/components/schemas/PaymentDto', 'narrows')])
    const [narrowed] = await scripted()
    expect(byKind(narrowed!)).toEqual(['service:payment:captured@v1', 'service:payments:capture@v2', 'service:payments:refund'])
    script.set('/components/schemas/PaymentDto', () => [change('/components/schemas/PaymentDto', 'widens')])
    const [widened] = await scripted()
    expect(byKind(widened!)).toEqual(['client:payment:captured@v1', 'client:payments:capture@v2', 'client:payments:refund'])
  })

  it('used as a request and as a response: a widening breaks the receivers of both', async () => {
    script.set('/components/schemas/Void', () => [change('/components/schemas/Void', 'widens')])
    const [finding] = await scripted()
    expect(finding!.level).toBe('breaking')
    expect(byKind(finding!)).toEqual(['client:payments:ping', 'service:benzene:spec', 'service:payments:ping'])
  })

  it('that no payload reaches breaks nobody', async () => {
    script.set('/components/schemas/Unused', () => [change('/components/schemas/Unused', 'both')])
    const [finding] = await scripted()
    expect(finding!.level).toBe('info')
    expect(finding!.audiences).toEqual([])
  })

  it("a parent's child reached through the parent's discriminator has the parent's parties", async () => {
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
    const doc = {
      openapi: '3.0.1',
      info: { title: 'pets', version: '' },
      requests: [{ topic: 'pets:get', request: { type: 'string' }, response: ref('Pet') }],
      events: [],
      components: {
        schemas: {
          Pet: { type: 'object', discriminator: { propertyName: 'kind' }, properties: { kind: { type: 'string' } }, required: ['kind'] },
          Dog: { allOf: [ref('Pet'), { type: 'object', properties: { bark: { type: 'boolean' } } }] },
        },
      },
    }
    const file = writeTmp('pets', doc)
    script.set('/components/schemas/Dog', (old, next) => [
      {
        rule: 'schema-scripted',
        effect: 'widens',
        old: { file: old.file, pointer: old.pointer },
        new: { file: next.file, pointer: next.pointer },
        message: 'It changed.',
      },
    ])
    const [finding] = (await diffFiles(file, file)).filter((f) => f.rule === 'schema-scripted')
    // No `$ref` leads from Pet to Dog (§5.3's closure of the response is Pet alone), yet a client receiving a Pet may receive a Dog.
    expect(finding!.level).toBe('breaking')
    expect(byKind(finding!)).toEqual(['client:pets:get'])
  })
})

describe('the work asked of the engine', () => {
  it('is one call per component and per payload that is not a bare reference to the same component, whatever the size', async () => {
    const n = 2000
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
    const schemas: Record<string, unknown> = { Shared: { type: 'string' } }
    const requests = []
    for (let i = 0; i < n; i++) {
      schemas[`R${i}`] = { type: 'object', properties: { shared: ref('Shared') } }
      // Every other topic's request is inline: that payload is asked about itself.
      requests.push({ topic: `t:${i}`, request: i % 2 === 0 ? ref(`R${i}`) : { type: 'object', properties: { r: ref(`R${i}`) } }, response: ref('Shared') })
    }
    const doc = { openapi: '3.0.1', info: { title: 'large', version: '' }, requests, events: [], components: { schemas } }
    const file = writeTmp('large', doc)
    script.set('/components/schemas/Shared', () => [change('/components/schemas/Shared', 'narrows')])
    const [finding] = (await diffFiles(file, file)).filter((f) => f.rule === 'schema-scripted')
    expect(calls).toHaveLength(n + 1 + n / 2)
    // Every topic reaches Shared through its request (its clients send it) and its response (the service sends it): a narrowing breaks both senders.
    expect(finding!.audiences.filter((a) => a.kind === 'client')).toHaveLength(n)
    expect(finding!.audiences.filter((a) => a.kind === 'service')).toHaveLength(n)
  })
})
