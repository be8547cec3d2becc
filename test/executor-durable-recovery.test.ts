/**
 * The durable executor's recovery paths against a real nats-server with JetStream (the shipping
 * contract's courier offer, couriers and executors on connections of their own): a result for an
 * operation no executor drives is kept and terminated after a bounded number of deliveries, and an
 * invoker's cancel is saved before it takes effect.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jetstreamManager } from '@nats-io/jetstream'
import { operationId } from '../src/runtime/nats/interactions.js'
import { openRecordBucket } from '../src/runtime/nats/executor/durable/records.js'
import type { OperationStore } from '../src/runtime/nats/executor/durable/store.js'
import { createResponder, type Responder } from '../src/runtime/nats/executor/index.js'
import { openClaimStore } from '../src/runtime/nats/executor/ownership/claims.js'
import { resultKey } from '../src/runtime/nats/executor/delivery/responder.js'
import { claimKey } from '../src/runtime/nats/executor/durable/executor.js'
import type { NatsConnection } from '@nats-io/nats-core'
import type { Interaction } from '../src/runtime/nats/interactions.js'
import { NATS_SERVER } from './helpers/nats-server.js'
import { binding, patient, poll as until, quick, shipmentInputs, startDurableRig, STREAM, type DurableRig } from './helpers/executor-durable.js'
import { bounded, expectCourierInvariants, expectDurableInvariants } from './cluster/invariants.js'

let key = 0
const invocation = () => ({ principalId: 'dispatcher', idempotencyKey: `recovery-${key++}`, inputs: shipmentInputs })

describe.skipIf(!NATS_SERVER)('durable executor recovery against nats-server', () => {
  let rig: DurableRig
  let store: OperationStore
  beforeAll(async () => {
    rig = await startDurableRig('recovery')
    store = await rig.store()
  }, 60_000)
  afterAll(async () => {
    await rig?.stop()
  })

  /** Starts an operation with a gated courier from an executor in a process of its own, killed with SIGKILL once the courier runs. */
  async function orphaned() {
    const interaction = quick(rig.assign)
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const peers = await rig.couriers({ 'c-ann': { accepted: true, gate } }, interaction)
    rig.handled.clear()
    const fixed = invocation()
    const id = await operationId(fixed.principalId, rig.digest, fixed.idempotencyKey)
    const child = rig.child('executor-durable-child.ts', { DIGEST: rig.digest, KEY: fixed.idempotencyKey })
    try {
      await until(() => (rig.handled.get('c-ann') ?? 0) > 0, 3000)
    } finally {
      expect(await child.kill()).toBe('SIGKILL')
    }
    // Killed before any answer.
    expect(child.output().trim()).toBe('ready')
    return { interaction, release, peers, fixed, id }
  }

  it('a result for an operation no executor drives is kept, terminated after a bounded number of deliveries, and admitted by a later resume', async () => {
    const { interaction, release, peers, id } = await orphaned()
    // Another executor runs (its result consumer routes every result) but drives nothing.
    const b = await rig.executor(interaction, { binding: { resultRedeliveries: 3 } })
    expect(await b.resume('no-such-operation')).toMatchObject({ ok: false, code: 'EXECUTOR_UNKNOWN_OPERATION' })
    release()
    const jsm = await jetstreamManager(await rig.connection())
    await until(async () => {
      const info = await jsm.streams.info(STREAM, { subjects_filter: `shipping.couriers.${id}.accept.*` })
      return Object.keys(info.state.subjects ?? {}).length > 0
    })
    // The result stops being redelivered: nothing pending, nothing awaiting an acknowledgement.
    await until(async () => {
      const info = await jsm.consumers.info(STREAM, 'exec-assignCourier-results')
      return info.num_pending === 0 && info.num_ack_pending === 0
    })
    // The consumer (made by the first executor, default bound) stops at max_deliver whatever happens.
    const consumer = await jsm.consumers.info(STREAM, 'exec-assignCourier-results')
    expect(consumer.config.max_deliver).toBe(30 + 8)
    // Kept once in the operation's state, though delivered (and routed) more than once.
    const kept = await store.parked(id)
    expect(kept.ok && kept.value).toEqual([expect.objectContaining({ subject: `shipping.couriers.${id}.accept.c-ann` })])
    expect(await store.decision(id)).toEqual({ ok: true, value: null })
    // A later resume admits it, at the time it came.
    const resumed = await b.resume(id)
    expect(resumed.ok).toBe(true)
    if (!resumed.ok || !kept.ok) return
    expect(resumed.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold' })
    expect(resumed.value.decision.votes).toEqual([expect.objectContaining({ branchId: 'c-ann', peerId: 'c-ann', attempt: 1, atMs: kept.value[0]!.atMs })])
    expect(rig.handled.get('c-ann')).toBe(1)
    const logged = b.log(id)
    await b.close()
    // Resumed again, the kept result (already admitted) adds nothing to the log.
    const c = await rig.executor(interaction)
    const again = await c.resume(id)
    expect(again.ok && again.value.decision).toEqual(resumed.value.decision)
    const relogged = c.log(id)
    expect(relogged.ok && relogged.value.filter((e) => e.kind === 'result')).toEqual(logged.ok && logged.value.filter((e) => e.kind === 'result'))
    await c.close()
    for (const p of peers) await p.close()
  }, 60_000)

  it('an invoker cancel is saved before it takes effect: a lost save changes nothing, a saved one is replayed by a resumed executor', async () => {
    const interaction = quick(rig.assign)
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const peers = await rig.couriers({ 'c-ann': { accepted: true, gate } }, interaction)
    rig.handled.clear()
    const fixed = invocation()
    const id = await operationId(fixed.principalId, rig.digest, fixed.idempotencyKey)
    const a = await rig.executor(interaction)
    const outcome = a.invoke(fixed)
    await until(() => (rig.handled.get('c-ann') ?? 0) > 0)
    // Another writer changes the operation's state: the executor's next save loses its compare-and-set.
    const state = await store.state(id)
    if (!state.ok || !state.value) throw new Error('no state')
    expect((await store.saveState(id, state.value.value, state.value.revision)).ok).toBe(true)
    // The answer comes once the save has landed: here it lost, and the answer says so.
    expect(await a.cancel(id)).toMatchObject({ ok: false, code: 'EXECUTOR_STATE_FAILED', message: expect.stringContaining('not saved') })
    // The save lost: the cancel took no effect (in memory or anywhere), the executor stopped.
    expect(await outcome).toMatchObject({ ok: false, code: 'EXECUTOR_STATE_FAILED' })
    expect(a.state(id)).toMatchObject({ ok: true, value: { decision: null } })
    const aLog = a.log(id)
    expect(aLog.ok && aLog.value.some((e) => e.kind === 'cancel')).toBe(false)
    expect(await store.decision(id)).toEqual({ ok: true, value: null })
    await a.close()

    // A new executor resumes; its cancel is saved, then its process dies (its connection closed under it).
    const second = await rig.connection()
    const b = await rig.executor(interaction, { connection: second })
    const resumed = b.resume(id)
    await until(() => {
      const now = b.state(id)
      return now.ok && now.value.admission.status === 'admitted'
    })
    const cancelled = await b.cancel(id)
    expect(cancelled).toMatchObject({ ok: true, value: { outcome: 'cancelled' } })
    // Answered once saved: the state bucket holds the cancel when the answer comes (no waiting).
    const saved = await store.state(id)
    expect(saved.ok && saved.value !== null && saved.value.value.events.filter((e) => e.kind === 'cancel')).toHaveLength(1)
    await second.close()
    await b.close()
    await resumed
    release()
    // The next executor replays the saved cancel: the decision is the one the cancel answered.
    const c = await rig.executor(interaction)
    const again = await c.resume(id)
    expect(again.ok && again.value.decision).toEqual(cancelled.ok && cancelled.value)
    const cLog = c.log(id)
    expect(cLog.ok && cLog.value.filter((e) => e.kind === 'cancel')).toHaveLength(1)
    await c.close()
    for (const p of peers) await p.close()
  }, 60_000)

  /** c-ann on a connection of the test's own; counts its handler runs (and tells `returned` when one returns). */
  async function courier(
    nc: NatsConnection,
    interaction: Interaction,
    runs: { count: number },
    gate: Promise<void>,
    returned?: () => void,
  ): Promise<Responder> {
    const made = await createResponder<unknown, { accepted: boolean }>({
      connection: nc,
      module: rig.module,
      interaction,
      peerId: 'c-ann',
      durable: { requestStream: STREAM, claimBucket: binding.claimBucket!, ackWaitMs: 1000 },
      handler: async ({ signal }) => {
        runs.count++
        await Promise.race([gate, new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))])
        returned?.()
        return signal.aborted ? undefined : { accepted: true }
      },
    })
    if (!made.ok) throw new Error(made.message)
    return made.value
  }

  it('a courier restarted after committing but before publishing republishes its kept result: same message id, the handler not run again', async () => {
    const interaction = quick(rig.assign)
    // The courier runs in a process of its own.
    const child = rig.child('executor-durable-responder-child.ts')
    const fixed = invocation()
    const id = await operationId(fixed.principalId, rig.digest, fixed.idempotencyKey)
    const a = await rig.executor(interaction)
    let outcome: ReturnType<typeof a.invoke> | undefined
    try {
      await until(() => child.output().includes('ready'), 3000)
      outcome = a.invoke(fixed)
      await until(() => child.output().includes('running'), 3000)
    } finally {
      expect(await child.kill()).toBe('SIGKILL')
    }
    // Killed after keeping its result and committing its claim, before publishing: the records it
    // leaves at that point, written here as it writes them.
    const admin = await rig.connection()
    const claims = await openClaimStore(admin, binding.claimBucket!)
    if (!claims.ok) throw new Error(claims.message)
    const held = await claims.value.read(claimKey(id, 'c-ann'))
    if (!held.ok || !held.value) throw new Error('no claim')
    const fence = held.value.claim.fence
    await keepResult(id, fence)
    expect(await claims.value.commit(claimKey(id, 'c-ann'), 'c-ann', fence, Date.now())).toMatchObject({ ok: true })
    // Restarted: the unacknowledged request comes again; the kept result is published under the same fence.
    const againRuns = { count: 0 }
    const restarted = await courier(await rig.connection(), interaction, againRuns, Promise.resolve())
    const answer = await outcome!
    expect(answer.ok).toBe(true)
    if (!answer.ok) return
    expect(answer.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold' })
    expect(answer.value.decision.votes).toEqual([expect.objectContaining({ branchId: 'c-ann', attempt: 1, fence })])
    expect(againRuns.count).toBe(0)
    const jsm = await jetstreamManager(admin)
    const info = await jsm.streams.info(STREAM, { subjects_filter: `shipping.couriers.${id}.accept.*` })
    expect(info.state.subjects).toEqual({ [`shipping.couriers.${id}.accept.c-ann`]: 1 })
    await a.close()
    await restarted.close()
  }, 60_000)

  /** c-ann's accepting result kept under `fence` (beside its claim), as the courier keeps it before committing. */
  async function keepResult(id: string, fence: number): Promise<void> {
    const bucket = await openRecordBucket(await rig.connection(), binding.claimBucket!)
    if (!bucket.ok) throw new Error(bucket.message)
    expect((await bucket.value.write(resultKey(id, 'c-ann'), { peerId: 'c-ann', attempt: 1, fence, fields: { accepted: true } }, 0)).ok).toBe(true)
  }

  /** The claim c-ann holds for an operation (its fence is the request's). */
  async function claimOf(id: string) {
    const claims = await openClaimStore(await rig.connection(), binding.claimBucket!)
    if (!claims.ok) throw new Error(claims.message)
    const held = await claims.value.read(claimKey(id, 'c-ann'))
    if (!held.ok || !held.value) throw new Error('no claim')
    return held.value.claim
  }

  /** The fault invariants (test/cluster/invariants.ts) on this one server: offers and results once per attempt, decided once, votes under committed fences. */
  const invariants = (
    interaction: Interaction,
    executor: Parameters<typeof expectDurableInvariants>[0]['executor'],
    outcome: Parameters<typeof expectDurableInvariants>[0]['outcome'],
    acknowledged: Record<string, number>,
  ) => rig.connection().then((connection) => expectCourierInvariants({ connection, binding, interaction, executor, outcome, acknowledged }))

  it('the server stopped while the handler finishes (its keep and commit unanswered), then restarted on its store and port: the redelivered request settles the result kept in memory; the handler ran once, its result committed under its fence and published once, decided once', async () => {
    const interaction = patient(rig.assign, 60_000)
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const runs = { count: 0 }
    let returned = false
    const made = await courier(await rig.connection(), interaction, runs, gate, () => (returned = true))
    const fixed = invocation()
    const id = await operationId(fixed.principalId, rig.digest, fixed.idempotencyKey)
    const ex = await rig.executor(interaction)
    try {
      const answer = ex.invoke(fixed)
      await until(() => runs.count > 0)
      const acknowledged = { [`shipping.couriers.${id}.offer.c-ann`]: 1 }
      const fence = (await claimOf(id)).fence
      await rig.server.restart(async () => {
        // The handler finishes with no server to keep or commit its result; the server stays down
        // past the request's ack wait (1 s), so the request is due again the moment it is back.
        release()
        await until(() => returned)
        await new Promise((resolve) => setTimeout(resolve, 1000))
      })
      const result = await bounded('the offer decided after the restart', answer, 60_000)
      if (!result.ok) throw new Error(result.message)
      expect(result.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold' })
      expect(result.value.decision.votes).toEqual([expect.objectContaining({ branchId: 'c-ann', peerId: 'c-ann', attempt: 1, fence })])
      // Handled once, whichever way the kept result was settled: the request delivered again after the
      // restart (the usual way), or, when the server was back within the JetStream API's timeout, the
      // keep and commit nats.js held while it reconnected answered after all and the request was
      // acknowledged the first time. (The consumer's delivery counter is not asserted: a server
      // restarted on its store may lose the last deliveries' count; CI saw it read unchanged.)
      expect(runs.count).toBe(1)
      expect(await claimOf(id)).toMatchObject({ peerId: 'c-ann', attempt: 1, fence, state: 'committed' })
      await invariants(interaction, ex, result.value, acknowledged)
      const jsm = await jetstreamManager(await rig.connection())
      const results = await jsm.streams.info(STREAM, { subjects_filter: `shipping.couriers.${id}.accept.*` })
      expect(results.state.subjects).toEqual({ [`shipping.couriers.${id}.accept.c-ann`]: 1 })
    } finally {
      release()
      await ex.close()
      await made.close()
    }
  }, 60_000)

  it('a courier restarted after keeping its result but before committing its claim settles it: the claim committed under the request fence, the result published once, the handler not run again', async () => {
    const interaction = patient(rig.assign, 60_000)
    const firstRuns = { count: 0 }
    // The first courier never answers: it "dies" (its connection closed under it) while it runs.
    const doomed = await rig.connection()
    const first = await courier(doomed, interaction, firstRuns, new Promise<void>(() => undefined))
    const fixed = invocation()
    const id = await operationId(fixed.principalId, rig.digest, fixed.idempotencyKey)
    const a = await rig.executor(interaction)
    try {
      const outcome = a.invoke(fixed)
      await until(() => firstRuns.count > 0)
      await doomed.close()
      // What it left: its result kept under the request's fence, the claim still held (not committed).
      const fence = (await claimOf(id)).fence
      await keepResult(id, fence)
      expect(await claimOf(id)).toMatchObject({ fence, state: 'held' })
      // Restarted: the unacknowledged request comes again and finds the kept result.
      const againRuns = { count: 0 }
      const restarted = await courier(await rig.connection(), interaction, againRuns, Promise.resolve())
      try {
        const answer = await bounded('the offer decided', outcome, 60_000)
        if (!answer.ok) throw new Error(answer.message)
        expect(answer.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold' })
        expect(answer.value.decision.votes).toEqual([expect.objectContaining({ branchId: 'c-ann', attempt: 1, fence })])
        expect([firstRuns.count, againRuns.count]).toEqual([1, 0])
        expect(await claimOf(id)).toMatchObject({ peerId: 'c-ann', fence, state: 'committed' })
        await invariants(interaction, a, answer.value, { [`shipping.couriers.${id}.offer.c-ann`]: 1 })
      } finally {
        await restarted.close()
      }
    } finally {
      await a.close()
      // The dead courier's handler is aborted; its connection is gone, so nothing it does reaches the server.
      await bounded('the dead courier closed', first.close(), 10_000).catch(() => undefined)
    }
  }, 60_000)
})
