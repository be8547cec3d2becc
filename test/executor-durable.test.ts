/**
 * durable-per-recipient delivery and durable state against a real nats-server with JetStream: the
 * shipping contract's courier offer, couriers on connections of their own; an executor killed
 * mid-interaction (its connection closed abruptly) and a new one on a new connection resuming it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { operationId } from '../src/runtime/nats/interactions.js'
import { DiscardPolicy, jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream'
import { planInteraction, simulate, type Decision } from '../src/runtime/nats/executor/index.js'
import { publishOnce } from '../src/runtime/nats/executor/delivery/jetstream.js'
import type { AdmissionRecord, OperationState } from '../src/runtime/nats/executor/durable/store.js'
import { NATS_SERVER } from './helpers/nats-server.js'
import { variant } from './helpers/executor-nats.js'
import { binding, poll as until, quick, shipmentInputs, startDurableRig, STREAM, type DurableRig } from './helpers/executor-durable.js'

let key = 0
const invocation = () => ({ principalId: 'dispatcher', idempotencyKey: `dur-${key++}`, inputs: shipmentInputs })

describe.skipIf(!NATS_SERVER)('durable executor against nats-server', () => {
  let rig: DurableRig
  beforeAll(async () => {
    rig = await startDurableRig('durable')
  }, 60_000)
  afterAll(async () => {
    await rig?.stop()
  })

  /** Messages the request stream holds per subject. */
  const subjects = (filter: string) => rig.subjects(filter)

  it('independent durable fan-out: a filtered durable consumer per peer, an offline peer gets its request when it connects', async () => {
    const fanOut = variant(quick(rig.assign), { dispatch: { mode: 'independent' }, completion: { mode: 'all-terminal' } })
    const peers = await rig.couriers({ 'c-ann': { accepted: true }, 'c-bob': { accepted: false } }, fanOut)
    const executor = await rig.executor(fanOut)
    const answered = executor.invoke(invocation())
    const jsm = await jetstreamManager(await rig.connection())
    // c-cat is offline when the offers go out: its consumer holds its offer.
    await until(async () => {
      const info = await jsm.consumers.info(STREAM, 'exec-assignCourier-c-cat').catch(() => null)
      return info !== null && info.num_pending > 0
    })
    peers.push(...(await rig.couriers({ 'c-cat': { accepted: true } }, fanOut)))
    const answer = await answered
    expect(answer.ok).toBe(true)
    if (!answer.ok) return
    expect(answer.value.decision).toMatchObject({ outcome: 'success', reason: 'settled' })
    expect(answer.value.state.branches.map((b) => [b.branchId, b.status])).toEqual([
      ['c-ann', 'succeeded'],
      ['c-bob', 'unsuccessful'],
      ['c-cat', 'succeeded'],
    ])
    for (const peer of ['c-ann', 'c-bob', 'c-cat']) {
      const info = await jsm.consumers.info(STREAM, `exec-assignCourier-${peer}`)
      expect(info.config).toMatchObject({
        durable_name: `exec-assignCourier-${peer}`,
        filter_subject: `shipping.couriers.*.offer.${peer}`,
        ack_policy: 'explicit',
      })
    }
    const offers = await subjects(`shipping.couriers.${answer.value.operationId}.offer.*`)
    expect(Object.values(offers)).toEqual([1, 1, 1])
    await executor.close()
    for (const p of peers) await p.close()
  }, 30_000)

  it('a duplicate publication is deduplicated: the same message id is stored once and handled once', async () => {
    const peers = await rig.couriers({ 'c-ann': { accepted: true } })
    rig.handled.clear()
    const executor = await rig.executor(quick(rig.assign))
    const answer = await executor.invoke(invocation())
    expect(answer.ok && answer.value.decision.outcome).toBe('success')
    if (!answer.ok) return
    const id = answer.value.operationId
    // The outbox entry, published again with its message id (as after a crash before it was marked published).
    const state = await (await rig.store()).state(id)
    if (!state.ok || !state.value) throw new Error('no state')
    const [entry] = state.value.value.outbox
    expect(entry).toMatchObject({ msgId: `${id}.c-ann.1`, published: true, attempt: 1 })
    const again = await publishOnce(await rig.connection(), entry!.subject, entry!.payload, entry!.msgId)
    expect(again).toMatchObject({ ok: true, value: { duplicate: true } })
    expect(await subjects(`shipping.couriers.${id}.offer.*`)).toEqual({ [`shipping.couriers.${id}.offer.c-ann`]: 1 })
    // The result, likewise: published twice with one id, stored once.
    const accepts = await subjects(`shipping.couriers.${id}.accept.*`)
    expect(accepts).toEqual({ [`shipping.couriers.${id}.accept.c-ann`]: 1 })
    expect(rig.handled.get('c-ann')).toBe(1)
    await executor.close()
    for (const p of peers) await p.close()
  }, 30_000)

  it('a request stream that could evict accepted work (discard old) is refused', async () => {
    const jsm = await jetstreamManager(await rig.connection())
    await jsm.streams.add({
      name: 'EVICTING',
      subjects: ['evicting.>'],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      discard: DiscardPolicy.Old,
    })
    const { createExecutor } = await import('../src/runtime/nats/executor/index.js')
    const made = createExecutor({
      connection: await rig.connection(),
      module: rig.module,
      interaction: quick(rig.assign),
      contractDigest: rig.digest,
      deployment: { senderPeerId: 's', scopeId: 's', systemId: 's', accountId: 'a', jetstreamDomain: 'd', policyRevision: 'p' },
      durable: { ...binding, requestStream: 'EVICTING' },
      adapters: { audience: () => ({ revision: 'r', peers: ['c-ann'] }), authorization: () => ({ allowed: true }) },
    })
    if (!made.ok) throw new Error(made.message)
    expect(await made.value.invoke(invocation())).toMatchObject({ ok: false, code: 'EXECUTOR_STATE_FAILED', message: expect.stringContaining('discard old') })
    await made.value.close()
  })

  it('an executor killed mid-interaction is resumed by a new one: the result published meanwhile is admitted, nothing is decided twice, the deadline counts from admission', async () => {
    const interaction = quick(rig.assign)
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const peers = await rig.couriers({ 'c-ann': { accepted: true, gate } }, interaction)
    rig.handled.clear()
    const fixed = invocation()
    const first = await rig.connection()
    const a = await rig.executor(interaction, { connection: first })
    const killed = a.invoke(fixed)
    await until(() => (rig.handled.get('c-ann') ?? 0) > 0)
    // The executor dies: its connection goes away under it (nothing more reaches the server from it).
    await first.close()
    await a.close()
    expect(await killed).toMatchObject({ ok: false })
    // While no executor runs, the courier accepts (renewing and committing its claim) and publishes its result.
    release()
    const store = await rig.store()
    let admission: AdmissionRecord | null = null
    await until(async () => {
      const read = await store.admission(
        Object.keys(await subjects('shipping.couriers.*.offer.c-ann'))
          .map((s) => s.split('.')[2]!)
          .at(-1) ?? 'none',
      )
      admission = read.ok ? read.value : null
      return admission !== null && admission.idempotencyKey === fixed.idempotencyKey
    })
    const id = admission!.operationId
    await until(async () => Object.keys(await subjects(`shipping.couriers.${id}.accept.*`)).length > 0)
    expect((await store.decision(id)).ok && (await store.decision(id))).toMatchObject({ ok: true, value: null })

    // A new executor on a new connection: the same invocation finds the admission record and resumes.
    const b = await rig.executor(interaction)
    const resumed = await b.invoke(fixed)
    expect(resumed.ok).toBe(true)
    if (!resumed.ok) return
    expect(resumed.value.operationId).toBe(id)
    expect(resumed.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold' })
    expect(resumed.value.decision.votes).toEqual([expect.objectContaining({ branchId: 'c-ann', peerId: 'c-ann', attempt: 1 })])
    // The deadline counts from the admission commit the first executor made.
    expect(resumed.value.state.admission).toMatchObject({ atMs: admission!.admittedAtMs, deadlineMs: admission!.admittedAtMs + 20_000 })
    // One offer (the first executor's: the resumed one did not send it again), one handler run.
    expect(await subjects(`shipping.couriers.${id}.offer.*`)).toEqual({ [`shipping.couriers.${id}.offer.c-ann`]: 1 })
    expect(rig.handled.get('c-ann')).toBe(1)
    // The decision record: written once; a second writer loses and reads the first.
    const recorded = await store.decision(id)
    if (!recorded.ok || !recorded.value) throw new Error('no decision record')
    expect(recorded.value.value).toEqual(resumed.value.decision)
    const other: Decision = { ...resumed.value.decision, outcome: 'failure', reason: 'impossible' }
    expect(await store.decide(id, other)).toEqual({ ok: true, value: { decision: resumed.value.decision, won: false } })
    expect(await store.decision(id)).toEqual(recorded)
    // The resumed log is the first executor's log and what came after: the pure core replays it to the same state.
    const log = b.log(id)
    const plan = planInteraction(interaction)
    if (!log.ok || !plan.ok) throw new Error('no log')
    expect(log.value[0]).toMatchObject({ kind: 'admitted', atMs: admission!.admittedAtMs })
    const now = b.state(id)
    expect(now.ok && simulate(plan.value.policy, log.value)).toEqual(now.ok && now.value)
    await b.close()

    // A crash after publication but before the outbox said so: the next executor republishes with the same message id, stored once.
    const state = await store.state(id)
    if (!state.ok || !state.value) throw new Error('no state')
    const unmarked: OperationState = { ...state.value.value, outbox: state.value.value.outbox.map((e) => ({ ...e, published: false })) }
    expect((await store.saveState(id, unmarked, state.value.revision)).ok).toBe(true)
    const c = await rig.executor(interaction)
    const again = await c.resume(id)
    expect(again.ok && again.value.decision).toEqual(resumed.value.decision)
    expect(again.ok && again.value.publications).toEqual([{ branchId: 'c-ann', attempt: 1, ok: true }])
    expect(await subjects(`shipping.couriers.${id}.offer.*`)).toEqual({ [`shipping.couriers.${id}.offer.c-ann`]: 1 })
    expect(rig.handled.get('c-ann')).toBe(1)
    await c.close()
    for (const p of peers) await p.close()
  }, 60_000)

  it('an executor process killed with SIGKILL mid-interaction: a new executor resumes the operation and decides it once', async () => {
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
    // Killed before any answer: the operation was admitted and dispatched, not decided.
    expect(child.output().trim()).toBe('ready')
    const store = await rig.store()
    const admission = await store.admission(id)
    if (!admission.ok || !admission.value) throw new Error('no admission record')
    expect(await store.decision(id)).toEqual({ ok: true, value: null })
    // The courier answers while no executor runs; a new executor (this process, its own connection) resumes.
    release()
    await until(async () => Object.keys(await subjects(`shipping.couriers.${id}.accept.*`)).length > 0)
    const b = await rig.executor(interaction)
    const resumed = await b.resume(id)
    expect(resumed.ok).toBe(true)
    if (!resumed.ok) return
    expect(resumed.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold' })
    expect(resumed.value.decision.votes).toEqual([expect.objectContaining({ branchId: 'c-ann', peerId: 'c-ann', attempt: 1 })])
    expect(resumed.value.state.admission).toMatchObject({ atMs: admission.value.admittedAtMs, deadlineMs: admission.value.admittedAtMs + 20_000 })
    expect(await subjects(`shipping.couriers.${id}.offer.*`)).toEqual({ [`shipping.couriers.${id}.offer.c-ann`]: 1 })
    expect(rig.handled.get('c-ann')).toBe(1)
    expect(await store.decision(id)).toMatchObject({ ok: true, value: { value: resumed.value.decision } })
    // The same invocation again answers the same decision (the operation, not a new one).
    const again = await b.invoke(fixed)
    expect(again.ok && again.value.decision).toEqual(resumed.value.decision)
    await b.close()
    for (const p of peers) await p.close()
  }, 120_000)

  it('a deadline that passes while no executor runs: the resumed executor decides at the deadline counted from the admission commit (onTimeout partial)', async () => {
    const interaction = quick(rig.assign, { deadlineMs: 1500, onTimeout: 'partial' })
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const peers = await rig.couriers({ 'c-ann': { accepted: true, gate } }, interaction)
    rig.handled.clear()
    const fixed = invocation()
    const id = await operationId(fixed.principalId, rig.digest, fixed.idempotencyKey)
    const first = await rig.connection()
    const a = await rig.executor(interaction, { connection: first })
    const killed = a.invoke(fixed)
    await until(() => (rig.handled.get('c-ann') ?? 0) > 0)
    await first.close()
    await a.close()
    expect(await killed).toMatchObject({ ok: false })
    const admission = await (await rig.store()).admission(id)
    if (!admission.ok || !admission.value) throw new Error('no admission record')
    const deadline = admission.value.admittedAtMs + 1500
    await until(() => Date.now() > deadline + 100)
    const b = await rig.executor(interaction)
    const resumed = await b.resume(id)
    expect(resumed.ok && resumed.value.decision).toMatchObject({ outcome: 'partial', reason: 'timeout', atMs: deadline, votes: [] })
    release()
    await b.close()
    for (const p of peers) await p.close()
  }, 30_000)

  it('a second executor writing the same operation loses the compare-and-set on its state', async () => {
    const store = await rig.store()
    const state: OperationState = { events: [], outbox: [] }
    const first = await store.saveState('op-race', state, 0)
    expect(first.ok).toBe(true)
    const second = await store.saveState('op-race', state, 0)
    expect(second).toMatchObject({ ok: false, conflict: true })
  })
})
