/**
 * Where a channel's messages (or an operation's list, or a reply channel's) have headers schemas
 * that differ, or some have none, the client checks a message's headers with its payload: it passes
 * when one message takes both (docs/nats.md, Messages). The types must be exactly as wide as that
 * check: one argument list per message for a send, one message type per message for a handler and a
 * request result. They were the messages' payloads and headers apart (a `noted` payload with a
 * `tagged` message's headers type-checked and was refused at run time).
 *
 * The oracle is the client itself on a real nats-server: every send of a grid of payloads and
 * headers is tried at run time, and what it refuses (or sends) must be what tsc 6 and 7 refuse (or
 * accept). Receiving: a peer's messages reach the handler with their own message's headers, and
 * the handler's and the result's types pair them as well.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { headers as natsHeaders } from '@nats-io/nats-core'
import { compile } from '../src/index.js'
import { bindContract, ContractClientError, type ContractModule } from '../src/runtime/nats/client/index.js'
import { loadModule } from './helpers/load-module.js'
import { NATS_SERVER } from './helpers/nats-server.js'
import { connectedNatsServer, reached } from './helpers/nats-connected.js'
import { TSC, TSC7 } from './helpers/cli.js'
import { typeVerdicts } from './helpers/typecheck.js'
import { withEdits } from './helpers/fixture-edits.js'

const root = join(import.meta.dirname, '..')
const tmp = join(import.meta.dirname, '.tmp/nats-paired-message-types', String(process.pid))

/** A closed headers schema requiring one header. */
const closedHeaders = (name: string) => `{ type: object, required: [${name}], additionalProperties: false, properties: { ${name}: { type: string } } }`

/**
 * The orders-client contract with:
 * - orderNoted: `noted` (requires traceId), `plain` (no headers schema: any headers), `tagged`
 *   (requires tag): some with a schema, some without; `noteTagged` and `onTagged` list `noted` and
 *   `tagged` only (each with a schema, the schemas differ);
 * - priceQuery: `query` (traceId) and `bulk` (batch): every message with a schema, schemas differ;
 * - priceReply: `price` (cacheAge) and `busy` (retryAfter): the same, for request results.
 */
function pairedDocument(): string {
  const text = readFileSync(join(root, 'fixtures/nats/client/orders.asyncapi.yaml'), 'utf8')
  const edits: Array<[string, string]> = [
    ['      noted:\n        payload:', `      noted:\n        headers: ${closedHeaders('traceId')}\n        payload:`],
    [
      '            text: { type: string, maxLength: 200, description: What was noted. }\n',
      '            text: { type: string, maxLength: 200, description: What was noted. }\n' +
        '      plain:\n        payload: { type: object, required: [plain], additionalProperties: false, properties: { plain: { type: string } } }\n' +
        `      tagged:\n        headers: ${closedHeaders('tag')}\n        payload: { type: object, required: [tag], additionalProperties: false, properties: { tag: { type: string } } }\n`,
    ],
    [
      "      query:\n        payload: { $ref: '#/components/schemas/PriceQuery' }\n",
      `      query:\n        headers: ${closedHeaders('traceId')}\n        payload: { $ref: '#/components/schemas/PriceQuery' }\n` +
        `      bulk:\n        headers: ${closedHeaders('batch')}\n        payload: { type: object, required: [skus], additionalProperties: false, properties: { skus: { type: array, items: { type: string } } } }\n`,
    ],
    [
      "      price:\n        payload: { $ref: '#/components/schemas/Price' }\n",
      `      price:\n        headers: ${closedHeaders('cacheAge')}\n        payload: { $ref: '#/components/schemas/Price' }\n` +
        `      busy:\n        headers: ${closedHeaders('retryAfter')}\n        payload: { type: object, required: [busy], additionalProperties: false, properties: { busy: { const: true } } }\n`,
    ],
    [
      '    noteOrder:\n      publish: { api: core, confirmation: none }\n',
      '    noteOrder:\n      publish: { api: core, confirmation: none }\n    noteTagged:\n      publish: { api: core, confirmation: none }\n    onTagged:\n      subscribe: { api: core }\n',
    ],
    [
      '  askPrice:\n    action: send\n',
      "  noteTagged:\n    action: send\n    channel: { $ref: '#/channels/orderNoted' }\n    messages: [{ $ref: '#/channels/orderNoted/messages/noted' }, { $ref: '#/channels/orderNoted/messages/tagged' }]\n" +
        "  onTagged:\n    action: receive\n    channel: { $ref: '#/channels/orderNoted' }\n    messages: [{ $ref: '#/channels/orderNoted/messages/noted' }, { $ref: '#/channels/orderNoted/messages/tagged' }]\n" +
        '  askPrice:\n    action: send\n',
    ],
  ]
  return withEdits(text, edits)
}

/** One send of the grid: an operation, a payload and the options (none when undefined), as source text. */
interface Send {
  readonly operation: 'noteOrder' | 'noteTagged' | 'askPrice'
  readonly payload: string
  readonly headers: string | undefined
}

const NOTE_PAYLOADS = ["{ text: 'a' }", "{ plain: 'p' }", "{ tag: 't' }"]
const NOTE_HEADERS = [undefined, '{}', "{ traceId: 'x' }", "{ tag: 'y' }", "{ traceId: 'x', tag: 'y' }", "{ other: '1' }"]
const PRICE_PAYLOADS = ["{ sku: 's' }", "{ skus: ['a'] }"]
const PRICE_HEADERS = [undefined, "{ traceId: 'x' }", "{ batch: 'b' }", "{ traceId: 'x', batch: 'b' }"]
const SENDS: Send[] = [
  ...(['noteOrder', 'noteTagged'] as const).flatMap((operation) =>
    NOTE_PAYLOADS.flatMap((payload) => NOTE_HEADERS.map((headers) => ({ operation, payload, headers }))),
  ),
  ...PRICE_PAYLOADS.flatMap((payload) => PRICE_HEADERS.map((headers) => ({ operation: 'askPrice' as const, payload, headers }))),
]

/** The send as a call in the type-checked file. */
function callText({ operation, payload, headers }: Send): string {
  const options = headers === undefined ? '' : `, { headers: ${headers} }`
  return operation === 'askPrice'
    ? `void client.request('askPrice', { region: 'eu' }, ${payload}${options})`
    : `client.publish('${operation}', at, ${payload}${options})`
}

/** A value of the grid's source text (object literals of strings and arrays of strings only). */
const valueOf = (source: string): unknown => JSON.parse(source.replace(/'/g, '"').replace(/(\w+):/g, '"$1":'))

let module: ContractModule
let dts: string
beforeAll(async () => {
  mkdirSync(tmp, { recursive: true })
  const file = join(tmp, 'paired.asyncapi.yaml')
  writeFileSync(file, pairedDocument())
  const result = await compile(file)
  expect(result.diagnostics).toEqual([])
  dts = result.dts!
  module = (await loadModule(result.code!, 'nats-paired-message-types')) as unknown as ContractModule
}, 60_000)

describe.skipIf(!NATS_SERVER)('sends: what the client refuses at run time is what the types refuse (real nats-server; tsc 6 and 7)', () => {
  const nats = connectedNatsServer()

  /** Whether the client sends it (true) or refuses it before anything is sent (false), by running it. */
  async function sent(send: Send): Promise<boolean> {
    const client = bindContract(module, nats.nc, { allowOlderServer: true })
    const payload = valueOf(send.payload)
    const options = send.headers === undefined ? [] : [{ headers: valueOf(send.headers) }]
    try {
      if (send.operation === 'askPrice') {
        // No responder: a request that was sent ends as no-responders; a refused one never leaves.
        const r = await (client.request as (...a: unknown[]) => Promise<{ ok: boolean; reason?: string }>)('askPrice', { region: 'eu' }, payload, ...options)
        expect(r).toEqual({ ok: false, reason: 'no-responders' })
      } else (client.publish as (...a: unknown[]) => void)(send.operation, { region: 'eu', orderId: '0a1b2c3d' }, payload, ...options)
      return true
    } catch (error) {
      expect(error).toBeInstanceOf(ContractClientError)
      expect(['INVALID_PAYLOAD', 'INVALID_HEADERS']).toContain((error as ContractClientError).code)
      return false
    }
  }

  it.each([
    ['TypeScript 6', TSC],
    ['TypeScript 7 (native)', TSC7],
  ])(
    '%s: every send of the grid type-checks exactly when the client sends it',
    async (_name, compiler) => {
      const verdicts = await Promise.all(SENDS.map(async (send) => [send, await sent(send)] as const))
      const good = verdicts.filter(([, ok]) => ok).map(([send]) => callText(send))
      const bad = Object.fromEntries(verdicts.filter(([, ok]) => !ok).map(([send]) => [callText(send), callText(send)]))
      // Both sides of the partition are populated, and each kind of refusal is in it: a payload no
      // listed message takes, and a payload with another message's headers (the pairing).
      expect(good).toContain("client.publish('noteOrder', at, { text: 'a' }, { headers: { traceId: 'x' } })")
      expect(good).toContain("client.publish('noteOrder', at, { plain: 'p' }, { headers: { traceId: 'x', tag: 'y' } })")
      expect(good).toContain("client.publish('noteOrder', at, { plain: 'p' })")
      expect(good).toContain("void client.request('askPrice', { region: 'eu' }, { skus: ['a'] }, { headers: { batch: 'b' } })")
      expect(Object.keys(bad)).toContain("client.publish('noteOrder', at, { text: 'a' }, { headers: { tag: 'y' } })")
      expect(Object.keys(bad)).toContain("client.publish('noteTagged', at, { plain: 'p' })")
      expect(Object.keys(bad)).toContain("void client.request('askPrice', { region: 'eu' }, { sku: 's' }, { headers: { batch: 'b' } })")
      // noteOrder: noted with its traceId, plain with any of the six, tagged with its tag; noteTagged and askPrice: each message with its own.
      expect([good.length, Object.keys(bad).length]).toEqual([12, SENDS.length - 12])
      const header = `import * as orders from './orders.js'
import { bindContract } from 'unplugin-contracts/runtime/nats/client'
import type { NatsConnection } from '@nats-io/nats-core'
declare const nc: NatsConnection
const client = bindContract(orders, nc)
const at = { region: 'eu', orderId: '0a1b2c3d' } as const
`
      const v = typeVerdicts(join(tmp, compiler === TSC ? 'sends-ts6' : 'sends-ts7'), { orders: dts }, { header, good: good.join('\n') + '\n', bad }, compiler)
      expect(v.goodFailed, v.output).toBe(false)
      expect(v.badAccepted, v.output).toEqual([])
    },
    120_000,
  )
})

describe.skipIf(!NATS_SERVER)('receiving: each message with its own headers (real nats-server)', () => {
  const nats = connectedNatsServer()

  it('answerPrice gets a query with its traceId and a bulk with its batch; a query with a batch, or a bulk with a traceId, goes to onError', async () => {
    const client = bindContract(module, nats.nc, { allowOlderServer: true })
    const handled: Array<[unknown, unknown]> = []
    const errors: string[] = []
    const sub = (client.subscribe as (...a: unknown[]) => { unsubscribe(): void })(
      'answerPrice',
      (m: { payload: unknown; headerValues: unknown }) => void handled.push([m.payload, { ...(m.headerValues as object) }]),
      { onError: (e: ContractClientError) => errors.push(e.code) },
    )
    await nats.nc.flush()
    const send = (payload: unknown, ...pairs: Array<[string, string]>) => {
      const h = natsHeaders()
      for (const [k, v] of pairs) h.append(k, v)
      nats.nc.publish('shop.prices.eu', JSON.stringify(payload), { headers: h })
    }
    send({ sku: 's' }, ['traceId', 'x'])
    send({ skus: ['a'] }, ['batch', 'b'])
    send({ sku: 's' }, ['batch', 'b'])
    send({ skus: ['a'] }, ['traceId', 'x'])
    await reached(() => handled.length + errors.length, 4, 10_000)
    sub.unsubscribe()
    expect(handled).toEqual([
      [{ sku: 's' }, { traceId: 'x' }],
      [{ skus: ['a'] }, { batch: 'b' }],
    ])
    expect(errors).toEqual(['INVALID_HEADERS', 'INVALID_HEADERS'])
  }, 30_000)
})

describe.each([
  ['TypeScript 6', TSC],
  ['TypeScript 7 (native)', TSC7],
])('handlers and request results pair each payload with its own message’s headers (%s)', (_name, compiler) => {
  it('headerValues narrows with the payload where every message has a headers schema, and is absent where some have none', () => {
    const header = `import * as orders from './orders.js'
import { bindContract } from 'unplugin-contracts/runtime/nats/client'
import type { NatsConnection } from '@nats-io/nats-core'
declare const nc: NatsConnection
const client = bindContract(orders, nc)
/** The messages of a union whose payload is \`P\`: a type guard as an application writes one. */
function carrying<P>(keys: string) {
  return <T extends { readonly payload: unknown }>(m: T): m is Extract<T, { readonly payload: P }> => typeof m.payload === 'object' && m.payload !== null && keys in m.payload
}
const isQuery = carrying<{ sku: string }>('sku')
const isBulk = carrying<{ skus: string[] }>('skus')
const isNoted = carrying<{ text: string }>('text')
const isTagged = carrying<{ tag: string }>('tag')
const isBusy = carrying<{ busy: true }>('busy')
`
    const good = `
client.subscribe('answerPrice', (m) => {
  if (isQuery(m)) { const t: string = m.headerValues.traceId; void t }
  if (isBulk(m)) { const b: string = m.headerValues.batch; void b }
})
client.subscribe('onTagged', (m) => {
  if (isNoted(m)) { const t: string = m.headerValues.traceId; void t }
  if (isTagged(m)) { const g: string = m.headerValues.tag; void g }
})
client.subscribe('onNote', (m) => { const none: undefined = m.headerValues; void none })
export async function ask() {
  const r = await client.request('askPrice', { region: 'eu' }, { sku: 's' }, { headers: { traceId: 'x' } })
  if (r.ok && isBusy(r)) { const after: string = r.headerValues.retryAfter; return after }
  if (r.ok && !isBusy(r)) { const age: string = r.headerValues.cacheAge; return age }
  return undefined
}
`
    const bad: Record<string, string> = {
      "a query's handler reading the bulk's header": `client.subscribe('answerPrice', (m) => { if (isQuery(m)) { const b: string = m.headerValues.batch; void b } })`,
      "a bulk's handler reading the query's header": `client.subscribe('answerPrice', (m) => { if (isBulk(m)) { const t: string = m.headerValues.traceId; void t } })`,
      "a listed noted message reading the tagged one's header": `client.subscribe('onTagged', (m) => { if (isNoted(m)) { const g: string = m.headerValues.tag; void g } })`,
      'checked headers read where some message has no headers schema': `client.subscribe('onNote', (m) => { const t: string | undefined = m.headerValues.traceId; void t })`,
      "a busy reply reading the price's header": `export async function ask() { const r = await client.request('askPrice', { region: 'eu' }, { sku: 's' }, { headers: { traceId: 'x' } }); if (r.ok && isBusy(r)) { const age: string = r.headerValues.cacheAge; return age } }`,
    }
    const v = typeVerdicts(join(tmp, compiler === TSC ? 'receive-ts6' : 'receive-ts7'), { orders: dts }, { header, good, bad }, compiler)
    expect(v.goodFailed, v.output).toBe(false)
    expect(v.badAccepted, v.output).toEqual([])
  }, 120_000)
})
