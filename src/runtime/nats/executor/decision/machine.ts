/**
 * The executor's decision core as a state machine: events applied one at a time on a clock that
 * only moves forward, timers (deadline, cancel timeouts, retry starts, settlement end) fired in
 * due-time order. The live executor drives one machine per operation; `simulate` folds a log
 * through one. The rules are stated in `../events.ts`.
 */
import { quorumThreshold } from '../../interactions.js'
import type {
  AdmissionRefusal,
  BranchState,
  BranchStatus,
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
} from '../events.js'

/*
 * The records an operation keeps (its votes, its decision), its admission, and the copies the
 * machine reports (its state, branch snapshots) are made with `new`, not as object literals. V8
 * allocates the objects of a literal whose earlier objects outlived a young collection straight
 * into the old generation (allocation-site pretenuring), and an old object is a root of every young
 * collection until the next full one, dead or alive: such a record born old kept what it points to
 * (the state's branch copies, the copies of the votes) alive past every young collection. A
 * construction has no allocation site: these are born young like the rest of the operation.
 */
class VoteRecord implements Vote {
  constructor(
    readonly branchId: string,
    readonly peerId: string,
    readonly attempt: number,
    readonly fence: number,
    readonly success: boolean,
    readonly atMs: number,
  ) {}
}

class DecisionRecord implements Decision {
  constructor(
    readonly outcome: DecisionOutcome,
    readonly reason: DecisionReason,
    readonly atMs: number,
    readonly votes: readonly Vote[],
    readonly successUnits: number,
  ) {}
}

class StateRecord implements ExecutorState {
  constructor(
    readonly admission: ExecutorState['admission'],
    readonly nowMs: number,
    readonly branches: readonly BranchState[],
    readonly votes: readonly Vote[],
    readonly decision: Decision | null,
    readonly settledAtMs: number | null,
    readonly returnsAtMs: number | null,
    readonly refused: readonly Refusal[],
    readonly refusalsOmitted: number,
  ) {}
}

/**
 * A branch as the machine keeps it. A literal on purpose: V8 may allocate these old, and they point
 * only to the branch's ids and to numbers, so nothing young is kept through them (made with `new`,
 * measured: more bytes copied by each young collection, not fewer).
 */
interface MutableBranch {
  branchId: string
  admittedPeerId: string
  peerId: string
  status: BranchStatus
  attempt: number
  fence: number
  retryAtMs: number | null
  terminalAtMs: number | null
  cancel: CancelStatus
  cancelRequestedAtMs: number | null
}

/** Members in the order of the admission's type, `status` first. */
class AdmittedState {
  readonly status = 'admitted' as const
  readonly atMs: number
  readonly deadlineMs: number
  readonly admittedUnits: number
  readonly threshold: number | null
  constructor(atMs: number, deadlineMs: number, admittedUnits: number, threshold: number | null) {
    this.atMs = atMs
    this.deadlineMs = deadlineMs
    this.admittedUnits = admittedUnits
    this.threshold = threshold
  }
}

class BranchSnapshot implements BranchState {
  readonly branchId: string
  readonly admittedPeerId: string
  readonly peerId: string
  readonly status: BranchStatus
  readonly attempt: number
  readonly fence: number
  readonly retryAtMs: number | null
  readonly terminalAtMs: number | null
  readonly cancel: CancelStatus
  readonly cancelRequestedAtMs: number | null
  constructor(b: MutableBranch) {
    this.branchId = b.branchId
    this.admittedPeerId = b.admittedPeerId
    this.peerId = b.peerId
    this.status = b.status
    this.attempt = b.attempt
    this.fence = b.fence
    this.retryAtMs = b.retryAtMs
    this.terminalAtMs = b.terminalAtMs
    this.cancel = b.cancel
    this.cancelRequestedAtMs = b.cancelRequestedAtMs
  }
}

/** A frozen copy of one branch, written out member by member (one shape, cheaper than a spread). */
function snapshot(b: MutableBranch): BranchState {
  return Object.freeze(new BranchSnapshot(b))
}

const TERMINAL: ReadonlySet<BranchStatus> = new Set(['succeeded', 'unsuccessful', 'failed', 'revoked', 'stopped', 'indeterminate', 'dispatched'])

export function isTerminal(status: BranchStatus): boolean {
  return TERMINAL.has(status)
}

/** Timer kinds in the order they fire when due at the same time. */
const TimerKind = { Deadline: 0, CancelTimeout: 1, RetryStart: 2, SettlementEnd: 3 } as const
type TimerKind = (typeof TimerKind)[keyof typeof TimerKind]

/** The earliest timer found (`findNextTimer`): one per machine, rewritten on every search. */
interface DueTimer {
  found: boolean
  dueMs: number
  kind: TimerKind
  branch: MutableBranch | undefined
}

class Due implements DueTimer {
  found = false
  dueMs = 0
  kind: TimerKind = TimerKind.SettlementEnd
  branch: MutableBranch | undefined = undefined
}

/** A core's admission before its admitted event: one shared frozen value. */
const PENDING: ExecutorState['admission'] = Object.freeze({ status: 'pending' })
/** A core's eligible peers before admission: one shared frozen empty list. */
const NO_ELIGIBLE: readonly string[] = Object.freeze([])

/** Takes a candidate timer when it is due earlier than the one found, or as early with a lower kind. */
function consider(due: DueTimer, dueMs: number, kind: TimerKind, branch: MutableBranch | undefined): void {
  if (!due.found || dueMs < due.dueMs || (dueMs === due.dueMs && kind < due.kind)) {
    due.found = true
    due.dueMs = dueMs
    due.kind = kind
    due.branch = branch
  }
}

/** How many refusals of each reason a bounded log keeps as events (13 reasons: at most 104 refused events). */
export const KEPT_REFUSALS = 8
/** A refused event is kept only when its branch and peer ids together are at most this long (a peer chooses them). */
export const KEPT_ID_CHARS = 256

export class DecisionCore {
  // No literal among these initializers: each would be an allocation site of its own, and V8
  // allocates a site's objects straight into the old generation once most of its earlier objects
  // outlived a young collection (allocation-site pretenuring). A core lives for one operation: its
  // arrays born old would keep the events and branches they hold alive past every young collection
  // until a full one. `Array.of()` and a construction have no allocation site.
  private admission: ExecutorState['admission'] = PENDING
  private nowMs = 0
  private started = false
  private readonly branches: MutableBranch[] = Array.of()
  private readonly byId = new Map<string, MutableBranch>()
  private readonly votes: Vote[] = Array.of()
  private decision: Decision | null = null
  private settledAtMs: number | null = null
  private readonly refused: Refusal[] = Array.of()
  private lost = false
  private eligible: readonly string[] = NO_ELIGIBLE
  private readonly revokedPeers = new Set<string>()
  /** Every event applied and every clock move, as a log `simulate` replays to this same state. */
  private readonly history: ExecutorEvent[] = Array.of()
  private readonly due: DueTimer = new Due()
  /** Whether each unit of a distinct-peers completion is one branch (the usual admission): units are then counted per branch. */
  private oneBranchPerUnit = true
  /** Events that changed the state and timers fired: equal before and after an event that changed nothing. */
  private changeCount = 0
  /** Set by `applyAt` for an event that is applied yet changes nothing (a revocation of a peer that holds nothing). */
  private noChange = false
  /** Refusals per reason seen so far (bounded log: only the first `KEPT_REFUSALS` of each are logged). */
  private readonly refusalsSeen = new Map<RefusalReason, number>()
  /** Refusals kept in the log only as a clock move (`tick.omitted`). */
  private omitted = 0
  /** The log before this index has been read (its length or a prefix handed out): never rewritten. */
  private sealed = 0

  /**
   * `bounded` (the live executors): the log keeps what changed the state, the first
   * `KEPT_REFUSALS` refusals of each reason (with short ids) and the clock moves; any other
   * refused or no-op event is logged as a clock move only (consecutive ones one `tick`, with the
   * count of refusals it stands for), so what a peer sends cannot grow it. Unbounded (`simulate`):
   * every event as given.
   */
  constructor(
    readonly policy: ExecutorPolicy,
    private readonly bounded = false,
  ) {}

  /** Applies one event (timers due up to its time fire first); returns the refusal reason, or null when applied. */
  apply(event: ExecutorEvent): RefusalReason | null {
    this.noChange = false
    const at = this.advanceTo(event.atMs)
    const reason = this.applyAt(event, at)
    if (event.kind === 'tick') this.omitted += event.omitted ?? 0
    else if (reason === null && !this.noChange) this.changeCount++
    this.afterChange(at)
    this.fireTimers(at)
    if (this.bounded && (event.kind === 'tick' || (reason === null ? this.noChange : !this.keepRefusal(reason, event)))) {
      // A clock move, or an event that changed nothing and is not kept: the log keeps its time.
      const dropped = event.kind !== 'tick' && reason !== null ? 1 : 0
      this.omitted += dropped
      this.logClock(at, event.kind === 'tick' ? (event.omitted ?? 0) : dropped)
      return reason
    }
    if (reason) this.refused.push({ index: this.history.length, reason })
    this.history.push(event)
    return reason
  }

  /** Whether a refusal is logged: the first `KEPT_REFUSALS` of its reason, with ids short enough to keep; the rest are counted. */
  private keepRefusal(reason: RefusalReason, event: ExecutorEvent): boolean {
    const seen = (this.refusalsSeen.get(reason) ?? 0) + 1
    this.refusalsSeen.set(reason, seen)
    if (seen > KEPT_REFUSALS) return false
    const ids = ('branchId' in event ? event.branchId.length : 0) + ('peerId' in event ? event.peerId.length : 0)
    return ids <= KEPT_ID_CHARS
  }

  /** Logs a clock move at `at`, merged into the last entry when it is a clock move not yet read. */
  private logClock(at: number, omitted: number): void {
    const last = this.history.length - 1
    const previous = last >= this.sealed ? this.history[last] : undefined
    if (previous?.kind === 'tick') {
      const count = (previous.omitted ?? 0) + omitted
      this.history[last] = count > 0 ? { kind: 'tick', atMs: Math.max(previous.atMs, at), omitted: count } : { kind: 'tick', atMs: Math.max(previous.atMs, at) }
      return
    }
    this.history.push(omitted > 0 ? { kind: 'tick', atMs: at, omitted } : { kind: 'tick', atMs: at })
  }

  /** Counts the events that changed the state and the timers fired: unchanged across an event that changed nothing (nothing to save). */
  changes(): number {
    return this.changeCount
  }

  /** Moves the clock (a `tick` in the log): timers due by then fire. */
  tick(atMs: number): void {
    this.apply({ kind: 'tick', atMs })
  }

  /** The log so far: `simulate(policy, log)` gives this machine's state. */
  log(): readonly ExecutorEvent[] {
    this.sealed = this.history.length
    return [...this.history]
  }

  /** How many events the log holds: `simulate(policy, logPrefix(n))` is the state when it held n. */
  logLength(): number {
    this.sealed = this.history.length
    return this.history.length
  }

  /** The first `length` events of the log (a copy of the array, the events shared). */
  logPrefix(length: number): readonly ExecutorEvent[] {
    this.sealed = this.history.length
    return this.history.slice(0, length)
  }

  /** The events of the log from `start` on (a copy of the array, the events shared). */
  logFrom(start: number): ExecutorEvent[] {
    this.sealed = this.history.length
    return this.history.slice(start)
  }

  /** Moves the clock to `atMs` (never back), firing every timer due by then; returns the clock. */
  private advanceTo(atMs: number): number {
    const target = this.started ? Math.max(this.nowMs, atMs) : atMs
    this.started = true
    this.fireTimers(target)
    this.nowMs = target
    return target
  }

  /** The next time a timer is due, or null: the live executor sleeps until then. */
  nextDueMs(): number | null {
    return this.findNextTimer() ? this.due.dueMs : null
  }

  /** When the invocation returns (the decision or the settlement: `waitFor`), or null; no copy of the state. */
  returnsAtMs(): number | null {
    return this.decision === null ? null : this.policy.completion.waitFor === 'decision' ? this.decision.atMs : this.settledAtMs
  }

  /** When every branch became terminal after the decision, or null. */
  settledAt(): number | null {
    return this.settledAtMs
  }

  /**
   * Settled, and no cancel request waiting for its reply or its timeout: nothing can change the
   * state any more, so a live executor stops listening. A branch that became terminal while its
   * cancel request is out (a ballot that came before the peer's `stopped`) still takes the reply,
   * or `timed-out` at the timeout, whatever its status (events.ts).
   */
  quiet(): boolean {
    if (this.settledAtMs === null) return false
    for (const b of this.branches) if (b.cancel === 'requested') return false
    return true
  }

  /** Copies of the branches whose cancel request is outstanding: the live executor's per-event check copies nothing when there are none. */
  cancelRequested(): readonly BranchState[] {
    let found: BranchState[] | undefined
    for (const b of this.branches) if (b.cancel === 'requested') (found ??= []).push(snapshot(b))
    return found ?? []
  }

  /** The admission (pending, refused or admitted), without copying the rest of the state. */
  admissionState(): ExecutorState['admission'] {
    return this.admission
  }

  /** Copies of the branches in either status, in admission order (no copy of the rest of the state). */
  branchesIn(status: BranchStatus, other: BranchStatus): BranchState[] {
    const found: BranchState[] = []
    for (const b of this.branches) if (b.status === status || b.status === other) found.push(snapshot(b))
    return found
  }

  /** A copy of one branch's state, or undefined. */
  branch(branchId: string): BranchState | undefined {
    const b = this.byId.get(branchId)
    return b ? snapshot(b) : undefined
  }

  state(): ExecutorState {
    const branches: BranchState[] = this.branches.map((b) => snapshot(b))
    const returnsAtMs = this.decision === null ? null : this.policy.completion.waitFor === 'decision' ? this.decision.atMs : this.settledAtMs
    return Object.freeze(
      new StateRecord(
        this.admission,
        this.nowMs,
        Object.freeze(branches),
        Object.freeze([...this.votes]),
        this.decision,
        this.settledAtMs,
        returnsAtMs,
        Object.freeze([...this.refused]),
        this.omitted,
      ),
    )
  }

  private applyAt(event: ExecutorEvent, at: number): RefusalReason | null {
    if (event.kind === 'tick') return null
    if (this.admission.status !== 'admitted') {
      if (event.kind === 'admitted' && this.admission.status === 'pending') {
        this.admit(event.branches, event.eligible, at)
        return null
      }
      return 'before-admission'
    }
    if (this.lost) return 'after-loss'
    if (this.policy.completion.mode === 'none') return 'no-completion'
    switch (event.kind) {
      case 'admitted':
        return 'duplicate'
      case 'result':
        return this.result(event, at)
      case 'failed':
      case 'lease-expired':
        return this.failure(event.branchId, event.attempt, event.fence, event.kind === 'lease-expired' || event.retryable, at)
      case 'claimed': {
        const b = this.byId.get(event.branchId)
        if (!b) return 'unknown-branch'
        if (b.status !== 'open') return 'not-open'
        if (b.peerId !== event.peerId) return 'wrong-peer'
        if (!(event.fence > b.fence)) return 'stale-fence'
        b.fence = event.fence
        return null
      }
      case 'cancel':
        if (this.decision) return 'decided'
        this.decide('cancelled', 'cancelled', at)
        return null
      case 'cancel-answered': {
        const b = this.byId.get(event.branchId)
        if (!b) return 'unknown-branch'
        if (b.cancel !== 'requested') return 'not-requested'
        if (b.attempt !== event.attempt) return 'stale-attempt'
        if (b.fence !== event.fence) return 'stale-fence'
        b.cancel = event.reply
        if (event.reply === 'stopped' && !isTerminal(b.status)) this.terminate(b, 'stopped', at)
        return null
      }
      case 'revoked':
        // A peer already revoked, or one that neither holds a branch nor could be assigned one, loses nothing.
        if (
          this.revokedPeers.has(event.peerId) ||
          !(this.eligible.includes(event.peerId) || this.branches.some((b) => b.peerId === event.peerId && !isTerminal(b.status)))
        ) {
          this.noChange = true
          return null
        }
        this.revokedPeers.add(event.peerId)
        for (const b of this.branches) if (b.peerId === event.peerId && !isTerminal(b.status)) this.terminate(b, 'revoked', at)
        return null
      case 'lost':
        this.lost = true
        // Every non-terminal branch first (one waiting for a retry included: it is not known to
        // have failed), then the decision, which would otherwise end a waiting branch as failed.
        for (const b of this.branches) if (!isTerminal(b.status)) this.terminate(b, 'indeterminate', at)
        if (!this.decision) this.decide('indeterminate', 'lost', at)
        return null
    }
  }

  private admit(branches: readonly { branchId: string; peerId: string; fence: number }[], eligible: readonly string[], at: number): void {
    const refuse = (reason: AdmissionRefusal) => {
      this.admission = Object.freeze({ status: 'refused', reason })
    }
    if (branches.length === 0) return refuse('empty-audience')
    if (new Set(branches.map((b) => b.branchId)).size !== branches.length) return refuse('invalid-admission')
    if (this.policy.dispatch === 'one-eligible' && (branches.length !== 1 || eligible[0] !== branches[0]!.peerId)) return refuse('invalid-admission')
    const { completion } = this.policy
    const units = completion.unit === 'distinct-peers' ? new Set(branches.map((b) => b.peerId)).size : branches.length
    let threshold: number | null = null
    if (completion.mode === 'first-success') threshold = 1
    else if (completion.mode === 'all-successful') threshold = units
    else if (completion.mode === 'quorum') {
      const rule = completion.quorum
      if (!rule) return refuse('invalid-admission')
      if ('count' in rule) {
        if (!Number.isSafeInteger(rule.count) || rule.count < 1) return refuse('invalid-admission')
        threshold = rule.count
      } else {
        try {
          threshold = quorumThreshold(rule.fraction.numerator, rule.fraction.denominator, units)
        } catch {
          return refuse('invalid-admission')
        }
      }
    }
    if (threshold !== null && threshold > units) return refuse('impossible-threshold')
    this.oneBranchPerUnit = units === branches.length
    this.eligible = [...eligible]
    for (const a of branches) {
      const b: MutableBranch = {
        branchId: a.branchId,
        admittedPeerId: a.peerId,
        peerId: a.peerId,
        status: 'open',
        attempt: 1,
        fence: a.fence,
        retryAtMs: null,
        terminalAtMs: null,
        cancel: 'none',
        cancelRequestedAtMs: null,
      }
      this.branches.push(b)
      this.byId.set(b.branchId, b)
    }
    this.admission = Object.freeze(new AdmittedState(at, at + completion.deadlineMs, units, threshold))
    if (completion.mode === 'none') {
      for (const b of this.branches) this.terminate(b, 'dispatched', at)
      this.decide('success', 'no-completion', at)
    }
  }

  private deadline(): number {
    return this.admission.status === 'admitted' ? this.admission.deadlineMs : Number.POSITIVE_INFINITY
  }

  private result(event: Extract<ExecutorEvent, { kind: 'result' }>, at: number): RefusalReason | null {
    const b = this.byId.get(event.branchId)
    if (!b) return 'unknown-branch'
    if (at >= this.deadline()) return 'late'
    if (!event.verified) return 'unverified'
    if (b.status !== 'open') return 'not-open'
    if (b.peerId !== event.peerId) return 'wrong-peer'
    if (b.attempt !== event.attempt) return 'stale-attempt'
    if (b.fence !== event.fence) return 'stale-fence'
    this.votes.push(Object.freeze(new VoteRecord(b.branchId, event.peerId, event.attempt, event.fence, event.success, at)))
    this.terminate(b, event.success ? 'succeeded' : 'unsuccessful', at)
    return null
  }

  private failure(branchId: string, attempt: number, fence: number, retryable: boolean, at: number): RefusalReason | null {
    const b = this.byId.get(branchId)
    if (!b) return 'unknown-branch'
    if (b.status !== 'open') return 'not-open'
    if (b.attempt !== attempt) return 'stale-attempt'
    if (b.fence !== fence) return 'stale-fence'
    const retryAt = at + this.policy.retry.retryBackoffMs
    if (retryable && b.attempt < this.policy.retry.maxAttempts && !this.decision && retryAt < this.deadline()) {
      b.status = 'retry-wait'
      b.retryAtMs = retryAt
    } else this.terminate(b, 'failed', at)
    return null
  }

  private terminate(b: MutableBranch, status: BranchStatus, at: number): void {
    b.status = status
    b.retryAtMs = null
    b.terminalAtMs = at
  }

  private decide(outcome: DecisionOutcome, reason: DecisionReason, at: number): void {
    this.decision = Object.freeze(new DecisionRecord(outcome, reason, at, Object.freeze([...this.votes]), this.unitCounts().success))
    for (const b of this.branches) {
      // Once decided no new attempt starts.
      if (b.status === 'retry-wait') this.terminate(b, 'failed', at)
      else if (b.status === 'open' && this.policy.completion.remaining === 'cooperative' && !this.lost) {
        b.cancel = 'requested'
        b.cancelRequestedAtMs = at
      }
    }
  }

  private unitCounts(): { success: number; open: number; terminal: number; units: number } {
    // One branch, one unit: counted in place, no grouping (this runs after every event).
    if (this.policy.completion.unit !== 'distinct-peers' || this.oneBranchPerUnit) {
      let success = 0
      let open = 0
      let terminal = 0
      for (const b of this.branches) {
        const succeeded = b.status === 'succeeded'
        const done = isTerminal(b.status)
        if (succeeded) success++
        if (done) terminal++
        if (!succeeded && !done) open++
      }
      return { success, open, terminal, units: this.branches.length }
    }
    const byUnit = new Map<string, MutableBranch[]>()
    for (const b of this.branches) {
      const key = this.policy.completion.unit === 'distinct-peers' ? b.admittedPeerId : b.branchId
      const list = byUnit.get(key)
      if (list) list.push(b)
      else byUnit.set(key, [b])
    }
    let success = 0
    let open = 0
    let terminal = 0
    for (const list of byUnit.values()) {
      const succeeded = list.some((b) => b.status === 'succeeded')
      const allTerminal = list.every((b) => isTerminal(b.status))
      if (succeeded) success++
      if (allTerminal) terminal++
      if (!succeeded && !allTerminal) open++
    }
    return { success, open, terminal, units: byUnit.size }
  }

  /** Decides when the rules say so, then records the settlement. */
  private afterChange(at: number): void {
    if (this.admission.status !== 'admitted') return
    if (!this.decision) {
      const { mode } = this.policy.completion
      const k = this.admission.threshold
      const c = this.unitCounts()
      if (mode === 'all-terminal') {
        if (c.terminal === c.units) this.decide('success', 'settled', at)
      } else if (k !== null) {
        if (c.success >= k) this.decide('success', 'threshold', at)
        else if (c.success + c.open < k) this.decide('failure', 'impossible', at)
      }
    }
    if (this.decision && this.settledAtMs === null && this.branches.every((b) => isTerminal(b.status))) this.settledAtMs = at
  }

  /**
   * Finds the earliest due timer, the lower kind first on a tie, into `due` (kept on the machine:
   * this runs twice per event and once per live reaction, so it makes no object). False when none.
   */
  private findNextTimer(): boolean {
    const due = this.due
    due.found = false
    due.branch = undefined
    if (this.admission.status !== 'admitted') return false
    // After a loss only cancel requests already sent still time out (events.ts: whatever the
    // branch's status); nothing else runs.
    if (!this.decision && !this.lost) consider(due, this.admission.deadlineMs, TimerKind.Deadline, undefined)
    let anyOpen = false
    for (const b of this.branches) {
      if (!isTerminal(b.status)) anyOpen = true
      if (b.cancel === 'requested' && b.cancelRequestedAtMs !== null)
        consider(due, b.cancelRequestedAtMs + this.policy.completion.cancelTimeoutMs, TimerKind.CancelTimeout, b)
      if (this.lost) continue
      if (b.status === 'retry-wait' && b.retryAtMs !== null) consider(due, b.retryAtMs, TimerKind.RetryStart, b)
    }
    if (this.decision && !this.lost && anyOpen) consider(due, this.decision.atMs + this.policy.retry.settlementGraceMs, TimerKind.SettlementEnd, undefined)
    return due.found
  }

  /** Fires timers due at or before `limit`, each at its own due time. Bounded: every firing ends a timer for good. */
  private fireTimers(limit: number): void {
    while (this.findNextTimer() && this.due.dueMs <= limit) {
      const at = Math.max(this.due.dueMs, this.nowMs)
      this.nowMs = at
      this.changeCount++
      this.fire(this.due.kind, this.due.branch, at)
      this.afterChange(at)
    }
  }

  private fire(kind: TimerKind, b: MutableBranch | undefined, at: number): void {
    switch (kind) {
      case TimerKind.Deadline:
        this.decide(this.policy.completion.onTimeout === 'partial' ? 'partial' : 'failure', 'timeout', at)
        return
      case TimerKind.CancelTimeout:
        if (b) b.cancel = 'timed-out'
        return
      case TimerKind.RetryStart:
        if (b) this.startRetry(b, at)
        return
      case TimerKind.SettlementEnd:
        for (const x of this.branches) if (!isTerminal(x.status)) this.terminate(x, 'indeterminate', at)
        return
    }
  }

  private startRetry(b: MutableBranch, at: number): void {
    b.retryAtMs = null
    b.attempt += 1
    b.fence += 1
    if (this.policy.dispatch === 'one-eligible') {
      const next = nextEligible(this.eligible, b.peerId, this.revokedPeers)
      if (next === null) return this.terminate(b, 'revoked', at)
      b.peerId = next
    }
    b.status = 'open'
  }
}

/** The next peer after `current` in lexicographic (list) order, wrapping, skipping revoked peers. */
export function nextEligible(eligible: readonly string[], current: string, revoked: ReadonlySet<string>): string | null {
  const from = eligible.indexOf(current)
  for (let i = 1; i <= eligible.length; i++) {
    const peer = eligible[(from + i + eligible.length) % eligible.length]!
    if (!revoked.has(peer)) return peer
  }
  return null
}

/** `DecisionCore.quiet` of a state (a replayed log's, `simulate`): settled, with no cancel request outstanding. */
export function quietState(state: { readonly settledAtMs: number | null; readonly branches: ReadonlyArray<{ readonly cancel: string }> }): boolean {
  return state.settledAtMs !== null && !state.branches.some((b) => b.cancel === 'requested')
}
