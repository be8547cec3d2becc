/**
 * The invariants every fault test on a cluster checks, in one place (issue 37): no message the
 * stream acknowledged is lost, none stored twice (`expectAcknowledgedKept`), no decision taken
 * twice (`expectDecidedOnce`), no result admitted from a stale fence, every wait bounded
 * (`bounded`). The durable suites check all of them at once (`expectDurableInvariants`): a fault
 * test gathers what the stream acknowledged before its fault and hands the outcome here.
 */
import type { NatsConnection } from '@nats-io/nats-core'
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream'
import { expect } from 'vitest'
import type { Interaction } from '../../src/runtime/nats/interactions.js'
import { openClaimStore, planInteraction, simulate, type Executor, type ExecutorEvent } from '../../src/runtime/nats/executor/index.js'
import type { InvocationOutcome } from '../../src/runtime/nats/executor/executor.js'
import { claimKey, type DurableBinding } from '../../src/runtime/nats/executor/durable/executor.js'
import { openRecordBucket } from '../../src/runtime/nats/executor/durable/records.js'
import { operationStore } from '../../src/runtime/nats/executor/durable/store.js'
import { until } from '../helpers/until.js'

export { bounded } from '../helpers/bounded.js'

/** Messages a stream holds per subject under `filter` (asked of whichever node answers; bounded). */
export async function storedSubjects(connection: NatsConnection, stream: string, filter: string): Promise<Record<string, number>> {
  return until(
    `the subjects of ${filter} in ${stream}`,
    async () => {
      try {
        // Made inside the bounded loop: a cluster settling may answer "temporarily unavailable" to the first question too.
        const jsm = await jetstreamManager(connection, { timeout: 5000 })
        return ((await jsm.streams.info(stream, { subjects_filter: filter })).state.subjects ?? {}) as Record<string, number>
      } catch {
        return undefined
      }
    },
    30_000,
    200,
  )
}

/**
 * No acknowledged message lost, none stored twice: each acknowledgment's sequence holds the very
 * message acknowledged (by `keyOf`, a key of its payload), and the stream holds nothing else.
 */
export async function expectAcknowledgedKept<K>(
  jsm: JetStreamManager,
  stream: string,
  acknowledged: ReadonlyMap<K, { readonly stream: string; readonly seq: number }>,
  keyOf: (payload: unknown) => K,
): Promise<void> {
  const info = await jsm.streams.info(stream)
  const stored = new Map<number, K>()
  const seen = new Set<K>()
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
    const msg = await jsm.streams.getMessage(stream, { seq })
    const key = keyOf(msg!.json<unknown>())
    if (seen.has(key)) throw new Error(`${String(key)} is stored twice in ${stream} (again at ${seq})`)
    seen.add(key)
    stored.set(seq, key)
  }
  for (const [key, ack] of acknowledged) expect([key, ack.stream, stored.get(ack.seq)]).toEqual([key, stream, key])
  expect(stored.size).toBe(acknowledged.size)
}

/**
 * Decided once, by the executor's own record: its log replayed through the pure decision core gives
 * the state it answered, whose decision is the outcome's (a second decision would be refused there).
 */
export function expectDecidedOnce(executor: Executor, interaction: Interaction, outcome: InvocationOutcome): ReturnType<typeof simulate> {
  const log = executor.log(outcome.operationId)
  const plan = planInteraction(interaction)
  if (!log.ok || !plan.ok) throw new Error('no log or plan')
  const replayed = simulate(plan.value.policy, log.value)
  // `nowMs` is the clock when each state was read (the answer may be read a few ms after the log's
  // last event on a busy machine): everything the log decides must agree, the reading time need not.
  expect({ ...replayed, nowMs: 0 }).toEqual({ ...outcome.state, nowMs: 0 })
  expect(replayed.decision).toEqual(outcome.decision)
  return replayed
}

export interface DurableFaultRun {
  /** A connection to the cluster (any running node). */
  readonly connection: NatsConnection
  readonly binding: DurableBinding
  readonly interaction: Interaction
  readonly executor: Executor
  readonly outcome: InvocationOutcome
  /** The requests' and results' subjects under the request stream, `<op>` standing for the operation id. */
  readonly offers: string
  readonly results: string
  /** Offers the stream acknowledged before the fault (subject -> messages): none may be missing after it. */
  readonly acknowledged: Record<string, number>
}

/**
 * The fault invariants of a durable interaction:
 * - no acknowledged message lost: every offer the stream acknowledged before the fault is still
 *   there; none stored twice: each offer once per attempt, to the peer the log sent it to (its
 *   message id names the attempt), each voting peer's result once;
 * - no decision taken twice: the decision record holds this decision and a second writer loses;
 *   the executor's log replayed through the pure core gives the same state;
 * - no result admitted from a stale fence: every vote, and every result the log admitted, carries
 *   the fence of its branch's committed claim.
 */
export async function expectDurableInvariants(run: DurableFaultRun): Promise<void> {
  const { connection, binding, outcome } = run
  const id = outcome.operationId
  const stream = binding.requestStream
  const offers = await storedSubjects(connection, stream, run.offers.replace('<op>', id))
  const lost = Object.entries(run.acknowledged).filter(([subject, count]) => (offers[subject] ?? 0) < count)
  expect(lost).toEqual([])
  // The peer each attempt was offered to, by the executor's log: the admitted branches' first peers,
  // then a peer per claim of a later attempt (a lease lost may hand the branch to another courier).
  const log = run.executor.log(id)
  if (!log.ok) throw new Error(log.message)
  const sentTo = new Map<string, number>()
  const sent = (peerId: string) => sentTo.set(peerId, (sentTo.get(peerId) ?? 0) + 1)
  for (const event of log.value) {
    if (event.kind === 'admitted') for (const b of event.branches) sent(b.peerId)
    if (event.kind === 'claimed') sent(event.peerId)
  }
  const offerOf = (peerId: string) => run.offers.replace('<op>', id).replace('*', peerId)
  const resultOf = (peerId: string) => run.results.replace('<op>', id).replace('*', peerId)
  expect(offers).toEqual(Object.fromEntries([...sentTo].map(([peerId, count]) => [offerOf(peerId), count])))
  expect([...sentTo.values()].reduce((a, b) => a + b, 0)).toBe(outcome.state.branches.reduce((a, b) => a + b.attempt, 0))
  // One result an attempt at most (its message id names the attempt), one at least for every vote.
  const results = await storedSubjects(connection, binding.resultStream, run.results.replace('<op>', id))
  for (const [peerId, count] of sentTo) expect([peerId, (results[resultOf(peerId)] ?? 0) <= count]).toEqual([peerId, true])
  for (const vote of outcome.decision.votes) expect(results[resultOf(vote.peerId)]).toBeGreaterThanOrEqual(1)

  const bucket = await openRecordBucket(connection, binding.stateBucket)
  if (!bucket.ok) throw new Error(bucket.message)
  const store = operationStore(bucket.value)
  const recorded = await store.decision(id)
  expect(recorded.ok && recorded.value?.value).toEqual(outcome.decision)
  expect(await store.decide(id, { ...outcome.decision, outcome: 'failure', reason: 'impossible' })).toEqual({
    ok: true,
    value: { decision: outcome.decision, won: false },
  })
  const replayed = expectDecidedOnce(run.executor, run.interaction, outcome)

  if (!binding.claimBucket) return
  const claims = await openClaimStore(connection, binding.claimBucket)
  if (!claims.ok) throw new Error(claims.message)
  const refused = new Set(replayed.refused.map((r) => r.index))
  type Fenced = { branchId: string; peerId: string; attempt: number; fence: number }
  const admitted: Fenced[] = log.value.filter(
    (event, index): event is Extract<ExecutorEvent, { kind: 'result' }> => event.kind === 'result' && !refused.has(index),
  )
  expect(admitted.length).toBeGreaterThanOrEqual(outcome.decision.votes.length)
  for (const r of [...admitted, ...outcome.decision.votes] as Fenced[]) {
    // Read again (bounded) while the claim stream elects: a node rejoining after a cut can unseat its leader.
    const claim = await until(
      'the claim readable',
      async () => {
        const read = await claims.value.read(claimKey(id, r.branchId))
        return read.ok ? read : undefined
      },
      30_000,
      200,
    )
    expect(claim.ok && claim.value?.claim).toMatchObject({ peerId: r.peerId, attempt: r.attempt, fence: r.fence, state: 'committed' })
  }
}

/** The fault invariants of the shop's courier offers (`shipping.couriers.<op>.offer.*`, answered on `.accept.*`). */
export const expectCourierInvariants = (run: Omit<DurableFaultRun, 'offers' | 'results'>): Promise<void> =>
  expectDurableInvariants({ ...run, offers: 'shipping.couriers.<op>.offer.*', results: 'shipping.couriers.<op>.accept.*' })

/**
 * The three-courier fan-out's verdict after a fault: settled as a success, each branch decided on
 * its first attempt (c-bob's courier answers unsuccessful by design), none retried: every lease
 * outlasts the faults, so a second attempt would mean a claim left to lapse. Given the executor, a
 * verdict that differs names the log's events of the branches concerned (claims, expiries, results,
 * ms after admission).
 */
export function expectFanOutSettled(outcome: InvocationOutcome, executor?: Executor): void {
  const retried = new Set(outcome.state.branches.filter((b) => b.attempt !== 1).map((b) => b.branchId))
  const log = executor?.log(outcome.operationId)
  const admittedAt = log?.ok ? (log.value[0]?.atMs ?? 0) : 0
  const trace = log?.ok ? log.value.filter((e) => 'branchId' in e && retried.has(e.branchId)).map((e) => ({ ...e, atMs: e.atMs - admittedAt })) : 'no log'
  expect(outcome.decision).toMatchObject({ outcome: 'success', reason: 'settled' })
  expect(
    outcome.state.branches.map((b) => [b.branchId, b.status, b.attempt]),
    `retried: ${JSON.stringify(trace)}`,
  ).toEqual([
    ['c-ann', 'succeeded', 1],
    ['c-bob', 'unsuccessful', 1],
    ['c-cat', 'succeeded', 1],
  ])
}
