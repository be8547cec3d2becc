/**
 * Message `headers` schemas on every path of the NATS client, against a real nats-server with
 * JetStream: a `$ref` headers schema on a JetStream message (consume and fetch), a header given
 * twice, names compared exactly, the forms a send may give headers in, and a channel whose message
 * has no headers schema (left alone). The sibling cases of test/probe-nats-headers.test.ts. Waits
 * are bounded; nothing here asserts a time.
 */
import { headers as natsHeaders, type MsgHdrs, type NatsConnection } from '@nats-io/nats-core'
import { jetstream } from '@nats-io/jetstream'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { runInNewContext } from 'node:vm'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { bindContract, ContractClientError, provision, type ContractModule } from '../src/runtime/nats/client/index.js'
import { headerObject } from '../src/runtime/nats/client/headers.js'
import { loadModule } from './helpers/load-module.js'
import { NATS_SERVER } from './helpers/nats-server.js'
import { connectedNatsServer, reached } from './helpers/nats-connected.js'
import { TSC, TSC7 } from './helpers/cli.js'
import { typeVerdicts } from './helpers/typecheck.js'
import { withEdits } from './helpers/fixture-edits.js'

const root = join(import.meta.dirname, '..')
const tmp = join(import.meta.dirname, '.tmp/nats-headers', String(process.pid))

let compiled = 0
/** The reply message of askPrice, where a test adds a headers schema. */
const PRICE_REPLY = '  priceReply:\n    messages:\n      price:\n        payload:'

/** The orders-client contract with headers: OrderPlaced's by `$ref` (closed), noted's inline; the price messages have none. */
function headersDocument(): string {
  const text = readFileSync(join(root, 'fixtures/nats/client/orders.asyncapi.yaml'), 'utf8')
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
  return withEdits(text, edits)
}

async function headersContract(text = headersDocument()): Promise<{ module: ContractModule; dts: string }> {
  mkdirSync(tmp, { recursive: true })
  const file = join(tmp, `headers-${++compiled}.asyncapi.yaml`)
  writeFileSync(file, text)
  const result = await compile(file)
  expect(result.diagnostics).toEqual([])
  return { module: (await loadModule(result.code!, 'nats-headers')) as unknown as ContractModule, dts: result.dts! }
}

const order = (orderId: string) => ({ orderId, total: 1, currency: 'EUR', lines: [{ sku: 's', quantity: 1 }] })

function hdrs(...pairs: Array<[string, string]>) {
  const h = natsHeaders()
  for (const [k, v] of pairs) h.append(k, v)
  return h
}

describe.skipIf(!NATS_SERVER)('message headers schemas on every client path (real nats-server)', () => {
  const nats = connectedNatsServer()
  let nc: NatsConnection
  let module: ContractModule

  beforeAll(async () => {
    nc = nats.nc
    ;({ module } = await headersContract())
    await provision(module, nc, { allowOlderServer: true })
  }, 60_000)

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
    const seen: Array<[unknown, string | undefined]> = []
    const refused: Array<[string, string | undefined]> = []
    const consumer = await client.consume(
      'onOrderPlaced' as never,
      (m: { payload: { orderId: string }; headers?: MsgHdrs; headerValues?: Record<string, string>; ack(): void }) => {
        handled.push(m.payload.orderId)
        // The handler gets what was checked (Nats- names left out), the raw MsgHdrs beside it.
        seen.push([{ ...m.headerValues }, m.headers?.get('Nats-Msg-Id')])
        m.ack()
      },
      { onError: (e) => void refused.push([e.code, e.errors[0]?.path]) },
    )
    await reached(() => handled.length + refused.length, 3, 5_000)
    await consumer.stop()
    expect(handled).toEqual(['aa000001'])
    expect(seen).toEqual([[{ traceId: 't-1' }, 'aa000001']])
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
    expect(fetched.map((m) => [{ ...(m as { headerValues?: object }).headerValues }, Object.isFrozen((m as { headerValues?: object }).headerValues)])).toEqual([
      [{ traceId: 'b' }, true],
    ])
    expect(refused.map((e) => [e.code, e.errors.map((x) => [x.path, x.code])])).toEqual([['INVALID_HEADERS', [['/traceId', 'repeated']]]])
  }, 20_000)

  it('header names are exact (nats.js v3 matches them case-sensitively): TraceId is not traceId', async () => {
    const client = bindContract(module, nc, { allowOlderServer: true })
    const handled: string[] = []
    const refused: string[] = []
    const values: unknown[] = []
    const sub = client.subscribe(
      'onNote' as never,
      (m: { payload: { text: string }; headerValues?: object }) => {
        handled.push(m.payload.text)
        values.push({ ...m.headerValues })
      },
      { onError: (e) => void refused.push(e.code) },
    )
    await nc.flush()
    nc.publish('shop.eu.notes.0a1b2c3d', JSON.stringify({ text: 'upper' }), { headers: hdrs(['TraceId', 'x']) })
    nc.publish('shop.eu.notes.0a1b2c3d', JSON.stringify({ text: 'exact' }), { headers: hdrs(['traceId', 'x']) })
    await nc.flush()
    await reached(() => handled.length + refused.length, 2, 2_000)
    sub.unsubscribe()
    expect(handled).toEqual(['exact'])
    expect(values).toEqual([{ traceId: 'x' }])
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

  it('a message with 20,000 header fields is checked in one pass, and the next message of the connection is handled after it (an outside pass: it held every subscription for 30 s)', async () => {
    const client = bindContract(module, nc, { allowOlderServer: true })
    const handled: Array<[string, number]> = []
    const refused: string[] = []
    const sub = client.subscribe(
      'onNote' as never,
      (m: { payload: { text: string }; headerValues?: object }) => void handled.push([m.payload.text, Object.keys(m.headerValues ?? {}).length]),
      { onError: (e) => void refused.push(e.code) },
    )
    await nc.flush()
    // Built as a peer writing the protocol would (MsgHdrs.append is itself quadratic); nats.js writes the block in one pass.
    const many = natsHeaders()
    const held = many as unknown as { headers: Map<string, string[]> }
    for (let i = 0; i < 20_000; i++) held.headers.set(`x${i}`, ['v'])
    held.headers.set('traceId', ['t-many'])
    nc.publish('shop.eu.notes.aa000009', JSON.stringify({ text: 'many' }), { headers: many })
    nc.publish('shop.eu.notes.aa000010', JSON.stringify({ text: 'next' }), { headers: hdrs(['traceId', 't-next']) })
    await nc.flush()
    await reached(() => handled.length + refused.length, 2, 20_000)
    sub.unsubscribe()
    expect(refused).toEqual([])
    expect(handled).toEqual([
      ['many', 20_001],
      ['next', 1],
    ])
  }, 30_000)

  it('a message with no headers schema is left alone: any headers, repeated ones included, in and out', async () => {
    expect(module.channels.priceQuery!.validateHeaders).toBeUndefined()
    const client = bindContract(module, nc, { allowOlderServer: true })
    const handled: string[] = []
    const refused: string[] = []
    const raw: Array<[string[] | undefined, unknown]> = []
    const sub = client.subscribe(
      'answerPrice' as never,
      (m: { payload: { sku: string }; headers?: MsgHdrs; headerValues?: object }) => {
        handled.push(m.payload.sku)
        // Nothing checked, nothing read: no headerValues; the MsgHdrs as they came.
        raw.push([m.headers?.values('a'), m.headerValues])
      },
      { onError: (e) => void refused.push(e.code) },
    )
    await nc.flush()
    nc.publish('shop.prices.eu', JSON.stringify({ sku: 'twice' }), { headers: hdrs(['a', '1'], ['a', '2']) })
    nc.publish('shop.prices.us', JSON.stringify({ sku: 'none' }))
    await nc.flush()
    await reached(() => handled.length + refused.length, 2, 2_000)
    sub.unsubscribe()
    expect(handled).toEqual(['twice', 'none'])
    expect(raw).toEqual([
      [['1', '2'], undefined],
      [undefined, undefined],
    ])
    expect(refused).toEqual([])
  })
})

describe.skipIf(!NATS_SERVER)(
  'a channel whose messages differ in having a headers schema: each message’s headers held with its payload (real nats-server)',
  () => {
    // AsyncAPI 3.1.0 (Message Object): `noted` requires traceId, `plain` has no headers schema (any
    // headers); the reply channel's `busy` requires retryAfter beside `price`, which has none.
    const nats = connectedNatsServer()
    let module: ContractModule
    const plain = '      plain:\n        payload: { type: object, required: [plain], additionalProperties: false, properties: { plain: { type: string } } }\n'
    const busy =
      '      busy:\n        headers: { type: object, required: [retryAfter], properties: { retryAfter: { type: string, pattern: "^[0-9]+$" } } }\n        payload: { type: object, required: [busy], properties: { busy: { const: true } } }\n'

    beforeAll(async () => {
      ;({ module } = await headersContract(
        withEdits(headersDocument(), [
          [
            '            text: { type: string, maxLength: 200, description: What was noted. }\n',
            `            text: { type: string, maxLength: 200, description: What was noted. }\n${plain}`,
          ],
          [
            "      price:\n        payload: { $ref: '#/components/schemas/Price' }\n",
            `      price:\n        payload: { $ref: '#/components/schemas/Price' }\n${busy}`,
          ],
        ]),
      ))
    }, 60_000)

    it('the module holds each message’s pair, no headers validator of the set', () => {
      for (const id of ['orderNoted', 'priceReply']) {
        expect(module.channels[id]!.validateHeaders).toBeUndefined()
        expect(module.channels[id]!.validateByMessage).toHaveLength(2)
      }
    })

    it('publish: noted without its header is refused and nothing sent; noted with it, and plain with any headers (a name given twice), are sent', async () => {
      const client = bindContract(module, nats.nc, { allowOlderServer: true })
      const at = { region: 'eu', orderId: '0a1b2c3d' }
      const got: Array<[string, string[] | undefined]> = []
      const sub = nats.nc.subscribe('shop.eu.notes.>', { callback: (_e, m) => void got.push([m.string(), m.headers?.values('a')]) })
      await nats.nc.flush()
      const refusal = (send: () => unknown) => {
        try {
          send()
        } catch (error) {
          return [(error as ContractClientError).code, (error as ContractClientError).errors[0]?.path]
        }
        return undefined
      }
      expect(refusal(() => client.publish('noteOrder' as never, at as never, { text: 'a' } as never))).toEqual(['INVALID_HEADERS', '/traceId'])
      expect(refusal(() => client.publish('noteOrder' as never, at as never, { text: 'a' } as never, { headers: hdrs(['a', '1']) } as never))).toEqual([
        'INVALID_HEADERS',
        '/traceId',
      ])
      expect(refusal(() => client.publish('noteOrder' as never, at as never, { text: 'b' } as never, { headers: { traceId: 't' } } as never))).toBeUndefined()
      expect(refusal(() => client.publish('noteOrder' as never, at as never, { plain: 'c' } as never))).toBeUndefined()
      expect(
        refusal(() => client.publish('noteOrder' as never, at as never, { plain: 'd' } as never, { headers: hdrs(['a', '1'], ['a', '2']) } as never)),
      ).toBeUndefined()
      // A payload of neither message is the payload's problem, found first.
      expect(refusal(() => client.publish('noteOrder' as never, at as never, { other: 1 } as never, { headers: { traceId: 't' } } as never))?.[0]).toBe(
        'INVALID_PAYLOAD',
      )
      await nats.nc.flush()
      await reached(() => got.length, 3, 2_000)
      sub.unsubscribe()
      expect(got).toEqual([
        ['{"text":"b"}', []],
        ['{"plain":"c"}', undefined],
        ['{"plain":"d"}', ['1', '2']],
      ])
    })

    it('receive: a peer’s noted without its header goes to onError; noted with it and plain with any headers reach the handler', async () => {
      const client = bindContract(module, nats.nc, { allowOlderServer: true })
      const handled: Array<[string, object | undefined]> = []
      const refused: Array<[string, string | undefined]> = []
      const sub = client.subscribe(
        'onNote' as never,
        (m: { payload: { text?: string; plain?: string }; headerValues?: object }) => void handled.push([m.payload.text ?? m.payload.plain!, m.headerValues]),
        { onError: (e) => void refused.push([e.code, e.errors[0]?.path]) },
      )
      await nats.nc.flush()
      nats.nc.publish('shop.us.notes.0a1b2c3d', JSON.stringify({ text: 'no header' }), { headers: hdrs(['other', 'x']) })
      nats.nc.publish('shop.us.notes.0a1b2c3d', JSON.stringify({ text: 'with header' }), { headers: hdrs(['traceId', 't']) })
      nats.nc.publish('shop.us.notes.0a1b2c3d', JSON.stringify({ plain: 'twice' }), { headers: hdrs(['a', '1'], ['a', '2']) })
      nats.nc.publish('shop.us.notes.0a1b2c3d', JSON.stringify({ plain: 'none' }))
      await nats.nc.flush()
      await reached(() => handled.length + refused.length, 4, 2_000)
      sub.unsubscribe()
      // No headerValues: the set has no one headers type to give them.
      expect(handled).toEqual([
        ['with header', undefined],
        ['twice', undefined],
        ['none', undefined],
      ])
      expect(refused).toEqual([['INVALID_HEADERS', '/traceId']])
    })

    it('request: a busy reply without retryAfter (or with one its pattern refuses) is an invalid response; busy with it and a price without headers are answers', async () => {
      const client = bindContract(module, nats.nc, { allowOlderServer: true })
      const answers: Array<[string, MsgHdrs | undefined]> = [
        [JSON.stringify({ busy: true }), undefined],
        [JSON.stringify({ busy: true }), hdrs(['retryAfter', 'soon'])],
        [JSON.stringify({ busy: true }), hdrs(['retryAfter', '5'])],
        [JSON.stringify({ sku: 'a', cents: 1 }), hdrs(['x', '1'], ['x', '2'])],
      ]
      let next = 0
      const responder = nats.nc.subscribe('shop.prices.eu', {
        callback: (_e, m) => {
          const [data, headers] = answers[next++]!
          m.respond(data, headers ? { headers } : undefined)
        },
      })
      await nats.nc.flush()
      const results: unknown[] = []
      for (let i = 0; i < answers.length; i++) {
        const r = (await client.request('askPrice' as never, { region: 'eu' } as never, { sku: 'a' } as never)) as {
          ok: boolean
          reason?: string
          errors?: Array<{ path: string }>
        }
        results.push(r.ok ? 'ok' : [r.reason, r.errors?.[0]?.path])
      }
      responder.unsubscribe()
      expect(results).toEqual([['invalid-response', '/retryAfter'], ['invalid-response', '/retryAfter'], 'ok', 'ok'])
    })
  },
)

describe.skipIf(!NATS_SERVER)('a headers schema that names a Nats- header has it checked (real nats-server with JetStream)', () => {
  // Trace requires Nats-Msg-Id (JetStream's de-duplication id) of eight hex digits beside traceId,
  // closed: msgID counts as that header; other Nats- names (Nats-Expected-Stream) are still not the schema's.
  const nats = connectedNatsServer()
  let module: ContractModule
  let dts: string

  beforeAll(async () => {
    ;({ module, dts } = await headersContract(
      withEdits(headersDocument(), [
        [
          '      required: [traceId]\n      additionalProperties: false\n      properties:\n        traceId: { type: string, minLength: 1 }\n',
          '      required: [traceId, Nats-Msg-Id]\n      additionalProperties: false\n      properties:\n        traceId: { type: string, minLength: 1 }\n        Nats-Msg-Id: { type: string, pattern: "^[0-9a-f]{8}$" }\n',
        ],
      ]),
    ))
    await provision(module, nats.nc, { allowOlderServer: true })
  }, 60_000)

  it('publish: msgID or the header itself is the required Nats-Msg-Id; neither, or one its pattern refuses, is INVALID_HEADERS and nothing is stored; a duplicate is de-duplicated', async () => {
    const client = bindContract(module, nats.nc, { allowOlderServer: true })
    const at = (orderId: string) => ({ region: 'eu', orderId }) as never
    const refusal = async (send: () => Promise<unknown>) => {
      try {
        await send()
      } catch (error) {
        if (!(error instanceof ContractClientError)) throw error
        return [error.code, error.errors[0]?.path]
      }
      return 'sent'
    }
    const results = [
      await refusal(() => client.publish('placeOrder' as never, at('cc000001'), order('cc000001') as never, { headers: { traceId: 't' } } as never)),
      await refusal(() =>
        client.publish('placeOrder' as never, at('cc000002'), order('cc000002') as never, { headers: { traceId: 't' }, msgID: 'not-hex' } as never),
      ),
      await refusal(() =>
        client.publish('placeOrder' as never, at('cc000003'), order('cc000003') as never, { headers: { traceId: 't' }, msgID: 'cc000003' } as never),
      ),
      await refusal(() =>
        client.publish('placeOrder' as never, at('cc000004'), order('cc000004') as never, { headers: { traceId: 't', 'Nats-Msg-Id': 'cc000004' } } as never),
      ),
      // The same id again: JetStream's duplicate_window keeps one (the PubAck says duplicate).
      await client.publish('placeOrder' as never, at('cc000004'), order('cc000004') as never, { headers: { traceId: 't' }, msgID: 'cc000004' } as never),
      // Another Nats- name, which the schema does not name: sent, not checked (a closed schema still takes it).
      await refusal(() =>
        client.publish(
          'placeOrder' as never,
          at('cc000005'),
          order('cc000005') as never,
          {
            headers: { traceId: 't', 'Nats-Expected-Stream': 'ORDERS' },
            msgID: 'cc000005',
          } as never,
        ),
      ),
    ]
    expect(results.slice(0, 4)).toEqual([['INVALID_HEADERS', '/Nats-Msg-Id'], ['INVALID_HEADERS', '/Nats-Msg-Id'], 'sent', 'sent'])
    expect((results[4] as { duplicate: boolean }).duplicate).toBe(true)
    expect(results[5]).toBe('sent')
    const stream = await (await import('@nats-io/jetstream')).jetstreamManager(nats.nc).then((m) => m.streams.info('ORDERS'))
    expect(stream.state.messages).toBe(3)
  }, 20_000)

  it('consume: the stored Nats-Msg-Id is checked and handed over in headerValues; a peer’s message without one goes to onError', async () => {
    const client = bindContract(module, nats.nc, { allowOlderServer: true })
    await jetstream(nats.nc).publish('shop.us.orders.dd000001.placed', JSON.stringify(order('dd000001')), { headers: hdrs(['traceId', 't']) })
    const handled: Array<[string, object]> = []
    const refused: Array<[string, string | undefined]> = []
    const consumer = await client.consume(
      'onOrderPlaced' as never,
      (m: { payload: { orderId: string }; headerValues: object; ack(): void }) => {
        handled.push([m.payload.orderId, { ...m.headerValues }])
        m.ack()
      },
      { onError: (e) => void refused.push([e.code, e.errors[0]?.path]) },
    )
    await reached(() => handled.length + refused.length, 4, 5_000)
    await consumer.stop()
    expect(handled).toEqual([
      ['cc000003', { traceId: 't', 'Nats-Msg-Id': 'cc000003' }],
      ['cc000004', { traceId: 't', 'Nats-Msg-Id': 'cc000004' }],
      ['cc000005', { traceId: 't', 'Nats-Msg-Id': 'cc000005' }],
    ])
    expect(refused).toEqual([['INVALID_HEADERS', '/Nats-Msg-Id']])
  }, 20_000)

  it.each([
    ['TypeScript 6', TSC, 'e6'],
    ['TypeScript 7 (native)', TSC7, 'e7'],
  ])(
    '%s: the options a send type-checks with are those the client sends with: msgID stands for the required Nats-Msg-Id of a JetStream send; a core send takes neither msgID nor timeoutMs',
    async (_name, compiler, prefix) => {
      const client = bindContract(module, nats.nc, { allowOlderServer: true })
      // Each send its own id (eight hex digits, as the schema's Nats-Msg-Id pattern and the orderId token ask).
      const sends = [
        ['placeOrder', undefined],
        ['placeOrder', "{ headers: { traceId: 't' } }"],
        ['placeOrder', "{ headers: { traceId: 't', 'Nats-Msg-Id': '@id' } }"],
        ['placeOrder', "{ headers: { traceId: 't' }, msgID: '@id' }"],
        ['placeOrder', "{ msgID: '@id' }"],
        ['placeOrder', "{ headers: { traceId: 't', 'Nats-Msg-Id': '@id' }, msgID: '@id' }"],
        ['placeOrder', "{ headers: { traceId: 't' }, msgID: '@id', timeoutMs: 5000 }"],
        ['placeOrder', "{ headers: { traceId: 't', other: 'o' }, msgID: '@id' }"],
        ['noteOrder', "{ headers: { traceId: 't' } }"],
        ['noteOrder', undefined],
        ['noteOrder', "{ headers: { traceId: 't' }, msgID: '@id' }"],
        ['noteOrder', "{ headers: { traceId: 't' }, timeoutMs: 1000 }"],
        ['noteOrder', "{ headers: { traceId: 't' }, msgID: undefined, timeoutMs: undefined }"],
      ] as const
      const calls = sends.map(([operation, options], k) => {
        const id = `${prefix}0000${k.toString(16).padStart(2, '0')}`
        const payload = operation === 'placeOrder' ? `order('${id}')` : "{ text: 'a' }"
        return {
          operation,
          id,
          options: options?.replaceAll('@id', id),
          text: `void client.publish('${operation}', at('${id}'), ${payload}${options ? `, ${options.replaceAll('@id', id)}` : ''})`,
        }
      })
      const verdicts: boolean[] = []
      for (const call of calls) {
        // The options as the type-checked file writes them: the same object literal, evaluated.
        const options = call.options === undefined ? [] : [runInNewContext(`(${call.options})`) as unknown]
        const payload = call.operation === 'placeOrder' ? order(call.id) : { text: 'a' }
        try {
          await (client.publish as (...a: unknown[]) => unknown)(call.operation, { region: 'eu', orderId: call.id }, payload, ...options)
          verdicts.push(true)
        } catch (error) {
          expect(error).toBeInstanceOf(ContractClientError)
          expect(['INVALID_HEADERS', 'OPERATION_NOT_ALLOWED']).toContain((error as ContractClientError).code)
          verdicts.push(false)
        }
      }
      expect(verdicts).toEqual([false, false, true, true, false, true, true, false, true, false, false, false, true])
      const header = `import * as orders from './orders.js'
import { bindContract } from 'unplugin-contracts/runtime/nats/client'
import type { NatsConnection } from '@nats-io/nats-core'
declare const nc: NatsConnection
const client = bindContract(orders, nc)
const at = (orderId: string) => ({ region: 'eu', orderId }) as const
const order = (orderId: string): orders.OrderPlaced => ({ orderId, total: 1, currency: 'EUR', lines: [{ sku: 's', quantity: 1 }] })
`
      const good = calls.filter((_, i) => verdicts[i]).map((c) => c.text)
      const bad = Object.fromEntries(calls.filter((_, i) => !verdicts[i]).map((c) => [c.text, c.text]))
      const v = typeVerdicts(join(tmp, `msg-id-${prefix}`), { orders: dts }, { header, good: good.join('\n') + '\n', bad }, compiler)
      expect(v.goodFailed, v.output).toBe(false)
      expect(v.badAccepted, v.output).toEqual([])
    },
    60_000,
  )
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
      // The receive lists the message without one: each operation carries messages that agree (NATS_HEADERS_MIXED otherwise).
      [
        "  onNote:\n    action: receive\n    channel: { $ref: '#/channels/orderNoted' }\n",
        "  onNote:\n    action: receive\n    channel: { $ref: '#/channels/orderNoted' }\n    messages: [{ $ref: '#/channels/orderNoted/messages/plain' }]\n",
      ],
    ]
    text = withEdits(text, edits)
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
    // The types follow the operation, not the channel: noteOrder must give the header, onNote reads none.
    const header = `import * as orders from './orders.js'
import { bindContract } from 'unplugin-contracts/runtime/nats/client'
import type { NatsConnection } from '@nats-io/nats-core'
declare const nc: NatsConnection
const client = bindContract(orders, nc)
const at = { region: 'eu', orderId: '0a1b2c3d' } as const
`
    const good = `
client.publish('noteOrder', at, { text: 'a' }, { headers: { traceId: 'x' } })
client.subscribe('onNote', (m) => { const none: undefined = m.headerValues; const p: string = m.payload.plain; void none; void p })
`
    const bad = {
      'the listed message without its required header': `client.publish('noteOrder', at, { text: 'a' })`,
      'checked headers read where the operation checks none': `client.subscribe('onNote', (m) => { const t: string = m.headerValues.traceId; void t })`,
    }
    const v = typeVerdicts(join(tmp, 'listed-types'), { orders: result.dts! }, { header, good, bad }, TSC)
    expect(v.goodFailed, v.output).toBe(false)
    expect(v.badAccepted, v.output).toEqual([])
  }, 60_000)
})

describe.each([
  ['TypeScript 6', TSC],
  ['TypeScript 7 (native)', TSC7],
])('headers are typed exactly as their validator checks them (%s)', (_name, compiler) => {
  it('a send whose schema requires a header must give it (options required), as a plain object of strings with exact names; handlers and request results get the checked headers typed', async () => {
    // The reply message gets an optional header: a request result's `headerValues` is typed by it.
    const { dts } = await headersContract(
      withEdits(headersDocument(), [
        [PRICE_REPLY, `${PRICE_REPLY.replace('payload:', '')}headers: { type: object, properties: { served: { type: string } } }\n        payload:`],
      ]),
    )
    const header = `import * as orders from './orders.js'
import { bindContract } from 'unplugin-contracts/runtime/nats/client'
import { headers, type NatsConnection } from '@nats-io/nats-core'
declare const nc: NatsConnection
const client = bindContract(orders, nc)
const note = [{ region: 'eu', orderId: '0a1b2c3d' }, { text: 'a' }] as const
const params = { region: 'eu', orderId: '0a1b2c3d' } as const
const order: orders.OrderPlaced = { orderId: 'x', total: 1, currency: 'EUR', lines: [{ sku: 's', quantity: 1 }] }
`
    const good = `
client.publish('noteOrder', ...note, { headers: { traceId: 'x' } })
client.publish('noteOrder', ...note, { headers: { traceId: 'x', other: 'y' } })
void client.publish('placeOrder', params, order, { headers: { traceId: 'x' }, msgID: 'm' })
void client.publish('placeOrder', params, order, { headers: { traceId: 'x', 'Nats-Expected-Stream': 'ORDERS' } })
client.subscribe('onNote', (m) => { const t: string = m.headerValues.traceId; const raw: string | undefined = m.headers?.get('traceId'); const o: string | undefined = m.headerValues.other; void t; void raw; void o })
client.subscribe('answerPrice', (m) => { const raw: string | undefined = m.headers?.get('anything'); const none: undefined = m.headerValues; void raw; void none })
void client.consume('onOrderPlaced', (m) => { const t: string = m.headerValues.traceId; void t; m.ack() })
export async function fetched() { const [m] = await client.fetch('onOrderPlaced', { batch: 1 }); const t: string | undefined = m?.headerValues.traceId; return t }
export async function ask() {
  await client.request('askPrice', { region: 'eu' }, { sku: 'a' }, { headers: headers() })
  await client.request('askPrice', { region: 'eu' }, { sku: 'a' }, { headers: { anything: 'x' } })
  const r = await client.request('askPrice', { region: 'eu' }, { sku: 'a' })
  if (r.ok) { const served: string | undefined = r.headerValues.served; return served }
  return r.reason
}
`
    const bad: Record<string, string> = {
      'no options where a header is required': `client.publish('noteOrder', ...note)`,
      'options without headers where a header is required': `client.publish('noteOrder', ...note, {})`,
      'a required header missing': `client.publish('noteOrder', ...note, { headers: { other: 'y' } })`,
      'a header value that is not a string': `client.publish('noteOrder', ...note, { headers: { traceId: 1 } })`,
      'a name in another case (names are exact)': `client.publish('noteOrder', ...note, { headers: { TraceId: 'x' } })`,
      'MsgHdrs where the schema types the headers (they cannot be typed)': `client.publish('noteOrder', ...note, { headers: headers() })`,
      'a header a closed schema does not have': `void client.publish('placeOrder', params, order, { headers: { traceId: 'x', other: 'y' } })`,
      'a JetStream send without its required header': `void client.publish('placeOrder', params, order, { msgID: 'm' })`,
      'a handler reading a header a closed schema does not have': `void client.consume('onOrderPlaced', (m) => { const o: string = m.headerValues.other; void o })`,
      'a handler reading checked headers where there is no schema': `client.subscribe('answerPrice', (m) => { const x: string = m.headerValues.anything; void x })`,
      'a checked header read as a number': `client.subscribe('onNote', (m) => { const n: number = m.headerValues.traceId; void n })`,
      'a header an open schema does not declare read as always there (it may be absent)': `client.subscribe('onNote', (m) => { const o: string = m.headerValues.other; void o })`,
      'a reply header read as a number': `export async function ask() { const r = await client.request('askPrice', { region: 'eu' }, { sku: 'a' }); if (r.ok) { const n: number | undefined = r.headerValues.served; return n } }`,
    }
    const v = typeVerdicts(join(tmp, compiler === TSC ? 'types-ts6' : 'types-ts7'), { orders: dts }, { header, good, bad }, compiler)
    expect(v.goodFailed, v.output).toBe(false)
    expect(v.badAccepted, v.output).toEqual([])
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
