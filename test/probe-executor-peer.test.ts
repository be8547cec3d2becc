/**
 * The executor with a misbehaving peer, against a real nats-server. Memory state: the peer plays
 * its part by hand on a connection of its own and then replays its ballot, or sends ballots for a
 * branch the operation never had. Each such result is refused by the decision core and changes
 * nothing, yet each was appended to the operation's event log (and its refusal list) for as long as
 * the operation is open: memory grows with the number of messages a peer sends, not with the work.
 * Durable state: the same refused results are logged and saved, until the state record passes the
 * server's max_payload and the operation can no longer be driven. Waits are bounded polls; the
 * assertions are on the log and on the answer, never on time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { NatsConnection } from '@nats-io/nats-core'
import { NATS_SERVER } from './helpers/nats-server.js'
import { startRig, type Rig } from './helpers/executor-nats.js'
import { operationId } from '../src/runtime/nats/interactions.js'
import { jetstreamManager } from '@nats-io/jetstream'
import { patient, poll, shipmentInputs, startDurableRig, STREAM, type DurableRig } from './helpers/executor-durable.js'

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

  // Each refused result is logged and the whole log written to the state bucket again, so a peer
  // that sends about a megabyte of them (the server's max_payload) makes the state unwritable: the
  // executor stops driving the operation and the invocation answers EXECUTOR_STATE_FAILED
  // ("'payload' max_payload size exceeded"), though the one courier offered the work accepts it.
  it('a flood of results for unknown branches changes nothing: the offered courier still decides the operation', async () => {
    const interaction = patient(rig.assign, 60_000)
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const peers = await rig.couriers({ 'c-ann': { accepted: true, gate } }, interaction)
    rig.handled.clear()
    const fixed = { principalId: 'dispatcher', idempotencyKey: 'probe-flood', inputs: shipmentInputs }
    const id = await operationId(fixed.principalId, rig.digest, fixed.idempotencyKey)
    const executor = await rig.executor(interaction)
    const answered = executor.invoke(fixed)
    await poll(() => (rig.handled.get('c-ann') ?? 0) > 0)
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
    const jsm = await jetstreamManager(mallory)
    await poll(async () => {
      if (answeredEarly) return true
      const info = await jsm.consumers.info(STREAM, 'exec-assignCourier-results').catch(() => null)
      return info !== null && info.num_pending === 0 && info.num_ack_pending === 0
    }, 1500)
    release()
    const answer = await answered
    await executor.close()
    for (const p of peers) await p.close()
    expect(answer).toMatchObject({ ok: true, value: { decision: { outcome: 'success' } } })
  }, 120_000)
})
