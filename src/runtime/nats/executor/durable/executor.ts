/**
 * The interaction executor in durable state (durable-per-recipient delivery, restart: resume):
 * - the admission record, the decision core's event log with the outbox, and the decision are
 *   records of a KV bucket (`./store.ts`); the log is written (compare-and-set) before anything it
 *   decides is sent, so an executor started again replays it through the core and goes on, and a
 *   second executor writing the same operation loses the compare-and-set and stops;
 * - a request is recorded in the outbox before it is published, with the message id
 *   `operation.branch.attempt`, and published again after a restart while not marked published:
 *   the stream's deduplication stores it once;
 * - results come through a durable consumer of the retained result stream, acknowledged only once
 *   the event they made is in the log: results published while no executor ran are admitted when
 *   one resumes the operation;
 * - with ownership, each attempt is a claim in the KV claim store (its fence the claim's revision),
 *   the responder renews and commits it, and the executor marks a claim past its lease expired
 *   (compare-and-set) and tells the core (`lease-expired`), which retries or reassigns.
 * Every decision comes from the pure core (`../decision/machine.ts`).
 */
import { errorText } from '../../../shared/error-text.js'
import type { NatsConnection, Subscription } from '@nats-io/nats-core'
import { jetstreamManager, type JetStreamManager, type JsMsg } from '@nats-io/jetstream'
import type { Interaction } from '../../interactions.js'
import type { Channel } from '../../subjects.js'
import type { OperationDescriptor } from '../../index.js'
import { check } from '../../../shared/validation.js'
import type { AdapterContext, AuthorizationStage, Deployment, ExecutorAdapters } from '../adapters.js'
import type { AdmittedBranch, BranchState, Decision, ExecutorEvent } from '../events.js'
import { DecisionCore, quietState } from '../decision/machine.js'
import { simulate } from '../decision/simulate.js'
import { sameJson } from '../same-json.js'
import { readExpression, type InteractionPlan } from '../policy.js'
import { ok, refuse, type ExecutorResult } from '../result.js'
import { admitInvocation, idempotencyConflict, invocationKey, requestOf } from '../admission.js'
import { manifestDispatch } from '../dispatch/branches.js'
import { openClaimStore, type ClaimStore } from '../ownership/claims.js'
import { checkDurableStream, consumeAll, consumerName, ensureConsumer, publishOnce, streamRetains, type Consumption } from '../delivery/jetstream.js'
import { openRecordBucket, settleRefusal } from './records.js'
import { replicasRefusal, streamReplicasRefusal, type Replicas } from './replicas.js'
import { operationStore, type AdmissionRecord, type OperationStore, type OutboxEntry } from './store.js'
import type { Executor, ExecutorModule, Invocation, InvocationOutcome, Publication } from '../executor.js'
import { parseJsonData } from '../../../shared/wire-json.js'
import { outputRefusal, voteKey } from '../aggregation-output.js'
import { allowedIn, allowedWithin, CLOSED, isThenable, unlessClosed } from '../adapter-answer.js'
import { strictUtf8 } from '../../../shared/utf8.js'

/** Where durable state lives: the deployment's binding of the delivery, state-store and ownership adapters. */
export interface DurableBinding {
  /** The file-backed limits stream (discard new) holding the request subjects. */
  readonly requestStream: string
  /** The retained stream holding the result subjects (may be the request stream). */
  readonly resultStream: string
  /** The executor's durable result consumer; default `exec-<interaction>-results`. */
  readonly resultConsumer?: string
  /** The KV bucket of admission records, event logs, outboxes and decisions. */
  readonly stateBucket: string
  /** The KV bucket of branch claims (needed with ownership). */
  readonly claimBucket?: string
  /** Acknowledgement wait of the consumers it creates (an unacknowledged message is redelivered after it); default 5000. */
  readonly ackWaitMs?: number
  /**
   * Deliveries of a result for an operation no executor here drives before it is terminated (it is
   * kept in the operation's state first, where a later resume admits it); default 30. A driving
   * executor in another process gets the result through these redeliveries.
   */
  readonly resultRedeliveries?: number
  /**
   * Replicas of the state and claim buckets when they are created here (existing buckets are used as
   * they are); default 1 on a single server, 3 on a cluster. Given, the request and result streams
   * must hold at least as many (see `./replicas.ts`).
   */
  readonly replicas?: Replicas
  /**
   * How long a read or write of the state bucket that the stream does not answer (an election, a
   * partition) is tried again before the executor gives up on it (`EXECUTOR_STATE_FAILED`, the
   * operation left to resume); default 20000, longer than an election on a loaded machine.
   */
  readonly settleMs?: number
}

/** The first and the longest wait before a request the stream did not acknowledge is published again. */
const REPUBLISH_FIRST_MS = 250
const REPUBLISH_MAX_MS = 4000
/**
 * Results and CancelResults handled at once (an operation's in its order, operations side by side):
 * the consumer pulls no more until one is done, so a flood waits on the server, not in this
 * process, and none waits here long enough for its ack wait to run out (see `consumeAll`).
 */
const RESULTS_IN_FLIGHT = 32
/**
 * Results of one operation whose adapters are asked at once: each result is queued as it is
 * delivered (its event applied in arrival order) and its adapters asked then, or once fewer than
 * this many of the operation's are being asked (a flood asks the adapters in turn).
 */
const RESULTS_PIPELINED = 64
/** A message whose data is not JSON (read once; see `readOf`). */
const NOT_JSON = Symbol('not JSON')

/** The result consumer's own bound on the deliveries of one message (above the redeliveries `route` allows). */
const resultMaxDeliver = (redeliveries: number) => redeliveries + 8

export interface DurableParts {
  readonly connection: NatsConnection
  readonly module: ExecutorModule
  readonly interaction: Interaction
  readonly contractDigest: string
  readonly deployment: Deployment
  readonly adapters: ExecutorAdapters<any, any>
  readonly now: () => number
  readonly binding: DurableBinding
}

/** A peer's bytes as text, strictly (utf8.ts): not UTF-8, or a byte order mark first, is not JSON. */
const decoder = strictUtf8
const isToken = (value: unknown): value is string => typeof value === 'string' && /^[A-Za-z0-9_-]+$/.test(value)

/** The message id of a branch's attempt: a republication of the same attempt is deduplicated. */
export const requestMessageId = (operationId: string, branchId: string, attempt: number) => `${operationId}.${branchId}.${attempt}`
/** The claim key of a branch (one claim per branch at a time; each attempt writes a new one). */
export const claimKey = (operationId: string, branchId: string) => `${operationId}.${branchId}`
/** A peer's durable request consumer. */
export const peerConsumer = (interaction: Interaction, peerId: string) => consumerName(`exec-${interaction.id}`, peerId)
/** The subject a channel's messages for one peer use: every other parameter a wildcard. */
export const peerSubject = (channel: Channel<any, any, any>, targetParameter: string | undefined, peerId: string) =>
  channel.address!.replace(/\{([^}]+)\}/g, (_, p: string) => (p === targetParameter ? peerId : '*'))

interface Live {
  readonly record: AdmissionRecord
  readonly outcome: Promise<ExecutorResult<InvocationOutcome<any>>>
  core?: DecisionCore
  /** Admits a result in the operation's order; settles once it is handled (and acknowledged). */
  /** `atMs`: when the result came (readOf). */
  /**
   * Takes a result into the operation's pipeline: its adapters asked now or in turn, its event
   * applied in arrival order and `msg` acknowledged once it is in the log. Settles once the result
   * is queued (`queued` is called then), so the pacing hands over the operation's next result at once.
   */
  onResult(msg: JsMsg, payload: unknown, atMs: number, queued: () => void): Promise<void>
  /** Admits a CancelResult that came at `atMs` (now when not given); `msg` (retained delivery) is acknowledged once its event is in the log. */
  onCancelResult(payload: unknown, msg?: JsMsg, atMs?: number): Promise<void>
  /** Saves the invoker's cancel, then applies it: answers the decision it makes once the save has landed. */
  cancel(): Promise<ExecutorResult<Decision>>
  /** `closing`: the executor is closed (a decided operation answers `EXECUTOR_CLOSED`). */
  stop(reason: string, closing?: boolean): void
}

/** Operations whose results' payloads are kept after their aggregation failed (`keptPayloads`). */
const KEPT_PAYLOAD_OPERATIONS = 1024

export function createDurableExecutor(parts: DurableParts, plan: InteractionPlan): ExecutorResult<Executor<any, any>> {
  const { module, interaction, connection: nc, adapters, deployment, now, binding } = parts
  const ownership = plan.delivery.ownership
  if (ownership && !binding.claimBucket) return refuse('EXECUTOR_INVALID_DESCRIPTOR', `${interaction.id}: ownership needs the binding's claimBucket`)
  const badReplicas = replicasRefusal(binding.replicas)
  if (badReplicas) return refuse('EXECUTOR_INVALID_DESCRIPTOR', `${interaction.id}: the binding's ${badReplicas}`)
  const badSettle = settleRefusal(binding.settleMs)
  if (badSettle) return refuse('EXECUTOR_INVALID_DESCRIPTOR', `${interaction.id}: the binding's ${badSettle}`)
  const replicated = binding.replicas !== undefined ? { replicas: binding.replicas } : {}
  const opOf = (key: string | undefined): OperationDescriptor | undefined => (key && Object.hasOwn(module.operations, key) ? module.operations[key] : undefined)
  const channelOf = (op: OperationDescriptor | undefined) => (op && Object.hasOwn(module.channels, op.channel) ? module.channels[op.channel] : undefined)
  const requestChannel = channelOf(opOf(interaction.requestOperation))
  const resultChannel = channelOf(opOf(interaction.resultOperation))
  /** Dispatch `none` gathers work dispatched elsewhere: no request is published, no claim is written. */
  const publishes = plan.dispatch.mode !== 'none'
  if ((publishes && !requestChannel?.address) || (plan.policy.completion.mode !== 'none' && !resultChannel?.address))
    return refuse('EXECUTOR_INVALID_DESCRIPTOR', `${interaction.id}: its request and result channels are not in the module`)
  const cancelOp = opOf(plan.cancel?.operation)
  const cancelChannel = channelOf(cancelOp)
  const cancelResultChannel = channelOf(opOf(plan.cancel?.resultOperation))
  if (plan.cancel && (!cancelChannel?.subject || !cancelResultChannel?.address))
    return refuse('EXECUTOR_INVALID_DESCRIPTOR', `${interaction.id}: its cancel operations' channels are not in the module`)
  const generatedInput = Object.entries(interaction.inputs).find(([, i]) => i.source === 'generated')?.[0]
  const manifestMade = manifestDispatch(plan, interaction, adapters)
  if (!manifestMade.ok) return manifestMade
  const manifest = manifestMade.value
  const ackWaitMs = binding.ackWaitMs ?? 5000
  const redeliveries = Math.max(1, binding.resultRedeliveries ?? 30)
  /** The operations this executor drives now. */
  const live = new Map<string, Live>()
  // Resolved by close(): an adapter still awaited at admission or an aggregation then answers its
  // invocation EXECUTOR_CLOSED (one that never settles held invoke() for good).
  let signalClosing: () => void = () => undefined
  const executorClosing = new Promise<void>((resolve) => (signalClosing = resolve))
  /** Every operation it drove (state and log stay readable after settlement). */
  const known = new Map<string, Live>()
  /**
   * The results' payloads of operations whose aggregation adapter failed, by operation, for the
   * drive that answers the same invocation again (the log keeps each result's verdict, not its
   * payload): the most recent KEPT_PAYLOAD_OPERATIONS.
   */
  const keptPayloads = new Map<string, Map<string, unknown>>()
  let closed = false

  interface Ready {
    store: OperationStore
    claims?: ClaimStore
    results?: Consumption
    cancels?: Consumption
  }
  let ready: Promise<ExecutorResult<Ready>> | undefined
  let cancelReplies: Subscription | undefined
  async function setUp(): Promise<ExecutorResult<Ready>> {
    const bucket = await openRecordBucket(nc, binding.stateBucket, { ...replicated, ...(binding.settleMs !== undefined ? { settleMs: binding.settleMs } : {}) })
    if (!bucket.ok) return refuse('EXECUTOR_STATE_FAILED', bucket.message)
    let claims: ClaimStore | undefined
    if (ownership) {
      const opened = await openClaimStore(nc, binding.claimBucket!, replicated)
      if (!opened.ok) return opened
      claims = opened.value
    }
    for (const stream of new Set([binding.requestStream, binding.resultStream])) {
      const checked = await checkDurableStream(nc, stream)
      if (!checked.ok) return refuse('EXECUTOR_STATE_FAILED', checked.message)
      const fewer = binding.replicas !== undefined ? await streamReplicasRefusal(nc, stream, binding.replicas) : undefined
      if (fewer) return refuse('EXECUTOR_STATE_FAILED', fewer)
    }
    const store = operationStore(bucket.value)
    const cancelPattern = plan.cancel ? cancelResultChannel!.address!.replace(/\{[^}]+\}/g, '*') : undefined
    let cancels: Consumption | undefined
    if (cancelPattern && (await streamRetains(nc, binding.resultStream, cancelPattern))) {
      // The result stream retains CancelResults: read through a durable consumer like results, so a
      // reply sent while no executor runs is admitted when one resumes the operation.
      const name = consumerName(`exec-${interaction.id}`, 'cancels')
      const make = () => ensureConsumer(nc, binding.resultStream, name, cancelPattern, ackWaitMs, resultMaxDeliver(redeliveries))
      const consumer = await make()
      if (!consumer.ok) return refuse('EXECUTOR_STATE_FAILED', consumer.message)
      const consuming = await consumeAll(consumer.value, (msg) => route(store, msg, 'cancel'), pacing('cancel', make))
      if (!consuming.ok) return refuse('EXECUTOR_STATE_FAILED', consuming.message)
      cancels = consuming.value
    } else if (cancelPattern) {
      // CancelResults as core messages only: a reply sent while no executor runs is lost (its request times out).
      // (A set-up tried again after a refusal replaces the subscription an earlier try made.)
      cancelReplies?.unsubscribe()
      cancelReplies = nc.subscribe(cancelResultChannel!.address!.replace(/\{[^}]+\}/g, '*'), {
        callback: (error, msg) => {
          if (error) return
          let payload: unknown
          try {
            payload = parseJsonData(decoder.decode(msg.data))
          } catch {
            return
          }
          const id = typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>)['operationId'] : undefined
          if (typeof id === 'string') void live.get(id)?.onCancelResult(payload)
        },
      })
    }
    const extra = { ...(claims ? { claims } : {}), ...(cancels ? { cancels } : {}) }
    let results: Consumption | undefined
    if (resultChannel?.address) {
      const name = binding.resultConsumer ?? consumerName(`exec-${interaction.id}`, 'results')
      const make = () =>
        ensureConsumer(nc, binding.resultStream, name, resultChannel.address!.replace(/\{[^}]+\}/g, '*'), ackWaitMs, resultMaxDeliver(redeliveries))
      const consumer = await make()
      if (!consumer.ok) {
        await cancels?.close()
        return refuse('EXECUTOR_STATE_FAILED', consumer.message)
      }
      const consuming = await consumeAll(consumer.value, (msg) => route(store, msg, 'result'), pacing('result', make))
      if (!consuming.ok) {
        await cancels?.close()
        return refuse('EXECUTOR_STATE_FAILED', consuming.message)
      }
      results = consuming.value
      return ok({ store, ...extra, results })
    }
    return ok({ store, ...extra })
  }

  /**
   * A message's payload and the operation it names, read once (by the pacing's key, then by `route`),
   * and when it came: the pacing holds an operation's next result while one is handled (a verifier
   * awaited up to the next due time), and that wait must not make an in-time result late.
   */
  const reads = new WeakMap<JsMsg, { payload: unknown; id: unknown; atMs: number } | typeof NOT_JSON>()
  /**
   * When each result and CancelResult read but not yet routed came, by the operation it names. The
   * pacing holds an operation's next message while one is handled; a tick whose timer fires
   * meanwhile waits behind the ones read before it (drive's `tick`), as in memory state, where
   * messages are handled in the order they came and a tick in its turn. Bounded by what the pacing
   * holds (the consumers' max ack pending).
   */
  const unrouted = new Map<string, number[]>()
  /** Whether a message naming operation `id`, read before `atMs`, is not routed yet. O(messages held for it). */
  const readBefore = (id: string, atMs: number): boolean => unrouted.get(id)?.some((t) => t < atMs) ?? false
  function readOf(msg: JsMsg, kind: 'result' | 'cancel'): { payload: unknown; id: unknown; atMs: number } | typeof NOT_JSON {
    const known = reads.get(msg)
    if (known !== undefined) return known
    let read: { payload: unknown; id: unknown; atMs: number } | typeof NOT_JSON
    const atMs = now()
    try {
      const payload: unknown = parseJsonData(decoder.decode(msg.data))
      const id =
        kind === 'result'
          ? readExpression(plan.correlation.operation, payload)
          : typeof payload === 'object' && payload !== null
            ? (payload as Record<string, unknown>)['operationId']
            : undefined
      read = { payload, id, atMs }
      if (typeof id === 'string') {
        const times = unrouted.get(id)
        if (times) times.push(atMs)
        else unrouted.set(id, [atMs])
      }
    } catch {
      read = NOT_JSON
    }
    reads.set(msg, read)
    return read
  }
  /**
   * Results an operation's pipeline took from the pacing and has not yet acknowledged (their adapters
   * asked, their events waiting for their turn): marked in progress with the messages the pacing holds.
   */
  const pipelinedResults = new Set<JsMsg>()
  /** Results and CancelResults paced by the operation they name: one operation's flood takes one place of RESULTS_IN_FLIGHT. */
  const pacing = (kind: 'result' | 'cancel', remake: () => Promise<unknown>) => ({
    inFlight: RESULTS_IN_FLIGHT,
    ackWaitMs,
    ...(kind === 'result' ? { marked: pipelinedResults } : {}),
    keyOf: (msg: JsMsg) => {
      const read = readOf(msg, kind)
      return read !== NOT_JSON && typeof read.id === 'string' ? read.id : undefined
    },
    recreate: remake,
  })

  /** A message read at `atMs` for operation `id` is routed: a tick held behind it no longer waits for it. */
  function routed(id: string, atMs: number): void {
    const times = unrouted.get(id)
    if (!times) return
    const at = times.indexOf(atMs)
    if (at >= 0) times.splice(at, 1)
    if (times.length === 0) unrouted.delete(id)
  }

  /** Each operation's parks in flight (route): start() waits for them before it reads the parked messages. */
  const parking = new Map<string, Set<Promise<void>>>()

  /**
   * A result for an operation this executor is not driving: kept in the operation's state (where the
   * executor that resumes it admits it), redelivered a bounded number of times (an executor driving
   * it in another process gets it so), then terminated: nothing loops forever, nothing is lost.
   */
  async function route(store: OperationStore, msg: JsMsg, kind: 'result' | 'cancel'): Promise<void> {
    const read = readOf(msg, kind)
    if (read === NOT_JSON) return msg.term()
    const { payload, id, atMs } = read
    const driving = typeof id === 'string' ? live.get(id) : undefined
    // A result driven here is routed once it is queued behind the messages before it (a tick waits for it till then).
    if (driving && kind === 'result') return driving.onResult(msg, payload, atMs, () => routed(id as string, atMs))
    if (typeof id === 'string') routed(id, atMs)
    if (driving) return driving.onCancelResult(payload, msg, atMs)
    if (typeof id !== 'string' || !isToken(id)) return msg.term()
    // Registered before its first wait: an executor that starts driving the operation meanwhile
    // reads the parked messages once this one has landed, so a message parked before one it then
    // gets live is applied first, in the order the stream holds them (a wrong-attempt cancel reply
    // parked just before the right one was otherwise read after it, and its refusal never logged).
    const parked = park(store, msg, kind, id, payload)
    let inFlight = parking.get(id)
    if (!inFlight) parking.set(id, (inFlight = new Set()))
    inFlight.add(parked)
    try {
      await parked
    } finally {
      inFlight.delete(parked)
      if (inFlight.size === 0 && parking.get(id) === inFlight) parking.delete(id)
    }
  }

  /** Parks a message of an operation no executor drives here (see route), or leaves it to be redelivered. */
  async function park(store: OperationStore, msg: JsMsg, kind: 'result' | 'cancel', id: string, payload: unknown): Promise<void> {
    const [admission, state] = await Promise.all([store.admission(id), store.state(id)])
    // Unknown operation: nothing to resume. Settled with no cancel request out (its log replayed through the core): nothing can
    // change. Otherwise the result waits (redelivered) for an executor to resume the operation.
    if (admission.ok && admission.value === null) return msg.term()
    if (state.ok && state.value && quietState(simulate(plan.policy, state.value.value.events))) return msg.ack()
    const last = msg.info.deliveryCount >= redeliveries
    // A payload out of the result schema is never admitted: not kept either.
    if (check((kind === 'result' ? resultChannel : cancelResultChannel)!.validatePayload, payload)) return msg.term()
    if (admission.ok && state.ok) {
      const kept = await store.park(id, { subject: msg.subject, payload, atMs: now(), seq: msg.seq, ...(kind === 'cancel' ? { kind } : {}) })
      // Kept (or already kept, or the record full): the bounded redeliveries only serve a driving executor elsewhere.
      if (kept.ok && last) return msg.term()
    }
    // The state unreadable or not written: tried again, up to the consumer's max_deliver.
    msg.nak(Math.min(1000, ackWaitMs))
  }

  function drive(ready: Ready, record: AdmissionRecord): Live {
    const { store, claims } = ready
    const id = record.operationId
    let deadlineMs: number | null = null
    const context = (): AdapterContext => ({
      contractId: module.contract.id,
      contractVersion: module.contract.version,
      contractDigest: parts.contractDigest,
      operationId: id,
      principalId: record.principalId,
      senderPeerId: deployment.senderPeerId,
      scopeId: deployment.scopeId,
      systemId: deployment.systemId,
      accountId: deployment.accountId,
      jetstreamDomain: deployment.jetstreamDomain,
      nowMs: now(),
      deadlineMs,
      policyRevision: deployment.policyRevision,
    })
    const inputs: Record<string, unknown> = {
      ...(JSON.parse(record.inputBytes) as Record<string, unknown>),
      ...(generatedInput ? { [generatedInput]: id } : {}),
    }
    const core = new DecisionCore(plan.policy, true)
    const outbox = new Map<string, OutboxEntry>()
    const payloads = keptPayloads.get(id) ?? new Map<string, unknown>()
    keptPayloads.delete(id)
    const leases = new Map<string, { fence: number; timer: ReturnType<typeof setTimeout> }>()
    const publications: Publication[] = []
    let revision = 0
    let decisionRecorded = false
    let timer: ReturnType<typeof setTimeout> | undefined
    let chain: Promise<void> = Promise.resolve()
    let stopped = false
    /** Results of this operation queued and not yet applied, and those whose adapters wait for one of the RESULTS_PIPELINED places. */
    const pipelined = new Set<JsMsg>()
    /** The stream sequences of the results in the pipeline: a copy the server delivers again meanwhile is the same result. */
    const pipelinedSeqs = new Set<number>()
    let verdictsAsked = 0
    const verdictsWaiting: Array<(ask: boolean) => void> = []

    let started = false
    let finish!: (value: ExecutorResult<InvocationOutcome<any>>) => void
    const outcome = new Promise<ExecutorResult<InvocationOutcome<any>>>((resolve) => (finish = resolve))
    let answered = false
    // Stopping lets go of an adapter's answer still awaited (a verifier that never settles holds
    // the serial chain, and every event behind it).
    let abandon: () => void = () => undefined
    const abandoned = new Promise<void>((resolve) => (abandon = resolve))

    const serial = (work: () => Promise<void>) => {
      chain = chain.then(() => (stopped ? undefined : work())).catch((error: unknown) => stop(`the executor failed: ${errorText(error)}`))
      return chain
    }
    /**
     * Stops driving the operation. Closing the executor answers a decided operation `EXECUTOR_CLOSED`;
     * anything else (a state write the store did not take, the decision record included) answers
     * `EXECUTOR_STATE_FAILED`: the operation waits for a resume, decided or not.
     */
    function stop(reason: string, closing = false): void {
      if (stopped) return
      stopped = true
      abandon()
      // The results in the pipeline are let go (unacknowledged: they come again); adapters still to be asked are not.
      for (const msg of pipelined) pipelinedResults.delete(msg)
      pipelined.clear()
      pipelinedSeqs.clear()
      for (const waiting of verdictsWaiting.splice(0)) waiting(false)
      if (timer) clearTimeout(timer)
      if (republishing) clearTimeout(republishing)
      for (const l of leases.values()) clearTimeout(l.timer)
      leases.clear()
      live.delete(id)
      if (!answered) {
        answered = true
        finish(refuse(closing && core.state().decision ? 'EXECUTOR_CLOSED' : 'EXECUTOR_STATE_FAILED', `${id}: ${reason}`))
      }
    }

    /**
     * An adapter's answer read as the memory executor reads it (adapter-answer.ts): one that cannot
     * be read is a refusal, and a promise still unsettled at the operation's next due time, or when
     * the drive stops, is `undefined` (unsettled): the serial chain waits on it, and the deadline's
     * tick is behind it.
     */
    async function allowedBy(ask: () => unknown): Promise<boolean | undefined> {
      let answer: unknown
      try {
        answer = ask()
      } catch {
        return false
      }
      return isThenable(answer) ? allowedWithin(answer, core.nextDueMs(), now(), abandoned) : allowedIn(answer)
    }

    /** `undefined` when unsettled at the next due time or when the drive stopped (see allowedWithin). */
    function authorized(peerId: string, stage: AuthorizationStage): Promise<boolean | undefined> {
      return allowedBy(() => adapters.authorization({ context: context(), data: { peerId, stage } }))
    }

    /** The log and the outbox, by compare-and-set: a lost write means another executor drives the operation. */
    async function persist(): Promise<boolean> {
      const saved = await store.saveState(id, { events: core.log(), outbox: [...outbox.values()] }, revision)
      if (!saved.ok) {
        stop(saved.conflict ? `another executor wrote this operation (its state changed under this one: ${saved.message})` : saved.message)
        return false
      }
      revision = saved.value
      return true
    }

    /** The claim of a branch's attempt: the one already written for it (after a restart), else a new one. */
    async function claimFor(branchId: string, peerId: string, attempt: number): Promise<{ fence: number; leaseUntilMs: number } | string> {
      const key = claimKey(id, branchId)
      const current = await claims!.read(key)
      if (!current.ok) return current.message
      const c = current.value?.claim
      if (c && c.peerId === peerId && c.attempt === attempt && c.state === 'held') return { fence: c.fence, leaseUntilMs: c.leaseUntilMs }
      const made = await claims!.claim(key, { peerId, attempt, leaseUntilMs: now() + ownership!.leaseMs }, current.value?.revision ?? 0)
      return made.ok ? { fence: made.value.claim.fence, leaseUntilMs: made.value.claim.leaseUntilMs } : made.message
    }

    /** Watches the claim of an open branch's attempt until its lease passes unrenewed. */
    function watchLease(b: BranchState, leaseUntilMs: number | null): void {
      const existing = leases.get(b.branchId)
      if (existing && existing.fence === b.fence) return
      if (existing) clearTimeout(existing.timer)
      const arm = (atMs: number) => {
        const fired = () => {
          const firedAtMs = now()
          void serial(() => afterReads(firedAtMs, false, () => checkLease(b.branchId, b.fence)))
        }
        const t = setTimeout(fired, Math.max(0, atMs - now()) + 5)
        leases.set(b.branchId, { fence: b.fence, timer: t })
      }
      arm(leaseUntilMs ?? now())
    }

    async function checkLease(branchId: string, fence: number): Promise<void> {
      const b = core.state().branches.find((x) => x.branchId === branchId)
      leases.delete(branchId)
      if (!b || b.status !== 'open' || b.fence !== fence) return
      const key = claimKey(id, branchId)
      const read = await claims!.read(key)
      if (!read.ok || !read.value) return watchLease(b, now() + ownership!.renewEveryMs)
      const c = read.value.claim
      if (c.fence !== fence || c.state === 'committed') return // a newer claim is watched by its own attempt; a committed one awaits its result
      if (c.state === 'held' && c.leaseUntilMs > now()) {
        // Renewed: authorization is rechecked at claim renewal.
        const allowed = await authorized(b.peerId, 'renewal')
        if (stopped) return
        if (!allowed) return step({ kind: 'revoked', atMs: now(), peerId: b.peerId })
        return watchLease(b, c.leaseUntilMs)
      }
      if (c.state === 'held') {
        const expired = await claims!.expire(key, fence, now())
        if (!expired.ok) return watchLease(b, now() + ownership!.renewEveryMs) // renewed or replaced meanwhile: look again
      }
      await step({ kind: 'lease-expired', atMs: now(), branchId, attempt: b.attempt, fence })
    }

    /** The manifest's input slot of each branch (dispatch `branches`), as admission recorded it. */
    const inputOf = new Map((record.manifest?.entries ?? []).map((e) => [e.branchId, e.input]))
    const materializeFor = (b: { branchId: string; peerId: string; attempt: number; fence: number }) =>
      requestOf(interaction, inputs, context(), b, inputOf.get(b.branchId))

    /** Applies an event (if any), then brings the world in line with the core, each change logged before it is acted on. */
    async function step(event?: ExecutorEvent): Promise<void> {
      if (event) {
        const changes = core.changes()
        core.apply(event)
        // Refused or changing nothing (a replay, a result for no branch, a repeated revocation): nothing to save or do.
        // A tick changes nothing when its timer fired before the time `now` reads as due (Node's timers
        // count from the event loop's cached time, which a long turn leaves behind): armed again, nothing saved.
        if (core.changes() === changes) return event.kind === 'tick' ? armTimer() : undefined
      }
      // Bounded: each round either changes the core, the outbox, or ends the loop (at most one claim and one entry per open branch).
      for (let round = 0; round < 4 * (core.state().branches.length + 2) && !stopped; round++) {
        if (!(await persist())) return
        const state = core.state()
        if (state.decision && !decisionRecorded) {
          const recorded = await store.decide(id, state.decision)
          if (!recorded.ok) return stop(recorded.message)
          // The log is written before the decision: a decision recorded by an earlier run is the one the log replays.
          if (!sameJson(recorded.value.decision, state.decision)) return stop('the recorded decision differs from the log (two executors decided)')
          decisionRecorded = true
        }
        let changed = false
        for (const b of state.branches) {
          const msgId = requestMessageId(id, b.branchId, b.attempt)
          if (!publishes || b.status !== 'open' || outbox.has(msgId) || state.decision) continue
          if (ownership && b.attempt > 1) {
            const claimed = await claimFor(b.branchId, b.peerId, b.attempt)
            if (typeof claimed === 'string') return stop(claimed)
            leaseOf.set(b.branchId, claimed.leaseUntilMs)
            if (claimed.fence !== b.fence) {
              core.apply({ kind: 'claimed', atMs: now(), branchId: b.branchId, peerId: b.peerId, fence: claimed.fence })
              changed = true
              break
            }
          }
          const allowed = await authorized(b.peerId, 'dispatch')
          if (stopped) return
          if (!allowed) {
            core.apply({ kind: 'revoked', atMs: now(), peerId: b.peerId })
            changed = true
            break
          }
          let request: { subject: string; payload: Record<string, unknown> }
          try {
            request = materializeFor(b)
          } catch (error) {
            // Validated at admission with the same inputs: only a fence or attempt out of its schema reaches here.
            core.apply({ kind: 'failed', atMs: now(), branchId: b.branchId, attempt: b.attempt, fence: b.fence, retryable: false })
            publications.push({ branchId: b.branchId, attempt: b.attempt, ok: false, error: errorText(error) })
            changed = true
            break
          }
          outbox.set(msgId, { msgId, ...request, branchId: b.branchId, attempt: b.attempt, published: false })
          changed = true
        }
        // Cooperative cancellation: a cancel request per branch the core asked to stop, recorded like a request.
        for (const b of state.branches) {
          const msgId = `${requestMessageId(id, b.branchId, b.attempt)}.cancel`
          if (b.cancel !== 'requested' || outbox.has(msgId) || !plan.cancel) continue
          const allowedCancel = await authorized(b.peerId, 'cancel')
          if (stopped) return
          if (!allowedCancel) {
            core.apply({ kind: 'revoked', atMs: now(), peerId: b.peerId })
            changed = true
            break
          }
          const payload = { operationId: id, branchId: b.branchId, attempt: b.attempt, fence: b.fence }
          const subject = cancelSubject(b)
          if (subject === undefined || check(cancelChannel!.validatePayload, payload)) continue
          outbox.set(msgId, { kind: 'cancel', msgId, subject, payload, branchId: b.branchId, attempt: b.attempt, published: false })
          changed = true
        }
        if (changed) continue
        // The outbox is in the log's record now: publish what is not marked published (the same id again after a crash).
        const pending = [...outbox.values()].filter((e) => !e.published)
        if (pending.length > 0) {
          const sent = await Promise.all(pending.map(publishEntry))
          if (sent.some(Boolean)) continue
        }
        break
      }
      if (stopped) return
      const state = core.state()
      republishLater(state)
      if (ownership)
        for (const b of state.branches)
          if (b.status === 'open' && outbox.get(requestMessageId(id, b.branchId, b.attempt))?.published) watchLease(b, leaseOf.get(b.branchId) ?? null)
      if (!answered && started && state.returnsAtMs !== null) {
        answered = true
        void answer().then(finish)
      }
      // Settled with a cancel request still out: its reply (or its timeout) still comes.
      if (quietState(state)) return stop('settled')
      armTimer()
    }
    /**
     * Timer work (a tick, a lease check) whose timer fired at `atMs` while a result or CancelResult
     * read before it was not yet queued (held by the pacing behind the operation's earlier ones): run, in
     * the order the timers fired, once those messages are handled (`releaseTimers`), so a message in
     * time is never decided late by another's wait. At most one tick held (a later one would find
     * nothing the first did not) and one lease check per branch: bounded by the branches.
     */
    const heldTimers: Array<{ atMs: number; tick: boolean; run: () => Promise<void> }> = []
    async function afterReads(atMs: number, tick: boolean, run: () => Promise<void>): Promise<void> {
      if (heldTimers.length === 0 && !readBefore(id, atMs)) return run()
      if (!(tick && heldTimers.some((t) => t.tick))) heldTimers.push({ atMs, tick, run })
    }
    const tick = (atMs: number) => afterReads(atMs, true, () => step({ kind: 'tick', atMs }))
    /** The timer work held, once nothing read before its time waits to be queued. */
    async function releaseTimers(): Promise<void> {
      while (heldTimers.length > 0 && !stopped && !readBefore(id, heldTimers[0]!.atMs)) await heldTimers.shift()!.run()
    }
    /**
     * After a message is queued on the serial chain: the held timer work is looked at again behind
     * it, so it runs after every message queued before it is applied (results in the pipeline are
     * queued, not yet applied, when the last one read before a tick is routed).
     */
    function releaseLater(): void {
      if (heldTimers.length > 0) void serial(releaseTimers)
    }
    /** The core's next timer, armed (the one armed before cleared). */
    function armTimer(): void {
      if (timer) clearTimeout(timer)
      const due = core.nextDueMs()
      // The tick's time is when it fired, as a result's is when it came (the core never moves its clock back).
      const fired = () => {
        const atMs = now()
        void serial(() => tick(atMs))
      }
      timer = due === null ? undefined : setTimeout(fired, Math.max(0, due - now()))
    }
    /**
     * A request the stream did not acknowledge (no leader yet after an election or a healed
     * partition, an answer lost) stays in the outbox unpublished. Nothing else may come to publish
     * it (no result can come for a request nobody received, and the next timer may be the deadline):
     * it is published again, with its message id, after a backoff that doubles from
     * `REPUBLISH_FIRST_MS` up to `REPUBLISH_MAX_MS`, until the stream takes it or the operation is
     * decided or stopped (its deadline bounds the tries).
     */
    let republishing: ReturnType<typeof setTimeout> | undefined
    let republishMs = REPUBLISH_FIRST_MS
    function republishLater(state: ReturnType<DecisionCore['state']>): void {
      const waiting = !state.decision && [...outbox.values()].some((e) => !e.published && e.kind !== 'cancel')
      if (!waiting) {
        republishMs = REPUBLISH_FIRST_MS
        return
      }
      if (republishing) return
      const delay = republishMs
      republishMs = Math.min(REPUBLISH_MAX_MS, republishMs * 2)
      republishing = setTimeout(() => {
        republishing = undefined
        void serial(async () => {
          const pending = [...outbox.values()].filter((e) => !e.published && e.kind !== 'cancel')
          if (core.state().decision || pending.length === 0) return
          const sent = await Promise.all(pending.map(publishEntry))
          // Published: the log records it (and the leases are watched) as after any publication; else tried again later.
          if (sent.some(Boolean)) await step()
          else republishLater(core.state())
        })
      }, delay)
    }
    /** The lease end of the claim each branch's current attempt was dispatched under (from its claim). */
    const leaseOf = new Map<string, number>()

    /** The cancel subject of a branch: the parameters bound for its request get the same values. */
    function cancelSubject(b: BranchState): string | undefined {
      const values: Record<string, string> = {}
      for (const param of Object.keys(cancelChannel!.parameters)) {
        const source = Object.hasOwn(interaction.bindings.subject, param) ? interaction.bindings.subject[param] : undefined
        let value: unknown
        if (source && 'input' in source) value = inputs[source.input]
        else if (source && 'literal' in source) value = source.literal
        else if (source && 'context' in source) value = (context() as unknown as Record<string, unknown>)[source.context]
        else if (source && 'branch' in source) value = source.branch === 'id' ? b.branchId : source.branch === 'peerId' ? b.peerId : undefined
        else if (param === plan.dispatch.targetParameter) value = b.peerId
        if (!isToken(value)) return undefined
        values[param] = value
      }
      try {
        return cancelChannel!.subject!.render(values)
      } catch {
        return undefined
      }
    }

    async function publishEntry(entry: OutboxEntry): Promise<boolean> {
      if (entry.kind === 'cancel') {
        try {
          nc.publish(entry.subject, JSON.stringify(entry.payload))
        } catch {
          return false
        }
        outbox.set(entry.msgId, { ...entry, published: true })
        return true
      }
      const peer = entry.payload && typeof entry.subject === 'string' ? core.state().branches.find((b) => b.branchId === entry.branchId)?.peerId : undefined
      if (peer) {
        // The peer's filtered durable consumer exists before its first request: an offline peer gets it when it connects.
        const made = await ensureConsumer(
          nc,
          binding.requestStream,
          peerConsumer(interaction, peer),
          peerSubject(requestChannel!, plan.dispatch.targetParameter, peer),
          ackWaitMs,
        )
        if (!made.ok) {
          publications.push({ branchId: entry.branchId, attempt: entry.attempt, ok: false, error: made.message })
          return false
        }
      }
      const sent = await publishOnce(nc, entry.subject, entry.payload, entry.msgId)
      publications.push({ branchId: entry.branchId, attempt: entry.attempt, ok: sent.ok, ...(sent.ok ? {} : { error: sent.message }) })
      if (!sent.ok) return false
      outbox.set(entry.msgId, { ...entry, published: true })
      return true
    }

    /**
     * The payloads of `votes` read again from the result stream, by the sequence their result events
     * logged: each checked as a delivered result is (its schema, its correlation) and kept only when it
     * is the same branch, attempt and fence. Answers how many could not be read. At most one request
     * per vote, RESULTS_PIPELINED at a time.
     */
    async function readAgain(votes: readonly { branchId: string; attempt: number; fence: number }[]): Promise<number> {
      if (votes.length === 0) return 0
      const wanted = new Map(votes.map((v) => [voteKey(v), v]))
      const places: Array<[string, number]> = []
      for (const e of core.log()) if (e.kind === 'result' && e.seq !== undefined && wanted.has(voteKey(e))) places.push([voteKey(e), e.seq])
      let jsm: JetStreamManager
      try {
        jsm = await jetstreamManager(nc)
      } catch {
        return wanted.size
      }
      for (let i = 0; i < places.length; i += RESULTS_PIPELINED)
        await Promise.all(
          places.slice(i, i + RESULTS_PIPELINED).map(async ([key, seq]) => {
            try {
              const stored = await jsm.streams.getMessage(binding.resultStream, { seq })
              if (!stored || payloads.has(key)) return
              const r = readResult(stored.subject, parseJsonData(decoder.decode(stored.data)), 0, seq)
              if (r && voteKey(r) === key) payloads.set(key, r.payload)
            } catch {
              // Not there (the stream's retention let it go), or unreadable: counted below.
            }
          }),
        )
      let unread = 0
      for (const key of wanted.keys()) if (!payloads.has(key)) unread++
      return unread
    }

    async function answer(): Promise<ExecutorResult<InvocationOutcome<any>>> {
      const state = core.state()
      const decision = state.decision!
      let output: unknown
      if (adapters.aggregation) {
        // A result admitted before this drive (another process, or this one before a restart) is in the
        // log as its verdict and its place in the result stream: its payload is read again from there.
        const unread = await readAgain(decision.votes.filter((v) => !payloads.has(voteKey(v))))
        if (unread > 0)
          return refuse(
            'EXECUTOR_UNSUPPORTED',
            `${id}: ${unread} of its ${decision.votes.length} results were admitted before this process drove it and could not be read again from the result stream ${binding.resultStream} (no longer there, or logged without their place): the aggregation is not asked with part of them (the decision stands: state and log)`,
          )
        const data = decision.votes.map((v) => payloads.get(voteKey(v))).filter((p) => p !== undefined)
        // Refused or failed: the same invocation again drives the operation again, and asks the aggregation with these.
        const failedAggregation = (why: string) => {
          keptPayloads.set(id, payloads)
          if (keptPayloads.size > KEPT_PAYLOAD_OPERATIONS) keptPayloads.delete(keptPayloads.keys().next().value!)
          return refuse('EXECUTOR_ADAPTER_FAILED', why)
        }
        let aggregated: unknown
        try {
          // The executor closing answers an operation whose aggregation has not (one that never settles held its invoke() for good).
          aggregated = await unlessClosed(adapters.aggregation({ context: context(), data }), executorClosing)
        } catch (error) {
          return failedAggregation(`aggregation failed: ${errorText(error)}`)
        }
        if (aggregated === CLOSED) return refuse('EXECUTOR_CLOSED', `${id}: the executor closed before the aggregation adapter answered`)
        const refused = outputRefusal(interaction.validateOutput, aggregated)
        if (refused !== undefined) return failedAggregation(refused)
        output = aggregated
      }
      return ok({
        operationId: id,
        decision,
        state,
        audience: { revision: record.audience.revision, policyRevision: deployment.policyRevision, peers: record.audience.peers },
        publications: [...publications],
        ...(output !== undefined ? { output } : {}),
      })
    }

    /**
     * A delivered result, queued at once on the serial chain behind the messages before it (its event
     * applied in arrival order, `msg` acknowledged once the event is in the log: a crash before
     * redelivers it); its adapters are asked now, or once fewer than RESULTS_PIPELINED of the
     * operation's are being asked. `atMs`: when it arrived, so that one peer's adapter still awaited
     * makes no other peer's result late, nor keeps its adapters from being asked until the first is
     * cut off. Settles once queued: the pacing hands over the operation's next result at once.
     */
    async function onResult(msg: JsMsg, payload: unknown, atMs: number, queued: () => void): Promise<void> {
      // Stopped, or a copy of a result already queued (delivered again while it waited: its first
      // delivery asks its adapters and acknowledges it): nothing more.
      if (stopped || pipelinedSeqs.has(msg.seq)) return queued()
      const r = readResult(msg.subject, payload, atMs, msg.seq)
      // Nothing to ask (out of schema, another operation's) or a branch no longer open: handled in its turn.
      const verdict = r === undefined || notOpen(r) ? undefined : limitedVerdict(r)
      pipelined.add(msg)
      pipelinedSeqs.add(msg.seq)
      pipelinedResults.add(msg)
      void serial(async () => {
        try {
          if (r !== undefined) await (verdict === undefined ? refusedNotOpen(r) : applyResult(r, await verdict, true))
          if (!stopped) msg.ack()
        } finally {
          pipelined.delete(msg)
          pipelinedSeqs.delete(msg.seq)
          pipelinedResults.delete(msg)
        }
      })
      queued()
      releaseLater()
    }

    /** `verdictOf`, asked now or once one of the RESULTS_PIPELINED places is free (a flood asks the adapters in turn). */
    function limitedVerdict(r: ReadResult): Promise<ResultVerdict> {
      const ask = (): Promise<ResultVerdict> => {
        verdictsAsked++
        return verdictOf(r).finally(() => {
          verdictsAsked--
          verdictsWaiting.shift()?.(true)
        })
      }
      if (verdictsAsked < RESULTS_PIPELINED) return ask()
      // Stopped before its turn: nothing asked (the result is not applied: the drive has stopped).
      return new Promise<ResultVerdict>((resolve) => verdictsWaiting.push((asked) => resolve(asked ? ask() : { allowed: undefined, verified: false })))
    }

    /** A result read: its correlation members and whether its subject names its peer (subject-permission verification). */
    interface ReadResult {
      payload: unknown
      branchId: string
      peerId: string
      attempt: number
      fence: number
      subjectAgrees: boolean
      atMs: number
      /** Its sequence in the result stream, when known. */
      seq: number | undefined
    }
    /** The result's authorization (true, false: its peer revoked, undefined: unsettled at the next due time) and whether it is verified. */
    interface ResultVerdict {
      allowed: boolean | undefined
      verified: boolean
    }

    function readResult(subject: string, payload: unknown, atMs: number, seq?: number): ReadResult | undefined {
      if (check(resultChannel!.validatePayload, payload)) return undefined
      const c = plan.correlation
      const [opRef, branchId, attempt, peerId, fence] = [c.operation, c.branch, c.attempt, c.peer, c.fence].map((e) => readExpression(e, payload))
      if (opRef !== id || typeof branchId !== 'string' || typeof peerId !== 'string' || !Number.isSafeInteger(attempt) || !Number.isSafeInteger(fence))
        return undefined
      const params = resultChannel!.subject?.tryParse(subject) as Record<string, string> | undefined
      const target = plan.dispatch.targetParameter
      const subjectAgrees = params !== undefined && (!target || !Object.hasOwn(params, target) || params[target] === peerId)
      return { payload, branchId, peerId, attempt: attempt as number, fence: fence as number, subjectAgrees, atMs, seq }
    }

    /**
     * A result for a branch no longer open (redelivered, or kept and admitted by an earlier run) is
     * refused whatever else holds and changes nothing: not logged, so a resume re-reading kept results
     * adds nothing. Asked when it arrives (its adapters are then not asked) and again in its turn.
     */
    function notOpen(r: ReadResult): boolean {
      const current = core.branch(r.branchId)
      return current !== undefined && current.status !== 'open'
    }

    async function verdictOf(r: ReadResult): Promise<ResultVerdict> {
      const allowed = await authorized(r.peerId, 'result')
      // Refused: the peer is revoked; unsettled at the next due time: the result is refused as unverified.
      if (allowed !== true || stopped) return { allowed, verified: false }
      const verified = r.subjectAgrees && (!adapters.verifier || (await allowedBy(() => adapters.verifier!({ context: context(), data: r.payload }))) === true)
      return { allowed, verified }
    }

    /**
     * A delivered result for a branch no longer open: counted as a refusal the log keeps as a clock
     * move (`refusalsOmitted`), as the memory executor's bounded log counts it. A kept result re-read
     * on resume is not counted again (`admitResult`).
     */
    async function refusedNotOpen(r: ReadResult): Promise<void> {
      if (stopped) return
      const changes = core.changes()
      core.apply({ kind: 'tick', atMs: r.atMs, omitted: 1 })
      if (core.changes() !== changes) await step()
    }

    /** The result's event applied and logged (its turn on the serial chain); `delivered`: a not-open branch's is counted (refusedNotOpen). */
    async function applyResult(r: ReadResult, verdict: ResultVerdict, delivered = false): Promise<void> {
      if (stopped) return
      if (notOpen(r)) return delivered ? refusedNotOpen(r) : undefined
      if (verdict.allowed === false) return step({ kind: 'revoked', atMs: now(), peerId: r.peerId })
      const success = sameJson(readExpression(plan.success!.field, r.payload), plan.success!.equals)
      const event: ExecutorEvent = {
        kind: 'result',
        atMs: r.atMs,
        branchId: r.branchId,
        peerId: r.peerId,
        attempt: r.attempt,
        fence: r.fence,
        success,
        verified: verdict.verified,
        ...(r.seq !== undefined ? { seq: r.seq } : {}),
      }
      const changes = core.changes()
      if (core.apply(event) === null) payloads.set(voteKey(r), r.payload)
      // Refused and no timer due by its time: the state is the saved one (the refusal is saved with the next change, if kept).
      if (core.changes() === changes) return
      await step()
    }

    /** A result kept while no executor drove the operation, admitted on resume (in the serial chain). */
    async function admitResult(subject: string, payload: unknown, atMs: number, seq: number | undefined): Promise<void> {
      const r = readResult(subject, payload, atMs, seq)
      if (r === undefined || notOpen(r)) return
      // Counted with the live results' (limitedVerdict): results read live while the resume reads
      // the kept ones are asked meanwhile, and the two together stay within RESULTS_PIPELINED.
      await applyResult(r, await limitedVerdict(r))
    }

    async function onCancelResult(decoded: unknown, atMs: number): Promise<void> {
      const payload = decoded as Record<string, unknown> | undefined
      if (payload === undefined || check(cancelResultChannel!.validatePayload, payload)) return
      if (payload['operationId'] !== id || typeof payload['branchId'] !== 'string') return
      const reply = payload['outcome']
      if (reply !== 'stopped' && reply !== 'already-completed' && reply !== 'unknown') return
      const branch = core.state().branches.find((b) => b.branchId === payload['branchId'])
      // A reply for a branch not awaiting one (a redelivered or repeated reply) changes nothing: not logged.
      if (!branch || branch.cancel !== 'requested') return
      // The fixed CancelResult names no attempt or fence: it answers the request of the current ones.
      const attempt = Number.isSafeInteger(payload['attempt']) ? (payload['attempt'] as number) : branch.attempt
      const fence = Number.isSafeInteger(payload['fence']) ? (payload['fence'] as number) : branch.fence
      await step({ kind: 'cancel-answered', atMs, branchId: branch.branchId, attempt, fence, reply })
    }

    async function start(): Promise<void> {
      const stored = await store.state(id)
      if (!stored.ok) return stop(stored.message)
      if (stored.value) {
        revision = stored.value.revision
        for (const e of stored.value.value.events) core.apply(e)
        for (const e of stored.value.value.outbox) outbox.set(e.msgId, e)
        // A decision already in the log was recorded (or is recorded now, by the same compare-and-set).
      }
      if (core.state().admission.status === 'pending') {
        const peers = record.audience.peers
        // The branches admission recorded: the manifest's (dispatch branches, none), else one per assigned peer.
        const assignees = record.manifest
          ? record.manifest.entries.map((e) => ({ branchId: e.branchId, peerId: e.peerId }))
          : (plan.dispatch.mode === 'one-eligible' ? peers.slice(0, 1) : peers).map((p) => ({ branchId: p, peerId: p }))
        const branches: AdmittedBranch[] = []
        for (const { branchId, peerId } of assignees) {
          let fence = 0
          if (ownership && publishes) {
            const claimed = await claimFor(branchId, peerId, 1)
            if (typeof claimed === 'string') return stop(claimed)
            fence = claimed.fence
            leaseOf.set(branchId, claimed.leaseUntilMs)
          }
          branches.push({ branchId, peerId, fence })
        }
        core.apply({ kind: 'admitted', atMs: record.admittedAtMs, branches, eligible: plan.dispatch.mode === 'one-eligible' ? peers : [] })
      }
      const admission = core.state().admission
      if (admission.status !== 'admitted') {
        await persist()
        answered = true
        finish(refuse('EXECUTOR_ADMISSION_REFUSED', `${interaction.id}: admission refused (${admission.status === 'refused' ? admission.reason : 'pending'})`))
        return stop('refused')
      }
      deadlineMs = admission.deadlineMs
      started = true
      // Results that came while no executor drove the operation, admitted at the time they came (one already in the log is refused by the core),
      // once those still being parked have landed (route).
      await Promise.allSettled([...(parking.get(id) ?? [])])
      const kept = await store.parked(id)
      if (!kept.ok) return stop(kept.message)
      for (const r of kept.value) {
        if (stopped) return
        if (typeof r?.subject !== 'string' || !Number.isSafeInteger(r.atMs)) continue
        const at = Math.max(r.atMs, record.admittedAtMs)
        if (r.kind === 'cancel') await onCancelResult(r.payload, at)
        else await admitResult(r.subject, r.payload, at, Number.isSafeInteger(r.seq) ? r.seq : undefined)
      }
      // Time passed while no executor ran: the timers due by now fire first (the deadline counts from the admission commit),
      // then the world is brought in line with the core whether or not they changed it (the requests dispatched).
      core.apply({ kind: 'tick', atMs: now() })
      await step()
    }

    const handle: Live = {
      record,
      outcome,
      core,
      onResult,
      onCancelResult: (payload, msg, atMs = now()) => {
        const applied = serial(async () => {
          await onCancelResult(payload, atMs)
          // Acknowledged once the event is in the log: a crash before this redelivers the reply.
          if (!stopped) msg?.ack()
        })
        releaseLater()
        return applied
      },
      cancel: () =>
        new Promise<ExecutorResult<Decision>>((resolve) => {
          // Saved first (the log with the cancel, by compare-and-set), then applied and acted on, in the
          // operation's order: a process dying in between has changed nothing, and an executor resuming
          // the operation replays the cancel. The answer comes once the save has landed (or lost).
          void serial(async () => {
            const event: ExecutorEvent = { kind: 'cancel', atMs: now() }
            // Decided already: the cancel is refused and changes nothing, so nothing is saved (repeated cancels write nothing).
            const decided = core.state().decision
            if (decided) {
              const changes = core.changes()
              core.apply(event)
              resolve(ok(decided))
              if (core.changes() !== changes) await step()
              return
            }
            // No decision (the operation not yet replayed or admitted): refused, nothing saved.
            if (simulate(plan.policy, [...core.log(), event]).decision === null)
              return resolve(refuse('EXECUTOR_UNKNOWN_OPERATION', `${id} is not admitted yet: nothing to cancel`))
            const saved = await store.saveState(id, { events: [...core.log(), event], outbox: [...outbox.values()] }, revision)
            if (!saved.ok) {
              const reason = saved.conflict ? `another executor wrote this operation (its state changed under this one: ${saved.message})` : saved.message
              resolve(refuse('EXECUTOR_STATE_FAILED', `${id}: the cancel was not saved: ${reason}`))
              return stop(reason)
            }
            revision = saved.value
            core.apply(event)
            const decision = core.state().decision
            resolve(decision ? ok(decision) : refuse('EXECUTOR_UNKNOWN_OPERATION', `${id} has no decision`))
            await step()
          }).then(() =>
            // Not run (the operation stopped first): nothing was saved.
            resolve(refuse('EXECUTOR_STATE_FAILED', `${id}: the executor stopped driving the operation before the cancel was saved`)),
          )
        }),
      stop,
    }
    live.set(id, handle)
    known.set(id, handle)
    void serial(start)
    return handle
  }

  async function admit(ready: Ready, invocation: Invocation<any>, id: string, inputBytes: string): Promise<ExecutorResult<AdmissionRecord>> {
    const inputs: Record<string, unknown> = { ...(invocation.inputs as Record<string, unknown>), ...(generatedInput ? { [generatedInput]: id } : {}) }
    const context = (): AdapterContext => ({
      contractId: module.contract.id,
      contractVersion: module.contract.version,
      contractDigest: parts.contractDigest,
      operationId: id,
      principalId: invocation.principalId,
      senderPeerId: deployment.senderPeerId,
      scopeId: deployment.scopeId,
      systemId: deployment.systemId,
      accountId: deployment.accountId,
      jetstreamDomain: deployment.jetstreamDomain,
      nowMs: now(),
      deadlineMs: null,
      policyRevision: deployment.policyRevision,
    })
    const admitted = await admitInvocation({ interaction, plan, adapters, deployment, manifest, inputs, context, closing: executorClosing })
    if (!admitted.ok) return admitted
    const record: AdmissionRecord = {
      operationId: id,
      principalId: invocation.principalId,
      idempotencyKey: invocation.idempotencyKey,
      inputBytes,
      audience: { revision: admitted.value.revision, peers: admitted.value.peers },
      admittedAtMs: now(),
      // The authenticated manifest, saved with the admission: a resumed executor runs these branches without asking again.
      ...(admitted.value.manifest ? { manifest: { digest: admitted.value.manifest.digest, entries: admitted.value.manifest.entries } } : {}),
    }
    const written = await ready.store.admit(record)
    if (!written.ok) return refuse('EXECUTOR_STATE_FAILED', written.message)
    if (written.value.record.inputBytes !== inputBytes) return idempotencyConflict(id)
    return ok(written.value.record)
  }

  const prepared = async (): Promise<ExecutorResult<Ready>> => {
    if (closed) return refuse('EXECUTOR_CLOSED', 'the executor is closed')
    const setting = (ready ??= setUp())
    const r = await setting
    // A set-up the cluster could not answer (no leader, a partition) is refused for this call only:
    // the next invocation tries again, rather than the executor refusing for good.
    if (!r.ok && ready === setting) ready = undefined
    return r
  }

  /** Admissions in flight by operation id: concurrent invocations with one key admit once. */
  const admitting = new Map<string, Promise<ExecutorResult<InvocationOutcome<any>>>>()

  const executor: Executor<any, any> = {
    async invoke(invocation) {
      if (closed) return refuse('EXECUTOR_CLOSED', 'the executor is closed')
      const key = await invocationKey(invocation, parts.contractDigest)
      if (!key.ok) return key
      const { operationId: id, inputBytes } = key.value
      const running = live.get(id)
      if (running) {
        if (running.record.inputBytes !== inputBytes) return idempotencyConflict(id)
        return running.outcome
      }
      const inFlight = admitting.get(id)
      if (inFlight) return inFlight
      const work = (async (): Promise<ExecutorResult<InvocationOutcome<any>>> => {
        const r = await prepared()
        if (!r.ok) return r
        const existing = await r.value.store.admission(id)
        if (!existing.ok) return refuse('EXECUTOR_STATE_FAILED', existing.message)
        let record = existing.value
        if (record && record.inputBytes !== inputBytes) return idempotencyConflict(id)
        if (!record) {
          const admitted = await admit(r.value, invocation, id, inputBytes)
          if (!admitted.ok) return admitted
          record = admitted.value
        }
        // Closed meanwhile (the awaits above): nothing drives it here; it resumes from its durable state.
        // (A drive started after close() was stopped by nothing: the invocation waited for its deadline.)
        if (closed) return refuse('EXECUTOR_STATE_FAILED', `${id}: the executor closed; the operation resumes from its durable state`)
        return (live.get(id) ?? drive(r.value, record)).outcome
      })().catch((error: unknown) => refuse('EXECUTOR_STATE_FAILED', errorText(error)))
      admitting.set(id, work)
      void work.finally(() => admitting.delete(id))
      return work
    },
    async resume(operationId) {
      const running = live.get(operationId)
      if (running) return running.outcome
      const r = await prepared()
      if (!r.ok) return r
      const existing = await r.value.store.admission(operationId)
      if (!existing.ok) return refuse('EXECUTOR_STATE_FAILED', existing.message)
      if (!existing.value) return refuse('EXECUTOR_UNKNOWN_OPERATION', `${operationId} has no admission record`)
      if (closed) return refuse('EXECUTOR_CLOSED', 'the executor is closed')
      return (live.get(operationId) ?? drive(r.value, existing.value)).outcome
    },
    async cancel(operationId) {
      const op = live.get(operationId)
      if (op?.core) return op.cancel()
      // Decided and no longer driven (settled): its decision, nothing saved, as for a live one
      // (this answered EXECUTOR_UNKNOWN_OPERATION while state() and log() still answered for it).
      const decided = known.get(operationId)?.core?.state().decision
      if (decided) return ok(decided)
      return refuse('EXECUTOR_UNKNOWN_OPERATION', `${operationId} is not an operation this executor drives`)
    },
    state(operationId) {
      const op = known.get(operationId)
      if (!op?.core) return refuse('EXECUTOR_UNKNOWN_OPERATION', `${operationId} is not an operation this executor drives`)
      return ok(op.core.state())
    },
    log(operationId) {
      const op = known.get(operationId)
      if (!op?.core) return refuse('EXECUTOR_UNKNOWN_OPERATION', `${operationId} is not an operation this executor drives`)
      return ok(op.core.log())
    },
    async close() {
      // Durable state: nothing is decided on close (restart: resume); the operations resume in another executor.
      closed = true
      signalClosing()
      for (const op of [...live.values()]) op.stop('the executor closed; the operation resumes from its durable state', true)
      cancelReplies?.unsubscribe()
      const r = await ready
      if (r?.ok) await Promise.all([r.value.results?.close(), r.value.cancels?.close()])
      // The messages the consumptions still held are let go unrouted: nothing waits for them now.
      unrouted.clear()
    },
  }
  return ok(executor)
}
