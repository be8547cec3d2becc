/**
 * The memory executor's idempotency record of an answered invocation: the decision and what the
 * rest of its outcome is rebuilt from when the invocation is repeated. The state the invocation
 * returned is `simulate` over the log as it was then: the core's first `logLength` events while
 * the core is kept; after (KEPT_CORES), the log in its least form. The usual log up to an answer,
 * the admission of one branch per peer followed by the results that are the decision's votes, is
 * kept as the admission time alone (the peers and the votes are kept anyway); any other log is
 * kept as it was. Nothing of the state (its branches, the votes again, the publications) is
 * copied per operation.
 */
import type { Decision, ExecutorEvent, ExecutorPolicy, ExecutorState } from './events.js'
import { simulate } from './decision/simulate.js'
import { KEPT_REFUSALS } from './decision/machine.js'

export interface Published {
  readonly branchId: string
  readonly attempt: number
  readonly ok: boolean
  readonly error?: string
}

export interface AnswerRecord {
  readonly decision: Decision
  readonly logLength: number
  readonly revision: string
  readonly peers: readonly string[]
  /** The publications, unless they were the peers' attempt 1, in order, all published. */
  readonly publications?: readonly Published[]
  readonly output?: unknown
  /** Set when the core is let go: the log up to the answer, or its admission time when the log is the usual one. */
  log?: readonly ExecutorEvent[]
  admittedAtMs?: number
}

/**
 * A class rather than a literal: V8 allocates a literal whose objects outlive young collections
 * (these are kept as long as the executor) straight into the old generation, where what it points
 * to while young outlives every young collection until a full one.
 */
class Answered implements AnswerRecord {
  log: readonly ExecutorEvent[] | undefined = undefined
  admittedAtMs: number | undefined = undefined
  constructor(
    readonly decision: Decision,
    readonly logLength: number,
    readonly revision: string,
    readonly peers: readonly string[],
    readonly publications: readonly Published[] | undefined,
    readonly output: unknown,
  ) {}
}

/** The record of an answer given now (the core's log `logLength` long). O(publications). */
export function answerRecord(
  decision: Decision,
  logLength: number,
  revision: string,
  peers: readonly string[],
  publications: readonly Published[],
  output: unknown,
): AnswerRecord {
  const usual = publications.length === peers.length && publications.every((p, i) => p.ok && p.attempt === 1 && p.branchId === peers[i])
  return new Answered(decision, logLength, revision, peers, usual ? undefined : [...publications], output)
}

/** The usual log up to an answer: one branch per peer admitted (fence 0), then each vote's verified result. O(peers + votes). */
function usualLog(admittedAtMs: number, peers: readonly string[], decision: Decision): ExecutorEvent[] {
  const log: ExecutorEvent[] = [{ kind: 'admitted', atMs: admittedAtMs, branches: peers.map((p) => ({ branchId: p, peerId: p, fence: 0 })), eligible: [] }]
  for (const v of decision.votes)
    log.push({ kind: 'result', atMs: v.atMs, branchId: v.branchId, peerId: v.peerId, attempt: v.attempt, fence: v.fence, success: v.success, verified: true })
  return log
}

/** Whether `log` replays as the usual log does: the same members the core reads, event by event. O(log). */
function isUsual(log: readonly ExecutorEvent[], peers: readonly string[], decision: Decision): boolean {
  const votes = decision.votes
  const first = log[0]
  if (log.length !== 1 + votes.length || first?.kind !== 'admitted' || first.eligible.length !== 0 || first.branches.length !== peers.length) return false
  for (let i = 0; i < peers.length; i++) {
    const b = first.branches[i]!
    if (b.branchId !== peers[i] || b.peerId !== peers[i] || b.fence !== 0) return false
  }
  for (let i = 0; i < votes.length; i++) {
    const e = log[i + 1]!
    const v = votes[i]!
    if (e.kind !== 'result' || !e.verified || e.atMs !== v.atMs || e.branchId !== v.branchId || e.peerId !== v.peerId) return false
    if (e.attempt !== v.attempt || e.fence !== v.fence || e.success !== v.success) return false
  }
  return true
}

/** Keeps the log up to the answer in the record before its core is let go. O(log). */
export function keepLog(record: AnswerRecord, log: readonly ExecutorEvent[]): void {
  const first = log[0]
  if (first?.kind === 'admitted' && isUsual(log, record.peers, record.decision)) record.admittedAtMs = first.atMs
  else record.log = log
}

/** The log up to the answer, once `keepLog` has kept it. O(log). */
export function answeredLog(record: AnswerRecord): readonly ExecutorEvent[] | undefined {
  return record.log ?? (record.admittedAtMs !== undefined ? usualLog(record.admittedAtMs, record.peers, record.decision) : undefined)
}

/** The state the answered invocation returned. `kept`: the core's log prefix, while the core is kept. O(log). */
export function answeredState(policy: ExecutorPolicy, record: AnswerRecord, kept: (() => readonly ExecutorEvent[]) | undefined): ExecutorState {
  return simulate(policy, answeredLog(record) ?? kept!())
}

/** The publications the answer listed. O(peers). */
export function answeredPublications(record: AnswerRecord): Published[] {
  return record.publications ? [...record.publications] : record.peers.map((branchId) => ({ branchId, attempt: 1, ok: true }))
}

/**
 * Logs an invoker's cancel of a settled, let-go operation (refused as decided) on its tail: the
 * first `KEPT_REFUSALS` as events, the rest as one clock move counting them, so repeated cancels
 * cannot grow the tail. O(tail).
 */
export function logSettledCancel(tail: ExecutorEvent[], atMs: number): void {
  if (tail.filter((e) => e.kind === 'cancel').length < KEPT_REFUSALS) {
    tail.push({ kind: 'cancel', atMs })
    return
  }
  const last = tail[tail.length - 1]
  if (last?.kind === 'tick') tail[tail.length - 1] = { kind: 'tick', atMs: Math.max(last.atMs, atMs), omitted: (last.omitted ?? 0) + 1 }
  else tail.push({ kind: 'tick', atMs, omitted: 1 })
}
