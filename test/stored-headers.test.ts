/**
 * Header blocks read in one pass: `decodeHeaderBlock` against nats.js's own `MsgHdrsImpl.decode` (the
 * oracle: same fields, values, status and the same refusals), and the stored messages the durable
 * executor reads (its records and claims, `jsm.streams.getMessage`) against a real nats-server,
 * where a record written by anyone with access to the bucket may carry thousands of header fields:
 * nats.js's `StoredMsg.header` decodes them quadratically. JetStream stores at most 64 KB of headers
 * with a message (about 7,000 short fields; a larger block is not stored), and nats.js took about
 * 0.3 s to read such a record's message id, on every read of it: the reader must not go through it.
 */
import { headers, MsgHdrsImpl, type MsgHdrs } from '@nats-io/nats-core'
import { jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeHeaderBlock, headerObject, storedHeaders, storedMsgId } from '../src/runtime/nats/client/headers.js'
import { openRecordBucket } from '../src/runtime/nats/executor/durable/records.js'
import { NATS_SERVER, startNatsServer, type NatsServer } from './helpers/nats-server.js'

const bytes = (text: string) => new TextEncoder().encode(text)

/** What a decoding gives: its fields in order with their values, its status; or that it threw. */
function reading(decode: () => MsgHdrs): unknown {
  try {
    const h = decode()
    return { code: h.code, description: h.description, fields: [...(h as MsgHdrsImpl).headers.entries()] }
  } catch (error) {
    return { threw: (error as Error).name }
  }
}

describe('decodeHeaderBlock reads a block as nats.js does', () => {
  // Names from a small alphabet so that repeats are frequent, with what nats.js refuses in a name
  // (a space, a DEL, a non-ASCII letter) and values with the white space it trims.
  const name = fc.stringMatching(/^[aA\- \x7fé]{0,3}$/)
  const value = fc.stringMatching(/^[ v\tü:]{0,4}$/)
  const line = fc.oneof(
    fc.tuple(name, value).map(([n, v]) => `${n}:${v}`),
    fc.constantFrom('', 'no colon', ':', 'Nats-Msg-Id: x', 'Nats-Msg-Id:y'),
  )
  const status = fc.constantFrom('NATS/1.0', 'NATS/1.0 503', 'NATS/1.0 408 Request Timeout', 'NATS/1.0  100 Idle Heartbeat ', 'NATS/1.0 x', 'HTTP/1.1 200')

  it('the same fields, values and status, or the same refusal, on random blocks', () => {
    let refused = 0
    let runs = 0
    fc.assert(
      fc.property(status, fc.array(line, { maxLength: 12 }), (first, lines) => {
        const block = bytes([first, ...lines, '', ''].join('\r\n'))
        const ours = reading(() => decodeHeaderBlock(block))
        expect(ours).toEqual(reading(() => MsgHdrsImpl.decode(block)))
        runs++
        if ((ours as { threw?: string }).threw) refused++
      }),
      { numRuns: 2000 },
    )
    // Not vacuous: both readings and refusals were compared.
    expect(refused).toBeGreaterThan(runs / 20)
    expect(refused).toBeLessThan(runs - runs / 20)
  })
})

describe('headerObject reads nats.js headers in one pass', () => {
  /** The same headers behind the public MsgHdrs methods only (no map to read): the reading by name, the oracle. */
  const lookAlike = (h: MsgHdrsImpl) =>
    ({ keys: () => h.keys(), values: (name: string) => h.values(name), get: (name: string) => h.get(name), append: () => {} }) as unknown as MsgHdrs

  it('the same object or the same problems as reading each name through MsgHdrs, on random headers', () => {
    const field = fc.tuple(fc.constantFrom('a', 'A', 'b', 'Nats-Msg-Id', 'nats-x', '__proto__', 'c-d'), fc.constantFrom('v', '', 'w x'))
    fc.assert(
      fc.property(fc.array(field, { maxLength: 10 }), (fields) => {
        const h = new MsgHdrsImpl()
        for (const [name, value] of fields) h.append(name, value)
        expect(headerObject(h)).toEqual(headerObject(lookAlike(h)))
      }),
      { numRuns: 500 },
    )
  })

  it("20,000 names: read from the map, never through nats.js's lookup of every name for each (quadratic: 30 s on one message)", () => {
    const h = new MsgHdrsImpl()
    for (let i = 0; i < 20_000; i++) h.headers.set(`x${i}`, ['v'])
    const findKeys = MsgHdrsImpl.prototype.findKeys
    let lookups = 0
    MsgHdrsImpl.prototype.findKeys = function (this: MsgHdrsImpl, ...args: Parameters<typeof findKeys>) {
      lookups++
      return findKeys.apply(this, args)
    }
    try {
      const read = headerObject(h)
      expect(read.ok && Object.keys(read.value).length).toBe(20_000)
    } finally {
      MsgHdrsImpl.prototype.findKeys = findKeys
    }
    expect(lookups).toBe(0)
  })
})

describe.skipIf(!NATS_SERVER)('stored messages with many header fields (a real nats-server)', () => {
  let server: NatsServer
  const connections: Array<{ close(): Promise<void> }> = []
  beforeAll(async () => {
    server = await startNatsServer()
  })
  afterAll(async () => {
    for (const nc of connections) await nc.close()
    await server?.stop()
  })
  const open = async () => {
    const nc = await connect({ servers: server.url })
    connections.push(nc)
    return nc
  }

  /** nats.js's decoding, refused while `run` runs: what the reader reads must not go through it. */
  async function withoutNatsDecoding<T>(run: () => Promise<T>): Promise<T> {
    const decode = MsgHdrsImpl.decode
    let called = 0
    MsgHdrsImpl.decode = (...args: Parameters<typeof decode>) => {
      called++
      return decode(...args)
    }
    try {
      const answer = await run()
      expect(called, 'MsgHdrsImpl.decode calls').toBe(0)
      return answer
    } finally {
      MsgHdrsImpl.decode = decode
    }
  }

  /** Headers with `names` fields `<i>: v` and the message id, built as a peer writing the protocol would (MsgHdrs.append is itself quadratic). */
  function manyFields(names: number, msgId: string, extra: Record<string, string> = {}): MsgHdrs {
    const h = headers()
    const held = h as unknown as { headers: Map<string, string[]> }
    for (let i = 0; i < names; i++) held.headers.set(String(i), ['v'])
    for (const [name, value] of Object.entries(extra)) held.headers.set(name, [value])
    held.headers.set('Nats-Msg-Id', [msgId])
    return h
  }

  it('a record written with 7,000 header fields reads as its value, in one pass', async () => {
    const nc = await open()
    const bucket = await openRecordBucket(nc, 'many_fields', { settleMs: 2000 })
    if (!bucket.ok) throw new Error(bucket.message)
    nc.publish('$KV.many_fields.op-1', JSON.stringify({ state: 'open', votes: 2 }), { headers: manyFields(7000, 'id-7k') })
    await nc.flush()
    const read = await withoutNatsDecoding(() => bucket.value.read<{ state: string }>('op-1'))
    expect(read).toMatchObject({ ok: true, value: { value: { state: 'open', votes: 2 } } })
  })

  it('a stored message reads as nats.js reads it, and its message id is found in one pass', async () => {
    const nc = await open()
    const jsm = await jetstreamManager(nc)
    await jsm.streams.add({ name: 'STORED', subjects: ['stored.>'] })
    const small = headers(408, 'Request Timeout')
    small.append('a', ' padded ')
    small.append('a', 'second')
    small.append('Nats-Msg-Id', 'first-id')
    small.append('Nats-Msg-Id', 'second-id')
    nc.publish('stored.small', 'x', { headers: small })
    nc.publish('stored.many', 'x', { headers: manyFields(7000, 'id-many') })
    await nc.flush()
    const get = async (subject: string) => (await jsm.streams.getMessage('STORED', { last_by_subj: subject }))!

    // The oracle: the same stored message's header, decoded by nats.js (each read is a fresh message).
    const theirs = await get('stored.small')
    const ours = await get('stored.small')
    expect(reading(() => storedHeaders(ours))).toEqual(reading(() => theirs.header))
    expect(storedMsgId(await get('stored.small'))).toBe('first-id')

    const many = await get('stored.many')
    const id = await withoutNatsDecoding(async () => storedMsgId(many))
    expect(id).toBe('id-many')
    expect(storedHeaders(many).keys()).toHaveLength(7001)
  })

  it('a stored message whose headers nats.js refuses has no message id, and reading it never throws', async () => {
    const nc = await open()
    const jsm = await jetstreamManager(nc)
    await jsm.streams.add({ name: 'REFUSED', subjects: ['refused.>'] })
    nc.publish('refused.one', 'x', { headers: manyFields(0, 'id-bad', { 'bad name': 'v' }) })
    await nc.flush()
    const get = async () => (await jsm.streams.getMessage('REFUSED', { last_by_subj: 'refused.one' }))!
    const theirs = await get()
    expect(reading(() => theirs.header)).toEqual({ threw: expect.any(String) })
    expect(storedMsgId(await get())).toBeUndefined()
  })
})
