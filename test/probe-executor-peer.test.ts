/**
 * The executor (memory state) with a misbehaving peer, against a real nats-server: the peer plays
 * its part by hand on a connection of its own and then replays its ballot, or sends ballots for a
 * branch the operation never had. Each such result is refused by the decision core and changes
 * nothing, yet each was appended to the operation's event log (and its refusal list) for as long as
 * the operation is open: memory grows with the number of messages a peer sends, not with the work.
 * Only the last ballot that means something (a second peer's vote) is awaited, with a bound; the
 * assertion is on how many events the log holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { NatsConnection } from '@nats-io/nats-core'
import { NATS_SERVER } from './helpers/nats-server.js'
import { startRig, type Rig } from './helpers/executor-nats.js'

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

  it.fails(
    'refused results do not pile up in the open operation: the log holds the events that changed something',
    async () => {
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
    },
    60_000,
  )
})
