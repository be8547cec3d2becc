/**
 * The interaction executor, memory state, online-best-effort delivery: admission (operation id,
 * idempotency, audience snapshot), dispatch (direct, independent, one-eligible) through
 * `materialize`, results correlated from their payload, the decision core, cooperative
 * cancellation. Every decision comes from the pure core (`./decision/machine.ts`); this file only
 * turns messages and timers into its events and its state changes into messages.
 */
import { errorText } from '../../shared/error-text.js'
import { allowedIn, allowedWithin, CLOSED, isThenable, unlessClosed, verdictWithin } from './adapter-answer.js'
import type { Msg, NatsConnection, Subscription } from '@nats-io/nats-core'
import { jetstream } from '@nats-io/jetstream'
import type { Interaction } from '../interactions.js'
import type { Channel } from '../subjects.js'
import type { OperationDescriptor } from '../index.js'
import { check } from '../../shared/validation.js'
import type { AdapterContext, AuthorizationStage, BranchInputOf, Deployment, ExecutorAdapters, Given, OutputOf, ResultOf } from './adapters.js'
import type { BranchState, Decision, ExecutorEvent, ExecutorState } from './events.js'
import { DecisionCore } from './decision/machine.js'
import { planInteraction } from './policy.js'
import { ok, refuse, type ExecutorResult } from './result.js'
import { createDurableExecutor, type DurableBinding } from './durable/executor.js'
import { manifestDispatch } from './dispatch/branches.js'
import { publishMessage, type StreamTable } from './dispatch/publish.js'
import { admitInvocation, authorizedNow, branchInput, idempotencyConflict, invocationKey, requestOf } from './admission.js'
import { copyMembers, writeMember } from './dispatch/pointers.js'
import { correlationReader, memberReader, type Correlation } from './correlation.js'
import { sha256Hex } from './dispatch/operation-id.js'
import { expectedSubject } from './dispatch/expected-subject.js'
import { encodeText } from './dispatch/slab-encode.js'
import { answerRecord, answeredLog, answeredPublications, answeredState, keepLog, logSettledCancel, type AnswerRecord } from './answer-record.js'
import { simulate } from './decision/simulate.js'
import { AdmittedEvent, AudienceRecord, OutcomeRecord, PublicationRecord, ResultEvent } from './born-young.js'
import { sameJson } from './same-json.js'
import { parseJsonData } from '../../shared/wire-json.js'
import { outputRefusal, voteKey } from './aggregation-output.js'
import { strictUtf8 } from '../../shared/utf8.js'

/** What a generated NATS module provides that the executor reads. */
export interface ExecutorModule {
  readonly contract: { readonly id: string; readonly version: string }
  readonly channels: { readonly [id: string]: Channel<any, any, any> }
  readonly operations: { readonly [id: string]: OperationDescriptor }
}

/**
 * The invocation's inputs, typed from the contract: the interaction's declared inputs (the generated
 * module's `__inputs`) without the generated operation id, which is the executor's.
 */
export type InvocationInputs<I> = I extends { readonly __inputs?: infer T }
  ? unknown extends T
    ? Readonly<Record<string, unknown>>
    : Omit<NonNullable<T>, 'operationId'>
  : Readonly<Record<string, unknown>>

export interface ExecutorOptions<ResultPayload = unknown, Output = unknown, I extends Interaction = Interaction> {
  readonly connection: NatsConnection
  readonly module: ExecutorModule
  readonly interaction: I
  /** Lowercase SHA-256 of the contract document's exact bytes. */
  readonly contractDigest: string
  readonly deployment: Deployment
  /** Typed from the contract (`ResultOf<I>`, `OutputOf<I>`) unless type arguments say otherwise. */
  readonly adapters: ExecutorAdapters<NoInfer<Given<ResultPayload, ResultOf<I>>>, NoInfer<Given<Output, OutputOf<I>>>, NoInfer<BranchInputOf<I>>>
  /** Milliseconds since the epoch; the default is `Date.now`. */
  readonly now?: () => number
  /** Where durable state lives (required by a durable-per-recipient descriptor; see `./durable/executor.ts`). */
  readonly durable?: DurableBinding
}

export interface Invocation<Inputs = Readonly<Record<string, unknown>>> {
  /** Runtime-attested by the caller's transport, never taken from a payload. */
  readonly principalId: string
  readonly idempotencyKey: string
  /** The interaction's argument inputs (the generated operation id is the executor's). */
  readonly inputs: Inputs
}

export interface Publication {
  readonly branchId: string
  readonly attempt: number
  readonly ok: boolean
  readonly error?: string
}

export interface InvocationOutcome<Output = unknown> {
  readonly operationId: string
  readonly decision: Decision
  /** The core's state when the invocation returned (at the decision or the settlement: `waitFor`). */
  readonly state: ExecutorState
  readonly audience: { readonly revision: string; readonly policyRevision: string; readonly peers: readonly string[] }
  readonly publications: readonly Publication[]
  /** From the aggregation adapter, when one is given. */
  readonly output?: Output
}

export interface Executor<Output = unknown, Inputs = Readonly<Record<string, unknown>>> {
  /** Admits (or finds, by idempotency key) an operation and answers when `waitFor` is reached. */
  invoke(invocation: Invocation<Inputs>): Promise<ExecutorResult<InvocationOutcome<Output>>>
  /** Drives an admitted operation again from its durable state (after a restart); memory state only answers a live one. */
  resume(operationId: string): Promise<ExecutorResult<InvocationOutcome<Output>>>
  /**
   * The invoker's cancellation of an undecided operation: answers the decision it makes (in durable
   * state once the log holding the cancel is saved; `EXECUTOR_STATE_FAILED` when that save lost).
   */
  cancel(operationId: string): Promise<ExecutorResult<Decision>>
  /** The core's state of an operation. */
  state(operationId: string): ExecutorResult<ExecutorState>
  /** The operation's event log: `simulate(policy, log)` gives the same state (the policy: `planInteraction`). */
  log(operationId: string): ExecutorResult<readonly ExecutorEvent[]>
  /** Ends every subscription; undecided memory operations become indeterminate (restart: fail-unknown). */
  close(): Promise<void>
}

interface Operation {
  readonly id: string
  /** What a repeated invocation must match: the inputs' canonical JSON, or its digest when long (`inputDigest`). */
  readonly inputDigest: string
  /** While the invocation runs, and when it ended refused; once answered, `answer` rebuilds it. */
  outcome?: Promise<ExecutorResult<InvocationOutcome<any>>>
  /**
   * Decided, but its aggregation adapter failed, so no answer is recorded: a repeated invocation
   * asks the aggregation again through this (the decision stands; no request is sent again), as the
   * durable executor does when it drives the operation again from its log.
   */
  reanswer?: () => Promise<ExecutorResult<InvocationOutcome<any>>>
  answer?: AnswerRecord
  core?: DecisionCore
  /** Acts on the core's state after a change made outside the message chain. */
  react?: () => void
  /** Restart semantics of memory state: the operation is lost (fail-unknown). */
  settle?: () => void
  /**
   * Settled, answered and quiet (no task queued, no route): the core is let go and its log is kept
   * as the answer record's (in its least form) followed by these events, the ones after the answer
   * (usually the late ballots of a detached remainder). `state` replays that log; `cancel` and
   * `close` append to it the event they would apply to the core (`simulate` over the log is the
   * core's state, so nothing read differs), and the settled core's objects are not kept.
   */
  tail?: ExecutorEvent[]
  /** Its core was let go (KEPT_CORES): only the idempotency record is left. */
  coreDropped?: boolean
}

/**
 * An operation's record, kept for its idempotency as long as the executor. A class rather than a
 * literal: V8 allocates a literal whose objects outlive young collections straight into the old
 * generation (allocation-site pretenuring), and what such a record points to while the invocation
 * runs (its outcome's promise, its core, the closures holding the invocation) would then outlive
 * every young collection until a full one.
 */
class OperationRecord implements Operation {
  outcome: Operation['outcome'] = undefined
  reanswer: Operation['reanswer'] = undefined
  answer: AnswerRecord | undefined = undefined
  core: DecisionCore | undefined = undefined
  react: (() => void) | undefined = undefined
  settle: (() => void) | undefined = undefined
  tail: ExecutorEvent[] | undefined = undefined
  coreDropped: boolean | undefined = undefined
  constructor(
    readonly id: string,
    readonly inputDigest: string,
  ) {}
}

/** Canonical inputs up to this length are kept as they are; longer ones as their SHA-256 (a record's size stays bounded). */
const KEPT_INPUT_CHARS = 128

function inputDigest(inputBytes: string): string {
  if (inputBytes.length <= KEPT_INPUT_CHARS) return inputBytes
  return sha256Hex(inputBytes) ?? inputBytes
}

/** Settled operations whose state and log stay readable (`state`, `log`); older ones keep only their idempotency record. */
const KEPT_CORES = 1024
/**
 * Results of one operation whose adapters (authorization, verifier) are asked at once; a flood of
 * results asks them in turn, so a peer cannot make an application's policy store take thousands of
 * lookups at a time.
 */
const RESULT_VERDICTS_AT_ONCE = 64

/** The admitted event's `eligible` unless the dispatch is one-eligible (one shared empty list, not a literal per operation). */
const NO_PEERS: readonly string[] = Object.freeze([])

/** A peer's bytes as text, strictly (utf8.ts): not UTF-8, or a byte order mark first, is not JSON. */
const decoder = strictUtf8
const encoder = new TextEncoder()

function isToken(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]+$/.test(value)
}

export function createExecutor<ResultPayload = unknown, Output = unknown, I extends Interaction = Interaction>(
  options: ExecutorOptions<ResultPayload, Output, I>,
): ExecutorResult<Executor<Given<Output, OutputOf<I>>, InvocationInputs<I>>> {
  const planned = planInteraction(options.interaction)
  if (!planned.ok) return planned
  const plan = planned.value
  const { module, interaction, connection: nc, deployment } = options
  // Typed from the contract when no type argument was given (`Given`): the same functions at run time.
  const adapters = options.adapters as ExecutorAdapters<ResultPayload, Output>
  const now = options.now ?? Date.now
  if (plan.delivery.durable) {
    if (!options.durable)
      return refuse('EXECUTOR_INVALID_DESCRIPTOR', `${interaction.id}: durable delivery needs the deployment's durable binding (options.durable)`)
    const durable = createDurableExecutor(
      { connection: nc, module, interaction, contractDigest: options.contractDigest, deployment, adapters, now, binding: options.durable },
      plan,
    )
    return durable as unknown as ExecutorResult<Executor<Given<Output, OutputOf<I>>, InvocationInputs<I>>>
  }
  const opOf = (key: string | undefined): OperationDescriptor | undefined => (key && Object.hasOwn(module.operations, key) ? module.operations[key] : undefined)
  const channelOf = (op: OperationDescriptor | undefined) => (op && Object.hasOwn(module.channels, op.channel) ? module.channels[op.channel] : undefined)
  const requestOp = opOf(interaction.requestOperation)
  const resultOp = opOf(interaction.resultOperation)
  const resultChannel = channelOf(resultOp)
  const cancelOp = opOf(plan.cancel?.operation)
  const cancelChannel = channelOf(cancelOp)
  const cancelResultChannel = channelOf(opOf(plan.cancel?.resultOperation))
  if (!requestOp && plan.dispatch.mode !== 'none') return refuse('EXECUTOR_INVALID_DESCRIPTOR', `${interaction.id}: its request operation is not in the module`)
  const requestOperation = requestOp as OperationDescriptor
  const manifestMade = manifestDispatch(plan, interaction, adapters)
  if (!manifestMade.ok) return manifestMade
  const manifest = manifestMade.value
  if (plan.policy.completion.mode !== 'none' && !resultChannel?.address)
    return refuse('EXECUTOR_INVALID_DESCRIPTOR', `${interaction.id}: its result operation's channel is not in the module`)
  if (plan.cancel && (!cancelChannel?.subject || !cancelResultChannel?.address))
    return refuse('EXECUTOR_INVALID_DESCRIPTOR', `${interaction.id}: its cancel operations' channels are not in the module`)
  const generatedInput = Object.entries(interaction.inputs).find(([, i]) => i.source === 'generated')?.[0]
  const operations = new Map<string, Operation>()
  /**
   * Settled operations whose core (state and log) is still kept, oldest first. Past KEPT_CORES an
   * operation keeps only its idempotency record (input bytes and outcome): the executor's memory
   * then grows by that record per operation, not by its whole log.
   */
  const keptCores = new Set<Operation>()
  const subscriptions = new Set<Subscription>()
  /** Message handlers of the live operations, by operation id (one shared subscription per channel). */
  const routes = new Map<string, { result: (msg: Msg, payload: unknown, correlation: Correlation) => void; cancel: (msg: Msg, payload: unknown) => void }>()
  const readCorrelation = correlationReader(plan.correlation)
  const readSuccess = plan.success ? memberReader(plan.success.field) : () => undefined
  let listening: Promise<void> | undefined
  let closed = false
  // Resolved by close(): an adapter still awaited at admission or an aggregation then answers its
  // invocation EXECUTOR_CLOSED (one that never settles held invoke(), and close(), for good).
  let signalClosing: () => void = () => undefined
  const executorClosing = new Promise<void>((resolve) => (signalClosing = resolve))
  const js = jetstream(nc)

  const streams = (module as { readonly streams?: StreamTable }).streams
  const publish = (op: OperationDescriptor, subject: string, payload: unknown, msgId: string): Promise<void> =>
    publishMessage(nc, js, streams, op, subject, encoder.encode(JSON.stringify(payload)), msgId)

  async function call<T>(what: string, f: () => T | Promise<T>): Promise<{ ok: true; value: T } | { ok: false; message: string }> {
    try {
      return { ok: true, value: await f() }
    } catch (error) {
      return { ok: false, message: `${what} failed: ${errorText(error)}` }
    }
  }

  const decode = (msg: Msg): unknown => {
    try {
      return parseJsonData(decoder.decode(msg.data))
    } catch {
      return undefined
    }
  }
  /** Whether a result subject parses with the body's peer at the target parameter (when the channel has one). */
  const parsedSubjectAgrees = (subject: string, peerId: string): boolean => {
    const params = resultChannel?.subject?.tryParse(subject) as Record<string, string> | undefined
    const target = plan.dispatch.targetParameter
    return params !== undefined && (!target || !Object.hasOwn(params, target) || params[target] === peerId)
  }
  /** A request subject value that is the same for every branch of an operation: an input or a literal (`subjectFor` binds the same). */
  const operationSubjectValue = (param: string, inputs: Readonly<Record<string, unknown>>): unknown => {
    const source = Object.hasOwn(interaction.bindings.subject, param) ? interaction.bindings.subject[param] : undefined
    if (source && 'input' in source) return Object.hasOwn(inputs, source.input) ? inputs[source.input] : undefined
    if (source && 'literal' in source) return source.literal
    return undefined
  }
  /** The result subjects compared rather than parsed, when every parameter but the peer's is bound per operation. */
  const operationBound = new Set(
    Object.entries(interaction.bindings.subject)
      .filter(([, source]) => 'input' in source || 'literal' in source)
      .map(([param]) => param),
  )
  const resultSubjectOf = resultChannel ? expectedSubject(resultChannel, plan.dispatch.targetParameter, operationBound) : undefined
  /** Every parameter a wildcard: each message is parsed, validated and routed by its operation id. */
  const wildcard = (channel: Channel<any, any, any>) => channel.address!.replace(/\{[^}]+\}/g, '*')
  async function listen(): Promise<void> {
    // A result's correlation members are read here, once: the route, the checks and the event use them.
    const routeResult = (error: unknown, msg: Msg) => {
      if (error) return
      const payload = decode(msg)
      if (payload === undefined) return
      const correlation = readCorrelation(payload)
      const id = correlation.operationId
      const handlers = typeof id === 'string' ? routes.get(id) : undefined
      if (handlers) handlers.result(msg, payload, correlation)
    }
    const routeCancel = (error: unknown, msg: Msg) => {
      if (error) return
      const payload = decode(msg)
      const id = typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>)['operationId'] : undefined
      const handlers = typeof id === 'string' ? routes.get(id) : undefined
      if (handlers) handlers.cancel(msg, payload)
    }
    if (plan.policy.completion.mode !== 'none') subscriptions.add(nc.subscribe(wildcard(resultChannel!), { callback: routeResult }))
    if (plan.cancel) subscriptions.add(nc.subscribe(wildcard(cancelResultChannel!), { callback: routeCancel }))
    await nc.flush()
  }

  async function run(op: Operation, invocation: Invocation<InvocationInputs<I>>): Promise<ExecutorResult<InvocationOutcome<Output>>> {
    const inputs = copyMembers((invocation.inputs ?? {}) as object)
    // The principal alone is kept: the closures below outlive the caller's invocation object.
    const principalId = invocation.principalId
    if (generatedInput) writeMember(inputs, generatedInput, op.id)
    let deadlineMs: number | null = null
    const context = (): AdapterContext => ({
      contractId: module.contract.id,
      contractVersion: module.contract.version,
      contractDigest: options.contractDigest,
      operationId: op.id,
      principalId,
      senderPeerId: deployment.senderPeerId,
      scopeId: deployment.scopeId,
      systemId: deployment.systemId,
      accountId: deployment.accountId,
      jetstreamDomain: deployment.jetstreamDomain,
      nowMs: now(),
      deadlineMs,
      policyRevision: deployment.policyRevision,
    })
    // The result subject each peer answers on (the operation's subject values, its own peer id).
    const resultSubjectIs = resultSubjectOf?.((param) => operationSubjectValue(param, inputs))
    /**
     * A boolean when the adapter answers synchronously, else its promise, `undefined` (unsettled)
     * once the operation's next due time passes or the executor closes: tasks run in order, and an
     * answer that never settles (at dispatch or before a cancel) held the deadline's tick behind it.
     */
    const authorized = (peerId: string, stage: AuthorizationStage, at = context()): boolean | Promise<boolean | undefined> => {
      const verdict = authorizedNow(adapters, at, peerId, stage)
      return typeof verdict === 'boolean' ? verdict : verdictWithin(verdict, core.nextDueMs(), now(), abandoned)
    }

    const admitted = await admitInvocation({ interaction, plan, adapters, deployment, manifest, inputs, context, closing: executorClosing })
    if (!admitted.ok) return admitted
    // The subscriptions before the core: from here to the admission event nothing awaits, so close()
    // finds either no core (the invocation answers EXECUTOR_CLOSED here) or one it can settle. With the
    // wait after the core, a close() in between applied `lost` before the admission, which then ran on
    // until its deadline, and close() with it.
    await (listening ??= listen())
    if (closed) return refuse('EXECUTOR_CLOSED', `${op.id}: the executor closed during the admission`)
    const { revision, peers, branches: admittedBranches, manifest: declared, requests: firstRequests } = admitted.value
    const request = (b: { branchId: string; peerId: string; attempt: number; fence: number }) =>
      requestOf(interaction, inputs, context(), b, branchInput(declared, b.branchId))

    const core = new DecisionCore(plan.policy, true)
    op.core = core
    const payloads = new Map<string, ResultPayload>()
    const cancelsSent = new Set<string>()
    const publications: Publication[] = Array.of()
    let timer: ReturnType<typeof setTimeout> | undefined
    let timerDueMs: number | null = null
    let chain: Promise<void> = Promise.resolve()
    /** Settles when the executor lets the operation go (close): an adapter answer still awaited is then unsettled, and nothing of it applied. */
    let abandon: () => void = () => undefined
    const abandoned = new Promise<void>((resolve) => (abandon = resolve))
    let lettingGo = false
    /** Tasks on `chain` not yet finished: with none, a result is handled at once (no promise per result). */
    let queued = 0
    /** Once settled: lets the core go when nothing can apply to it any more (`compact`). */
    let settledQuiet: (() => void) | undefined
    const done = () => {
      queued--
      if (queued === 0 && settledQuiet) settledQuiet()
    }
    /** Runs a task after the queued ones, never within the caller's turn. */
    const enqueue = (task: () => void | Promise<void>): void => {
      queued++
      chain = chain.then(task).then(done, done)
    }
    /** A message's task: at once when nothing is queued (its own awaits, if any, then hold the queue), else queued. */
    const handle = (task: () => void | Promise<void>): void => {
      if (queued > 0) return enqueue(task)
      let pending: void | Promise<void>
      try {
        pending = task()
      } catch {
        return
      }
      if (pending === undefined) return
      queued++
      chain = pending.then(done, done)
    }
    let finish!: (value: ExecutorResult<InvocationOutcome<Output>>) => void
    const finished = new Promise<ExecutorResult<InvocationOutcome<Output>>>((resolve) => (finish = resolve))
    let answered = false
    // The invocation answers only once every request of the dispatch is published (completion none decides at admission).
    let dispatched = false

    const subjectFor = (channel: Channel<any, any, any>, branch: BranchState | null): string => {
      // Parameters bound for the request get the same values (the operation id, the peer); others are wildcards.
      const values: Record<string, string> = {}
      for (const param of Object.keys(channel.parameters)) {
        const source = Object.hasOwn(interaction.bindings.subject, param) ? interaction.bindings.subject[param] : undefined
        let value: unknown
        if (source && 'input' in source) value = inputs[source.input]
        else if (source && 'literal' in source) value = source.literal
        else if (source && 'context' in source) value = (context() as unknown as Record<string, unknown>)[source.context]
        else if (source && 'branch' in source && branch)
          value = source.branch === 'id' ? branch.branchId : source.branch === 'peerId' ? branch.peerId : undefined
        else if (param === plan.dispatch.targetParameter && branch) value = branch.peerId
        values[param] = isToken(value) ? value : '*'
      }
      if (branch && channel.subject) return channel.subject.render(values)
      return channel.address!.replace(/\{([^}]+)\}/g, (_, p: string) => values[p] ?? '*')
    }

    const apply = (event: ExecutorEvent) => {
      core.apply(event)
      react()
    }

    const outcome = async (): Promise<ExecutorResult<InvocationOutcome<Output>>> => {
      const state = core.state()
      const logLength = core.logLength()
      const decision = state.decision!
      let output: Output | undefined
      if (adapters.aggregation) {
        const data = decision.votes.map((v) => payloads.get(voteKey(v))!).filter((p) => p !== undefined)
        const aggregated = await unlessClosed(
          call('aggregation', () => adapters.aggregation!({ context: context(), data })),
          executorClosing,
        )
        if (aggregated === CLOSED) return refuse('EXECUTOR_CLOSED', `${op.id}: the executor closed before the aggregation adapter answered`)
        const refusal = aggregated.ok ? outputRefusal(interaction.validateOutput, aggregated.value) : aggregated.message
        if (refusal !== undefined) {
          // Not recorded: the next invocation of the operation asks the aggregation again (`outcomeOf`).
          op.reanswer = outcome
          op.outcome = undefined
          return refuse('EXECUTOR_ADAPTER_FAILED', refusal)
        }
        output = (aggregated as { value: Output }).value
      }
      op.reanswer = undefined
      // The answer's record replaces the outcome kept for a repeated invocation (`outcomeOf` rebuilds it).
      op.answer = answerRecord(decision, logLength, revision, peers, publications, output)
      // Its core let go meanwhile (an aggregation adapter that took its time): the log goes with the record.
      if (!op.core) keepLog(op.answer, core.logPrefix(logLength))
      op.outcome = undefined
      // Settled while the aggregation ran: the core can go now.
      settledQuiet?.()
      return ok(new OutcomeRecord(op.id, decision, state, new AudienceRecord(revision, deployment.policyRevision, peers), [...publications], output))
    }

    const stop = () => {
      if (timer) clearTimeout(timer)
      timer = undefined
      // After the messages already read with this one: results handled at once (`handle`) would
      // otherwise lose the route for the rest of the same read, where queued ones kept it (and the
      // core records them as refused, late or stale).
      queueMicrotask(() => {
        routes.delete(op.id)
        settledQuiet?.()
      })
      // Settled: nothing of this invocation's scope (inputs, requests, payloads) is needed again.
      // Dropping the two closures that hold it leaves the idempotency record, the core and the
      // outcome (`close` applies the loss to the core itself).
      if (core.quiet() || lettingGo) {
        op.react = undefined
        op.settle = undefined
        settledQuiet = compact
        keptCores.add(op)
        if (keptCores.size > KEPT_CORES) {
          const oldest = keptCores.values().next().value!
          keptCores.delete(oldest)
          // The record keeps the log up to its answer: the state it returned is rebuilt from it.
          if (oldest.answer && oldest.core) keepLog(oldest.answer, oldest.core.logPrefix(oldest.answer.logLength))
          // One whose aggregation failed keeps no means to ask it again (the closure holds its payloads).
          if (oldest.reanswer) {
            oldest.reanswer = undefined
            oldest.outcome ??= Promise.resolve(
              refuse(
                'EXECUTOR_ADAPTER_FAILED',
                `${oldest.id}: its aggregation failed and it settled ${KEPT_CORES} or more operations ago; it is not asked again`,
              ),
            )
          }
          oldest.core = undefined
          oldest.tail = undefined
          oldest.coreDropped = true
        }
      }
    }

    /**
     * The settled core let go once nothing can apply an event to it: answered, no route, no task
     * queued (a result's verifier still awaited holds the core). Its log is kept as the answer
     * record's and the events after it (`Operation.tail`). O(log).
     */
    function compact(): void {
      if (op.core !== core || !op.answer || queued > 0 || routes.has(op.id)) return
      settledQuiet = undefined
      if (op.coreDropped) return
      keepLog(op.answer, core.logPrefix(op.answer.logLength))
      op.tail = core.logFrom(op.answer.logLength)
      op.core = undefined
    }

    // Runs after every event: reads the core without copying its state, and leaves the timer armed
    // while its due time is unchanged (a result rarely moves the deadline).
    function react(): void {
      for (const b of core.cancelRequested()) {
        if (!cancelsSent.has(b.branchId)) {
          cancelsSent.add(b.branchId)
          enqueue(() => sendCancel(b))
        }
      }
      if (!answered && dispatched && core.returnsAtMs() !== null) {
        answered = true
        void outcome().then(finish)
      }
      // Quiet, or let go by close(): a cancel request still out times out only in a running executor.
      if (core.quiet() || lettingGo) {
        stop()
        return
      }
      const due = core.nextDueMs()
      if (timer && due === timerDueMs) return
      if (timer) clearTimeout(timer)
      timer = undefined
      timerDueMs = due
      if (due !== null)
        timer = setTimeout(
          () => {
            timer = undefined
            timerDueMs = null
            // When it fired: a task still running ahead of it (an adapter awaited) does not move it later.
            const atMs = now()
            enqueue(() => {
              core.tick(atMs)
              react()
            })
          },
          Math.max(0, due - now()),
        )
    }
    op.react = react
    op.settle = () => {
      // An adapter's answer still awaited (a verifier that never settles) lets go first: the event is behind it.
      // What it would have decided is not applied: the operation is lost, no peer revoked for an answer it never gave.
      lettingGo = true
      abandon()
      enqueue(() => apply({ kind: 'lost', atMs: now() }))
    }

    async function sendCancel(b: BranchState): Promise<void> {
      const allowed = await authorized(b.peerId, 'cancel')
      if (allowed === undefined && lettingGo) return
      if (!allowed) return apply({ kind: 'revoked', atMs: now(), peerId: b.peerId })
      const payload = { operationId: op.id, branchId: b.branchId, attempt: b.attempt, fence: b.fence }
      if (check(cancelChannel!.validatePayload, payload)) return
      await publish(cancelOp!, subjectFor(cancelChannel!, b), payload, `${op.id}.${b.branchId}.${b.attempt}.cancel`).catch(() => undefined)
    }

    /** A routed result read (its correlation read once, by the route), or undefined when nothing of it can apply. */
    function resultOf(msg: Msg, payload: unknown, correlation: Correlation, atMs: number): Checked | undefined {
      if (check(resultChannel!.validatePayload, payload)) return undefined
      const { branchId, attempt, peerId, fence } = correlation
      if (correlation.operationId !== op.id || typeof branchId !== 'string' || typeof peerId !== 'string') return undefined
      if (!Number.isSafeInteger(attempt) || !Number.isSafeInteger(fence)) return undefined
      // Subject-permission verification: the subject's peer and the body's peer agree (the expected
      // subject is one that parses with the body's peer; any other subject is parsed).
      const subjectAgrees = resultSubjectIs?.(msg.subject, peerId) === true || parsedSubjectAgrees(msg.subject, peerId)
      return { payload, branchId, peerId, attempt: attempt as number, fence: fence as number, subjectAgrees, atMs }
    }

    /** A result as it arrived: `atMs` is when, so that one peer's adapter still awaited makes no other peer's result late. */
    type Checked = { payload: unknown; branchId: string; peerId: string; attempt: number; fence: number; subjectAgrees: boolean; atMs: number }
    /** What a result's adapters said: verified or not, its peer revoked, or nothing to apply (cut off by closing). */
    type Verdict = boolean | 'revoke' | 'drop'

    /** Result verdicts whose adapters are being asked, and the results waiting for one of those places (in arrival order). */
    let verdictsAsked = 0
    const verdictsWaiting: Array<() => void> = []
    /** Asks a result's adapters now, or once fewer than RESULT_VERDICTS_AT_ONCE are being asked (a flood of results asks them in turn). */
    function startVerdict(r: Checked): Verdict | Promise<Verdict> {
      if (verdictsAsked >= RESULT_VERDICTS_AT_ONCE) return new Promise<Verdict>((resolve) => verdictsWaiting.push(() => resolve(asked(verdictOf(r)))))
      return asked(verdictOf(r))
    }
    function asked(verdict: Verdict | Promise<Verdict>): Verdict | Promise<Verdict> {
      if (!isThenable(verdict)) return verdict
      verdictsAsked++
      return verdict.then(
        (v) => {
          verdictsAsked--
          startWaiting()
          return v
        },
        () => {
          verdictsAsked--
          startWaiting()
          return false as Verdict
        },
      )
    }
    /** Starts the waiting results' verdicts while places are free (one answered at once frees its place at once). */
    function startWaiting(): void {
      while (verdictsAsked < RESULT_VERDICTS_AT_ONCE && verdictsWaiting.length > 0) verdictsWaiting.shift()!()
    }

    /** The result's authorization, then its verifier; a promise only when an adapter answers with one. */
    function verdictOf(r: Checked): Verdict | Promise<Verdict> {
      // One context for the authorization and the verifier when both answer at once.
      const at = context()
      // (A promised verdict is already read: it was once read again as an answer, and every result refused.)
      const allowed = authorized(r.peerId, 'result', at)
      return typeof allowed === 'boolean' ? verified(allowed, at, r) : allowed.then((a) => verified(a, undefined, r))
    }

    function verified(allowed: boolean | undefined, at: AdapterContext | undefined, r: Checked): Verdict | Promise<Verdict> {
      // Unsettled at the next due time: the result is refused as unverified, the peer not revoked.
      if (allowed === undefined) return lettingGo ? 'drop' : false
      if (!allowed) return 'revoke'
      if (!r.subjectAgrees || !adapters.verifier) return r.subjectAgrees
      let answer: unknown
      try {
        answer = adapters.verifier({ context: at ?? context(), data: r.payload as ResultPayload })
      } catch {
        return false
      }
      // An answer that cannot be read, or a promise unsettled at the next due time or at close, is unverified.
      if (isThenable(answer)) return allowedWithin(answer, core.nextDueMs(), now(), abandoned).then((a) => a === true)
      return allowedIn(answer)
    }

    /** Applies a result's verdict, in the result's turn. */
    function applyVerdict(r: Checked, verdict: Verdict): void {
      if (verdict === 'drop') return
      if (verdict === 'revoke') return apply({ kind: 'revoked', atMs: now(), peerId: r.peerId })
      applyResult(r, verdict)
    }

    function applyResult(r: Checked, verified: boolean): void {
      const success = sameJson(readSuccess(r.payload), plan.success!.equals)
      const event = new ResultEvent(r.atMs, r.branchId, r.peerId, r.attempt, r.fence, success, verified)
      // Payloads are kept only for the aggregation adapter.
      if (core.apply(event) === null && adapters.aggregation) payloads.set(voteKey(r), r.payload as ResultPayload)
      react()
    }

    function onCancelResult(_msg: Msg, decoded: unknown, atMs: number): void {
      const payload = decoded as Record<string, unknown> | undefined
      if (payload === undefined || check(cancelResultChannel!.validatePayload, payload)) return
      if (payload['operationId'] !== op.id || typeof payload['branchId'] !== 'string') return
      const reply = payload['outcome']
      if (reply !== 'stopped' && reply !== 'already-completed' && reply !== 'unknown') return
      const branch = core.branch(payload['branchId'])
      if (!branch) return
      // The fixed CancelResult names no attempt or fence: it answers the request of the current ones.
      const attempt = Number.isSafeInteger(payload['attempt']) ? (payload['attempt'] as number) : branch.attempt
      const fence = Number.isSafeInteger(payload['fence']) ? (payload['fence'] as number) : branch.fence
      apply({ kind: 'cancel-answered', atMs, branchId: branch.branchId, attempt, fence, reply })
    }

    // Routed before admission and publication: no result can arrive unheard.
    routes.set(op.id, {
      // A result's adapters are asked when it arrives (at most RESULT_VERDICTS_AT_ONCE at a time), and
      // its event applied in arrival order: one peer's answer still awaited neither makes another's
      // result late nor keeps its adapters from being asked until the first is cut off.
      result: (msg, payload, correlation) => {
        const atMs = now()
        const r = resultOf(msg, payload, correlation, atMs)
        if (r === undefined) return
        const verdict = startVerdict(r)
        handle(() => (isThenable(verdict) ? verdict.then((v) => applyVerdict(r, v)) : applyVerdict(r, verdict)))
      },
      // A CancelResult's time, as a result's, is when it came: a task ahead of it (an adapter awaited) does not make it late.
      cancel: (msg, payload) => {
        const atMs = now()
        enqueue(() => onCancelResult(msg, payload, atMs))
      },
    })
    const admittedAt = now()
    core.apply(new AdmittedEvent(admittedAt, admittedBranches, plan.dispatch.mode === 'one-eligible' ? peers : NO_PEERS))
    const admission = core.admissionState()
    if (admission.status !== 'admitted') {
      stop()
      return refuse('EXECUTOR_ADMISSION_REFUSED', `${interaction.id}: admission refused (${admission.status === 'refused' ? admission.reason : 'pending'})`)
    }
    deadlineMs = admission.deadlineMs

    // Dispatch: authorization rechecked, then the request published (one attempt: memory state).
    enqueue(async () => {
      const branches = manifest?.publishes === false ? [] : core.branchesIn('open', 'dispatched')
      // One context for the dispatch's authorizations (made in one synchronous pass).
      const at = context()
      const answers = branches.map((b) => authorized(b.peerId, 'dispatch', at))
      // Synchronous adapters (the usual case) answer without a promise per peer.
      const allowed = answers.every((a) => typeof a === 'boolean') ? (answers as boolean[]) : await Promise.all(answers)
      // Let go meanwhile (closing): nothing is published and no peer revoked for an answer it never
      // gave; the dispatch is over, and the `lost` event behind it decides.
      if (lettingGo && allowed.includes(undefined)) {
        dispatched = true
        return react()
      }
      const requestFor = (b: BranchState) => (b.attempt === 1 && firstRequests.has(b.branchId) ? firstRequests.get(b.branchId)! : request(b))
      const failed = (b: BranchState, error: unknown) => {
        publications.push(new PublicationRecord(b.branchId, b.attempt, false, errorText(error)))
        apply({ kind: 'failed', atMs: now(), branchId: b.branchId, attempt: b.attempt, fence: b.fence, retryable: true })
      }
      // (Gather dispatch publishes nothing and has no request operation.)
      if (branches.length === 0 || requestOperation.api !== 'jetstream') {
        // A core publication is written to the connection's buffer at once: no promise per peer,
        // and all of them leave in one write to the socket.
        for (let i = 0; i < branches.length; i++) if (!allowed[i]) apply({ kind: 'revoked', atMs: now(), peerId: branches[i]!.peerId })
        for (let i = 0; i < branches.length; i++) {
          const b = branches[i]!
          if (!allowed[i]) continue
          try {
            const { subject, payload } = requestFor(b)
            nc.publish(subject, encodeText(JSON.stringify(payload)))
            publications.push(new PublicationRecord(b.branchId, b.attempt, true))
          } catch (error) {
            failed(b, error)
          }
        }
      } else {
        // Published together (no await between publications), each failure applied as it is known.
        const sent = branches.map(async (b, i) => {
          if (!allowed[i]) return apply({ kind: 'revoked', atMs: now(), peerId: b.peerId })
          try {
            const { subject, payload } = requestFor(b)
            await publish(requestOperation, subject, payload, `${op.id}.${b.branchId}.${b.attempt}`)
            publications.push(new PublicationRecord(b.branchId, b.attempt, true))
          } catch (error) {
            failed(b, error)
          }
        })
        await Promise.all(sent)
      }
      dispatched = true
      react()
    })
    return finished
  }

  /** A repeated invocation's answer: the running one's, or the same outcome rebuilt from the record. O(log). */
  const outcomeOf = (op: Operation): Promise<ExecutorResult<InvocationOutcome<any>>> => {
    if (op.outcome) return op.outcome
    // Decided with its aggregation failed: asked again, once at a time (a repeat meanwhile joins it).
    if (op.reanswer) {
      if (closed) return Promise.resolve(refuse('EXECUTOR_CLOSED', 'the executor is closed'))
      // `outcome` itself lets go of it again: on success for the answer record, on failure for the next ask.
      op.outcome = op.reanswer()
      return op.outcome
    }
    const a = op.answer!
    const core = op.core
    return Promise.resolve(
      ok({
        operationId: op.id,
        decision: a.decision,
        state: answeredState(plan.policy, a, core && (() => core.logPrefix(a.logLength))),
        audience: { revision: a.revision, policyRevision: deployment.policyRevision, peers: a.peers },
        publications: answeredPublications(a),
        ...(a.output !== undefined ? { output: a.output } : {}),
      }),
    )
  }

  /** A let-go operation's whole log: the answer's, then the events after it. O(log). */
  const settledLog = (op: Operation): ExecutorEvent[] | undefined => {
    const answered = op.tail && op.answer ? answeredLog(op.answer) : undefined
    return answered && [...answered, ...op.tail!]
  }

  const unknown = (operationId: string, op: Operation | undefined) =>
    refuse(
      'EXECUTOR_UNKNOWN_OPERATION',
      op?.coreDropped
        ? `${operationId} settled ${KEPT_CORES} or more operations ago: memory state keeps only its idempotency record`
        : `${operationId} is not an admitted operation of this executor`,
    )

  const executor: Executor<Output, InvocationInputs<I>> = {
    async invoke(invocation) {
      if (closed) return refuse('EXECUTOR_CLOSED', 'the executor is closed')
      const key = await invocationKey(invocation, options.contractDigest)
      if (!key.ok) return key
      const { operationId: id, inputBytes } = key.value
      const existing = operations.get(id)
      if (existing) {
        if (existing.inputDigest !== inputDigest(inputBytes)) return idempotencyConflict(id)
        return outcomeOf(existing)
      }
      const op = new OperationRecord(id, inputDigest(inputBytes))
      op.outcome = run(op, invocation).catch((error: unknown) => refuse('EXECUTOR_ADAPTER_FAILED', errorText(error)))
      operations.set(id, op)
      return op.outcome
    },
    async resume(operationId) {
      const op = operations.get(operationId)
      return op ? outcomeOf(op) : refuse('EXECUTOR_UNKNOWN_OPERATION', `${operationId}: memory state does not resume (restart: fail-unknown)`)
    },
    async cancel(operationId) {
      const op = operations.get(operationId)
      // Settled and let go: the cancel is refused as decided, as the core would, and logged.
      if (op?.tail && op.answer) {
        logSettledCancel(op.tail, now())
        return ok(op.answer.decision)
      }
      if (!op?.core) return refuse('EXECUTOR_UNKNOWN_OPERATION', `${operationId} is not an admitted operation of this executor`)
      op.core.apply({ kind: 'cancel', atMs: now() })
      op.react?.()
      const decision = op.core.state().decision
      return decision ? ok(decision) : refuse('EXECUTOR_UNKNOWN_OPERATION', `${operationId} has no decision`)
    },
    state(operationId) {
      const op = operations.get(operationId)
      const log = op && !op.core ? settledLog(op) : undefined
      if (log) return ok(simulate(plan.policy, log))
      if (!op?.core) return unknown(operationId, op)
      return ok(op.core.state())
    },
    log(operationId) {
      const op = operations.get(operationId)
      const log = op && !op.core ? settledLog(op) : undefined
      if (log) return ok(log)
      if (!op?.core) return unknown(operationId, op)
      return ok(op.core.log())
    },
    async close() {
      closed = true
      signalClosing()
      for (const op of operations.values()) {
        if (op.settle) op.settle()
        else if (op.core) op.core.apply({ kind: 'lost', atMs: now() })
        else op.tail?.push({ kind: 'lost', atMs: now() })
      }
      await Promise.all([...operations.values()].map((op) => op.outcome))
      for (const s of subscriptions) s.unsubscribe()
      subscriptions.clear()
    },
  }
  return ok(executor as Executor<Given<Output, OutputOf<I>>, InvocationInputs<I>>)
}
