/**
 * Memory state's retention: a settled operation keeps its state and log while it is among the
 * latest 1,024 settled ones; past that only its idempotency record is left (the same outcome for
 * the same key and input, a conflict for different input), and `state`/`log` say so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Interaction } from '../src/runtime/nats/interactions.js'
import { planInteraction, simulate, type Responder } from '../src/runtime/nats/executor/index.js'
import { NATS_SERVER } from './helpers/nats-server.js'
import { startRig, variant, GROUP_PEERS, type Rig } from './helpers/executor-nats.js'

const refund = { paymentId: 'pay-12345678', amount: 10 }
const inputs = { group: 'approvers', refund }
const KEPT = 1024

function planned(interaction: Interaction) {
  const plan = planInteraction(interaction)
  if (!plan.ok) throw new Error(plan.message)
  return plan.value.policy
}

describe.skipIf(!NATS_SERVER)('memory state keeps the idempotency record, and the log of the latest settled operations', () => {
  let rig: Rig
  let peers: Responder[] = []
  beforeAll(async () => {
    rig = await startRig('retention')
  }, 60_000)
  afterAll(async () => {
    for (const p of peers) await p.close()
    await rig?.stop()
  })

  it('answers state, log, cancel and close for a settled operation whose core was let go, as the core would', async () => {
    const interaction = variant(rig.approve, { completion: { ...rig.approve.completion, remaining: 'detach' } })
    const voters = await rig.peers(Object.fromEntries(GROUP_PEERS.map((p) => [p, { vote: true }])), interaction)
    const executor = await rig.executor(interaction)
    try {
      const first = await executor.invoke({ principalId: 'alice', idempotencyKey: 'settled', inputs })
      expect(first.ok).toBe(true)
      if (!first.ok) return
      const id = first.value.operationId
      // Settled (the fifth ballot), then let go a turn later: bounded wait until the log shows the fifth.
      for (let i = 0; i < 500 && (executor.log(id) as { value?: readonly unknown[] }).value?.length !== 6; i++) await new Promise((r) => setTimeout(r, 2))
      await new Promise((r) => setTimeout(r, 5))
      const log = executor.log(id)
      const state = executor.state(id)
      expect(log.ok && state.ok).toBe(true)
      if (!log.ok || !state.ok) return
      expect(log.value.map((e) => e.kind)).toEqual(['admitted', 'result', 'result', 'result', 'result', 'result'])
      expect(state.value.settledAtMs).not.toBeNull()
      expect(state.value.decision).toEqual(first.value.decision)
      expect(state.value.branches.map((b) => b.status)).toEqual(GROUP_PEERS.map(() => 'succeeded'))
      expect(state.value.votes).toHaveLength(5)
      expect(state.value.refused).toEqual([])
      // The state is the log replayed by the executor's own rules.
      expect(state.value).toEqual(simulate(planned(interaction), log.value))
      // A cancel after the decision changes nothing but the log: refused as decided.
      const cancelled = await executor.cancel(id)
      expect(cancelled).toEqual({ ok: true, value: first.value.decision })
      const afterCancel = executor.state(id)
      expect(afterCancel.ok && afterCancel.value.refused).toEqual([{ index: 6, reason: 'decided' }])
      expect(afterCancel.ok && afterCancel.value.decision).toEqual(first.value.decision)
      // A repeated invocation still gets the first outcome.
      expect(await executor.invoke({ principalId: 'alice', idempotencyKey: 'settled', inputs })).toEqual(first)
      await executor.close()
      const closed = executor.log(id)
      expect(closed.ok && closed.value.map((e) => e.kind).slice(-2)).toEqual(['cancel', 'lost'])
      const end = executor.state(id)
      expect(end.ok && end.value.decision).toEqual(first.value.decision)
      expect(end.ok && end.value).toEqual(simulate(planned(interaction), closed.ok ? closed.value : []))
    } finally {
      await executor.close()
      for (const v of voters) await v.close()
    }
  }, 60_000)

  it('lets the oldest core go past 1,024 settled operations, keeping its outcome for the same key', async () => {
    // Remaining detach: every operation settles when its last ballot arrives.
    const interaction = variant(rig.approve, { completion: { ...rig.approve.completion, remaining: 'detach' } })
    peers = await rig.peers(Object.fromEntries(GROUP_PEERS.map((p) => [p, { vote: true }])), interaction)
    const executor = await rig.executor(interaction)
    const first = await executor.invoke({ principalId: 'alice', idempotencyKey: 'first', inputs })
    expect(first.ok).toBe(true)
    if (!first.ok) return
    const id = first.value.operationId
    // Settlement (the fifth ballot) may come after the answer: wait, bounded, until the log shows it.
    const settled = async (operationId: string) => {
      for (
        let i = 0;
        i < 500 && executor.state(operationId).ok && (executor.state(operationId) as { value: { settledAtMs: number | null } }).value.settledAtMs === null;
        i++
      )
        await new Promise((r) => setTimeout(r, 2))
    }
    await settled(id)
    expect(executor.log(id).ok).toBe(true)
    // While its core is kept, a repeated invocation's outcome is rebuilt from the core's log: the same one.
    expect(await executor.invoke({ principalId: 'alice', idempotencyKey: 'first', inputs })).toEqual(first)
    let last = id
    for (let i = 0; i < KEPT; i++) {
      const answer = await executor.invoke({ principalId: 'alice', idempotencyKey: `k${i}`, inputs })
      expect(answer.ok).toBe(true)
      if (answer.ok) last = answer.value.operationId
      await settled(last)
    }
    const state = executor.state(id)
    expect(state.ok).toBe(false)
    if (!state.ok) {
      expect(state.code).toBe('EXECUTOR_UNKNOWN_OPERATION')
      expect(state.message).toContain('idempotency record')
    }
    expect(executor.log(id).ok).toBe(false)
    // The latest one is still readable; the first one's record still answers idempotently.
    expect(executor.log(last).ok).toBe(true)
    const again = await executor.invoke({ principalId: 'alice', idempotencyKey: 'first', inputs })
    expect(again).toEqual(first)
    const conflict = await executor.invoke({ principalId: 'alice', idempotencyKey: 'first', inputs: { ...inputs, refund: { ...refund, amount: 11 } } })
    expect(conflict.ok).toBe(false)
    if (!conflict.ok) expect(conflict.code).toBe('EXECUTOR_IDEMPOTENCY_CONFLICT')
    await executor.close()
  }, 120_000)
})
