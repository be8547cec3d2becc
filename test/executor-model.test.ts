/**
 * Model-based test of the interaction executor's decision core: seeded random schedules of results,
 * committed failures, lease expiries, claims, late and stale messages, revocations, cancellations
 * and ticks, run through the executor's `simulate` and through the reference model written apart
 * from it (`helpers/executor-model.ts`, from the profile text and the rules `events.ts` states).
 * Every decision, branch state, vote and refusal must be equal, and invariants are checked on the
 * executor's own output: one decision, never changed; no vote from an earlier attempt or a stale
 * fence; thresholds by the formula; early decision; late results discarded.
 *
 * Where the model reads the profile one way and `events.ts` chooses, the model follows the stated
 * choice and the test names it:
 * - a `lost` (restart with memory state) makes a branch waiting for a retry `indeterminate` (the
 *   profile: "indeterminate reporting after loss"), not `failed` as the decision's "no new attempt"
 *   rule alone would give; `events.ts` says both ("decided or not, every non-terminal branch becomes
 *   indeterminate at once" and "a branch waiting for a retry at the decision becomes failed").
 * - `revoked` before admission: `events.ts` says both "every other event is refused
 *   before-admission" and "a revoked is never refused"; the model never refuses it (and it changes
 *   nothing before admission).
 * - a second `admitted` after a `lost` or with completion `none` is refused `duplicate` (the
 *   admission rule) rather than `after-loss` / `no-completion`.
 */
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import {
  simulate,
  type AdmittedBranch,
  type CompletionMode,
  type DispatchMode,
  type ExecutorEvent,
  type ExecutorPolicy,
  type ExecutorState,
  type QuorumRule,
} from '../src/runtime/nats/executor/events.js'
import { isTerminal, model } from './helpers/executor-model.js'

const SEED = Number(process.env.EXECUTOR_MODEL_SEED ?? 20261203)
const RUNS = Number(process.env.EXECUTOR_MODEL_RUNS ?? 400)

/** How a message relates to the branch's current attempt: current, or deliberately off. */
type Skew = 'current' | 'earlier-attempt' | 'stale-fence' | 'wrong-peer' | 'unknown-branch' | 'unverified'

type Step =
  | { readonly kind: 'result'; readonly dt: number; readonly pick: number; readonly skew: Skew; readonly success: boolean }
  | { readonly kind: 'failed'; readonly dt: number; readonly pick: number; readonly skew: Skew; readonly retryable: boolean }
  | { readonly kind: 'lease-expired'; readonly dt: number; readonly pick: number; readonly skew: Skew }
  | { readonly kind: 'claimed'; readonly dt: number; readonly pick: number; readonly skew: Skew; readonly raise: number }
  | {
      readonly kind: 'cancel-answered'
      readonly dt: number
      readonly pick: number
      readonly skew: Skew
      readonly reply: 'stopped' | 'already-completed' | 'unknown'
    }
  | { readonly kind: 'revoked'; readonly dt: number; readonly pick: number }
  | { readonly kind: 'cancel' | 'lost' | 'tick' | 'admitted-again'; readonly dt: number }

interface Schedule {
  readonly policy: ExecutorPolicy
  readonly admittedAtMs: number
  readonly branches: readonly AdmittedBranch[]
  readonly eligible: readonly string[]
  readonly steps: readonly Step[]
}

const PEERS = ['peer-a', 'peer-b', 'peer-c', 'peer-d']

/** Time between events: mostly forward, sometimes simultaneous, rarely out of order (applied at the clock). */
const dt = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 40 }) },
  { weight: 2, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.integer({ min: -20, max: -1 }) },
)

const skew: fc.Arbitrary<Skew> = fc.oneof(
  { weight: 10, arbitrary: fc.constant<Skew>('current') },
  { weight: 1, arbitrary: fc.constantFrom<Skew>('earlier-attempt', 'stale-fence', 'wrong-peer', 'unknown-branch', 'unverified') },
)

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('result' as const), dt, pick: fc.nat(7), skew, success: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('failed' as const), dt, pick: fc.nat(7), skew, retryable: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('lease-expired' as const), dt, pick: fc.nat(7), skew }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('claimed' as const), dt, pick: fc.nat(7), skew, raise: fc.integer({ min: 1, max: 3 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('cancel-answered' as const),
      dt,
      pick: fc.nat(7),
      skew,
      reply: fc.constantFrom('stopped' as const, 'already-completed' as const, 'unknown' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('revoked' as const), dt, pick: fc.nat(7) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), dt }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('tick' as const), dt: fc.integer({ min: 0, max: 150 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('lost' as const, 'admitted-again' as const), dt }) },
)

const quorum: fc.Arbitrary<QuorumRule> = fc.oneof(
  fc.record({ count: fc.integer({ min: 1, max: 5 }) }),
  fc
    .tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 5 }))
    .map(([a, b]) => ({ fraction: { numerator: Math.min(a, b), denominator: Math.max(a, b) } })),
)

/** The admitted branches of a dispatch mode: direct and one-eligible one branch, independent one per peer, branches a manifest (peers may repeat). */
function branchesFor(dispatch: DispatchMode, peerCount: number, manifestPeers: readonly number[], fence: number): AdmittedBranch[] {
  if (dispatch === 'direct' || dispatch === 'one-eligible') return [{ branchId: 'b0', peerId: PEERS[0]!, fence }]
  if (dispatch === 'independent') return PEERS.slice(0, peerCount).map((peerId, i) => ({ branchId: `b${i}`, peerId, fence }))
  return manifestPeers.map((p, i) => ({ branchId: `b${i}`, peerId: PEERS[p % peerCount]!, fence }))
}

const schedule: fc.Arbitrary<Schedule> = fc
  .record({
    dispatch: fc.constantFrom<DispatchMode>('direct', 'independent', 'one-eligible', 'branches'),
    mode: fc.oneof(
      { weight: 1, arbitrary: fc.constant('none' as const) },
      { weight: 3, arbitrary: fc.constantFrom('first-success' as const, 'all-terminal' as const, 'all-successful' as const, 'quorum' as const) },
    ),
    unit: fc.constantFrom('distinct-branches' as const, 'distinct-peers' as const),
    quorum,
    deadlineMs: fc.integer({ min: 0, max: 250 }),
    onTimeout: fc.constantFrom('fail' as const, 'partial' as const),
    remaining: fc.constantFrom('detach' as const, 'cooperative' as const),
    waitFor: fc.constantFrom('decision' as const, 'settled' as const),
    cancelTimeoutMs: fc.integer({ min: 0, max: 60 }),
    maxAttempts: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 4 })),
    retryBackoffMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 40 })),
    settlementGraceMs: fc.integer({ min: 0, max: 120 }),
    peerCount: fc.integer({ min: 1, max: 4 }),
    manifestPeers: fc.array(fc.nat(3), { minLength: 1, maxLength: 5 }),
    fence: fc.constantFrom(0, 1, 7),
    admittedAtMs: fc.integer({ min: 0, max: 1000 }),
    emptyAudience: fc.oneof({ weight: 30, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    steps: fc.array(step, { minLength: 0, maxLength: 24 }),
  })
  .map((r) => {
    // One-eligible results count distinct branches (the profile); the others take the drawn unit.
    const unit = r.dispatch === 'one-eligible' ? ('distinct-branches' as const) : r.unit
    const policy: ExecutorPolicy = {
      dispatch: r.dispatch,
      completion: {
        mode: r.mode,
        unit,
        ...(r.mode === 'quorum' ? { quorum: r.quorum } : {}),
        deadlineMs: r.deadlineMs,
        onTimeout: r.onTimeout,
        onImpossible: 'fail',
        lateResults: 'discard',
        remaining: r.remaining,
        waitFor: r.waitFor,
        cancelTimeoutMs: r.remaining === 'cooperative' ? r.cancelTimeoutMs : 0,
      },
      retry: { maxAttempts: r.maxAttempts, retryBackoffMs: r.retryBackoffMs, settlementGraceMs: r.settlementGraceMs },
    }
    const branches = r.emptyAudience ? [] : branchesFor(r.dispatch, r.peerCount, r.manifestPeers, r.fence)
    const eligible = r.dispatch === 'one-eligible' ? PEERS.slice(0, r.peerCount) : []
    return { policy, admittedAtMs: r.admittedAtMs, branches, eligible, steps: r.steps }
  })

/** The log of a schedule: each step resolved against the model's state for the log before it. */
function buildLog(s: Schedule): ExecutorEvent[] {
  const log: ExecutorEvent[] = [{ kind: 'admitted', atMs: s.admittedAtMs, branches: s.branches, eligible: s.eligible }]
  let at = s.admittedAtMs
  for (const st of s.steps) {
    at = Math.max(0, at + st.dt)
    const state = model(s.policy, log)
    const branch = state.branches.length > 0 ? state.branches[('pick' in st ? st.pick : 0) % state.branches.length] : undefined
    const target = (skw: Skew) => {
      const branchId = skw === 'unknown-branch' || !branch ? 'b-unknown' : branch.branchId
      const current = branch ?? { attempt: 1, fence: 0, peerId: PEERS[0]! }
      const attempt = skw === 'earlier-attempt' ? current.attempt - 1 : current.attempt
      const fence = skw === 'stale-fence' ? current.fence - 1 : current.fence
      const peerId = skw === 'wrong-peer' ? PEERS.find((p) => p !== current.peerId)! : current.peerId
      return { branchId, attempt, fence, peerId }
    }
    switch (st.kind) {
      case 'result': {
        const t = target(st.skew)
        log.push({ kind: 'result', atMs: at, ...t, success: st.success, verified: st.skew !== 'unverified' })
        break
      }
      case 'failed': {
        const { branchId, attempt, fence } = target(st.skew)
        log.push({ kind: 'failed', atMs: at, branchId, attempt, fence, retryable: st.retryable })
        break
      }
      case 'lease-expired': {
        const { branchId, attempt, fence } = target(st.skew)
        log.push({ kind: 'lease-expired', atMs: at, branchId, attempt, fence })
        break
      }
      case 'claimed': {
        const { branchId, fence, peerId } = target(st.skew)
        log.push({ kind: 'claimed', atMs: at, branchId, peerId, fence: st.skew === 'stale-fence' ? fence : fence + st.raise })
        break
      }
      case 'cancel-answered': {
        const { branchId, attempt, fence } = target(st.skew)
        log.push({ kind: 'cancel-answered', atMs: at, branchId, attempt, fence, reply: st.reply })
        break
      }
      case 'revoked':
        log.push({ kind: 'revoked', atMs: at, peerId: PEERS[st.pick % PEERS.length]! })
        break
      case 'admitted-again':
        log.push({ kind: 'admitted', atMs: at, branches: s.branches, eligible: s.eligible })
        break
      default:
        log.push({ kind: st.kind, atMs: at })
    }
  }
  return log
}

/** The unit key of a branch in a policy: its id, or its admitted peer. */
const unitKey = (policy: ExecutorPolicy, branch: { branchId: string; admittedPeerId: string }) =>
  policy.completion.unit === 'distinct-peers' ? branch.admittedPeerId : branch.branchId

/** The threshold the profile's formula gives, computed here apart from the model and the executor. */
function formulaThreshold(policy: ExecutorPolicy, units: number): number | null {
  const c = policy.completion
  if (c.mode === 'first-success') return 1
  if (c.mode === 'all-successful') return units
  if (c.mode !== 'quorum' || !c.quorum) return null
  if ('count' in c.quorum) return c.quorum.count
  const { numerator, denominator } = c.quorum.fraction
  return Math.ceil((numerator * units) / denominator)
}

function successfulUnits(policy: ExecutorPolicy, state: ExecutorState): number {
  return new Set(state.branches.filter((b) => b.status === 'succeeded').map((b) => unitKey(policy, b))).size
}

/** What differs between two states, field by field (empty when equal). */
function differences(expected: ExecutorState, actual: ExecutorState): string[] {
  const out: string[] = []
  for (const key of ['admission', 'nowMs', 'decision', 'settledAtMs', 'returnsAtMs', 'votes', 'refused'] as const)
    if (JSON.stringify(expected[key]) !== JSON.stringify(actual[key]))
      out.push(`${key}: model ${JSON.stringify(expected[key])} / simulate ${JSON.stringify(actual[key])}`)
  const count = Math.max(expected.branches.length, actual.branches.length)
  for (let i = 0; i < count; i++) {
    const [m, s] = [expected.branches[i], actual.branches[i]]
    if (JSON.stringify(m) !== JSON.stringify(s)) out.push(`branch ${i}: model ${JSON.stringify(m)} / simulate ${JSON.stringify(s)}`)
  }
  return out
}

/** The invariants, on the executor's own states for every prefix of the log (the last is the whole log). */
function invariantViolations(policy: ExecutorPolicy, log: readonly ExecutorEvent[], prefixes: readonly ExecutorState[]): string[] {
  const out: string[] = []
  const final = prefixes[prefixes.length - 1]!
  // One decision, never changed: once a prefix has a decision, every longer prefix has the same one.
  let first: { index: number; json: string } | null = null
  prefixes.forEach((state, index) => {
    if (first && JSON.stringify(state.decision) !== first.json)
      out.push(`one decision: the decision after event ${first.index} changed after event ${index}: ${JSON.stringify(state.decision)}`)
    if (!first && state.decision) first = { index, json: JSON.stringify(state.decision) }
  })
  // No vote from an earlier attempt or a stale fence: a vote is for the branch's last attempt and
  // fence (an admitted result ends the branch), one per branch, by its current peer.
  const perBranch = new Map<string, number>()
  for (const vote of final.votes) {
    perBranch.set(vote.branchId, (perBranch.get(vote.branchId) ?? 0) + 1)
    const b = final.branches.find((x) => x.branchId === vote.branchId)
    if (!b) out.push(`vote for a branch that was never admitted: ${JSON.stringify(vote)}`)
    else if (b.attempt !== vote.attempt || b.fence !== vote.fence || b.peerId !== vote.peerId)
      out.push(`stale vote: ${JSON.stringify(vote)} for branch at attempt ${b.attempt}, fence ${b.fence}, peer ${b.peerId}`)
  }
  for (const [branchId, n] of perBranch) if (n > 1) out.push(`branch ${branchId} has ${n} votes`)
  if (final.decision) {
    const prefix = final.votes.slice(0, final.decision.votes.length)
    if (JSON.stringify(prefix) !== JSON.stringify(final.decision.votes)) out.push('the decision votes are not the first admitted results')
    const units = new Set(
      final.decision.votes
        .filter((v) => v.success)
        .map((v) =>
          unitKey(
            policy,
            final.branches.find((b) => b.branchId === v.branchId)!,
          ),
        ),
    )
    if (units.size !== final.decision.successUnits) out.push(`successUnits ${final.decision.successUnits} but the decision votes give ${units.size}`)
  }
  // Thresholds by the formula, and decisions against it (early decision, never before the threshold).
  if (final.admission.status === 'admitted') {
    const admittedUnits = new Set(final.branches.map((b) => unitKey(policy, b))).size
    if (final.admission.admittedUnits !== admittedUnits) out.push(`admittedUnits ${final.admission.admittedUnits}, expected ${admittedUnits}`)
    const k = formulaThreshold(policy, admittedUnits)
    if (final.admission.threshold !== k) out.push(`threshold ${final.admission.threshold}, the formula gives ${k}`)
    const deadline = final.admission.deadlineMs
    prefixes.forEach((state, index) => {
      const s = successfulUnits(policy, state)
      if (k !== null && !state.decision && s >= k) out.push(`undecided after event ${index} with ${s} successful units, threshold ${k}`)
      if (k !== null && state.decision?.reason === 'threshold' && state.decision.successUnits < k)
        out.push(`success by threshold with ${state.decision.successUnits} units, threshold ${k}`)
      if (state.decision?.outcome === 'success' && state.decision.reason === 'threshold' && state.decision.atMs >= deadline)
        out.push(`a threshold decision at or after the deadline (${state.decision.atMs} >= ${deadline})`)
    })
    // Late results discarded: a result for a known branch at or after the deadline is refused `late`.
    let clock = 0
    log.forEach((event, index) => {
      clock = Math.max(clock, event.atMs)
      if (index === 0 || event.kind !== 'result' || policy.completion.mode === 'none') return
      if (!final.branches.some((b) => b.branchId === event.branchId) || clock < deadline) return
      const refusal = final.refused.find((r) => r.index === index)
      if (refusal?.reason !== 'late' && !final.refused.some((r) => r.index === index && r.reason === 'after-loss'))
        out.push(`result ${index} at ${clock} (deadline ${deadline}) not refused late: ${JSON.stringify(refusal ?? 'admitted')}`)
    })
  }
  // Terminal branches stay terminal with the same status (facts are never rewritten).
  for (let i = 1; i < prefixes.length; i++)
    for (const before of prefixes[i - 1]!.branches) {
      const after = prefixes[i]!.branches.find((b) => b.branchId === before.branchId)
      if (isTerminal(before.status) && after?.status !== before.status)
        out.push(`branch ${before.branchId} was ${before.status} after event ${i - 1}, ${after?.status} after event ${i}`)
    }
  return out
}

const perMode: Record<CompletionMode, { schedules: number; outcomes: Record<string, number> }> = {
  none: { schedules: 0, outcomes: {} },
  'first-success': { schedules: 0, outcomes: {} },
  'all-terminal': { schedules: 0, outcomes: {} },
  'all-successful': { schedules: 0, outcomes: {} },
  quorum: { schedules: 0, outcomes: {} },
}
const tally = { events: 0, refused: 0, votes: 0, retries: 0 }

function describeFailure(s: Schedule, problems: readonly string[]): string {
  const log = buildLog(s)
  return [
    `policy: ${JSON.stringify(s.policy)}`,
    'log:',
    ...log.map((e, i) => `  ${i}: ${JSON.stringify(e)}`),
    'problems:',
    ...problems.map((p) => `  ${p}`),
  ].join('\n')
}

describe('executor decision core against the reference model', () => {
  afterAll(() => {
    // The counts of schedules per completion mode (and how each decided), for the report.
    console.log(`executor-model: ${JSON.stringify(perMode)} ${JSON.stringify(tally)}`)
  })

  it('agrees with the model and keeps the invariants on seeded random schedules', () => {
    const problemsOf = (s: Schedule): string[] => {
      const log = buildLog(s)
      const expected = model(s.policy, log)
      const actual = simulate(s.policy, log)
      const prefixes = log.map((_, i) => simulate(s.policy, log.slice(0, i + 1)))
      return [...differences(expected, actual), ...invariantViolations(s.policy, log, prefixes)]
    }
    const result = fc.check(
      fc.property(schedule, (s) => problemsOf(s).length === 0),
      { seed: SEED, numRuns: RUNS },
    )
    if (result.failed && result.counterexample)
      expect.fail(`seed ${SEED}, minimal failing schedule:\n${describeFailure(result.counterexample[0], problemsOf(result.counterexample[0]))}`)
    expect(result.failed).toBe(false)
    // The counts come from the same seed, replayed (fast-check generates the same schedules).
    for (const [s] of fc.sample(fc.tuple(schedule), { seed: SEED, numRuns: RUNS })) {
      const log = buildLog(s)
      const state = simulate(s.policy, log)
      const entry = perMode[s.policy.completion.mode]
      entry.schedules++
      const outcome = state.decision
        ? `${state.decision.outcome}/${state.decision.reason}`
        : state.admission.status === 'refused'
          ? `refused/${state.admission.reason}`
          : 'undecided'
      entry.outcomes[outcome] = (entry.outcomes[outcome] ?? 0) + 1
      tally.events += log.length
      tally.refused += state.refused.length
      tally.votes += state.votes.length
      tally.retries += state.branches.filter((b) => b.attempt > 1).length
    }
    for (const mode of Object.keys(perMode) as CompletionMode[]) expect(perMode[mode].schedules).toBeGreaterThan(0)
  })
})
