/**
 * Dispatch `branches` (an authenticated manifest) and `none` (gather) in durable state, against a
 * real nats-server with JetStream (the shipping contract's courier offer turned into manifest
 * dispatch, couriers on connections of their own): the manifest is saved with the admission record
 * before anything is dispatched, and an executor killed mid-interaction is resumed by a new one that
 * runs the recorded branches without asking the manifest adapter again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jetstreamManager } from '@nats-io/jetstream'
import { operationId, type Interaction } from '../src/runtime/nats/interactions.js'
import { manifestDigest, planInteraction, simulate, type ExecutorAdapters, type ManifestEntry } from '../src/runtime/nats/executor/index.js'
import { publishOnce } from '../src/runtime/nats/executor/delivery/jetstream.js'
import type { OperationStore } from '../src/runtime/nats/executor/durable/store.js'
import { NATS_SERVER } from './helpers/nats-server.js'
import { poll as until, quick, shipmentInputs, startDurableRig, STREAM, type DurableRig } from './helpers/executor-durable.js'

const PRINCIPAL = 'dispatcher'
let key = 0

/** The courier offer as explicit-manifest dispatch (`branches`) or gather (`none`: no request, no claims, one attempt). */
function manifestMode(base: Interaction, mode: 'branches' | 'none', completion: object): Interaction {
  const q = quick(base, completion) as unknown as Record<string, any>
  const inputs = { ...q['inputs'], manifest: { source: 'argument' } }
  if (mode === 'branches')
    return { ...q, inputs, dispatch: { ...q['dispatch'], mode: 'branches', branchKey: 'declared', branchesInput: 'manifest' } } as unknown as Interaction
  const { requestOperation: _request, ...gathered } = q
  const { ownership: _ownership, ...delivery } = q['delivery']
  return {
    ...gathered,
    inputs,
    dispatch: { mode: 'none', branchKey: 'declared', branchesInput: 'manifest' },
    delivery: { ...delivery, maxAttempts: 1 },
  } as unknown as Interaction
}

describe.skipIf(!NATS_SERVER)('durable executor: dispatch branches and none against nats-server', () => {
  let rig: DurableRig
  let store: OperationStore
  /** Digests a trusted signer vouched for, and the digests the manifest adapter was asked about. */
  const signed = new Set<string>()
  const asked: string[] = []
  const manifest: NonNullable<ExecutorAdapters['manifest']> = ({ data }) => {
    asked.push(data.digest)
    return { authenticated: signed.has(data.digest) }
  }
  beforeAll(async () => {
    rig = await startDurableRig('manifest')
    store = await rig.store()
  }, 60_000)
  afterAll(async () => {
    await rig?.stop()
  })

  async function signedInvocation(entries: readonly ManifestEntry[], signedEntries: readonly ManifestEntry[] = entries) {
    const idempotencyKey = `manifest-${key++}`
    const id = await operationId(PRINCIPAL, rig.digest, idempotencyKey)
    signed.add((await manifestDigest(rig.digest, PRINCIPAL, id, signedEntries))!)
    return { id, invocation: { principalId: PRINCIPAL, idempotencyKey, inputs: { ...shipmentInputs, manifest: entries } } }
  }

  const subjects = (filter: string) => rig.subjects(filter)

  it('branches: one request per manifest entry (two for one courier), saved with the admission; a restart mid-interaction resumes the recorded branches', async () => {
    const interaction = manifestMode(rig.assign, 'branches', { mode: 'all-successful' })
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const peers = await rig.couriers({ 'c-ann': { accepted: true, gate }, 'c-bob': { accepted: true } }, interaction)
    rig.handled.clear()
    const entries = [
      { branchId: 'b1', peerId: 'c-ann', input: 'first' },
      { branchId: 'b2', peerId: 'c-bob', input: 'second' },
    ]
    const { id, invocation } = await signedInvocation(entries)
    const first = await rig.connection()
    const a = await rig.executor(interaction, { connection: first, adapters: { manifest } })
    asked.length = 0
    const killed = a.invoke(invocation)
    // c-bob's result is in the log, c-ann's handler runs: the executor dies (its connection goes away under it).
    await until(() => {
      const log = a.log(id)
      return (rig.handled.get('c-ann') ?? 0) > 0 && log.ok && log.value.some((e) => e.kind === 'result' && e.branchId === 'b2')
    })
    expect(asked).toHaveLength(1)
    await first.close()
    await a.close()
    expect(await killed).toMatchObject({ ok: false, code: 'EXECUTOR_STATE_FAILED' })
    // Saved before anything was dispatched: the admission record holds the authenticated manifest.
    const admission = await store.admission(id)
    expect(admission.ok && admission.value?.manifest).toEqual({ digest: asked[0], entries })
    release()
    await until(async () => Object.keys(await subjects(`shipping.couriers.${id}.accept.*`)).length === 2)

    // A new executor resumes: the recorded branches, the manifest adapter not asked again, nothing published again.
    asked.length = 0
    const b = await rig.executor(interaction, { adapters: { manifest } })
    const resumed = await b.resume(id)
    expect(asked).toEqual([])
    expect(resumed.ok).toBe(true)
    if (!resumed.ok) return
    expect(resumed.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold' })
    expect(resumed.value.decision.votes.map((v) => [v.branchId, v.peerId]).sort()).toEqual([
      ['b1', 'c-ann'],
      ['b2', 'c-bob'],
    ])
    expect(await subjects(`shipping.couriers.${id}.offer.*`)).toEqual({
      [`shipping.couriers.${id}.offer.c-ann`]: 1,
      [`shipping.couriers.${id}.offer.c-bob`]: 1,
    })
    const log = b.log(id)
    const plan = planInteraction(interaction)
    const now = b.state(id)
    if (!log.ok || !plan.ok || !now.ok) throw new Error('no log')
    expect(simulate(plan.value.policy, log.value)).toEqual(now.value)
    await b.close()
    for (const p of peers) await p.close()
  }, 60_000)

  it('branches: two branches for one courier each run under their own claim', async () => {
    const interaction = manifestMode(rig.assign, 'branches', { mode: 'all-successful' })
    const peers = await rig.couriers({ 'c-cat': { accepted: true } }, interaction)
    const entries = [
      { branchId: 'x1', peerId: 'c-cat', input: 'a' },
      { branchId: 'x2', peerId: 'c-cat', input: 'b' },
    ]
    const { invocation } = await signedInvocation(entries)
    const executor = await rig.executor(interaction, { adapters: { manifest } })
    const answer = await executor.invoke(invocation)
    expect(answer.ok).toBe(true)
    if (!answer.ok) return
    expect(answer.value.decision.outcome).toBe('success')
    expect(answer.value.decision.votes.map((v) => v.branchId).sort()).toEqual(['x1', 'x2'])
    // Each branch's fence is its own claim's revision.
    const fences = answer.value.state.branches.map((b) => b.fence)
    expect(new Set(fences).size).toBe(2)
    expect(fences.every((f) => f > 0)).toBe(true)
    await executor.close()
    for (const p of peers) await p.close()
  }, 60_000)

  it('none: nothing published, results of the manifest branches gathered; a restart mid-interaction resumes the gather', async () => {
    const interaction = manifestMode(rig.assign, 'none', { mode: 'all-successful' })
    const entries = [
      { branchId: 'g1', peerId: 'c-ann', input: 'x' },
      { branchId: 'g2', peerId: 'c-bob', input: 'y' },
    ]
    const { id, invocation } = await signedInvocation(entries)
    const nc = await rig.connection()
    const result = (branchId: string, courierId: string) =>
      publishOnce(
        nc,
        `shipping.couriers.${id}.accept.${courierId}`,
        { operationId: id, branchId, attempt: 1, fence: 0, courierId, accepted: true },
        `${id}.${branchId}.1.result`,
      )
    const first = await rig.connection()
    const a = await rig.executor(interaction, { connection: first, adapters: { manifest } })
    const killed = a.invoke(invocation)
    await until(() => {
      const s = a.state(id)
      return s.ok && s.value.admission.status === 'admitted'
    })
    expect((await result('g1', 'c-ann')).ok).toBe(true)
    await until(() => {
      const log = a.log(id)
      return log.ok && log.value.some((e) => e.kind === 'result')
    })
    await first.close()
    await a.close()
    expect(await killed).toMatchObject({ ok: false, code: 'EXECUTOR_STATE_FAILED' })
    expect((await store.admission(id)).ok && (await store.admission(id))).toMatchObject({ ok: true, value: { manifest: { entries } } })
    // While no executor runs, the other branch's result comes (the stream retains it); a result for no manifest branch too.
    expect((await result('g2', 'c-bob')).ok).toBe(true)
    expect((await result('zz', 'c-cat')).ok).toBe(true)

    asked.length = 0
    const b = await rig.executor(interaction, { adapters: { manifest } })
    const resumed = await b.invoke(invocation)
    expect(asked).toEqual([])
    expect(resumed.ok).toBe(true)
    if (!resumed.ok) return
    expect(resumed.value.decision).toMatchObject({ outcome: 'success' })
    expect(resumed.value.decision.votes.map((v) => v.branchId).sort()).toEqual(['g1', 'g2'])
    expect(resumed.value.state.branches.map((b) => b.branchId).sort()).toEqual(['g1', 'g2'])
    // Gather publishes nothing.
    expect(await subjects(`shipping.couriers.${id}.offer.*`)).toEqual({})
    await b.close()
  }, 60_000)

  it('what durable manifest dispatch refuses before anything is admitted', async () => {
    const interaction = manifestMode(rig.assign, 'branches', { mode: 'all-successful' })
    const executor = await rig.executor(interaction, { adapters: { manifest } })
    const entries = [{ branchId: 'r1', peerId: 'c-ann', input: 'a' }]
    // A manifest whose digest is not the one signed (another peer substituted after signing).
    const tampered = await signedInvocation([{ branchId: 'r1', peerId: 'c-bob', input: 'a' }], entries)
    expect(await executor.invoke(tampered.invocation)).toMatchObject({ ok: false, code: 'EXECUTOR_MANIFEST_REFUSED' })
    expect(await store.admission(tampered.id)).toEqual({ ok: true, value: null })
    // A peer outside the audience snapshot.
    const outsider = await signedInvocation([{ branchId: 'r1', peerId: 'mallory', input: 'a' }])
    expect(await executor.invoke(outsider.invocation)).toMatchObject({ ok: false, code: 'EXECUTOR_MANIFEST_REFUSED' })
    expect(await store.admission(outsider.id)).toEqual({ ok: true, value: null })
    expect(await subjects(`shipping.couriers.${tampered.id}.offer.*`)).toEqual({})
    // Gathered work is not the executor's to retry.
    const retried = { ...manifestMode(rig.assign, 'none', {}), delivery: { ...(rig.assign as any).delivery, maxAttempts: 3 } } as Interaction
    expect(planInteraction(retried)).toMatchObject({ ok: false, code: 'EXECUTOR_UNSUPPORTED' })
    await executor.close()
  }, 60_000)

  /** A result of the courier offer published straight to the result stream (a peer, or someone posing as one). */
  const resultFor =
    (nc: Awaited<ReturnType<DurableRig['connection']>>, id: string) =>
    (branchId: string, courierId: string, extra: object = {}, msgId?: string) =>
      publishOnce(
        nc,
        `shipping.couriers.${id}.accept.${courierId}`,
        { operationId: id, branchId, attempt: 1, fence: 0, courierId, accepted: true, ...extra },
        msgId ?? `${id}.${branchId}.${courierId}.1.result`,
      )

  it('hostile peers: a result for a branch never assigned to its peer, for no branch, and a flood of duplicates change nothing and stay bounded', async () => {
    const interaction = manifestMode(rig.assign, 'none', { mode: 'all-successful' })
    const entries = [
      { branchId: 'h1', peerId: 'c-ann', input: 'x' },
      { branchId: 'h2', peerId: 'c-bob', input: 'y' },
    ]
    const { id, invocation } = await signedInvocation(entries)
    const result = resultFor(await rig.connection(), id)
    const executor = await rig.executor(interaction, { adapters: { manifest } })
    const answer = executor.invoke(invocation)
    await until(() => {
      const s = executor.state(id)
      return s.ok && s.value.admission.status === 'admitted'
    })
    // c-cat answers h1 (c-ann's) and a branch that is not in the manifest; c-bob answers h1 too.
    expect((await result('h1', 'c-cat')).ok).toBe(true)
    expect((await result('nope', 'c-cat')).ok).toBe(true)
    expect((await result('h1', 'c-bob')).ok).toBe(true)
    // c-ann's own result for h1, then a flood of copies of it (each stored: distinct message ids).
    expect((await result('h1', 'c-ann')).ok).toBe(true)
    for (let i = 0; i < 200; i++) expect((await result('h1', 'c-ann', {}, `${id}.flood.${i}`)).ok).toBe(true)
    await until(() => {
      const log = executor.log(id)
      return log.ok && log.value.some((e) => e.kind === 'result' && e.branchId === 'h1' && e.peerId === 'c-ann')
    })
    // Still undecided: h2 has not answered; nothing a stranger sent counted.
    expect(executor.state(id)).toMatchObject({ ok: true, value: { decision: null } })
    expect((await result('h2', 'c-bob')).ok).toBe(true)
    const decided = await answer
    expect(decided.ok).toBe(true)
    if (!decided.ok) return
    expect(decided.value.decision.outcome).toBe('success')
    expect(decided.value.decision.votes.map((v) => [v.branchId, v.peerId]).sort()).toEqual([
      ['h1', 'c-ann'],
      ['h2', 'c-bob'],
    ])
    // Bounded: of 204 results for h1, the log holds c-ann's once (the copies, after h1 succeeded, are not logged).
    const log = executor.log(id)
    expect(log.ok && log.value.filter((e) => e.kind === 'result' && e.branchId === 'h1' && e.peerId === 'c-ann')).toHaveLength(1)
    expect(log.ok && log.value.length).toBeLessThan(20)
    await executor.close()
  }, 60_000)

  it('a result too large to keep for an operation no executor drives is terminated after its bounded redeliveries; the others are kept and admitted', async () => {
    const interaction = manifestMode(rig.assign, 'none', { mode: 'quorum', count: 1, fraction: undefined })
    const entries = [
      { branchId: 'k1', peerId: 'c-ann', input: 'x' },
      { branchId: 'k2', peerId: 'c-bob', input: 'y' },
    ]
    const { id, invocation } = await signedInvocation(entries)
    const first = await rig.connection()
    const a = await rig.executor(interaction, { connection: first, adapters: { manifest } })
    const killed = a.invoke(invocation)
    await until(() => {
      const s = a.state(id)
      return s.ok && s.value.admission.status === 'admitted'
    })
    await first.close()
    await a.close()
    expect(await killed).toMatchObject({ ok: false })
    // Another executor runs (its result consumer routes every result) but drives nothing.
    const b = await rig.executor(interaction, { adapters: { manifest }, binding: { resultRedeliveries: 2 } })
    expect(await b.resume('no-such-operation')).toMatchObject({ ok: false, code: 'EXECUTOR_UNKNOWN_OPERATION' })
    const result = resultFor(await rig.connection(), id)
    // Within the server's max_payload, beyond what the operation's kept-results record holds.
    expect((await result('k1', 'c-ann', { note: 'x'.repeat(600 * 1024) })).ok).toBe(true)
    expect((await result('k2', 'c-bob')).ok).toBe(true)
    const jsm = await jetstreamManager(await rig.connection())
    await until(async () => {
      const info = await jsm.consumers.info(STREAM, 'exec-assignCourier-results')
      return info.num_pending === 0 && info.num_ack_pending === 0
    })
    const kept = await store.parked(id)
    expect(kept.ok && kept.value.map((r) => (r.payload as { branchId: string }).branchId)).toEqual(['k2'])
    const resumed = await b.resume(id)
    expect(resumed.ok && resumed.value.decision).toMatchObject({ outcome: 'success', votes: [expect.objectContaining({ branchId: 'k2', peerId: 'c-bob' })] })
    await b.close()
  }, 60_000)
})
