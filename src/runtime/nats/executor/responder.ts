/**
 * The peer side of an interaction: answers the requests addressed to one peer with a correlated
 * result. It honours the operation/branch idempotency key (a repeated request gets the committed
 * result again, the handler never runs twice) and the fence at commit (a request or a commit whose
 * fence is below the highest one seen for its branch is stale: nothing is published), and answers
 * CancelRequests (stopped while running, already-completed after the commit; a cancel that comes
 * before its attempt's request stops the attempt before it starts, and the request runs nothing;
 * unknown for an older attempt than the branch's latest). Memory state: the idempotency record
 * lives as long as the responder.
 */
import type { Msg, NatsConnection, Subscription } from '@nats-io/nats-core'
import type { Interaction } from '../interactions.js'
import type { Channel } from '../subjects.js'
import { check } from '../../shared/validation.js'
import type { ExecutorModule } from './executor.js'
import type { Given, RequestOf, ResultFieldsOf } from './adapters.js'
import { planInteraction, type InteractionPlan } from './policy.js'
import { ok, refuse, type ExecutorResult } from './result.js'
import { createDurableResponder, type DurableResponderBinding } from './delivery/responder.js'
import { copyMembers, plainPointerReader, pointerWriter, readPlainPointer, writePointerValue } from './dispatch/pointers.js'
import { LazyAbort } from './dispatch/lazy-abort.js'
import { encodeText } from './dispatch/slab-encode.js'
import { CoreHandlers, DEFAULT_CORE_HANDLER_BOUNDS } from '../core-handlers.js'
import { parseJsonData } from '../../shared/wire-json.js'
import { strictUtf8 } from '../../shared/utf8.js'

export interface ResponderRequest<RequestPayload> {
  readonly operationId: string
  readonly branchId: string
  readonly attempt: number
  readonly fence: number
  readonly payload: RequestPayload
  /** Aborted when a CancelRequest for this attempt arrives. */
  readonly signal: AbortSignal
}

export interface ResponderOptions<RequestPayload, ResultFields, I extends Interaction = Interaction> {
  readonly connection: NatsConnection
  readonly module: ExecutorModule
  readonly interaction: I
  readonly peerId: string
  /** The business part of the result; the correlation fields are the responder's. Undefined: no result (stopped). */
  readonly handler: (request: ResponderRequest<RequestPayload>) => Promise<ResultFields | undefined> | ResultFields | undefined
  /** Where a durable-per-recipient interaction's requests and claims live (required by one; see `./delivery/responder.ts`). */
  readonly durable?: DurableResponderBinding
}

export interface Responder {
  /** Results published (a re-published committed result counts again). */
  readonly published: () => number
  close(): Promise<void>
}

/**
 * A branch's idempotency record, kept as long as the responder. A class rather than a literal:
 * V8 allocates a literal whose objects outlive young collections straight into the old generation
 * (allocation-site pretenuring), and what such a record points to while young (its execution's
 * abort holder, the committed fields) then outlives every young collection until a full one.
 */
class BranchRecord {
  running: LazyAbort | undefined
  committed: Record<string, unknown> | undefined = undefined
  /** Cancelled while running (answered `stopped`): a replay of the same attempt runs nothing. */
  stopped = false
  /**
   * Stopped by a cancel that came first, and its request has come since: kept as any other record
   * (a replay of it runs nothing), no longer one of the early cancels that may be forgotten.
   */
  requestSeen = false
  constructor(
    readonly branchId: string,
    public fence: number,
    public attempt: number,
    running: LazyAbort | undefined,
  ) {
    this.running = running
  }
}

/**
 * Cancels a responder keeps for attempts whose request has not come (the cancel overtook it, or the
 * request waits among the 1,024): each is a stopped record, so the request, when it comes, runs
 * nothing. Past this many the oldest is forgotten (its request, should it still come, runs): a
 * flood of cancels for branches that never come costs at most this many records.
 */
export const EARLY_CANCELS_KEPT = 4096

/** The stopped records of the last `EARLY_CANCELS_KEPT` cancels that came first, each as the way to forget it (oldest first). */
export class EarlyCancels {
  private readonly kept: Array<(() => void) | undefined> = []
  private head = 0

  /** Keeps a stopped record (`forget` drops it), forgetting the oldest past `EARLY_CANCELS_KEPT`. */
  add(forget: () => void): void {
    this.kept.push(forget)
    if (this.kept.length - this.head <= EARLY_CANCELS_KEPT) return
    this.kept[this.head]!()
    this.kept[this.head++] = undefined
    // Made again once half of it is forgotten entries: constant work per cancel, amortized.
    if (this.head * 2 > this.kept.length) {
      this.kept.splice(0, this.head)
      this.head = 0
    }
  }
}

/** A peer's bytes as text, strictly (utf8.ts): not UTF-8, or a byte order mark first, is not JSON. */
const decoder = strictUtf8
const ignore = () => undefined

/**
 * The branch records by operation id, then branch id. A peer usually holds one branch of an
 * operation, so an operation's entry is its one record (which names its branch) until a second
 * branch arrives: a lookup hashes the two ids as parsed, with no `${operation}/${branch}` key
 * built per request, and a kept operation costs one map entry and one record.
 */
class BranchRecords {
  private readonly byOperation = new Map<string, Map<string, BranchRecord> | BranchRecord>()

  get(operationId: string, branchId: string): BranchRecord | undefined {
    const entry = this.byOperation.get(operationId)
    if (entry === undefined) return undefined
    if (entry instanceof Map) return entry.get(branchId)
    return entry.branchId === branchId ? entry : undefined
  }

  set(operationId: string, record: BranchRecord): void {
    const entry = this.byOperation.get(operationId)
    if (entry === undefined || (!(entry instanceof Map) && entry.branchId === record.branchId)) this.byOperation.set(operationId, record)
    else if (entry instanceof Map) entry.set(record.branchId, record)
    else
      this.byOperation.set(
        operationId,
        new Map([
          [entry.branchId, entry],
          [record.branchId, record],
        ]),
      )
  }

  /** Drops `record` when it is still the branch's (a later request or cancel may have replaced it). */
  delete(operationId: string, record: BranchRecord): void {
    const entry = this.byOperation.get(operationId)
    if (entry === record) this.byOperation.delete(operationId)
    else if (entry instanceof Map && entry.get(record.branchId) === record) entry.delete(record.branchId)
  }

  *values(): IterableIterator<BranchRecord> {
    for (const entry of this.byOperation.values()) {
      if (entry instanceof Map) yield* entry.values()
      else yield entry
    }
  }
}

/**
 * What the handler is given. A class rather than an object literal with a `signal` getter: a
 * literal defines its accessor anew on every request, which cost more than the rest of the object.
 */
class HandledRequest<RequestPayload> implements ResponderRequest<RequestPayload> {
  readonly #running: LazyAbort
  constructor(
    readonly operationId: string,
    readonly branchId: string,
    readonly attempt: number,
    readonly fence: number,
    readonly payload: RequestPayload,
    running: LazyAbort,
  ) {
    this.#running = running
  }

  /** Made on first read: most handlers never look. */
  get signal(): AbortSignal {
    return this.#running.signal
  }
}

export function setPointer(target: Record<string, unknown>, expression: string, value: unknown): boolean {
  return writePointerValue(target, expression, value)
}

/** The request payload pointer bound to a branch field or the generated operation id. */
export function boundPointer(interaction: Interaction, matches: (source: Record<string, unknown>) => boolean): string | undefined {
  for (const [pointer, source] of Object.entries(interaction.bindings.payload)) if (matches(source as Record<string, unknown>)) return pointer
  return undefined
}

export function readPointer(payload: unknown, pointer: string | undefined): unknown {
  return pointer === undefined ? undefined : readPlainPointer(payload, pointer)
}

/** The handler's result type: the caller's type argument, else the contract's (`ResultFieldsOf`), else any record. */
type FieldsGiven<T, Contract> = unknown extends T ? (unknown extends Contract ? Record<string, unknown> : Contract) : T

/**
 * A peer's responder. Typed from the contract when no type argument is written: the handler
 * receives the request operation's payload (`RequestOf<I>`) and returns the result payload without
 * its correlated members (`ResultFieldsOf<I>`); type arguments written by hand still win.
 */
export function createResponder<RequestPayload = unknown, ResultFields = unknown, I extends Interaction = Interaction>(
  options: ResponderOptions<NoInfer<Given<RequestPayload, RequestOf<I>>>, NoInfer<FieldsGiven<ResultFields, ResultFieldsOf<I>>>, I>,
): Promise<ExecutorResult<Responder>> {
  // The same function at run time whatever the types: the handler's fields are a record of members.
  return startResponder(options as unknown as ResponderOptions<unknown, Record<string, unknown>>)
}

async function startResponder<RequestPayload, ResultFields extends Record<string, unknown>>(
  options: ResponderOptions<RequestPayload, ResultFields>,
): Promise<ExecutorResult<Responder>> {
  const { interaction, module, connection: nc, peerId } = options
  const planned = planInteraction(interaction)
  if (!planned.ok) return planned
  const plan = planned.value
  if (plan.delivery.durable) {
    if (!options.durable) return refuse('EXECUTOR_INVALID_DESCRIPTOR', `${interaction.id}: durable delivery needs the responder's durable binding`)
    return createDurableResponder(options, plan, options.durable)
  }
  const { requestChannel, resultChannel, cancelChannel, cancelResultChannel } = responderChannels(module, interaction, plan)
  if (!requestChannel?.subject || !resultChannel?.subject)
    return refuse('EXECUTOR_INVALID_DESCRIPTOR', `${interaction.id}: a responder needs request and result channels`)
  const generated = Object.entries(interaction.inputs).find(([, i]) => i.source === 'generated')?.[0]
  const pointers = {
    operation: boundPointer(interaction, (s) => s['input'] === generated),
    branch: boundPointer(interaction, (s) => s['branch'] === 'id'),
    attempt: boundPointer(interaction, (s) => s['branch'] === 'attempt'),
    fence: boundPointer(interaction, (s) => s['branch'] === 'fence'),
  }
  const target = plan.dispatch.targetParameter
  // A peer listens on its own subjects: every parameter a wildcard except its own peer parameter.
  const ownSubject = (channel: Channel<any, any, any>) => channel.address!.replace(/\{([^}]+)\}/g, (_, p: string) => (p === target ? peerId : '*'))
  const records = new BranchRecords()
  const early = new EarlyCancels()
  const subs: Subscription[] = []
  let published = 0

  const send = (channel: Channel<any, any, any>, params: Record<string, string>, payload: Record<string, unknown>) => {
    nc.publish(channel.subject!.render(params), encodeText(JSON.stringify(payload)))
  }
  const paramsFor = (channel: Channel<any, any, any>, requestParams: Record<string, string>) => {
    const out: Record<string, string> = {}
    for (const p of Object.keys(channel.parameters)) out[p] = p === target ? peerId : requestParams[p]!
    return out
  }
  // Resolved once: the request members read and the result members written on every request.
  const resultParameters = Object.keys(resultChannel.parameters)
  const read = {
    operation: plainPointerReader(pointers.operation),
    branch: plainPointerReader(pointers.branch),
    attempt: plainPointerReader(pointers.attempt),
    fence: plainPointerReader(pointers.fence),
  }
  const c = plan.correlation
  const write = {
    operation: pointerWriter(c.operation),
    branch: pointerWriter(c.branch),
    attempt: pointerWriter(c.attempt),
    fence: pointerWriter(c.fence),
    peer: pointerWriter(c.peer),
  }

  /** The result of a branch's attempt: the committed fields with the correlation written in, checked against the result schema, published. */
  const answer = (
    requestParams: Record<string, string>,
    operationId: string,
    branchId: string,
    attempt: number,
    fence: number,
    fields: Record<string, unknown>,
  ) => {
    const result = copyMembers(fields)
    write.operation(result, operationId)
    write.branch(result, branchId)
    write.attempt(result, attempt)
    write.fence(result, fence)
    write.peer(result, peerId)
    if (check(resultChannel.validatePayload, result)) return
    const params: Record<string, string> = {}
    for (const p of resultParameters) params[p] = p === target ? peerId : requestParams[p]!
    send(resultChannel, params, result)
    published++
  }

  /**
   * A request: parsed, its subject parsed, checked against the request schema exactly (a request it
   * refuses is never handled), then the four members the bookkeeping reads. The handler's result is
   * committed and answered at once when the handler answers synchronously (no turn per request).
   */
  function onRequest(msg: Msg): void | Promise<void> {
    let payload: unknown
    try {
      payload = parseJsonData(decoder.decode(msg.data))
    } catch {
      return
    }
    const params = requestChannel!.subject!.tryParse(msg.subject) as Record<string, string> | undefined
    if (!params || check(requestChannel!.validatePayload, payload)) return
    const operationId = read.operation(payload)
    const branchId = read.branch(payload)
    const attempt = read.attempt(payload)
    const fence = read.fence(payload)
    if (typeof operationId !== 'string' || typeof branchId !== 'string' || !Number.isSafeInteger(attempt) || !Number.isSafeInteger(fence)) return
    const record = records.get(operationId, branchId)
    const f = fence as number
    const a = attempt as number
    if (record && f < record.fence) return // stale request: a higher fence was seen
    if (record?.committed) {
      // Idempotency: the effect ran once; a repeated (or later-attempt) request gets its result again.
      record.fence = f
      record.attempt = a
      return answer(params, operationId, branchId, a, f, record.committed)
    }
    if (record?.running && f === record.fence) return // the same attempt is running: one execution per key
    // The same attempt cancelled and stopped: a replay of its request (a redelivery, a forged copy)
    // must not do the cancelled work after all (it ran the handler again and published its result).
    if (record?.stopped && f === record.fence) {
      record.requestSeen = true
      return
    }
    record?.running?.abort() // a higher fence supersedes the running execution
    const running = new LazyAbort()
    const current = new BranchRecord(branchId, f, a, running)
    records.set(operationId, current)
    // `meanwhile`: the handler awaited, so another request or a cancel may have come in between.
    const commit = (fields: ResultFields | undefined, meanwhile: boolean) => {
      current.running = undefined
      // Fence at commit: a higher fence seen meanwhile (or a cancel) makes this execution stale.
      if (fields === undefined || running.aborted || (meanwhile && records.get(operationId, branchId) !== current)) return
      current.committed = copyMembers(fields)
      answer(params, operationId, branchId, a, f, current.committed)
    }
    let returned: Promise<ResultFields | undefined> | ResultFields | undefined
    try {
      returned = options.handler(new HandledRequest(operationId, branchId, a, f, payload as RequestPayload, running))
    } catch {
      return commit(undefined, false)
    }
    if (typeof (returned as { then?: unknown } | undefined)?.then === 'function')
      return (returned as Promise<ResultFields | undefined>).then(
        (fields) => commit(fields, true),
        () => commit(undefined, true),
      )
    commit(returned as ResultFields | undefined, false)
  }

  function onCancel(msg: Msg): void {
    let payload: Record<string, unknown>
    try {
      payload = parseJsonData(decoder.decode(msg.data)) as Record<string, unknown>
    } catch {
      return
    }
    const params = cancelChannel!.subject!.tryParse(msg.subject) as Record<string, string> | undefined
    if (!params || check(cancelChannel!.validatePayload, payload)) return
    const operationId = payload['operationId']
    const branchId = payload['branchId']
    if (typeof operationId !== 'string' || typeof branchId !== 'string') return
    const record = records.get(operationId, branchId)
    const fence = payload['fence']
    const attempt = payload['attempt']
    let outcome: 'stopped' | 'already-completed' | 'unknown' = 'unknown'
    if (record?.committed) outcome = 'already-completed'
    else if (record?.running && record.fence === fence && record.attempt === attempt) {
      record.running.abort()
      record.stopped = true
      outcome = 'stopped'
    } else if (record?.stopped && record.fence === fence && record.attempt === attempt) {
      // A repeated cancel of the stopped attempt: still stopped.
      outcome = 'stopped'
    } else if (Number.isSafeInteger(fence) && Number.isSafeInteger(attempt) && (record === undefined || record.fence < (fence as number))) {
      // The cancel came before its attempt's request (it overtook it, or the request waits its
      // turn): the attempt is stopped before it starts, and its request, when it comes, runs nothing.
      // An earlier attempt still running is superseded, as that request would supersede it.
      record?.running?.abort()
      const stopped = new BranchRecord(branchId, fence as number, attempt as number, undefined)
      stopped.stopped = true
      records.set(operationId, stopped)
      early.add(() => {
        if (!stopped.requestSeen) records.delete(operationId, stopped)
      })
      outcome = 'stopped'
    }
    const answer = { operationId, branchId, outcome }
    if (check(cancelResultChannel!.validatePayload, answer)) return
    send(cancelResultChannel!, paramsFor(cancelResultChannel!, params), answer)
  }

  // Requests run concurrently (a stalled one must not block a cancel), at most 64 at once with
  // 1,024 waiting (DEFAULT_CORE_HANDLER_BOUNDS, as the durable responder runs at most 64): a flood
  // of requests never becomes as many handlers at once. One past the waiting room is dropped
  // unanswered, as a request lost on the way would be. Cancels are handled as they arrive, beside them.
  const requests = new CoreHandlers<undefined>((_, msg) => onRequest(msg), DEFAULT_CORE_HANDLER_BOUNDS, ignore, ignore)
  subs.push(nc.subscribe(ownSubject(requestChannel), { callback: (error, msg) => (error ? undefined : requests.offer(undefined, msg)) }))
  if (cancelChannel?.subject && cancelResultChannel?.subject)
    subs.push(
      nc.subscribe(ownSubject(cancelChannel), {
        // In the turn it arrives, as a request is offered in its own: a cancel read before its
        // request (one connection keeps a publisher's order) is applied before that request can
        // start. Handled through a promise chain, it waited for a later turn and the request started.
        callback: (error, msg) => {
          if (error) return
          try {
            onCancel(msg)
          } catch {
            // A cancel that cannot be answered (a subject that cannot be rendered) is not answered.
          }
        },
      }),
    )
  await nc.flush()
  return ok({
    published: () => published,
    async close() {
      // No handler starts once called: the requests still waiting are let go unanswered, as the durable responder leaves them.
      requests.stop()
      for (const s of subs) s.unsubscribe()
      for (const r of records.values()) r.running?.abort()
    },
  })
}

/** The channels a responder serves: the interaction's request and result, and its cancel operations when declared. */
export function responderChannels(module: ExecutorModule, interaction: Interaction, plan: InteractionPlan) {
  const channelOf = (key: string | undefined): Channel<any, any, any> | undefined => {
    const op = key && Object.hasOwn(module.operations, key) ? module.operations[key] : undefined
    return op && Object.hasOwn(module.channels, op.channel) ? module.channels[op.channel] : undefined
  }
  return {
    requestChannel: channelOf(interaction.requestOperation),
    resultChannel: channelOf(interaction.resultOperation),
    cancelChannel: channelOf(plan.cancel?.operation),
    cancelResultChannel: channelOf(plan.cancel?.resultOperation),
  }
}
