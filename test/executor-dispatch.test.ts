/**
 * Dispatch `branches` (an authenticated explicit manifest) and `none` (gather: nothing published,
 * results collected from the declared result operation), and a JetStream request publication (a
 * stream-captured request subject: expected stream, message id, deduplication), end to end against a
 * real nats-server with JetStream, peers on connections of their own.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bounded } from './helpers/bounded.js'
import { connect } from '@nats-io/transport-node'
import type { NatsConnection } from '@nats-io/nats-core'
import { jetstreamManager } from '@nats-io/jetstream'
import { compile } from '../src/index.js'
import { operationId, type Interaction } from '../src/runtime/nats/interactions.js'
import {
  createExecutor,
  createResponder,
  planInteraction,
  simulate,
  type ExecutorAdapters,
  type ExecutorModule,
  manifestDigest,
  type ManifestEntry,
  type Responder,
} from '../src/runtime/nats/executor/index.js'

import { loadModule } from './helpers/load-module.js'
import { ShopBundle } from './helpers/nats-bundle.js'
import { NATS_SERVER, startNatsServer, type NatsServer } from './helpers/nats-server.js'
import { deployment, variant, type Ballot } from './helpers/executor-nats.js'

const DOC = 'payments/asyncapi/asyncapi.yaml'
const MANIFEST = {
  Manifest:
    '{ type: array, items: { type: object, required: [branchId, peerId, input], properties: { branchId: { type: string }, peerId: { type: string }, input: { type: string } } } }',
}
const refund = { paymentId: 'pay-12345678', amount: 10 }
const PEERS = ['ann', 'bob', 'cat', 'dan', 'eve']
const SIGNING_KEY = 'manifest-signing-key'
const PRINCIPAL = 'alice'

/** Explicit-manifest dispatch: each request's `requestedBy` is bound from its branch's manifest input. */
function branchesBundle(): ShopBundle {
  return ShopBundle.copy('dispatch-branches')
    .withBranchManifest(MANIFEST)
    .withRuntimeSchemaCheck()
    .edit(DOC, '          /requestedBy: { context: principalId }', '          /requestedBy: { branch: input }')
    .relock()
}

/** Gather-only work: no requestOperation, empty bindings, dispatch none over the manifest. */
function gatherBundle(): ShopBundle {
  const b = ShopBundle.copy('dispatch-gather').withBranchManifest(MANIFEST)
  const text = b.read(DOC)
  const start = text.indexOf('      bindings:\n        subject:\n          operationId: { input: operationId }')
  const end = text.indexOf('      audience:', start)
  return b
    .write(DOC, text.slice(0, start) + '      bindings: { subject: {}, payload: {} }\n' + text.slice(end))
    .edit(DOC, '      requestOperation: requestRefundVote\n', '')
    .edit(
      DOC,
      'dispatch: { mode: branches, branchKey: declared, branchesInput: manifest, targetParameter: peerId }',
      'dispatch: { mode: none, branchKey: declared, branchesInput: manifest }',
    )
    .relock()
}

/** The refund vote published through JetStream into a stream of its own (VOTES) that captures the request subjects. */
function jetstreamBundle(): ShopBundle {
  return ShopBundle.copy('dispatch-jetstream')
    .edit(
      DOC,
      'requestRefundVote: { publish: { api: core, confirmation: none } }',
      'requestRefundVote: { publish: { api: jetstream, confirmation: stream-ack, stream: votes } }',
    )
    .edit(
      DOC,
      '  streams:\n',
      '  streams:\n    votes:\n      authority: contract\n      config: { name: VOTES, subjects: [payments.refunds.*.vote.*], retention: limits, storage: file, num_replicas: 1, max_age: 86400000000000, max_msgs: 100000, max_bytes: 104857600, discard: new, duplicate_window: 120000000000 }\n',
    )
    .relock()
}

interface Loaded {
  module: ExecutorModule & Record<string, any>
  interaction: Interaction
  digest: string
}

async function load(bundle: ShopBundle, name: string): Promise<Loaded> {
  const compiled = await compile(bundle.doc('payments'))
  if (compiled.diagnostics.length > 0) throw new Error(JSON.stringify(compiled.diagnostics))
  const module = (await loadModule(compiled.code!, `executor-dispatch-${name}`)) as Loaded['module']
  return {
    module,
    interaction: module.interactions.approveRefund as Interaction,
    digest: createHash('sha256')
      .update(readFileSync(bundle.doc('payments')))
      .digest('hex'),
  }
}

/** The manifest's signer (a service the application trusts): an HMAC over `manifestDigest`, kept by operation id. */
const signatures = new Map<string, Buffer>()
const hmac = (digest: string) => createHmac('sha256', SIGNING_KEY).update(digest).digest()
async function sign(contractDigest: string, idempotencyKey: string, entries: readonly ManifestEntry[]): Promise<void> {
  const op = await operationId(PRINCIPAL, contractDigest, idempotencyKey)
  signatures.set(op, hmac((await manifestDigest(contractDigest, PRINCIPAL, op, entries))!))
}
/** The manifest adapter: the signature kept for this operation must be the HMAC of the digest the executor computed. */
const authenticate: NonNullable<ExecutorAdapters['manifest']> = ({ context, data }) => {
  const signature = signatures.get(context.operationId)
  const expected = hmac(data.digest)
  return { authenticated: signature !== undefined && signature.length === expected.length && timingSafeEqual(signature, expected) }
}

describe.skipIf(!NATS_SERVER)('executor dispatch modes against nats-server', () => {
  let server: NatsServer
  const connections: NatsConnection[] = []
  const responders: Responder[] = []
  let branches: Loaded
  let gather: Loaded
  let viaStream: Loaded
  let key = 0
  const conn = async () => {
    const nc = await connect({ servers: server.url })
    connections.push(nc)
    return nc
  }
  /** Requests each peer's handler saw: [branchId, requestedBy]. */
  const seen = new Map<string, Array<[string, string]>>()

  beforeAll(async () => {
    ;[branches, gather, viaStream] = await Promise.all([
      load(branchesBundle(), 'branches'),
      load(gatherBundle(), 'gather'),
      load(jetstreamBundle(), 'jetstream'),
    ])
    server = await startNatsServer()
  }, 120_000)
  afterAll(async () => {
    for (const r of responders) await r.close()
    for (const nc of connections) await nc.close()
    await server?.stop()
  })

  /** Peers answering through the responder helper: a vote, or a stall until cancelled. */
  async function peers(loaded: Loaded, interaction: Interaction, votes: Record<string, boolean | 'stall'>): Promise<Responder[]> {
    const made: Responder[] = []
    for (const [peerId, vote] of Object.entries(votes)) {
      const r = await createResponder<{ requestedBy: string }, { approve: boolean }>({
        connection: await conn(),
        module: loaded.module,
        interaction,
        peerId,
        handler: async ({ branchId, payload, signal }) => {
          seen.set(peerId, [...(seen.get(peerId) ?? []), [branchId, payload.requestedBy]])
          if (vote === 'stall') {
            await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
            return undefined
          }
          return { approve: vote }
        },
      })
      if (!r.ok) throw new Error(r.message)
      made.push(r.value)
      responders.push(r.value)
    }
    return made
  }

  async function executorFor(
    loaded: Loaded,
    interaction: Interaction,
    adapters: Partial<ExecutorAdapters<Ballot, { operationId: string; approved: boolean }>> = {},
  ) {
    const made = createExecutor<Ballot, { operationId: string; approved: boolean }>({
      connection: await conn(),
      module: loaded.module,
      interaction,
      contractDigest: loaded.digest,
      deployment,
      adapters: {
        audience: () => ({ revision: 'r7', peers: PEERS }),
        authorization: ({ data }) => ({ allowed: data.peerId !== 'mallory' }),
        verifier: () => ({ allowed: true }),
        aggregation: ({ context, data }) => ({ operationId: context.operationId, approved: data.some((b) => b.approve) }),
        manifest: authenticate,
        ...adapters,
      },
    })
    if (!made.ok) throw new Error(made.message)
    return made.value
  }

  async function signedInvocation(loaded: Loaded, entries: readonly ManifestEntry[], signed: readonly ManifestEntry[] = entries) {
    const idempotencyKey = `dispatch-${key++}`
    await sign(loaded.digest, idempotencyKey, signed)
    return { principalId: PRINCIPAL, idempotencyKey, inputs: { group: 'approvers', refund, manifest: entries } }
  }

  it('branches: one request per manifest entry (two branches for one peer), its input bound; quorum over distinct branches, the rest cancelled cooperatively', async () => {
    const interaction = variant(branches.interaction, {
      completion: { mode: 'quorum', unit: 'distinct-branches', fraction: undefined, count: 3, waitFor: 'settled' },
    })
    const entries = [
      { branchId: 'b1', peerId: 'ann', input: 'first' },
      { branchId: 'b2', peerId: 'ann', input: 'second' },
      { branchId: 'b3', peerId: 'bob', input: 'third' },
      { branchId: 'b4', peerId: 'cat', input: 'fourth' },
    ]
    seen.clear()
    const running = await peers(branches, interaction, { ann: true, bob: true, cat: 'stall' })
    const executor = await executorFor(branches, interaction)
    const answer = await executor.invoke(await signedInvocation(branches, entries))
    expect(answer.ok, JSON.stringify(answer)).toBe(true)
    if (!answer.ok) return
    expect(answer.value.publications.map((p) => [p.branchId, p.ok])).toEqual(entries.map((e) => [e.branchId, true]))
    expect(answer.value.state.admission).toMatchObject({ admittedUnits: 4, threshold: 3 })
    expect(answer.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold', successUnits: 3 })
    expect(answer.value.output).toEqual({ operationId: expect.any(String), approved: true })
    // Each branch's request carried its own manifest input, branch ids as declared.
    expect(seen.get('ann')?.sort()).toEqual([
      ['b1', 'first'],
      ['b2', 'second'],
    ])
    expect(seen.get('bob')).toEqual([['b3', 'third']])
    const byId = Object.fromEntries(answer.value.state.branches.map((b) => [b.branchId, [b.peerId, b.status]]))
    expect(byId).toEqual({ b1: ['ann', 'succeeded'], b2: ['ann', 'succeeded'], b3: ['bob', 'succeeded'], b4: ['cat', 'stopped'] })
    const log = executor.log(answer.value.operationId)
    const plan = planInteraction(interaction)
    if (!log.ok || !plan.ok) throw new Error('no log')
    expect(simulate(plan.value.policy, log.value)).toEqual(answer.value.state)
    await executor.close()
    for (const r of running) await r.close()
  })

  it('branches: first-success, all-successful (fails once impossible), all-terminal and completion none', async () => {
    const entries = [
      { branchId: 'x1', peerId: 'dan', input: 'one' },
      { branchId: 'x2', peerId: 'eve', input: 'two' },
    ]
    const running = await peers(branches, branches.interaction, { dan: false, eve: true })
    const results: Record<string, unknown> = {}
    for (const mode of ['first-success', 'all-successful', 'all-terminal', 'none'] as const) {
      const executor = await executorFor(branches, variant(branches.interaction, { completion: { mode, fraction: undefined, remaining: 'detach' } }))
      const answer = await executor.invoke(await signedInvocation(branches, entries))
      results[mode] = answer.ok ? [answer.value.decision.outcome, answer.value.decision.reason, answer.value.publications.length] : answer.code
      await executor.close()
    }
    expect(results).toEqual({
      'first-success': ['success', 'threshold', 2],
      'all-successful': ['failure', 'impossible', 2],
      'all-terminal': ['success', 'settled', 2],
      none: ['success', 'no-completion', 2],
    })
    for (const r of running) await r.close()
  })

  it('branches: what is refused before anything is published', async () => {
    const executor = await executorFor(branches, branches.interaction)
    const entries = [
      { branchId: 'r1', peerId: 'ann', input: 'a' },
      { branchId: 'r2', peerId: 'bob', input: 'b' },
    ]
    const codes: Record<string, string> = {}
    const attempt = async (name: string, invocation: Awaited<ReturnType<typeof signedInvocation>>) => {
      const r = await executor.invoke(invocation)
      codes[name] = r.ok ? 'ran' : r.code
    }
    // Signed for other entries (a peer swapped), or not signed at all.
    await attempt('tampered', await signedInvocation(branches, [entries[0]!, { ...entries[1]!, peerId: 'cat' }], entries))
    await attempt('unsigned', { principalId: PRINCIPAL, idempotencyKey: `unsigned-${key++}`, inputs: { group: 'approvers', refund, manifest: entries } })
    // Signed for another operation (replayed under a new idempotency key).
    const replayed = await signedInvocation(branches, entries)
    await attempt('replayed', { ...replayed, idempotencyKey: `${replayed.idempotencyKey}-again` })
    // Authentic, but naming a peer outside the authorized audience snapshot.
    await attempt('outsider', await signedInvocation(branches, [...entries, { branchId: 'r3', peerId: 'mallory', input: 'c' }]))
    await attempt('duplicate branch', await signedInvocation(branches, [entries[0]!, { ...entries[1]!, branchId: 'r1' }]))
    await attempt('input breaks its slot', await signedInvocation(branches, [{ ...entries[0]!, input: 7 as unknown as string }]))
    await attempt('empty', await signedInvocation(branches, []))
    await attempt('not an array', { principalId: PRINCIPAL, idempotencyKey: `flat-${key++}`, inputs: { group: 'approvers', refund, manifest: entries[0] } })
    expect(codes).toEqual({
      tampered: 'EXECUTOR_MANIFEST_REFUSED',
      unsigned: 'EXECUTOR_MANIFEST_REFUSED',
      replayed: 'EXECUTOR_MANIFEST_REFUSED',
      outsider: 'EXECUTOR_MANIFEST_REFUSED',
      'duplicate branch': 'EXECUTOR_INVALID_INPUT',
      'input breaks its slot': 'EXECUTOR_INVALID_INPUT',
      empty: 'EXECUTOR_EMPTY_AUDIENCE',
      'not an array': 'EXECUTOR_INVALID_INPUT',
    })
    await executor.close()
    // Without the manifest adapter a manifest mode is refused when the executor is made.
    const bare = createExecutor({
      connection: await conn(),
      module: branches.module,
      interaction: branches.interaction,
      contractDigest: branches.digest,
      deployment,
      adapters: { audience: () => ({ revision: 'r', peers: PEERS }), authorization: () => ({ allowed: true }) },
    })
    expect(bare).toMatchObject({ ok: false, code: 'EXECUTOR_ADAPTER_MISSING' })
  })

  it('branches: a manifest adapter answer that cannot be read fails the invocation; one that never settles is answered at close()', async () => {
    const entries = [{ branchId: 'r1', peerId: 'ann', input: 'a' }]
    const invocation = () => ({ principalId: PRINCIPAL, idempotencyKey: `manifest-answer-${key++}`, inputs: { group: 'approvers', refund, manifest: entries } })
    // Was a defect (fixed): `authenticated` was read outside the adapter's try, so a getter that throws made invoke() reject.
    const trap = await executorFor(branches, branches.interaction, {
      manifest: () =>
        ({
          get authenticated(): boolean {
            throw new Error('trap')
          },
        }) as never,
    })
    const trapped = await bounded('invoke() with a throwing manifest answer', trap.invoke(invocation()), 5000)
    expect(trapped).toMatchObject({ ok: false, code: 'EXECUTOR_ADAPTER_FAILED' })
    await trap.close()
    // Was a defect (fixed): a manifest adapter that never settles held invoke() after close() for good.
    const stuck = await executorFor(branches, branches.interaction, { manifest: () => new Promise<never>(() => undefined) })
    const pending = stuck.invoke(invocation())
    const early = await Promise.race([pending.then(() => 'answered'), new Promise((resolve) => setTimeout(() => resolve('pending'), 300))])
    expect(early).toBe('pending')
    await bounded('close() with a manifest adapter that never settles', stuck.close(), 5000)
    expect(await bounded('invoke() after close()', pending, 5000)).toMatchObject({ ok: false, code: 'EXECUTOR_CLOSED' })
  })

  /** A peer of gathered work, on its own connection: publishes its result for a branch dispatched elsewhere. */
  async function gathered(op: string, ballots: ReadonlyArray<{ branchId: string; peerId: string; approve: boolean; attempt?: number; subjectPeer?: string }>) {
    const nc = await conn()
    for (const b of ballots) {
      const body = { operationId: op, branchId: b.branchId, attempt: b.attempt ?? 1, fence: 0, peerId: b.peerId, approve: b.approve }
      nc.publish(`payments.refunds.${op}.ballot.${b.subjectPeer ?? b.peerId}`, JSON.stringify(body))
    }
    await nc.flush()
  }

  it('none (gather): nothing is published; results of the manifest branches are collected, others refused', async () => {
    const interaction = variant(gather.interaction, {
      completion: { mode: 'quorum', unit: 'distinct-branches', fraction: undefined, count: 2, remaining: 'detach' },
    })
    const executor = await executorFor(gather, interaction)
    const entries = [
      { branchId: 'g1', peerId: 'ann', input: 'a' },
      { branchId: 'g2', peerId: 'bob', input: 'b' },
      { branchId: 'g3', peerId: 'cat', input: 'c' },
    ]
    // Anything published on a request-like subject during the interaction would show here.
    const watcher = await conn()
    const published: string[] = []
    const sub = watcher.subscribe('payments.refunds.>', { callback: (_e, m) => published.push(m.subject) })
    await watcher.flush()
    const invocation = await signedInvocation(gather, entries)
    const op = await operationId(PRINCIPAL, gather.digest, invocation.idempotencyKey)
    const pending = executor.invoke(invocation)
    // Results come once the operation is admitted; a bounded wait for its state to exist.
    for (let i = 0; i < 200 && !executor.state(op).ok; i++) await new Promise((r) => setTimeout(r, 10))
    await gathered(op, [
      { branchId: 'zz', peerId: 'dan', approve: true }, // not a manifest branch
      { branchId: 'g1', peerId: 'ann', approve: true, attempt: 2 }, // not the branch's attempt
      { branchId: 'g1', peerId: 'ann', approve: true },
      { branchId: 'g2', peerId: 'bob', approve: true },
    ])
    const answer = await pending
    sub.unsubscribe()
    expect(answer.ok, JSON.stringify(answer)).toBe(true)
    if (!answer.ok) return
    expect(answer.value.publications).toEqual([])
    expect(answer.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold', successUnits: 2 })
    expect(answer.value.decision.votes.map((v) => [v.branchId, v.attempt])).toEqual([
      ['g1', 1],
      ['g2', 1],
    ])
    // Refusals point into the operation's log: the stranger branch and the wrong attempt.
    const log = executor.log(answer.value.operationId)
    if (!log.ok) throw new Error(log.message)
    const refusedBranches = answer.value.state.refused.map((r) => {
      const event = log.value[r.index]
      return event?.kind === 'result' ? [event.branchId, r.reason] : [event?.kind, r.reason]
    })
    expect(refusedBranches.map(([b]) => b).sort()).toEqual(['g1', 'zz'])
    expect(published.every((s) => s.includes('.ballot.'))).toBe(true)
    await executor.close()
    // Cooperative cancellation of gathered work is refused when the executor is made, never run halfway.
    const cooperative = createExecutor({
      connection: await conn(),
      module: gather.module,
      interaction: variant(gather.interaction, { completion: { remaining: 'cooperative' } }),
      contractDigest: gather.digest,
      deployment,
      adapters: { audience: () => ({ revision: 'r', peers: PEERS }), authorization: () => ({ allowed: true }), manifest: authenticate },
    })
    expect(cooperative).toMatchObject({ ok: false, code: 'EXECUTOR_UNSUPPORTED' })
  })

  it('none (gather): all-terminal, first-success, and a deadline with onTimeout partial', async () => {
    const entries = [
      { branchId: 'h1', peerId: 'ann', input: 'a' },
      { branchId: 'h2', peerId: 'bob', input: 'b' },
    ]
    const outcomes: Record<string, unknown> = {}
    const cases = [
      ['all-terminal', { mode: 'all-terminal' }, [true, false]],
      ['first-success', { mode: 'first-success' }, [false, true]],
      ['partial', { mode: 'all-successful', deadlineMs: 400, onTimeout: 'partial' }, [true]],
    ] as const
    for (const [name, completion, votes] of cases) {
      const executor = await executorFor(
        gather,
        variant(gather.interaction, { completion: { fraction: undefined, remaining: 'detach', ...completion }, delivery: { settlementGraceMs: 50 } }),
      )
      const invocation = await signedInvocation(gather, entries)
      const op = await operationId(PRINCIPAL, gather.digest, invocation.idempotencyKey)
      const pending = executor.invoke(invocation)
      for (let i = 0; i < 200 && !executor.state(op).ok; i++) await new Promise((r) => setTimeout(r, 10))
      await gathered(
        op,
        votes.map((approve, i) => ({ branchId: entries[i]!.branchId, peerId: entries[i]!.peerId, approve })),
      )
      const answer = await pending
      outcomes[name] = answer.ok ? [answer.value.decision.outcome, answer.value.decision.reason, answer.value.decision.votes.length] : answer.code
      await executor.close()
    }
    expect(outcomes).toEqual({
      'all-terminal': ['success', 'settled', 2],
      'first-success': ['success', 'threshold', 2],
      partial: ['partial', 'timeout', 1],
    })
  })

  it('a JetStream request publication: published with the expected stream and the message id; a republication is deduplicated', async () => {
    const jsm = await jetstreamManager(await conn())
    // A one-server test stream with the contract's name and subjects (the contract's replicas are a deployment's).
    await jsm.streams.add({ name: 'VOTES', subjects: ['payments.refunds.*.vote.*'], duplicate_window: 120_000_000_000 })
    const running = await peers(viaStream, viaStream.interaction, { ann: true, bob: true, cat: true, dan: true, eve: true })
    const executor = await executorFor(viaStream, variant(viaStream.interaction, { completion: { remaining: 'detach' } }))
    const answer = await executor.invoke({ principalId: PRINCIPAL, idempotencyKey: `js-${key++}`, inputs: { group: 'approvers', refund } })
    expect(answer.ok, JSON.stringify(answer)).toBe(true)
    if (!answer.ok) return
    expect(answer.value.decision).toMatchObject({ outcome: 'success', successUnits: 4 })
    expect(answer.value.publications.every((p) => p.ok)).toBe(true)
    const info = await jsm.streams.info('VOTES')
    expect(info.state.messages).toBe(5)
    // The stored requests carry the executor's message ids: operation.branch.attempt.
    const js = jsm.jetstream()
    const first = await js.publish(`payments.refunds.${answer.value.operationId}.vote.ann`, '{}', { msgID: `${answer.value.operationId}.ann.1` })
    expect(first.duplicate).toBe(true)
    expect((await jsm.streams.info('VOTES')).state.messages).toBe(5)
    await executor.close()
    // A request subject captured by another stream than the operation names is refused by the server, nothing stored.
    await jsm.streams.delete('VOTES')
    await jsm.streams.add({ name: 'ELSEWHERE', subjects: ['payments.refunds.*.vote.*'] })
    const misdeployed = await executorFor(viaStream, variant(viaStream.interaction, { completion: { mode: 'none', fraction: undefined, remaining: 'detach' } }))
    const refused = await misdeployed.invoke({ principalId: PRINCIPAL, idempotencyKey: `js-${key++}`, inputs: { group: 'approvers', refund } })
    expect(refused.ok && refused.value.publications.map((p) => p.ok)).toEqual([false, false, false, false, false])
    expect((await jsm.streams.info('ELSEWHERE')).state.messages).toBe(0)
    await misdeployed.close()
    for (const r of running) await r.close()
  }, 60_000)
})
