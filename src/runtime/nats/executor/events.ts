/**
 * The interaction executor's pure decision core: its event log, the policy taken from an
 * interaction descriptor, and the state it reports. `simulate(policy, events)` runs the executor's
 * own core over a log on a simulated clock; the live executor appends to the same log and reads the
 * same state.
 *
 * This file holds only types and the `simulate` signature (`Simulate`); the implementation is the
 * `simulate` export of `./decision/simulate.ts`, re-exported here.
 *
 * The rules, exactly (profile v0.2, "Delivery, retries and ownership" and "Completion and
 * cancellation"; where the profile defers to runtime semantics, the choice is marked CHOICE):
 *
 * Clock. Every event has `atMs`; the clock is the largest `atMs` seen (an event earlier than the
 * clock is applied at the clock). Before an event at `atMs` is applied, every timer due at or
 * before `atMs` fires, in due-time order, each at its own due time; timers due at the same time
 * fire in this order: the deadline, cancel timeouts, retry starts, the settlement end. After an
 * event is applied, the timers it made due at or before its time fire too (a zero backoff starts
 * the retry at once). So a result at exactly the deadline is late, and a cancel reply at exactly
 * its timeout is too late.
 *
 * Refusals. `tick` is never refused. Before admission (or after a refused admission) every other
 * event is refused `before-admission`; after a `lost`, `after-loss`; with completion `none`, `no-
 * completion`. A `cancel` after the decision is refused `decided`. A `revoked` is never refused.
 * The other events are refused by the checks below, in the order given (the first failing check is
 * the reason); a refused event changes nothing.
 *
 * Admission. The first `admitted` event admits the operation (later ones are refused, `duplicate`).
 * Admission is refused (state `refused`, no decision) when it has no branch (`empty-audience`),
 * duplicate branch ids (`invalid-admission`), a one-eligible dispatch without exactly one branch or
 * with a branch peer that is not `eligible[0]` (`invalid-admission`), or a threshold greater than
 * the admitted units (`impossible-threshold`). Units are frozen: distinct-branches counts branches,
 * distinct-peers counts distinct `peerId`s of the admitted branches; a branch belongs to the unit
 * of its admitted peer for its whole life. Each branch starts `open` at attempt 1 with its
 * admission fence. The deadline is `admittedAtMs + completion.deadlineMs`.
 *
 * Completion `none` (dispatch-only). CHOICE: decided at admission, outcome `success`, reason `no-
 * completion`; every branch is `dispatched` (terminal); every later event is refused (`no-
 * completion`).
 *
 * Results. A `result` is admitted only if (checked in this order, the first failure is the refusal
 * reason): the branch exists (`unknown-branch`); `verified` (`unverified`); the branch is `open`
 * (`not-open`: terminal or waiting for a retry); `peerId` is the branch's current peer (`wrong-
 * peer`); `attempt` equals the branch's attempt (`stale-attempt`); `fence` equals the branch's
 * fence (`stale-fence`). A result at or after the deadline is refused `late` (checked right after
 * the branch exists). An admitted result makes the branch `succeeded` (success true) or
 * `unsuccessful` (success false), both terminal; it is recorded as a vote.
 *
 * Units and the decision (evaluated after every applied event and timer while undecided). A unit
 * succeeds when one of its branches succeeded; it is terminal when all its branches are terminal;
 * `open units` are units neither successful nor terminal. With S successful units, O open units and
 * U admitted units, threshold k: first-success k = 1, quorum k = `count` or `ceil(numerator * U /
 * denominator)`, all-successful k = U, all-terminal has no threshold.
 *   first-success, quorum: success (`threshold`) when S >= k; failure (`impossible`) when
 *   S + O < k.
 *   all-successful: success (`threshold`) when S = U; failure (`impossible`) when S + O < U.
 *   all-terminal: success (`settled`) when every unit is terminal (CHOICE: whatever the votes).
 *   At the deadline, still undecided: `onTimeout` fail gives failure, partial gives partial
 *   (reason `timeout`).
 *   `cancel` (by the invoker) while undecided: outcome `cancelled` (reason `cancelled`).
 *   `lost` (memory state, executor restart: fail-unknown): while undecided, outcome `indeterminate`
 *   (reason `lost`); decided or not, every non-terminal branch becomes `indeterminate` at once (no
 *   cancel request is sent).
 * The decision is made once and never changes; its `votes` are the admitted results at that moment.
 *
 * Retries. A `failed` (committed failure) or `lease-expired` event for the branch's current attempt
 * and fence of an `open` branch (otherwise refused, in this order: `unknown-branch`, `not-open`,
 * `stale-attempt`, `stale-fence`) ends that attempt; it may come after the deadline. If the failure
 * is retryable (a lease expiry always is: onLoss retry), the attempt is below `maxAttempts`, the
 * operation is undecided and `atMs + retryBackoffMs` is before the deadline, the branch waits
 * (`retry-wait`, `retryAtMs`); otherwise it is `failed` (terminal). At `retryAtMs` the retry
 * starts: attempt + 1, fence + 1 (CHOICE: the core's fence is a counter; a live claim with a higher
 * fence raises it through `claimed`), state `open`, and for a one-eligible dispatch the peer
 * becomes the next peer after the current one in `eligible` order (wrapping, skipping revoked
 * peers; none left: the branch is `revoked`). CHOICE: once decided, no new attempt starts: a branch
 * waiting for a retry at the decision becomes `failed`. A `claimed` event is applied when the
 * branch is `open`, its peer is the branch's current peer and its fence is greater than the
 * branch's fence (the fence becomes it); otherwise refused, in this order: `unknown-branch`, `not-
 * open`, `wrong-peer`, `stale-fence`.
 *
 * Cancellation and settlement. When the decision is made with `remaining: cooperative`, every open
 * branch gets a cancel request (cancel state `requested`, `requestedAtMs`, for its attempt and
 * fence); a branch waiting for a retry is `failed` (above). A `cancel-answered` event is applied
 * only to a branch whose cancel is `requested`, for that attempt and fence, before `requestedAtMs +
 * cancelTimeoutMs` (otherwise refused, in this order: `unknown-branch`, `not-requested` (a timed-
 * out request included), `stale-attempt`, `stale-fence`): the cancel state becomes the reply;
 * `stopped` makes a non-terminal branch `stopped`; `already-completed` and `unknown` set the cancel
 * state and leave the branch open (its result may still come). At the cancel timeout a request
 * still `requested` becomes `timed-out` (whatever the branch's status). After the decision, results
 * keep being admitted as branch facts (they never change the decision) until the deadline. At
 * `decision.atMs + settlementGraceMs` every non-terminal branch becomes `indeterminate`. A
 * `revoked` event makes every non-terminal branch whose current peer is `peerId` `revoked`
 * (terminal; earlier admitted results stay facts), before or after the decision. The operation is
 * settled when every branch is terminal and the decision is made; `settledAtMs` is the later of the
 * two moments. `returnsAtMs` is `decision.atMs` for `waitFor: decision`, `settledAtMs` for
 * `waitFor: settled`.
 *
 * The live log. A `revoked` for a peer already revoked, or for one that holds no non-terminal
 * branch and is not in `eligible`, changes nothing. The live executors log a refused event only
 * for the first few of each reason (`KEPT_REFUSALS` in `./decision/machine.ts`); the others, and
 * a `revoked` that changes nothing, are logged as a `tick` at their time (consecutive ones merged),
 * whose `omitted` counts the refusals it stands for; the state counts them in `refusalsOmitted`.
 * So `simulate` over the live log gives the live state, and the log grows with what the operation
 * admitted, not with what peers send.
 */

export type CompletionMode = 'none' | 'first-success' | 'all-terminal' | 'all-successful' | 'quorum'
export type CompletionUnit = 'distinct-branches' | 'distinct-peers'
export type DispatchMode = 'direct' | 'independent' | 'one-eligible' | 'branches' | 'none'

/** The quorum: exactly one of a count or a fraction of the admitted units. */
export type QuorumRule = { readonly count: number } | { readonly fraction: { readonly numerator: number; readonly denominator: number } }

/** The completion rules, from the descriptor's `completion` (all times in milliseconds). */
export interface CompletionPolicy {
  readonly mode: CompletionMode
  readonly unit: CompletionUnit
  /** Only with mode `quorum`. */
  readonly quorum?: QuorumRule
  /** Relative to the admission commit. Ignored for mode `none`. */
  readonly deadlineMs: number
  readonly onTimeout: 'fail' | 'partial'
  readonly onImpossible: 'fail'
  readonly lateResults: 'discard'
  readonly remaining: 'detach' | 'cooperative'
  readonly waitFor: 'decision' | 'settled'
  /** With `remaining: cooperative`; 0 otherwise. */
  readonly cancelTimeoutMs: number
}

/** The retry rules, from the descriptor's `delivery` (and its `ownership`). */
export interface RetryPolicy {
  /** 1..16. */
  readonly maxAttempts: number
  /** Fixed, no jitter. */
  readonly retryBackoffMs: number
  readonly settlementGraceMs: number
}

export interface ExecutorPolicy {
  readonly dispatch: DispatchMode
  readonly completion: CompletionPolicy
  readonly retry: RetryPolicy
}

/** One branch as admitted: frozen at admission. */
export interface AdmittedBranch {
  readonly branchId: string
  readonly peerId: string
  /** The fence of attempt 1 (0 without ownership). */
  readonly fence: number
}

interface At {
  readonly atMs: number
}

export type ExecutorEvent =
  | (At & {
      readonly kind: 'admitted'
      readonly branches: readonly AdmittedBranch[]
      /** One-eligible: the audience's authorized peers in lexicographic order (the first is the initial assignee); [] otherwise. */
      readonly eligible: readonly string[]
    })
  | (At & {
      readonly kind: 'result'
      readonly branchId: string
      readonly peerId: string
      readonly attempt: number
      readonly fence: number
      /** The typed success predicate's value. */
      readonly success: boolean
      /** The result verifier (and authorization at result admission) accepted it. */
      readonly verified: boolean
      /**
       * Durable delivery: the result's sequence in the result stream, where its payload is read again
       * by an executor that drives the operation later and asks the aggregation (the log keeps the verdict, not the payload).
       */
      readonly seq?: number
    })
  | (At & { readonly kind: 'failed'; readonly branchId: string; readonly attempt: number; readonly fence: number; readonly retryable: boolean })
  | (At & { readonly kind: 'lease-expired'; readonly branchId: string; readonly attempt: number; readonly fence: number })
  | (At & { readonly kind: 'claimed'; readonly branchId: string; readonly peerId: string; readonly fence: number })
  | (At & { readonly kind: 'cancel' })
  | (At & {
      readonly kind: 'cancel-answered'
      readonly branchId: string
      readonly attempt: number
      readonly fence: number
      readonly reply: 'stopped' | 'already-completed' | 'unknown'
    })
  | (At & { readonly kind: 'revoked'; readonly peerId: string })
  | (At & { readonly kind: 'lost' })
  | (At & {
      readonly kind: 'tick'
      /** Refused events the live log keeps only as this clock move (beyond the first few of each reason); counted in `refusalsOmitted`. */
      readonly omitted?: number
    })

export type BranchStatus = 'open' | 'retry-wait' | 'succeeded' | 'unsuccessful' | 'failed' | 'revoked' | 'stopped' | 'indeterminate' | 'dispatched'

export type CancelStatus = 'none' | 'requested' | 'already-completed' | 'unknown' | 'timed-out' | 'stopped'

export interface BranchState {
  readonly branchId: string
  /** The peer the branch belongs to for its unit (its admitted peer). */
  readonly admittedPeerId: string
  /** The peer holding the current attempt (changes only on one-eligible reassignment). */
  readonly peerId: string
  readonly status: BranchStatus
  readonly attempt: number
  readonly fence: number
  /** Set while `retry-wait`. */
  readonly retryAtMs: number | null
  /** When the branch became terminal. */
  readonly terminalAtMs: number | null
  readonly cancel: CancelStatus
  readonly cancelRequestedAtMs: number | null
}

export interface Vote {
  readonly branchId: string
  readonly peerId: string
  readonly attempt: number
  readonly fence: number
  readonly success: boolean
  readonly atMs: number
}

export type DecisionOutcome = 'success' | 'failure' | 'partial' | 'cancelled' | 'indeterminate'
export type DecisionReason = 'threshold' | 'settled' | 'impossible' | 'timeout' | 'cancelled' | 'lost' | 'no-completion'

export interface Decision {
  readonly outcome: DecisionOutcome
  readonly reason: DecisionReason
  readonly atMs: number
  /** The admitted results at the moment of the decision, in admission order. */
  readonly votes: readonly Vote[]
  /** Successful units at the moment of the decision. */
  readonly successUnits: number
}

export type RefusalReason =
  | 'before-admission'
  | 'duplicate'
  | 'no-completion'
  | 'after-loss'
  | 'unknown-branch'
  | 'late'
  | 'unverified'
  | 'not-open'
  | 'wrong-peer'
  | 'stale-attempt'
  | 'stale-fence'
  | 'not-requested'
  | 'decided'

/** An event of the log that changed nothing, by its index in the log. */
export interface Refusal {
  readonly index: number
  readonly reason: RefusalReason
}

export type AdmissionRefusal = 'empty-audience' | 'invalid-admission' | 'impossible-threshold'

export interface ExecutorState {
  readonly admission:
    | { readonly status: 'pending' }
    | { readonly status: 'refused'; readonly reason: AdmissionRefusal }
    | {
        readonly status: 'admitted'
        readonly atMs: number
        readonly deadlineMs: number
        readonly admittedUnits: number
        /** null for modes without a threshold (none, all-terminal). */
        readonly threshold: number | null
      }
  readonly nowMs: number
  /** In admission order. */
  readonly branches: readonly BranchState[]
  /** Every admitted result, before or after the decision, in admission order. */
  readonly votes: readonly Vote[]
  readonly decision: Decision | null
  readonly settledAtMs: number | null
  readonly returnsAtMs: number | null
  readonly refused: readonly Refusal[]
  /** Refusals not in `refused`: a live executor logs the first few of each reason, and only the count of the rest (`tick.omitted`). */
  readonly refusalsOmitted?: number
}

/** Runs the executor's pure core over a log (pure: the same arguments give the same state). */
export type Simulate = (policy: ExecutorPolicy, events: readonly ExecutorEvent[]) => ExecutorState

export { simulate } from './decision/simulate.js'
