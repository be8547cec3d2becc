/**
 * What a peer sends cannot grow an operation: the siblings of the replayed ballot and the flood of
 * results for unknown branches (test/probe-executor-peer.test.ts), against a real nats-server.
 * Results from peers the authorization refuses (each would revoke a peer that holds nothing),
 * CancelResults replayed for a branch, an invoker's repeated cancels of a settled operation, and a
 * state record larger than the server's max_payload (answered at once, with its size and the limit);
 * and a flood of valid requests to a responder (memory state), which ran a handler for each at once.
 * Waits are bounded polls; the assertions are on the log, the state and the answers, never on time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { NatsConnection } from '@nats-io/nats-core'
import { NATS_SERVER } from './helpers/nats-server.js'
import { GROUP_PEERS, startRig, variant, type Rig } from './helpers/executor-nats.js'
import { createResponder } from '../src/runtime/nats/executor/index.js'
import { operationId } from '../src/runtime/nats/interactions.js'
import { openRecordBucket } from '../src/runtime/nats/executor/durable/records.js'
import { KEPT_REFUSALS } from '../src/runtime/nats/executor/decision/machine.js'
import {
  heldAssignment,
  patient,
  poll,
  resultsDrained,
  shipmentInputs,
  staleAccepts,
  startDurableRig,
  STREAM,
  type DurableRig,
} from './helpers/executor-durable.js'
import { AckPolicy, DeliverPolicy, jetstreamManager, type ConsumerConfig } from '@nats-io/jetstream'
import { ensureConsumer } from '../src/runtime/nats/executor/delivery/jetstream.js'

const refund = { paymentId: 'pay-12345678', amount: 10 }
const FLOOD = 400
const OPERATION = `op${'a'.repeat(64)}`
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface VoteRequest {
  operationId: string
  branchId: string
  attempt: number
  fence: number
  peerId: string
}

const ballot = (r: VoteRequest, extra: object = {}) =>
  JSON.stringify({ operationId: r.operationId, branchId: r.branchId, attempt: r.attempt, fence: r.fence, peerId: r.peerId, approve: true, ...extra })

describe.skipIf(!NATS_SERVER)('executor: what a peer sends is bounded by what the operation admitted', () => {
  let rig: Rig
  let peer: NatsConnection
  beforeAll(async () => {
    rig = await startRig('peer-bounds')
    peer = await rig.connection()
  }, 60_000)
  afterAll(async () => {
    await rig?.stop()
  })

  /** Invokes with the misbehaving peer playing all five peers by hand; answers the requests it saw. */
  async function requestsOf(executor: Awaited<ReturnType<Rig['executor']>>, key: string) {
    const requests: VoteRequest[] = []
    const sub = peer.subscribe('payments.refunds.*.vote.*', { callback: (_e, msg) => requests.push(msg.json<VoteRequest>()) })
    await peer.flush()
    const answer = executor.invoke({ principalId: 'alice', idempotencyKey: key, inputs: { group: 'approvers', refund } })
    for (let i = 0; i < 400 && requests.length < 5; i++) await pause(25)
    sub.unsubscribe()
    expect(requests).toHaveLength(5)
    return { answer, requests, op: requests[0]!.operationId, of: (peerId: string) => requests.find((r) => r.peerId === peerId)! }
  }

  async function until(check: () => boolean): Promise<void> {
    for (let i = 0; i < 400 && !check(); i++) await pause(25)
  }

  it('results from peers the authorization refuses revoke nothing and log nothing, however many peer ids they name', async () => {
    const executor = await rig.executor(rig.approve, { authorization: ({ data }) => ({ allowed: GROUP_PEERS.includes(data.peerId) }) })
    const { answer, op, of } = await requestsOf(executor, 'bounds-unauthorized')
    // Each message names a peer outside the audience (a new one each time, then one over and over).
    for (let i = 0; i < FLOOD; i++) peer.publish(`payments.refunds.${op}.ballot.m${i}`, ballot({ ...of('ann'), peerId: `m${i}` }))
    for (let i = 0; i < FLOOD; i++) peer.publish(`payments.refunds.${op}.ballot.mallory`, ballot({ ...of('ann'), peerId: 'mallory' }))
    peer.publish(`payments.refunds.${op}.ballot.ann`, ballot(of('ann')))
    await peer.flush()
    await until(() => {
      const s = executor.state(op)
      return s.ok && s.value.branches.some((b) => b.branchId === 'ann' && b.status === 'succeeded')
    })
    const log = executor.log(op)
    const state = executor.state(op)
    await executor.cancel(op)
    await answer
    await executor.close()
    expect(log.ok && state.ok).toBe(true)
    if (!log.ok || !state.ok) return
    expect(state.value.branches.find((b) => b.branchId === 'ann')?.status).toBe('succeeded')
    // No branch revoked (none of those peers held one), no revocation logged.
    expect(state.value.branches.filter((b) => b.status === 'revoked')).toEqual([])
    expect(log.value.filter((e) => e.kind === 'revoked')).toEqual([])
    expect(log.value.length).toBeLessThan(20)
  }, 60_000)

  it('a CancelResult replayed for a branch applies once; the replays are counted, not logged', async () => {
    const coop = variant(rig.approve, { completion: { mode: 'quorum', count: 2, fraction: undefined, waitFor: 'decision', cancelTimeoutMs: 30_000 } })
    const executor = await rig.executor(coop)
    const { answer, op, of } = await requestsOf(executor, 'bounds-cancel-replies')
    peer.publish(`payments.refunds.${op}.ballot.ann`, ballot(of('ann')))
    peer.publish(`payments.refunds.${op}.ballot.bob`, ballot(of('bob')))
    await peer.flush()
    const decided = await answer
    expect(decided.ok && decided.value.decision.outcome).toBe('success')
    // Cancel requests are out to cat, dan and eve: cat's reply, again and again, then dan's once.
    const reply = (peerId: string) => JSON.stringify({ operationId: op, branchId: peerId, outcome: 'unknown' })
    for (let i = 0; i < FLOOD; i++) peer.publish(`payments.refunds.${op}.cancelled.cat`, reply('cat'))
    peer.publish(`payments.refunds.${op}.cancelled.dan`, reply('dan'))
    await peer.flush()
    await until(() => {
      const s = executor.state(op)
      return s.ok && s.value.branches.some((b) => b.branchId === 'dan' && b.cancel === 'unknown')
    })
    const log = executor.log(op)
    const state = executor.state(op)
    await executor.close()
    expect(log.ok && state.ok).toBe(true)
    if (!log.ok || !state.ok) return
    expect(state.value.branches.find((b) => b.branchId === 'cat')?.cancel).toBe('unknown')
    expect(log.value.filter((e) => e.kind === 'cancel-answered')).toHaveLength(2 + KEPT_REFUSALS)
    expect(state.value.refused.filter((r) => r.reason === 'not-requested')).toHaveLength(KEPT_REFUSALS)
    expect(state.value.refusalsOmitted).toBe(FLOOD - 1 - KEPT_REFUSALS)
    expect(log.value.length).toBeLessThan(30)
  }, 60_000)

  it("an invoker's repeated cancels of a settled operation are answered with the decision and leave the log bounded", async () => {
    const executor = await rig.executor(rig.approve)
    const { answer, op, requests } = await requestsOf(executor, 'bounds-settled-cancels')
    for (const r of requests) peer.publish(`payments.refunds.${op}.ballot.${r.peerId}`, ballot(r))
    await peer.flush()
    const decided = await answer
    expect(decided.ok && decided.value.decision.outcome).toBe('success')
    await until(() => {
      const s = executor.state(op)
      return s.ok && s.value.settledAtMs !== null
    })
    for (let i = 0; i < FLOOD; i++) expect(await executor.cancel(op)).toMatchObject({ ok: true, value: { outcome: 'success' } })
    const log = executor.log(op)
    const state = executor.state(op)
    await executor.close()
    expect(log.ok && state.ok).toBe(true)
    if (!log.ok || !state.ok) return
    expect(state.value.refused.filter((r) => r.reason === 'decided').length + (state.value.refusalsOmitted ?? 0)).toBe(FLOOD)
    expect(log.value.length).toBeLessThan(30)
  }, 60_000)

  it('a state record larger than one message may carry is answered at once, with its size and the limit', async () => {
    const nc = await rig.connection()
    const opened = await openRecordBucket(nc, 'peer-bounds-records')
    expect(opened.ok).toBe(true)
    if (!opened.ok) return
    const bucket = opened.value
    const limit = nc.info!.max_payload
    const written = await bucket.write('op1.state', { events: [{ kind: 'tick', atMs: 0 }] }, 0)
    expect(written.ok).toBe(true)
    const big = { events: [], outbox: [{ payload: 'x'.repeat(limit) }] }
    const refused = await bucket.write('op1.state', big, written.ok ? written.value : 0)
    expect(refused).toMatchObject({ ok: false, conflict: false })
    expect(!refused.ok && refused.message).toContain(`max_payload of ${limit} bytes`)
    // The record is as it was.
    const read = await bucket.read<{ events: unknown[] }>('op1.state')
    expect(read.ok && read.value?.value).toEqual({ events: [{ kind: 'tick', atMs: 0 }] })
  }, 60_000)

  it('the responder (memory state) runs at most 64 handlers at once, holds 1,024 requests in arrival order, and drops the rest of a flood unanswered', async () => {
    const nc = await rig.connection()
    let open!: () => void
    const released = new Promise<void>((resolve) => (open = resolve))
    const started: string[] = []
    let running = 0
    let most = 0
    const made = await createResponder<{ branchId: string }, { approve: boolean }>({
      connection: nc,
      module: rig.module,
      interaction: rig.approve,
      peerId: 'bob',
      handler: async ({ branchId }) => {
        started.push(branchId)
        most = Math.max(most, ++running)
        await released
        running--
        return { approve: true }
      },
    })
    if (!made.ok) throw new Error(made.message)
    const responder = made.value
    // Core delivery has no flow control: each request of a burst started a handler at once (and was held in memory).
    const n = 2000
    for (let i = 0; i < n; i++)
      peer.publish(
        `payments.refunds.${OPERATION}.vote.bob`,
        JSON.stringify({
          operationId: OPERATION,
          branchId: `b${i}`,
          attempt: 1,
          fence: 1,
          peerId: 'bob',
          requestedBy: 'alice',
          refund: { paymentId: 'pay-12345678', amount: 10 },
        }),
      )
    await peer.flush()
    // Every request has reached the responder's connection once a round trip on it returns after them.
    await nc.flush()
    for (let i = 0; i < 100 && started.length < 64; i++) await pause(20)
    await pause(100)
    expect(started).toEqual(Array.from({ length: 64 }, (_, i) => `b${i}`))
    open()
    for (let i = 0; i < 200 && responder.published() < 64 + 1024; i++) await pause(50)
    await pause(200)
    expect(most).toBe(64)
    // The 1,024 that waited ran in the order they came; the other 912 were never handled nor answered.
    expect(started).toEqual(Array.from({ length: 64 + 1024 }, (_, i) => `b${i}`))
    expect(responder.published()).toBe(64 + 1024)
    await responder.close()
  }, 60_000)
})

describe.skipIf(!NATS_SERVER)('durable executor: a message that changes nothing writes nothing', () => {
  let rig: DurableRig
  beforeAll(async () => {
    rig = await startDurableRig('peer-bounds-durable')
  }, 60_000)
  afterAll(async () => {
    await rig?.stop()
  })

  it('results for branches never dispatched and stale replays leave the state record at its revision', async () => {
    const { id, executor, answered, release, peers } = await heldAssignment(rig, 'bounds-durable')
    const store = await rig.store()
    const before = await store.state(id)
    expect(before.ok && before.value !== null).toBe(true)
    const mallory = await rig.connection()
    for (let i = 0; i < FLOOD; i++) {
      const accept = { operationId: id, branchId: `b${i}`, attempt: 1, fence: 1, courierId: 'c-mal', accepted: true }
      mallory.publish(`shipping.couriers.${id}.accept.c-mal`, JSON.stringify(accept))
    }
    // c-ann's branch, at a fence it never held.
    await staleAccepts(mallory, id, FLOOD, 999, true)
    await resultsDrained(mallory)
    const after = await store.state(id)
    expect(after.ok && before.ok && after.value?.revision).toBe(before.ok ? before.value?.revision : -1)
    release()
    const answer = await answered
    const log = executor.log(id)
    await executor.close()
    for (const p of peers) await p.close()
    expect(answer).toMatchObject({ ok: true, value: { decision: { outcome: 'success' } } })
    expect(answer.ok && (answer.value.state.refusalsOmitted ?? 0) + answer.value.state.refused.length).toBe(2 * FLOOD)
    expect(log.ok && log.value.length).toBeLessThan(40)
  }, 120_000)

  it('results queued behind a slow adapter are each handled once, by the ack wait of the consumer as it is (not the binding’s)', async () => {
    // The verifier takes 15 ms a result, so 120 results of one operation (handled in its order) take
    // about 1.8 s, past the consumer's 1 s ack wait: results taken in faster than they are handled
    // would be redelivered and refused again. Paced and kept in progress, each is refused once.
    const slow = 120
    const verifier = async () => {
      await pause(15)
      return { allowed: true }
    }
    // The results consumer as an earlier deployment made it (the rig's 1 s ack wait); this executor's
    // binding says 30 s, and the consumer is used as it is, never changed: its 1 s is what counts.
    const nc = await rig.connection()
    const made = await ensureConsumer(nc, STREAM, 'exec-assignCourier-results', 'shipping.couriers.*.accept.*', 1000)
    expect(made.ok).toBe(true)
    const jsm = await jetstreamManager(nc)
    expect((await jsm.consumers.info(STREAM, 'exec-assignCourier-results')).config.ack_wait).toBe(1000 * 1e6)
    const { id, executor, answered, release, peers } = await heldAssignment(rig, 'bounds-slow-verifier', {
      adapters: { verifier },
      binding: { ackWaitMs: 30_000 },
    })
    const mallory = await rig.connection()
    await staleAccepts(mallory, id, slow)
    await resultsDrained(mallory)
    release()
    const answer = await answered
    await executor.close()
    for (const p of peers) await p.close()
    expect(answer).toMatchObject({ ok: true, value: { decision: { outcome: 'success' } } })
    expect(answer.ok && (answer.value.state.refusalsOmitted ?? 0) + answer.value.state.refused.length).toBe(slow)
  }, 120_000)

  it('an existing consumer is used as it is only where what the executor rests on holds: its filter, explicit acks, pull, at most 1,024 unacknowledged', async () => {
    const nc = await rig.connection()
    const jsm = await jetstreamManager(nc)
    const filter = 'shipping.couriers.*.accept.*'
    const base = { filter_subject: filter, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, ack_wait: 1e9, max_ack_pending: 1024 }
    const cases: Array<[string, Partial<ConsumerConfig>, string | undefined]> = [
      ['as this runtime makes it, with its own ack wait and max_deliver', { ack_wait: 5e9, max_deliver: 3 }, undefined],
      ['the server default max_ack_pending (1,000)', { max_ack_pending: undefined }, undefined],
      ['another filter', { filter_subject: 'shipping.couriers.*.decline.*' }, 'filters shipping.couriers.*.decline.*'],
      ['acks none: a delivered result counts as acknowledged before it is recorded', { ack_policy: AckPolicy.None }, 'acknowledges none, not explicit'],
      ['acks all: one ack acknowledges every earlier one still in progress', { ack_policy: AckPolicy.All }, 'acknowledges all, not explicit'],
      ['unbounded unacknowledged messages', { max_ack_pending: -1 }, 'allows -1 unacknowledged messages'],
      ['more unacknowledged messages than the runtime holds', { max_ack_pending: 100_000 }, 'allows 100000 unacknowledged messages'],
      ['a push consumer', { deliver_subject: 'deliver.here' }, 'is a push consumer'],
    ]
    for (const [i, [what, config, refused]] of cases.entries()) {
      const name = `existing-${i}`
      const made = { ...base, ...config, durable_name: name }
      if (config.max_ack_pending === undefined && 'max_ack_pending' in config) delete (made as Partial<ConsumerConfig>).max_ack_pending
      await jsm.consumers.add(STREAM, made)
      const found = await ensureConsumer(nc, STREAM, name, filter, 1000, 5)
      if (refused === undefined) expect({ what, ok: found.ok }).toEqual({ what, ok: true })
      else expect({ what, message: found.ok ? 'used' : found.message }).toEqual({ what, message: expect.stringContaining(refused) })
      // Never changed: the consumer is as it was made.
      const after = (await jsm.consumers.info(STREAM, name)).config
      expect({ what, ack: after.ack_policy, wait: after.ack_wait, filter: after.filter_subject }).toEqual({
        what,
        ack: made.ack_policy,
        wait: made.ack_wait,
        filter: made.filter_subject,
      })
      await jsm.consumers.delete(STREAM, name)
    }
  })

  it('a timer that fires before its due time by the clock writes nothing, and fires again when due', async () => {
    // Node's timers count from the event loop's cached time, which a long turn (a flood of messages)
    // leaves behind the clock: a timer may fire while the clock still reads before its due time. The
    // executor's clock is made to read a second behind here once the operation is dispatched, so its
    // deadline's timer fires a second early: that tick changes nothing and must save nothing.
    const deadlineMs = 1500
    const interaction = patient(rig.assign, deadlineMs)
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const peers = await rig.couriers({ 'c-ann': { accepted: true, gate } }, interaction)
    rig.handled.clear()
    let lagMs = 0
    // Once the branch is held, nothing reads the executor's clock but the deadline's timer (the
    // lease's check is 30 s away, the peer answers nothing): the first read after the lag is its tick.
    let readsLagging = 0
    const now = () => {
      if (lagMs > 0) readsLagging++
      return Date.now() - lagMs
    }
    const fixed = { principalId: 'dispatcher', idempotencyKey: 'bounds-early-timer', inputs: shipmentInputs }
    const id = await operationId(fixed.principalId, rig.digest, fixed.idempotencyKey)
    const executor = await rig.executor(interaction, { now })
    const answered = executor.invoke(fixed)
    await poll(() => (rig.handled.get('c-ann') ?? 0) > 0)
    const store = await rig.store()
    const before = await store.state(id)
    if (!before.ok || before.value === null) throw new Error('no saved state')
    lagMs = 1000
    await poll(() => readsLagging > 0)
    // The early tick's save, if there were one, lands within a few ms; a quarter second bounds it.
    await pause(250)
    const after = await store.state(id)
    expect(after.ok && after.value?.revision).toBe(before.value.revision)
    // The timer was armed again: the deadline still fires (the clock lagging a second) and decides.
    const answer = await answered
    expect(answer).toMatchObject({ ok: true, value: { decision: { outcome: 'failure' } } })
    release()
    await executor.close()
    for (const p of peers) await p.close()
  }, 120_000)
})
