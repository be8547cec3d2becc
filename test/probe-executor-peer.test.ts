/**
 * The executor with a misbehaving peer, against a real nats-server. Memory state: the peer plays
 * its part by hand on a connection of its own and then replays its ballot, or sends ballots for a
 * branch the operation never had. Each such result is refused by the decision core and changes
 * nothing, so it must not grow the operation's event log or its refusal list beyond their bound
 * (it did: memory grew with the number of messages a peer sends, not with the work). Durable
 * state: the same refused results must not be saved (they were, until the state record passed the
 * server's max_payload and the operation could no longer be driven). Waits are bounded polls; the
 * assertions are on the log and on the answer, never on time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { NatsConnection } from '@nats-io/nats-core'
import { NATS_SERVER } from './helpers/nats-server.js'
import { startRig, type Rig } from './helpers/executor-nats.js'
import { heldAssignment, resultsDrained, startDurableRig, type DurableRig } from './helpers/executor-durable.js'

const refund = { paymentId: 'pay-12345678', amount: 10 }
const REPLAYS = 1500
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface VoteRequest {
  operationId: string
  branchId: string
  attempt: number
  fence: number
  peerId: string
}

describe.skipIf(!NATS_SERVER)('executor: a peer that replays its result or answers for branches that do not exist', () => {
  let rig: Rig
  let peer: NatsConnection
  beforeAll(async () => {
    rig = await startRig('probe-peer')
    peer = await rig.connection()
  }, 60_000)
  afterAll(async () => {
    await rig?.stop()
  })

  it('refused results do not pile up in the open operation: the log holds the events that changed something', async () => {
    const executor = await rig.executor(rig.approve)
    // The misbehaving peer sees every vote request (it plays all five peers, answering for two).
    const requests: VoteRequest[] = []
    const sub = peer.subscribe('payments.refunds.*.vote.*', { callback: (_e, msg) => requests.push(msg.json<VoteRequest>()) })
    await peer.flush()
    const answer = executor.invoke({ principalId: 'alice', idempotencyKey: 'probe-replay', inputs: { group: 'approvers', refund } })
    for (let i = 0; i < 400 && requests.length < 5; i++) await pause(25)
    expect(requests).toHaveLength(5)
    const op = requests[0]!.operationId
    const ballot = (r: VoteRequest, extra: object = {}) =>
      JSON.stringify({ operationId: r.operationId, branchId: r.branchId, attempt: r.attempt, fence: r.fence, peerId: r.peerId, approve: true, ...extra })
    const ann = requests.find((r) => r.peerId === 'ann')!
    const bob = requests.find((r) => r.peerId === 'bob')!
    // One real vote, then the same bytes again and again, and ballots for a branch never dispatched.
    for (let i = 0; i <= REPLAYS; i++) peer.publish(`payments.refunds.${op}.ballot.ann`, ballot(ann))
    for (let i = 0; i < REPLAYS; i++) peer.publish(`payments.refunds.${op}.ballot.mallory`, ballot({ ...ann, branchId: `mallory-${i}`, peerId: 'mallory' }))
    // The last ballot that counts: once it is in the state, every message before it was handled (one connection, in order).
    peer.publish(`payments.refunds.${op}.ballot.bob`, ballot(bob))
    await peer.flush()
    let voted = 0
    for (let i = 0; i < 400 && voted < 2; i++) {
      const state = executor.state(op)
      voted = state.ok ? state.value.branches.filter((b) => b.status === 'succeeded').length : 0
      if (voted < 2) await pause(25)
    }
    expect(voted).toBe(2)
    const log = executor.log(op)
    const state = executor.state(op)
    sub.unsubscribe()
    await executor.cancel(op)
    await answer
    await executor.close()
    expect(log.ok && state.ok).toBe(true)
    if (!log.ok || !state.ok) return
    // Admission, two votes, a few ticks: tens of events, not thousands.
    expect(log.value.length).toBeLessThan(100)
    expect(state.value.refused.length).toBeLessThan(100)
  }, 60_000)
})

describe.skipIf(!NATS_SERVER)('durable executor: results for branches the operation never had', () => {
  let rig: DurableRig
  beforeAll(async () => {
    rig = await startDurableRig('probe-flood')
  }, 60_000)
  afterAll(async () => {
    await rig?.stop()
  })

  // When each refused result was logged and the whole log written to the state bucket again, a peer
  // that sent about a megabyte of them (the server's max_payload) made the state unwritable: the
  // executor stopped driving the operation and the invocation answered EXECUTOR_STATE_FAILED, though
  // the one courier offered the work accepted it.
  it('a flood of results for unknown branches changes nothing: the offered courier still decides the operation', async () => {
    const { id, executor, answered, release, peers } = await heldAssignment(rig, 'probe-flood')
    const mallory = await rig.connection()
    const padding = 'x'.repeat(8 * 1024)
    for (let i = 0; i < 160; i++) {
      const accept = { operationId: id, branchId: `b${i}-${padding}`, attempt: 1, fence: 1, courierId: 'c-mal', accepted: true }
      mallory.publish(`shipping.couriers.${id}.accept.c-mal`, JSON.stringify(accept))
    }
    await mallory.flush()
    // Every one of them handled (the executor's result consumer has none left to deliver or to be
    // acknowledged), or the invocation answered (the executor stopped driving the operation).
    let answeredEarly = false
    void answered.then(() => (answeredEarly = true))
    await resultsDrained(mallory, () => answeredEarly)
    release()
    const answer = await answered
    await executor.close()
    for (const p of peers) await p.close()
    expect(answer).toMatchObject({ ok: true, value: { decision: { outcome: 'success' } } })
  }, 120_000)
})
