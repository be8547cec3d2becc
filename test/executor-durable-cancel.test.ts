/**
 * Cooperative cancellation in durable state against a real nats-server with JetStream: the shop's
 * refund vote (a quorum of two among five peers, remaining cooperative, waitFor settled) run with
 * durable-per-recipient delivery; three peers stall and are asked to stop once the quorum is met.
 * With the result stream retaining CancelResults, a reply sent while no executor runs is admitted by
 * the executor that resumes the operation.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jetstream, jetstreamManager } from '@nats-io/jetstream'
import { createExecutor, createResponder, planInteraction, simulate, type Executor, type Responder } from '../src/runtime/nats/executor/index.js'
import type { NatsConnection } from '@nats-io/nats-core'
import { operationId } from '../src/runtime/nats/interactions.js'
import { openRecordBucket } from '../src/runtime/nats/executor/durable/records.js'
import { operationStore } from '../src/runtime/nats/executor/durable/store.js'
import { NATS_SERVER } from './helpers/nats-server.js'
import { countedAuthorization } from './helpers/counted-authorization.js'
import { deployment, GROUP_PEERS, startRig, variant, type Rig, addRefundsStream } from './helpers/executor-nats.js'
import { poll as until } from './helpers/executor-durable.js'

describe.skipIf(!NATS_SERVER)('durable cooperative cancellation against nats-server', () => {
  let rig: Rig
  beforeAll(async () => {
    rig = await startRig('durable-cancel')
    await addRefundsStream(await rig.connection())
  }, 60_000)
  afterAll(async () => {
    await rig?.stop()
  })

  it('the quorum decides, the stalled peers are asked to stop and answer stopped; waitFor settled returns once every branch is terminal', async () => {
    const durableVote = variant(rig.approve, {
      delivery: { mode: 'durable-per-recipient', state: 'durable', restart: 'resume' },
      completion: { mode: 'quorum', count: 2, fraction: undefined, waitFor: 'settled', cancelTimeoutMs: 5000 },
    })
    const stalled = new Set(['cat', 'dan', 'eve'])
    const peers: Responder[] = []
    for (const peerId of GROUP_PEERS) {
      const made = await createResponder<unknown, { approve: boolean }>({
        connection: await rig.connection(),
        module: rig.module,
        interaction: durableVote,
        peerId,
        durable: { requestStream: 'REFUNDS', ackWaitMs: 1000 },
        handler: async ({ signal }) => {
          if (!stalled.has(peerId)) return { approve: true }
          // Bounded by the cancel request (or the responder closing).
          await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
          return undefined
        },
      })
      if (!made.ok) throw new Error(made.message)
      peers.push(made.value)
    }
    const made = createExecutor({
      connection: await rig.connection(),
      module: rig.module,
      interaction: durableVote,
      contractDigest: rig.digest,
      deployment,
      durable: { requestStream: 'REFUNDS', resultStream: 'REFUNDS', stateBucket: 'refund_state', ackWaitMs: 1000 },
      adapters: {
        audience: () => ({ revision: 'r7', peers: GROUP_PEERS }),
        authorization: () => ({ allowed: true }),
      },
    })
    if (!made.ok) throw new Error(made.message)
    const executor = made.value
    const answer = await executor.invoke({
      principalId: 'alice',
      idempotencyKey: 'coop-1',
      inputs: { group: 'approvers', refund: { paymentId: 'pay-12345678', amount: 10 } },
    })
    expect(answer.ok).toBe(true)
    if (!answer.ok) return
    expect(answer.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold', successUnits: 2 })
    expect(Object.fromEntries(answer.value.state.branches.map((b) => [b.branchId, [b.status, b.cancel]]))).toEqual({
      ann: ['succeeded', 'none'],
      bob: ['succeeded', 'none'],
      cat: ['stopped', 'stopped'],
      dan: ['stopped', 'stopped'],
      eve: ['stopped', 'stopped'],
    })
    expect(answer.value.state.settledAtMs).not.toBeNull()
    const log = executor.log(answer.value.operationId)
    const plan = planInteraction(durableVote)
    if (!log.ok || !plan.ok) throw new Error('no log')
    expect(log.value.filter((e) => e.kind === 'cancel-answered')).toHaveLength(3)
    expect(simulate(plan.value.policy, log.value)).toEqual(answer.value.state)
    await executor.close()
    for (const p of peers) await p.close()
  }, 30_000)

  it('a CancelResult sent while no executor runs is retained and admitted by the executor that resumes the operation', async () => {
    const jsm = await jetstreamManager(await rig.connection())
    const info = await jsm.streams.info('REFUNDS')
    await jsm.streams.update('REFUNDS', { ...info.config, subjects: [...info.config.subjects!, 'payments.refunds.*.cancelled.*'] })
    const vote = variant(rig.approve, {
      delivery: { mode: 'durable-per-recipient', state: 'durable', restart: 'resume' },
      completion: { mode: 'quorum', count: 2, fraction: undefined, waitFor: 'settled', cancelTimeoutMs: 20_000 },
    })
    const started = new Set<string>()
    const peers: Responder[] = []
    const peer = async (peerId: string) => {
      const made = await createResponder<unknown, { approve: boolean }>({
        connection: await rig.connection(),
        module: rig.module,
        interaction: vote,
        peerId,
        durable: { requestStream: 'REFUNDS', ackWaitMs: 1000 },
        handler: async ({ signal }) => {
          started.add(peerId)
          if (peerId === 'ann' || peerId === 'bob') return { approve: true }
          // Bounded by the cancel request (or the responder closing).
          await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
          return undefined
        },
      })
      if (!made.ok) throw new Error(made.message)
      peers.push(made.value)
    }
    const executor = async (connection: NatsConnection): Promise<Executor> => {
      const made = createExecutor({
        connection,
        module: rig.module,
        interaction: vote,
        contractDigest: rig.digest,
        deployment,
        durable: { requestStream: 'REFUNDS', resultStream: 'REFUNDS', stateBucket: 'refund_state', ackWaitMs: 1000 },
        adapters: { audience: () => ({ revision: 'r7', peers: GROUP_PEERS }), authorization: () => ({ allowed: true }) },
      })
      if (!made.ok) throw new Error(made.message)
      return made.value
    }
    // ann and bob make the quorum; cat, dan and eve are offline (their requests wait in their consumers).
    await peer('ann')
    await peer('bob')
    const first = await rig.connection()
    const a = await executor(first)
    const invocation = {
      principalId: 'alice',
      idempotencyKey: 'coop-retained',
      inputs: { group: 'approvers', refund: { paymentId: 'pay-12345678', amount: 10 } },
    }
    const killed = a.invoke(invocation)
    const bucket = await openRecordBucket(await rig.connection(), 'refund_state')
    if (!bucket.ok) throw new Error(bucket.message)
    const store = operationStore(bucket.value)
    const id = await operationId(invocation.principalId, rig.digest, invocation.idempotencyKey)
    // The executor decides and sends its cancel requests (recorded in its outbox first), then dies.
    const cancelEntries = async () => {
      const state = await store.state(id)
      return state.ok && state.value ? state.value.value.outbox.filter((e) => e.kind === 'cancel' && e.published) : []
    }
    await until(async () => (await cancelEntries()).length === 3)
    await first.close()
    await a.close()
    expect(await killed).toMatchObject({ ok: false })
    // cat, dan and eve come online and run their requests; the dead executor's cancel requests reach them
    // late (published here as its outbox recorded them) and they answer stopped while no executor runs.
    for (const p of ['cat', 'dan', 'eve']) await peer(p)
    await until(() => ['cat', 'dan', 'eve'].every((p) => started.has(p)))
    const late = await rig.connection()
    for (const e of await cancelEntries()) late.publish(e.subject, JSON.stringify(e.payload))
    await until(async () => {
      const held = await jsm.streams.info('REFUNDS', { subjects_filter: `payments.refunds.${id}.cancelled.*` })
      return Object.keys(held.state.subjects ?? {}).length === 3
    })
    // A new executor resumes: the retained replies are admitted, every branch is terminal, the operation settles.
    const b = await executor(await rig.connection())
    const answer = await b.resume(id)
    expect(answer.ok).toBe(true)
    if (!answer.ok) return
    expect(answer.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold', successUnits: 2 })
    expect(Object.fromEntries(answer.value.state.branches.map((br) => [br.branchId, [br.status, br.cancel]]))).toEqual({
      ann: ['succeeded', 'none'],
      bob: ['succeeded', 'none'],
      cat: ['stopped', 'stopped'],
      dan: ['stopped', 'stopped'],
      eve: ['stopped', 'stopped'],
    })
    const log = b.log(id)
    expect(log.ok && log.value.filter((e) => e.kind === 'cancel-answered')).toHaveLength(3)
    await b.close()
    for (const p of peers) await p.close()
  }, 60_000)

  it('Was a defect (fixed): a CancelResult that came in time, handled behind a result whose verifier was awaited, was timed at its turn (after the cancel timeout)', async () => {
    // A quorum of 2 of ann, bob and eve: ann and bob approve, eve is asked to stop. eve (a raw
    // connection) answers the cancel with a ballot and, 300 ms later, with `stopped` (both retained).
    // Her ballot's verifier never settles: cut off at the cancel timeout, unverified. Her `stopped`,
    // handled behind it, came long before that timeout: its time is when it came, not its turn.
    const vote = variant(rig.approve, {
      delivery: { mode: 'durable-per-recipient', state: 'durable', restart: 'resume' },
      completion: { mode: 'quorum', count: 2, fraction: undefined, waitFor: 'settled', deadlineMs: 20_000, cancelTimeoutMs: 2000 },
    })
    const peers: Responder[] = []
    for (const peerId of ['ann', 'bob']) {
      const made = await createResponder<unknown, { approve: boolean }>({
        connection: await rig.connection(),
        module: rig.module,
        interaction: vote,
        peerId,
        durable: { requestStream: 'REFUNDS', ackWaitMs: 1000 },
        handler: () => ({ approve: true }),
      })
      if (!made.ok) throw new Error(made.message)
      peers.push(made.value)
    }
    const raw = await rig.connection()
    const js = jetstream(raw)
    const eve = raw.subscribe('payments.refunds.*.cancel.eve', {
      callback: (_e, msg) => {
        const { operationId: id, attempt, fence } = msg.json<{ operationId: string; attempt: number; fence: number }>()
        void (async () => {
          await js.publish(
            `payments.refunds.${id}.ballot.eve`,
            JSON.stringify({ operationId: id, branchId: 'eve', attempt, fence, peerId: 'eve', approve: true }),
          )
          await new Promise((resolve) => setTimeout(resolve, 300))
          await js.publish(`payments.refunds.${id}.cancelled.eve`, JSON.stringify({ operationId: id, branchId: 'eve', outcome: 'stopped' }))
        })().catch(() => undefined)
      },
    })
    await raw.flush()
    const made = createExecutor({
      connection: await rig.connection(),
      module: rig.module,
      interaction: vote,
      contractDigest: rig.digest,
      deployment,
      durable: { requestStream: 'REFUNDS', resultStream: 'REFUNDS', stateBucket: 'refund_state', ackWaitMs: 1000 },
      adapters: {
        audience: () => ({ revision: 'r7', peers: ['ann', 'bob', 'eve'] }),
        authorization: () => ({ allowed: true }),
        verifier: ({ data }) => ((data as { peerId?: string }).peerId === 'eve' ? new Promise<never>(() => undefined) : { allowed: true }),
      },
    })
    if (!made.ok) throw new Error(made.message)
    const executor = made.value
    try {
      const answer = await executor.invoke({
        principalId: 'alice',
        idempotencyKey: 'coop-cancel-in-time',
        inputs: { group: 'approvers', refund: { paymentId: 'pay-12345678', amount: 10 } },
      })
      if (!answer.ok) throw new Error(answer.message)
      const eveBranch = answer.value.state.branches.find((b) => b.branchId === 'eve')
      expect([eveBranch?.status, eveBranch?.cancel]).toEqual(['stopped', 'stopped'])
      expect(answer.value.state.refused.map((r) => r.reason)).toEqual(['unverified'])
    } finally {
      eve.unsubscribe()
      await executor.close()
      for (const p of peers) await p.close()
    }
  }, 30_000)

  it("a flood of results asks an application's adapters at most 64 at a time, each result's when it arrives (durable state)", async () => {
    // zed never answers; 300 ballots in his name for branches that do not exist, stored in the
    // stream: each asks the result's authorization, which takes 30 ms.
    const vote = variant(rig.approve, {
      delivery: { mode: 'durable-per-recipient', state: 'durable', restart: 'resume' },
      completion: { mode: 'quorum', count: 1, fraction: undefined, waitFor: 'decision', deadlineMs: 4000, remaining: 'detach' },
    })
    const { authorization, counts } = countedAuthorization(30)
    const made = createExecutor({
      connection: await rig.connection(),
      module: rig.module,
      interaction: vote,
      contractDigest: rig.digest,
      deployment,
      durable: { requestStream: 'REFUNDS', resultStream: 'REFUNDS', stateBucket: 'refund_state', ackWaitMs: 1000 },
      adapters: {
        audience: () => ({ revision: 'r7', peers: ['zed'] }),
        authorization,
      },
    })
    if (!made.ok) throw new Error(made.message)
    const executor = made.value
    const invocation = {
      principalId: 'alice',
      idempotencyKey: 'flood-durable',
      inputs: { group: 'approvers', refund: { paymentId: 'pay-12345678', amount: 10 } },
    }
    const id = await operationId(invocation.principalId, rig.digest, invocation.idempotencyKey)
    const answer = executor.invoke(invocation)
    try {
      await until(() => executor.state(id).ok)
      const js = jetstream(await rig.connection())
      await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          js.publish(
            `payments.refunds.${id}.ballot.zed`,
            JSON.stringify({ operationId: id, branchId: `x${i}`, attempt: 1, fence: 0, peerId: 'zed', approve: true }),
          ),
        ),
      )
      expect(await answer).toMatchObject({ ok: true })
      await until(() => counts.asked === 300)
      expect(counts.asked).toBe(300)
      // Asked side by side (one at a time before), never more than 64 at once.
      expect(counts.most).toBeGreaterThan(8)
      expect(counts.most).toBeLessThanOrEqual(64)
    } finally {
      await executor.close()
    }
  }, 30_000)
  it('kept replies read back in the order their stream holds them, whatever order the parks landed in (each kind in its own sequence; an entry without one stays put)', async () => {
    const bucket = await openRecordBucket(await rig.connection(), 'parked_order')
    if (!bucket.ok) throw new Error(bucket.message)
    const store = operationStore(bucket.value)
    // A fixed-seed generator: each round parks results and cancel replies in a shuffled order.
    let seed = 0x5eed
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    for (let round = 0; round < 12; round++) {
      const id = `round${round}`
      const entries = Array.from({ length: 2 + Math.floor(random() * 10) }, (_, i) => ({
        ...(random() < 0.5 ? { kind: 'cancel' as const } : {}),
        subject: `payments.refunds.${id}.r${i}`,
        payload: { i },
        atMs: i,
        ...(random() < 0.15 ? {} : { seq: 1 + Math.floor(random() * 1000) * 16 + i }),
      }))
      const shuffled = [...entries].sort(() => random() - 0.5)
      for (const e of shuffled) expect(await store.park(id, e)).toMatchObject({ ok: true, value: { kept: true } })
      const read = await store.parked(id)
      if (!read.ok) throw new Error(read.message)
      // Oracle: the parked order with each kind's sequenced entries sorted into the places that kind holds.
      const expected = [...shuffled]
      for (const kind of [undefined, 'cancel']) {
        const places = shuffled.flatMap((e, i) => (e.kind === kind && e.seq !== undefined ? [i] : []))
        const bySeq = places.map((i) => shuffled[i]!).sort((a, b) => a.seq! - b.seq!)
        places.forEach((p, k) => (expected[p] = bySeq[k]!))
      }
      expect(read.value).toEqual(expected)
      for (const kind of [undefined, 'cancel']) {
        const seqs = read.value.filter((e) => e.kind === kind && e.seq !== undefined).map((e) => e.seq!)
        expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
      }
    }
  }, 30_000)
})
