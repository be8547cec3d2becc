/**
 * Outside probe of the interaction executor's TIME (docs/executor.md, "Choices where the profile
 * defers to its runtime semantics": "Clock and simultaneity", "Result verification", "Settlement";
 * the rules in the public declaration of `events`): what time each event takes, when a result is
 * late, when an unsettled adapter answer is cut off, and that a timer is applied only after the
 * messages that arrived before it fired.
 *
 * The oracle (below) is written from the docs alone, apart from the code: seeded scenarios on the
 * shop's refund vote (peers ann, bob and cat answering through the responder helper, and dan, who
 * never runs a responder), each peer a vote after 0-300 ms or a stall, its result's authorization
 * and verifier answering at once, after 10-300 ms, never, or refusing; a completion mode with a
 * deadline, some with cooperative cancellation. The oracle runs each scenario on two timelines (the
 * memory executor's, adapters of several results awaited at once, and the durable executor's, an
 * operation's results handled one at a time) and keeps only scenarios where no event is within
 * 250 ms of a moment it races, on either timeline. Each scenario runs in memory state and in durable
 * state (the payments vote with a durable binding, as test/executor-durable-cancel.test.ts does);
 * both must give the oracle's decision and final branch states, and `simulate(policy, log)` must
 * give each operation's reported state.
 *
 * One nats-server; only 127.0.0.1; every wait bounded; no assertion on durations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { NatsConnection } from '@nats-io/nats-core'
import { operationId, type Interaction } from '../src/runtime/nats/interactions.js'
import {
  createExecutor,
  createResponder,
  planInteraction,
  simulate,
  type Executor,
  type ExecutorAdapters,
  type ExecutorState,
  type Responder,
  type ResponderRequest,
} from '../src/runtime/nats/executor/index.js'
import { bounded } from './helpers/bounded.js'
import { random } from './helpers/seeded-random.js'
import { NATS_SERVER } from './helpers/nats-server.js'
import { deployment, startRig, variant, type Rig, addRefundsStream } from './helpers/executor-nats.js'

// Escapes: nothing an adapter, a responder or a peer's message does may surface as an unhandled rejection or exception.
const escapes: unknown[] = []
process.on('unhandledRejection', (reason) => escapes.push(reason))
process.on('uncaughtException', (error) => escapes.push(error))

const refund = { paymentId: 'pay-12345678', amount: 10 }
const inputs = { group: 'approvers', refund }
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const never = () => new Promise<never>(() => undefined)

/** Polls `probe` every 20 ms, at most `attempts` times; answers whether it held (bounded). */
async function until(probe: () => boolean, attempts = 300): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (probe()) return true
    await sleep(20)
  }
  return probe()
}

function replayed(executor: Executor<any, any>, interaction: Interaction, op: string): { simulated: ExecutorState; state: ExecutorState } {
  const log = executor.log(op)
  const state = executor.state(op)
  const plan = planInteraction(interaction)
  if (!log.ok || !state.ok || !plan.ok) throw new Error(`no log or state for ${op}`)
  return { simulated: simulate(plan.value.policy, log.value), state: state.value }
}

// ---------------------------------------------------------------------------------------------
// The scenarios and the oracle.
// ---------------------------------------------------------------------------------------------

type Peer = 'ann' | 'bob' | 'cat' | 'dan'
const RESPONDING: Peer[] = ['ann', 'bob', 'cat']
/** An adapter's answer: allowed at once (0) or after ms, never settles, or refuses at once. */
type Answer = number | 'never' | 'deny'
interface PeerPlan {
  reply: { approve: boolean; ms: number } | 'stall' | 'absent'
  auth: Answer
  verifier: Answer
  /** The cancel-stage authorization: allowed, at once or after ms. */
  cancelAuthMs: number
}
interface Mode {
  mode: 'first-success' | 'quorum' | 'all-successful' | 'all-terminal'
  onTimeout: 'fail' | 'partial'
  remaining: 'detach' | 'cooperative'
}
interface Scenario {
  name: string
  principalId: string
  idempotencyKey: string
  peers: Partial<Record<Peer, PeerPlan>>
}
interface Expected {
  outcome: string
  reason: string
  successUnits?: number
  branches: Record<string, [string, string]>
  unverified: [number, number]
}

const D = 2000 // the deadline
const C = 500 // the cancel timeout
const G = 1100 // the settlement grace
const MARGIN = 250
const GROUPS: Mode[] = [
  { mode: 'first-success', onTimeout: 'fail', remaining: 'detach' },
  { mode: 'quorum', onTimeout: 'partial', remaining: 'cooperative' },
  { mode: 'all-successful', onTimeout: 'partial', remaining: 'cooperative' },
  { mode: 'all-terminal', onTimeout: 'fail', remaining: 'detach' },
  { mode: 'first-success', onTimeout: 'partial', remaining: 'cooperative' },
]
const QUORUM = 2
const PER_GROUP = 5
const SEED = 23

const fin = (a: Answer): number => (a === 'never' ? Infinity : a === 'deny' ? 0 : a)

/**
 * The oracle, on one timeline (`serial`: the durable executor's, an operation's results handled one
 * at a time; otherwise the memory executor's). Answers the expectation, or why the scenario races.
 *
 * From docs/executor.md and the `events` rules: a result's time is when it arrived; it is admitted
 * when its authorization and verifier have answered (a refusal at result admission revokes the peer:
 * "a refusal there revokes the peer: its open branches become terminal-revoked"; a verifier refusal
 * or an answer "still unsettled at the operation's next due time" is `unverified`, the branch stays
 * open). Units: S successful, O open, U admitted; first-success k = 1, quorum k = count,
 * all-successful k = U: success `threshold` when S >= k, failure `impossible` when S + O < k;
 * all-terminal: success `settled` when every unit is terminal; else `timeout` at the deadline
 * (failure or partial). "With `remaining: cooperative` every open branch gets a CancelRequest when
 * the decision is made ...; `stopped` ends the branch, `already-completed` and `unknown` leave it
 * open (its result may still come), no reply within `cancelTimeoutMs` marks the request timed out."
 * "After the decision ... Results keep being admitted as facts until the deadline." "At `decision
 * time + settlementGraceMs` every branch that is still not terminal is marked indeterminate."
 */
function derive(s: Scenario, m: Mode, serial: boolean): Expected | { races: string } {
  const peers = (Object.keys(s.peers) as Peer[]).sort()
  const U = peers.length
  const k = m.mode === 'first-success' ? 1 : m.mode === 'quorum' ? QUORUM : m.mode === 'all-successful' ? U : null
  // Results: arrival c, done (adapters answered) d, verdict.
  type R = { peer: Peer; c: number; d: number; verdict: 'success' | 'fail' | 'revoked' | 'unverified' }
  const results: R[] = []
  for (const p of peers) {
    const plan = s.peers[p]!
    if (typeof plan.reply !== 'object') continue
    const verdict =
      plan.auth === 'deny'
        ? 'revoked'
        : plan.auth === 'never' || plan.verifier === 'never' || plan.verifier === 'deny'
          ? 'unverified'
          : plan.reply.approve
            ? 'success'
            : 'fail'
    results.push({ peer: p, c: plan.reply.ms, d: 0, verdict })
  }
  results.sort((a, b) => a.c - b.c)
  let free = 0
  for (const r of results) {
    const plan = s.peers[r.peer]!
    const start = serial ? Math.max(r.c, free) : r.c
    r.d = start + fin(plan.auth) + (plan.auth === 'deny' ? 0 : fin(plan.verifier))
    free = r.d
  }
  for (let i = 0; i < results.length; i++) {
    const r = results[i]!
    // A result that never settles comes last, well after every other (a result held behind it is not modelled).
    if (r.d === Infinity && results.some((o) => o !== r && o.c > r.c - MARGIN)) return { races: 'a result held behind one that never settles' }
    if (r.d !== Infinity && r.d > D - 2 * MARGIN) return { races: 'a result near the deadline' }
  }
  // Walk the admitted results in the order they are done; decide.
  const status = new Map<Peer, string>(peers.map((p) => [p, 'open']))
  const ordered = results.filter((r) => r.d !== Infinity).sort((a, b) => a.d - b.d)
  let decision: { outcome: string; reason: string; successUnits?: number; at: number } | null = null
  const evaluate = (at: number) => {
    const S = peers.filter((p) => status.get(p) === 'succeeded').length
    const O = peers.filter((p) => status.get(p) === 'open').length
    if (k === null) {
      if (O === 0) decision = { outcome: 'success', reason: 'settled', successUnits: S, at }
    } else if (S >= k) decision = { outcome: 'success', reason: 'threshold', successUnits: k, at }
    else if (S + O < k) decision = { outcome: 'failure', reason: 'impossible', at }
  }
  let decider: Peer | null = null
  for (const r of ordered) {
    if (decision) break
    decider = r.peer
    if (r.verdict === 'success') status.set(r.peer, 'succeeded')
    else if (r.verdict === 'fail') status.set(r.peer, 'unsuccessful')
    else if (r.verdict === 'revoked') status.set(r.peer, 'revoked')
    evaluate(r.d)
  }
  const S = peers.filter((p) => status.get(p) === 'succeeded').length
  const made = (decision ?? { outcome: m.onTimeout === 'fail' ? 'failure' : 'partial', reason: 'timeout', successUnits: S, at: D }) as {
    outcome: string
    reason: string
    successUnits?: number
    at: number
  }
  const Td = made.at
  // Margins: every other result's arrival and completion far from the decision.
  for (const r of results) {
    if (decision && r.peer === decider) continue
    if (Math.abs(r.c - Td) < MARGIN || (r.d !== Infinity && Math.abs(r.d - Td) < MARGIN)) return { races: `${r.peer} near the decision` }
  }
  const cancel = new Map<Peer, string>(peers.map((p) => [p, 'none']))
  let unverified = 0
  let denied = 0
  for (const p of peers) {
    const plan = s.peers[p]!
    const r = results.find((x) => x.peer === p)
    const open = status.get(p) === 'open'
    if (m.remaining === 'cooperative' && open) {
      const q = Td + plan.cancelAuthMs
      if (plan.reply === 'stall') {
        cancel.set(p, 'stopped')
        status.set(p, 'stopped')
        continue
      }
      if (plan.reply === 'absent') {
        cancel.set(p, 'timed-out')
        status.set(p, 'indeterminate')
        continue
      }
      if (Math.abs(r!.c - q) < MARGIN) return { races: `${p}'s reply near its cancel request` }
      if (r!.c > q) {
        // Still running when asked to stop: stopped, no result published.
        cancel.set(p, 'stopped')
        status.set(p, 'stopped')
        continue
      }
      cancel.set(p, 'already-completed')
    }
    if (!open) {
      if (r?.verdict === 'unverified') unverified++
      continue
    }
    // Open after the decision: its result (if any) is admitted as a fact (before the deadline), or refused.
    if (r && r.verdict !== 'unverified' && r.d !== Infinity) {
      if (Math.abs(r.d - (Td + G)) < MARGIN) return { races: `${p}'s result near the settlement end` }
      if (r.d > Td + G) return { races: `${p}'s result after the settlement end` }
      status.set(p, r.verdict === 'success' ? 'succeeded' : r.verdict === 'fail' ? 'unsuccessful' : 'revoked')
      continue
    }
    if (r?.verdict === 'unverified') unverified++
    status.set(p, 'indeterminate')
  }
  for (const p of peers) if (s.peers[p]!.auth === 'deny' && typeof s.peers[p]!.reply === 'object') denied++
  return {
    outcome: made.outcome,
    reason: made.reason,
    ...(made.reason === 'impossible' ? {} : { successUnits: made.successUnits }),
    branches: Object.fromEntries(peers.map((p) => [p, [status.get(p)!, cancel.get(p)!]])),
    unverified: [unverified, unverified + denied],
  }
}

function scenarios(group: number): Array<{ s: Scenario; expected: Expected }> {
  const m = GROUPS[group]!
  const rnd = random(SEED * 100 + group)
  const pick = <T>(values: readonly T[], weights: number[]): T => {
    let r = rnd() * weights.reduce((a, b) => a + b, 0)
    for (let i = 0; i < values.length; i++) if ((r -= weights[i]!) < 0) return values[i]!
    return values[values.length - 1]!
  }
  const ms = () => 10 + Math.floor(rnd() * 291)
  const out: Array<{ s: Scenario; expected: Expected }> = []
  for (let tries = 0; out.length < PER_GROUP && tries < 5000; tries++) {
    const peers: Partial<Record<Peer, PeerPlan>> = {}
    for (const p of RESPONDING) {
      const kind = pick(['vote', 'stall'] as const, [5, 1])
      const auth: Answer = pick<Answer>([0, ms(), 'never', 'deny'], [6, 2, 1, 1])
      // A verifier refusal or wait only where the result's authorization allows (the docs do not order the two).
      const verifier: Answer = typeof auth === 'number' ? pick<Answer>([0, ms(), 'never', 'deny'], [6, 2, 1, 1]) : pick<Answer>([0, ms()], [1, 1])
      peers[p] = {
        reply: kind === 'stall' ? 'stall' : { approve: rnd() < 0.7, ms: pick([0, ms()], [2, 1]) },
        auth,
        verifier,
        cancelAuthMs: pick([0, ms()], [1, 1]),
      }
    }
    if (rnd() < 0.3) peers.dan = { reply: 'absent', auth: 0, verifier: 0, cancelAuthMs: 0 }
    const i = out.length
    const s: Scenario = { name: `seed ${SEED} group ${group} #${i}`, principalId: `t${group}s${i}`, idempotencyKey: `timing-${group}-${i}-${tries}`, peers }
    const a = derive(s, m, false)
    const b = derive(s, m, true)
    if ('races' in a || 'races' in b) continue
    if (JSON.stringify(a) !== JSON.stringify(b)) continue
    out.push({ s, expected: a })
  }
  if (out.length < PER_GROUP) throw new Error(`only ${out.length} scenarios for group ${group}`)
  return out
}

function descriptor(base: Interaction, m: Mode, state: 'memory' | 'durable'): Interaction {
  return variant(base, {
    completion: {
      mode: m.mode,
      unit: 'distinct-peers',
      onTimeout: m.onTimeout,
      deadlineMs: D,
      remaining: m.remaining,
      waitFor: 'settled',
      cancelTimeoutMs: C,
      fraction: undefined,
      count: m.mode === 'quorum' ? QUORUM : undefined,
    },
    delivery: {
      settlementGraceMs: G,
      ...(state === 'durable' ? { mode: 'durable-per-recipient', state: 'durable', restart: 'resume' } : {}),
    },
  })
}

/** The application's adapters, answering per operation as its scenario (or a hostile test) says. */
function adapters(
  plans: Map<string, Partial<Record<Peer | string, PeerPlan>>>,
  verifierOverride?: (data: any) => unknown,
): Partial<ExecutorAdapters<any, any>> {
  const answer = (a: Answer) =>
    a === 'never' ? never() : a === 'deny' ? { allowed: false } : a === 0 ? { allowed: true } : sleep(a).then(() => ({ allowed: true }))
  return {
    audience: ({ context }) => ({ revision: 'r7', peers: Object.keys(plans.get(context.operationId) ?? {}) }),
    authorization: ({ context, data }) => {
      const plan = plans.get(context.operationId)?.[data.peerId!]
      if (!plan) return { allowed: true }
      if (data.stage === 'result') return answer(plan.auth)
      if (data.stage === 'cancel') return answer(plan.cancelAuthMs)
      return { allowed: true }
    },
    verifier: ({ context, data }) => {
      if (verifierOverride) return verifierOverride(data) as never
      const plan = plans.get(context.operationId)?.[(data as { peerId: string }).peerId]
      return plan ? (answer(plan.verifier) as never) : { allowed: true }
    },
  }
}

/** The responders' handler: the operation's plan for this peer (a vote after its delay, or a stall until aborted). */
const handler =
  (peer: Peer, plans: Map<string, Partial<Record<string, PeerPlan>>>) =>
  async ({ operationId: op, signal }: ResponderRequest<unknown>): Promise<{ approve: boolean } | undefined> => {
    const plan = plans.get(op)?.[peer]
    if (!plan) return undefined
    if (plan.reply === 'stall' || plan.reply === 'absent') {
      await Promise.race([sleep(D + G + 2000), new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))])
      return undefined
    }
    if (plan.reply.ms === 0) return { approve: plan.reply.approve }
    await Promise.race([sleep(plan.reply.ms), new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))])
    return signal.aborted ? undefined : { approve: plan.reply.approve }
  }

interface Got {
  outcome?: string
  reason?: string
  successUnits?: number
  code?: string
  branches?: Record<string, [string, string]>
  unverified?: number
}
interface Run {
  name: string
  expected: Expected
  got: Got
  replays: boolean
}

const runs: Record<'memory' | 'durable', Run[]> = { memory: [], durable: [] }
const DURABLE = { requestStream: 'REFUNDS', resultStream: 'REFUNDS', stateBucket: 'timing_state', ackWaitMs: 1000 }

describe.skipIf(!NATS_SERVER)('probe: time in the executor (the payments refund vote, memory and durable state)', () => {
  let rig: Rig
  const plans = new Map<string, Partial<Record<string, PeerPlan>>>()
  const byGroup: Array<Array<{ s: Scenario; expected: Expected; id: string }>> = []
  const responders: Responder[] = []
  beforeAll(async () => {
    rig = await startRig('probe-exec-timing')
    for (let g = 0; g < GROUPS.length; g++) {
      const list = []
      for (const { s, expected } of scenarios(g)) {
        for (const state of ['memory', 'durable']) {
          const id = await operationId(s.principalId + state, rig.digest, s.idempotencyKey)
          plans.set(id, s.peers)
        }
        list.push({ s, expected, id: '' })
      }
      byGroup.push(list)
    }
  }, 60_000)
  afterAll(async () => {
    for (const r of responders) await bounded('responder close()', r.close(), 5000)
    await rig?.stop()
  })

  async function startResponders(state: 'memory' | 'durable'): Promise<Responder[]> {
    const made: Responder[] = []
    for (const peer of RESPONDING) {
      const r = await createResponder<unknown, { approve: boolean }>({
        connection: await rig.connection(),
        module: rig.module,
        interaction: descriptor(rig.approve, GROUPS[1]!, state),
        peerId: peer,
        ...(state === 'durable' ? { durable: { requestStream: 'REFUNDS', ackWaitMs: 1000 } } : {}),
        handler: handler(peer, plans),
      })
      if (!r.ok) throw new Error(r.message)
      made.push(r.value)
      responders.push(r.value)
    }
    return made
  }

  function executorFor(
    interaction: Interaction,
    state: 'memory' | 'durable',
    connection: NatsConnection,
    extra: Partial<ExecutorAdapters<any, any>> = {},
  ): Executor<any> {
    const made = createExecutor<any, any>({
      connection,
      module: rig.module,
      interaction,
      contractDigest: rig.digest,
      deployment,
      ...(state === 'durable' ? { durable: DURABLE } : {}),
      adapters: {
        ...adapters(plans),
        aggregation: ({ context, data }: { context: { operationId: string }; data: Array<{ approve: boolean }> }) => ({
          operationId: context.operationId,
          approved: data.some((b) => b.approve),
        }),
        ...extra,
      } as ExecutorAdapters<any, any>,
    })
    if (!made.ok) throw new Error(made.message)
    return made.value
  }

  async function runGroup(state: 'memory' | 'durable', g: number): Promise<void> {
    const m = GROUPS[g]!
    const interaction = descriptor(rig.approve, m, state)
    const executor = executorFor(interaction, state, await rig.connection())
    const list = byGroup[g]!
    try {
      const answers = await bounded(
        `${state} group ${g}`,
        Promise.all(list.map(({ s }) => executor.invoke({ principalId: s.principalId + state, idempotencyKey: s.idempotencyKey, inputs }))),
        D + G + 10_000,
      )
      list.forEach(({ s, expected }, i) => {
        const answer = answers[i]!
        if (!answer.ok) {
          runs[state].push({ name: s.name, expected, got: { code: answer.code }, replays: true })
          return
        }
        const { simulated, state: now } = replayed(executor, interaction, answer.value.operationId)
        const d = answer.value.decision
        runs[state].push({
          name: s.name,
          expected,
          got: {
            outcome: d.outcome,
            reason: d.reason,
            ...(d.reason === 'impossible' ? {} : { successUnits: d.successUnits }),
            branches: Object.fromEntries([...now.branches].sort((a, b) => (a.branchId < b.branchId ? -1 : 1)).map((b) => [b.branchId, [b.status, b.cancel]])),
            unverified: now.refused.filter((r) => r.reason === 'unverified').length,
          },
          replays: JSON.stringify(simulated) === JSON.stringify(now),
        })
      })
    } finally {
      await bounded('close()', executor.close(), 5000)
    }
  }

  const wrong = (state: 'memory' | 'durable') =>
    runs[state]
      .filter((r) => {
        const { unverified, ...expected } = r.expected
        const { unverified: got, ...rest } = r.got
        return JSON.stringify(expected) !== JSON.stringify(rest) || got === undefined || got < unverified[0] || got > unverified[1]
      })
      .map((r) => ({ name: r.name, expected: r.expected, got: r.got, peers: byGroup.flat().find((x) => x.s.name === r.name)?.s.peers }))

  it('Holds (pinned): memory state: every scenario decides, and leaves each branch, as the oracle derives from the docs; each log replays', async () => {
    // docs/executor.md "Result verification": "A result's time, and a CancelResult's, is when it arrived,
    // and a timer (the deadline, the cancel timeout, a claim's lease) is applied only after the messages
    // that arrived before it fired"; "one whose verifier (or authorization) answer is still unsettled at
    // the operation's next due time ... is refused as unverified"; "Settlement" and "After the decision"
    // (see derive()). "`simulate(policy, log)` gives the executor's own state".
    const list = await startResponders('memory')
    try {
      await Promise.all(GROUPS.map((_, g) => runGroup('memory', g)))
    } finally {
      for (const r of list) await bounded('responder close()', r.close(), 5000)
    }
    expect(wrong('memory')).toEqual([])
    expect(runs.memory.filter((r) => !r.replays).map((r) => r.name)).toEqual([])
    expect(runs.memory).toHaveLength(GROUPS.length * PER_GROUP)
    // The oracle's scenarios are not all alike: several reasons, several final branch states.
    expect(new Set(runs.memory.map((r) => r.expected.reason)).size).toBeGreaterThanOrEqual(3)
    expect(new Set(runs.memory.flatMap((r) => Object.values(r.expected.branches).map((b) => b.join('/')))).size).toBeGreaterThanOrEqual(6)
    if (process.env.DEBUG_TIMING) for (const r of runs.memory) console.log(r.name, JSON.stringify(r.expected))
  }, 30_000)

  describe('durable state', () => {
    let durableResponders: Responder[] = []
    beforeAll(async () => {
      await addRefundsStream(await rig.connection())
      durableResponders = await startResponders('durable')
    }, 30_000)
    afterAll(async () => {
      for (const r of durableResponders) await bounded('responder close()', r.close(), 5000)
    })

    it('Holds (pinned): durable state: every scenario decides, and leaves each branch, as the oracle derives and as memory state did; each log replays', async () => {
      // Same promises as memory state, and: "In durable state an operation's results are handled one at a
      // time, each held by the executor until the one before it is done; a timer that fires meanwhile
      // waits for the held ones that came before it." (the oracle's serial timeline).
      // One durable executor at a time (they share the interaction's result consumer).
      for (let g = 0; g < GROUPS.length; g++) await runGroup('durable', g)
      expect(wrong('durable')).toEqual([])
      expect(runs.durable.filter((r) => !r.replays).map((r) => r.name)).toEqual([])
      const memory = new Map(runs.memory.map((r) => [r.name, r.got]))
      const differ = runs.durable.filter((r) => {
        const { unverified: _a, ...d } = r.got
        const { unverified: _b, ...mm } = memory.get(r.name) ?? {}
        return JSON.stringify(d) !== JSON.stringify(mm)
      })
      expect(differ.map((r) => ({ name: r.name, durable: r.got, memory: memory.get(r.name) }))).toEqual([])
    }, 45_000)

    HOSTILE('durable', () => rig, plans, DURABLE)
  })

  HOSTILE('memory', () => rig, plans)
})

/** The hostile part, in one state. */
function HOSTILE(state: 'memory' | 'durable', getRig: () => Rig, plans: Map<string, Partial<Record<string, PeerPlan>>>, durable?: typeof DURABLE): void {
  let n = 0
  const key = () => `hostile-${state}-${n++}`
  const make = async (interaction: Interaction, extra: Partial<ExecutorAdapters<any, any>>): Promise<Executor<any>> => {
    const rig = getRig()
    const made = createExecutor<any, any>({
      connection: await rig.connection(),
      module: rig.module,
      interaction,
      contractDigest: rig.digest,
      deployment,
      ...(durable ? { durable } : {}),
      adapters: {
        audience: () => ({ revision: 'r7', peers: [] }),
        authorization: () => ({ allowed: true }),
        verifier: () => ({ allowed: true }),
        aggregation: ({ context, data }: { context: { operationId: string }; data: Array<{ approve: boolean }> }) => ({
          operationId: context.operationId,
          approved: data.some((b) => b.approve),
        }),
        ...extra,
      } as ExecutorAdapters<any, any>,
    })
    if (!made.ok) throw new Error(made.message)
    return made.value
  }
  const delivery = durable ? { mode: 'durable-per-recipient', state: 'durable', restart: 'resume', settlementGraceMs: 1500 } : { settlementGraceMs: 1500 }

  it(`Holds (pinned): ${state}: a flood of 250 results (replays, stale, unknown, forged, unreadable) right after a peer's in-time ballot whose verifier is slow: the ballot counts, the decision is the threshold's, the log stays bounded and replays`, async () => {
    // docs/executor.md "Result verification": "A result's time ... is when it arrived, and a timer (the
    // deadline ...) is applied only after the messages that arrived before it fired"; "What a peer's
    // messages can grow": "the live executors (memory and durable) log only what changed the state, the
    // first 8 refusals of each reason ... every other refusal ... is logged as a clock move only", "`simulate`
    // over the log gives the same state". ann (no responder: a raw peer) and eve vote; eve's ballot is
    // sent 900 ms before the deadline with 250 junk messages right behind it, every eve-bodied result's
    // verifier takes 300 ms. A quorum of 2: ann's and eve's ballots decide before the deadline.
    const rig = getRig()
    const DL = 2000
    const interaction = variant(rig.approve, {
      completion: { mode: 'quorum', count: 2, fraction: undefined, deadlineMs: DL, remaining: 'detach', waitFor: 'decision', onTimeout: 'fail' },
      delivery,
    })
    const raw = await rig.connection()
    const valid = (id: string, peer: string, fence: number, attempt: number) => ({
      operationId: id,
      branchId: peer,
      attempt,
      fence,
      peerId: peer,
      approve: true,
    })
    const subs = [
      raw.subscribe('payments.refunds.*.vote.ann', {
        callback: (_e, msg) => {
          const r = msg.json<{ operationId: string; attempt: number; fence: number }>()
          raw.publish(`payments.refunds.${r.operationId}.ballot.ann`, JSON.stringify(valid(r.operationId, 'ann', r.fence, r.attempt)))
        },
      }),
      raw.subscribe('payments.refunds.*.vote.eve', {
        callback: (_e, msg) => {
          const r = msg.json<{ operationId: string; attempt: number; fence: number }>()
          void (async () => {
            await sleep(DL - 900)
            const id = r.operationId
            const eve = `payments.refunds.${id}.ballot.eve`
            raw.publish(eve, JSON.stringify(valid(id, 'eve', r.fence, r.attempt)))
            for (let i = 0; i < 50; i++) raw.publish(eve, JSON.stringify(valid(id, 'eve', r.fence, r.attempt)))
            for (let i = 0; i < 40; i++) raw.publish(eve, JSON.stringify(valid(id, 'eve', r.fence + 1 + i, r.attempt)))
            for (let i = 0; i < 40; i++) raw.publish(eve, JSON.stringify(valid(id, 'eve', r.fence, r.attempt + 1 + i)))
            for (let i = 0; i < 30; i++) raw.publish(eve, JSON.stringify({ ...valid(id, 'eve', r.fence, r.attempt), branchId: `zz${i}` }))
            for (let i = 0; i < 30; i++) raw.publish(eve, JSON.stringify({ ...valid(id, 'eve', r.fence, r.attempt), peerId: 'fay', branchId: 'fay' }))
            for (let i = 0; i < 30; i++)
              raw.publish(eve, i % 2 ? '{"operationId":' : JSON.stringify({ ...valid(id, 'eve', r.fence, r.attempt), approve: 'yes' }))
            for (let i = 0; i < 30; i++) raw.publish(`payments.refunds.${id}.ballot.fay`, JSON.stringify(valid(id, 'fay', r.fence + 7 + i, r.attempt)))
            await raw.flush()
          })().catch((e) => escapes.push(e))
        },
      }),
    ]
    await raw.flush()
    let verifierCalls = 0
    const executor = await make(interaction, {
      audience: () => ({ revision: 'r7', peers: ['ann', 'eve', 'fay'] }),
      verifier: ({ data }) => {
        verifierCalls++
        return (data as { peerId: string }).peerId === 'eve' ? sleep(300).then(() => ({ allowed: true })) : { allowed: true }
      },
    })
    try {
      const answer = await bounded('invoke() under the flood', executor.invoke({ principalId: 'alice', idempotencyKey: key(), inputs }), DL + 10_000)
      if (!answer.ok) throw new Error(answer.message)
      expect(answer.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold', successUnits: 2 })
      expect(answer.value.decision.votes.map((v) => v.peerId).sort()).toEqual(['ann', 'eve'])
      const op = answer.value.operationId
      // The flood is handled (or cut off) by the deadline: wait past it, then the log replays and is bounded.
      const admission = answer.value.state.admission
      if (admission.status !== 'admitted') throw new Error('not admitted')
      await sleep(Math.max(0, admission.deadlineMs - Date.now()) + 400)
      const { simulated, state: now } = replayed(executor, interaction, op)
      expect(simulated).toEqual(now)
      const counts = new Map<string, number>()
      for (const r of now.refused) counts.set(r.reason, (counts.get(r.reason) ?? 0) + 1)
      for (const [reason, count] of counts) expect({ reason, count: Math.min(count, 8) }).toEqual({ reason, count })
      const log = executor.log(op)
      const changed = log.ok ? log.value.filter((e) => e.kind !== 'tick').length : Infinity
      // 3 + B x (2A + 2) + P with B = P = 3, A = 1, plus at most 104 refusals.
      expect(changed).toBeLessThanOrEqual(3 + 3 * 4 + 3 + 104)
      expect(verifierCalls).toBeGreaterThan(0)
    } finally {
      for (const s of subs) s.unsubscribe()
      await bounded('close() after the flood', executor.close(), 5000)
    }
  }, 20_000)

  for (const order of ['ballot-then-stopped', 'stopped-then-ballot', 'ballot-only'] as const) {
    const title =
      order === 'ballot-only'
        ? `Was a defect (fixed): ${state}: a peer asked to stop sends its ballot and never answers the cancel: its request becomes \`timed-out\` at the cancel timeout, though the ballot ended its branch`
        : order === 'ballot-then-stopped'
          ? `Was a defect (fixed): ${state}: a peer asked to stop sends its ballot, then (300 ms later, within the cancel timeout) \`stopped\`: the reply is never applied and the cancel stays \`requested\` for good, past its timeout`
          : `Holds (pinned): ${state}: a peer asked to stop answers \`stopped\`, then (300 ms later) sends its ballot: the branch is stopped, the ballot changes nothing`
    it(
      title,
      async () => {
        // events rules: "After the decision, results keep being admitted as branch facts ... until the
        // deadline"; "A \`cancel-answered\` event is applied only to a branch whose cancel is \`requested\`, for
        // that attempt and fence, before \`requestedAtMs + cancelTimeoutMs\` ...: the cancel state becomes the
        // reply; \`stopped\` makes a non-terminal branch \`stopped\`"; "At the cancel timeout a request still
        // \`requested\` becomes \`timed-out\` (whatever the branch's status)". docs/executor.md "Settlement":
        // "\`stopped\` ends the branch ..., no reply within \`cancelTimeoutMs\` marks the request timed out";
        // "Result verification": "A result's time, and a CancelResult's, is when it arrived".
        //
        // ballot then stopped -- Was a defect (fixed): eve's ballot is admitted (a fact after the decision: her branch
        // succeeded), which settles the operation (every branch terminal); her \`stopped\`, arriving 300 ms
        // later and 0.7 s before the cancel timeout, is never applied: state().branches eve stays
        // [succeeded, requested], the log ends at her ballot, and even past the cancel timeout the request
        // is not marked \`timed-out\`. Expected [succeeded, stopped]. The same in memory and durable state.
        //
        // stopped then ballot -- Holds (pinned): [stopped, stopped]; her ballot is not admitted (the branch
        // is not open). Not asserted: that the refused ballot shows in \`refused\` or \`refusalsOmitted\` (it
        // shows in neither: the operation is settled before it comes).
        const rig = getRig()
        const interaction = variant(rig.approve, {
          completion: {
            mode: 'quorum',
            count: 2,
            fraction: undefined,
            deadlineMs: 10_000,
            remaining: 'cooperative',
            waitFor: 'decision',
            cancelTimeoutMs: 1000,
          },
          delivery,
        })
        const raw = await rig.connection()
        const vote = (id: string, peer: string, r: { attempt: number; fence: number }) =>
          JSON.stringify({ operationId: id, branchId: peer, attempt: r.attempt, fence: r.fence, peerId: peer, approve: true })
        const subs = ['ann', 'bob'].map((peer) =>
          raw.subscribe(`payments.refunds.*.vote.${peer}`, {
            callback: (_e, msg) => {
              const r = msg.json<{ operationId: string; attempt: number; fence: number }>()
              raw.publish(`payments.refunds.${r.operationId}.ballot.${peer}`, vote(r.operationId, peer, r))
            },
          }),
        )
        let sent = 0
        subs.push(
          raw.subscribe('payments.refunds.*.cancel.eve', {
            callback: (_e, msg) => {
              const r = msg.json<{ operationId: string; attempt: number; fence: number }>()
              const id = r.operationId
              const ballot = () => raw.publish(`payments.refunds.${id}.ballot.eve`, vote(id, 'eve', r))
              const stopped = () =>
                raw.publish(`payments.refunds.${id}.cancelled.eve`, JSON.stringify({ operationId: id, branchId: 'eve', outcome: 'stopped' }))
              void (async () => {
                ;(order === 'stopped-then-ballot' ? stopped : ballot)()
                await raw.flush()
                await sleep(300)
                if (order !== 'ballot-only') (order === 'ballot-then-stopped' ? stopped : ballot)()
                await raw.flush()
                sent = Date.now()
              })().catch((e) => escapes.push(e))
            },
          }),
        )
        await raw.flush()
        const executor = await make(interaction, { audience: () => ({ revision: 'r7', peers: ['ann', 'bob', 'eve'] }) })
        try {
          const answer = await bounded('invoke()', executor.invoke({ principalId: 'alice', idempotencyKey: key(), inputs }), 10_000)
          if (!answer.ok) throw new Error(answer.message)
          expect(answer.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold', successUnits: 2 })
          const op = answer.value.operationId
          const eve = () => {
            const s = executor.state(op)
            return s.ok ? s.value.branches.find((b) => b.branchId === 'eve') : undefined
          }
          // Both of eve's messages sent; then until her cancel state moves, at most past the cancel timeout (bounded).
          expect(await until(() => sent > 0)).toBe(true)
          await until(() => eve()?.cancel !== 'requested' && eve()?.status !== 'open', 75)
          expect([eve()?.status, eve()?.cancel]).toEqual(
            order === 'ballot-then-stopped' ? ['succeeded', 'stopped'] : order === 'ballot-only' ? ['succeeded', 'timed-out'] : ['stopped', 'stopped'],
          )
          const s = executor.state(op)
          expect(s.ok && s.value.votes.map((v) => v.peerId)).toEqual(order === 'stopped-then-ballot' ? ['ann', 'bob'] : ['ann', 'bob', 'eve'])
          const { simulated, state: now } = replayed(executor, interaction, op)
          expect(simulated).toEqual(now)
        } finally {
          for (const s of subs) s.unsubscribe()
          await bounded('close()', executor.close(), 5000)
        }
      },
      20_000,
    )
  }

  it(`Was a defect (fixed): ${state}: a result that came 400 ms after another peer's (whose authorization never settles), with a verifier answering 100 ms after it is asked, is refused unverified at the deadline instead of deciding`, async () => {
    // docs/executor.md "Result verification": "A result's time, and a CancelResult's, is when it arrived,
    // and a timer (the deadline, the cancel timeout, a claim's lease) is applied only after the messages
    // that arrived before it fired: one peer's answer still awaited makes no other peer's result or
    // cancel answer late. In durable state an operation's results are handled one at a time, each held
    // by the executor until the one before it is done; a timer that fires meanwhile waits for the held
    // ones that came before it." and "... in memory and durable state alike".
    // first-success among hal and ida (raw peers): hal approves at once, his result's authorization
    // never settles (cut off at the deadline, unverified); ida approves 400 ms later, her authorization
    // answers at once and her verifier 100 ms after it is asked.
    // Was a defect (fixed) (memory and durable state alike): ida's result, held behind hal's until hal's is cut off at
    // the deadline, is refused unverified too (the log: hal's result and ida's, both `verified: false`,
    // then the deadline's tick): the operation times out (failure/timeout, no vote). Expected
    // success/threshold with ida's vote, long before the deadline: hal's awaited answer made ida's
    // in-time result count for nothing. (With a verifier that answers at once, ida's result is admitted:
    // test/executor-adapter-waits.test.ts; one that takes 100 ms is not.)
    const rig = getRig()
    const DL = 1800
    const interaction = variant(rig.approve, {
      completion: { mode: 'first-success', fraction: undefined, deadlineMs: DL, remaining: 'detach', waitFor: 'decision', onTimeout: 'fail' },
      delivery,
    })
    const raw = await rig.connection()
    const subs = (['hal', 'ida'] as const).map((peer) =>
      raw.subscribe(`payments.refunds.*.vote.${peer}`, {
        callback: (_e, msg) => {
          const r = msg.json<{ operationId: string; attempt: number; fence: number }>()
          const ballot = JSON.stringify({ operationId: r.operationId, branchId: peer, attempt: r.attempt, fence: r.fence, peerId: peer, approve: true })
          void (async () => {
            if (peer === 'ida') await sleep(400)
            raw.publish(`payments.refunds.${r.operationId}.ballot.${peer}`, ballot)
            await raw.flush()
          })().catch((e) => escapes.push(e))
        },
      }),
    )
    await raw.flush()
    let idaAsked = 0
    const executor = await make(interaction, {
      audience: () => ({ revision: 'r7', peers: ['hal', 'ida'] }),
      authorization: ({ data }) => (data.stage === 'result' && data.peerId === 'hal' ? never() : { allowed: true }),
      verifier: ({ data }) => {
        if ((data as { peerId: string }).peerId !== 'ida') return { allowed: true }
        idaAsked = Date.now()
        return sleep(100).then(() => ({ allowed: true }))
      },
    })
    try {
      const answer = await bounded('invoke()', executor.invoke({ principalId: 'alice', idempotencyKey: key(), inputs }), DL + 10_000)
      if (!answer.ok) throw new Error(answer.message)
      const { simulated, state: now } = replayed(executor, interaction, answer.value.operationId)
      expect(simulated).toEqual(now)
      const admission = now.admission
      const deadline = admission.status === 'admitted' ? admission.deadlineMs : NaN
      expect({
        ...answer.value.decision,
        atMs: 0,
        votes: answer.value.decision.votes.map((v) => v.peerId),
        idaVerifierAsked: idaAsked === 0 ? 'never' : idaAsked < deadline ? 'before the deadline' : 'at or after the deadline',
      }).toEqual({
        idaVerifierAsked: 'before the deadline',
        outcome: 'success',
        reason: 'threshold',
        atMs: 0,
        votes: ['ida'],
        successUnits: 1,
      })
    } finally {
      for (const sub of subs) sub.unsubscribe()
      await bounded('close()', executor.close(), 5000)
    }
  }, 20_000)

  if (state === 'memory') {
    it('Holds (pinned): memory: close() while the cancel timeout and the settlement end are due: the decision stays, open branches become indeterminate, nothing changes after', async () => {
      // docs/executor.md "Memory state and restart": "closing the executor mid-interaction (or losing it)
      // decides every undecided operation `indeterminate` (reason `lost`) and marks every open branch
      // indeterminate"; the events rules: "`lost` ...: decided or not, every non-terminal branch becomes
      // `indeterminate` at once".
      const rig = getRig()
      const interaction = variant(rig.approve, {
        completion: { mode: 'quorum', count: 2, fraction: undefined, deadlineMs: 6000, remaining: 'cooperative', waitFor: 'decision', cancelTimeoutMs: 800 },
        delivery: { settlementGraceMs: 1200 },
      })
      const id = await operationId('alice', rig.digest, `close-due-${state}`)
      plans.set(id, {
        ann: { reply: { approve: true, ms: 0 }, auth: 0, verifier: 0, cancelAuthMs: 0 },
        bob: { reply: { approve: true, ms: 0 }, auth: 0, verifier: 0, cancelAuthMs: 0 },
        dan: { reply: 'absent', auth: 0, verifier: 0, cancelAuthMs: 0 },
      })
      const peers: Responder[] = []
      for (const peer of ['ann', 'bob'] as const) {
        const r = await createResponder<unknown, { approve: boolean }>({
          connection: await rig.connection(),
          module: rig.module,
          interaction,
          peerId: peer,
          handler: handler(peer, plans),
        })
        if (!r.ok) throw new Error(r.message)
        peers.push(r.value)
      }
      const executor = await make(interaction, adapters(plans))
      try {
        const answer = await bounded('invoke()', executor.invoke({ principalId: 'alice', idempotencyKey: `close-due-${state}`, inputs }), 10_000)
        if (!answer.ok) throw new Error(answer.message)
        expect(answer.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold' })
        await bounded('close() with timers due', executor.close(), 5000)
        const after = executor.state(id)
        if (!after.ok) throw new Error(after.code)
        expect(after.value.decision).toEqual(answer.value.decision)
        const dan = after.value.branches.find((b) => b.branchId === 'dan')
        expect(dan?.status).toBe('indeterminate')
        // Past the cancel timeout and the settlement end: nothing more is applied.
        await sleep(1500)
        const later = executor.state(id)
        expect(later.ok && later.value).toEqual(after.value)
        const { simulated, state: now } = replayed(executor, interaction, id)
        expect(simulated).toEqual(now)
      } finally {
        await bounded('close()', executor.close(), 5000)
        for (const p of peers) await bounded('responder close()', p.close(), 5000)
      }
    }, 20_000)

    it("Holds (pinned): memory: close() while a result's verifier is awaited and the deadline is near: the invocation answers lost, the verdict that comes after changes nothing", async () => {
      // docs/executor.md "Result verification": a result whose verifier "answer is still unsettled ...
      // when the executor stops driving the operation" is refused as unverified; "Memory state and restart".
      const rig = getRig()
      const interaction = variant(rig.approve, {
        completion: { mode: 'first-success', fraction: undefined, deadlineMs: 1500, remaining: 'detach', waitFor: 'decision' },
        delivery: { settlementGraceMs: 500 },
      })
      let release!: (v: { allowed: boolean }) => void
      const gate = new Promise<{ allowed: boolean }>((resolve) => (release = resolve))
      let asked = false
      const raw = await rig.connection()
      const sub = raw.subscribe('payments.refunds.*.vote.gus', {
        callback: (_e, msg) => {
          const r = msg.json<{ operationId: string; attempt: number; fence: number }>()
          raw.publish(
            `payments.refunds.${r.operationId}.ballot.gus`,
            JSON.stringify({ operationId: r.operationId, branchId: 'gus', attempt: r.attempt, fence: r.fence, peerId: 'gus', approve: true }),
          )
        },
      })
      await raw.flush()
      const executor = await make(interaction, {
        audience: () => ({ revision: 'r7', peers: ['gus'] }),
        verifier: () => {
          asked = true
          return gate
        },
      })
      try {
        const answered = executor.invoke({ principalId: 'alice', idempotencyKey: key(), inputs })
        expect(await until(() => asked)).toBe(true)
        await bounded('close() while a verifier is awaited', executor.close(), 5000)
        const answer = await bounded('invoke() after close()', answered, 5000)
        const op = answer.ok ? answer.value.operationId : ''
        expect(answer.ok ? [answer.value.decision.outcome, answer.value.decision.reason] : answer.code).toEqual(['indeterminate', 'lost'])
        const at = executor.state(op)
        release({ allowed: true })
        await sleep(1800)
        const later = executor.state(op)
        expect(later.ok && later.value).toEqual(at.ok && at.value)
        expect(later.ok && later.value.branches.map((b) => b.status)).toEqual(['indeterminate'])
        expect(later.ok && later.value.decision?.votes).toEqual([])
      } finally {
        sub.unsubscribe()
      }
    }, 20_000)
  } else {
    it('Holds (pinned): durable: close() before the deadline decides nothing; a new executor resuming after the deadline lets it fire at its own due time', async () => {
      // docs/executor.md "Durable state and restart": "Closing a durable executor decides nothing (the
      // invocation answers `EXECUTOR_STATE_FAILED` ...)"; "it replays the log, lets the timers due by now
      // fire (the deadline counts from the admission commit the first executor recorded)"; events rules:
      // "every timer due at or before `atMs` fires, in due-time order, each at its own due time".
      const rig = getRig()
      const DL = 1500
      const interaction = variant(rig.approve, {
        completion: { mode: 'first-success', fraction: undefined, deadlineMs: DL, remaining: 'detach', waitFor: 'decision', onTimeout: 'fail' },
        delivery,
      })
      const principalId = 'alice'
      const idempotencyKey = key()
      const id = await operationId(principalId, rig.digest, idempotencyKey)
      // ann (a durable responder) stalls; dan never runs one.
      plans.set(id, {
        ann: { reply: 'stall', auth: 0, verifier: 0, cancelAuthMs: 0 },
        dan: { reply: 'absent', auth: 0, verifier: 0, cancelAuthMs: 0 },
      })
      const first = await make(interaction, adapters(plans))
      const answered = first.invoke({ principalId, idempotencyKey, inputs })
      // Until the admission is recorded (the state exists a moment before it: read then, the deadline was NaN).
      expect(
        await until(() => {
          const s = first.state(id)
          return s.ok && s.value.admission.status === 'admitted'
        }),
      ).toBe(true)
      const admitted = first.state(id)
      const deadlineMs = admitted.ok && admitted.value.admission.status === 'admitted' ? admitted.value.admission.deadlineMs : NaN
      await bounded('close() with the deadline due', first.close(), 5000)
      expect(await bounded('invoke() after close()', answered, 5000)).toMatchObject({ ok: false, code: 'EXECUTOR_STATE_FAILED' })
      await sleep(Math.max(0, deadlineMs - Date.now()) + 500)
      const second = await make(interaction, adapters(plans))
      try {
        const resumed = await bounded('resume() after the deadline', second.resume(id), 10_000)
        if (!resumed.ok) throw new Error(resumed.message)
        expect(resumed.value.decision).toMatchObject({ outcome: 'failure', reason: 'timeout', successUnits: 0 })
        // The deadline fired at its own due time, not at the resume's.
        expect(resumed.value.decision.atMs).toBe(deadlineMs)
        const { simulated, state: now } = replayed(second, interaction, id)
        expect(simulated).toEqual(now)
      } finally {
        await bounded('close()', second.close(), 5000)
      }
    }, 20_000)
  }
}

describe('probe: nothing escaped', () => {
  it('no unhandled rejection or uncaught exception', () => {
    expect(escapes.map((e) => String(e))).toEqual([])
  })
})
