/**
 * A reference model of the interaction executor's completion and retry rules (NATS profile v0.2,
 * "Delivery, retries and ownership" and "Completion and cancellation"), written from the profile
 * text apart from the executor: a pure function over the executor's event log. Only the log and
 * state types are shared (the executor's `events.ts`); where the profile defers to its runtime
 * semantics, the model follows the choices `events.ts` states in words (marked CHOICE there).
 *
 * It is written to be obviously right rather than fast: the state is rebuilt from the log, timers
 * are found by scanning every branch, and each unit count is recomputed from scratch.
 */
import type {
  AdmittedBranch,
  BranchState,
  CancelStatus,
  Decision,
  DecisionOutcome,
  DecisionReason,
  ExecutorEvent,
  ExecutorPolicy,
  ExecutorState,
  Refusal,
  RefusalReason,
  Vote,
} from '../../src/runtime/nats/executor/events.js'

type Mutable<T> = { -readonly [K in keyof T]: T[K] }
type Branch = Mutable<BranchState>

interface Admitted {
  readonly atMs: number
  readonly deadlineAtMs: number
  readonly admittedUnits: number
  readonly threshold: number | null
  readonly eligible: readonly string[]
}

const TERMINAL: ReadonlySet<BranchState['status']> = new Set(['succeeded', 'unsuccessful', 'failed', 'revoked', 'stopped', 'indeterminate', 'dispatched'])

export const isTerminal = (status: BranchState['status']): boolean => TERMINAL.has(status)

/** `ceil(numerator * units / denominator)` in exact integer arithmetic (the profile's formula). */
export function fractionThreshold(numerator: number, denominator: number, units: number): number {
  const product = BigInt(numerator) * BigInt(units)
  const d = BigInt(denominator)
  return Number(product / d + (product % d === 0n ? 0n : 1n))
}

/** The threshold k of a policy over U admitted units; null where the mode has none. */
export function thresholdOf(policy: ExecutorPolicy, units: number): number | null {
  const completion = policy.completion
  switch (completion.mode) {
    case 'first-success':
      return 1
    case 'all-successful':
      return units
    case 'quorum': {
      const rule = completion.quorum
      if (!rule) return null
      return 'count' in rule ? rule.count : fractionThreshold(rule.fraction.numerator, rule.fraction.denominator, units)
    }
    default:
      return null
  }
}

/** The unit key of a branch: its id or its admitted peer. */
const unitOf = (policy: ExecutorPolicy, branch: Branch): string =>
  policy.completion.unit === 'distinct-peers' ? `peer:${branch.admittedPeerId}` : `branch:${branch.branchId}`

/** S (successful units), O (open units: neither successful nor terminal) and U. */
export function unitCounts(policy: ExecutorPolicy, branches: readonly BranchState[]): { successful: number; open: number; terminal: number; units: number } {
  const units = new Map<string, BranchState[]>()
  for (const b of branches) {
    const key = unitOf(policy, b as Branch)
    units.set(key, [...(units.get(key) ?? []), b])
  }
  let successful = 0
  let open = 0
  let terminal = 0
  for (const members of units.values()) {
    const succeeded = members.some((m) => m.status === 'succeeded')
    const allTerminal = members.every((m) => isTerminal(m.status))
    if (succeeded) successful++
    if (allTerminal) terminal++
    if (!succeeded && !allTerminal) open++
  }
  return { successful, open, terminal, units: units.size }
}

/** The reference model: the executor state a log leads to under a policy. */
export function model(policy: ExecutorPolicy, events: readonly ExecutorEvent[]): ExecutorState {
  const completion = policy.completion
  let clock = 0
  let admission: ExecutorState['admission'] = { status: 'pending' }
  let admitted: Admitted | null = null
  let sawAdmitted = false
  let lost = false
  const branches: Branch[] = []
  const votes: Vote[] = []
  const refused: Refusal[] = []
  const revokedPeers = new Set<string>()
  let decision: Decision | null = null
  let deadlineFired = false
  let settlementFired = false

  const find = (branchId: string) => branches.find((b) => b.branchId === branchId)

  const terminate = (b: Branch, status: BranchState['status'], at: number) => {
    b.status = status
    b.retryAtMs = null
    b.terminalAtMs = at
  }

  const decide = (outcome: DecisionOutcome, reason: DecisionReason, at: number) => {
    if (decision) return
    decision = { outcome, reason, atMs: at, votes: [...votes], successUnits: unitCounts(policy, branches).successful }
    // Once decided no new attempt starts: a branch waiting for a retry has failed.
    for (const b of branches) if (b.status === 'retry-wait') terminate(b, 'failed', at)
    if (completion.remaining === 'cooperative' && reason !== 'lost')
      for (const b of branches)
        if (b.status === 'open') {
          b.cancel = 'requested'
          b.cancelRequestedAtMs = at
        }
  }

  /** The decision rules of the completion mode, evaluated while undecided. */
  const evaluate = (at: number) => {
    if (decision || !admitted) return
    const { successful, open, terminal, units } = unitCounts(policy, branches)
    if (completion.mode === 'all-terminal') {
      if (terminal === units) decide('success', 'settled', at)
      return
    }
    const k = admitted.threshold
    if (k === null) return
    if (successful >= k) decide('success', 'threshold', at)
    else if (successful + open < k) decide('failure', 'impossible', at)
  }

  const startRetry = (b: Branch, at: number) => {
    b.attempt += 1
    b.fence += 1
    b.retryAtMs = null
    b.status = 'open'
    if (policy.dispatch === 'one-eligible' && admitted) {
      const order = admitted.eligible
      const from = order.indexOf(b.peerId)
      let next: string | undefined
      for (let step = 1; step <= order.length; step++) {
        const candidate = order[(from + step) % order.length]
        if (candidate !== undefined && !revokedPeers.has(candidate)) {
          next = candidate
          break
        }
      }
      if (next === undefined) terminate(b, 'revoked', at)
      else b.peerId = next
    }
  }

  /** The next timer due at or before `limit`: [due, rank, action], rank breaking ties (deadline, cancel timeout, retry, settlement). */
  const nextTimer = (limit: number): { due: number; fire: () => void } | null => {
    const candidates: Array<{ due: number; rank: number; order: number; fire: () => void }> = []
    if (admitted && completion.mode !== 'none' && !deadlineFired) {
      const due = admitted.deadlineAtMs
      candidates.push({
        due,
        rank: 0,
        order: 0,
        fire: () => {
          deadlineFired = true
          if (!decision) decide(completion.onTimeout === 'fail' ? 'failure' : 'partial', 'timeout', due)
        },
      })
    }
    branches.forEach((b, i) => {
      if (b.cancel === 'requested' && b.cancelRequestedAtMs !== null) {
        const due = b.cancelRequestedAtMs + completion.cancelTimeoutMs
        candidates.push({ due, rank: 1, order: i, fire: () => void (b.cancel = 'timed-out') })
      }
    })
    branches.forEach((b, i) => {
      if (b.status === 'retry-wait' && b.retryAtMs !== null) {
        const due = b.retryAtMs
        candidates.push({ due, rank: 2, order: i, fire: () => startRetry(b, due) })
      }
    })
    if (decision && !settlementFired) {
      const due = (decision as Decision).atMs + policy.retry.settlementGraceMs
      candidates.push({
        due,
        rank: 3,
        order: 0,
        fire: () => {
          settlementFired = true
          for (const b of branches) if (!isTerminal(b.status)) terminate(b, 'indeterminate', due)
        },
      })
    }
    const due = candidates.filter((c) => c.due <= limit)
    due.sort((a, b) => a.due - b.due || a.rank - b.rank || a.order - b.order)
    return due[0] ?? null
  }

  const fireTimers = (limit: number) => {
    // Each firing retires its timer (or moves it later), so this ends; the bound guards a model bug.
    for (let guard = 0; guard < 10_000; guard++) {
      const timer = nextTimer(limit)
      if (!timer) return
      timer.fire()
      evaluate(timer.due)
    }
    throw new Error('model: timers did not settle')
  }

  const admit = (event: Extract<ExecutorEvent, { kind: 'admitted' }>, at: number) => {
    const ids = event.branches.map((b) => b.branchId)
    const refuse = (reason: 'empty-audience' | 'invalid-admission' | 'impossible-threshold') => void (admission = { status: 'refused', reason })
    if (event.branches.length === 0) return refuse('empty-audience')
    if (new Set(ids).size !== ids.length) return refuse('invalid-admission')
    if (policy.dispatch === 'one-eligible' && (event.branches.length !== 1 || event.branches[0]?.peerId !== event.eligible[0]))
      return refuse('invalid-admission')
    const units = completion.unit === 'distinct-peers' ? new Set(event.branches.map((b) => b.peerId)).size : event.branches.length
    const threshold = thresholdOf(policy, units)
    if (threshold !== null && threshold > units) return refuse('impossible-threshold')
    admitted = { atMs: at, deadlineAtMs: at + completion.deadlineMs, admittedUnits: units, threshold, eligible: [...event.eligible] }
    admission = { status: 'admitted', atMs: at, deadlineMs: admitted.deadlineAtMs, admittedUnits: units, threshold }
    for (const b of event.branches as readonly AdmittedBranch[])
      branches.push({
        branchId: b.branchId,
        admittedPeerId: b.peerId,
        peerId: b.peerId,
        status: 'open',
        attempt: 1,
        fence: b.fence,
        retryAtMs: null,
        terminalAtMs: null,
        cancel: 'none' as CancelStatus,
        cancelRequestedAtMs: null,
      })
    if (completion.mode === 'none') {
      for (const b of branches) terminate(b, 'dispatched', at)
      decide('success', 'no-completion', at)
    }
  }

  /** Applies one event at `at` (the clock); returns the refusal reason, or null when applied. */
  const apply = (event: ExecutorEvent, at: number): RefusalReason | null => {
    if (event.kind === 'tick') return null
    if (event.kind === 'admitted' && !sawAdmitted) {
      sawAdmitted = true
      admit(event, at)
      return null
    }
    // The refusals that hold for every kind (a second admission and a revocation included).
    if (!admitted) return 'before-admission'
    if (lost) return 'after-loss'
    if (completion.mode === 'none') return 'no-completion'
    switch (event.kind) {
      case 'admitted':
        return 'duplicate'
      case 'revoked':
        // Authorization withdrawn: the peer's unfinished branches end, before or after the decision.
        revokedPeers.add(event.peerId)
        for (const b of branches) if (!isTerminal(b.status) && b.peerId === event.peerId) terminate(b, 'revoked', at)
        return null
      case 'cancel':
        if (decision) return 'decided'
        decide('cancelled', 'cancelled', at)
        return null
      case 'lost':
        // The profile's memory state reports loss as indeterminate: every unfinished branch
        // (one waiting for a retry included) is indeterminate before the decision is recorded.
        lost = true
        for (const b of branches) if (!isTerminal(b.status)) terminate(b, 'indeterminate', at)
        decide('indeterminate', 'lost', at)
        return null
      case 'result': {
        const b = find(event.branchId)
        if (!b) return 'unknown-branch'
        if (at >= admitted.deadlineAtMs) return 'late'
        if (!event.verified) return 'unverified'
        if (b.status !== 'open') return 'not-open'
        if (event.peerId !== b.peerId) return 'wrong-peer'
        if (event.attempt !== b.attempt) return 'stale-attempt'
        if (event.fence !== b.fence) return 'stale-fence'
        terminate(b, event.success ? 'succeeded' : 'unsuccessful', at)
        votes.push({ branchId: b.branchId, peerId: event.peerId, attempt: event.attempt, fence: event.fence, success: event.success, atMs: at })
        return null
      }
      case 'failed':
      case 'lease-expired': {
        const b = find(event.branchId)
        if (!b) return 'unknown-branch'
        if (b.status !== 'open') return 'not-open'
        if (event.attempt !== b.attempt) return 'stale-attempt'
        if (event.fence !== b.fence) return 'stale-fence'
        const retryable = event.kind === 'lease-expired' || event.retryable
        const retryAt = at + policy.retry.retryBackoffMs
        if (retryable && b.attempt < policy.retry.maxAttempts && !decision && retryAt < admitted.deadlineAtMs) {
          b.status = 'retry-wait'
          b.retryAtMs = retryAt
        } else terminate(b, 'failed', at)
        return null
      }
      case 'claimed': {
        const b = find(event.branchId)
        if (!b) return 'unknown-branch'
        if (b.status !== 'open') return 'not-open'
        if (event.peerId !== b.peerId) return 'wrong-peer'
        if (event.fence <= b.fence) return 'stale-fence'
        b.fence = event.fence
        return null
      }
      case 'cancel-answered': {
        const b = find(event.branchId)
        if (!b) return 'unknown-branch'
        if (b.cancel !== 'requested') return 'not-requested'
        if (event.attempt !== b.attempt) return 'stale-attempt'
        if (event.fence !== b.fence) return 'stale-fence'
        b.cancel = event.reply
        // A stop ends an open branch; a branch that already has its result keeps it (a fact).
        if (event.reply === 'stopped' && !isTerminal(b.status)) terminate(b, 'stopped', at)
        return null
      }
    }
  }

  events.forEach((event, index) => {
    const at = Math.max(clock, event.atMs)
    fireTimers(at)
    clock = at
    const reason = apply(event, at)
    if (reason) refused.push({ index, reason })
    else evaluate(at)
    // Timers the event made due by now (a zero backoff, grace or cancel timeout) fire at once.
    fireTimers(at)
  })

  const finalDecision = decision as Decision | null
  const allTerminal = branches.length > 0 && branches.every((b) => isTerminal(b.status))
  const settledAtMs = finalDecision && allTerminal ? Math.max(finalDecision.atMs, ...branches.map((b) => b.terminalAtMs ?? finalDecision.atMs)) : null
  const returnsAtMs = finalDecision ? (completion.waitFor === 'decision' ? finalDecision.atMs : settledAtMs) : null
  return {
    admission,
    nowMs: clock,
    branches: branches.map((b) => ({ ...b })),
    votes: [...votes],
    decision: finalDecision,
    settledAtMs,
    returnsAtMs,
    refused,
  }
}
