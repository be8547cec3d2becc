/**
 * The NATS client and provisioning against a real nats-server with JetStream (test/helpers/nats-server.ts).
 * Debian's nats-server is 2.9.x, below the contract's minimumServerVersion 2.11.0: the default
 * refusal is itself a test, and everything else binds with the documented development override.
 */
import { connect } from '@nats-io/transport-node'
import type { NatsConnection } from '@nats-io/nats-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { compile } from '../src/index.js'
import { bindContract, ContractClientError, provision, type ContractClient, type ContractModule } from '../src/runtime/nats/client/index.js'
import { compareVersions } from '../src/runtime/shared/semver.js'
import { contracts } from './helpers/cli.js'
import { loadModule } from './helpers/load-module.js'
import { NATS_SERVER, startNatsServer, type NatsServer } from './helpers/nats-server.js'
import { reached } from './helpers/nats-connected.js'

const document = join(import.meta.dirname, '../fixtures/nats/client/orders.asyncapi.yaml')
const within = <T>(ms: number, what: string, promise: Promise<T>) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms))])
/** A promise and its resolver, for handlers. */
function signal<T>() {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return { promise, resolve }
}

describe.skipIf(!NATS_SERVER)('NATS client against nats-server', () => {
  let server: NatsServer
  let nc: NatsConnection
  let raw: NatsConnection
  let mod: ContractModule
  let client: ContractClient<ContractModule>

  beforeAll(async () => {
    server = await startNatsServer()
    const result = await compile(document)
    expect(result.diagnostics).toEqual([])
    mod = (await loadModule(result.code!, 'orders-client')) as unknown as ContractModule
    nc = await connect({ servers: server.url, reconnectTimeWait: 100, maxReconnectAttempts: -1 })
    raw = await connect({ servers: server.url })
  }, 30_000)

  afterAll(async () => {
    await nc?.close()
    await raw?.close()
    await server?.stop()
  })

  it('refuses a server older than minimumServerVersion by default, and binds with the development override', () => {
    expect(compareVersions(server.version, '2.11.0')).toBeLessThan(0)
    expect(() => bindContract(mod, nc)).toThrow(expect.objectContaining({ code: 'SERVER_TOO_OLD', message: expect.stringContaining('2.11.0') }))
    client = bindContract(mod, nc, { allowOlderServer: true })
    expect(client).toBeDefined()
  })

  it('provisioning refuses that server too, then creates the resources, then finds no difference', async () => {
    await expect(provision(mod, nc)).rejects.toMatchObject({ code: 'SERVER_TOO_OLD' })
    const dry = await provision(mod, nc, { allowOlderServer: true, dryRun: true })
    expect(dry.plan.map((p) => [p.kind, p.name, p.action])).toEqual([
      ['stream', 'ORDERS', 'create'],
      ['consumer', 'fulfil', 'create'],
    ])
    expect(dry.inSync).toBe(false)
    const created = await provision(mod, nc, { allowOlderServer: true })
    expect(created.inSync).toBe(true)
    const again = await provision(mod, nc, { allowOlderServer: true, dryRun: true })
    expect(again.plan.map((p) => [p.name, p.action, p.differences])).toEqual([
      ['ORDERS', 'none', []],
      ['fulfil', 'none', []],
    ])
  })

  it('core publish/subscribe: parameters parsed back, payload validated', async () => {
    const got = signal<unknown>()
    const errors: ContractClientError[] = []
    const sub = client.subscribe('onNote', (m) => got.resolve({ subject: m.subject, params: m.params, payload: m.payload }), { onError: (e) => errors.push(e) })
    await nc.flush()
    client.publish('noteOrder', { region: 'eu', orderId: '0a1b2c3d' }, { text: 'gift wrap' })
    expect(await within(2000, 'note', got.promise)).toEqual({
      subject: 'shop.eu.notes.0a1b2c3d',
      params: { region: 'eu', orderId: '0a1b2c3d' },
      payload: { text: 'gift wrap' },
    })
    expect(errors).toEqual([])
    sub.unsubscribe()
  })

  it('headers go with a core publish and come back on the received message', async () => {
    const got = signal<string | undefined>()
    const sub = client.subscribe('onNote', (m) => got.resolve(m.headers?.get('x-trace')))
    await nc.flush()
    client.publish('noteOrder', { region: 'us', orderId: '0a1b2c3e' }, { text: 'traced' }, { headers: { 'x-trace': 't-1' } })
    expect(await within(2000, 'headers', got.promise)).toBe('t-1')
    sub.unsubscribe()
  })

  it('subscriptions of a queue-group operation share the messages: each note reaches one of them', async () => {
    const counts = [0, 0]
    let total = 0
    const all = signal<void>()
    const subs = [0, 1].map((k) =>
      client.subscribe('onNote', () => {
        counts[k]!++
        if (++total === 20) all.resolve()
      }),
    )
    await nc.flush()
    for (let i = 0; i < 20; i++) client.publish('noteOrder', { region: 'eu', orderId: (0x20000000 + i).toString(16) }, { text: `n${i}` })
    await within(2000, 'queue', all.promise)
    await nc.flush()
    // Queue group "notes" (bindings.nats.queue): 20 deliveries in all, not 20 to each.
    expect(counts[0]! + counts[1]!).toBe(20)
    expect(mod.operations.onNote!.queue).toBe('notes')
    for (const s of subs) s.unsubscribe()
  })

  it('an invalid payload is refused before it is sent; an invalid subject value too', async () => {
    const seen: string[] = []
    const spy = raw.subscribe('shop.>', { callback: (_e, m) => seen.push(m.subject) })
    await raw.flush()
    expect(() => client.publish('noteOrder', { region: 'eu', orderId: '0a1b2c3d' }, { text: 7 } as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_PAYLOAD', errors: [expect.objectContaining({ path: '/text' })] }),
    )
    expect(() => client.publish('noteOrder', { region: 'eu', orderId: '0a1b2c3d' }, { text: 'x', extra: 1 } as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_PAYLOAD' }),
    )
    expect(() => client.publish('noteOrder', { region: 'ap', orderId: '0a1b2c3d' } as never, { text: 'x' })).toThrow(
      expect.objectContaining({ code: 'SUBJECT_INVALID_VALUE' }),
    )
    await nc.flush()
    await raw.flush()
    expect(seen).toEqual([])
    spy.unsubscribe()
  })

  it('out-of-contract subjects and invalid payloads published by a raw client reach the error callback, never the handler', async () => {
    const handled: unknown[] = []
    const errors = signal<string[]>()
    const codes: string[] = []
    const sub = client.subscribe('onNote', (m) => void handled.push(m.payload), {
      onError: (e) => {
        codes.push(e.code)
        if (codes.length === 3) errors.resolve(codes)
      },
    })
    await nc.flush()
    const enc = new TextEncoder()
    raw.publish('shop.eu.notes.NOTHEX!!', enc.encode('{"text":"x"}'))
    raw.publish('shop.eu.notes.0a1b2c3d', enc.encode('{"text":42}'))
    raw.publish('shop.eu.notes.0a1b2c3d', enc.encode('not json'))
    await raw.flush()
    expect((await within(2000, 'errors', errors.promise)).sort()).toEqual(['INVALID_PAYLOAD', 'OUT_OF_CONTRACT_SUBJECT', 'UNDECODABLE_PAYLOAD'])
    expect(handled).toEqual([])
    sub.unsubscribe()
  })

  it('a payload that is not UTF-8, starts with a byte order mark or holds an escaped lone surrogate is refused, never handed on changed (an outside pass: U+FFFD reached the handler)', async () => {
    const handled: unknown[] = []
    const refused: Array<[string, string | undefined]> = []
    const sub = client.subscribe('onNote', (m) => void handled.push(m.payload), {
      onError: (e) => void refused.push([e.code, e.errors[0]?.path]),
    })
    await nc.flush()
    const bytes = (...parts: Array<string | number[]>) => Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? [...new TextEncoder().encode(p)] : p)))
    raw.publish('shop.eu.notes.0a1b2c3d', bytes('{"text":"', [0xff, 0xfe], '"}'))
    raw.publish('shop.eu.notes.0a1b2c3d', bytes('{"text":"', [0xed, 0xa0, 0x80], '"}'))
    raw.publish('shop.eu.notes.0a1b2c3d', bytes([0xef, 0xbb, 0xbf], '{"text":"bom"}'))
    raw.publish('shop.eu.notes.0a1b2c3d', bytes('{"text":"\\ud800"}'))
    // A pair written as escapes, and a backslash before `ud800` (no escape), are text like any other.
    raw.publish('shop.eu.notes.0a1b2c3d', bytes('{"text":"\\ud83d\\ude00 \\\\ud800"}'))
    await raw.flush()
    await reached(() => handled.length + refused.length, 5, 2_000)
    sub.unsubscribe()
    expect(refused).toEqual([
      ['UNDECODABLE_PAYLOAD', undefined],
      ['UNDECODABLE_PAYLOAD', undefined],
      ['UNDECODABLE_PAYLOAD', undefined],
      ['INVALID_PAYLOAD', '/text'],
    ])
    expect(handled).toEqual([{ text: '\u{1f600} \\ud800' }])
  })

  it("a message past the server's max_payload is refused with PAYLOAD_TOO_LARGE by publish and request (nats.js threw its own error without a code: an outside pass); the connection goes on", async () => {
    const big = 'x'.repeat(2 * 1024 * 1024)
    expect(() => client.publish('noteOrder', { region: 'eu', orderId: '0a1b2c3d' }, { text: 'x' }, { headers: { trace: big } } as never)).toThrow(
      expect.objectContaining({ name: 'ContractClientError', code: 'PAYLOAD_TOO_LARGE' }),
    )
    await expect(client.request('askPrice', { region: 'eu' }, { sku: big })).rejects.toMatchObject({ name: 'ContractClientError', code: 'PAYLOAD_TOO_LARGE' })
    expect(await client.request('askPrice', { region: 'eu' }, { sku: 'a' })).toEqual({ ok: false, reason: 'no-responders' })
  })

  it('a filter subscription receives only its region', async () => {
    const got: string[] = []
    const done = signal<void>()
    const sub = client.subscribe(
      'onNote',
      (m) => {
        got.push(m.subject)
        done.resolve()
      },
      { filter: 'inRegion', filterParams: { region: 'us' } },
    )
    await nc.flush()
    client.publish('noteOrder', { region: 'eu', orderId: '00000001' }, { text: 'eu' })
    client.publish('noteOrder', { region: 'us', orderId: '00000002' }, { text: 'us' })
    await within(2000, 'filtered', done.promise)
    await nc.flush()
    expect(got).toEqual(['shop.us.notes.00000002'])
    expect(() => client.subscribe('onNote', () => undefined, { filter: 'nope' as never })).toThrow(expect.objectContaining({ code: 'OPERATION_NOT_ALLOWED' }))
    sub.unsubscribe()
  })

  it('a filter with a placeholder left out takes every value there (it threw SUBJECT_MISSING_PARAMETER); filterParams without a filter is refused (it was dropped, and every region subscribed)', async () => {
    for (const options of [{ filter: 'inRegion' as const }, { filter: 'inRegion' as const, filterParams: {} }]) {
      const got: string[] = []
      const sub = client.subscribe('onNote', (m) => void got.push(m.subject), options)
      await nc.flush()
      client.publish('noteOrder', { region: 'eu', orderId: '00000011' }, { text: 'eu' })
      client.publish('noteOrder', { region: 'us', orderId: '00000012' }, { text: 'us' })
      await reached(() => got.length, 2, 2000)
      sub.unsubscribe()
      expect(got.sort()).toEqual(['shop.eu.notes.00000011', 'shop.us.notes.00000012'])
    }
    expect(() => client.subscribe('onNote', () => undefined, { filterParams: { region: 'us' } })).toThrow(
      expect.objectContaining({ code: 'OPERATION_NOT_ALLOWED' }),
    )
  })

  it('options a send does not read are refused, not ignored: msgID and timeoutMs of a request or a core publish (null is no timeoutMs); headers that are no plain object (a Map, a Date, null: sent without their entries before)', async () => {
    const at = { region: 'eu', orderId: '00000021' } as const
    const refusal = async (send: () => unknown) => {
      try {
        await send()
      } catch (error) {
        return (error as ContractClientError).code
      }
      return 'sent'
    }
    const request = client.request.bind(client) as (...a: unknown[]) => Promise<unknown>
    const publish = client.publish.bind(client) as (...a: unknown[]) => unknown
    expect(await refusal(() => request('askPrice', { region: 'eu' }, { sku: 'a' }, { msgID: 'm' }))).toBe('OPERATION_NOT_ALLOWED')
    expect(await refusal(() => request('askPrice', { region: 'eu' }, { sku: 'a' }, { timeoutMs: 2000 }))).toBe('OPERATION_NOT_ALLOWED')
    expect(await refusal(() => publish('noteOrder', at, { text: 'a' }, { timeoutMs: 1000 }))).toBe('OPERATION_NOT_ALLOWED')
    expect(await refusal(() => publish('noteOrder', at, { text: 'a' }, { timeoutMs: null }))).toBe('sent')
    const map = new Map([['x-trace', 't']])
    for (const headers of [map, new Date(0), null, new (class Headers {})()])
      expect(await refusal(() => publish('noteOrder', at, { text: 'a' }, { headers })), String(headers)).toBe('INVALID_HEADERS')
    // Options that cannot be read (a getter or a Proxy's trap that throws, a revoked Proxy) or are
    // no object: the client's refusal, not the getter's own error or a TypeError; null is no options.
    const throwing = {}
    for (const key of ['headers', 'msgID', 'timeoutMs', 'filter', 'onError', 'maxHandlers', 'maxMessages', 'expiresMs', 'batch'])
      Object.defineProperty(throwing, key, {
        enumerable: true,
        get() {
          throw new Error('boom')
        },
      })
    const trap = new Proxy(
      {},
      {
        get() {
          throw new Error('trap')
        },
      },
    )
    const revoked = Proxy.revocable({}, {})
    revoked.revoke()
    const unreadable = [throwing, trap, revoked.proxy, 'options', 42]
    const subscribe = client.subscribe.bind(client) as (...a: unknown[]) => { unsubscribe(): void }
    const consume = client.consume.bind(client) as (...a: unknown[]) => Promise<unknown>
    const fetch = client.fetch.bind(client) as (...a: unknown[]) => Promise<unknown>
    for (const options of unreadable) {
      expect(await refusal(() => publish('noteOrder', at, { text: 'a' }, options))).toBe('OPERATION_NOT_ALLOWED')
      expect(await refusal(() => request('askPrice', { region: 'eu' }, { sku: 'a' }, options))).toBe('OPERATION_NOT_ALLOWED')
      expect(await refusal(() => subscribe('onNote', () => undefined, options))).toBe('OPERATION_NOT_ALLOWED')
      expect(await refusal(() => consume('onOrderPlaced', () => undefined, options))).toBe('OPERATION_NOT_ALLOWED')
      expect(await refusal(() => fetch('onOrderPlaced', options))).toBe('OPERATION_NOT_ALLOWED')
    }
    expect(await refusal(() => publish('noteOrder', at, { text: 'a' }, null))).toBe('sent')
    expect(await refusal(() => fetch('onOrderPlaced', null))).toBe('OPERATION_NOT_ALLOWED')
    const sub = subscribe('onNote', () => undefined, null)
    sub.unsubscribe()
    // A plain object of another realm is still a plain object.
    const { runInNewContext } = await import('node:vm')
    expect(await refusal(() => publish('noteOrder', at, { text: 'a' }, { headers: runInNewContext("({ 'x-trace': 't' })") }))).toBe('sent')
  })

  it('request/reply: a responder, none (no-responders), a slow one (timeout), an invalid first response', async () => {
    expect(await client.request('askPrice', { region: 'eu' }, { sku: 'a' })).toEqual({ ok: false, reason: 'no-responders' })
    let mode: 'fast' | 'slow' | 'bad' = 'fast'
    const responder = client.subscribe('answerPrice', (m, msg) => {
      const answer = mode === 'bad' ? { sku: m.payload.sku } : { sku: m.payload.sku, cents: 250 }
      const send = () => msg.respond(JSON.stringify(answer))
      if (mode === 'slow') setTimeout(send, 600)
      else send()
    })
    await nc.flush()
    const ok = await client.request('askPrice', { region: 'eu' }, { sku: 'a' })
    expect(ok).toMatchObject({ ok: true, payload: { sku: 'a', cents: 250 } })
    mode = 'slow'
    // The contract's timeoutMs (300), not nats.js's default (1,000 ms, longer than the 600 ms the responder takes):
    // with the default the answer would arrive and the request would be ok.
    expect(await client.request('askPrice', { region: 'us' }, { sku: 'b' })).toEqual({ ok: false, reason: 'timeout' })
    mode = 'bad'
    expect(await client.request('askPrice', { region: 'us' }, { sku: 'c' })).toMatchObject({
      ok: false,
      reason: 'invalid-response',
      errors: [expect.objectContaining({ path: '/cents' })],
    })
    responder.unsubscribe()
  })

  it('JetStream publish acknowledges from the declared stream and de-duplicates on msgID', async () => {
    const order = { orderId: 'aa000001', total: 1250, currency: 'EUR' as const }
    const first = await client.publish('placeOrder', { region: 'eu', orderId: 'aa000001' }, order, { msgID: 'order-aa000001' })
    expect(first).toMatchObject({ stream: 'ORDERS', duplicate: false })
    const second = await client.publish('placeOrder', { region: 'eu', orderId: 'aa000001' }, order, { msgID: 'order-aa000001' })
    expect(second).toMatchObject({ stream: 'ORDERS', duplicate: true, seq: first.seq })
    // A core publish has no msgID; a JetStream operation cannot be subscribed to as core.
    expect(() => client.publish('noteOrder', { region: 'eu', orderId: 'aa000001' }, { text: 'x' }, { msgID: 'm' })).toThrow(
      expect.objectContaining({ code: 'OPERATION_NOT_ALLOWED' }),
    )
    expect(() => (client as ContractClient<any>).subscribe('onOrderPlaced', () => undefined)).toThrow(
      expect.objectContaining({ code: 'OPERATION_NOT_ALLOWED' }),
    )
  })

  it('a durable consumer receives, naks with a delay, and gets the message again with its delivery count', async () => {
    const deliveries: Array<{ orderId: string; count: number }> = []
    const done = signal<void>()
    const consumer = await client.consume('onOrderPlaced', (m) => {
      deliveries.push({ orderId: m.payload.orderId, count: m.deliveryCount })
      if (m.deliveryCount === 1) m.nak(100)
      else {
        m.ack()
        done.resolve()
      }
    })
    await within(5000, 'redelivery', done.promise)
    await consumer.stop()
    expect(deliveries).toEqual([
      { orderId: 'aa000001', count: 1 },
      { orderId: 'aa000001', count: 2 },
    ])
  })

  it('consume runs at most maxHandlers handlers at once; messages waiting their turn are kept in progress, so none is delivered again', async () => {
    const { jetstreamManager } = await import('@nats-io/jetstream')
    const jsm = await jetstreamManager(nc)
    // 60 orders, 6 handlers at once, 300 ms each: the last wait about 3 s for a handler, past the
    // consumer's ack wait (2 s) by half: a waiting message not marked in progress would come again.
    const n = 60
    const ids = Array.from({ length: n }, (_, i) => `dd${String(i).padStart(6, '0')}`)
    for (const [i, orderId] of ids.entries())
      await client.publish('placeOrder', { region: 'eu', orderId }, { orderId, total: i + 1, currency: 'EUR' }, { msgID: `order-${orderId}` })
    const before = await jsm.consumers.info('ORDERS', 'fulfil')
    let running = 0
    let most = 0
    const handled = new Map<string, number>()
    const acked = new Set<string>()
    const all = signal<void>()
    const consumer = await client.consume(
      'onOrderPlaced',
      async (m) => {
        running++
        most = Math.max(most, running)
        handled.set(m.payload.orderId, (handled.get(m.payload.orderId) ?? 0) + 1)
        await new Promise((resolve) => setTimeout(resolve, 300))
        running--
        m.ack()
        acked.add(m.payload.orderId)
        if (ids.every((id) => acked.has(id))) all.resolve()
      },
      { maxHandlers: 6 },
    )
    await within(30_000, 'every order handled', all.promise)
    await consumer.stop()
    // The server takes acknowledgments apart from API requests: read until the last ones are counted (bounded).
    let after = await jsm.consumers.info('ORDERS', 'fulfil')
    for (let i = 0; i < 40 && after.num_ack_pending > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      after = await jsm.consumers.info('ORDERS', 'fulfil')
    }
    expect(most).toBe(6)
    expect(ids.map((id) => handled.get(id))).toEqual(Array(n).fill(1))
    expect(after.delivered.consumer_seq - before.delivered.consumer_seq).toBe(n)
    expect(after.num_ack_pending).toBe(0)
    // A bound that is no bound is refused.
    for (const maxHandlers of [0, 1.5, Number.NaN, -1])
      await expect(client.consume('onOrderPlaced', () => undefined, { maxHandlers })).rejects.toMatchObject({ code: 'OPERATION_NOT_ALLOWED' })
    // So is a buffer that is none (nats.js read 0 and NaN as its default of 100, and passed -1 and
    // 1.5 on) and a pull expiry under nats.js's least (it threw an InvalidArgumentError of its own).
    const pulls = [
      { maxMessages: 0 },
      { maxMessages: -1 },
      { maxMessages: 1.5 },
      { maxMessages: Number.NaN },
      { expiresMs: 999 },
      { expiresMs: 0 },
      { expiresMs: Number.NaN },
    ]
    for (const options of pulls)
      await expect(client.consume('onOrderPlaced', () => undefined, options)).rejects.toMatchObject({ code: 'OPERATION_NOT_ALLOWED' })
    for (const expiresMs of [999, 0, Number.NaN])
      await expect(client.fetch('onOrderPlaced', { batch: 1, expiresMs })).rejects.toMatchObject({ code: 'OPERATION_NOT_ALLOWED' })
    // The least of each, and no limit (the longest wait a timer keeps), are taken.
    for (const options of [{ maxMessages: 1, expiresMs: 1000 }, { expiresMs: Number.POSITIVE_INFINITY }])
      await (await client.consume('onOrderPlaced', () => undefined, options)).stop()
  }, 60_000)

  it('subscribe runs at most maxHandlers handlers at once, holds up to maxWaiting messages in arrival order, and drops and reports the rest', async () => {
    // A publisher far faster than the handlers: 40 notes at once, handlers that take 200 ms, 4 at
    // once and 10 waiting: 14 handled in arrival order, 26 dropped and reported, none lost silently.
    const handled: string[] = []
    const errors: ContractClientError[] = []
    let running = 0
    let most = 0
    const release = signal<void>()
    const sub = client.subscribe(
      'onNote',
      async (m) => {
        running++
        most = Math.max(most, running)
        await Promise.race([release.promise, new Promise((resolve) => setTimeout(resolve, 200))])
        handled.push(m.payload.text)
        running--
      },
      { onError: (e) => errors.push(e), maxHandlers: 4, maxWaiting: 10 },
    )
    await nc.flush()
    for (let i = 0; i < 40; i++) client.publish('noteOrder', { region: 'eu', orderId: '0a1b2c3d' }, { text: `note ${i}` })
    await nc.flush()
    // Bounded: every message handled or reported.
    for (let i = 0; i < 100 && handled.length + errors.length < 40; i++) await new Promise((resolve) => setTimeout(resolve, 50))
    sub.unsubscribe()
    expect(most).toBe(4)
    expect(handled.length + errors.length).toBe(40)
    expect(handled.length).toBe(14)
    expect(errors.map((e) => e.code)).toEqual(Array(26).fill('HANDLERS_BUSY'))
    expect(errors[0]!.message).toContain('4 handlers running and 10 messages waiting')
    // The first four started at once; the waiting ten in the order they came.
    expect(handled.slice(4)).toEqual(Array.from({ length: 10 }, (_, i) => `note ${i + 4}`))
    for (const [maxHandlers, maxWaiting] of [
      [0, 1],
      [1, -1],
      [2.5, 1],
      [1, Number.POSITIVE_INFINITY],
    ] as const)
      expect(() => client.subscribe('onNote', () => undefined, { maxHandlers, maxWaiting })).toThrow(expect.objectContaining({ code: 'OPERATION_NOT_ALLOWED' }))
  }, 30_000)

  it('after unsubscribe() no handler starts, as nats.js calls back no more: the messages waiting are let go and reported; drain() lets them be handled', async () => {
    for (const end of ['unsubscribe', 'drain'] as const) {
      const started: string[] = []
      const errors: ContractClientError[] = []
      const release = signal<void>()
      const sub = client.subscribe(
        'onNote',
        async (m) => {
          started.push(m.payload.text)
          await release.promise
        },
        { maxHandlers: 1, onError: (e) => errors.push(e) },
      )
      await nc.flush()
      for (let i = 0; i < 5; i++) client.publish('noteOrder', { region: 'eu', orderId: '0a1b2c3d' }, { text: `${end} ${i}` })
      await nc.flush()
      for (let i = 0; i < 100 && started.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20))
      // Four wait behind the first.
      const drained = end === 'drain' ? sub.drain() : (sub.unsubscribe(), Promise.resolve())
      release.resolve()
      await drained
      const expected = end === 'drain' ? 5 : 1
      for (let i = 0; i < 50 && started.length < expected; i++) await new Promise((resolve) => setTimeout(resolve, 20))
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect({ end, started }).toEqual({ end, started: Array.from({ length: expected }, (_, i) => `${end} ${i}`) })
      // Let go, each reported: none lost silently.
      expect(errors.map((e) => e.code)).toEqual(Array(5 - expected).fill('HANDLERS_BUSY'))
    }
  }, 30_000)

  it('subscribe holds at most maxWaitingBytes of messages while its handlers are busy: large valid messages past it are dropped and reported at once', async () => {
    // Valid notes that are large on the wire: the payload padded with JSON whitespace (the schema
    // caps the text at 200 characters, not the message) and a large header. With one handler held
    // and room for 100 messages but 100,000 bytes, about 100,000 / 30,000 wait; the rest are dropped.
    const handled: string[] = []
    const errors: ContractClientError[] = []
    const release = signal<void>()
    const sub = client.subscribe(
      'onNote',
      async (m) => {
        await release.promise
        handled.push(m.payload.text)
      },
      { onError: (e) => errors.push(e), maxHandlers: 1, maxWaiting: 100, maxWaitingBytes: 100_000 },
    )
    await nc.flush()
    const { headers } = await import('@nats-io/nats-core')
    const n = 20
    for (let i = 0; i < n; i++) {
      const h = headers()
      h.set('x-pad', 'p'.repeat(10_000))
      raw.publish('shop.eu.notes.0a1b2c3d', `{"text": "big ${i}"${' '.repeat(20_000)}}`, { headers: h })
    }
    await raw.flush()
    // Bounded: every message handled or reported.
    for (let i = 0; i < 100 && errors.length < n - 4; i++) await new Promise((resolve) => setTimeout(resolve, 50))
    release.resolve()
    for (let i = 0; i < 100 && handled.length + errors.length < n; i++) await new Promise((resolve) => setTimeout(resolve, 50))
    sub.unsubscribe()
    expect(handled.length + errors.length).toBe(n)
    // One ran at once, three (about 30,030 bytes each) fit in 100,000 bytes; a fourth would not.
    expect(handled).toEqual(['big 0', 'big 1', 'big 2', 'big 3'])
    expect(errors.map((e) => e.code)).toEqual(Array(n - 4).fill('HANDLERS_BUSY'))
    expect(errors[0]!.message).toContain('bytes of messages held, at most 100000 (maxHandlers, maxWaitingBytes)')
    for (const maxWaitingBytes of [-1, 0.5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => client.subscribe('onNote', () => undefined, { maxWaitingBytes })).toThrow(expect.objectContaining({ code: 'OPERATION_NOT_ALLOWED' }))
  }, 30_000)

  it('a JetStream message outside the contract is terminated and reported, never handed to the handler nor redelivered', async () => {
    const { jetstream } = await import('@nats-io/jetstream')
    await jetstream(raw).publish('shop.eu.orders.cc000001.placed', JSON.stringify({ orderId: 'cc000001', total: 'lots', currency: 'EUR' }))
    const errors: string[] = []
    // Bounded: a pull the stopped consumer left open may hold it for one ack wait (2 s) first.
    for (let i = 0; i < 4 && errors.length === 0; i++)
      expect(await client.fetch('onOrderPlaced', { batch: 5, expiresMs: 1000, onError: (e) => errors.push(e.code) })).toEqual([])
    expect(errors).toEqual(['INVALID_PAYLOAD'])
    // Terminated, not left to its ack wait (2 s): nothing comes back.
    await new Promise((r) => setTimeout(r, 2500))
    expect(await client.fetch('onOrderPlaced', { batch: 5, expiresMs: 1000, onError: (e) => errors.push(e.code) })).toEqual([])
    expect(errors).toEqual(['INVALID_PAYLOAD'])
  }, 20_000)

  it('provisioning reports a changed field, updates contract-owned resources only with --update, and never touches an external stream', async () => {
    const { jetstreamManager } = await import('@nats-io/jetstream')
    const jsm = await jetstreamManager(nc)
    await jsm.streams.update('ORDERS', { max_msgs: 5000 } as never)
    const changed = await provision(mod, nc, { allowOlderServer: true, dryRun: true })
    expect(changed.plan[0]).toMatchObject({ name: 'ORDERS', action: 'differs', differences: [{ field: 'max_msgs', contract: 100000, server: 5000 }] })
    expect(changed.inSync).toBe(false)
    const updated = await provision(mod, nc, { allowOlderServer: true, update: true })
    expect(updated.plan[0]).toMatchObject({ action: 'update' })
    expect((await jsm.streams.info('ORDERS')).config.max_msgs).toBe(100000)
    // The same stream declared external: compared, reported, never changed or created.
    const external = { ...mod, streams: { orders: { ...mod.streams.orders!, authority: 'external' as const } }, consumers: {} }
    await jsm.streams.update('ORDERS', { max_msgs: 6000 } as never)
    const report = await provision(external, nc, { allowOlderServer: true, update: true })
    expect(report.plan).toEqual([expect.objectContaining({ action: 'differs', authority: 'external' })])
    expect((await jsm.streams.info('ORDERS')).config.max_msgs).toBe(6000)
    const gone = { ...external, streams: { other: { ...external.streams.orders, config: { ...external.streams.orders.config, name: 'NOT_THERE' } } } }
    expect((await provision(gone, nc, { allowOlderServer: true })).plan).toEqual([expect.objectContaining({ name: 'NOT_THERE', action: 'missing' })])
    await expect(jsm.streams.info('NOT_THERE')).rejects.toThrow()
    await jsm.streams.update('ORDERS', { max_msgs: 100000 } as never)
  })

  it('contracts nats provision: refuses the old server, prints the plan, then what was done; exit 1 while the server differs', async () => {
    const { jetstreamManager } = await import('@nats-io/jetstream')
    const jsm = await jetstreamManager(nc)
    await jsm.streams.update('ORDERS', { max_msgs: 7000 } as never)
    const old = contracts(['nats', 'provision', document, '--server', server.url])
    expect([old.status, old.stderr]).toEqual([1, expect.stringContaining('--allow-older-server')])
    const dry = contracts(['nats', 'provision', document, '--server', server.url, '--allow-older-server', '--dry-run'])
    expect(dry.status).toBe(1)
    expect(dry.stdout).toContain('stream ORDERS (contract): differs\n    max_msgs: contract 100000, server 7000')
    const fixed = contracts(['nats', 'provision', document, '--server', server.url, '--allow-older-server', '--update'])
    expect([fixed.status, fixed.stdout]).toEqual([0, expect.stringContaining('stream ORDERS: updated')])
    const usage = contracts(['nats', 'provision', document])
    expect([usage.status, usage.stderr]).toEqual([2, expect.stringContaining('--server')])
  })

  it('survives a server restart: reconnects, and nothing on the file-backed stream is lost', async () => {
    const order = { orderId: 'bb000002', total: 99, currency: 'USD' as const }
    await client.publish('placeOrder', { region: 'us', orderId: 'bb000002' }, order, { msgID: 'order-bb000002' })
    await server.restart()
    // Bounded: the connection reconnects within the wait (reconnectTimeWait 100 ms).
    let ack: unknown
    for (let i = 0; i < 50 && ack === undefined; i++) {
      try {
        ack = await client.publish(
          'placeOrder',
          { region: 'us', orderId: 'bb000003' },
          { ...order, orderId: 'bb000003' },
          { msgID: 'order-bb000003', timeoutMs: 500 },
        )
      } catch {
        await new Promise((r) => setTimeout(r, 100))
      }
    }
    expect(ack).toMatchObject({ stream: 'ORDERS', duplicate: false })
    const fetched = await client.fetch('onOrderPlaced', { batch: 10, expiresMs: 1000 })
    expect(fetched.map((m) => m.payload.orderId)).toEqual(['bb000002', 'bb000003'])
    for (const m of fetched) m.ack()
  }, 30_000)
  it('consume and fetch refuse a contract consumer the server has acknowledging other than explicitly (a handler that fails would lose its message)', async () => {
    const { jetstreamManager, AckPolicy } = await import('@nats-io/jetstream')
    // The client's own connection: the restart above closed \`raw\` (it does not reconnect).
    const jsm = await jetstreamManager(nc)
    const contract = (await jsm.consumers.info('ORDERS', 'fulfil')).config
    try {
      for (const policy of [AckPolicy.None, AckPolicy.All]) {
        await jsm.consumers.delete('ORDERS', 'fulfil')
        await jsm.consumers.add('ORDERS', { ...contract, ack_policy: policy })
        const refused = { code: 'OPERATION_NOT_ALLOWED', message: expect.stringContaining(`acknowledging "${policy}", not explicitly`) }
        await expect(client.consume('onOrderPlaced', () => undefined)).rejects.toMatchObject(refused)
        await expect(client.fetch('onOrderPlaced', { batch: 1, expiresMs: 500 })).rejects.toMatchObject(refused)
      }
    } finally {
      await jsm.consumers.delete('ORDERS', 'fulfil').catch(() => undefined)
      await jsm.consumers.add('ORDERS', contract)
    }
    // As the contract has it again: taken (made anew, it delivers the stream's messages from the start).
    const again = await client.fetch('onOrderPlaced', { batch: 1, expiresMs: 1000 })
    expect(again).toHaveLength(1)
    for (const m of again) m.ack()
  }, 30_000)

  it('a JetStream publish refuses an empty msgID (nats.js sent no header for it), a Nats-Msg-Id header other than its msgID (nats.js sent msgID in its place, unchecked) and a Nats-Expected-Stream other than the contract’s (nats.js wrote the contract’s over it); a send the stream refuses is PUBLISH_REFUSED (nats.js’s JetStreamApiError escaped)', async () => {
    const order = (orderId: string) => ({ orderId, total: 1, currency: 'EUR' as const })
    const at = (orderId: string) => ({ region: 'eu', orderId }) as const
    const refusal = async (send: () => Promise<unknown>) => {
      try {
        await send()
      } catch (error) {
        return [(error as ContractClientError).code, (error as ContractClientError).errors[0]?.path]
      }
      return 'sent'
    }
    expect(await refusal(() => client.publish('placeOrder', at('ab000001'), order('ab000001'), { msgID: '' }))).toEqual(['INVALID_HEADERS', '/Nats-Msg-Id'])
    expect(
      await refusal(() => client.publish('placeOrder', at('ab000002'), order('ab000002'), { msgID: 'm-ab000002', headers: { 'Nats-Msg-Id': 'other' } })),
    ).toEqual(['INVALID_HEADERS', '/Nats-Msg-Id'])
    expect(
      await refusal(() => client.publish('placeOrder', at('ab000003'), order('ab000003'), { msgID: 'm-ab000003', headers: { 'Nats-Msg-Id': 'm-ab000003' } })),
    ).toBe('sent')
    expect(await refusal(() => client.publish('placeOrder', at('ab000004'), order('ab000004'), { headers: { 'Nats-Expected-Stream': 'OTHER' } }))).toEqual([
      'INVALID_HEADERS',
      '/Nats-Expected-Stream',
    ])
    expect(await refusal(() => client.publish('placeOrder', at('ab000005'), order('ab000005'), { headers: { 'Nats-Expected-Stream': 'ORDERS' } }))).toBe('sent')
    // A send the stream refuses: the client's error with the server's code (nats.js's JetStreamApiError escaped).
    const refused = await client.publish('placeOrder', at('ab000006'), order('ab000006'), { headers: { 'Nats-Expected-Last-Sequence': '999999' } }).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(refused).toMatchObject({ name: 'ContractClientError', code: 'PUBLISH_REFUSED', message: expect.stringContaining('JetStream error 10071') })
    expect((refused as Error).cause).toMatchObject({ name: 'JetStreamApiError' })
  })
})
