/**
 * A message's AsyncAPI `headers` schema, against a real nats-server: the compiler accepts it (and
 * `contracts diff` treats it as what senders must satisfy and receivers validated), so the client
 * must hold messages to it like payloads. A copy of the orders-client contract whose `noted` message
 * requires a `traceId` header.
 */
import { headers as natsHeaders, type NatsConnection } from '@nats-io/nats-core'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { bindContract, ContractClientError, type ContractModule } from '../src/runtime/nats/client/index.js'
import { loadModule } from './helpers/load-module.js'
import { NATS_SERVER } from './helpers/nats-server.js'
import { connectedNatsServer, reached } from './helpers/nats-connected.js'

const root = join(import.meta.dirname, '..')
const tmp = join(import.meta.dirname, '.tmp/probe-nats-headers', String(process.pid))
const NOTED = '      noted:\n        payload:'
/** The reply message of askPrice requires the same header: a responder's answer without it is not the contract's. */
const PRICE = '  priceReply:\n    messages:\n      price:\n        payload:'
const PRICE_WITH_HEADERS = '  priceReply:\n    messages:\n      price:\n        headers: { type: object, required: [traceId] }\n        payload:'
const WITH_HEADERS =
  '      noted:\n        headers:\n          type: object\n          required: [traceId]\n          properties:\n            traceId: { type: string, pattern: "^[0-9a-f]{8}$" }\n        payload:'

async function headersContract(): Promise<ContractModule> {
  const text = readFileSync(join(root, 'fixtures/nats/client/orders.asyncapi.yaml'), 'utf8')
  if (!text.includes(NOTED) || !text.includes(PRICE)) throw new Error('fixture changed: no noted or price message')
  mkdirSync(tmp, { recursive: true })
  const file = join(tmp, 'headers.asyncapi.yaml')
  writeFileSync(file, text.replace(NOTED, WITH_HEADERS).replace(PRICE, PRICE_WITH_HEADERS))
  const result = await compile(file)
  expect(result.diagnostics).toEqual([])
  return (await loadModule(result.code!, 'probe-headers')) as unknown as ContractModule
}

describe.skipIf(!NATS_SERVER)('a message headers schema is held like a payload (real nats-server)', () => {
  const nats = connectedNatsServer()
  let nc: NatsConnection
  let module: ContractModule

  beforeAll(async () => {
    nc = nats.nc
    module = await headersContract()
  }, 60_000)

  it('the compiled module keeps the headers schema where the client checks it: a headers validator beside the payload one', () => {
    // The compiler accepted the document without a diagnostic; the schema must not vanish.
    const validate = module.channels.orderNoted!.validateHeaders!
    expect(typeof validate).toBe('function')
    expect([{ traceId: '0a1b2c3d' }, {}, { traceId: 'not hex!' }].map((h) => validate(h))).toEqual([true, false, false])
    // A channel whose message has no headers schema gets no headers validator (nothing is read on its path).
    expect(module.channels.orderPlaced!.validateHeaders).toBeUndefined()
  })

  it('publish refuses headers its message schema refuses (no traceId, a traceId off the pattern), as it refuses such a payload', () => {
    const client = bindContract(module, nc, { allowOlderServer: true })
    const outcomes = [undefined, { traceId: 'not hex!' }].map((headers) => {
      try {
        client.publish('noteOrder' as never, { region: 'eu', orderId: '0a1b2c3d' } as never, { text: 'gift wrap' } as never, headers ? { headers } : {})
        return 'sent'
      } catch (error) {
        return error instanceof ContractClientError ? error.code : String(error)
      }
    })
    expect(outcomes).toEqual(['INVALID_HEADERS', 'INVALID_HEADERS'])
  })

  it('subscribe does not hand the handler a message without the required header; onError gets it', async () => {
    const client = bindContract(module, nc, { allowOlderServer: true })
    const handled: string[] = []
    const refused: string[] = []
    const sub = client.subscribe('onNote' as never, (m: { payload: { text: string } }) => void handled.push(m.payload.text), {
      onError: (e) => void refused.push(e.code),
    })
    await nc.flush()
    // A peer outside the client: one message with the header, one without, one with a wrong one.
    const good = natsHeaders()
    good.set('traceId', '0a1b2c3d')
    const bad = natsHeaders()
    bad.set('traceId', 'zzz')
    nc.publish('shop.eu.notes.0a1b2c3d', JSON.stringify({ text: 'with' }), { headers: good })
    nc.publish('shop.eu.notes.0a1b2c3d', JSON.stringify({ text: 'without' }))
    nc.publish('shop.eu.notes.0a1b2c3d', JSON.stringify({ text: 'wrong' }), { headers: bad })
    await nc.flush()
    await reached(() => handled.length + refused.length, 3, 2_000)
    sub.unsubscribe()
    expect(handled).toEqual(['with'])
    expect(refused).toHaveLength(2)
  })

  it('request: a first response without the header its reply message requires is invalid-response, as a payload would be', async () => {
    const client = bindContract(module, nc, { allowOlderServer: true })
    // A responder outside the client answering with a valid payload and no headers at all.
    const responder = nc.subscribe('shop.prices.eu', { callback: (_, msg) => void msg.respond(JSON.stringify({ sku: 'a', cents: 5 })) })
    await nc.flush()
    const answer = await client.request('askPrice' as never, { region: 'eu' } as never, { sku: 'a' } as never)
    responder.unsubscribe()
    expect(answer).toMatchObject({ ok: false, reason: 'invalid-response' })
  })

  it('request: a first response with the header is the result, its checked headers as headerValues', async () => {
    const client = bindContract(module, nc, { allowOlderServer: true })
    const responder = nc.subscribe('shop.prices.eu', {
      callback: (_, msg) => {
        const h = natsHeaders()
        h.set('traceId', 'r-1')
        msg.respond(JSON.stringify({ sku: 'a', cents: 5 }), { headers: h })
      },
    })
    await nc.flush()
    const answer = await client.request('askPrice' as never, { region: 'eu' } as never, { sku: 'a' } as never)
    responder.unsubscribe()
    expect(answer).toMatchObject({ ok: true, payload: { sku: 'a', cents: 5 }, headerValues: { traceId: 'r-1' } })
  })
})
