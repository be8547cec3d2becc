/**
 * Message `headers` schemas on every path of the NATS client, against a real nats-server with
 * JetStream: a `$ref` headers schema on a JetStream message (consume and fetch), a header given
 * twice, names compared exactly, the forms a send may give headers in, and a channel whose message
 * has no headers schema (left alone). The sibling cases of test/probe-nats-headers.test.ts. Waits
 * are bounded; nothing here asserts a time.
 */
import { connect } from '@nats-io/transport-node'
import { headers as natsHeaders, type NatsConnection } from '@nats-io/nats-core'
import { jetstream } from '@nats-io/jetstream'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { bindContract, ContractClientError, provision, type ContractModule } from '../src/runtime/nats/client/index.js'
import { headerObject } from '../src/runtime/nats/client/headers.js'
import { loadModule } from './helpers/load-module.js'
import { NATS_SERVER, startNatsServer, type NatsServer } from './helpers/nats-server.js'
import { TSC } from './helpers/cli.js'
import { typecheck } from './helpers/typecheck.js'

const root = join(import.meta.dirname, '..')
const tmp = join(import.meta.dirname, '.tmp/nats-headers', String(process.pid))

/** The orders-client contract with headers: OrderPlaced's by `$ref` (closed), noted's inline; the price messages have none. */
function headersDocument(): string {
  let text = readFileSync(join(root, 'fixtures/nats/client/orders.asyncapi.yaml'), 'utf8')
  const edits: Array<[string, string]> = [
    [
      "    OrderPlaced:\n      payload: { $ref: '#/components/schemas/OrderPlaced' }",
      "    OrderPlaced:\n      headers: { $ref: '#/components/schemas/Trace' }\n      payload: { $ref: '#/components/schemas/OrderPlaced' }",
    ],
    [
      '  schemas:\n',
      '  schemas:\n    Trace:\n      type: object\n      required: [traceId]\n      additionalProperties: false\n      properties:\n        traceId: { type: string, minLength: 1 }\n',
    ],
    [
      '      noted:\n        payload:',
      '      noted:\n        headers: { type: object, required: [traceId], properties: { traceId: { type: string } } }\n        payload:',
    ],
  ]
  for (const [from, to] of edits) {
    if (!text.includes(from)) throw new Error(`fixture changed: ${from}`)
    text = text.replace(from, to)
  }
  return text
}

async function headersContract(): Promise<{ module: ContractModule; dts: string }> {
  mkdirSync(tmp, { recursive: true })
  const file = join(tmp, 'headers.asyncapi.yaml')
  writeFileSync(file, headersDocument())
  const result = await compile(file)
  expect(result.diagnostics).toEqual([])
  return { module: (await loadModule(result.code!, 'nats-headers')) as unknown as ContractModule, dts: result.dts! }
}

/** Resolves once `count()` reaches `target`, or after `ms` whatever it is (a bounded wait, not a timing assertion). */
const reached = (count: () => number, target: number, ms: number) =>
  new Promise<void>((resolve) => {
    const started = Date.now()
    const poll = () => (count() >= target || Date.now() - started > ms ? resolve() : setTimeout(poll, 20))
    poll()
  })

const order = (orderId: string) => ({ orderId, total: 1, currency: 'EUR', lines: [{ sku: 's', quantity: 1 }] })

function hdrs(...pairs: Array<[string, string]>) {
  const h = natsHeaders()
  for (const [k, v] of pairs) h.append(k, v)
  return h
}

describe.skipIf(!NATS_SERVER)('message headers schemas on every client path (real nats-server)', () => {
  let server: NatsServer
  let nc: NatsConnection
  let module: ContractModule

  beforeAll(async () => {
    server = await startNatsServer()
    nc = await connect({ servers: server.url })
    ;({ module } = await headersContract())
    await provision(module, nc, { allowOlderServer: true })
  }, 30_000)

  afterAll(async () => {
    await nc?.close()
    await server?.stop()
  })

  it("a $ref headers schema is validated (the reference followed like a payload's)", () => {
    const validate = module.channels.orderPlaced!.validateHeaders!
    expect([{ traceId: 'a' }, {}, { traceId: 'a', other: 'b' }].map((h) => validate(h))).toEqual([true, false, false])
  })

  it("consume: a JetStream message without its header goes to onError and is terminated, never to the handler; the client's own Nats- headers are not the schema's", async () => {
    const client = bindContract(module, nc, { allowOlderServer: true })
    // Sent through the client with a msgID: the stored message carries Nats-Msg-Id beside traceId (a closed schema).
    await client.publish('placeOrder' as never, { region: 'eu', orderId: 'aa000001' } as never, order('aa000001') as never, {
      headers: { traceId: 't-1' },
      msgID: 'aa000001',
    })
    // A peer outside the client: no header at all, and one with an unknown header.
    const js = jetstream(nc)
    await js.publish('shop.eu.orders.aa000002.placed', JSON.stringify(order('aa000002')))
    await js.publish('shop.eu.orders.aa000003.placed', JSON.stringify(order('aa000003')), { headers: hdrs(['traceId', 't-3'], ['extra', 'x']) })
    const handled: string[] = []
    const refused: Array<[string, string | undefined]> = []
    const consumer = await client.consume(
      'onOrderPlaced' as never,
      (m: { payload: { orderId: string }; ack(): void }) => {
        handled.push(m.payload.orderId)
        m.ack()
      },
      { onError: (e) => void refused.push([e.code, e.errors[0]?.path]) },
    )
    await reached(() => handled.length + refused.length, 3, 5_000)
    await consumer.stop()
    expect(handled).toEqual(['aa000001'])
    expect(refused).toEqual([
      ['INVALID_HEADERS', '/traceId'],
      ['INVALID_HEADERS', '/extra'],
    ])
  }, 20_000)

  it('fetch: a header given twice is refused (one value per name), the good message returned', async () => {
    const client = bindContract(module, nc, { allowOlderServer: true })
    const js = jetstream(nc)
    await js.publish('shop.us.orders.bb000001.placed', JSON.stringify(order('bb000001')), { headers: hdrs(['traceId', 'a'], ['traceId', 'b']) })
    await js.publish('shop.us.orders.bb000002.placed', JSON.stringify(order('bb000002')), { headers: hdrs(['traceId', 'b']) })
    const refused: ContractClientError[] = []
    const fetched = await client.fetch('onOrderPlaced' as never, { batch: 2, expiresMs: 2_000, onError: (e) => void refused.push(e) })
    for (const m of fetched) m.ack()
    expect(fetched.map((m) => (m.payload as { orderId: string }).orderId)).toEqual(['bb000002'])
    expect(refused.map((e) => [e.code, e.errors.map((x) => [x.path, x.code])])).toEqual([['INVALID_HEADERS', [['/traceId', 'repeated']]]])
  }, 20_000)

  it('header names are exact (nats.js v3 matches them case-sensitively): TraceId is not traceId', async () => {
    const client = bindContract(module, nc, { allowOlderServer: true })
    const handled: string[] = []
    const refused: string[] = []
    const sub = client.subscribe('onNote' as never, (m: { payload: { text: string } }) => void handled.push(m.payload.text), {
      onError: (e) => void refused.push(e.code),
    })
    await nc.flush()
    nc.publish('shop.eu.notes.0a1b2c3d', JSON.stringify({ text: 'upper' }), { headers: hdrs(['TraceId', 'x']) })
    nc.publish('shop.eu.notes.0a1b2c3d', JSON.stringify({ text: 'exact' }), { headers: hdrs(['traceId', 'x']) })
    await nc.flush()
    await reached(() => handled.length + refused.length, 2, 2_000)
    sub.unsubscribe()
    expect(handled).toEqual(['exact'])
    expect(refused).toEqual(['INVALID_HEADERS'])
  })

  it('publish takes headers as a plain object or as MsgHdrs, refuses a value that is not a string or a header given twice, and sends nothing it refuses', async () => {
    const client = bindContract(module, nc, { allowOlderServer: true })
    const seen: string[] = []
    const raw = nc.subscribe('shop.eu.notes.>', { callback: (_, msg) => void seen.push(msg.json<{ text: string }>().text) })
    const attempts: Array<[string, unknown]> = [
      ['object', { traceId: 'x' }],
      ['msghdrs', hdrs(['traceId', 'x'])],
      ['number', { traceId: 1 }],
      ['twice', hdrs(['traceId', 'x'], ['traceId', 'y'])],
      ['array', ['traceId']],
    ]
    const outcomes = attempts.map(([text, headers]) => {
      try {
        client.publish('noteOrder' as never, { region: 'eu', orderId: '0a1b2c3d' } as never, { text } as never, { headers } as never)
        return 'sent'
      } catch (error) {
        return error instanceof ContractClientError ? error.code : String(error)
      }
    })
    // One round trip: whatever was sent on this connection has come back to its own subscription.
    await nc.flush()
    raw.unsubscribe()
    expect(outcomes).toEqual(['sent', 'sent', 'INVALID_HEADERS', 'INVALID_HEADERS', 'INVALID_HEADERS'])
    expect(seen).toEqual(['object', 'msghdrs'])
  })

  it('a message with no headers schema is left alone: any headers, repeated ones included, in and out', async () => {
    expect(module.channels.priceQuery!.validateHeaders).toBeUndefined()
    const client = bindContract(module, nc, { allowOlderServer: true })
    const handled: string[] = []
    const refused: string[] = []
    const sub = client.subscribe('answerPrice' as never, (m: { payload: { sku: string } }) => void handled.push(m.payload.sku), {
      onError: (e) => void refused.push(e.code),
    })
    await nc.flush()
    nc.publish('shop.prices.eu', JSON.stringify({ sku: 'twice' }), { headers: hdrs(['a', '1'], ['a', '2']) })
    nc.publish('shop.prices.us', JSON.stringify({ sku: 'none' }))
    await nc.flush()
    await reached(() => handled.length + refused.length, 2, 2_000)
    sub.unsubscribe()
    expect(handled).toEqual(['twice', 'none'])
    expect(refused).toEqual([])
  })
})

describe("an operation listing some of its channel's messages holds their headers", () => {
  it('noteOrder lists `noted` (a traceId header required) of a channel whose `plain` message has no headers schema: the operation checks, the channel does not', async () => {
    let text = headersDocument()
    const edits: Array<[string, string]> = [
      [
        '            text: { type: string, maxLength: 200, description: What was noted. }\n',
        '            text: { type: string, maxLength: 200, description: What was noted. }\n      plain:\n        payload: { type: object, required: [plain], properties: { plain: { type: string } } }\n',
      ],
      [
        "  noteOrder:\n    action: send\n    channel: { $ref: '#/channels/orderNoted' }\n",
        "  noteOrder:\n    action: send\n    channel: { $ref: '#/channels/orderNoted' }\n    messages: [{ $ref: '#/channels/orderNoted/messages/noted' }]\n",
      ],
    ]
    for (const [from, to] of edits) {
      if (!text.includes(from)) throw new Error(`fixture changed: ${from}`)
      text = text.replace(from, to)
    }
    mkdirSync(tmp, { recursive: true })
    const file = join(tmp, 'listed.asyncapi.yaml')
    writeFileSync(file, text)
    const result = await compile(file)
    expect(result.diagnostics).toEqual([])
    const module = (await loadModule(result.code!, 'nats-headers-listed')) as unknown as ContractModule
    expect(module.channels.orderNoted!.validateHeaders).toBeUndefined()
    expect(module.operations.onNote!.validateHeaders).toBeUndefined()
    const validate = module.operations.noteOrder!.validateHeaders!
    expect([{ traceId: 'x' }, {}].map((h) => validate(h))).toEqual([true, false])
    // Refused before anything is sent: no connection is reached (nothing else of it is read).
    const client = bindContract(module, {} as NatsConnection, { allowOlderServer: true })
    expect(() => client.publish('noteOrder' as never, { region: 'eu', orderId: '0a1b2c3d' } as never, { text: 'a' } as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_HEADERS' }),
    )
  })
})

describe('headers are typed from the schema (tsc --strict)', () => {
  it('publish takes the headers its schema describes (or MsgHdrs), refuses a missing required one or a value that is not a string; a message without a schema takes any', async () => {
    const { dts } = await headersContract()
    const header = `import * as orders from './orders.js'
import { bindContract } from 'unplugin-contracts/runtime/nats/client'
import { headers, type NatsConnection } from '@nats-io/nats-core'
declare const nc: NatsConnection
const client = bindContract(orders, nc)
const note = [{ region: 'eu', orderId: '0a1b2c3d' }, { text: 'a' }] as const
`
    const good = `${header}
client.publish('noteOrder', ...note, { headers: { traceId: 'x' } })
client.publish('noteOrder', ...note, { headers: { traceId: 'x', other: 'y' } })
client.publish('noteOrder', ...note, { headers: headers() })
export async function ask() { return client.request('askPrice', { region: 'eu' }, { sku: 'a' }, { headers: { anything: 'x' } }) }
`
    const bad: Record<string, string> = {
      'a required header missing': `client.publish('noteOrder', ...note, { headers: { other: 'y' } })`,
      'a header value that is not a string': `client.publish('noteOrder', ...note, { headers: { traceId: 1 } })`,
    }
    const sources: Record<string, string> = { 'good.ts': good }
    Object.values(bad).forEach((line, i) => (sources[`bad${i}.ts`] = `${header}${line}\n`))
    const r = typecheck(join(tmp, 'types'), { orders: dts }, sources, TSC)
    const failing = new Set([...r.output.matchAll(/^(\w+)\.ts\(/gm)].map((m) => m[1]))
    expect(failing.has('good'), r.output).toBe(false)
    expect(
      Object.keys(bad).filter((_, i) => !failing.has(`bad${i}`)),
      r.output,
    ).toEqual([])
  }, 60_000)
})

describe('headers read as a plain object: hostile input is a result, never a throw', () => {
  it('an array, a MsgHdrs look-alike that throws, a value that is not a string are refused; __proto__ is a name like any other', () => {
    const throwing = {
      keys: () => {
        throw new Error('boom')
      },
      values: () => [],
      get: () => '',
      append: () => undefined,
    }
    const lying = { keys: () => ['a'], values: () => [1], get: () => '', append: () => undefined }
    const outcomes = [['a'], throwing, lying, { a: 1 }, 'text', 5].map((h) => {
      const read = headerObject(h)
      return read.ok ? 'ok' : read.errors.map((e) => `${e.path} ${e.code}`).join(',')
    })
    expect(outcomes).toEqual([' type', ' type', '/a type', '/a type', ' type', ' type'])
    const proto = headerObject(hdrs(['__proto__', 'x'], ['Nats-Msg-Id', 'm'], ['none', '']))
    expect(proto.ok && Object.getPrototypeOf(proto.value) === null && { ...proto.value }).toEqual({ ['__proto__']: 'x', none: '' })
    expect(headerObject(undefined)).toMatchObject({ ok: true, value: {} })
  })
})
