/**
 * Cooperative cancellation in durable state against a real nats-server with JetStream: the shop's
 * refund vote (a quorum of two among five peers, remaining cooperative, waitFor settled) run with
 * durable-per-recipient delivery; three peers stall and are asked to stop once the quorum is met.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DiscardPolicy, jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream'
import { createExecutor, createResponder, planInteraction, simulate, type Responder } from '../src/runtime/nats/executor/index.js'
import { NATS_SERVER } from './helpers/nats-server.js'
import { deployment, GROUP_PEERS, startRig, variant, type Rig } from './helpers/executor-nats.js'

describe.skipIf(!NATS_SERVER)('durable cooperative cancellation against nats-server', () => {
  let rig: Rig
  beforeAll(async () => {
    rig = await startRig('durable-cancel')
    const jsm = await jetstreamManager(await rig.connection())
    // Requests and ballots are retained; cancel requests and replies stay core messages (the fixed schemas).
    await jsm.streams.add({
      name: 'REFUNDS',
      subjects: ['payments.refunds.*.vote.*', 'payments.refunds.*.ballot.*'],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      discard: DiscardPolicy.New,
      duplicate_window: 120_000_000_000,
    })
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
})
