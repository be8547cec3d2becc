/**
 * The executor end to end against a real nats-server with JetStream: the shop's payments contract
 * (an independent 2/3 quorum of refund votes with cooperative cancellation) and variants of its
 * descriptor for each dispatch and completion mode, peers on their own connections.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect } from '@nats-io/transport-node'
import { operationId, type Interaction } from '../src/runtime/nats/interactions.js'
import { planInteraction, simulate, type Responder } from '../src/runtime/nats/executor/index.js'
import { compile } from '../src/index.js'
import { loadModule } from './helpers/load-module.js'
import { ShopBundle } from './helpers/nats-bundle.js'
import { NATS_SERVER } from './helpers/nats-server.js'
import { startRig, variant, type Behaviour, type Rig } from './helpers/executor-nats.js'

const refund = { paymentId: 'pay-12345678', amount: 10 }
const inputs = { group: 'approvers', refund }
const all = (b: Behaviour): Record<string, Behaviour> => Object.fromEntries(['ann', 'bob', 'cat', 'dan', 'eve'].map((p) => [p, b]))
let key = 0
const invocation = (extra: object = {}) => ({ principalId: 'alice', idempotencyKey: `k${key++}`, inputs, ...extra })

describe.skipIf(!NATS_SERVER)('executor against nats-server', () => {
  let rig: Rig
  beforeAll(async () => {
    rig = await startRig('e2e')
  }, 60_000)
  afterAll(async () => {
    await rig?.stop()
  })

  async function withPeers<T>(behaviours: Record<string, Behaviour>, run: () => Promise<T>, interaction?: Interaction): Promise<T> {
    const peers: Responder[] = await rig.peers(behaviours, interaction)
    try {
      return await run()
    } finally {
      for (const p of peers) await p.close()
    }
  }

  it('independent quorum (2/3 of 5 peers = 4): decides on the fourth approval, aggregates, cancels the rest cooperatively', async () => {
    const executor = await rig.executor(rig.approve)
    const answer = await withPeers({ ann: { vote: true }, bob: { vote: true }, cat: { vote: true }, dan: { vote: true }, eve: 'stall' }, () =>
      executor.invoke(invocation()),
    )
    expect(answer.ok).toBe(true)
    if (!answer.ok) return
    const { decision, state, audience, publications } = answer.value
    expect(answer.value.operationId).toMatch(/^op[0-9a-f]{64}$/)
    expect(audience).toEqual({ revision: 'r7', policyRevision: 'p1', peers: ['ann', 'bob', 'cat', 'dan', 'eve'] })
    expect(publications.map((p) => p.branchId)).toEqual(['ann', 'bob', 'cat', 'dan', 'eve'])
    expect(state.admission).toMatchObject({ admittedUnits: 5, threshold: 4 })
    expect(decision).toMatchObject({ outcome: 'success', reason: 'threshold', successUnits: 4 })
    expect(decision.votes.filter((v) => v.success)).toHaveLength(4)
    expect(answer.value.output).toEqual({ operationId: expect.any(String), approved: true })
    // The stalled peer was asked to stop when the decision was made.
    expect(state.branches.find((b) => b.branchId === 'eve')?.cancel).toBe('requested')
    // The live executor's decisions are the pure core's: its own log replayed through simulate gives its state.
    const log = executor.log(answer.value.operationId)
    const now = executor.state(answer.value.operationId)
    const plan = planInteraction(rig.approve)
    expect(log.ok && now.ok && plan.ok).toBe(true)
    if (log.ok && now.ok && plan.ok) expect(simulate(plan.value.policy, log.value)).toEqual(now.value)
    await executor.close()
  })

  it('cooperative cancellation: stalled peers answer stopped; waitFor settled returns once every branch is terminal', async () => {
    const coop = variant(rig.approve, { completion: { mode: 'quorum', count: 2, fraction: undefined, waitFor: 'settled', cancelTimeoutMs: 5000 } })
    const executor = await rig.executor(coop)
    const answer = await withPeers({ ann: { vote: true }, bob: { vote: true }, cat: 'stall', dan: 'stall', eve: 'stall' }, () => executor.invoke(invocation()))
    expect(answer.ok).toBe(true)
    if (!answer.ok) return
    expect(answer.value.decision).toMatchObject({ outcome: 'success', successUnits: 2 })
    const byId = Object.fromEntries(answer.value.state.branches.map((b) => [b.branchId, [b.status, b.cancel]]))
    expect(byId).toEqual({
      ann: ['succeeded', 'none'],
      bob: ['succeeded', 'none'],
      cat: ['stopped', 'stopped'],
      dan: ['stopped', 'stopped'],
      eve: ['stopped', 'stopped'],
    })
    expect(answer.value.state.settledAtMs).not.toBeNull()
    const log = executor.log(answer.value.operationId)
    const plan = planInteraction(coop)
    if (!log.ok || !plan.ok) throw new Error('no log')
    expect(log.value.filter((e) => e.kind === 'cancel-answered')).toHaveLength(3)
    expect(simulate(plan.value.policy, log.value)).toEqual(answer.value.state)
    await executor.close()
  })

  it('first-success, all-successful (fails once impossible) and all-terminal', async () => {
    const first = await rig.executor(variant(rig.approve, { completion: { mode: 'first-success', fraction: undefined, remaining: 'detach' } }))
    const a = await withPeers({ ann: { vote: false }, bob: { vote: false }, cat: { vote: true }, dan: 'silent', eve: 'silent' }, () =>
      first.invoke(invocation()),
    )
    expect(a.ok && a.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold', successUnits: 1 })
    const allOk = await rig.executor(variant(rig.approve, { completion: { mode: 'all-successful', fraction: undefined, remaining: 'detach' } }))
    const b = await withPeers({ ann: { vote: true }, bob: { vote: false }, cat: 'silent', dan: 'silent', eve: 'silent' }, () => allOk.invoke(invocation()))
    expect(b.ok && b.value.decision).toMatchObject({ outcome: 'failure', reason: 'impossible' })
    const terminal = await rig.executor(variant(rig.approve, { completion: { mode: 'all-terminal', fraction: undefined, remaining: 'detach' } }))
    const c = await withPeers({ ann: { vote: true }, bob: { vote: false }, cat: { vote: true }, dan: { vote: false }, eve: { vote: true } }, () =>
      terminal.invoke(invocation()),
    )
    expect(c.ok && c.value.decision).toMatchObject({ outcome: 'success', reason: 'settled', successUnits: 3 })
    expect(c.ok && c.value.decision.votes).toHaveLength(5)
    for (const e of [first, allOk, terminal]) await e.close()
  })

  it('completion none: dispatch only, decided at admission, every peer asked', async () => {
    const none = await rig.executor(variant(rig.approve, { completion: { mode: 'none', fraction: undefined, remaining: 'detach' } }))
    rig.handled.clear()
    const answer = await withPeers(all('silent'), async () => {
      const r = await none.invoke(invocation())
      // The requests were published before the answer; each peer's handler runs once it is delivered.
      const probe = await rig.connection()
      await probe.flush()
      for (let i = 0; i < 100 && rig.handled.size < 5; i++) await new Promise((resolve) => setTimeout(resolve, 20))
      return r
    })
    expect(answer.ok && answer.value.decision).toMatchObject({ outcome: 'success', reason: 'no-completion' })
    expect(answer.ok && answer.value.publications.map((p) => [p.branchId, p.ok])).toEqual(['ann', 'bob', 'cat', 'dan', 'eve'].map((p) => [p, true]))
    expect([...rig.handled.keys()].sort()).toEqual(['ann', 'bob', 'cat', 'dan', 'eve'])
    await none.close()
  })

  it('direct dispatch needs exactly one peer; one-eligible in memory state is refused', async () => {
    const direct = await rig.executor(
      variant(rig.approve, { dispatch: { mode: 'direct' }, completion: { mode: 'first-success', fraction: undefined, remaining: 'detach' } }),
    )
    const solo = await withPeers({ bob: { vote: true } }, () => direct.invoke(invocation({ inputs: { group: 'solo', refund } })))
    expect(solo.ok && solo.value.decision).toMatchObject({ outcome: 'success' })
    const many = await direct.invoke(invocation())
    expect(many).toMatchObject({ ok: false, code: 'EXECUTOR_ADMISSION_REFUSED' })
    // One-eligible needs ownership and durable state (profile; the compiler's NATS_OWNERSHIP): a memory one is refused.
    const { createExecutor } = await import('../src/runtime/nats/executor/index.js')
    const anycast = createExecutor({
      connection: await rig.connection(),
      module: rig.module,
      interaction: variant(rig.approve, { dispatch: { mode: 'one-eligible' } }),
      contractDigest: rig.digest,
      deployment: { senderPeerId: 's', scopeId: 's', systemId: 's', accountId: 'a', jetstreamDomain: 'd', policyRevision: 'p' },
      adapters: { audience: () => ({ revision: 'r', peers: [] }), authorization: () => ({ allowed: true }) },
    })
    expect(anycast).toMatchObject({ ok: false, code: 'EXECUTOR_INVALID_DESCRIPTOR' })
    await direct.close()
  })

  it('a deadline with onTimeout partial: the decision keeps the votes in time', async () => {
    const partial = await rig.executor(
      variant(rig.approve, { completion: { deadlineMs: 600, onTimeout: 'partial', remaining: 'detach' }, delivery: { settlementGraceMs: 100 } }),
    )
    const answer = await withPeers({ ann: { vote: true }, bob: 'silent', cat: 'silent', dan: 'silent', eve: 'silent' }, () => partial.invoke(invocation()))
    expect(answer.ok && answer.value.decision).toMatchObject({ outcome: 'partial', reason: 'timeout', successUnits: 1 })
    await partial.close()
  })

  it('a duplicate publication and a forged ballot are refused; the vote counts once', async () => {
    const executor = await rig.executor(
      variant(rig.approve, { completion: { mode: 'all-terminal', fraction: undefined, remaining: 'detach', waitFor: 'decision' } }),
    )
    // A hand-written peer `dan` publishes its ballot twice and a ballot in `eve`'s name on its own subject.
    // The real `eve` votes once the server has taken dan's three (a flush): the operation, which
    // decides on the last of the five and then stops reading its ballots, is still open for them. (With
    // dan's ballot the last, its copy and forgery could arrive after that and were then not recorded.)
    const raw = await connect({ servers: rig.server.url })
    let danPublished!: () => void
    const afterDan = new Promise<void>((resolve) => (danPublished = resolve))
    const sub = raw.subscribe('payments.refunds.*.vote.dan', {
      callback: (_e, msg) => {
        const req = msg.json<{ operationId: string; branchId: string; attempt: number; fence: number }>()
        const ballot = { operationId: req.operationId, branchId: 'dan', attempt: req.attempt, fence: req.fence, peerId: 'dan', approve: true }
        raw.publish(`payments.refunds.${req.operationId}.ballot.dan`, JSON.stringify(ballot))
        raw.publish(`payments.refunds.${req.operationId}.ballot.dan`, JSON.stringify(ballot))
        raw.publish(`payments.refunds.${req.operationId}.ballot.dan`, JSON.stringify({ ...ballot, branchId: 'eve', peerId: 'eve', approve: false }))
        void raw.flush().then(danPublished, danPublished)
      },
    })
    await raw.flush()
    try {
      const answer = await withPeers({ ann: { vote: true }, bob: { vote: true }, cat: { vote: true }, eve: { vote: true, after: afterDan } }, () =>
        executor.invoke(invocation()),
      )
      expect(answer.ok).toBe(true)
      if (!answer.ok) return
      expect(answer.value.decision.votes.filter((v) => v.peerId === 'dan')).toHaveLength(1)
      const id = answer.value.operationId
      // dan's copy and forgery may be applied just after the decision answered (bounded wait).
      const refusedOf = () => {
        const s = executor.state(id)
        return s.ok ? s.value.refused.map((r) => r.reason) : []
      }
      for (let i = 0; i < 100 && refusedOf().filter((r) => r === 'not-open' || r === 'unverified').length < 2; i++)
        await new Promise((resolve) => setTimeout(resolve, 20))
      const state = executor.state(id)
      const reasons = state.ok ? state.value.refused.map((r) => r.reason) : []
      expect(reasons).toContain('unverified')
      expect(reasons.filter((r) => r === 'not-open' || r === 'unverified').length).toBeGreaterThanOrEqual(2)
      expect(state.ok && state.value.branches.find((b) => b.branchId === 'eve')?.status).toBe('succeeded')
    } finally {
      sub.unsubscribe()
      await raw.close()
      await executor.close()
    }
  })

  it('admission: idempotency, empty audience, impossible threshold, invalid input, unsupported modes', async () => {
    const executor = await rig.executor(variant(rig.approve, { completion: { mode: 'first-success', fraction: undefined, remaining: 'detach' } }))
    await withPeers(all({ vote: true }), async () => {
      const fixed = { principalId: 'alice', idempotencyKey: 'same-key', inputs }
      const [a, b] = await Promise.all([executor.invoke(fixed), executor.invoke(fixed)])
      expect(a.ok && b.ok && a.value.operationId === b.value.operationId).toBe(true)
      expect(a).toBe(b)
      const conflict = await executor.invoke({ ...fixed, inputs: { group: 'approvers', refund: { ...refund, amount: 11 } } })
      expect(conflict).toMatchObject({ ok: false, code: 'EXECUTOR_IDEMPOTENCY_CONFLICT' })
    })
    expect(await executor.invoke(invocation({ inputs: { group: 'nobody', refund } }))).toMatchObject({ ok: false, code: 'EXECUTOR_EMPTY_AUDIENCE' })
    expect(await executor.invoke(invocation({ inputs: { group: 'approvers', refund: { amount: 'ten' } } }))).toMatchObject({
      ok: false,
      code: 'EXECUTOR_INVALID_INPUT',
    })
    // Inputs that are not JSON data (which the inputs' canonical JSON cannot be written for) are refused, not thrown.
    const cyclic: Record<string, unknown> = { group: 'approvers' }
    cyclic['self'] = cyclic
    for (const bad of [
      { group: 'approvers', refund: { ...refund, amount: Number.NaN } },
      { group: 'approvers', refund: { ...refund, amount: Infinity } },
      cyclic,
      { group: '\ud800' },
    ])
      expect(await executor.invoke(invocation({ inputs: bad as typeof inputs }))).toMatchObject({
        ok: false,
        code: 'EXECUTOR_INVALID_INPUT',
        message: expect.stringContaining('not JSON data'),
      })
    const denied = await rig.executor(rig.approve, { authorization: ({ data }) => ({ allowed: data.peerId === 'ann' && data.stage === 'admission' }) })
    // Only ann passes at admission; authorization rechecked at dispatch refuses her: revoked, impossible.
    const revoked = await denied.invoke(invocation())
    expect(revoked.ok && revoked.value.audience.peers).toEqual(['ann'])
    expect(revoked.ok && revoked.value.decision).toMatchObject({ outcome: 'failure', reason: 'impossible' })
    expect(revoked.ok && revoked.value.state.branches.map((b) => b.status)).toEqual(['revoked'])
    const tooMany = await rig.executor(variant(rig.approve, { completion: { count: 6, fraction: undefined } }))
    expect(await tooMany.invoke(invocation())).toMatchObject({
      ok: false,
      code: 'EXECUTOR_ADMISSION_REFUSED',
      message: expect.stringContaining('impossible-threshold'),
    })
    const { createExecutor } = await import('../src/runtime/nats/executor/index.js')
    const nc = await rig.connection()
    const base = {
      connection: nc,
      module: rig.module,
      contractDigest: rig.digest,
      deployment: { senderPeerId: 's', scopeId: 's', systemId: 's', accountId: 'a', jetstreamDomain: 'd', policyRevision: 'p' },
      adapters: { audience: () => ({ revision: 'r', peers: [] }), authorization: () => ({ allowed: true }) },
    }
    // Durable delivery needs durable state with restart resume (this variant keeps fail-unknown).
    expect(createExecutor({ ...base, interaction: variant(rig.approve, { delivery: { mode: 'durable-per-recipient', state: 'durable' } }) })).toMatchObject({
      ok: false,
      code: 'EXECUTOR_INVALID_DESCRIPTOR',
    })
    // Manifest modes run (test/executor-dispatch.test.ts), but not without the manifest input they read.
    for (const members of [{ dispatch: { mode: 'branches' } }, { dispatch: { mode: 'none' } }])
      expect(createExecutor({ ...base, interaction: variant(rig.approve, members) })).toMatchObject({ ok: false, code: 'EXECUTOR_INVALID_DESCRIPTOR' })
    // Manifest modes in durable state run (test/executor-durable-manifest.test.ts) given a durable binding.
    const durableDelivery = { mode: 'durable-per-recipient', state: 'durable', restart: 'resume' }
    expect(
      createExecutor({ ...base, interaction: variant(rig.approve, { dispatch: { mode: 'branches', branchesInput: 'group' }, delivery: durableDelivery }) }),
    ).toMatchObject({ ok: false, code: 'EXECUTOR_INVALID_DESCRIPTOR', message: expect.stringContaining('durable binding') })
    // A compiled one-eligible, durable interaction (the shop's courier assignment) runs with a durable binding only (test/executor-durable.test.ts).
    const shipping = await compile(ShopBundle.copy('executor-shipping').relock().doc('shipping'))
    const shippingModule = await loadModule(shipping.code!, 'shipping-executor')
    const courier = createExecutor({ ...base, module: shippingModule as never, interaction: shippingModule.interactions.assignCourier })
    expect(courier).toMatchObject({ ok: false, code: 'EXECUTOR_INVALID_DESCRIPTOR', message: expect.stringContaining('durable binding') })
    // An invocation without a principal or a key, and any after close, are answered (a promise of a refusal), never thrown.
    for (const bad of [{ idempotencyKey: 'k', inputs }, { principalId: '', idempotencyKey: 'k', inputs }, { principalId: 'alice', inputs }, undefined]) {
      const answer = executor.invoke(bad as never)
      expect(answer).toBeInstanceOf(Promise)
      expect(await answer).toMatchObject({ ok: false, code: 'EXECUTOR_INVALID_INPUT' })
    }
    for (const e of [executor, denied, tooMany]) await e.close()
    expect(await executor.invoke(invocation())).toMatchObject({ ok: false, code: 'EXECUTOR_CLOSED' })
  })

  it('hostile input: a throwing adapter is an answer, garbage on the result subjects changes nothing', async () => {
    const throwing = await rig.executor(rig.approve, {
      audience: () => {
        throw new Error('directory down')
      },
    })
    expect(await throwing.invoke(invocation())).toMatchObject({
      ok: false,
      code: 'EXECUTOR_ADAPTER_FAILED',
      message: expect.stringContaining('directory down'),
    })
    // The verifier throws for bob: his ballot is refused as unverified, so all-terminal ends at the deadline.
    const picky = await rig.executor(
      variant(rig.approve, {
        completion: { mode: 'all-terminal', fraction: undefined, remaining: 'detach', deadlineMs: 800, onTimeout: 'partial' },
        // Longer than a timer is ever late under load: the answer (at the decision) comes before the grace ends.
        delivery: { settlementGraceMs: 5_000 },
      }),
      {
        verifier: ({ data }) => {
          if (data.peerId === 'bob') throw new Error('no key for bob')
          return { allowed: true }
        },
      },
    )
    const raw = await connect({ servers: rig.server.url })
    const noise = raw.subscribe('payments.refunds.*.vote.ann', {
      callback: (_e, msg) => {
        const { operationId: id } = msg.json<{ operationId: string }>()
        for (const garbage of ['{', 'null', '[]', JSON.stringify({ operationId: id, branchId: 'ann', attempt: '1', fence: 0, peerId: 'ann', approve: true })])
          raw.publish(`payments.refunds.${id}.ballot.ann`, garbage)
        raw.publish(`payments.refunds.${id}.cancelled.ann`, '\u0000')
      },
    })
    await raw.flush()
    try {
      const answer = await withPeers({ ann: { vote: true }, bob: { vote: true }, cat: { vote: true }, dan: { vote: false }, eve: { vote: true } }, () =>
        picky.invoke(invocation({ inputs: { group: 'approvers', refund } })),
      )
      expect(answer.ok).toBe(true)
      if (!answer.ok) return
      expect(answer.value.state.branches.map((b) => [b.branchId, b.status])).toEqual([
        ['ann', 'succeeded'],
        ['bob', 'open'],
        ['cat', 'succeeded'],
        ['dan', 'unsuccessful'],
        ['eve', 'succeeded'],
      ])
      expect(answer.value.decision).toMatchObject({ outcome: 'partial', reason: 'timeout' })
      expect(answer.value.state.refused.map((r) => r.reason)).toEqual(['unverified'])
    } finally {
      noise.unsubscribe()
      await raw.close()
      for (const e of [throwing, picky]) await e.close()
    }
  })

  it('hostile input: a responder handles no request its schema refuses, though the members it reads are valid', async () => {
    const raw = await connect({ servers: rig.server.url })
    const ballots: unknown[] = []
    const sub = raw.subscribe('payments.refunds.*.ballot.ann', { callback: (_e, m) => ballots.push(m.json()) })
    await raw.flush()
    const before = rig.handled.get('ann') ?? 0
    const request = (id: string) => ({ operationId: id, branchId: 'ann', attempt: 1, fence: 0, peerId: 'ann', requestedBy: 'alice', refund })
    const refused = 'op' + 'a'.repeat(64)
    const valid = 'op' + 'b'.repeat(64)
    try {
      await withPeers({ ann: { vote: true } }, async () => {
        // The operation, branch, attempt and fence are all in order: only the schema refuses these.
        const { refund: _missing, ...noRefund } = request(refused)
        for (const bad of [noRefund, { ...request(refused), requestedBy: 7 }, { ...request(refused), refund: { paymentId: 'p', amount: 'ten' } }])
          raw.publish(`payments.refunds.${refused}.vote.ann`, JSON.stringify(bad))
        raw.publish(`payments.refunds.${valid}.vote.ann`, JSON.stringify(request(valid)))
        // One connection's messages arrive in order: once the valid request's ballot is back, the others were read.
        for (let i = 0; i < 500 && ballots.length === 0; i++) await new Promise((r) => setTimeout(r, 5))
      })
      expect(ballots).toEqual([{ operationId: valid, branchId: 'ann', attempt: 1, fence: 0, peerId: 'ann', approve: true }])
      expect((rig.handled.get('ann') ?? 0) - before).toBe(1)
    } finally {
      sub.unsubscribe()
      await raw.close()
    }
  })

  it('an invoker cancel decides cancelled; closing a memory executor mid-interaction leaves it indeterminate', async () => {
    const executor = await rig.executor(variant(rig.approve, { completion: { remaining: 'detach' } }))
    await withPeers(all('silent'), async () => {
      const pending = executor.invoke(invocation())
      let id: string | undefined
      for (let i = 0; i < 200 && id === undefined; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10))
        // The operation id is computable by the invoker: the same function the executor uses.
        const candidate = await operationId('alice', rig.digest, `k${key - 1}`)
        if (executor.state(candidate).ok) id = candidate
      }
      expect(id).toBeDefined()
      expect(await executor.cancel(id!)).toMatchObject({ ok: true, value: { outcome: 'cancelled' } })
      const answer = await pending
      expect(answer.ok && answer.value.decision.outcome).toBe('cancelled')
    })
    const lost = await rig.executor(variant(rig.approve, { completion: { remaining: 'detach' } }))
    await withPeers(all('silent'), async () => {
      const pending = lost.invoke(invocation())
      await new Promise((resolve) => setTimeout(resolve, 200))
      await lost.close()
      const answer = await pending
      expect(answer.ok && answer.value.decision).toMatchObject({ outcome: 'indeterminate', reason: 'lost' })
    })
    await executor.close()
  })
})
