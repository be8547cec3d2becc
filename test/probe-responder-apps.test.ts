/**
 * Outside hostile pass on the RESPONDER (`createResponder`, docs/executor.md) as applications
 * really write it, and a requester that misbehaves: handlers written `async` that take 10-500 ms,
 * that throw or reject after a delay, that ignore the abort signal, that answer out of the result
 * schema, slow under 50 requests at once, two responders for one peer id, close() while handlers
 * run; in durable delivery a handler slower than the claim's lease, a redelivered request, a request
 * whose claim another responder holds, a close() mid-handler. From a raw nats.js connection:
 * invalid JSON, out of schema, stale fences, duplicates, replays after a cancel, cancels for
 * branches never seen.
 *
 * Two nats-servers in all (the payments rig's, the durable rig's); only 127.0.0.1; every wait
 * bounded; no assertion on durations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect } from '@nats-io/transport-node'
import type { NatsConnection } from '@nats-io/nats-core'
import { jetstream, jetstreamManager } from '@nats-io/jetstream'
import { createResponder, type Responder, type ResponderRequest } from '../src/runtime/nats/executor/index.js'
import { bounded } from './helpers/bounded.js'
import { random } from './helpers/seeded-random.js'
import { NATS_SERVER } from './helpers/nats-server.js'
import { startRig, type Rig, voteRequest } from './helpers/executor-nats.js'
import { heldAssignment, patient, poll, quick, shipmentInputs, startDurableRig, STREAM, type DurableRig } from './helpers/executor-durable.js'

// Escapes: nothing a handler or a requester does may surface as an unhandled rejection or exception.
const escapes: unknown[] = []
process.on('unhandledRejection', (reason) => escapes.push(reason))
process.on('uncaughtException', (error) => escapes.push(error))

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
let opCount = 0
/** A fresh, well-formed operation id. */
const newOp = () => 'op' + (opCount++).toString(16).padStart(64, '0')

/** Polls `probe` every 10 ms, at most `attempts` times; answers whether it held (bounded). */
async function until(probe: () => boolean, attempts = 300): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (probe()) return true
    await sleep(10)
  }
  return probe()
}

type Ballot = { operationId: string; branchId: string; attempt: number; fence: number; peerId: string; approve: unknown }
type Cancelled = { operationId: string; branchId: string; outcome: string }
type Handler = (request: ResponderRequest<{ peerId: string }>) => Promise<Record<string, unknown> | undefined> | Record<string, unknown> | undefined

describe.skipIf(!NATS_SERVER)('probe: the memory responder as applications write it (payments refund vote)', () => {
  let rig: Rig
  let raw: NatsConnection
  const ballots: Array<{ peer: string; body: Ballot }> = []
  const cancelled: Array<{ peer: string; body: Cancelled }> = []
  const sentinels = new Set<string>()
  beforeAll(async () => {
    rig = await startRig('probe-responder-apps')
    raw = await connect({ servers: rig.server.url })
    raw.subscribe('payments.refunds.*.ballot.*', { callback: (_e, m) => ballots.push({ peer: m.subject.split('.')[4]!, body: m.json() }) })
    raw.subscribe('payments.refunds.*.cancelled.*', { callback: (_e, m) => cancelled.push({ peer: m.subject.split('.')[4]!, body: m.json() }) })
    await raw.flush()
  }, 60_000)
  afterAll(async () => {
    await raw?.close()
    await rig?.stop()
  })

  async function responder(peerId: string, handler: Handler): Promise<Responder> {
    const r = await createResponder<{ peerId: string }, Record<string, unknown>>({
      connection: await rig.connection(),
      module: rig.module,
      interaction: rig.approve,
      peerId,
      handler,
    })
    if (!r.ok) throw new Error(r.message)
    return r.value
  }
  const request = voteRequest
  const send = (op: string, peer: string, body: unknown) =>
    raw.publish(`payments.refunds.${op}.vote.${peer}`, typeof body === 'string' ? body : JSON.stringify(body))
  const cancel = (op: string, peer: string, attempt = 1, fence = 0, branchId = peer) =>
    raw.publish(`payments.refunds.${op}.cancel.${peer}`, JSON.stringify({ operationId: op, branchId, attempt, fence }))
  const ballotsOf = (op: string) => ballots.filter((b) => b.body.operationId === op).map((b) => b.body)
  const cancelledOf = (op: string) => cancelled.filter((c) => c.body.operationId === op).map((c) => c.body.outcome)
  /** A sentinel request answered at once: once its ballot is back, everything sent before it was read. */
  async function drained(peer: string): Promise<void> {
    const op = newOp()
    sentinels.add(op)
    send(op, peer, request(op, peer))
    await raw.flush()
    if (!(await until(() => ballotsOf(op).length > 0))) throw new Error(`the sentinel for ${peer} was never answered`)
  }

  it('Holds (pinned): 50 requests at once to an async handler taking 10-500 ms: each answered once with its own correlation', async () => {
    // Holds (pinned): docs/executor.md "It runs at most 64 handlers at once" and "It runs a handler
    // once per operation and branch"; the ballot carries the request's correlation ("the responder
    // writes those").
    const rnd = random(11)
    let running = 0
    let most = 0
    let runs = 0
    const r = await responder('busy', async ({ signal }) => {
      runs++
      running++
      most = Math.max(most, running)
      await sleep(10 + Math.floor(rnd() * 490))
      running--
      return signal.aborted ? undefined : { approve: true }
    })
    const ops = Array.from({ length: 50 }, () => newOp())
    for (const [i, op] of ops.entries()) send(op, 'busy', request(op, 'busy', 1 + (i % 3), i))
    await raw.flush()
    expect(await until(() => ops.every((op) => ballotsOf(op).length > 0), 500)).toBe(true)
    await drained('busy')
    expect(runs).toBe(51)
    expect(most).toBeLessThanOrEqual(64)
    for (const [i, op] of ops.entries())
      expect(ballotsOf(op)).toEqual([{ operationId: op, branchId: 'busy', attempt: 1 + (i % 3), fence: i, peerId: 'busy', approve: true }])
    expect(r.published()).toBe(51)
    await bounded('close', r.close(), 5000)
  })

  it('handlers that throw, reject after a delay, or answer out of the result schema: nothing published, nothing escapes, the responder goes on', async () => {
    // docs/executor.md: "nothing in a document, a message or an adapter's answer makes it throw" and
    // "The executor and the responder helper validate payloads only (requests, results, cancel
    // requests and cancel results)": a result out of its schema must not be published.
    let lateRuns = 0
    const ops = { sync: newOp(), late: newOp(), text: newOp(), yes: newOp(), missing: newOp(), forged: newOp() }
    const r = await responder('faulty', async ({ operationId }) => {
      if (operationId === ops.sync) throw new Error('sync failure')
      if (operationId === ops.late) {
        lateRuns++
        await sleep(80)
        throw new Error('late failure')
      }
      if (operationId === ops.text) {
        await sleep(40)
        return Promise.reject('a string, not an Error')
      }
      if (operationId === ops.yes) return { approve: 'yes' }
      if (operationId === ops.missing) return {}
      // The correlation is the responder's: a handler writing its own must not change it.
      if (operationId === ops.forged) return { approve: true, operationId: 'op-forged', peerId: 'mallory', branchId: 'mallory', fence: 99, attempt: 9 }
      return { approve: true }
    })
    for (const op of Object.values(ops)) send(op, 'faulty', request(op, 'faulty'))
    await raw.flush()
    await sleep(200)
    await drained('faulty')
    for (const op of [ops.sync, ops.late, ops.text, ops.yes, ops.missing]) expect(ballotsOf(op)).toEqual([])
    // Holds (pinned): the correlation members a handler returns are overwritten with the request's.
    expect(ballotsOf(ops.forged)).toEqual([{ operationId: ops.forged, branchId: 'faulty', attempt: 1, fence: 0, peerId: 'faulty', approve: true }])
    expect(ballots.some((b) => b.body.operationId === 'op-forged')).toBe(false)
    // A cancel of a branch whose handler failed: never committed, so "unknown" ("or is answered
    // `already-completed` after the commit, `unknown` otherwise").
    cancel(ops.late, 'faulty')
    await raw.flush()
    expect(await until(() => cancelledOf(ops.late).length > 0)).toBe(true)
    expect(cancelledOf(ops.late)).toEqual(['unknown'])
    // The failed request sent again: pinned as observed: the handler runs again (nothing was
    // committed, so nothing is "sent again"). responder.d.ts's "the handler never runs twice" is
    // stated of the committed case; a retry after a failure reads as intended, so not filed here.
    send(ops.late, 'faulty', request(ops.late, 'faulty'))
    await raw.flush()
    await sleep(150)
    await drained('faulty')
    expect({ lateRuns, ballots: ballotsOf(ops.late).length }).toEqual({ lateRuns: 2, ballots: 0 })
    expect(escapes).toEqual([])
    await bounded('close', r.close(), 5000)
  })

  it('Was a defect (fixed): a request replayed after its cancel runs the stopped handler again and publishes; (pinned) a handler ignoring its signal: stopped, its late answer unpublished, superseded by a higher fence', async () => {
    // docs/executor.md: "A CancelRequest aborts the running execution (`stopped`)"; responder.d.ts
    // "Undefined: no result (stopped)"; "a higher fence supersedes a running execution, which then
    // publishes nothing".
    const starts = new Map<string, number>()
    const returns = new Map<string, number>()
    const aborted = new Map<string, boolean>()
    const count = (m: Map<string, number>, op: string) => m.set(op, (m.get(op) ?? 0) + 1)
    const r = await responder('deaf', async ({ operationId, fence, signal }) => {
      if (sentinels.has(operationId)) return { approve: true }
      const key = `${operationId}/${fence}`
      count(starts, key)
      await sleep(250) // ignores the signal
      aborted.set(key, signal.aborted)
      count(returns, key)
      return { approve: true }
    })
    const op = newOp()
    send(op, 'deaf', request(op, 'deaf'))
    await raw.flush()
    expect(await until(() => starts.get(`${op}/0`) === 1)).toBe(true)
    cancel(op, 'deaf')
    await raw.flush()
    expect(await until(() => cancelledOf(op).length > 0)).toBe(true)
    expect(await until(() => returns.get(`${op}/0`) === 1)).toBe(true)
    await drained('deaf')
    expect(cancelledOf(op)).toEqual(['stopped'])
    expect(aborted.get(`${op}/0`)).toBe(true)
    expect(ballotsOf(op)).toEqual([])
    // The request replayed after the cancel (the same attempt and fence), then a second cancel.
    // Was a defect (fixed): the replayed request of the stopped branch runs the handler a second time and publishes
    // its ballot (a second cancel then answers `already-completed`): the work the invoker cancelled is
    // done after all, on a replay of the very request that was cancelled. Expected: the handler runs
    // once and nothing is published for the stopped branch. Promised: responder.d.ts "It honours the
    // operation/branch idempotency key (a repeated request gets the committed result again, the
    // handler never runs twice)"; docs/executor.md "It runs a handler once per operation and branch".
    send(op, 'deaf', request(op, 'deaf'))
    await raw.flush()
    await sleep(100)
    await drained('deaf')
    await until(() => (returns.get(`${op}/0`) ?? 0) === (starts.get(`${op}/0`) ?? 0))
    await sleep(50)
    cancel(op, 'deaf')
    await raw.flush()
    expect(await until(() => cancelledOf(op).length > 1)).toBe(true)
    const replay = { runs: starts.get(`${op}/0`), ballots: ballotsOf(op).length, secondCancel: cancelledOf(op)[1] }

    // Superseded by a higher fence while the first ignores its signal: the first publishes nothing.
    const sup = newOp()
    send(sup, 'deaf', request(sup, 'deaf', 1, 0))
    await raw.flush()
    expect(await until(() => starts.get(`${sup}/0`) === 1)).toBe(true)
    send(sup, 'deaf', request(sup, 'deaf', 2, 1))
    await raw.flush()
    expect(await until(() => returns.get(`${sup}/0`) === 1 && (returns.get(`${sup}/1`) ?? 0) === (starts.get(`${sup}/1`) ?? 0))).toBe(true)
    await sleep(50)
    await drained('deaf')
    expect(aborted.get(`${sup}/0`)).toBe(true)
    // Holds (pinned): the superseded execution publishes nothing; the higher fence runs and answers.
    expect(ballotsOf(sup).map((b) => [b.attempt, b.fence])).toEqual([[2, 1]])
    await bounded('close', r.close(), 5000)
    expect(replay).toMatchObject({ runs: 1, ballots: 0 })
  })

  it('a misbehaving requester: invalid JSON, out of schema, stale fences, duplicates, a later attempt, cancels of branches never seen', async () => {
    let runs = 0
    const r = await responder('plain', () => {
      runs++
      return { approve: false }
    })
    const op = newOp()
    // Holds (pinned): docs/executor.md "handles only a request whose subject parses and whose payload
    // passes the request operation's schema in full; anything else is dropped unanswered, the handler
    // never called".
    for (const junk of ['{not json', '', 'null', '[]', '1e400', JSON.stringify({ ...request(op, 'plain'), fence: '0' })]) send(op, 'plain', junk)
    raw.publish(`payments.refunds.${op}.vote`, JSON.stringify(request(op, 'plain'))) // a subject that does not parse
    await raw.flush()
    await drained('plain')
    expect(ballotsOf(op)).toEqual([])
    expect(runs).toBe(1) // the sentinel
    // The branch at fence 5, then stale (fence 3), duplicated (fence 5 again), a later attempt (fence 6).
    send(op, 'plain', request(op, 'plain', 1, 5))
    send(op, 'plain', request(op, 'plain', 1, 3))
    send(op, 'plain', request(op, 'plain', 1, 5))
    send(op, 'plain', request(op, 'plain', 2, 6))
    send(op, 'plain', request(op, 'plain', 1, 4))
    await raw.flush()
    await drained('plain')
    // Holds (pinned): "It runs a handler once per operation and branch: a repeated request (or a later
    // attempt's) gets the committed result again with its own correlation; a request whose fence is
    // below the highest seen for its branch is stale and ignored".
    expect(runs).toBe(3)
    expect(ballotsOf(op).map((b) => [b.attempt, b.fence, b.approve])).toEqual([
      [1, 5, false],
      [1, 5, false],
      [2, 6, false],
    ])
    // Holds (pinned): "`already-completed` after the commit" (whatever attempt the cancel names); a
    // cancel that comes before its attempt's request (a branch or an operation never seen) stops
    // that attempt before it starts (`stopped`), and its request, sent afterwards, runs nothing
    // (docs/executor.md; it was answered `unknown` and the request ran).
    const never = newOp()
    cancel(op, 'plain', 2, 6)
    cancel(op, 'plain', 1, 5)
    cancel(never, 'plain')
    cancel(op, 'plain', 1, 0, 'someone-else')
    raw.publish(`payments.refunds.${op}.cancel.plain`, '{not json')
    await raw.flush()
    expect(await until(() => cancelledOf(op).length >= 3 && cancelledOf(never).length >= 1)).toBe(true)
    await sleep(100)
    expect(cancelledOf(never)).toEqual(['stopped'])
    expect(cancelled.filter((c) => c.body.operationId === op).map((c) => [c.body.branchId, c.body.outcome])).toEqual([
      ['plain', 'already-completed'],
      ['plain', 'already-completed'],
      ['someone-else', 'stopped'],
    ])
    const runsBeforeLate = runs
    send(never, 'plain', request(never, 'plain'))
    send(op, 'plain', { ...request(op, 'plain'), branchId: 'someone-else' })
    await raw.flush()
    await drained('plain')
    await sleep(100)
    // One run: the sentinel's.
    expect({ runs: runs - runsBeforeLate, ballots: ballotsOf(never).length + ballotsOf(op).filter((b) => b.branchId === 'someone-else').length }).toEqual({
      runs: 1,
      ballots: 0,
    })
    // A request on this peer's subject whose body names another peer and branch: pinned as observed
    // (no sentence says the responder compares the body's peer with its own; "answers the requests
    // addressed to one peer"): it runs the handler and answers on its own subject in its own name for
    // branch `victim`, which an executor refuses (the branch's peer is not the result's).
    const other = newOp()
    const runsBefore = runs
    send(other, 'plain', { ...request(other, 'plain'), peerId: 'victim', branchId: 'victim' })
    await raw.flush()
    await drained('plain')
    const misaddressed = ballots.filter((b) => b.body.operationId === other).map((b) => [b.peer, b.body.peerId, b.body.branchId])
    expect({ runs: runs - runsBefore - 1, misaddressed }).toEqual({ runs: 1, misaddressed: [['plain', 'plain', 'victim']] })
    expect(escapes).toEqual([])
    await bounded('close', r.close(), 5000)
  })

  it('Holds (pinned): a cancel for an older attempt or fence than the running one does not stop it', async () => {
    // responder.d.ts: the signal is "Aborted when a CancelRequest for this attempt arrives";
    // docs/executor.md "a request whose fence is below the highest seen for its branch is stale".
    let aborts = 0
    const r = await responder('fenced', async ({ operationId, signal }) => {
      if (sentinels.has(operationId)) return { approve: true }
      await Promise.race([sleep(300), new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))])
      if (signal.aborted) aborts++
      return signal.aborted ? undefined : { approve: true }
    })
    const op = newOp()
    send(op, 'fenced', request(op, 'fenced', 2, 4))
    await raw.flush()
    await sleep(50)
    cancel(op, 'fenced', 1, 3) // the previous attempt's cancel, replayed late
    await raw.flush()
    expect(await until(() => ballotsOf(op).length > 0 || cancelledOf(op).length > 0, 200)).toBe(true)
    expect(await until(() => ballotsOf(op).length > 0, 100)).toBe(true)
    await drained('fenced')
    const seen = { aborts, ballots: ballotsOf(op).map((b) => [b.attempt, b.fence]), cancelled: cancelledOf(op) }
    // Holds (pinned) when the running attempt 2 is neither aborted nor answered `stopped`.
    expect(seen.aborts).toBe(0)
    expect(seen.ballots).toEqual([[2, 4]])
    expect(seen.cancelled).not.toContain('stopped')
    await bounded('close', r.close(), 5000)
  })

  it('Was a defect (fixed): the same replay after a cancel with a handler that honours its signal: the stopped branch runs and answers again', async () => {
    // Was a defect (fixed): a handler that stops on its signal (as the rig's peers do) is run again by the replayed
    // request of the cancelled attempt and fence, and its ballot is published. Expected: nothing run or
    // published for the stopped branch. Promised: responder.d.ts "a repeated request gets the
    // committed result again, the handler never runs twice"; docs/executor.md "It runs a handler once
    // per operation and branch".
    const runsOf = new Map<string, number>()
    const r = await responder('polite', async ({ operationId, signal }) => {
      if (sentinels.has(operationId)) return { approve: true }
      runsOf.set(operationId, (runsOf.get(operationId) ?? 0) + 1)
      await Promise.race([sleep(150), new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))])
      return signal.aborted ? undefined : { approve: true }
    })
    const op = newOp()
    send(op, 'polite', request(op, 'polite'))
    await raw.flush()
    expect(await until(() => runsOf.get(op) === 1)).toBe(true)
    cancel(op, 'polite')
    await raw.flush()
    expect(await until(() => cancelledOf(op).length > 0)).toBe(true)
    expect(cancelledOf(op)).toEqual(['stopped'])
    send(op, 'polite', request(op, 'polite')) // the cancelled request, replayed
    await raw.flush()
    await sleep(250)
    await drained('polite')
    await bounded('close', r.close(), 5000)
    expect({ runs: runsOf.get(op), ballots: ballotsOf(op).length }).toEqual({ runs: 1, ballots: 0 })
  })

  it('two responders for the same peer id: what one request runs (pinned as observed)', async () => {
    // No doc sentence covers two responders of one peer in memory state; pinned as observed: each
    // responder keeps its own record ("Memory state: the idempotency record lives as long as the
    // responder"), so each runs the request once.
    let runs = 0
    const handler: Handler = async () => {
      runs++
      await sleep(20)
      return { approve: true }
    }
    const a = await responder('twin', handler)
    const b = await responder('twin', handler)
    const op = newOp()
    send(op, 'twin', request(op, 'twin'))
    send(op, 'twin', request(op, 'twin'))
    await raw.flush()
    await sleep(100)
    await drained('twin')
    await drained('twin')
    // Pinned as observed: the request sent twice reaches both responders; each runs it once and
    // answers it once (the copy that arrives while its own run is open is not answered again).
    expect({ runs: runs - 4, ballots: ballotsOf(op).length }).toEqual({ runs: 2, ballots: 2 })
    await bounded('close', a.close(), 5000)
    await bounded('close', b.close(), 5000)
  })

  it('close() while 70 handlers run (each ignoring its signal for a while): close returns, every running handler is aborted, nothing starts or is published after', async () => {
    // docs/executor.md: "Its `close()` starts no handler once called: the requests still waiting are
    // let go unanswered (their executor's deadline and retries decide), and the running handlers are
    // aborted"; responder.d.ts "Undefined: no result (stopped)".
    let started = 0
    let startedAfterClose = 0
    let closing = false
    const signals: AbortSignal[] = []
    const r = await responder('closing', async ({ signal }) => {
      started++
      if (closing) startedAfterClose++
      signals.push(signal)
      await sleep(200) // ignores the signal meanwhile, then answers anyway
      return { approve: true }
    })
    const ops = Array.from({ length: 70 }, () => newOp())
    for (const op of ops) send(op, 'closing', request(op, 'closing'))
    await raw.flush()
    expect(await until(() => started >= 64)).toBe(true)
    const publishedBefore = r.published()
    const ballotsBefore = ops.reduce((n, op) => n + ballotsOf(op).length, 0)
    closing = true
    await bounded('close() with handlers running', r.close(), 5000)
    expect(signals.every((s) => s.aborted)).toBe(true)
    await sleep(400)
    // A sentinel through another responder shows the ballots sent meanwhile were read.
    const other = await responder('closing-sentinel', () => ({ approve: true }))
    await drained('closing-sentinel')
    await other.close()
    expect(startedAfterClose).toBe(0)
    expect(started).toBe(64)
    expect(r.published()).toBe(publishedBefore)
    expect(ops.reduce((n, op) => n + ballotsOf(op).length, 0)).toBe(ballotsBefore)
    expect(escapes).toEqual([])
  })
})

describe.skipIf(!NATS_SERVER)('probe: the durable responder as couriers write it (shipping offer)', () => {
  let rig: DurableRig
  beforeAll(async () => {
    rig = await startDurableRig('probe-responder-apps')
  }, 60_000)
  afterAll(async () => {
    await rig?.stop()
  })

  it('Holds (pinned): a handler slower than the claim lease keeps its claim: one attempt, one run, accepted', async () => {
    // docs/executor.md: "the durable responder runs a request only while it holds the claim with the
    // request's fence, renews it every `renewEveryMs` while its handler runs"; the executor "marks the
    // claim expired" only "when it passes unrenewed". Lease 1.5 s renewed every 200 ms; the handler 2.3 s.
    const interaction = quick(rig.assign, { deadlineMs: 12_000 })
    const peers = await rig.couriers({ 'c-ann': { accepted: true, afterMs: 2300 } }, interaction)
    rig.handled.clear()
    const executor = await rig.executor(interaction)
    const answer = await bounded('invoke', executor.invoke({ principalId: 'dispatcher', idempotencyKey: 'slow-lease', inputs: shipmentInputs }), 15_000)
    await executor.close()
    for (const p of peers) await p.close()
    expect(answer).toMatchObject({ ok: true, value: { decision: { outcome: 'success' } } })
    if (!answer.ok) return
    expect(answer.value.state.branches.map((b) => [b.peerId, b.attempt])).toEqual([['c-ann', 1]])
    expect(rig.handled.get('c-ann')).toBe(1)
  }, 30_000)

  it('a redelivered request, a stale fence, and a request whose claim another courier holds: nothing runs twice or out of its claim', async () => {
    const { id, executor, answered, release, peers } = await heldAssignment(rig, 'redelivered')
    const nc = await rig.connection()
    const jsm = await jetstreamManager(nc)
    const js = jetstream(nc)
    const subject = `shipping.couriers.${id}.offer.c-ann`
    const stored = await jsm.streams.getMessage(STREAM, { last_by_subj: subject })
    const offer = stored!.json<{ fence: number; attempt: number; branchId: string; courierId: string }>()
    // c-bob's courier: it holds no claim of this operation.
    const bob = await rig.couriers({ 'c-bob': { accepted: true } }, patient(rig.assign, 60_000))
    // Redelivered: the same offer stored again under another message id (past deduplication).
    await js.publish(subject, JSON.stringify(offer), { msgID: `${id}.again` })
    // Stale: the same branch at a fence below the claim's.
    await js.publish(subject, JSON.stringify({ ...offer, fence: offer.fence - 1 }), { msgID: `${id}.stale` })
    // Another courier's claim: c-ann's branch addressed to c-bob, and a branch of c-bob's under c-ann's fence.
    await js.publish(`shipping.couriers.${id}.offer.c-bob`, JSON.stringify({ ...offer, courierId: 'c-bob' }), { msgID: `${id}.bob1` })
    await js.publish(`shipping.couriers.${id}.offer.c-bob`, JSON.stringify({ ...offer, courierId: 'c-bob', branchId: 'c-bob' }), { msgID: `${id}.bob2` })
    // Every offer was delivered to each courier's consumer and acknowledged (bounded polls).
    const settled = (courier: string) => async () => {
      const info = await jsm.consumers.info(STREAM, `exec-assignCourier-${courier}`)
      return info.num_pending === 0 && info.num_ack_pending === 0
    }
    await poll(settled('c-bob'), 500)
    release()
    const answer = await bounded('invoke', answered, 10_000)
    await poll(settled('c-ann'), 500) // the repeated offers had their turn after the commit
    await executor.close()
    const published = peers[0]!.published()
    for (const p of [...peers, ...bob]) await p.close()
    expect(answer).toMatchObject({ ok: true, value: { decision: { outcome: 'success' } } })
    // Holds (pinned): "a repeated request of an operation's branch finds its record (the handler runs
    // once per attempt; the committed result is sent again)"; "runs a request only while it holds the
    // claim of the request's fence (otherwise the request is stale: acknowledged, nothing run)".
    expect(rig.handled.get('c-ann')).toBe(1)
    expect(rig.handled.get('c-bob') ?? 0).toBe(0)
    // and the committed result was sent again for the repeated offer (stored once: its message id).
    expect(published).toBe(2)
    // The accept subject holds one result (its message id `operation.branch.attempt.result`).
    expect(await rig.subjects(`shipping.couriers.${id}.accept.>`)).toEqual({ [`shipping.couriers.${id}.accept.c-ann`]: 1 })
  }, 30_000)

  it('a durable handler that rejects on its first run (a transient failure): pinned as observed', async () => {
    // No doc sentence says what the durable responder does with a handler that throws; the docs say
    // it "publishes nothing when the commit fails" and acknowledges a request "only after the result
    // is published". Pinned as observed: the rejection publishes nothing, the offer is not run again
    // (once per attempt), and the branch fails when its lease passes unrenewed. (With three attempts
    // the executor moved the branch on to c-bob and c-cat after each lease, as the docs say.)
    // One attempt (no retry on another courier), so the lease's expiry decides the operation.
    const quickOne = quick(rig.assign, { deadlineMs: 8000 }) as unknown as Record<string, any>
    const interaction = { ...quickOne, delivery: { ...quickOne['delivery'], maxAttempts: 1 } } as unknown as typeof rig.assign
    let runs = 0
    const made = await createResponder<unknown, { accepted: boolean }>({
      connection: await rig.connection(),
      module: rig.module,
      interaction,
      peerId: 'c-ann',
      durable: { requestStream: STREAM, claimBucket: 'exec_claims', ackWaitMs: 1000 },
      handler: async () => {
        runs++
        await sleep(30)
        if (runs === 1) throw new Error('transient')
        return { accepted: true }
      },
    })
    if (!made.ok) throw new Error(made.message)
    const executor = await rig.executor(interaction)
    const answer = await bounded('invoke', executor.invoke({ principalId: 'dispatcher', idempotencyKey: 'throws-once', inputs: shipmentInputs }), 12_000)
    await executor.close()
    const published = made.value.published()
    await made.value.close()
    const seen = answer.ok ? { outcome: answer.value.decision.outcome, branches: answer.value.state.branches.map((b) => [b.peerId, b.attempt]) } : answer
    expect({ runs, published, seen }).toEqual({ runs: 1, published: 0, seen: { outcome: 'failure', branches: [['c-ann', 1]] } })
    expect(escapes).toEqual([])
  }, 30_000)

  it('close() while the durable handler runs: aborted, nothing published, the request runs again on the next responder of that courier', async () => {
    // docs/executor.md: "Its `close()` takes no more requests, starts no handler once called ..., and
    // aborts every running handler; a handler it aborted acknowledges nothing, so its request is run
    // again there."
    const interaction = patient(rig.assign, 60_000)
    let abortedSeen = false
    const first = await createResponder<unknown, { accepted: boolean }>({
      connection: await rig.connection(),
      module: rig.module,
      interaction,
      peerId: 'c-ann',
      durable: { requestStream: STREAM, claimBucket: 'exec_claims', ackWaitMs: 1000 },
      handler: async ({ signal }) => {
        rig.handled.set('first', (rig.handled.get('first') ?? 0) + 1)
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
        abortedSeen = signal.aborted
        await sleep(100)
        return { accepted: false } // after the abort: must not be published
      },
    })
    if (!first.ok) throw new Error(first.message)
    const executor = await rig.executor(interaction)
    const answered = executor.invoke({ principalId: 'dispatcher', idempotencyKey: 'closed-mid-handler', inputs: shipmentInputs })
    await poll(() => (rig.handled.get('first') ?? 0) > 0, 500)
    await bounded('close() mid-handler', first.value.close(), 5000)
    await sleep(200)
    expect(abortedSeen).toBe(true)
    expect(first.value.published()).toBe(0)
    const second = await rig.couriers({ 'c-ann': { accepted: true } }, interaction)
    const answer = await bounded('invoke after the second responder', answered, 15_000)
    await executor.close()
    for (const p of second) await p.close()
    expect(answer).toMatchObject({ ok: true, value: { decision: { outcome: 'success' } } })
  }, 30_000)
})

describe('probe: nothing escaped', () => {
  it('no unhandled rejection or uncaught exception from any handler, responder or requester', () => {
    expect(escapes).toEqual([])
  })
})
