/**
 * The bytes bound on core NATS handlers, probed from outside against a real nats-server (loopback
 * only): the contract client's `subscribe` (`maxWaitingBytes`, default 64 MiB: the bytes of the
 * messages held while the handlers all run, as they travelled: subject, reply subject, header
 * block and payload, docs/nats.md) and the executor's responder in memory state (at most 64 handlers, 1,024
 * requests and 64 MiB waiting, docs/executor.md). The count bounds of `subscribe` were probed
 * before (test/probe-nats-client-bounds.test.ts) and are not repeated here.
 *
 * Each test pins a behaviour that held ("Holds (pinned)") or one this pass found wrong and is now
 * fixed ("Was a defect"). A message's size "as received" is computed here from what travelled: the subject, the
 * reply subject and the header block in UTF-8 bytes, plus the payload bytes (the header block is what
 * nats.js writes, `NATS/1.0\r\n` + `name: value\r\n` per value + `\r\n`, or the exact bytes a
 * publisher writing the protocol itself sent). Every wait is a bounded poll; no assertion is about how
 * long something took. Memory is measured loosely (after a forced collection), never as an exact number.
 *
 * The suite's nats-server is Debian's 2.9.x, below the contracts' minimumServerVersion: the client
 * binds with the documented development override.
 */
import { connect as tcpConnect, type Socket } from 'node:net'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { join } from 'node:path'
import { headers as natsHeaders, type Msg, type MsgHdrs, type NatsConnection } from '@nats-io/nats-core'
import { connect } from '@nats-io/transport-node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { bindContract, type ContractClient, type ContractClientError, type ContractModule } from '../src/runtime/nats/client/index.js'
import { createResponder, type Responder } from '../src/runtime/nats/executor/index.js'
import { bounded } from './helpers/bounded.js'
import { startRig, type Rig } from './helpers/executor-nats.js'
import { loadModule } from './helpers/load-module.js'
import { NATS_SERVER } from './helpers/nats-server.js'

type Client = ContractClient<ContractModule>

const document = join(import.meta.dirname, '../fixtures/nats/client/orders.asyncapi.yaml')
const dev = { allowOlderServer: true } as const
const SUBJECT = 'shop.eu.notes.0a1b2c3d'
const MiB = 1024 * 1024
const DEFAULT_BYTES = 64 * MiB
const utf8 = (s: string) => Buffer.byteLength(s, 'utf8')

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** A promise the test opens by hand (a handler awaiting it runs until then). */
function gate() {
  let open!: () => void
  const promise = new Promise<void>((resolve) => (open = resolve))
  return { promise, open }
}
/** Polls until `ok()`, at most `ms`: a bound on the wait, never a claim about speed. */
async function settle(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms
  while (!ok()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`)
    await pause(10)
  }
}
/** A valid note: `{"text":"<text>"}` followed by `pad` spaces of JSON white space (the schema caps the text, not the message). */
const notePayload = (text: string, pad = 0) => `{"text":${JSON.stringify(text)}${' '.repeat(pad)}}`
/** The header block nats.js writes for these headers (one value each). */
const headerBlock = (entries: Array<[string, string]>) => `NATS/1.0\r\n${entries.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`
function natsHeadersOf(entries: Array<[string, string]>): MsgHdrs {
  const h = natsHeaders()
  for (const [k, v] of entries) h.append(k, v)
  return h
}
/** A message's bytes as received: subject, reply subject, header block and payload, in bytes. */
const wireSize = (payload: string, o: { reply?: string; block?: string } = {}) => utf8(SUBJECT) + utf8(o.reply ?? '') + utf8(o.block ?? '') + utf8(payload)

/** Memory in use after a forced full collection, in MiB (heap and array buffers: a message's bytes live in the latter). */
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
function memoryMiB(): number {
  gc()
  gc()
  const m = process.memoryUsage()
  return (m.heapUsed + m.arrayBuffers) / MiB
}

/**
 * A publisher writing the NATS protocol itself (as any peer may): HPUB with the header block given
 * byte for byte, which nats.js's own `publish` would never write.
 */
async function rawPublisher(port: number) {
  const socket: Socket = tcpConnect(port, '127.0.0.1')
  let text = ''
  const pongs: Array<() => void> = []
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1')
    for (;;) {
      const ping = text.indexOf('PING\r\n')
      const pong = text.indexOf('PONG\r\n')
      if (ping === -1 && pong === -1) break
      if (pong === -1 || (ping !== -1 && ping < pong)) {
        socket.write('PONG\r\n')
        text = text.slice(0, ping) + text.slice(ping + 6)
      } else {
        text = text.slice(0, pong) + text.slice(pong + 6)
        pongs.shift()?.()
      }
    }
  })
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve())
    socket.once('error', reject)
  })
  socket.write('CONNECT {"verbose":false,"pedantic":false,"headers":true,"protocol":1}\r\n')
  return {
    hpub(subject: string, block: string, payload: string) {
      const h = Buffer.from(block, 'utf8')
      const p = Buffer.from(payload, 'utf8')
      socket.write(`HPUB ${subject} ${h.length} ${h.length + p.length}\r\n`)
      socket.write(Buffer.concat([h, p, Buffer.from('\r\n')]))
    },
    flush: () => bounded('raw flush', new Promise<void>((resolve) => (pongs.push(resolve), socket.write('PING\r\n'))), 10_000),
    /** What the server said besides PING/PONG (an -ERR would show here). */
    said: () => text,
    close: () => socket.destroy(),
  }
}

describe.skipIf(!NATS_SERVER)('core handlers: the bytes held while handlers run, probed from outside (real nats-server)', () => {
  let rig: Rig
  let nc: NatsConnection
  let raw: NatsConnection
  let client: Client
  let mod: ContractModule
  let pub: Awaited<ReturnType<typeof rawPublisher>>

  beforeAll(async () => {
    // One nats-server for both surfaces: the executor rig's (the shop bundle's payments contract).
    rig = await startRig('probe-core-bytes')
    const result = await compile(document)
    expect(result.diagnostics).toEqual([])
    mod = (await loadModule(result.code!, 'probe-core-bytes')) as unknown as ContractModule
    nc = await rig.connection()
    raw = await rig.connection()
    client = bindContract(mod, nc, dev)
    pub = await rawPublisher(rig.server.port)
  }, 60_000)

  afterAll(async () => {
    pub?.close()
    await rig?.stop()
  })

  /** Every message sent so far has reached `nc` (a round trip on it returns after them). */
  async function delivered(): Promise<void> {
    await raw.flush()
    await pub.flush()
    await nc.flush()
  }

  /**
   * One handler, held by a first small note; then `send()` publishes `n` messages. What waited (ran
   * once the first finished) and what was dropped (HANDLERS_BUSY), the count bound out of the way.
   */
  async function held(maxWaitingBytes: number | null, n: number, send: () => void, maxWaiting = 100_000) {
    const hold = gate()
    const handled: string[] = []
    const errors: ContractClientError[] = []
    const sub = client.subscribe(
      'onNote',
      async (m) => {
        handled.push(m.payload.text)
        if (m.payload.text === 'hold') await hold.promise
      },
      { maxHandlers: 1, maxWaiting, maxWaitingBytes: maxWaitingBytes as never, onError: (e) => errors.push(e) },
    )
    try {
      await nc.flush()
      raw.publish(SUBJECT, notePayload('hold'))
      await raw.flush()
      await settle('the first note running', () => handled.length === 1)
      send()
      await delivered()
      await pause(30)
      hold.open()
      await settle(`${n} messages waited or were dropped`, () => handled.length - 1 + errors.length >= n, 15_000)
      await pause(20)
      return { waited: handled.length - 1, dropped: errors.length, handled: handled.slice(1), errors }
    } finally {
      hold.open()
      sub.unsubscribe()
      await nc.flush()
    }
  }

  describe('subscribe: maxWaitingBytes', () => {
    it('counts the payload (JSON white space included), the subject and the reply subject exactly as received: at the limit a message waits, one byte past it is dropped', async () => {
      // Holds (pinned): for ASCII subjects and payloads the count is exact, and the running message is
      // not counted (a limit of exactly k messages holds k behind the one running).
      const reply = `reply.${'r'.repeat(200)}`
      const cases: Array<[string, string, { reply?: string }]> = [
        ['small', notePayload('a'), {}],
        ['padded', notePayload('b', 10_000), {}],
        ['with a reply subject', notePayload('c'), { reply }],
        ['padded, with a reply subject', notePayload('d', 3_000), { reply }],
      ]
      for (const [name, payload, options] of cases) {
        const size = wireSize(payload, options)
        const send = (n: number) => () => {
          for (let i = 0; i < n; i++) raw.publish(SUBJECT, payload, options)
        }
        const got = {
          atOne: (await held(size, 1, send(1))).waited,
          oneByteShort: (await held(size - 1, 1, send(1))).waited,
          atThree: (await held(3 * size, 5, send(5))).waited,
          threeOneByteShort: (await held(3 * size - 1, 5, send(5))).waited,
        }
        expect({ name, ...got }).toEqual({ name, atOne: 1, oneByteShort: 0, atThree: 3, threeOneByteShort: 2 })
      }
    }, 30_000)

    it('headers count as received: a message one byte past the limit with a header is dropped', async () => {
      // Was a defect (fixed; the test pins the fix): a message with headers is counted 12 bytes short of what was received: the header
      // block's `NATS/1.0\r\n` line and the blank line that ends it are left out (a note with header
      // `x-trace: abc` is 60 bytes on the wire and counted 48; limits of 48..59 all hold it). Expected
      // (docs/nats.md: "bytes of the messages held ... as received (payload, subject, reply subject,
      // headers)"): a limit one byte short of the message drops it. It matters little in bytes (12 per
      // message), but the bound is stated as exact and is not; the same measure, the decoded headers
      // rather than the bytes received, is what the next two tests break wide open.
      const payload = notePayload('h')
      const entries: Array<[string, string]> = [['x-trace', 'abc']]
      const size = wireSize(payload, { block: headerBlock(entries) })
      const send = (n: number) => () => {
        for (let i = 0; i < n; i++) raw.publish(SUBJECT, payload, { headers: natsHeadersOf(entries) })
      }
      const got = {
        atOne: (await held(size, 1, send(1))).waited,
        oneByteShort: (await held(size - 1, 1, send(1))).waited,
        twelveShort: (await held(size - 12, 1, send(1))).waited,
        threeOneByteShort: (await held(3 * size - 1, 5, send(5))).waited,
      }
      expect({ size, ...got }).toEqual({ size, atOne: 1, oneByteShort: 0, twelveShort: 0, threeOneByteShort: 2 })
    }, 30_000)

    it('a header value or reply subject outside ASCII counts in bytes, not UTF-16 code units (a publisher using nats.js as documented)', async () => {
      // Was a defect (fixed; the test pins the fix): header values and the reply subject are counted in JavaScript string length (UTF-16
      // code units), not bytes: '€' is 3 bytes on the wire and counts 1; '😀' is 4 and counts 2. With
      // maxWaitingBytes 1 MiB, ten valid notes each carrying a 300,000-byte header of '€' (100,000
      // characters) all wait: 3 MB held under a 1 MiB bound (three times the bound; the server's
      // max_payload is the only limit on a header). A reply subject of 1,000 '€' (3,002 bytes on the
      // wire) is counted as 1,002. Expected: bytes as received, so at most 3 of the ten wait and a
      // limit one byte short of the reply-subject message drops it. It matters because the bound is the
      // process's memory bound: an ordinary nats.js publisher holds 3x (headers of 3-byte characters)
      // the memory the application configured, without writing the protocol by hand.
      const euros = '€'.repeat(100_000)
      const payload = notePayload('u')
      const entries: Array<[string, string]> = [['x-pad', euros]]
      const size = wireSize(payload, { block: headerBlock(entries) })
      expect(size).toBeGreaterThan(300_000)
      const headerFlood = await held(MiB, 10, () => {
        for (let i = 0; i < 10; i++) raw.publish(SUBJECT, payload, { headers: natsHeadersOf(entries) })
      })
      const reply = `reply.${'€'.repeat(1000)}`
      const replySize = wireSize(payload, { reply })
      const replyShort = await held(replySize - 1, 1, () => raw.publish(SUBJECT, payload, { reply }))
      expect({ headerWaited: headerFlood.waited, replyOneByteShortWaited: replyShort.waited }).toEqual({
        headerWaited: Math.floor(MiB / size),
        replyOneByteShortWaited: 0,
      })
    }, 30_000)

    it('header bytes that nats.js decodes away (lines without a colon, white space around a value, a status description) still count (a publisher writing the protocol)', async () => {
      // Was a defect (fixed; the test pins the fix): only what nats.js's header decoding keeps is counted, so a publisher writing HPUB itself
      // sends a valid note with ~150,000 header bytes that count as a dozen: a line without a colon
      // (dropped by the decoding), white space around a value (trimmed), a status line's description
      // (kept apart from the headers). With maxWaitingBytes 100,000, three such notes of ~150,000 bytes
      // each all wait (450,000 bytes held under a 100,000-byte bound), and each reaches the handler as a
      // valid note. Expected: every one dropped at once (HANDLERS_BUSY), since the bytes held are the
      // bytes received. It matters because it is unbounded in the factor: a message of the server's
      // max_payload (1 MiB here) counts ~50 bytes, so the 64 MiB default holds up to maxWaiting times
      // max_payload (1 GiB here) and more past maxWaiting, which is what the bytes bound is for.
      const junk = 'j'.repeat(150_000)
      const blocks: Record<string, string> = {
        'a line without a colon': `NATS/1.0\r\nx-a: b\r\n${junk}\r\n\r\n`,
        'white space around a value': `NATS/1.0\r\nx-a:${' '.repeat(150_000)}b${' '.repeat(100)}\r\n\r\n`,
        'a status description': `NATS/1.0 100 ${junk}\r\nx-a: b\r\n\r\n`,
      }
      const got: Record<string, unknown> = {}
      const want: Record<string, unknown> = {}
      for (const [name, block] of Object.entries(blocks)) {
        const payload = notePayload(name)
        const r = await held(100_000, 3, () => {
          for (let i = 0; i < 3; i++) pub.hpub(SUBJECT, block, payload)
        })
        got[name] = { size: wireSize(payload, { block }), waited: r.waited, dropped: r.errors.map((e) => e.code) }
        want[name] = { size: wireSize(payload, { block }), waited: 0, dropped: Array(3).fill('HANDLERS_BUSY') }
      }
      expect(pub.said()).not.toContain('-ERR')
      expect(got).toEqual(want)
    }, 30_000)

    it('maxWaitingBytes 0: a message that can run at once runs, however large; nothing waits, and nothing is held for a later turn either', async () => {
      // Holds (pinned): with an idle handler a 900,000-byte note runs under a limit of 0 (only what
      // waits is counted). A handler that returns no promise is done when it returns: a burst of 50 all
      // run. A handler still running (its promise not yet settled) makes each other note of the burst dropped and
      // reported at once, where maxWaiting 0 alone holds them for the next turns and all 50 run (the
      // bytes bound covers what is held past maxWaiting too). `null` is the default (64 MiB), not 0.
      const big = await held(0, 1, () => raw.publish(SUBJECT, notePayload('big', 900_000)))
      expect({ waited: big.waited, dropped: big.dropped }).toEqual({ waited: 0, dropped: 1 })
      const runs: string[] = []
      const idle = client.subscribe('onNote', (m) => void runs.push(m.payload.text), { maxHandlers: 1, maxWaitingBytes: 0 })
      try {
        await nc.flush()
        raw.publish(SUBJECT, notePayload('alone', 900_000))
        await delivered()
        await settle('the large note ran', () => runs.length === 1)
        for (let i = 0; i < 50; i++) raw.publish(SUBJECT, notePayload(`s${i}`))
        await delivered()
        await settle('50 more ran', () => runs.length === 51)
      } finally {
        idle.unsubscribe()
        await nc.flush()
      }
      const burst = async (bounds: { maxWaiting?: number; maxWaitingBytes?: number }) => {
        const handled: string[] = []
        const errors: string[] = []
        const sub = client.subscribe(
          'onNote',
          async (m) => {
            handled.push(m.payload.text)
            // Still running while nats.js hands over the rest of the read (its promise settles after
            // that), done before the next turn: a handler awaiting a timer or an immediate could be
            // judged unfinished on a loaded machine, which made this burst's count depend on the load.
            await Promise.resolve()
          },
          { maxHandlers: 1, ...bounds, onError: (e) => errors.push(e.code) },
        )
        try {
          await nc.flush()
          for (let i = 0; i < 50; i++) raw.publish(SUBJECT, notePayload(`t${i}`))
          await delivered()
          await settle('50 handled or dropped', () => handled.length + errors.length >= 50)
          await pause(30)
          return { handled: handled.length, errors: errors.length, first: handled[0] }
        } finally {
          sub.unsubscribe()
          await nc.flush()
        }
      }
      expect(await burst({ maxWaitingBytes: 0 })).toEqual({ handled: 1, errors: 49, first: 't0' })
      expect(await burst({ maxWaiting: 0, maxWaitingBytes: 0 })).toEqual({ handled: 1, errors: 49, first: 't0' })
      expect(await burst({ maxWaiting: 0 })).toEqual({ handled: 50, errors: 0, first: 't0' })
      const defaultBytes = await held(null, 3, () => {
        for (let i = 0; i < 3; i++) raw.publish(SUBJECT, notePayload(`n${i}`, 500_000))
      })
      expect(defaultBytes.waited).toBe(3)
      // Invalid bounds (beside the earlier pass's -1, 0.5, NaN, Infinity): refused; the largest safe integer is taken.
      for (const bad of ['1000', true, 2 ** 53, 1e300, 10n, [5], { valueOf: () => 5 }, -Infinity])
        expect(() => client.subscribe('onNote', () => undefined, { maxWaitingBytes: bad as never }), String(bad)).toThrow(
          expect.objectContaining({ code: 'OPERATION_NOT_ALLOWED' }),
        )
      client.subscribe('onNote', () => undefined, { maxWaitingBytes: Number.MAX_SAFE_INTEGER }).unsubscribe()
      await nc.flush()
    }, 30_000)

    it('a message dropped for bytes does not stop a smaller one behind it from waiting; out-of-contract messages, however large, take no bytes; what waited runs in arrival order', async () => {
      // Holds (pinned): limit 3S (S = one small note as received). A (2S) waits, B (2S) would pass the
      // limit and is dropped at once, C (S) fits and waits, D (S) is dropped; large invalid payloads
      // and out-of-contract subjects in between are reported as such (not HANDLERS_BUSY) and hold
      // nothing. The drop is a ContractClientError naming maxWaitingBytes, carrying the message.
      const S = wireSize(notePayload('x'))
      const two = notePayload('x', S)
      const hold = gate()
      const handled: string[] = []
      const errors: ContractClientError[] = []
      const sub = client.subscribe(
        'onNote',
        async (m) => {
          handled.push(m.payload.text)
          if (m.payload.text === 'hold') await hold.promise
        },
        { maxHandlers: 1, maxWaiting: 100, maxWaitingBytes: 3 * S, onError: (e) => errors.push(e) },
      )
      try {
        await nc.flush()
        raw.publish(SUBJECT, notePayload('hold'))
        await raw.flush()
        await settle('hold running', () => handled.length === 1)
        raw.publish(SUBJECT, two.replace('"x"', '"A"'))
        raw.publish(SUBJECT, `{"text":7${' '.repeat(200_000)}}`)
        raw.publish(SUBJECT, two.replace('"x"', '"B"'))
        raw.publish('shop.eu.notes.NOTHEX!!', notePayload('x', 200_000))
        raw.publish(SUBJECT, `not json${' '.repeat(200_000)}`)
        raw.publish(SUBJECT, notePayload('C'))
        raw.publish(SUBJECT, notePayload('D'))
        await delivered()
        await pause(30)
        expect(errors.map((e) => e.code)).toEqual(['INVALID_PAYLOAD', 'HANDLERS_BUSY', 'OUT_OF_CONTRACT_SUBJECT', 'UNDECODABLE_PAYLOAD', 'HANDLERS_BUSY'])
        const busy = errors.filter((e) => e.code === 'HANDLERS_BUSY')
        expect(busy.map((e) => (e.msg as Msg).json<{ text: string }>().text)).toEqual(['B', 'D'])
        expect(busy[0]!.message).toContain('maxWaitingBytes')
        expect(busy[0]!.message).toContain(`at most ${3 * S}`)
        hold.open()
        await settle('A and C ran', () => handled.length === 3)
        await pause(30)
        expect(handled).toEqual(['hold', 'A', 'C'])
      } finally {
        hold.open()
        sub.unsubscribe()
        await nc.flush()
      }
    })

    it('the bytes come back: 100 bursts, each past the limit, with handlers that throw, reject or finish, and dropped and invalid messages, drop the same in the last burst as in the first', async () => {
      // Holds (pinned): bytes bound (maxWaiting out of the way) and count bound with the overflow held
      // to the next turn (bytes room for 3): every burst has the same outcome, so neither a drop, a
      // handler failure nor an invalid message leaks held bytes.
      const S = wireSize(notePayload('n000000'))
      for (const maxWaiting of [100, 2]) {
        let hold = gate()
        let k = 0
        const handled: string[] = []
        const codes: string[] = []
        const sub = client.subscribe(
          'onNote',
          (m) => {
            handled.push(m.payload.text)
            k++
            if (k % 4 === 1) return hold.promise
            if (k % 4 === 2) throw new Error('sync failure')
            if (k % 4 === 3) return Promise.reject(new Error('async failure'))
            return undefined
          },
          { maxHandlers: 1, maxWaiting, maxWaitingBytes: 3 * S, onError: (e) => codes.push(e.code) },
        )
        const outcomes: string[] = []
        let n = 0
        try {
          await nc.flush()
          for (let round = 0; round < 100; round++) {
            const h0 = handled.length
            const c0 = codes.length
            k = 0
            hold = gate()
            for (let i = 0; i < 8; i++) raw.publish(SUBJECT, notePayload(`n${String(n++).padStart(6, '0')}`))
            raw.publish(SUBJECT, `{"text":5}${' '.repeat(5000)}`)
            raw.publish('shop.eu.notes.XX', notePayload('x'))
            await delivered()
            await pause(2)
            hold.open()
            await settle(`round ${round} settled`, () => handled.length - h0 + codes.length - c0 >= 10)
            await pause(2)
            const busy = codes.slice(c0).filter((c) => c === 'HANDLERS_BUSY').length
            outcomes.push(`${handled.length - h0} handled, ${busy} busy`)
          }
        } finally {
          hold.open()
          sub.unsubscribe()
          await nc.flush()
        }
        const first = maxWaiting === 100 ? '4 handled, 4 busy' : '3 handled, 5 busy'
        expect({ maxWaiting, outcomes: [...new Set(outcomes)] }).toEqual({ maxWaiting, outcomes: [first] })
      }
    }, 30_000)

    it('an onError that throws on a drop for bytes leaves the connection reading and the bound working', async () => {
      // Holds (pinned): the drop is reported inside nats.js's callback; the exception is contained.
      const own = await connect({ servers: rig.server.url })
      const c = bindContract(mod, own, dev)
      const hold = gate()
      const handled: string[] = []
      let thrown = 0
      const sub = c.subscribe(
        'onNote',
        async (m) => {
          handled.push(m.payload.text)
          if (m.payload.text === 'hold') await hold.promise
        },
        {
          maxHandlers: 1,
          maxWaitingBytes: 1000,
          onError: () => {
            thrown++
            throw new Error('onError failed')
          },
        },
      )
      try {
        await own.flush()
        raw.publish(SUBJECT, notePayload('hold'))
        raw.publish(SUBJECT, notePayload('waits'))
        raw.publish(SUBJECT, notePayload('too big', 5000))
        raw.publish(SUBJECT, notePayload('too big again', 5000))
        await raw.flush()
        await bounded('flush after the throwing onError', own.flush(), 2000)
        hold.open()
        await settle('the waiting note ran', () => handled.length === 2)
        raw.publish(SUBJECT, notePayload('after'))
        await raw.flush()
        await settle('"after" handled', () => handled.length === 3, 2000)
        expect({ handled, thrown }).toEqual({ handled: ['hold', 'waits', 'after'], thrown: 2 })
      } finally {
        hold.open()
        sub.unsubscribe()
        await bounded('close', own.close(), 5000)
      }
    })

    it('a 64 MiB+ flood of large valid notes against the default bounds: at most 64 MiB wait, the rest are dropped; memory grows by about that, not by the flood', async () => {
      // Holds (pinned): 90 notes of ~1,000,000 bytes (JSON white space) behind one held handler: 67
      // wait (67 x 1,000,022 <= 64 MiB < 68 x), 23 are dropped; memory grows by less than twice the
      // bound (loosely: ~97 MiB measured, nats.js's buffers included; the flood is 90 MB).
      const payload = (i: number) => notePayload(`f${i}`, 1_000_000 - 12)
      const size = wireSize(payload(10))
      const fits = Math.floor(DEFAULT_BYTES / size)
      const hold = gate()
      const handled: string[] = []
      const errors: string[] = []
      const sub = client.subscribe(
        'onNote',
        async (m) => {
          handled.push(m.payload.text)
          if (m.payload.text === 'hold') await hold.promise
        },
        { maxHandlers: 1, onError: (e) => errors.push(e.code) },
      )
      try {
        await nc.flush()
        raw.publish(SUBJECT, notePayload('hold'))
        await raw.flush()
        await settle('hold running', () => handled.length === 1)
        const before = memoryMiB()
        for (let i = 10; i < 100; i++) {
          raw.publish(SUBJECT, payload(i))
          if (i % 10 === 9) await raw.flush()
        }
        await delivered()
        await pause(30)
        const growth = memoryMiB() - before
        expect({ dropped: errors.length, growthUnder: growth < 2 * 64 }).toEqual({ dropped: 90 - fits, growthUnder: true })
        hold.open()
        await settle('the waiting notes ran', () => handled.length === 1 + fits, 10_000)
        await pause(30)
        expect(handled.slice(1)).toEqual(Array.from({ length: fits }, (_, i) => `f${i + 10}`))
      } finally {
        hold.open()
        sub.unsubscribe()
        await nc.flush()
      }
    }, 30_000)

    it('a flood of notes whose header bytes nats.js decodes away, against the default bounds, holds no more than 64 MiB', async () => {
      // Was a defect (fixed; the test pins the fix): 110 valid notes of ~1,000,000 bytes each (a header line without a colon, written with
      // HPUB) behind one held handler: every one of them waits (each counted as its ~35 bytes of
      // subject and payload), ~110 MB held under the 64 MiB default (memory grew ~160 MiB where the
      // pinned flood above grows ~97), and all 110 run once the handler frees. Expected: at most 67
      // wait (64 MiB of messages as received), the rest dropped and reported, memory under twice the
      // bound. It matters because this is the
      // memory bound the default promises an application against a publisher faster than its
      // handlers; here it bounds only the count (1,024 x the server's max_payload).
      const block = `NATS/1.0\r\n${'j'.repeat(1_000_000)}\r\n\r\n`
      const size = wireSize(notePayload('g10'), { block })
      const fits = Math.floor(DEFAULT_BYTES / size)
      const hold = gate()
      const handled: string[] = []
      const errors: string[] = []
      const sub = client.subscribe(
        'onNote',
        async (m) => {
          handled.push(m.payload.text)
          if (m.payload.text === 'hold') await hold.promise
        },
        { maxHandlers: 1, onError: (e) => errors.push(e.code) },
      )
      let growth: number | undefined
      try {
        await nc.flush()
        raw.publish(SUBJECT, notePayload('hold'))
        await raw.flush()
        await settle('hold running', () => handled.length === 1)
        const before = memoryMiB()
        for (let i = 10; i < 120; i++) {
          pub.hpub(SUBJECT, block, notePayload(`g${i}`))
          if (i % 10 === 9) await pub.flush()
        }
        await delivered()
        await pause(30)
        growth = memoryMiB() - before
        hold.open()
        await settle('every note ran or was dropped', () => handled.length - 1 + errors.length >= 110, 10_000)
        await pause(30)
      } finally {
        hold.open()
        sub.unsubscribe()
        await nc.flush()
      }
      expect({ waited: handled.length - 1, dropped: errors.length, heldMiBUnderTwiceTheBound: growth !== undefined && growth < 2 * 64 }).toEqual({
        waited: fits,
        dropped: 110 - fits,
        heldMiBUnderTwiceTheBound: true,
      })
    }, 30_000)
  })

  describe('the responder (memory state)', () => {
    const OP = (c: string) => `op${c.repeat(64)}`
    const refund = { paymentId: 'pay-12345678', amount: 10 }
    const vote = (op: string, branchId: string, fence = 1) =>
      JSON.stringify({ operationId: op, branchId, attempt: 1, fence, peerId: 'bob', requestedBy: 'alice', refund })
    const cancel = (op: string, branchId: string) => JSON.stringify({ operationId: op, branchId, attempt: 1, fence: 1 })

    /** A responder for 'bob' on a connection of its own, with the ballots and CancelResults it publishes collected. */
    async function responderFor(
      op: string,
      handler: Parameters<typeof createResponder<{ branchId: string }, { approve: boolean }>>[0]['handler'],
    ): Promise<{ responder: Responder; ballots: Array<{ branchId: string }>; cancelled: Array<{ branchId: string; outcome: string }> }> {
      const conn = await rig.connection()
      const made = await createResponder<{ branchId: string }, { approve: boolean }>({
        connection: conn,
        module: rig.module,
        interaction: rig.approve,
        peerId: 'bob',
        handler,
      })
      if (!made.ok) throw new Error(made.message)
      const ballots: Array<{ branchId: string }> = []
      const cancelled: Array<{ branchId: string; outcome: string }> = []
      raw.subscribe(`payments.refunds.${op}.ballot.bob`, { callback: (_e, m) => void ballots.push(m.json()) })
      raw.subscribe(`payments.refunds.${op}.cancelled.bob`, { callback: (_e, m) => void cancelled.push(m.json()) })
      await raw.flush()
      await conn.flush()
      return { responder: made.value, ballots, cancelled }
    }
    /** Every request sent so far has reached every responder connection. */
    async function reached(): Promise<void> {
      await raw.flush()
      await pub.flush()
      for (const c of rig.connections) if (!c.isClosed()) await c.flush()
    }

    it('Was a defect (fixed): a full request room does not hold cancels back: a running request is stopped and its place goes to the first waiting; a waiting one is stopped before it starts and never runs; 5,000 cancels are all answered', async () => {
      // 64 run, 1,024 wait, 100 more are dropped unanswered. Was a defect (fixed): a cancel for a
      // request that only waited was answered `unknown` and the request ran later and published its
      // result: work cancelled before it started was done after all. docs/executor.md now: a cancel
      // that comes before its attempt's request stops the attempt before it starts (`stopped`), and
      // the request, when it comes, runs nothing; the responder keeps the last 4,096 such cancels.
      const op = OP('b')
      const release = gate()
      const started: string[] = []
      const aborted: string[] = []
      const { responder, ballots, cancelled } = await responderFor(op, async ({ branchId, signal }) => {
        started.push(branchId)
        await Promise.race([
          release.promise,
          new Promise<void>((resolve) =>
            signal.addEventListener(
              'abort',
              () => {
                aborted.push(branchId)
                resolve()
              },
              { once: true },
            ),
          ),
        ])
        return { approve: true }
      })
      try {
        for (let i = 0; i < 64 + 1024 + 100; i++) raw.publish(`payments.refunds.${op}.vote.bob`, vote(op, `b${i}`))
        await reached()
        await settle('64 running', () => started.length === 64)
        raw.publish(`payments.refunds.${op}.cancel.bob`, cancel(op, 'b3'))
        // A waiting request's cancel, then 5,000 for branches that never come (4,096 are kept: the
        // waiting one's is forgotten), then another waiting request's cancel after them.
        raw.publish(`payments.refunds.${op}.cancel.bob`, cancel(op, 'b400'))
        for (let i = 0; i < 5000; i++) raw.publish(`payments.refunds.${op}.cancel.bob`, cancel(op, `nobody${i}`))
        raw.publish(`payments.refunds.${op}.cancel.bob`, cancel(op, 'b500'))
        await reached()
        await settle('5,003 cancels answered', () => cancelled.length >= 5003, 10_000)
        await pause(50)
        expect(cancelled.slice(0, 2)).toEqual([
          { operationId: op, branchId: 'b3', outcome: 'stopped' },
          { operationId: op, branchId: 'b400', outcome: 'stopped' },
        ])
        expect(cancelled[5002]).toEqual({ operationId: op, branchId: 'b500', outcome: 'stopped' })
        expect(new Set(cancelled.slice(2, 5002).map((c) => c.outcome))).toEqual(new Set(['stopped']))
        expect(aborted).toEqual(['b3'])
        expect(started).toEqual([...Array.from({ length: 64 }, (_, i) => `b${i}`), 'b64'])
        release.open()
        // Every waiting request but b500 runs: b400's cancel was forgotten past the 4,096 kept.
        await settle('the waiting ones answered', () => responder.published() >= 64 + 1024 - 2, 10_000)
        await pause(100)
        expect(started).toEqual(Array.from({ length: 64 + 1024 }, (_, i) => `b${i}`).filter((b) => b !== 'b500'))
        expect(responder.published()).toBe(64 + 1024 - 2)
        expect(ballots.some((b) => b.branchId === 'b3' || b.branchId === 'b500')).toBe(false)
        expect(ballots.filter((b) => b.branchId === 'b400')).toHaveLength(1)
      } finally {
        release.open()
        await responder.close()
      }
    }, 30_000)

    it('large valid requests (JSON white space): at most 64 MiB wait behind 64 running handlers, the rest are dropped unanswered', async () => {
      // Holds (pinned): 64 small requests run (held); then 80 requests of ~1,000,000 bytes: 67 wait,
      // 13 are dropped unanswered; memory grows by less than twice the bound.
      const op = OP('c')
      const release = gate()
      const started: string[] = []
      const { responder } = await responderFor(op, async ({ branchId }) => {
        started.push(branchId)
        await release.promise
        return { approve: true }
      })
      const subject = `payments.refunds.${op}.vote.bob`
      try {
        for (let i = 0; i < 64; i++) raw.publish(subject, vote(op, `r${i}`))
        await reached()
        await settle('64 running', () => started.length === 64)
        const big = (i: number) => vote(op, `w${i}`) + ' '.repeat(1_000_000 - vote(op, 'w10').length)
        const size = utf8(subject) + utf8(big(10))
        const fits = Math.floor(DEFAULT_BYTES / size)
        const before = memoryMiB()
        for (let i = 10; i < 90; i++) {
          raw.publish(subject, big(i))
          if (i % 10 === 9) await raw.flush()
        }
        await reached()
        await pause(30)
        const growth = memoryMiB() - before
        release.open()
        await settle('the waiting ones answered', () => responder.published() >= 64 + fits, 10_000)
        await pause(100)
        expect({ published: responder.published(), growthUnder: growth < 2 * 64 }).toEqual({ published: 64 + fits, growthUnder: true })
        expect(started.slice(64)).toEqual(Array.from({ length: fits }, (_, i) => `w${i + 10}`))
      } finally {
        release.open()
        await responder.close()
      }
    }, 30_000)

    it('large valid requests whose bytes are in a non-ASCII header: still at most 64 MiB wait', async () => {
      // Was a defect (fixed; the test pins the fix): the responder counts a request's headers by their decoded string length, as subscribe
      // does: 80 valid requests each with a header of 333,000 '€' (999,323 bytes as received, counted
      // ~333,000), sent with nats.js's ordinary publish, all wait behind 64 running handlers (~80 MB
      // held under 64 MiB) and all 80 are answered once they free (published 144, not 131). Expected (docs/executor.md: "waits its turn in
      // arrival order, up to 1,024 requests and 64 MiB, and one past that is dropped unanswered"): at
      // most 67 wait and 13 are dropped. It matters because the responder's only memory bound is this
      // one, and any peer on the request subject can triple it without writing the protocol by hand.
      const op = OP('d')
      const release = gate()
      const started: string[] = []
      const { responder } = await responderFor(op, async ({ branchId }) => {
        started.push(branchId)
        await release.promise
        return { approve: true }
      })
      const subject = `payments.refunds.${op}.vote.bob`
      try {
        for (let i = 0; i < 64; i++) raw.publish(subject, vote(op, `r${i}`))
        await reached()
        await settle('64 running', () => started.length === 64)
        const entries: Array<[string, string]> = [['x-pad', '€'.repeat(333_000)]]
        const size = utf8(subject) + utf8(headerBlock(entries)) + utf8(vote(op, 'w10'))
        const fits = Math.floor(DEFAULT_BYTES / size)
        for (let i = 10; i < 90; i++) {
          raw.publish(subject, vote(op, `w${i}`), { headers: natsHeadersOf(entries) })
          if (i % 10 === 9) await raw.flush()
        }
        await reached()
        await pause(30)
        release.open()
        await settle('the waiting ones answered', () => responder.published() >= 64 + fits, 10_000)
        await pause(200)
        expect({ size, published: responder.published() }).toEqual({ size, published: 64 + fits })
      } finally {
        release.open()
        await responder.close()
      }
    }, 30_000)

    it('handlers that throw, reject or return nothing free their place; handlers that never settle hold it, and close() still returns', async () => {
      // Holds (pinned): 2,000 requests to handlers that throw, reject or answer at once are all run
      // (each is done as it returns), only the answers are published, nothing escapes as an unhandled
      // rejection, and a later request is still run. 64 handlers that never settle (and ignore the
      // abort) hold every place: later requests wait; close() returns all the same.
      const escaped: unknown[] = []
      const saved = process.listeners('unhandledRejection')
      process.removeAllListeners('unhandledRejection')
      const listener = (reason: unknown) => void escaped.push(reason)
      process.on('unhandledRejection', listener)
      try {
        const op = OP('e')
        const started: string[] = []
        const { responder, ballots } = await responderFor(op, ({ branchId }) => {
          started.push(branchId)
          const n = Number(branchId.slice(1))
          if (n % 3 === 0) throw new Error(`sync ${branchId}`)
          if (n % 3 === 1) return Promise.reject(new Error(`async ${branchId}`))
          return { approve: true }
        })
        try {
          for (let i = 0; i < 2000; i++) raw.publish(`payments.refunds.${op}.vote.bob`, vote(op, `b${i}`))
          await reached()
          await settle('2,000 run', () => started.length === 2000, 10_000)
          await settle('the answers published', () => ballots.length >= 666)
          raw.publish(`payments.refunds.${op}.vote.bob`, vote(op, 'b2003'))
          await reached()
          await settle('a later request answered', () => ballots.length >= 667)
          await pause(100)
          expect({ published: responder.published(), ballots: ballots.length, escaped }).toEqual({ published: 667, ballots: 667, escaped: [] })
        } finally {
          await responder.close()
        }
        const stuckOp = OP('f')
        const stuckStarted: string[] = []
        const stuck = await responderFor(stuckOp, ({ branchId }) => {
          stuckStarted.push(branchId)
          return new Promise<never>(() => undefined)
        })
        for (let i = 0; i < 100; i++) raw.publish(`payments.refunds.${stuckOp}.vote.bob`, vote(stuckOp, `b${i}`))
        await reached()
        await settle('64 stuck', () => stuckStarted.length === 64)
        await pause(100)
        expect(stuckStarted).toHaveLength(64)
        await bounded('close() with 64 handlers that never settle', stuck.responder.close(), 5000)
        expect(escaped).toEqual([])
      } finally {
        process.off('unhandledRejection', listener)
        for (const l of saved) process.on('unhandledRejection', l)
      }
    }, 30_000)

    it('close() starts no handler for the requests still waiting', async () => {
      // Was a defect (fixed; the test pins the fix): close() aborts the 64 running handlers, and then every request still waiting starts as
      // their places free: with 64 running (each returning once aborted or after 50 ms) and 936
      // waiting, close() returns and then all 936 handlers start, none of them with an aborted signal
      // (nothing aborts them later either), and all 936 results are published after close() returned. Expected: as the
      // durable responder's close() (docs/executor.md: "takes no more requests, starts no handler once
      // called ... and aborts every running handler"), and as "close" reads: no handler starts after
      // close() is called, so nothing is published after it returns. It matters because an
      // application shuts down by closing its responder and then its connection: work (a refund
      // vote, any side effect of the handler) runs for up to 1,024 requests after shutdown began, with
      // no signal that could stop it, and the waiting room this change added is what holds them.
      const op = OP('9')
      const started: string[] = []
      let closed = false
      const afterClose: string[] = []
      const { responder, ballots } = await responderFor(op, async ({ branchId, signal }) => {
        started.push(branchId)
        if (closed) afterClose.push(branchId)
        await new Promise<void>((resolve) => {
          signal.addEventListener('abort', () => resolve(), { once: true })
          setTimeout(resolve, 50)
        })
        return { approve: true }
      })
      for (let i = 0; i < 1000; i++) raw.publish(`payments.refunds.${op}.vote.bob`, vote(op, `b${i}`))
      await reached()
      await settle('64 running', () => started.length >= 64)
      const closing = responder.close()
      closed = true
      await bounded('close()', closing, 5000)
      // Counted by the responder itself: a ballot published before close() returned may still be on its
      // way to this test's subscriber (seen under load: 8 of them arrived after).
      const publishedAtClose = responder.published()
      await pause(1000)
      await raw.flush()
      expect({ startedAfterClose: afterClose.length, publishedAfterClose: responder.published() - publishedAtClose }).toEqual({
        startedAfterClose: 0,
        publishedAfterClose: 0,
      })
      // What the subscriber received is what the responder counted: nothing published beside the count.
      expect(ballots.length).toBe(responder.published())
    }, 30_000)
  })
})
