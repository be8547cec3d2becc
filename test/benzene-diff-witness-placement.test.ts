/**
 * A Benzene component's witness is a whole payload (docs/benzene.md, "Diff";
 * src/formats/benzene/diff/witness-placement.ts). Each component schema is compared on its own, and
 * the engine's witness for a change inside one was the component's value: for a `Money` two `$ref`s
 * deep in a request, `{ "amount": 0 }`, which no client sends and which the generated validators
 * refuse for want of the request's own members (the Benzene outside pass against the generated
 * modules over HTTP). Each witness here is sent through the versions' own generated topic clients:
 * the version that accepts it must take it as a whole request, response or event message, and the
 * other must refuse it.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { DiffFinding } from '../src/core/diff/types.js'
import { compile } from '../src/index.js'
import { createLocalSender } from '../src/runtime/index.js'
import { diffFiles } from './helpers/benzene-diff.js'
import { loadModule } from './helpers/load-module.js'

const dir = join(import.meta.dirname, '.tmp/benzene-diff-witness-placement', String(process.pid))
let made = 0

type Schemas = Record<string, Record<string, unknown>>
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

/**
 * A request whose `order` is an `Order` (its `ref` a pattern, its `at` a date-time) whose `total` is a `Money` (all required), a response with a
 * list of `Money`, an event whose `lines` are `Line`s holding `Money`, and `Loose`, which no payload names;
 * with `price`, a topic whose request is `Money` itself (a bare reference: the payload is the component).
 */
const document = (schemas: Schemas, price: boolean) => ({
  openapi: '3.0.1',
  info: { title: 'placement', version: '' },
  requests: [
    {
      topic: 'shop:order',
      request: { type: 'object', required: ['id', 'order'], properties: { id: { type: 'string', minLength: 2 }, order: ref('Order') } },
      response: { type: 'object', required: ['charges'], properties: { charges: { type: 'array', minItems: 1, items: ref('Money') } } },
    },
    ...(price ? [{ topic: 'shop:price', request: ref('Money'), response: { type: 'object' } }] : []),
  ],
  events: [{ topic: 'shop:ordered', message: { type: 'object', required: ['lines'], properties: { lines: { type: 'array', items: ref('Line') } } } }],
  components: {
    schemas: {
      Order: {
        type: 'object',
        required: ['total', 'ref', 'at'],
        properties: { ref: { type: 'string', pattern: '^o-[0-9]+$' }, at: { type: 'string', format: 'date-time' }, total: ref('Money') },
      },
      Line: { type: 'object', required: ['price'], properties: { sku: { type: 'string' }, price: ref('Money') } },
      Loose: { type: 'object', properties: { a: { type: 'integer' } } },
      ...schemas,
    },
  },
})

const MONEY = (extra: Record<string, unknown> = {}) => ({
  type: 'object',
  required: ['amount'],
  properties: { amount: { type: 'integer', minimum: 0 }, currency: { type: 'string', enum: ['EUR', 'USD'] } },
  ...extra,
})

interface Topics {
  order: { send(sender: unknown, request: unknown): Promise<{ status: string }> }
  price: { send(sender: unknown, request: unknown): Promise<{ status: string }> }
}
interface Events {
  ordered: { publish(sender: unknown, message: unknown): Promise<{ status: string }> }
}

async function versions(old: Schemas, next: Schemas, price = true) {
  mkdirSync(dir, { recursive: true })
  const files = [old, next].map((schemas) => {
    const file = join(dir, `v${made++}.spec.json`)
    writeFileSync(file, JSON.stringify(document(schemas, price), null, 2))
    return file
  })
  const findings = await diffFiles(files[0]!, files[1]!)
  const modules = await Promise.all(files.map(async (file) => loadModule((await compile(file)).code!, 'benzene-diff-witness-placement')))
  /** Whether version `i`'s generated client takes `value` as the payload at `place` of `topic`. */
  const accepts = async (i: 0 | 1, topic: string, place: string, value: unknown): Promise<boolean> => {
    const m = modules[i]! as unknown as Topics & { events: Events }
    const ok = createLocalSender({ 'shop:order': () => ({ charges: [{ amount: 1 }] }), 'shop:price': () => ({}), 'shop:ordered': () => ({}) })
    if (topic === 'shop:ordered') return (await m.events.ordered.publish(ok, value)).status === 'ok'
    const client = topic === 'shop:order' ? m.order : m.price
    if (place === 'request') return (await client.send(ok, value)).status === 'ok'
    const answering = createLocalSender({ [topic]: () => value })
    const request = topic === 'shop:order' ? { id: 'ab', order: { ref: 'o-1', at: '2026-12-07T12:00:00Z', total: { amount: 1 } } } : { amount: 1 }
    return (await client.send(answering, request)).status === 'ok'
  }
  return { findings, accepts }
}

/** Every finding with a witness: the witness sent where `data.witnessIn` says, accepted by its version only. */
async function witnessesHold(findings: DiffFinding[], accepts: Awaited<ReturnType<typeof versions>>['accepts']) {
  let checked = 0
  type Placed = { value: unknown; acceptedBy: 'old' | 'new'; in?: { topic: string; place: string } }
  const placed = (f: DiffFinding): Placed[] =>
    (f.data?.witnesses as Placed[] | undefined) ?? (f.data?.witness ? [{ ...(f.data.witness as Placed), in: f.data.witnessIn as Placed['in'] }] : [])
  for (const f of findings)
    for (const witness of placed(f)) {
      const where = witness.in
      if (where === undefined) continue
      const by = witness.acceptedBy === 'old' ? 0 : 1
      expect(await accepts(by, where.topic, where.place, witness.value), `${f.rule} ${JSON.stringify(witness)} in ${JSON.stringify(where)}`).toBe(true)
      expect(await accepts(by === 0 ? 1 : 0, where.topic, where.place, witness.value), `${f.rule} ${JSON.stringify(witness)} refused`).toBe(false)
      checked++
    }
  return checked
}

const ofComponent = (findings: DiffFinding[], name: string) => findings.filter((f) => f.message.startsWith(`Component schema "${name}"`))

describe('a component change found on its own has a whole payload as its witness', () => {
  it('Money two references deep in a request gains a required member: the witness is a request the old client sends and the new one refuses', async () => {
    const { findings, accepts } = await versions({ Money: MONEY() }, { Money: MONEY({ required: ['amount', 'currency'] }) })
    const [finding] = ofComponent(findings, 'Money').filter((f) => f.rule === 'schema-required-added')
    expect(finding?.level).toBe('breaking')
    const witness = finding!.data!.witness as { value: Record<string, unknown>; acceptedBy: string }
    expect(witness.acceptedBy).toBe('old')
    // A payload of a party the finding names (the clients of shop:order and shop:price send requests).
    expect(finding!.data!.witnessIn).toMatchObject({ place: 'request' })
    expect(await witnessesHold(findings, accepts)).toBeGreaterThan(0)
  })

  it('Money reached only inside shop:order: the witness is a whole shop:order request, with its own required members', async () => {
    // Without shop:price (whose request is Money itself), the witness must be placed inside another payload.
    const { findings, accepts } = await versions(
      { Money: MONEY() },
      { Money: MONEY({ properties: { amount: { type: 'integer', minimum: 5 }, currency: { type: 'string' } } }) },
      false,
    )
    const mins = ofComponent(findings, 'Money').filter((f) => f.data?.witness !== undefined)
    expect(mins.length).toBeGreaterThan(0)
    const inRequest = mins.filter((f) => (f.data!.witnessIn as { place: string }).place === 'request')
    expect(inRequest.length).toBeGreaterThan(0)
    for (const f of inRequest) {
      expect(f.data!.witnessIn).toEqual({ topic: 'shop:order', place: 'request' })
      const value = (f.data!.witness as { value: { id: string; order: { ref: string; at: string; total: unknown } } }).value
      expect(typeof value.id).toBe('string')
      // The request's own members, as its validators take them: a pattern's shortest string, a checked format's example.
      expect(value.order.ref).toMatch(/^o-[0-9]+$/)
      expect(value.order.at).toMatch(/^\d{4}-\d\d-\d\dT/)
      expect(value.order.total).toBeTypeOf('object')
    }
    expect(await witnessesHold(findings, accepts)).toBeGreaterThanOrEqual(mins.length)
  })

  it('a widening of Money breaks its receivers: its witness is a whole payload the new version takes and the old refuses', async () => {
    const { findings, accepts } = await versions(
      { Money: MONEY() },
      { Money: MONEY({ properties: { amount: { type: 'integer', minimum: 0 }, currency: { type: 'string', enum: ['EUR', 'USD', 'GBP'] } } }) },
      false,
    )
    const [finding] = ofComponent(findings, 'Money').filter((f) => f.rule.startsWith('schema-enum'))
    expect(finding?.level).toBe('breaking')
    expect(finding!.audiences.map((a) => `${a.kind}:${a.name}`).sort()).toEqual(['client:shop:order', 'client:shop:ordered', 'service:shop:order'])
    expect((finding!.data!.witness as { acceptedBy: string }).acceptedBy).toBe('new')
    expect(finding!.data!.witnessIn).toEqual({ topic: 'shop:order', place: 'request' })
    expect(finding!.data!.witness).toMatchObject({ value: { order: { total: { currency: 'GBP' } } } })
    expect(await witnessesHold(findings, accepts)).toBeGreaterThan(0)
  })

  it('a change of a component no payload reaches keeps its value as data.componentValue, never as data.witness', async () => {
    const { findings } = await versions({ Money: MONEY() }, { Money: MONEY(), Loose: { type: 'object', properties: { a: { type: 'integer', maximum: 3 } } } })
    const [finding] = ofComponent(findings, 'Loose')
    expect(finding?.level).toBe('info')
    expect(finding!.data!.witness).toBeUndefined()
    expect(finding!.data!.componentValue).toEqual({ value: { a: 4 }, acceptedBy: 'old' })
  })
})
