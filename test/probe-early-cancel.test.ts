/**
 * Outside hostile pass on the RESPONDER side of cooperative cancellation when the CancelRequest and
 * its attempt's request come in every order (`createResponder`, docs/executor.md "The responder" and
 * "The durable responder"), in memory delivery (core requests) and durable delivery
 * (`durable-per-recipient`, requests read from the REFUNDS JetStream stream), over the shop's
 * payments refund vote on one real nats-server with JetStream (127.0.0.1).
 *
 * From a raw nats.js connection: cancel then request; cancel twice then request; a request waiting
 * its turn behind 64 running ones then its cancel; an early cancel for attempt N then requests of
 * attempts N-1, N, N+1 (and the stale N again); early cancels with a fence of 2^53-1, a negative
 * fence, a non-integer, a string or a missing fence; 2 x 10,000 early cancels for branches that
 * never come (heap measured after a forced GC, generous bounds; the 4,096 kept; other branches still
 * answered); 100 request/cancel pairs shuffled by a seeded generator, judged by an oracle written
 * from the docs alone.
 *
 * Every wait bounded; no assertion on durations.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jetstream } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/nats-core'
import { createResponder, type Responder, type ResponderRequest } from '../src/runtime/nats/executor/index.js'
import type { Interaction } from '../src/runtime/nats/interactions.js'
import { NATS_SERVER } from './helpers/nats-server.js'
import { bounded } from './helpers/bounded.js'
import { random } from './helpers/seeded-random.js'
import { startRig, variant, type Rig, addRefundsStream, voteRequest, REFUND } from './helpers/executor-nats.js'

// Escapes: nothing a handler, a peer or a requester does may surface as an unhandled rejection or exception.
const escapes: unknown[] = []
process.on('unhandledRejection', (reason) => escapes.push(reason))
process.on('uncaughtException', (error) => escapes.push(error))

setFlagsFromString('--expose-gc')
const gc = (globalThis as { gc?: () => void }).gc ?? (runInNewContext('gc') as (() => void) | undefined)
function heapAfterGc(): number {
  gc?.()
  gc?.()
  return process.memoryUsage().heapUsed
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
let opCount = 0
/** A fresh, well-formed operation id (`op` + 64 hex). */
const newOp = () => 'op' + (0xec000000 + opCount++).toString(16).padStart(64, '0')
/** Flood operation ids: their answers are counted, not stored. */
let floodCount = 0
const FLOOD = 'opf'
/** The flood's operation ids, each made here: an executor's operation id may start with FLOOD too (one in sixteen). */
const floodOps = new Set<string>()
const newFloodOp = () => {
  const op = FLOOD + (floodCount++).toString(16).padStart(63, '0')
  floodOps.add(op)
  return op
}

/** Polls `probe` every 10 ms, at most `attempts` times; answers whether it held (bounded). */
async function until(probe: () => boolean, attempts = 500): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (probe()) return true
    await sleep(10)
  }
  return probe()
}

type Mode = 'memory' | 'durable'
type Ballot = { operationId: string; branchId: string; attempt: number; fence: number; peerId: string; approve: unknown }
type Cancelled = { operationId: string; branchId: string; outcome: string }
type Handler = (request: ResponderRequest<unknown>) => Promise<{ approve: boolean } | undefined> | { approve: boolean } | undefined
const OUTCOMES = ['stopped', 'already-completed', 'unknown']

describe.skipIf(!NATS_SERVER)('probe: early cancels at the responder, memory and durable delivery (payments refund vote)', () => {
  let rig: Rig
  let raw: NatsConnection
  const ballots: Array<{ peer: string; body: Ballot }> = []
  const cancelled: Array<{ peer: string; body: Cancelled }> = []
  const floodAnswers = new Map<string, number>()
  const responders: Responder[] = []
  let durableVote: Interaction
  beforeAll(async () => {
    rig = await startRig('probe-early-cancel')
    raw = await rig.connection()
    await addRefundsStream(raw)
    durableVote = variant(rig.approve, { delivery: { mode: 'durable-per-recipient', state: 'durable', restart: 'resume' } })
    raw.subscribe('payments.refunds.*.ballot.*', { callback: (_e, m) => ballots.push({ peer: m.subject.split('.')[4]!, body: m.json() }) })
    raw.subscribe('payments.refunds.*.cancelled.*', {
      callback: (_e, m) => {
        const body = m.json<Cancelled>()
        if (typeof body.operationId === 'string' && floodOps.has(body.operationId)) {
          const key = `${m.subject.split('.')[4]}:${body.outcome}`
          floodAnswers.set(key, (floodAnswers.get(key) ?? 0) + 1)
        } else cancelled.push({ peer: m.subject.split('.')[4]!, body })
      },
    })
    await raw.flush()
  }, 60_000)
  afterAll(async () => {
    for (const r of responders) await bounded('close', r.close(), 5000).catch(() => undefined)
    await rig?.stop()
  })

  async function peer(mode: Mode, peerId: string, handler: Handler): Promise<Responder> {
    const made = await createResponder<unknown, { approve: boolean }>({
      connection: await rig.connection(),
      module: rig.module,
      interaction: mode === 'memory' ? rig.approve : durableVote,
      peerId,
      ...(mode === 'durable' ? { durable: { requestStream: 'REFUNDS', ackWaitMs: 1000 } } : {}),
      handler,
    })
    if (!made.ok) throw new Error(made.message)
    responders.push(made.value)
    return made.value
  }
  const request = voteRequest
  let msgIds = 0
  /** Sends a request: a core message (memory) or a stream message with a fresh message id (durable). */
  async function sendRequest(mode: Mode, op: string, p: string, attempt = 1, fence = 0): Promise<void> {
    const body = JSON.stringify(request(op, p, attempt, fence))
    if (mode === 'memory') {
      raw.publish(`payments.refunds.${op}.vote.${p}`, body)
      await raw.flush()
    } else await jetstream(raw).publish(`payments.refunds.${op}.vote.${p}`, body, { msgID: `${op}.${p}.${attempt}.${fence}.${msgIds++}` })
  }
  const cancelText = (op: string, p: string, body: Record<string, unknown>) => JSON.stringify({ operationId: op, branchId: p, attempt: 1, fence: 0, ...body })
  async function sendCancel(op: string, p: string, body: Record<string, unknown> = {}): Promise<void> {
    raw.publish(`payments.refunds.${op}.cancel.${p}`, cancelText(op, p, body))
    await raw.flush()
  }
  const ballotsOf = (op: string) => ballots.filter((b) => b.body.operationId === op).map((b) => b.body)
  const cancelledOf = (op: string) => cancelled.filter((c) => c.body.operationId === op).map((c) => c.body.outcome)
  /**
   * A sentinel request answered at once: once its ballot is back, everything sent to the peer before
   * it was read (in durable delivery, then one ack wait more, past which a request left
   * unacknowledged would be delivered again).
   */
  async function drained(mode: Mode, p: string): Promise<void> {
    const op = newOp()
    sentinelOps.add(op)
    await sendRequest(mode, op, p)
    if (!(await until(() => ballotsOf(op).length > 0))) throw new Error(`the sentinel for ${p} was never answered`)
    if (mode === 'durable') await sleep(1100)
  }
  const sentinelOps = new Set<string>()
  /** A handler counting runs per operation/attempt/fence, holding until aborted or 1.5 s (bounded). */
  function counting(runs: Map<string, number>, aborted: Map<string, boolean>, hold: number | ((operationId: string) => number) = 1500): Handler {
    return async ({ operationId, attempt, fence, signal }) => {
      if (sentinelOps.has(operationId)) return { approve: true }
      const key = `${operationId}/${attempt}/${fence}`
      runs.set(key, (runs.get(key) ?? 0) + 1)
      await new Promise<void>((resolve) => {
        if (signal.aborted) return resolve()
        const t = setTimeout(resolve, typeof hold === 'number' ? hold : hold(operationId))
        signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true })
      })
      aborted.set(key, signal.aborted)
      return signal.aborted ? undefined : { approve: true }
    }
  }

  for (const mode of ['memory', 'durable'] as const) {
    const m = mode[0]!
    describe(`${mode} delivery`, () => {
      it(`${mode}: the same early cancel twice, then its request, then the request again: both cancels \`stopped\`, nothing runs`, async () => {
        const runs = new Map<string, number>()
        const aborted = new Map<string, boolean>()
        const p = `${m}twice`
        await peer(mode, p, counting(runs, aborted, 50))
        const op = newOp()
        await sendCancel(op, p)
        await sendCancel(op, p)
        expect(await until(() => cancelledOf(op).length === 2)).toBe(true)
        await sendRequest(mode, op, p)
        await sendRequest(mode, op, p)
        await drained(mode, p)
        // Holds (pinned): docs/executor.md "One that comes before its attempt's request ... stops that
        // attempt before it starts: it is answered `stopped` ... and the request, when it comes, runs
        // nothing"; "A stopped attempt stays stopped: its request sent again runs nothing, and a repeated
        // cancel is answered `stopped`".
        expect({ cancels: cancelledOf(op), runs: runs.get(`${op}/1/0`) ?? 0, ballots: ballotsOf(op) }).toEqual({
          cancels: ['stopped', 'stopped'],
          runs: 0,
          ballots: [],
        })
        expect(escapes).toEqual([])
      }, 15_000)

      if (mode === 'memory')
        it(`Was a defect (fixed): ${mode}: a cancel published before its request on the same connection (back to back) stops the attempt before it starts: no handler starts`, async () => {
          const runs = new Map<string, number>()
          const aborted = new Map<string, boolean>()
          const p = `${m}b2b`
          await peer(mode, p, counting(runs, aborted, 50))
          const ops = Array.from({ length: 20 }, () => newOp())
          for (const op of ops) {
            raw.publish(`payments.refunds.${op}.cancel.${p}`, cancelText(op, p, {}))
            raw.publish(`payments.refunds.${op}.vote.${p}`, JSON.stringify(request(op, p, 1, 0)))
          }
          await raw.flush()
          expect(await until(() => ops.every((op) => cancelledOf(op).length === 1))).toBe(true)
          await drained(mode, p)
          // Holds: every cancel is answered `stopped` and no vote is published.
          expect({ answers: [...new Set(ops.flatMap((op) => cancelledOf(op)))], ballots: ops.filter((op) => ballotsOf(op).length > 0).length }).toEqual({
            answers: ['stopped'],
            ballots: 0,
          })
          // Was a defect (fixed): each CancelRequest was published before its request on one connection, and the
          // responder reads both on one connection (NATS keeps one publisher's order for a subscriber
          // connection), so the cancel comes first. Yet the handler STARTED for nearly all 20 attempts
          // (19 or 20 of 20 on every run), and was then aborted (answered `stopped`, nothing published): the side
          // effects of a handler begin for work whose cancel came first. With a flush between each
          // cancel and its request (no wait for the answer) 1 or 2 of 20 still start. (A cancel whose
          // `stopped` answer is awaited before the request is sent does stop it: pinned above.)
          // (The responder handled cancels through a promise chain, a turn later than the request.)
          // Expected: no handler starts. Promised: docs/executor.md (the responder) "One that comes before
          // its attempt's request (the cancel overtook it, ...) stops that attempt before it starts: it is
          // answered `stopped`, ... and the request, when it comes, runs nothing".
          expect(ops.filter((op) => runs.has(`${op}/1/0`)).length).toBe(0)
          expect(escapes).toEqual([])
        }, 15_000)

      it(`${mode}: an early cancel for attempt 2 (fence 2), then requests of attempts 1, 2, 3 and 2 again`, async () => {
        const runs = new Map<string, number>()
        const aborted = new Map<string, boolean>()
        const p = `${m}ladder`
        await peer(mode, p, counting(runs, aborted, 50))
        const op = newOp()
        await sendCancel(op, p, { attempt: 2, fence: 2 })
        expect(await until(() => cancelledOf(op).length === 1)).toBe(true)
        await sendRequest(mode, op, p, 1, 1) // older attempt, lower fence than the cancelled one
        await sendRequest(mode, op, p, 2, 2) // the cancelled attempt
        await drained(mode, p)
        const beforeLater = { runs: Object.fromEntries(runs), ballots: ballotsOf(op).map((b) => [b.attempt, b.fence]) }
        await sendRequest(mode, op, p, 3, 3) // a later attempt, higher fence
        expect(await until(() => ballotsOf(op).length >= 1)).toBe(true)
        await sendRequest(mode, op, p, 2, 2) // the stopped attempt again, now stale too
        await sendRequest(mode, op, p, 1, 1)
        await drained(mode, p)
        // Holds (pinned): "stops that attempt before it starts: it is answered `stopped`, an older
        // attempt still running is superseded, and the request, when it comes, runs nothing"; "a request
        // whose fence is below the highest seen for its branch is stale and ignored"; the stopped fence is
        // only that attempt's: the next attempt runs.
        expect(cancelledOf(op)).toEqual(['stopped'])
        expect(beforeLater).toEqual({ runs: {}, ballots: [] })
        expect(Object.fromEntries(runs)).toEqual({ [`${op}/3/3`]: 1 })
        expect(ballotsOf(op).map((b) => [b.attempt, b.fence])).toEqual([[3, 3]])
        // After the commit of attempt 3: "answered `already-completed` after the commit".
        await sendCancel(op, p, { attempt: 3, fence: 3 })
        expect(await until(() => cancelledOf(op).length === 2)).toBe(true)
        expect(cancelledOf(op)[1]).toBe('already-completed')
        // The same attempt with a higher fence than a stopped one is another attempt: it runs.
        const same = newOp()
        await sendCancel(same, p, { attempt: 1, fence: 0 })
        expect(await until(() => cancelledOf(same).length === 1)).toBe(true)
        await sendRequest(mode, same, p, 1, 1)
        expect(await until(() => ballotsOf(same).length === 1)).toBe(true)
        expect({ cancels: cancelledOf(same), runs: Object.fromEntries([...runs].filter(([k]) => k.startsWith(same))) }).toEqual({
          cancels: ['stopped'],
          runs: { [`${same}/1/1`]: 1 },
        })
        expect(escapes).toEqual([])
      }, 20_000)

      it(`${mode}: a cancel for an older attempt than the branch's latest: \`unknown\` while that attempt runs, \`already-completed\` once it committed`, async () => {
        const runs = new Map<string, number>()
        const aborted = new Map<string, boolean>()
        const p = `${m}older`
        await peer(mode, p, counting(runs, aborted, 500))
        const op = newOp()
        await sendRequest(mode, op, p, 2, 2)
        // While attempt 2 runs: `unknown` (it is not stopped).
        expect(await until(() => runs.get(`${op}/2/2`) === 1)).toBe(true)
        await sendCancel(op, p, { attempt: 1, fence: 1 })
        expect(await until(() => cancelledOf(op).length === 1)).toBe(true)
        expect(cancelledOf(op)).toEqual(['unknown'])
        expect(await until(() => ballotsOf(op).length === 1)).toBe(true)
        expect(aborted.get(`${op}/2/2`)).toBe(false)
        // Once it committed: `already-completed`.
        await sendCancel(op, p, { attempt: 1, fence: 1 })
        expect(await until(() => cancelledOf(op).length === 2)).toBe(true)
        // Holds (pinned): the branch's latest attempt (2, fence 2) has committed; a CancelRequest for
        // attempt 1 (fence 1) is answered `already-completed`. docs/executor.md (the responder): "Once a
        // branch has committed, every cancel of it is answered `already-completed`, whatever attempt it
        // names; before that, a cancel for an older attempt than the branch's latest is `unknown`". (The
        // outside pass read the earlier wording, "A cancel for an older attempt than the branch's latest
        // is `unknown`", as covering this case too; the docs now say which answer wins.)
        expect(cancelledOf(op)).toEqual(['unknown', 'already-completed'])
      }, 15_000)

      it(`${mode}: an early cancel for a later attempt supersedes the older attempt still running; that later attempt's request then runs nothing`, async () => {
        const runs = new Map<string, number>()
        const aborted = new Map<string, boolean>()
        const p = `${m}super`
        await peer(mode, p, counting(runs, aborted, 3000))
        const op = newOp()
        await sendRequest(mode, op, p, 1, 0)
        expect(await until(() => runs.get(`${op}/1/0`) === 1)).toBe(true)
        await sendCancel(op, p, { attempt: 2, fence: 1 })
        expect(await until(() => cancelledOf(op).length === 1 && aborted.has(`${op}/1/0`))).toBe(true)
        await sendRequest(mode, op, p, 2, 1)
        await drained(mode, p)
        // Holds (pinned): "it is answered `stopped`, an older attempt still running is superseded, and the
        // request, when it comes, runs nothing"; "a higher fence supersedes a running execution, which then
        // publishes nothing".
        expect({ cancels: cancelledOf(op), aborted: aborted.get(`${op}/1/0`), runs: Object.fromEntries(runs), ballots: ballotsOf(op) }).toEqual({
          cancels: ['stopped'],
          aborted: true,
          runs: { [`${op}/1/0`]: 1 },
          ballots: [],
        })
        expect(escapes).toEqual([])
      }, 20_000)

      it(`${mode}: early cancels with a fence of 2^53-1 and a negative fence`, async () => {
        const runs = new Map<string, number>()
        const aborted = new Map<string, boolean>()
        const p = `${m}fence`
        await peer(mode, p, counting(runs, aborted, 50))
        // 2^53-1: the highest integer a double holds exactly; the cancel stops that fence's attempt.
        const high = newOp()
        await sendCancel(high, p, { attempt: 1, fence: Number.MAX_SAFE_INTEGER })
        expect(await until(() => cancelledOf(high).length === 1)).toBe(true)
        await sendRequest(mode, high, p, 1, Number.MAX_SAFE_INTEGER)
        await sendRequest(mode, high, p, 1, 0)
        // A negative fence is an integer (the fixed CancelRequest schema): it names an attempt of its
        // own, below fence 0; the request of fence 0 is a higher fence and runs.
        const low = newOp()
        await sendCancel(low, p, { attempt: 1, fence: -1 })
        await sendRequest(mode, low, p, 1, 0)
        expect(await until(() => ballotsOf(low).length === 1)).toBe(true)
        await drained(mode, p)
        // Holds (pinned): the fixed CancelRequest schema makes `fence` an integer; a cancel before its
        // request "stops that attempt before it starts" (`stopped`, its request runs nothing), and an
        // older (lower) fence's request is stale. The cancel of fence -1 stops only fence -1.
        expect({
          high: cancelledOf(high),
          highRuns: runs.get(`${high}/1/${Number.MAX_SAFE_INTEGER}`) ?? 0,
          highZero: runs.get(`${high}/1/0`) ?? 0,
          highBallots: ballotsOf(high).length,
          lowRuns: runs.get(`${low}/1/0`),
          lowBallots: ballotsOf(low).map((b) => b.fence),
        }).toEqual({ high: ['stopped'], highRuns: 0, highZero: 0, highBallots: 0, lowRuns: 1, lowBallots: [0] })
        // The negative fence's cancel: some answer from the fixed CancelResult enum, never a stop of fence 0.
        expect(cancelledOf(low).every((o) => OUTCOMES.includes(o))).toBe(true)
        expect(escapes).toEqual([])
      }, 20_000)

      it(`${mode}: early cancels out of the fixed CancelRequest schema (fence 1.5, "0", missing; attempt missing, 1.5) stop nothing`, async () => {
        const runs = new Map<string, number>()
        const aborted = new Map<string, boolean>()
        const p = `${m}shape`
        await peer(mode, p, counting(runs, aborted, 50))
        const op = newOp()
        const base = { operationId: op, branchId: p, attempt: 1, fence: 0 }
        const { fence: _f, ...noFence } = base
        const { attempt: _a, ...noAttempt } = base
        for (const body of [{ ...base, fence: 1.5 }, { ...base, fence: '0' }, noFence, noAttempt, { ...base, attempt: 1.5 }, { ...base, fence: null }])
          raw.publish(`payments.refunds.${op}.cancel.${p}`, JSON.stringify(body))
        raw.publish(`payments.refunds.${op}.cancel.${p}`, '{"operationId":')
        await raw.flush()
        await sleep(200)
        await sendRequest(mode, op, p)
        expect(await until(() => ballotsOf(op).length === 1)).toBe(true)
        await drained(mode, p)
        // Holds (pinned): docs/executor.md "The executor and the responder helper validate payloads only
        // (requests, results, cancel requests and cancel results)" and docs/nats.md "This project pins the
        // profile's CancelRequest as a payload requiring `operationId` and `branchId` (strings) and
        // `attempt` and `fence` (integers)": none of these is a CancelRequest, none stops the attempt
        // and none is answered `stopped`.
        expect({ runs: runs.get(`${op}/1/0`), ballots: ballotsOf(op).length, stopped: cancelledOf(op).filter((o) => o === 'stopped') }).toEqual({
          runs: 1,
          ballots: 1,
          stopped: [],
        })
        expect(escapes).toEqual([])
      }, 15_000)

      it(`${mode}: a request waiting its turn behind 64 running ones, then its cancel: \`stopped\`, and it never runs`, async () => {
        const p = `${m}queue`
        let releaseAll!: () => void
        const released = new Promise<void>((resolve) => (releaseAll = resolve))
        const started: string[] = []
        await peer(mode, p, async ({ operationId }) => {
          if (sentinelOps.has(operationId)) return { approve: true }
          started.push(operationId)
          await Promise.race([released, sleep(8000)])
          return { approve: true }
        })
        const ops = Array.from({ length: 66 }, () => newOp())
        for (const op of ops) await sendRequest(mode, op, p)
        expect(await until(() => started.length === 64)).toBe(true)
        const waiting = ops.filter((op) => !started.includes(op))
        expect(waiting).toHaveLength(2)
        // The cancel of a waiting one, twice (a repeated cancel), and a cancel of the other for a later attempt.
        await sendCancel(waiting[0]!, p)
        await sendCancel(waiting[0]!, p)
        await sendCancel(waiting[1]!, p, { attempt: 2, fence: 1 })
        expect(await until(() => cancelledOf(waiting[0]!).length === 2 && cancelledOf(waiting[1]!).length === 1)).toBe(true)
        releaseAll()
        expect(await until(() => ballots.filter((b) => ops.includes(b.body.operationId)).length >= 64)).toBe(true)
        await drained(mode, p)
        // Holds (pinned): "One that comes before its attempt's request (... or the request waits its turn
        // among the 1,024) stops that attempt before it starts: it is answered `stopped` ... and the
        // request, when it comes, runs nothing"; a cancel naming a later attempt stops that attempt, and
        // the waiting request, of an older attempt, is stale ("a request whose fence is below the
        // highest seen for its branch is stale and ignored").
        expect({
          cancels: [cancelledOf(waiting[0]!), cancelledOf(waiting[1]!)],
          ran: waiting.filter((op) => started.includes(op)).length,
          ballots: waiting.map((op) => ballotsOf(op).length),
          others: ops.filter((op) => !waiting.includes(op) && ballotsOf(op).length === 1).length,
        }).toEqual({ cancels: [['stopped', 'stopped'], ['stopped']], ran: 0, ballots: [0, 0], others: 64 })
        expect(escapes).toEqual([])
      }, 25_000)

      it(`${mode}: 2 x 10,000 early cancels for branches that never come: the heap stays bounded, the 4,096 latest are kept, other branches are answered`, async () => {
        const runs = new Map<string, number>()
        const aborted = new Map<string, boolean>()
        const p = `${m}flood`
        await peer(mode, p, counting(runs, aborted, 20))
        // Long branch ids make each forgotten-or-kept record weigh: 10,000 kept would be > 20 MB.
        const pad = 'b'.repeat(2000)
        const flood = async (n: number) => {
          const ops: string[] = []
          for (let i = 0; i < n; i++) {
            const op = newFloodOp()
            ops.push(op)
            raw.publish(`payments.refunds.${op}.cancel.${p}`, cancelText(op, `${pad}${i}`, {}))
            if (i % 1000 === 999) await raw.flush()
          }
          await raw.flush()
          return ops
        }
        const answered = () => [...floodAnswers].filter(([k]) => k.startsWith(`${p}:`)).reduce((n, [, v]) => n + v, 0)
        const before = heapAfterGc()
        const first = await flood(10_000)
        expect(await until(() => answered() === 10_000, 1500)).toBe(true)
        const middle = heapAfterGc()
        const second = await flood(10_000)
        expect(await until(() => answered() === 20_000, 1500)).toBe(true)
        const after = heapAfterGc()
        // Other branches are still answered.
        const other = newOp()
        await sendRequest(mode, other, p)
        expect(await until(() => ballotsOf(other).length === 1)).toBe(true)
        // The first flood's first cancel is forgotten (its request, should it still come, runs); the
        // second flood's last is kept (its request runs nothing).
        const forgotten = first[0]!
        const kept = second[second.length - 1]!
        raw.publish(`payments.refunds.${forgotten}.vote.${p}`, JSON.stringify({ ...request(forgotten, p, 1, 0), branchId: `${pad}0` }))
        raw.publish(`payments.refunds.${kept}.vote.${p}`, JSON.stringify({ ...request(kept, p, 1, 0), branchId: `${pad}9999` }))
        await raw.flush()
        expect(await until(() => ballotsOf(forgotten).length === 1)).toBe(true)
        await drained(mode, p)
        const growth = { first: (middle - before) / 2 ** 20, second: (after - middle) / 2 ** 20 }
        console.log(`${mode} flood heap growth (MiB):`, growth, gc ? 'after gc' : 'no gc')
        // Holds (pinned): "The responder keeps the last 4,096 such cancels; past that the oldest is
        // forgotten (its request, should it still come, runs), so a flood of cancels for branches that
        // never come costs a bounded number of records"; every early cancel is answered `stopped`.
        expect([...floodAnswers].filter(([k]) => k.startsWith(`${p}:`))).toEqual([[`${p}:stopped`, 20_000]])
        expect({ forgotten: ballotsOf(forgotten).length, kept: ballotsOf(kept).length, keptRuns: runs.get(`${kept}/1/0`) ?? 0 }).toEqual({
          forgotten: 1,
          kept: 0,
          keptRuns: 0,
        })
        // Generous: 4,096 records of ~2 KB are ~8-16 MiB; 10,000 more kept would be > 20 MiB more.
        expect(growth.first).toBeLessThan(48)
        expect(growth.second).toBeLessThan(16)
        expect(escapes).toEqual([])
      }, 60_000)

      it(`${mode}: the 4,096 boundary: of 4,097 early cancels the first is forgotten, the second kept; a stopped attempt stays stopped past them`, async () => {
        const runs = new Map<string, number>()
        const aborted = new Map<string, boolean>()
        const p = `${m}edge`
        const ran = newOp()
        await peer(
          mode,
          p,
          counting(runs, aborted, (op) => (op === ran ? 3000 : 20)),
        )
        // An attempt stopped while it ran.
        await sendRequest(mode, ran, p)
        expect(await until(() => runs.get(`${ran}/1/0`) === 1)).toBe(true)
        await sendCancel(ran, p)
        expect(await until(() => cancelledOf(ran).length === 1 && aborted.has(`${ran}/1/0`))).toBe(true)
        const answered = () => floodAnswers.get(`${p}:stopped`) ?? 0
        const ops: string[] = []
        for (let i = 0; i < 4097; i++) {
          const op = newFloodOp()
          ops.push(op)
          raw.publish(`payments.refunds.${op}.cancel.${p}`, cancelText(op, p, {}))
        }
        await raw.flush()
        expect(await until(() => answered() === 4097, 1000)).toBe(true)
        // The second (kept) first, then the first (forgotten), then both stopped attempts again.
        await sendRequest(mode, ops[1]!, p)
        await sendRequest(mode, ops[0]!, p)
        expect(await until(() => ballotsOf(ops[0]!).length === 1)).toBe(true)
        await sendRequest(mode, ran, p)
        await drained(mode, p)
        // Holds (pinned): "The responder keeps the last 4,096 such cancels; past that the oldest is
        // forgotten (its request, should it still come, runs)"; "A stopped attempt stays stopped: its
        // request sent again runs nothing" (for the attempt stopped while running, "a responder keeps one
        // record per branch it ran": not one of the 4,096).
        expect({
          kept: [runs.get(`${ops[1]}/1/0`) ?? 0, ballotsOf(ops[1]!).length],
          forgotten: [runs.get(`${ops[0]}/1/0`) ?? 0, ballotsOf(ops[0]!).length],
          ran: [runs.get(`${ran}/1/0`), ballotsOf(ran).length, cancelledOf(ran)],
        }).toEqual({
          kept: [0, 0],
          forgotten: [1, 1],
          ran: [1, 0, ['stopped']],
        })
        expect(escapes).toEqual([])
      }, 30_000)

      it(`Was a defect (fixed): ${mode}: an attempt stopped by an early cancel, its request already come (and run nothing), stays stopped past 4,096 more early cancels`, async () => {
        const runs = new Map<string, number>()
        const aborted = new Map<string, boolean>()
        const p = `${m}again`
        await peer(mode, p, counting(runs, aborted, 20))
        const early = newOp()
        await sendCancel(early, p)
        expect(await until(() => cancelledOf(early).length === 1)).toBe(true)
        await sendRequest(mode, early, p)
        await drained(mode, p)
        const before = { runs: runs.get(`${early}/1/0`) ?? 0, ballots: ballotsOf(early).length }
        for (let i = 0; i < 4096; i++) {
          const op = newFloodOp()
          raw.publish(`payments.refunds.${op}.cancel.${p}`, cancelText(op, p, {}))
        }
        await raw.flush()
        expect(await until(() => (floodAnswers.get(`${p}:stopped`) ?? 0) === 4096, 1000)).toBe(true)
        await sendRequest(mode, early, p)
        await until(() => ballotsOf(early).length > 0, 100)
        await drained(mode, p)
        // Was a defect (fixed): the attempt was answered `stopped` (its cancel came first) and its request, when it
        // came, ran nothing (pinned in \`before\`). After 4,096 early cancels for other branches the same
        // request sent again RAN the handler and its vote was PUBLISHED: work done, and a result published,
        // after a \`stopped\` answer. Expected: nothing run, nothing published. Promised: docs/executor.md
        // "A stopped attempt stays stopped: its request sent again runs nothing"; the 4,096 bound forgets a
        // cancel whose "request, should it still come, runs" (a request that had not come), not one whose
        // request came and was stopped; "a repeated request of an operation's branch finds its record".
        expect(before).toEqual({ runs: 0, ballots: 0 })
        expect({ cancels: cancelledOf(early), runs: runs.get(`${early}/1/0`) ?? 0, ballots: ballotsOf(early).length }).toEqual({
          cancels: ['stopped'],
          runs: 0,
          ballots: 0,
        })
        expect(escapes).toEqual([])
      }, 20_000)

      it(`${mode}: 100 request/cancel pairs on one branch each, shuffled (seeded): the docs' oracle holds for every pair`, async () => {
        const rnd = random(mode === 'memory' ? 20261205 : 20261206)
        const p = `${m}pairs`
        const started = new Map<string, number>()
        const returned = new Map<string, boolean>()
        await peer(mode, p, ({ operationId, signal }) => {
          if (sentinelOps.has(operationId)) return { approve: true }
          started.set(operationId, (started.get(operationId) ?? 0) + 1)
          const hold = delays.get(operationId) ?? 0
          if (hold === 0) {
            // A handler that returns its fields rather than a promise.
            returned.set(operationId, true)
            return { approve: true }
          }
          return new Promise<void>((resolve) => {
            const t = setTimeout(resolve, hold)
            signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true })
          }).then(() => {
            returned.set(operationId, !signal.aborted)
            // Half of them ignore the signal and return a vote anyway: it must not be published after `stopped`.
            return signal.aborted && hold % 2 === 0 ? undefined : { approve: true }
          })
        })
        const ops = Array.from({ length: 100 }, () => newOp())
        const delays = new Map(ops.map((op) => [op, Math.floor(rnd() * 4) === 0 ? 0 : 1 + Math.floor(rnd() * 40)]))
        const sends: Array<{ op: string; kind: 'request' | 'cancel' }> = ops.flatMap((op) => [
          { op, kind: 'request' as const },
          { op, kind: 'cancel' as const },
        ])
        for (let i = sends.length - 1; i > 0; i--) {
          const j = Math.floor(rnd() * (i + 1))
          ;[sends[i], sends[j]] = [sends[j]!, sends[i]!]
        }
        const js = jetstream(raw)
        const acks: Array<Promise<unknown>> = []
        for (const s of sends) {
          if (s.kind === 'cancel') raw.publish(`payments.refunds.${s.op}.cancel.${p}`, cancelText(s.op, p, {}))
          else if (mode === 'memory') raw.publish(`payments.refunds.${s.op}.vote.${p}`, JSON.stringify(request(s.op, p, 1, 0)))
          else acks.push(js.publish(`payments.refunds.${s.op}.vote.${p}`, JSON.stringify(request(s.op, p, 1, 0)), { msgID: `${s.op}.${p}.1` }))
        }
        await raw.flush()
        await bounded('request acks', Promise.all(acks), 10_000)
        expect(await until(() => ops.every((op) => cancelledOf(op).length >= 1))).toBe(true)
        // Every pair that ran to a vote has it published or has been stopped; wait for the runs to end.
        expect(await until(() => [...started.keys()].every((op) => returned.has(op)))).toBe(true)
        await drained(mode, p)
        await sleep(300)
        // The oracle, from docs/executor.md alone: "A CancelRequest aborts the running execution
        // (`stopped`), or is answered `already-completed` after the commit. One that comes before its
        // attempt's request ... stops that attempt before it starts: it is answered `stopped` ... and the
        // request, when it comes, runs nothing"; "It runs a handler once per operation and branch";
        // "a higher fence supersedes a running execution, which then publishes nothing" (an aborted
        // execution publishes nothing). So for each pair: exactly one answer; never `unknown` (the cancel
        // names the only attempt, which was either not yet seen or seen); the handler never ran ->
        // `stopped` and no ballot; it ran -> at most once, `stopped` with no ballot ever, or
        // `already-completed` with exactly one ballot. In memory delivery a handler that returns its fields
        // rather than a promise "commits, and its result is published, in the turn the request arrived":
        // if it ran, the cancel came after the commit and is `already-completed`.
        const verdicts = ops.map((op) => {
          const answers = cancelledOf(op)
          const runs = started.get(op) ?? 0
          const votes = ballotsOf(op).length
          const sync = delays.get(op) === 0
          const ok =
            answers.length === 1 &&
            runs <= 1 &&
            !(mode === 'memory' && sync && runs === 1 && answers[0] !== 'already-completed') &&
            ((runs === 0 && answers[0] === 'stopped' && votes === 0) ||
              (runs === 1 && answers[0] === 'stopped' && votes === 0) ||
              (runs === 1 && answers[0] === 'already-completed' && votes === 1))
          return { op, answers, runs, votes, ok }
        })
        const kinds = new Map<string, number>()
        for (const v of verdicts) kinds.set(`${v.runs}:${v.answers.join('+')}:${v.votes}`, (kinds.get(`${v.runs}:${v.answers.join('+')}:${v.votes}`) ?? 0) + 1)
        console.log(`${mode} pairs (runs:answers:votes):`, Object.fromEntries(kinds))
        // Holds (pinned): the oracle above, for every pair. (It allows "ran, then stopped" for a pair whose
        // cancel was published first: in memory delivery most of those handlers start; that is the
        // back-to-back case above (a defect, fixed), not this oracle's. In durable delivery none of them ran.)
        expect(verdicts.filter((v) => !v.ok)).toEqual([])
        // Then every pair's cancel and request again: "a repeated cancel is answered `stopped`" (a stopped
        // attempt) and `already-completed` after the commit; "a stopped attempt stays stopped: its request
        // sent again runs nothing"; "a repeated request ... gets the committed result again" (the handler
        // never runs twice).
        for (const op of ops) {
          raw.publish(`payments.refunds.${op}.cancel.${p}`, cancelText(op, p, {}))
          await sendRequest(mode, op, p)
        }
        await raw.flush()
        expect(await until(() => ops.every((op) => cancelledOf(op).length === 2))).toBe(true)
        await drained(mode, p)
        await sleep(200)
        const again = verdicts.filter((v) => {
          const answers = cancelledOf(v.op)
          const votes = ballotsOf(v.op).length
          const runs = started.get(v.op) ?? 0
          return !(
            answers[1] === answers[0] &&
            runs === v.runs &&
            (answers[0] === 'stopped' ? votes === 0 : votes >= 1 && ballotsOf(v.op).every((b) => b.attempt === 1 && b.fence === 0))
          )
        })
        expect(again.map((v) => ({ op: v.op, answers: cancelledOf(v.op), runs: started.get(v.op), votes: ballotsOf(v.op).length }))).toEqual([])
        expect(escapes).toEqual([])
      }, 30_000)
    })
  }

  it('end to end (memory state): a peer whose request waits behind 64 running ones is asked to stop when the quorum decides without it; it answers `stopped` and never runs that request', async () => {
    // The executor's side of the early cancel: with `remaining: cooperative` the executor asks every
    // open branch to stop at the decision (docs/executor.md, Settlement); eve's 64 running handlers
    // ignore their signals, so the 65th operation's request to eve waits its turn when that cancel comes.
    const executor = await rig.executor(rig.approve)
    const others = await rig.peers({ ann: { vote: true }, bob: { vote: true }, cat: { vote: true }, dan: { vote: true } })
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    const started = new Set<string>()
    await peer('memory', 'eve', async ({ operationId }) => {
      started.add(operationId)
      // Ignores its signal; bounded: released by the test, or 15 s.
      await Promise.race([released, sleep(15_000)])
      return { approve: true }
    })
    const invoke = (i: number) => executor.invoke({ principalId: 'alice', idempotencyKey: `e2e-${i}`, inputs: { group: 'approvers', refund: REFUND } })
    try {
      const first = await Promise.all(Array.from({ length: 64 }, (_, i) => invoke(i)))
      expect(first.every((a) => a.ok && a.value.decision.outcome === 'success')).toBe(true)
      expect(await until(() => started.size === 64)).toBe(true)
      const last = await invoke(64)
      expect(last.ok).toBe(true)
      if (!last.ok) return
      const op = last.value.operationId
      const eveCancel = () => {
        const s = executor.state(op)
        return s.ok ? s.value.branches.find((b) => b.branchId === 'eve')?.cancel : undefined
      }
      expect(await until(() => eveCancel() === 'stopped')).toBe(true)
      expect(cancelledOf(op)).toEqual(['stopped'])
      release()
      // Every other operation's cancel answered (each stopped its running handler), then the waiting request's turn.
      expect(await until(() => first.every((a) => a.ok && cancelledOf(a.value.operationId).length === 1))).toBe(true)
      await sleep(300)
      expect({ ran: started.has(op), eveBallots: ballotsOf(op).filter((b) => b.peerId === 'eve').length, cancel: eveCancel() }).toEqual({
        ran: false,
        eveBallots: 0,
        cancel: 'stopped',
      })
      expect(escapes).toEqual([])
    } finally {
      release()
      for (const o of others) await o.close()
      await executor.close()
    }
  }, 60_000)
})

describe('probe: nothing escaped', () => {
  it('no unhandled rejection or uncaught exception', () => {
    expect(escapes).toEqual([])
  })
})
