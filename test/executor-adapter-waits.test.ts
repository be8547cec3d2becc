/**
 * Adapters that never settle, against a real nats-server, in both executors: an answer that an
 * operation's timer can bound (a result's verifier, a result's authorization) is unverified or
 * refused at the operation's next due time, so the deadline still decides; one that nothing but
 * close() can bound (the audience, an admission's authorization, the aggregation) is answered
 * `EXECUTOR_CLOSED` when the executor closes, and close() returns. Every wait here is bounded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Executor, ExecutorResult } from '../src/runtime/nats/executor/index.js'
import { bounded } from './helpers/bounded.js'
import { NATS_SERVER } from './helpers/nats-server.js'
import { countedAuthorization } from './helpers/counted-authorization.js'
import { startRig, variant, type Rig } from './helpers/executor-nats.js'
import { poll, quick, shipmentInputs, startDurableRig, type DurableRig } from './helpers/executor-durable.js'
import { STREAM } from './helpers/executor-durable-config.js'
import { jetstreamManager } from '@nats-io/jetstream'
import { operationId } from '../src/runtime/nats/interactions.js'

const never = () => new Promise<never>(() => undefined)
const refund = { paymentId: 'pay-12345678', amount: 10 }
let key = 0

/** Whether `answer` is still unsettled after `ms` (bounded: it answers either way). */
async function stillPending(answer: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([answer.then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), ms))])
}

/** What an invocation answered, in short: its decision's outcome and reason, or its refusal's code. */
function summary(answer: ExecutorResult<{ decision: { outcome: string; reason: string } }>): string {
  return answer.ok ? `${answer.value.decision.outcome}/${answer.value.decision.reason}` : answer.code
}

/** Invokes, checks the answer is still pending, closes: close() returns and the invocation is answered EXECUTOR_CLOSED. */
async function answeredAtClose(executor: Executor<any>, invocation: Parameters<Executor<any>['invoke']>[0]): Promise<void> {
  const answer = executor.invoke(invocation)
  expect(await stillPending(answer, 400)).toBe(true)
  await bounded('close() with an adapter that never settles', executor.close(), 5000)
  expect(await bounded('invoke() after close()', answer, 5000)).toMatchObject({ ok: false, code: 'EXECUTOR_CLOSED' })
}

describe.skipIf(!NATS_SERVER)('adapters that never settle: the memory executor', () => {
  let rig: Rig
  beforeAll(async () => {
    rig = await startRig('adapter-waits')
    await rig.peers({ bob: { vote: true } })
  }, 60_000)
  afterAll(async () => {
    await rig?.stop()
  })
  const invocation = (extra: { group?: string } = {}) => ({
    principalId: 'alice',
    idempotencyKey: `waits-${key++}`,
    inputs: { group: 'solo', refund, ...extra },
  })
  const interaction = () => variant(rig.approve, { completion: { deadlineMs: 1500 } })

  it('Was a defect (fixed): an audience adapter that never settles held invoke() after close()', async () => {
    await answeredAtClose(await rig.executor(interaction(), { audience: never }), invocation())
  })

  it("Was a defect (fixed): an admission's authorization that never settles held invoke() after close()", async () => {
    const executor = await rig.executor(interaction(), { authorization: ({ data }) => (data.stage === 'admission' ? never() : { allowed: true }) })
    await answeredAtClose(executor, invocation())
  })

  it('Was a defect (fixed): an aggregation adapter that never settles held invoke() and close() for good', async () => {
    let asked = 0
    const executor = await rig.executor(interaction(), {
      aggregation: () => {
        asked++
        return never()
      },
    })
    await answeredAtClose(executor, invocation())
    expect(asked).toBe(1)
  })

  it('an aggregation that fails answers EXECUTOR_ADAPTER_FAILED with the decision kept; the same invocation again asks only the aggregation, and answers its output', async () => {
    // Holds (pinned; docs/executor.md, Adapters): the operation is decided (state has it), its answer
    // is not recorded, so a repeated invocation (same principal and key) runs the aggregation again
    // and sends no request again.
    let asked = 0
    const executor = await rig.executor(interaction(), {
      aggregation: ({ context, data }) => {
        if (++asked === 1) throw new Error('tally store unavailable')
        return { operationId: context.operationId, approved: data.length === 1 }
      },
    })
    const same = invocation()
    const id = await operationId('alice', rig.digest, same.idempotencyKey)
    const before = rig.handled.get('bob') ?? 0
    const first = await bounded('invoke()', executor.invoke(same), 10_000)
    expect(first).toMatchObject({ ok: false, code: 'EXECUTOR_ADAPTER_FAILED', message: expect.stringContaining('tally store unavailable') })
    const state = executor.state(id)
    expect(state.ok && state.value.decision).toMatchObject({ outcome: 'success' })
    const again = await bounded('invoke() again', executor.invoke(same), 10_000)
    expect(again.ok && again.value.output).toEqual({ operationId: expect.any(String), approved: true })
    expect(summary(again as never)).toMatch(/^success\//)
    expect([asked, (rig.handled.get('bob') ?? 0) - before]).toEqual([2, 1])
    await bounded('close()', executor.close(), 5000)
  })

  it('Was a defect (fixed): an authorization adapter answering with a promise refused every result (its verdict was read as an answer object)', async () => {
    // Asynchronous adapters (a lookup in a store) at every stage: bob's vote is admitted and decides.
    const executor = await rig.executor(interaction(), {
      authorization: async () => ({ allowed: true }),
      verifier: async () => ({ allowed: true }),
      audience: async () => ({ revision: 'r7', peers: ['bob'] }),
    })
    const answer = await bounded('invoke()', executor.invoke(invocation()), 10_000)
    await bounded('close()', executor.close(), 5000)
    expect(summary(answer as never)).toMatch(/^success\//)
  })

  it("Was a defect (fixed): an authorization that never settles at dispatch held the deadline behind it; the peer is now revoked at the operation's next due time", async () => {
    const executor = await rig.executor(interaction(), { authorization: ({ data }) => (data.stage === 'dispatch' ? never() : { allowed: true }) })
    const answer = await bounded('invoke() past the deadline', executor.invoke(invocation()), 10_000)
    await bounded('close()', executor.close(), 5000)
    expect(summary(answer as never)).toMatch(/^failure\//)
  })

  it("Was a defect (fixed): close() in the same turn as a new executor's first invoke(): the invocation ran on to its deadline, and close() with it", async () => {
    // Its subscriptions were made after the decision core: a close() while they were made applied
    // `lost` before the admission, which then ran on (peers that never answer: until the deadline).
    const executor = await rig.executor(variant(rig.approve, { completion: { deadlineMs: 20_000 } }), {
      audience: () => ({ revision: 'r7', peers: ['ann'] }),
    })
    const answer = executor.invoke(invocation())
    await bounded('close() in the same turn as invoke()', executor.close(), 5000)
    const answered = await bounded('invoke() after close()', answer, 5000)
    expect(answered.ok ? answered.value.decision : answered.code).toEqual(
      answered.ok ? expect.objectContaining({ outcome: 'indeterminate', reason: 'lost' }) : 'EXECUTOR_CLOSED',
    )
  })

  it('Was a defect (fixed): a CancelResult that came in time, handled behind a result whose verifier was awaited, was timed at its turn (after the cancel timeout)', async () => {
    // A quorum of 2 of ann, bob and eve: ann and bob approve at once, eve is asked to stop. eve (a
    // peer on a raw connection) answers the cancel with a ballot, then with `stopped`. Her ballot's
    // verifier never settles: cut off at the cancel timeout, it is unverified; her `stopped`, queued
    // behind it, came long before that timeout but took the time of its turn: refused after the
    // timeout, where a result's time was already its arrival's. Now both are when they came.
    const coop = variant(rig.approve, {
      completion: { mode: 'quorum', count: 2, fraction: undefined, waitFor: 'settled', deadlineMs: 10_000, cancelTimeoutMs: 1200 },
    })
    const executor = await rig.executor(coop, {
      audience: () => ({ revision: 'r7', peers: ['ann', 'bob', 'eve'] }),
      verifier: ({ data }) => (data.peerId === 'eve' ? never() : { allowed: true }),
    })
    const ann = await rig.peers({ ann: { vote: true } })
    const raw = await rig.connection()
    const eve = raw.subscribe('payments.refunds.*.cancel.eve', {
      callback: (_e, msg) => {
        const { operationId: id, attempt, fence } = msg.json<{ operationId: string; attempt: number; fence: number }>()
        raw.publish(`payments.refunds.${id}.ballot.eve`, JSON.stringify({ operationId: id, branchId: 'eve', attempt, fence, peerId: 'eve', approve: true }))
        raw.publish(`payments.refunds.${id}.cancelled.eve`, JSON.stringify({ operationId: id, branchId: 'eve', outcome: 'stopped' }))
      },
    })
    await raw.flush()
    try {
      const answer = await bounded('invoke()', executor.invoke(invocation({ group: 'approvers' })), 10_000)
      if (!answer.ok) throw new Error(answer.message)
      const eveBranch = answer.value.state.branches.find((b) => b.branchId === 'eve')
      expect([eveBranch?.status, eveBranch?.cancel]).toEqual(['stopped', 'stopped'])
      expect(answer.value.state.refused.map((r) => r.reason)).toEqual(['unverified'])
    } finally {
      eve.unsubscribe()
      for (const r of ann) await r.close()
      await bounded('close()', executor.close(), 5000)
    }
  })

  it("a flood of results asks an application's adapters at most 64 at a time, each result's when it arrives", async () => {
    // zed never answers; 300 ballots in his name for branches of the operation that do not exist
    // (the schema and the correlation hold: each asks the authorization, which takes 30 ms).
    const key = `flood-${Date.now()}`
    const id = await operationId('alice', rig.digest, key)
    const { authorization, counts } = countedAuthorization(30)
    const executor = await rig.executor(variant(rig.approve, { completion: { deadlineMs: 3000 } }), {
      audience: () => ({ revision: 'r7', peers: ['zed'] }),
      authorization,
    })
    const raw = await rig.connection()
    const answer = executor.invoke({ principalId: 'alice', idempotencyKey: key, inputs: { group: 'solo', refund } })
    for (let i = 0; i < 50 && !executor.state(id).ok; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    for (let i = 0; i < 300; i++)
      raw.publish(
        `payments.refunds.${id}.ballot.zed`,
        JSON.stringify({ operationId: id, branchId: `x${i}`, attempt: 1, fence: 0, peerId: 'zed', approve: true }),
      )
    await raw.flush()
    try {
      expect(await bounded('invoke() past the deadline', answer, 10_000)).toMatchObject({ ok: true })
      expect(counts.asked).toBe(300)
      // Asked side by side (one at a time before), never more than 64 at once.
      expect(counts.most).toBeGreaterThan(8)
      expect(counts.most).toBeLessThanOrEqual(64)
    } finally {
      await bounded('close()', executor.close(), 5000)
    }
  })

  it('Was a defect (fixed): results waiting for a place whose authorization answers at once were left waiting for good once the slow ones ahead of them were done', async () => {
    // 64 results whose authorization takes 100 ms fill the places; 100 more whose authorization answers
    // at once wait; then ann's ballot. Each slow one done started one waiting result, and one answered
    // at once freed its place without starting the next: 36 were never asked, and every event queued
    // behind them (ann's ballot, the deadline's tick) waited for good.
    const key = `flood-sync-${Date.now()}`
    const id = await operationId('alice', rig.digest, key)
    let asked = 0
    const executor = await rig.executor(
      variant(rig.approve, { completion: { mode: 'first-success', fraction: undefined, deadlineMs: 5000, remaining: 'detach' } }),
      {
        audience: () => ({ revision: 'r7', peers: ['ann', 'zed'] }),
        authorization: ({ data }) => {
          if (data.stage !== 'result' || data.peerId !== 'zed') return { allowed: true }
          asked++
          return asked <= 64 ? new Promise((resolve) => setTimeout(() => resolve({ allowed: true }), 100)) : { allowed: true }
        },
      },
    )
    const raw = await rig.connection()
    const answer = executor.invoke({ principalId: 'alice', idempotencyKey: key, inputs: { group: 'approvers', refund } })
    for (let i = 0; i < 50 && !executor.state(id).ok; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    for (let i = 0; i < 164; i++)
      raw.publish(
        `payments.refunds.${id}.ballot.zed`,
        JSON.stringify({ operationId: id, branchId: `x${i}`, attempt: 1, fence: 0, peerId: 'zed', approve: true }),
      )
    raw.publish(`payments.refunds.${id}.ballot.ann`, JSON.stringify({ operationId: id, branchId: 'ann', attempt: 1, fence: 0, peerId: 'ann', approve: true }))
    await raw.flush()
    try {
      const answered = await bounded('invoke()', answer, 10_000)
      expect(answered).toMatchObject({ ok: true, value: { decision: { outcome: 'success', reason: 'threshold' } } })
      expect(asked).toBe(164)
    } finally {
      await bounded('close()', executor.close(), 5000)
    }
  })

  it('an aggregation that answers in time is unaffected by a later close()', async () => {
    const executor = await rig.executor(interaction())
    const answer = await bounded('invoke()', executor.invoke(invocation()), 10_000)
    await bounded('close()', executor.close(), 5000)
    expect(answer).toMatchObject({ ok: true, value: { output: { operationId: expect.any(String), approved: true } } })
  })
})

describe.skipIf(!NATS_SERVER)('adapters that never settle: the durable executor', () => {
  let rig: DurableRig
  beforeAll(async () => {
    rig = await startDurableRig('adapter-waits')
    await rig.couriers({ 'c-ann': { accepted: true } })
  }, 60_000)
  afterAll(async () => {
    await rig?.stop()
  })
  const invocation = () => ({ principalId: 'dispatcher', idempotencyKey: `durable-waits-${key++}`, inputs: shipmentInputs })
  // c-ann accepts at once; c-bob and c-cat never answer: without c-ann's result the deadline decides.
  const interaction = () => quick(rig.assign, { deadlineMs: 2000 })

  it("Was a defect (fixed): a result's verifier that never settles held the operation past its deadline (the memory executor's bound, now in both)", async () => {
    let asked = 0
    const executor = await rig.executor(interaction(), {
      adapters: {
        verifier: () => {
          asked++
          return never()
        },
      },
    })
    const answer = await bounded('invoke() past the deadline', executor.invoke(invocation()), 10_000)
    await bounded('close()', executor.close(), 5000)
    expect(asked).toBeGreaterThanOrEqual(1)
    // Decided by the deadline, c-ann's result unverified: as with no result at all.
    expect(summary(answer)).toMatch(/^failure\//)
  }, 20_000)

  it("Was a defect (fixed): a result's authorization that never settles held the operation past its deadline", async () => {
    const executor = await rig.executor(interaction(), {
      adapters: { authorization: ({ data }) => (data.stage === 'result' ? never() : { allowed: true }) },
    })
    const answer = await bounded('invoke() past the deadline', executor.invoke(invocation()), 10_000)
    await bounded('close()', executor.close(), 5000)
    expect(summary(answer)).toMatch(/^failure\//)
  }, 20_000)

  it('Was a defect (fixed): an audience adapter that never settles held invoke() after close()', async () => {
    await answeredAtClose(await rig.executor(interaction(), { adapters: { audience: never } }), invocation())
  })

  it('Was a defect (fixed): an aggregation adapter that never settles held invoke() after close() for good', async () => {
    await answeredAtClose(await rig.executor(interaction(), { adapters: { aggregation: never } }), invocation())
  }, 20_000)

  it('an aggregation that fails answers EXECUTOR_ADAPTER_FAILED; the same invocation again asks only the aggregation, and answers its output', async () => {
    // As the memory executor (above): the decision is kept in the log, no offer is sent again.
    let asked = 0
    const executor = await rig.executor(interaction(), {
      adapters: {
        aggregation: ({ data }) => {
          if (++asked === 1) throw new Error('tally store unavailable')
          return { accepted: data.length }
        },
      },
    })
    const same = invocation()
    const before = rig.handled.get('c-ann') ?? 0
    try {
      const first = await bounded('invoke()', executor.invoke(same), 10_000)
      expect(first).toMatchObject({ ok: false, code: 'EXECUTOR_ADAPTER_FAILED', message: expect.stringContaining('tally store unavailable') })
      const again = await bounded('invoke() again', executor.invoke(same), 10_000)
      expect(again.ok && again.value.output).toEqual({ accepted: 1 })
      expect(summary(again)).toMatch(/^success\//)
      expect([asked, (rig.handled.get('c-ann') ?? 0) - before]).toEqual([2, 1])
    } finally {
      await bounded('close()', executor.close(), 5000)
    }
  }, 20_000)

  /** Decides an operation in one executor (no aggregation), closes it: what a restart leaves. */
  async function decidedElsewhere(same: ReturnType<typeof invocation>): Promise<string> {
    const first = await rig.executor(interaction())
    try {
      const answer = await bounded('invoke()', first.invoke(same), 10_000)
      expect(summary(answer)).toMatch(/^success\//)
      return answer.ok ? answer.value.operationId : ''
    } finally {
      await bounded('close()', first.close(), 5000)
    }
  }

  it('Was a defect (fixed): an operation decided by another executor (a restart) and answered here asked the aggregation without the results it had not seen; their payloads are read again from the result stream', async () => {
    // The log kept each result's verdict, not its payload: this executor, driving the operation
    // from the log, had none of them and asked the aggregation with `data: []` ({ accepted: 0 } for
    // an offer c-ann accepted). The result event now logs the result's stream sequence.
    const same = invocation()
    await decidedElsewhere(same)
    const seen: unknown[][] = []
    const second = await rig.executor(interaction(), { adapters: { aggregation: ({ data }) => (seen.push([...data]), { accepted: data.length }) } })
    try {
      const again = await bounded('invoke() in another executor', second.invoke(same), 10_000)
      expect(again.ok && again.value.output).toEqual({ accepted: 1 })
      expect(seen).toHaveLength(1)
      expect(seen[0]).toEqual([expect.objectContaining({ courierId: 'c-ann' })])
    } finally {
      await bounded('close()', second.close(), 5000)
    }
  }, 30_000)

  it('a result the stream no longer holds is not guessed at: EXECUTOR_UNSUPPORTED, the aggregation not asked, the decision kept', async () => {
    const same = invocation()
    const id = await decidedElsewhere(same)
    // The stream's retention let the result go (here: deleted by its sequence, as the log names it).
    const saved = await (await rig.store()).state(id)
    const results = (saved.ok && saved.value ? saved.value.value.events : []).filter((e) => e.kind === 'result')
    expect(results).toHaveLength(1)
    const seq = (results[0] as { seq?: number }).seq
    expect(seq).toEqual(expect.any(Number))
    const jsm = await jetstreamManager(await rig.connection())
    expect(await jsm.streams.deleteMessage(STREAM, seq!)).toBe(true)
    let asked = 0
    const second = await rig.executor(interaction(), { adapters: { aggregation: () => (asked++, { accepted: 0 }) } })
    try {
      const again = await bounded('invoke() in another executor', second.invoke(same), 10_000)
      expect(again).toMatchObject({ ok: false, code: 'EXECUTOR_UNSUPPORTED', message: expect.stringContaining('1 of its 1 results were admitted before') })
      expect(asked).toBe(0)
      const state = second.state(id)
      expect(state.ok && state.value.decision).toMatchObject({ outcome: 'success' })
    } finally {
      await bounded('close()', second.close(), 5000)
    }
  }, 30_000)

  it('an aggregation answer its outputSchema refuses is EXECUTOR_ADAPTER_FAILED; the same invocation again asks again, and a conforming answer is the output', async () => {
    // The shipping contract declares no aggregation; the descriptor carries the validator a contract's
    // outputSchema would generate (`validateOutput`: an object with a number `accepted`).
    const validateOutput = Object.assign(
      (v: unknown) => {
        const good = typeof v === 'object' && v !== null && typeof (v as { accepted?: unknown }).accepted === 'number'
        validateOutput.errors = good ? null : [{ instancePath: '/accepted', keyword: 'type', message: 'must be number' }]
        return good
      },
      { errors: null as null | Array<{ instancePath: string; keyword: string; message: string }> },
    )
    const described = { ...interaction(), validateOutput } as typeof rig.assign
    let asked = 0
    const executor = await rig.executor(described, {
      adapters: { aggregation: ({ data }) => (++asked === 1 ? { accepted: 'many' } : { accepted: data.length }) },
    })
    const same = invocation()
    try {
      const first = await bounded('invoke()', executor.invoke(same), 10_000)
      expect(first).toMatchObject({
        ok: false,
        code: 'EXECUTOR_ADAPTER_FAILED',
        message: 'the aggregation answered an output its outputSchema refuses (/accepted must be number)',
      })
      const again = await bounded('invoke() again', executor.invoke(same), 10_000)
      expect(again.ok && again.value.output).toEqual({ accepted: 1 })
      expect(asked).toBe(2)
    } finally {
      await bounded('close()', executor.close(), 5000)
    }
  }, 20_000)

  it('adapters answering with promises at every stage: the offer is accepted and decides', async () => {
    const executor = await rig.executor(interaction(), {
      adapters: {
        audience: async ({ data }) => ({ revision: 'r3', peers: data.input === 'eu' ? ['c-ann', 'c-bob', 'c-cat'] : [] }),
        authorization: async () => ({ allowed: true }),
        verifier: async () => ({ allowed: true }),
      },
    })
    const answer = await bounded('invoke()', executor.invoke(invocation()), 10_000)
    await bounded('close()', executor.close(), 5000)
    expect(summary(answer)).toMatch(/^success\//)
  }, 20_000)

  it("Was a defect (fixed): one courier's verifier still awaited at the deadline made another courier's in-time acceptance come after the deadline's tick", async () => {
    // Offered to every courier (independent dispatch): c-bob accepts at once and his verifier never
    // settles (cut off at the deadline); c-cat accepts 50 ms later and hers answers at once, so
    // first-success decides on c-cat's acceptance. An operation's results are handled one at a
    // time: c-cat's waits behind c-bob's verifier until the deadline. Her result's time was already
    // its arrival's, but the deadline's tick, queued when its timer fired, was applied before the
    // held result: failure/timeout. The tick now waits behind the results read before it fired.
    const fanOut = variant(quick(rig.assign, { deadlineMs: 2500 }), { dispatch: { mode: 'independent' } })
    const responders = await rig.couriers({ 'c-bob': { accepted: true }, 'c-cat': { accepted: true, afterMs: 50 } }, fanOut)
    try {
      const executor = await rig.executor(fanOut, {
        adapters: {
          // Not c-ann (the rig's courier, who accepts at once): c-bob's result is the operation's first.
          audience: () => ({ revision: 'r3', peers: ['c-bob', 'c-cat'] }),
          verifier: ({ data }) => ((data as { courierId?: string }).courierId === 'c-bob' ? never() : { allowed: true }),
        },
      })
      const answer = await bounded('invoke() past the deadline', executor.invoke(invocation()), 15_000)
      const id = answer.ok ? answer.value.operationId : ''
      const log = executor.log(id)
      await bounded('close()', executor.close(), 5000)
      expect(summary(answer)).toBe('success/threshold')
      // c-bob's result refused unverified (cut off at the deadline), c-cat's counted, both before the decision.
      const kinds = log.ok ? log.value.map((e) => e.kind) : []
      expect(kinds.filter((k) => k === 'result')).toHaveLength(2)
      expect(answer.ok && answer.value.state.refused.map((r) => r.reason)).toEqual(['unverified'])
    } finally {
      for (const r of responders) await r.close()
    }
  }, 20_000)

  it('close() while a dispatch-stage authorization is pending applies nothing of it: no peer revoked, the invocation answers as any closed one', async () => {
    const executor = await rig.executor(interaction(), {
      adapters: {
        authorization: ({ data }) =>
          data.stage === 'dispatch' ? new Promise((resolve) => setTimeout(() => resolve({ allowed: true }), 400)) : { allowed: true },
      },
    })
    const fixed = invocation()
    const id = await operationId(fixed.principalId, rig.digest, fixed.idempotencyKey)
    const answer = executor.invoke(fixed)
    await poll(() => executor.state(id).ok, 500)
    await bounded('close()', executor.close(), 5000)
    // Durable state decides nothing on close: the operation resumes elsewhere.
    expect(await bounded('invoke() after close()', answer, 5000)).toMatchObject({ ok: false, code: 'EXECUTOR_STATE_FAILED' })
    await new Promise((resolve) => setTimeout(resolve, 600))
    const state = executor.state(id)
    expect(state.ok && state.value.branches.filter((b) => b.status === 'revoked')).toEqual([])
    expect(state.ok && state.value.decision).toBeNull()
  }, 20_000)

  it('the control: the same interaction with adapters that answer succeeds before its deadline', async () => {
    const executor = await rig.executor(interaction())
    const answer = await bounded('invoke()', executor.invoke(invocation()), 10_000)
    await bounded('close()', executor.close(), 5000)
    expect(summary(answer)).toMatch(/^success\//)
  }, 20_000)
})
