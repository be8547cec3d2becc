/**
 * Outside hostile pass on COOPERATIVE CANCELLATION IN DURABLE DELIVERY: the durable responder
 * (`createResponder` with a `durable` binding) and the durable executor (`createExecutor`, `resume`)
 * around a cancel, over the shop's payments refund vote run with `delivery: durable-per-recipient,
 * state: durable, restart: resume` and `remaining: cooperative`, on one real nats-server with
 * JetStream (127.0.0.1). A REFUNDS stream retains requests, ballots and CancelResults.
 *
 * Peer side, from a raw nats.js connection: a request replayed after its cancel (same message id,
 * new one), a cancel before its request (sent first, or read while the request is held behind 64
 * running ones), cancels for older/newer attempts and fences and for another peer's branch, a
 * handler that ignores its signal, a handler that throws and is delivered again.
 * Executor side: a peer that ignores its abort and votes after the cancel, and an executor closed
 * with cancels outstanding whose replies (one with a wrong attempt, one repeated) are retained
 * while no executor runs, then resumed. Every log replayed through `simulate` must give the state.
 *
 * Every wait bounded; no assertion on durations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jetstream, jetstreamManager } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/nats-core'
import {
  createExecutor,
  createResponder,
  planInteraction,
  simulate,
  type Executor,
  type Responder,
  type ResponderRequest,
} from '../src/runtime/nats/executor/index.js'
import type { Interaction } from '../src/runtime/nats/interactions.js'
import { NATS_SERVER } from './helpers/nats-server.js'
import { bounded } from './helpers/bounded.js'
import { deployment, startRig, variant, type Rig, addRefundsStream, voteRequest, REFUND } from './helpers/executor-nats.js'

// Escapes: nothing a handler, a peer or a requester does may surface as an unhandled rejection or exception.
const escapes: unknown[] = []
process.on('unhandledRejection', (reason) => escapes.push(reason))
process.on('uncaughtException', (error) => escapes.push(error))

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
let opCount = 0
/** A fresh, well-formed operation id (`op` + 64 hex). */
const newOp = () => 'op' + (0xdc000 + opCount++).toString(16).padStart(64, '0')

/** Polls `probe` every 20 ms, at most `attempts` times; answers whether it held (bounded). */
async function until(probe: () => boolean | Promise<boolean>, attempts = 250): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (await probe()) return true
    await sleep(20)
  }
  return probe()
}

type Ballot = { operationId: string; branchId: string; attempt: number; fence: number; peerId: string; approve: unknown }
type Cancelled = { operationId: string; branchId: string; outcome: string }
type Handler = (request: ResponderRequest<unknown>) => Promise<{ approve: boolean } | undefined> | { approve: boolean } | undefined

describe.skipIf(!NATS_SERVER)('probe: cooperative cancellation in durable delivery (payments refund vote)', () => {
  let rig: Rig
  let raw: NatsConnection
  const ballots: Array<{ peer: string; body: Ballot }> = []
  const cancelled: Array<{ peer: string; body: Cancelled }> = []
  const cancelRequests: Array<{ peer: string; body: { operationId: string; branchId: string; attempt: number; fence: number } }> = []
  const responders: Responder[] = []
  beforeAll(async () => {
    rig = await startRig('probe-durable-cancel')
    raw = await rig.connection()
    await addRefundsStream(raw, { cancelResults: true })
    raw.subscribe('payments.refunds.*.ballot.*', { callback: (_e, m) => ballots.push({ peer: m.subject.split('.')[4]!, body: m.json() }) })
    raw.subscribe('payments.refunds.*.cancelled.*', { callback: (_e, m) => cancelled.push({ peer: m.subject.split('.')[4]!, body: m.json() }) })
    raw.subscribe('payments.refunds.*.cancel.*', { callback: (_e, m) => cancelRequests.push({ peer: m.subject.split('.')[4]!, body: m.json() }) })
    await raw.flush()
  }, 60_000)
  afterAll(async () => {
    for (const r of responders) await r.close()
    await rig?.stop()
  })

  const durableVote = (completion: object = {}): Interaction =>
    variant(rig.approve, {
      delivery: { mode: 'durable-per-recipient', state: 'durable', restart: 'resume' },
      completion: { mode: 'quorum', count: 2, fraction: undefined, waitFor: 'settled', deadlineMs: 20_000, cancelTimeoutMs: 15_000, ...completion },
    })
  async function peer(peerId: string, interaction: Interaction, handler: Handler): Promise<Responder> {
    const made = await createResponder<unknown, { approve: boolean }>({
      connection: await rig.connection(),
      module: rig.module,
      interaction,
      peerId,
      durable: { requestStream: 'REFUNDS', ackWaitMs: 1000 },
      handler,
    })
    if (!made.ok) throw new Error(made.message)
    responders.push(made.value)
    return made.value
  }
  function executor(connection: NatsConnection, interaction: Interaction, peers: string[], resultRedeliveries?: number): Executor {
    const made = createExecutor({
      connection,
      module: rig.module,
      interaction,
      contractDigest: rig.digest,
      deployment,
      durable: {
        requestStream: 'REFUNDS',
        resultStream: 'REFUNDS',
        stateBucket: 'refund_state',
        ackWaitMs: 1000,
        ...(resultRedeliveries ? { resultRedeliveries } : {}),
      },
      adapters: {
        audience: ({ data }) => ({ revision: 'r7', peers: (data.input as { group: string }).group === 'pair' ? peers.slice(0, 2) : peers }),
        authorization: () => ({ allowed: true }),
      },
    })
    if (!made.ok) throw new Error(made.message)
    return made.value
  }
  const js = () => jetstream(raw)
  const request = voteRequest
  const sendRequest = (op: string, p: string, msgID: string, attempt = 1, fence = 0) =>
    js().publish(`payments.refunds.${op}.vote.${p}`, JSON.stringify(request(op, p, attempt, fence)), { msgID })
  const sendCancel = async (op: string, p: string, body: Record<string, unknown> = {}) => {
    raw.publish(`payments.refunds.${op}.cancel.${p}`, JSON.stringify({ operationId: op, branchId: p, attempt: 1, fence: 0, ...body }))
    await raw.flush()
  }
  const ballotsOf = (op: string) => ballots.filter((b) => b.body.operationId === op)
  const cancelledOf = (op: string) => cancelled.filter((c) => c.body.operationId === op).map((c) => c.body.outcome)
  const checkReplay = (interaction: Interaction, ex: Executor, id: string) => {
    const plan = planInteraction(interaction)
    const log = ex.log(id)
    const state = ex.state(id)
    if (!plan.ok || !log.ok || !state.ok) throw new Error('no plan, log or state')
    expect(simulate(plan.value.policy, log.value)).toEqual(state.value)
    return { log: log.value, state: state.value }
  }

  it('Was a defect (fixed): a durable request replayed after its cancel (same id, new id) runs nothing and publishes nothing; the handler that ignored its signal publishes nothing', async () => {
    const interaction = durableVote()
    let starts = 0
    let returns = 0
    let abortedAtReturn: boolean | undefined
    await peer('deb', interaction, async ({ signal }) => {
      starts++
      await sleep(300) // ignores the signal
      abortedAtReturn = signal.aborted
      returns++
      return { approve: true }
    })
    const op = newOp()
    await sendRequest(op, 'deb', `${op}.deb.1`)
    expect(await until(() => starts === 1)).toBe(true)
    await sendCancel(op, 'deb')
    expect(await until(() => cancelledOf(op).length === 1 && returns === 1)).toBe(true)
    await sleep(300)
    // Holds (pinned): docs/executor.md (memory responder, the same promise in responder.d.ts) "A
    // CancelRequest aborts the running execution (`stopped`)"; responder.d.ts "Aborted when a
    // CancelRequest for this attempt arrives". Its late vote is not published.
    expect({ cancels: cancelledOf(op), aborted: abortedAtReturn, ballots: ballotsOf(op).length }).toEqual({ cancels: ['stopped'], aborted: true, ballots: 0 })
    // Past one ack wait with no replay: the stopped request itself, left unacknowledged, would come again.
    await sleep(1500)
    const beforeReplay = { starts, ballots: ballotsOf(op).length }
    // Holds (pinned): the stopped request is not run again by itself.
    expect(beforeReplay).toEqual({ starts: 1, ballots: 0 })

    // The same request replayed with its own message id (deduplicated by the stream) and with a new
    // one (stored again, delivered again to the peer's consumer).
    await sendRequest(op, 'deb', `${op}.deb.1`)
    const replayed = await sendRequest(op, 'deb', `${op}.deb.1.replay`)
    expect(replayed.duplicate).toBe(false)
    await sleep(1500) // past one ack wait: a replay left unacknowledged would be delivered again
    // Was a defect (fixed): the stopped branch's request sent again with a new message id (the same operation,
    // branch, attempt 1 and fence 0) ran the handler a second time and the durable responder
    // published its ballot: the work the peer answered `stopped` for was done after all. Expected:
    // nothing run, nothing published (the memory responder was fixed for exactly this). Promised:
    // docs/executor.md "a repeated request of an operation's branch finds its record (the handler runs
    // once per attempt; the committed result is sent again)"; responder.d.ts "a repeated request gets
    // the committed result again, the handler never runs twice"; (memory responder) "a stopped
    // attempt stays stopped: its request sent again runs nothing".
    expect({ starts, ballots: ballotsOf(op).length }).toEqual({ starts: 1, ballots: 0 })
    // A repeated cancel: "a peer answers a repeated one again"; (memory) "a repeated cancel is answered `stopped`".
    await sendCancel(op, 'deb')
    expect(await until(() => cancelledOf(op).length === 2)).toBe(true)
    expect(cancelledOf(op)).toEqual(['stopped', 'stopped'])
    expect(escapes).toEqual([])
  }, 15_000)

  it('Was a defect (fixed): a cancel that comes before its request stops its attempt before it starts; cancels that do not name the running attempt, fence or branch', async () => {
    const interaction = durableVote()
    const runs = new Map<string, number>()
    const aborted = new Map<string, boolean>()
    await peer('fay', interaction, async ({ operationId, attempt, fence, signal }) => {
      const key = `${operationId}/${attempt}/${fence}`
      runs.set(key, (runs.get(key) ?? 0) + 1)
      // Bounded: the abort, or 1.5 s.
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 1500)
        signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true })
      })
      aborted.set(key, signal.aborted)
      return signal.aborted ? undefined : { approve: true }
    })
    // A cancel before its request (reordered), then the request, then the request of the next attempt.
    const early = newOp()
    await sendCancel(early, 'fay')
    expect(await until(() => cancelledOf(early).length === 1)).toBe(true)
    await sendRequest(early, 'fay', `${early}.fay.1`)
    await sleep(1500) // past one ack wait: a request left unacknowledged would be delivered again
    // Was a defect (fixed): the cancel was answered `unknown` (no record of the branch yet) and the
    // request, delivered after it, ran and voted: the work was done although its cancel came first.
    // docs/executor.md now: a cancel that comes before its attempt's request stops the attempt
    // before it starts (`stopped`); the request, when it comes, is acknowledged and runs nothing.
    expect({ cancels: cancelledOf(early), runs: runs.get(`${early}/1/0`) ?? 0, ballots: ballotsOf(early).length }).toEqual({
      cancels: ['stopped'],
      runs: 0,
      ballots: 0,
    })
    // The stopped attempt's fence is only that attempt's: the next attempt (a higher fence) runs.
    await sendRequest(early, 'fay', `${early}.fay.2`, 2, 1)
    expect(await until(() => ballotsOf(early).length === 1, 150)).toBe(true)
    expect(runs.get(`${early}/2/1`)).toBe(1)

    // A running attempt 2, fence 3; cancels for attempt 1/fence 0 (older), for another branch on
    // this peer's subject, and for a branch of this operation this peer never saw.
    const op = newOp()
    await sendRequest(op, 'fay', `${op}.fay.2`, 2, 3)
    expect(await until(() => runs.get(`${op}/2/3`) === 1)).toBe(true)
    await sendCancel(op, 'fay', { attempt: 1, fence: 0 })
    await sendCancel(op, 'fay', { branchId: 'gil', attempt: 2, fence: 3 })
    expect(await until(() => cancelledOf(op).length === 2)).toBe(true)
    // Holds (pinned): responder.d.ts "Aborted when a CancelRequest for this attempt arrives": neither
    // stops it. The older attempt's cancel is `unknown`; the other branch's, whose request never
    // came, stops that branch's attempt before it starts (`stopped`: docs/executor.md).
    expect(aborted.has(`${op}/2/3`)).toBe(false)
    expect(cancelledOf(op)).toEqual(['unknown', 'stopped'])
    // The right one stops it.
    await sendCancel(op, 'fay', { attempt: 2, fence: 3 })
    expect(await until(() => cancelledOf(op).length === 3 && aborted.has(`${op}/2/3`))).toBe(true)
    expect(cancelledOf(op)[2]).toBe('stopped')
    expect(aborted.get(`${op}/2/3`)).toBe(true)
    await sleep(200)
    expect(ballotsOf(op)).toEqual([])
    expect(escapes).toEqual([])
  }, 15_000)

  it("Was a defect (fixed): a cancel naming a newer fence than the running attempt stops it, as that fence's request would supersede it", async () => {
    const interaction = durableVote()
    const seen: boolean[] = []
    await peer('hal', interaction, async ({ signal }) => {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 1000)
        signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true })
      })
      seen.push(signal.aborted)
      return signal.aborted ? undefined : { approve: true }
    })
    const op = newOp()
    await sendRequest(op, 'hal', `${op}.hal.1`)
    await sleep(100)
    await sendCancel(op, 'hal', { attempt: 1, fence: 9 })
    expect(await until(() => seen.length === 1)).toBe(true)
    expect(await until(() => cancelledOf(op).length === 1)).toBe(true)
    await sleep(200)
    // Was a defect (fixed), found with the early cancels: a cancel whose fence is above the running
    // one's (the fence a later claim has) was answered `unknown` and the superseded execution voted;
    // the request of that fence, delivered after the cancel, then ran too. Now the cancel stops the
    // attempt it names before it starts and supersedes the older execution, as its request would
    // ("a higher fence supersedes a running execution, which then publishes nothing").
    const outcome = cancelledOf(op)[0]
    expect({ outcome, aborted: seen[0], ballots: ballotsOf(op).length }).toEqual({ outcome: 'stopped', aborted: true, ballots: 0 })
  }, 10_000)

  it('a durable handler that throws, its request delivered again: pinned as observed', async () => {
    const interaction = durableVote()
    let runs = 0
    await peer('ivy', interaction, async () => {
      runs++
      await sleep(20)
      if (runs === 1) throw new Error('transient')
      return { approve: true }
    })
    const op = newOp()
    await sendRequest(op, 'ivy', `${op}.ivy.1`)
    expect(await until(() => runs >= 1)).toBe(true)
    await sleep(1800) // past the ack wait: an unacknowledged request would be redelivered
    const afterRedelivery = { runs, ballots: ballotsOf(op).length }
    // The same request sent again with a new message id.
    await sendRequest(op, 'ivy', `${op}.ivy.1.again`)
    await sleep(600)
    const afterReplay = { runs, ballots: ballotsOf(op).length }
    await sendCancel(op, 'ivy')
    expect(await until(() => cancelledOf(op).length === 1)).toBe(true)
    // No doc sentence says what the durable responder does with a handler that throws ("the handler
    // runs once per attempt"; "publishes nothing when the commit fails"). Holds (pinned) as observed:
    // the throw publishes nothing and the request is acknowledged (not redelivered, not run again by
    // itself); the same request sent again with a new message id runs the handler a second time and
    // its vote is published (nothing was committed: read as a retry), and a cancel then answers
    // `already-completed`. (Read against "the handler runs once per attempt" this is doubtful; the
    // docs do not say whether a throw leaves a record.)
    expect({ afterRedelivery, afterReplay, cancel: cancelledOf(op) }).toMatchInlineSnapshot(`
      {
        "afterRedelivery": {
          "ballots": 0,
          "runs": 1,
        },
        "afterReplay": {
          "ballots": 1,
          "runs": 2,
        },
        "cancel": [
          "already-completed",
        ],
      }
    `)
    expect(escapes).toEqual([])
  }, 15_000)

  it('the executor: a peer that ignores its abort and votes after the cancel is not published nor counted; log replays to the state', async () => {
    const interaction = durableVote({ cancelTimeoutMs: 5000 })
    let lateReturned = false
    await peer('amy', interaction, () => ({ approve: true }))
    await peer('ben', interaction, async () => {
      await sleep(50)
      return { approve: true }
    })
    await peer('cid', interaction, async ({ signal }) => {
      // Ignores its signal: votes once the others have decided (bounded by 3 s).
      await until(() => signal.aborted, 150)
      await sleep(200)
      lateReturned = true
      return { approve: false }
    })
    await peer('dot', interaction, async ({ signal }) => {
      await until(() => signal.aborted, 150)
      return undefined
    })
    const ex = executor(await rig.connection(), interaction, ['amy', 'ben', 'cid', 'dot'])
    try {
      const answer = await bounded(
        'invoke',
        ex.invoke({ principalId: 'alice', idempotencyKey: 'deaf-cid', inputs: { group: 'approvers', refund: REFUND } }),
        12_000,
      )
      if (!answer.ok) throw new Error(answer.message)
      const id = answer.value.operationId
      await until(() => lateReturned)
      await sleep(300)
      // Holds (pinned): "`stopped` ends the branch"; "After the decision ... Results keep being
      // admitted as facts until the deadline; they never change the decision".
      expect(answer.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold', successUnits: 2 })
      const branches = Object.fromEntries(answer.value.state.branches.map((b) => [b.branchId, [b.status, b.cancel]]))
      expect(branches).toMatchObject({ amy: ['succeeded', 'none'], ben: ['succeeded', 'none'], cid: ['stopped', 'stopped'], dot: ['stopped', 'stopped'] })
      expect(
        ballotsOf(id)
          .map((b) => b.peer)
          .sort(),
      ).toEqual(['amy', 'ben'])
      const { log } = checkReplay(interaction, ex, id)
      expect(log.filter((e) => e.kind === 'result').map((e) => (e as { branchId: string }).branchId)).not.toContain('cid')
      expect(log.filter((e) => e.kind === 'cancel-answered')).toHaveLength(2)
    } finally {
      await ex.close()
    }
    expect(escapes).toEqual([])
  }, 20_000)

  it('the executor closed with cancels outstanding: replies retained while none runs (one naming a wrong attempt, one repeated) are admitted on resume; the log replays to the state', async () => {
    const interaction = durableVote()
    await peer('ada', interaction, () => ({ approve: true }))
    await peer('bea', interaction, () => ({ approve: true }))
    // cal and dee are raw peers: they never answer until the executor is gone.
    const first = await rig.connection()
    const a = executor(first, interaction, ['ada', 'bea', 'cal', 'dee'])
    const invocation = { principalId: 'alice', idempotencyKey: 'outstanding', inputs: { group: 'approvers', refund: REFUND } }
    const killed = a.invoke(invocation)
    let id = ''
    expect(
      await until(() => {
        const got = cancelRequests.filter((c) => c.peer === 'cal' || c.peer === 'dee')
        if (got.length < 2) return false
        id = got[0]!.body.operationId
        return got.every((c) => c.body.operationId === id)
      }),
    ).toBe(true)
    await a.close()
    await first.close()
    expect(await bounded('the closed invocation', killed, 5000)).toMatchObject({ ok: false })
    const cancelOf = (p: string) => cancelRequests.find((c) => c.peer === p && c.body.operationId === id)!.body
    const cal = cancelOf('cal')
    const dee = cancelOf('dee')
    // While no executor runs: cal answers naming a wrong attempt, then rightly; dee answers twice.
    const reply = (p: string, body: Record<string, unknown>) =>
      js().publish(`payments.refunds.${id}.cancelled.${p}`, JSON.stringify({ operationId: id, branchId: p, ...body }))
    await reply('cal', { outcome: 'stopped', attempt: cal.attempt + 5, fence: cal.fence })
    await reply('cal', { outcome: 'stopped', attempt: cal.attempt, fence: cal.fence })
    await reply('dee', { outcome: 'stopped' })
    await reply('dee', { outcome: 'stopped', attempt: dee.attempt, fence: dee.fence })
    const b = executor(await rig.connection(), interaction, ['ada', 'bea', 'cal', 'dee'])
    try {
      const answer = await bounded('resume', b.resume(id), 12_000)
      if (!answer.ok) throw new Error(answer.message)
      // Holds (pinned): "a reply sent while no executor runs is admitted by the executor that resumes
      // the operation"; "an `attempt`/`fence` in the reply, when present, is checked"; "A reply for a
      // branch not awaiting one (a repeated reply) changes nothing and is not logged".
      expect(answer.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold', successUnits: 2 })
      const branches = Object.fromEntries(answer.value.state.branches.map((br) => [br.branchId, [br.status, br.cancel]]))
      expect(branches).toEqual({ ada: ['succeeded', 'none'], bea: ['succeeded', 'none'], cal: ['stopped', 'stopped'], dee: ['stopped', 'stopped'] })
      const { log, state } = checkReplay(interaction, b, id)
      const answered = log.filter((e) => e.kind === 'cancel-answered') as Array<{ branchId: string; attempt: number }>
      const refusedAt = new Map(state.refused.map((r) => [r.index, r.reason]))
      const admitted = answered.filter((e) => !refusedAt.has(log.indexOf(e as never)))
      const refusals = answered.filter((e) => refusedAt.has(log.indexOf(e as never)))
      // The wrong attempt is refused (logged as one of the first refusals of its reason, handled once
      // or again on a redelivery); dee's repeated reply is not logged at all.
      expect(admitted.map((e) => [e.branchId, e.attempt])).toEqual(
        expect.arrayContaining([
          ['cal', 1],
          ['dee', 1],
        ]),
      )
      expect(admitted).toHaveLength(2)
      expect(refusals.length).toBeGreaterThanOrEqual(1)
      expect(refusals.every((e) => e.branchId === 'cal' && e.attempt === cal.attempt + 5)).toBe(true)
      expect([...refusedAt.values()].every((r) => r === 'stale-attempt')).toBe(true)
      expect(state.settledAtMs).not.toBeNull()
      // The same invocation again on the resumed executor answers the same decision.
      const again = await bounded('again', b.invoke(invocation), 5000)
      expect(again).toMatchObject({ ok: true, value: { decision: answer.value.decision } })
    } finally {
      await b.close()
    }
    expect(escapes).toEqual([])
  }, 25_000)
  it('replies kept by another executor of the interaction (a wrong attempt before the right one) while the operation is not driven: the resuming executor admits the right one', async () => {
    // docs/executor.md: "one for an operation no executor drives is kept like a result (above): a
    // reply sent while no executor runs is admitted by the executor that resumes the operation";
    // "kept in the operation's state (the `<op>.parked` record ..., each result once ...)"; "The
    // executor that resumes the operation admits the kept results"; "nothing admitted is lost".
    const interaction = durableVote({ waitFor: 'decision' })
    await peer('eli', interaction, () => ({ approve: true }))
    await peer('flo', interaction, () => ({ approve: true }))
    const peers = ['eli', 'flo', 'gia', 'hex']
    const first = await rig.connection()
    const a = executor(first, interaction, peers, 2)
    const invocation = { principalId: 'alice', idempotencyKey: 'kept-elsewhere', inputs: { group: 'approvers', refund: REFUND } }
    const decided = await bounded('invoke', a.invoke(invocation), 10_000)
    if (!decided.ok) throw new Error(decided.message)
    const id = decided.value.operationId
    expect(await until(() => cancelRequests.filter((c) => c.body.operationId === id).length === 2)).toBe(true)
    await a.close()
    await first.close()
    // Another executor of the interaction runs (it drives an operation of its own, of eli and flo).
    const c = executor(await rig.connection(), interaction, peers, 2)
    const other = await bounded(
      'other invoke',
      c.invoke({ principalId: 'alice', idempotencyKey: 'kept-other', inputs: { group: 'pair', refund: REFUND } }),
      10_000,
    )
    expect(other).toMatchObject({ ok: true, value: { decision: { outcome: 'success' } } })
    const reply = (p: string, body: Record<string, unknown>) =>
      js().publish(`payments.refunds.${id}.cancelled.${p}`, JSON.stringify({ operationId: id, branchId: p, ...body }))
    await reply('gia', { outcome: 'stopped', attempt: 6, fence: 0 })
    await reply('gia', { outcome: 'stopped', attempt: 1, fence: 0 })
    await reply('hex', { outcome: 'stopped', attempt: 1, fence: 0 })
    // The other executor keeps them and, past its redeliveries, terminates them.
    const jsm = await jetstreamManager(raw)
    await sleep(500)
    expect(
      await until(async () => {
        const ci = await jsm.consumers.info('REFUNDS', 'exec-approveRefund-cancels')
        return ci.num_pending === 0 && ci.num_ack_pending === 0
      }, 300),
    ).toBe(true)
    await c.close()
    const b = executor(await rig.connection(), interaction, peers, 2)
    try {
      const resumed = await bounded('resume', b.resume(id), 10_000)
      if (!resumed.ok) throw new Error(resumed.message)
      const cancelOf = (p: string) => {
        const st = b.state(id)
        return st.ok ? st.value.branches.find((br) => br.branchId === p)?.cancel : undefined
      }
      await until(() => cancelOf('gia') === 'stopped' && cancelOf('hex') === 'stopped', 100)
      const { state } = checkReplay(interaction, b, id)
      const branches = Object.fromEntries(state.branches.map((br) => [br.branchId, [br.status, br.cancel]]))
      expect(branches).toEqual({ eli: ['succeeded', 'none'], flo: ['succeeded', 'none'], gia: ['stopped', 'stopped'], hex: ['stopped', 'stopped'] })
    } finally {
      await b.close()
    }
    expect(escapes).toEqual([])
  }, 25_000)

  it('a cancel for a request held behind 64 running ones (delivered, not yet started) stops it before it starts; the others run once released', async () => {
    // The common way a cancel overtakes its request: the responder runs at most 64 at once and holds
    // the rest of a burst, so a cancel (a core message) is read while its request waits. docs/executor.md:
    // such a cancel stops the attempt before it starts (`stopped`) and the request runs nothing.
    const interaction = durableVote()
    let releaseAll!: () => void
    const released = new Promise<void>((resolve) => (releaseAll = resolve))
    const started: string[] = []
    await peer('kim', interaction, async ({ operationId }) => {
      started.push(operationId)
      // Bounded: released by the test, or 10 s.
      await Promise.race([released, sleep(10_000)])
      return { approve: true }
    })
    const ops = Array.from({ length: 66 }, () => newOp())
    for (const op of ops) await sendRequest(op, 'kim', `${op}.kim.1`)
    expect(await until(() => started.length === 64)).toBe(true)
    const held = ops.filter((op) => !started.includes(op))
    expect(held).toHaveLength(2)
    await sendCancel(held[0]!, 'kim')
    expect(await until(() => cancelledOf(held[0]!).length === 1)).toBe(true)
    expect(cancelledOf(held[0]!)).toEqual(['stopped'])
    releaseAll()
    expect(await until(() => ballots.filter((b) => ops.includes(b.body.operationId)).length === 65)).toBe(true)
    await sleep(1500) // past one ack wait: a held request left unacknowledged would be delivered again
    expect({
      started: started.length,
      cancelledRan: started.includes(held[0]!),
      ballots: ballotsOf(held[0]!).length,
      other: ballotsOf(held[1]!).length,
    }).toEqual({
      started: 65,
      cancelledRan: false,
      ballots: 0,
      other: 1,
    })
    expect(escapes).toEqual([])
  }, 30_000)
})

describe('probe: nothing escaped', () => {
  it('no unhandled rejection or uncaught exception', () => {
    expect(escapes).toEqual([])
  })
})
