/**
 * An operation that lists some of its channel's messages (`operation.messages`) carries those only:
 * the generated client refuses to send another message of the channel (INVALID_PAYLOAD, before
 * anything is published) and a receive operation does not hand one to its handler; the generated
 * types do not offer it. Against a real nats-server (test/helpers/nats-server.ts) and tsc --strict.
 */
import { connect } from '@nats-io/transport-node'
import type { NatsConnection } from '@nats-io/nats-core'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { bindContract, ContractClientError, type ContractModule } from '../src/runtime/nats/client/index.js'
import { TSC } from './helpers/cli.js'
import { loadModule } from './helpers/load-module.js'
import { NATS_SERVER, startNatsServer, type NatsServer } from './helpers/nats-server.js'
import { typeVerdicts } from './helpers/typecheck.js'

const base = readFileSync(join(import.meta.dirname, '../fixtures/nats/client/orders.asyncapi.yaml'), 'utf8')
const within = <T>(ms: number, what: string, promise: Promise<T>) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms))])

/** The client fixture with a second message on orderNoted (`flagged`), which noteOrder and onNote do not list. */
function listing(lists = true): string {
  const edits: Array<[string, string]> = [
    [
      '            text: { type: string, maxLength: 200, description: What was noted. }\n',
      '            text: { type: string, maxLength: 200, description: What was noted. }\n      flagged:\n        payload: { type: object, required: [flag], additionalProperties: false, properties: { flag: { type: boolean } } }\n',
    ],
    [
      "  noteOrder:\n    action: send\n    channel: { $ref: '#/channels/orderNoted' }\n",
      "  noteOrder:\n    action: send\n    channel: { $ref: '#/channels/orderNoted' }\n    messages: [{ $ref: '#/channels/orderNoted/messages/noted' }]\n",
    ],
    [
      "  onNote:\n    action: receive\n    channel: { $ref: '#/channels/orderNoted' }\n",
      "  onNote:\n    action: receive\n    channel: { $ref: '#/channels/orderNoted' }\n    messages: [{ $ref: '#/channels/orderNoted/messages/noted' }]\n",
    ],
  ]
  let text = base
  for (const [from, to] of lists ? edits : edits.slice(0, 1)) {
    if (!text.includes(from)) throw new Error(`edit did not apply: ${from}`)
    text = text.replace(from, to)
  }
  return text
}

async function compileListing(lists = true) {
  const dir = join(import.meta.dirname, '.tmp', 'operation-messages')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `orders-${process.pid}.asyncapi.yaml`)
  writeFileSync(file, listing(lists))
  try {
    return await compile(file)
  } finally {
    rmSync(file)
  }
}

describe.skipIf(!NATS_SERVER)('operation.messages at run time, against nats-server', () => {
  let server: NatsServer
  let nc: NatsConnection
  let raw: NatsConnection
  let mod: ContractModule

  beforeAll(async () => {
    server = await startNatsServer()
    const result = await compileListing()
    expect(result.diagnostics).toEqual([])
    mod = (await loadModule(result.code!, 'operation-messages')) as unknown as ContractModule
    nc = await connect({ servers: server.url })
    raw = await connect({ servers: server.url })
  }, 30_000)

  afterAll(async () => {
    await nc?.close()
    await raw?.close()
    await server?.stop()
  })

  it('the descriptor names the listed messages; a message of the channel the operation does not list is refused before it is sent', async () => {
    expect(mod.operations.noteOrder!.messages).toEqual(['noted'])
    expect(mod.operations.placeOrder!.messages).toBeUndefined()
    const client = bindContract(mod, nc, { allowOlderServer: true })
    const seen: unknown[] = []
    const sub = raw.subscribe('shop.eu.notes.0a1b2c3d', { callback: (_e, m) => seen.push(m.json()) })
    await raw.flush()
    let refused: unknown
    try {
      ;(client.publish as (op: string, p: unknown, v: unknown) => void)('noteOrder', { region: 'eu', orderId: '0a1b2c3d' }, { flag: true })
    } catch (e) {
      refused = e
    }
    expect(refused).toBeInstanceOf(ContractClientError)
    expect(refused).toMatchObject({ code: 'INVALID_PAYLOAD', message: expect.stringContaining('(noted)') })
    ;(client.publish as (op: string, p: unknown, v: unknown) => void)('noteOrder', { region: 'eu', orderId: '0a1b2c3d' }, { text: 'listed' })
    await nc.flush()
    await within(
      5_000,
      'the listed message',
      (async () => {
        for (let i = 0; i < 100 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 20))
      })(),
    )
    sub.unsubscribe()
    // Only the listed message reached the server.
    expect(seen).toEqual([{ text: 'listed' }])
  })

  it('a receive operation does not hand its handler a message it does not list; it reports it', async () => {
    const client = bindContract(mod, nc, { allowOlderServer: true })
    const handled: unknown[] = []
    const errors: ContractClientError[] = []
    const sub = (client.subscribe as (op: string, h: (m: { payload: unknown }) => void, o: object) => { unsubscribe(): void })(
      'onNote',
      (m) => handled.push(m.payload),
      { onError: (e: ContractClientError) => errors.push(e) },
    )
    await nc.flush()
    raw.publish('shop.eu.notes.0a1b2c3d', JSON.stringify({ flag: true }))
    raw.publish('shop.eu.notes.0a1b2c3d', JSON.stringify({ text: 'listed' }))
    await raw.flush()
    await within(
      5_000,
      'both messages',
      (async () => {
        for (let i = 0; i < 100 && handled.length + errors.length < 2; i++) await new Promise((r) => setTimeout(r, 20))
      })(),
    )
    sub.unsubscribe()
    expect(handled).toEqual([{ text: 'listed' }])
    expect(errors.map((e) => e.code)).toEqual(['INVALID_PAYLOAD'])
  })
})

describe('operation.messages in the generated types (tsc --strict)', () => {
  it('the client offers an operation only the messages it lists; operations listing none of them take the whole channel', async () => {
    const { dts, diagnostics } = await compileListing()
    expect(diagnostics).toEqual([])
    const header = `import * as orders from './orders.js'
import { bindContract } from 'unplugin-contracts/runtime/nats/client'
import type { NatsConnection } from '@nats-io/nats-core'
declare const nc: NatsConnection
const client = bindContract(orders, nc)
`
    const good = `
client.publish('noteOrder', { region: 'eu', orderId: '0a1b2c3d' }, { text: 'a' })
client.subscribe('onNote', (m) => { const t: string = m.payload.text; void t })
const flagged: { flag: boolean } | { text: string } = { flag: true }
void orders.channels.orderNoted.validatePayload?.(flagged)
`
    const bad: Record<string, string> = {
      'a message of the channel the send operation does not list': `client.publish('noteOrder', { region: 'eu', orderId: 'x' }, { flag: true })`,
      'a handler reading a message the receive operation does not list': `client.subscribe('onNote', (m) => { if ('flag' in m.payload) { const f: boolean = m.payload.flag; void f } })`,
    }
    const v = typeVerdicts(join(import.meta.dirname, '.tmp', 'operation-messages-types'), { orders: dts! }, { header, good, bad }, TSC)
    expect(v.goodFailed, v.output).toBe(false)
    expect(v.badAccepted, v.output).toEqual([])
    // The control: without the lists, the same lines send and read messages of the channel, and type-check.
    const whole = await compileListing(false)
    expect(whole.diagnostics).toEqual([])
    const control = typeVerdicts(join(import.meta.dirname, '.tmp', 'operation-messages-control'), { orders: whole.dts! }, { header, good, bad }, TSC)
    expect(control.badRefused, control.output).toEqual([])
  }, 60_000)
})
