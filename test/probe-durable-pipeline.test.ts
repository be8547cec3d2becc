/**
 * An outside hostile pass over the durable executor's result pipeline (docs/executor.md): results in
 * flight when things go wrong. The shop's refund vote (payments contract) run durable-per-recipient
 * against one real nats-server with JetStream (loopback only), its ballots forged on a raw
 * connection with the correlation the executor's own state shows. Slow adapters (50-300 ms, seeded),
 * close() mid-flood and a resume, a result consumer made beforehand with a short ack wait, two
 * operations at once (one flooded), adapters that reject or never settle, and results for a branch
 * already terminal. Every wait is bounded; the assertions are on answers, counts, logs replayed
 * through `simulate` and the server's consumer state, never on durations.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream'
import { createExecutor, planInteraction, simulate, type Executor } from '../src/runtime/nats/executor/index.js'
import type { Interaction } from '../src/runtime/nats/interactions.js'
import { operationId } from '../src/runtime/nats/interactions.js'
import { NATS_SERVER } from './helpers/nats-server.js'
import { deployment, startRig, variant, type Ballot, type Rig, addRefundsStream } from './helpers/executor-nats.js'
import { poll } from './helpers/executor-durable.js'
import { bounded } from './helpers/bounded.js'

const escaped: unknown[] = []
const onEscape = (e: unknown) => escaped.push(e)
process.on('unhandledRejection', onEscape)
process.on('uncaughtException', onEscape)

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const CONSUMER = 'exec-approveRefund-results'
const REFUND = { paymentId: 'pay-12345678', amount: 10 }

/** A seeded delay source: 50-300 ms. */
function delays(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return 50 + (s % 251)
  }
}

const peersOf = (n: number, prefix = 'p') => Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(3, '0')}`)

function vote(rig: Rig, completion: object): Interaction {
  return variant(rig.approve, {
    delivery: { mode: 'durable-per-recipient', state: 'durable', restart: 'resume' },
    completion: { mode: 'quorum', fraction: undefined, waitFor: 'decision', remaining: 'detach', ...completion },
  })
}

type Adapters = Parameters<typeof createExecutor>[0]['adapters']

async function executorFor(rig: Rig, interaction: Interaction, peers: string[], adapters: Partial<Adapters>, ackWaitMs = 1000): Promise<Executor> {
  const made = createExecutor({
    connection: await rig.connection(),
    module: rig.module,
    interaction,
    contractDigest: rig.digest,
    deployment,
    durable: { requestStream: 'REFUNDS', resultStream: 'REFUNDS', stateBucket: 'pipe_state', ackWaitMs },
    adapters: {
      audience: () => ({ revision: 'r7', peers }),
      authorization: () => ({ allowed: true }),
      ...adapters,
    } as Adapters,
  })
  if (!made.ok) throw new Error(made.message)
  opened.push(made.value as Executor)
  return made.value as Executor
}

/** Every executor a test made, closed after it (a failed test leaves none reading the shared consumer). */
const opened: Executor[] = []

/** Counts each result's adapters in flight (from its authorization at stage `result` to its verifier's answer). */
function counter() {
  const c = { running: 0, most: 0, asked: 0, verified: 0, byBranch: new Map<string, number>() }
  return c
}

/** The branches' correlation as the executor's state shows it. */
function branchesOf(executor: Executor, id: string): Array<{ branchId: string; peerId: string; attempt: number; fence: number }> {
  const state = executor.state(id)
  if (!state.ok) throw new Error(state.message)
  return (state.value as any).branches
}

async function publishBallots(rig: Rig, id: string, branches: Array<{ branchId: string; peerId: string; attempt: number; fence: number }>) {
  const js = jetstream(await rig.connection())
  for (let i = 0; i < branches.length; i += 100) {
    await Promise.all(
      branches.slice(i, i + 100).map((b) => {
        const ballot: Ballot = { operationId: id, branchId: b.branchId, attempt: b.attempt, fence: b.fence, peerId: b.peerId, approve: true }
        return js.publish(`payments.refunds.${id}.ballot.${b.peerId}`, JSON.stringify(ballot))
      }),
    )
  }
}

function replayed(interaction: Interaction, log: readonly unknown[]) {
  const plan = planInteraction(interaction)
  if (!plan.ok) throw new Error('no plan')
  return simulate(plan.value.policy, log as any)
}

const resultsPerBranch = (log: readonly any[]) => {
  const m = new Map<string, number>()
  for (const e of log) if (e.kind === 'result') m.set(e.branchId ?? e.result?.branchId, (m.get(e.branchId ?? e.result?.branchId) ?? 0) + 1)
  return m
}

describe.skipIf(!NATS_SERVER)('probe: durable results in flight when things go wrong (payments vote)', () => {
  let rig: Rig
  beforeAll(async () => {
    rig = await startRig('probe-durable-pipeline')
    await addRefundsStream(await rig.connection())
  }, 60_000)
  afterEach(async () => {
    for (const ex of opened.splice(0)) await bounded('close() after the test', ex.close(), 10_000)
  })
  afterAll(async () => {
    await rig?.stop()
  })

  it('Holds (pinned): a flood whose adapters never settle, no honest ballot: decided by the deadline, nothing stuck', async () => {
    const interaction = vote(rig, { count: 1, deadlineMs: 2000 })
    let asked = 0
    const ex = await executorFor(rig, interaction, ['ann', 'zed'], {
      verifier: ({ data }: any) => {
        if (data.peerId !== 'zed') return { allowed: true }
        asked++
        return new Promise<never>(() => undefined)
      },
    })
    const invocation = { principalId: 'alice', idempotencyKey: 'hang-only', inputs: { group: 'approvers', refund: REFUND } }
    const id = await operationId(invocation.principalId, rig.digest, invocation.idempotencyKey)
    const answered = ex.invoke(invocation)
    await poll(() => ex.state(id).ok && branchesOf(ex, id).length > 0)
    const js = jetstream(await rig.connection())
    await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        js.publish(
          `payments.refunds.${id}.ballot.zed`,
          JSON.stringify({ operationId: id, branchId: `y${i}`, attempt: 1, fence: 0, peerId: 'zed', approve: true }),
        ),
      ),
    )
    await poll(() => asked >= 64, 500)
    await pause(200)
    const undecided = (ex.state(id) as any).value.decision === null
    const askedBefore = asked
    // Holds (pinned): "At most 64 results of one operation have their adapters asked at a time; the next ones wait their turn":
    // 64 never-settling verifiers hold every place until the deadline cuts them off.
    if (undecided) expect(askedBefore).toBe(64)
    const answer = await bounded('the invocation', answered, 15_000)
    // Holds (pinned): "one whose verifier ... answer is still unsettled at the operation's next due time (its deadline ...)" is refused: decided by the deadline.
    expect(answer).toMatchObject({ ok: true, value: { decision: { outcome: 'failure', reason: 'timeout' } } })
    // Nothing stuck: the consumer drains once the operation is decided.
    const jsm = await jetstreamManager(await rig.connection())
    // Holds (pinned): each of the 150 refused once ("the first 8 refusals of each reason ... every other refusal ... one `tick` whose `omitted` counts the refusals").
    const refusals = () => {
      const st = ex.state(id) as any
      return st.ok ? st.value.refused.length + (st.value.refusalsOmitted ?? 0) : -1
    }
    await poll(() => refusals() === 150, 500).catch(() => undefined)
    expect(refusals()).toBe(150)
    // Holds (pinned): nothing stuck. The first test on the consumer: once decided, it drains (every message acknowledged).
    await poll(async () => {
      const info = await jsm.consumers.info('REFUNDS', CONSUMER).catch(() => null)
      return info !== null && info.num_ack_pending === 0 && info.num_pending === 0
    }, 500)
    const log = ex.log(id)
    const state = ex.state(id)
    if (log.ok && state.ok) expect(replayed(interaction, log.value)).toEqual(state.value)
    await bounded('close()', ex.close(), 10_000)
  }, 40_000)

  it('Holds (pinned): close() while 200 results are asked or waiting (slow adapters), then a new executor resumes: every result admitted exactly once', async () => {
    const peers = peersOf(200)
    const interaction = vote(rig, { count: 200, deadlineMs: 20_000 })
    const next = delays(7)
    const make = (c: ReturnType<typeof counter>) => ({
      authorization: async ({ data }: any) => {
        if (data.stage !== 'result') return { allowed: true }
        c.asked++
        c.most = Math.max(c.most, ++c.running)
        await pause(next() / 2)
        return { allowed: true }
      },
      verifier: async ({ data }: any) => {
        c.byBranch.set(data.branchId, (c.byBranch.get(data.branchId) ?? 0) + 1)
        await pause(next() / 2)
        c.running--
        c.verified++
        return { allowed: true }
      },
    })
    const first = counter()
    const a = await executorFor(rig, interaction, peers, make(first))
    const invocation = { principalId: 'alice', idempotencyKey: 'close-mid-flood', inputs: { group: 'approvers', refund: REFUND } }
    const id = await operationId(invocation.principalId, rig.digest, invocation.idempotencyKey)
    const answeredA = a.invoke(invocation)
    await poll(() => a.state(id).ok && branchesOf(a, id).length === 200)
    const branches = branchesOf(a, id)
    expect(branches).toHaveLength(200)
    await publishBallots(rig, id, branches)
    await poll(() => first.asked >= 90, 500)
    await bounded('close() mid-flood', a.close(), 10_000)
    // Holds (pinned): "Closing a durable executor decides nothing (the invocation answers EXECUTOR_STATE_FAILED, or EXECUTOR_CLOSED once decided)".
    expect(await bounded('the first invocation', answeredA, 10_000)).toMatchObject({ ok: false, code: 'EXECUTOR_STATE_FAILED' })
    const second = counter()
    const b = await executorFor(rig, interaction, peers, make(second))
    const answer = await bounded('the resumed operation', b.resume(id), 20_000)
    await b.close()
    // Holds (pinned): "a result is acknowledged to its consumer only once the event it made is in the log: a crash before that redelivers it" and
    // "The executor that resumes the operation admits the kept results": all 200 ballots counted, each once.
    expect(answer).toMatchObject({ ok: true, value: { decision: { outcome: 'success', successUnits: 200 } } })
    if (!answer.ok) return
    const state = (answer.value as any).state
    expect(state.branches.filter((x: any) => x.status === 'succeeded')).toHaveLength(200)
    const log = b.log(id)
    if (!log.ok) throw new Error(log.message)
    const per = resultsPerBranch(log.value)
    expect(per.size).toBe(200)
    expect([...per.values()].every((n) => n === 1)).toBe(true)
    // Holds (pinned): "simulate(policy, log) gives the executor's own state", every time.
    expect(replayed(interaction, log.value)).toEqual(state)
    expect(replayed(interaction, log.value)).toEqual(state)
    // Holds (pinned): "At most 64 results of one operation have their adapters asked at a time", in both executors.
    expect(first.most).toBeLessThanOrEqual(64)
    expect(second.most).toBeLessThanOrEqual(64)
    expect(first.most).toBeGreaterThan(8)
    // Every ballot asked at least once between the two executors; none admitted twice (above).
    for (const br of branches) expect((first.byBranch.get(br.branchId) ?? 0) + (second.byBranch.get(br.branchId) ?? 0)).toBeGreaterThanOrEqual(1)
  }, 60_000)

  /**
   * ann's ballot admitted (her branch succeeded), then 20 copies of it and 5 copies voting no (the same
   * branch, attempt and fence), then bob's and cat's ballots: the quorum of 3 decides.
   */
  let terminal: Promise<{ asked: Map<string, number>; answer: any; log: any[]; delivered: number; interaction: Interaction }> | undefined
  const terminalScenario = () =>
    (terminal ??= (async () => {
      const interaction = vote(rig, { count: 3, deadlineMs: 15_000 })
      const asked = new Map<string, number>()
      const count = (key: string) => asked.set(key, (asked.get(key) ?? 0) + 1)
      const ex = await executorFor(rig, interaction, ['ann', 'bob', 'cat'], {
        authorization: ({ data }: any) => {
          if (data.stage === 'result') count(`authorization:${data.peerId}`)
          return { allowed: true }
        },
        verifier: ({ data }: any) => {
          count(`verifier:${data.branchId}`)
          return { allowed: true }
        },
      })
      const invocation = { principalId: 'alice', idempotencyKey: 'terminal-replays', inputs: { group: 'approvers', refund: REFUND } }
      const id = await operationId(invocation.principalId, rig.digest, invocation.idempotencyKey)
      const answered = ex.invoke(invocation)
      await poll(() => ex.state(id).ok && branchesOf(ex, id).length > 0)
      const branches = branchesOf(ex, id)
      const ann = branches.find((x) => x.branchId === 'ann')!
      await publishBallots(rig, id, [ann])
      await poll(() => (ex.state(id) as any).value.branches.find((x: any) => x.branchId === 'ann').status === 'succeeded')
      const jsm = await jetstreamManager(await rig.connection())
      const before = (await jsm.consumers.info('REFUNDS', CONSUMER)).delivered.consumer_seq
      await publishBallots(
        rig,
        id,
        Array.from({ length: 20 }, () => ann),
      )
      const js = jetstream(await rig.connection())
      for (let i = 0; i < 5; i++)
        await js.publish(
          `payments.refunds.${id}.ballot.ann`,
          JSON.stringify({ operationId: id, branchId: 'ann', attempt: ann.attempt, fence: ann.fence, peerId: 'ann', approve: false }),
        )
      // All 25 delivered before bob's and cat's ballots are sent (the operation still open; its results are applied in arrival order).
      await poll(async () => (await jsm.consumers.info('REFUNDS', CONSUMER)).delivered.consumer_seq - before >= 25, 500)
      const delivered = (await jsm.consumers.info('REFUNDS', CONSUMER)).delivered.consumer_seq - before
      await publishBallots(
        rig,
        id,
        branches.filter((x) => x.branchId !== 'ann'),
      )
      const answer = await bounded('the invocation', answered, 15_000)
      const log = ex.log(id)
      if (!log.ok) throw new Error(log.message)
      return { asked, answer, log: log.value as any[], delivered, interaction }
    })())

  it('Holds (pinned): results for a branch already terminal (copies of its ballot, and copies voting no) ask no adapter, are admitted never, change nothing', async () => {
    const { asked, answer, log, delivered, interaction } = await terminalScenario()
    expect(delivered).toBeGreaterThanOrEqual(25)
    // docs/executor.md ("Fences"): "A result must carry the branch's current attempt and fence exactly, and come from its current peer";
    // a terminal branch takes no second result: ann's one ballot counts, once, and its adapters were asked once.
    expect(answer).toMatchObject({ ok: true, value: { decision: { outcome: 'success', successUnits: 3 } } })
    expect(resultsPerBranch(log).get('ann')).toBe(1)
    expect(answer.value.decision.votes.filter((v: any) => v.branchId === 'ann')).toEqual([expect.objectContaining({ success: true })])
    expect(Object.fromEntries(asked)).toEqual({
      'authorization:ann': 1,
      'verifier:ann': 1,
      'authorization:bob': 1,
      'verifier:bob': 1,
      'authorization:cat': 1,
      'verifier:cat': 1,
    })
    expect(replayed(interaction, log)).toEqual(answer.value.state)
  }, 30_000)

  it('Was a defect (fixed): 25 results replaying a terminal branch were refused uncounted: neither in refused nor in refusalsOmitted, no clock move logged', async () => {
    // Was a defect (fixed): the 25 copies of ann's ballot (delivered and acknowledged while the operation was open,
    // before the ballots that decided it) left no trace: state.refused is [], refusalsOmitted is 0, the
    // log is admitted, tick, result x3. Expected 25 refusals counted. docs/executor.md ("What a peer's
    // messages can grow"): "every other refusal (a replayed result, a result for a branch never
    // dispatched, a stale attempt or fence, ...) ... is logged as a clock move only: consecutive ones
    // are one `tick` whose `omitted` counts the refusals it stands for, and the state reports them as
    // `refusalsOmitted`".
    const { answer } = await terminalScenario()
    expect(answer.value.state.refused.length + (answer.value.state.refusalsOmitted ?? 0)).toBe(25)
  }, 30_000)

  it('Holds (pinned): two operations at once: one flooded with 500 results whose adapters are slow, the other’s two in-time ballots decide it in time', async () => {
    const interaction = vote(rig, { count: 2, deadlineMs: 3000 })
    const slow = delays(11)
    let floodAsked = 0
    const ex = await executorFor(rig, interaction, [], {
      audience: ({ data }: any) => ({ revision: 'r7', peers: data.input === 'flood' ? ['zed', 'zoe'] : ['ann', 'bob'] }),
      authorization: async ({ data }: any) => {
        if (data.stage === 'result' && data.peerId === 'zed') {
          floodAsked++
          await pause(slow() + 250)
        }
        return { allowed: true }
      },
    })
    const flood = { principalId: 'alice', idempotencyKey: 'fair-flood', inputs: { group: 'flood', refund: REFUND } }
    const quiet = { principalId: 'alice', idempotencyKey: 'fair-quiet', inputs: { group: 'approvers', refund: REFUND } }
    const floodId = await operationId(flood.principalId, rig.digest, flood.idempotencyKey)
    const quietId = await operationId(quiet.principalId, rig.digest, quiet.idempotencyKey)
    const floodAnswer = ex.invoke(flood)
    const quietAnswer = ex.invoke(quiet)
    await poll(() => ex.state(floodId).ok && ex.state(quietId).ok && branchesOf(ex, floodId).length > 0 && branchesOf(ex, quietId).length > 0)
    const js = jetstream(await rig.connection())
    for (let i = 0; i < 500; i += 100)
      await Promise.all(
        Array.from({ length: 100 }, (_, j) =>
          js.publish(
            `payments.refunds.${floodId}.ballot.zed`,
            JSON.stringify({ operationId: floodId, branchId: `x${i + j}`, attempt: 1, fence: 0, peerId: 'zed', approve: true }),
          ),
        ),
      )
    await publishBallots(rig, quietId, branchesOf(ex, quietId))
    const answer = await bounded('the quiet operation', quietAnswer, 15_000)
    const flooded = await bounded('the flooded operation', floodAnswer, 15_000)
    await bounded('close()', ex.close(), 10_000)
    // The flood was being asked while the quiet operation decided.
    expect(floodAsked).toBeGreaterThan(0)
    // Holds (pinned): "one operation's flood takes one of the 32 places and never holds another operation's results behind it".
    expect(answer).toMatchObject({ ok: true, value: { decision: { outcome: 'success', successUnits: 2 } } })
    // The flooded one (no real branch answers) is decided by its deadline.
    expect(flooded).toMatchObject({ ok: true, value: { decision: { outcome: 'failure' } } })
    if (answer.ok) {
      const log = ex.log(quietId)
      if (log.ok) expect(replayed(interaction, log.value)).toEqual((answer.value as any).state)
    }
  }, 40_000)

  /**
   * ann and zed are asked; zed floods 140 results for branches never dispatched: the first 40's
   * authorization rejects with an Error, the next 100's never settles. Then ann's honest ballot, long
   * before the 3 s deadline (the quorum is 1).
   */
  let hang: Promise<{ answer: any; asked: number; admittedAt: number; final: any; log: any[]; interaction: Interaction }> | undefined
  const hangScenario = () =>
    (hang ??= (async () => {
      const interaction = vote(rig, { count: 1, deadlineMs: 3000 })
      let asked = 0
      const ex = await executorFor(rig, interaction, ['ann', 'zed'], {
        authorization: ({ data }: any) => {
          if (data.stage !== 'result' || data.peerId !== 'zed') return { allowed: true }
          asked++
          const n = Number(String(data.branchId).slice(1))
          return n < 40 ? Promise.reject(new Error(`no ${n}`)) : new Promise<never>(() => undefined)
        },
      })
      const invocation = { principalId: 'alice', idempotencyKey: 'hang-flood', inputs: { group: 'approvers', refund: REFUND } }
      const id = await operationId(invocation.principalId, rig.digest, invocation.idempotencyKey)
      const answered = ex.invoke(invocation)
      await poll(() => ex.state(id).ok && branchesOf(ex, id).length > 0)
      const js = jetstream(await rig.connection())
      for (let i = 0; i < 140; i++)
        await js.publish(
          `payments.refunds.${id}.ballot.zed`,
          JSON.stringify({ operationId: id, branchId: `x${i}`, attempt: 1, fence: 0, peerId: 'zed', approve: true }),
        )
      await publishBallots(rig, id, [branchesOf(ex, id).find((x) => x.branchId === 'ann')!])
      const answer = await bounded('the invocation', answered, 15_000)
      // Until ann's ballot is in the log (it is, after the decision), bounded.
      await poll(() => resultsPerBranch((ex.log(id) as any).value ?? []).has('ann'), 250).catch(() => undefined)
      const log = ex.log(id) as any
      const final = ex.state(id) as any
      await bounded('close()', ex.close(), 10_000)
      const admittedAt = log.value.find((e: any) => e.kind === 'admitted').atMs
      return { answer, asked, admittedAt, final: final.value, log: log.value, interaction }
    })())

  it("Was a defect (fixed): an honest ballot read before the deadline, queued in the pipeline behind 90 results whose authorization never settles, is applied before the deadline's tick", async () => {
    // 90 flood results: 64 asked (never settling), 26 and ann's ballot waiting for a place, all
    // delivered before the deadline. At the deadline the 64 are cut off and the others take their
    // places; the tick, held while ann's ballot was unrouted, ran as soon as it was routed, inside the
    // task of a result queued before it, ahead of ann's queued event: failure/timeout. The held tick
    // is now looked at again behind each queued message, so it comes after ann's event: success.
    const interaction = vote(rig, { count: 1, deadlineMs: 3000 })
    const ex = await executorFor(rig, interaction, ['ann', 'zed'], {
      authorization: ({ data }: any) => (data.stage === 'result' && data.peerId === 'zed' ? new Promise<never>(() => undefined) : { allowed: true }),
    })
    const invocation = { principalId: 'alice', idempotencyKey: 'queued-honest', inputs: { group: 'approvers', refund: REFUND } }
    const id = await operationId(invocation.principalId, rig.digest, invocation.idempotencyKey)
    const answered = ex.invoke(invocation)
    try {
      await poll(() => ex.state(id).ok && branchesOf(ex, id).length > 0)
      const js = jetstream(await rig.connection())
      for (let i = 0; i < 90; i++)
        await js.publish(
          `payments.refunds.${id}.ballot.zed`,
          JSON.stringify({ operationId: id, branchId: `x${i}`, attempt: 1, fence: 0, peerId: 'zed', approve: true }),
        )
      await publishBallots(rig, id, [branchesOf(ex, id).find((x) => x.branchId === 'ann')!])
      const answer = await bounded('the invocation', answered, 15_000)
      expect(answer).toMatchObject({ ok: true, value: { decision: { outcome: 'success', successUnits: 1 } } })
    } finally {
      await bounded('close()', ex.close(), 10_000)
    }
  }, 30_000)

  it('Holds (pinned): a flood whose adapters reject with an Error or never settle is bounded: the invocation is decided, close() returns, the log replays', async () => {
    const { answer, asked, final, log, interaction } = await hangScenario()
    // "whatever an adapter throws is shown as text"; "one whose verifier (or authorization) answer is still unsettled at the operation's
    // next due time (its deadline ...)" is refused: the invocation answers, decided, and every flood result's authorization was asked.
    expect(answer.ok).toBe(true)
    expect(answer.value.decision.outcome).toMatch(/^(success|failure)$/)
    expect(asked).toBe(140)
    // "simulate(policy, log) gives the executor's own state", every time.
    expect(replayed(interaction, log)).toEqual(final)
    expect(replayed(interaction, log)).toEqual(final)
  }, 40_000)

  /**
   * The result consumer deleted and made again beforehand with a 1 s ack wait (the binding's is 30 s),
   * new messages only; then SHORT results, one per branch, behind adapters of 50-300 ms each
   * (authorization then verifier): the last ones wait far longer than the ack wait.
   */
  const SHORT = 400
  let short: Promise<{ answer: any; info: any; c: ReturnType<typeof counter>; lag: number; log: any[]; interaction: Interaction }> | undefined
  const shortScenario = () =>
    (short ??= (async () => {
      const jsm = await jetstreamManager(await rig.connection())
      const existing = await jsm.consumers.info('REFUNDS', CONSUMER)
      await jsm.consumers.delete('REFUNDS', CONSUMER)
      const { opt_start_seq: _s, opt_start_time: _t, ...config } = existing.config as any
      await jsm.consumers.add('REFUNDS', { ...config, ack_wait: 1_000_000_000, deliver_policy: DeliverPolicy.New, ack_policy: AckPolicy.Explicit })
      const interaction = vote(rig, { count: SHORT, deadlineMs: 20_000 })
      const next = delays(23)
      const c = counter()
      const ex = await executorFor(
        rig,
        interaction,
        peersOf(SHORT, 'q'),
        {
          authorization: async ({ data }: any) => {
            if (data.stage !== 'result') return { allowed: true }
            c.asked++
            c.most = Math.max(c.most, ++c.running)
            await pause(next())
            c.running--
            return { allowed: true }
          },
          verifier: async ({ data }: any) => {
            c.byBranch.set(data.branchId, (c.byBranch.get(data.branchId) ?? 0) + 1)
            await pause(next())
            return { allowed: true }
          },
        },
        30_000,
      )
      const invocation = { principalId: 'alice', idempotencyKey: 'short-ack-wait', inputs: { group: 'approvers', refund: REFUND } }
      const id = await operationId(invocation.principalId, rig.digest, invocation.idempotencyKey)
      const answered = ex.invoke(invocation)
      await poll(() => ex.state(id).ok && branchesOf(ex, id).length > 0)
      // How late a 50 ms timer fires while the flood is handled: the executor's own marks are timers too.
      let lag = 0
      let last = Date.now()
      const monitor = setInterval(() => {
        const now = Date.now()
        lag = Math.max(lag, now - last - 50)
        last = now
      }, 50)
      await publishBallots(rig, id, branchesOf(ex, id))
      const answer = await bounded('the invocation', answered, 20_000).finally(() => clearInterval(monitor))
      const info = await jsm.consumers.info('REFUNDS', CONSUMER)
      await ex.close()
      const log = ex.log(id)
      if (!log.ok) throw new Error(log.message)
      console.log(
        'short ack wait: delivered',
        info.delivered.consumer_seq,
        'for',
        SHORT,
        'results; event loop lag at most',
        lag,
        'ms; asked',
        c.asked,
        'most',
        c.most,
      )
      return { answer, info, c, lag, log: log.value as any[], interaction }
    })())

  it('Holds (pinned): a consumer made beforehand with a 1 s ack wait is used as it is; each of 400 results behind slow adapters is asked once and admitted once', async () => {
    const { answer, info, c, log, interaction } = await shortScenario()
    // "a consumer made earlier is used as it is, never changed"
    expect(info.config.ack_wait).toBe(1_000_000_000)
    expect(answer).toMatchObject({ ok: true, value: { decision: { outcome: 'success', successUnits: SHORT } } })
    expect([...resultsPerBranch(log).values()].every((n) => n === 1)).toBe(true)
    expect(resultsPerBranch(log).size).toBe(SHORT)
    expect(replayed(interaction, log)).toEqual(answer.value.state)
    // Each result's adapters asked once (a redelivered copy, if any, asks none), at most 64 at a time.
    expect(c.asked).toBe(SHORT)
    expect([...c.byBranch.values()].every((n) => n === 1)).toBe(true)
    expect(c.most).toBeLessThanOrEqual(64)
  }, 60_000)

  it('Holds (pinned): nothing escaped: no unhandled rejection or uncaught exception', async () => {
    await pause(200)
    process.off('unhandledRejection', onEscape)
    process.off('uncaughtException', onEscape)
    expect(escaped.map(String)).toEqual([])
  })
})
