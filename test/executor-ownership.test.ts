/**
 * Ownership in the live executor against a real nats-server with JetStream: the shipping contract's
 * one-eligible courier offer (durable-per-recipient, a claim per attempt in JetStream KV), couriers
 * on connections of their own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jetstream } from '@nats-io/jetstream'
import type { Msg } from '@nats-io/nats-core'
import { openClaimStore, planInteraction, simulate } from '../src/runtime/nats/executor/index.js'
import { claimKey } from '../src/runtime/nats/executor/durable/executor.js'
import { NATS_SERVER } from './helpers/nats-server.js'
import { binding, quick, shipmentInputs, startDurableRig, type DurableRig } from './helpers/executor-durable.js'
import { variant } from './helpers/executor-nats.js'

let key = 0
const invocation = () => ({ principalId: 'dispatcher', idempotencyKey: `own-${key++}`, inputs: shipmentInputs })

/** Resolves once `probe` holds, polling every 20 ms at most `attempts` times. */
async function until(probe: () => boolean, attempts = 500): Promise<void> {
  for (let i = 0; i < attempts && !probe(); i++) await new Promise((resolve) => setTimeout(resolve, 20))
  if (!probe()) throw new Error('the condition never held')
}

describe.skipIf(!NATS_SERVER)('executor ownership against nats-server', () => {
  let rig: DurableRig
  beforeAll(async () => {
    rig = await startDurableRig('ownership')
  }, 60_000)
  afterAll(async () => {
    await rig?.stop()
  })

  it('a courier that stalls past its lease is reassigned with a higher fence; its late result is refused and its stale claim cannot commit', async () => {
    const interaction = quick(rig.assign)
    // c-ann is a hand-written peer that takes the offer and goes silent (no renewal): its lease runs out.
    const ann = await rig.connection()
    const offers: Record<string, any>[] = []
    const sub = ann.subscribe('shipping.couriers.*.offer.c-ann', { callback: (_e: Error | null, msg: Msg) => void offers.push(msg.json()) })
    await ann.flush()
    // c-bob accepts, but only once c-ann's late acceptance has been published (so it reaches an undecided operation).
    let releaseBob!: () => void
    const bobGate = new Promise<void>((resolve) => (releaseBob = resolve))
    const peers = await rig.couriers({ 'c-bob': { accepted: true, gate: bobGate } }, interaction)
    const executor = await rig.executor(interaction)
    const answered = executor.invoke(invocation())
    await until(() => offers.length > 0 && (rig.handled.get('c-bob') ?? 0) > 0)
    const stale = offers[0]!
    expect(stale).toMatchObject({ branchId: 'c-ann', attempt: 1, courierId: 'c-ann' })
    // The stalled courier wakes up: its claim was taken over, so it can commit nothing...
    const annClaims = await openClaimStore(ann, binding.claimBucket!)
    if (!annClaims.ok) throw new Error(annClaims.message)
    const commit = await annClaims.value.commit(claimKey(stale.operationId, 'c-ann'), 'c-ann', stale.fence, Date.now())
    expect(commit.ok).toBe(false)
    expect(commit.ok ? '' : commit.code).toMatch(/^CLAIM_(STALE|EXPIRED)$/)
    // ...and the acceptance it publishes anyway (the old attempt's fence) is refused at result admission.
    const late = { operationId: stale.operationId, branchId: 'c-ann', attempt: 1, fence: stale.fence, courierId: 'c-ann', accepted: true }
    await jetstream(ann).publish(`shipping.couriers.${stale.operationId}.accept.c-ann`, JSON.stringify(late))
    await until(() => {
      const s = executor.state(stale.operationId)
      return s.ok && s.value.refused.length > 0
    })
    releaseBob()
    const answer = await answered
    sub.unsubscribe()
    expect(answer.ok).toBe(true)
    if (!answer.ok) return
    const { decision, state } = answer.value
    expect(decision).toMatchObject({ outcome: 'success', reason: 'threshold' })
    expect(decision.votes).toHaveLength(1)
    expect(decision.votes[0]).toMatchObject({ branchId: 'c-ann', peerId: 'c-bob', attempt: 2 })
    // The logical branch is kept (its id is the initial assignee's); the attempt and the fence moved on.
    const branch = state.branches[0]!
    expect(branch).toMatchObject({ branchId: 'c-ann', admittedPeerId: 'c-ann', peerId: 'c-bob', attempt: 2, status: 'succeeded' })
    expect(branch.fence).toBeGreaterThan(stale.fence)
    expect(decision.votes[0]!.fence).toBe(branch.fence)
    // The late acceptance was refused: it is not the current peer's, attempt or fence.
    const log = executor.log(answer.value.operationId)
    if (!log.ok) throw new Error(log.message)
    const lateIndex = log.value.findIndex((e) => e.kind === 'result' && e.peerId === 'c-ann')
    expect(lateIndex).toBeGreaterThanOrEqual(0)
    expect(state.refused.find((r) => r.index === lateIndex)?.reason).toBe('wrong-peer')
    expect(log.value.some((e) => e.kind === 'lease-expired' && e.fence === stale.fence)).toBe(true)
    expect(log.value.some((e) => e.kind === 'claimed' && e.peerId === 'c-bob' && e.fence === branch.fence)).toBe(true)
    // The live executor's decisions are the pure core's.
    const plan = planInteraction(interaction)
    if (!plan.ok) throw new Error(plan.message)
    const now = executor.state(answer.value.operationId)
    if (!now.ok) throw new Error(now.message)
    expect(simulate(plan.value.policy, log.value)).toEqual(now.value)
    await executor.close()
    for (const p of peers) await p.close()
    await ann.close()
  }, 30_000)

  it('a slow courier that renews its claim keeps the branch past the lease duration: one attempt, its fence', async () => {
    const interaction = quick(rig.assign)
    // c-ann takes twice the lease to decide, renewing every 200 ms meanwhile.
    const peers = await rig.couriers({ 'c-ann': { accepted: true, afterMs: 3000 } }, interaction)
    const executor = await rig.executor(interaction)
    const answer = await executor.invoke(invocation())
    expect(answer.ok).toBe(true)
    if (!answer.ok) return
    expect(answer.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold' })
    const branch = answer.value.state.branches[0]!
    expect(branch).toMatchObject({ peerId: 'c-ann', attempt: 1, status: 'succeeded' })
    const log = executor.log(answer.value.operationId)
    expect(log.ok && log.value.filter((e) => e.kind === 'lease-expired')).toEqual([])
    // The claim was committed under the attempt's fence.
    const claims = await openClaimStore(await rig.connection(), binding.claimBucket!)
    if (!claims.ok) throw new Error(claims.message)
    const claim = await claims.value.read(claimKey(answer.value.operationId, 'c-ann'))
    expect(claim.ok && claim.value?.claim).toMatchObject({ peerId: 'c-ann', attempt: 1, fence: branch.fence, state: 'committed' })
    await executor.close()
    for (const p of peers) await p.close()
  }, 30_000)

  /** A hand-written courier on its own connection that answers only the attempts `answers` names (never renewing a claim). */
  async function picky(answers: (attempt: number) => boolean, lateFirst = false) {
    const nc = await rig.connection()
    const js = jetstream(nc)
    const seen: Record<string, any>[] = []
    const sub = nc.subscribe('shipping.couriers.*.offer.c-ann', {
      callback: (_e: Error | null, msg: Msg) => {
        const offer = msg.json<Record<string, any>>()
        seen.push(offer)
        if (!answers(offer['attempt'])) return
        const accept = (o: Record<string, any>) =>
          JSON.stringify({
            operationId: o['operationId'],
            branchId: o['branchId'],
            attempt: o['attempt'],
            fence: o['fence'],
            courierId: 'c-ann',
            accepted: true,
          })
        const subject = `shipping.couriers.${offer['operationId']}.accept.c-ann`
        // The earlier attempt's acceptance arrives late, just before this one's (a peer that woke up).
        void (async () => {
          if (lateFirst && seen.length > 1) await js.publish(subject, accept(seen[0]!))
          await js.publish(subject, accept(offer))
        })()
      },
    })
    await nc.flush()
    return { seen, stop: () => sub.unsubscribe() }
  }

  const retrying = () => variant(quick(rig.assign), { dispatch: { mode: 'independent' }, delivery: { maxAttempts: 2 } })
  const onlyAnn = { audience: () => ({ revision: 'r3', peers: ['c-ann'] }) }

  it('a retry keeps the logical branch: after the lease expires and the backoff passes, attempt 2 goes to the same peer under a new claim with a higher fence', async () => {
    const interaction = retrying()
    const ann = await picky((attempt) => attempt === 2, true)
    const executor = await rig.executor(interaction, { adapters: onlyAnn })
    const answer = await executor.invoke(invocation())
    ann.stop()
    expect(answer.ok).toBe(true)
    if (!answer.ok) return
    const [first, second] = ann.seen
    expect(first).toMatchObject({ branchId: 'c-ann', attempt: 1 })
    expect(second).toMatchObject({ branchId: 'c-ann', attempt: 2 })
    expect(second!['fence']).toBeGreaterThan(first!['fence'])
    expect(answer.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold' })
    expect(answer.value.decision.votes).toEqual([expect.objectContaining({ branchId: 'c-ann', peerId: 'c-ann', attempt: 2, fence: second!['fence'] })])
    const log = executor.log(answer.value.operationId)
    if (!log.ok) throw new Error(log.message)
    const expired = log.value.find((e) => e.kind === 'lease-expired')
    const claimed = log.value.find((e) => e.kind === 'claimed')
    expect(expired).toMatchObject({ attempt: 1, fence: first!['fence'] })
    // The attempt started only after the committed expiry and the fixed backoff (100 ms).
    expect(claimed).toMatchObject({ peerId: 'c-ann', fence: second!['fence'] })
    expect(claimed!.atMs).toBeGreaterThanOrEqual(expired!.atMs + 100)
    // The first attempt's late acceptance added no vote: refused at admission as a stale attempt.
    const lateIndex = log.value.findIndex((e) => e.kind === 'result' && e.attempt === 1)
    expect(lateIndex).toBeGreaterThanOrEqual(0)
    expect(answer.value.state.refused).toContainEqual({ index: lateIndex, reason: 'stale-attempt' })
    await executor.close()
  }, 30_000)

  it('attempts stop at the budget: a courier that never answers fails its branch after maxAttempts lease expiries', async () => {
    const interaction = retrying()
    const ann = await picky(() => false)
    const executor = await rig.executor(interaction, { adapters: onlyAnn })
    const answer = await executor.invoke(invocation())
    ann.stop()
    expect(answer.ok).toBe(true)
    if (!answer.ok) return
    expect(answer.value.decision).toMatchObject({ outcome: 'failure', reason: 'impossible', votes: [] })
    expect(answer.value.state.branches[0]).toMatchObject({ branchId: 'c-ann', attempt: 2, status: 'failed' })
    expect(ann.seen.map((o) => o['attempt'])).toEqual([1, 2])
    const log = executor.log(answer.value.operationId)
    expect(log.ok && log.value.filter((e) => e.kind === 'lease-expired').map((e) => (e.kind === 'lease-expired' ? e.attempt : 0))).toEqual([1, 2])
    await executor.close()
  }, 30_000)
})
