/**
 * The peer side of a durable-per-recipient interaction: reads its requests through its own
 * filtered durable consumer, and under ownership runs a request only while it holds the branch's
 * claim with the request's fence: it renews the claim every `renewEveryMs` while the handler runs
 * (a failed renewal, the claim taken over or expired, aborts the execution), commits the claim
 * under its fence before publishing the result (a stale or expired claim cannot commit: nothing
 * is published; a refusal while the claim still reads as its own, held and within its lease, is
 * a compare-and-set lost to a write of its own or a read from behind, and the commit is tried
 * again), and publishes the result to the retained stream with a message id, so a republication
 * is stored once. A request is acknowledged once it is answered or known stale.
 * CancelRequests (core messages) abort a running execution (`stopped`), or are answered
 * `already-completed` after the commit; one that comes before its attempt's request is delivered
 * (core messages overtake the stream) stops the attempt before it starts (`stopped`: the request is
 * acknowledged and runs nothing); one for an older attempt than the branch's latest is `unknown`.
 *
 * The committed result is kept beside the claim (`<operation>.<branch>.result` in the claim
 * bucket, or the binding's `resultBucket`), written before the claim is committed: a peer
 * restarted after committing but before publishing gets the request again (it was not yet
 * acknowledged) and republishes the kept result with the same message id (stored once), without
 * running the handler again, as long as the claim is still its own under the request's fence.
 */
import type { JsMsg } from '@nats-io/jetstream'
import { headers, type Msg, type Subscription } from '@nats-io/nats-core'
import { check } from '../../../shared/validation.js'
import type { InteractionPlan } from '../policy.js'
import { ok, refuse, type ExecutorResult } from '../result.js'
import { openClaimStore, type ClaimStore } from '../ownership/claims.js'
import { EarlyCancels, boundPointer, readPointer, responderChannels, setPointer, type Responder, type ResponderOptions } from '../responder.js'
import { consumeAll, ensureConsumer, publishOnce } from './jetstream.js'
import { claimKey, peerConsumer, peerSubject } from '../durable/executor.js'
import { openRecordBucket, type RecordBucket } from '../durable/records.js'
import { replicasRefusal, streamReplicasRefusal, type Replicas } from '../durable/replicas.js'
import { parseJsonData } from '../../../shared/wire-json.js'
import { strictUtf8 } from '../../../shared/utf8.js'

export interface DurableResponderBinding {
  /** The stream holding the request subjects (the executor's `requestStream`). */
  readonly requestStream: string
  /** The KV bucket of branch claims (the executor's `claimBucket`), needed with ownership. */
  readonly claimBucket?: string
  /** The KV bucket where committed results are kept across a restart; default the claim bucket (none: kept in memory only). */
  readonly resultBucket?: string
  /** Acknowledgement wait of the peer's consumer when this creates it; default 5000. */
  readonly ackWaitMs?: number
  /** Milliseconds since the epoch; the default is `Date.now`. */
  readonly now?: () => number
  /**
   * Replicas of the claim and result buckets when they are created here (the executor's `replicas`);
   * default 1 on a single server, 3 on a cluster. Given, the request stream must hold at least as many.
   */
  readonly replicas?: Replicas
}

/** A committed result kept across a restart: the request it answers, by attempt and fence. */
interface KeptResult {
  readonly peerId: string
  readonly attempt: number
  readonly fence: number
  readonly fields: Record<string, unknown>
}

/** The key of a branch's kept result, beside its claim. */
export const resultKey = (operationId: string, branchId: string) => `${claimKey(operationId, branchId)}.result`

interface BranchRecord {
  fence: number
  attempt: number
  running?: AbortController
  /**
   * The handler's result while it is not yet committed (the keep or the commit went unanswered in an
   * election): the redelivered request settles it without running the handler a second time.
   */
  finished?: Record<string, unknown>
  committed?: Record<string, unknown>
  /** Cancelled while running (answered `stopped`): a replay of the same attempt runs nothing, a repeated cancel answers `stopped`. */
  stopped?: boolean
  /** Stopped by a cancel that came first, and its request delivered since: kept, no longer an early cancel that may be forgotten. */
  requestSeen?: boolean
}

/** A peer's bytes as text, strictly (utf8.ts): not UTF-8, or a byte order mark first, is not JSON. */
const decoder = strictUtf8
/**
 * Requests a responder runs at once: the rest of a burst waits, held and marked in progress (see
 * consumeAll), or in the stream, so a flood of offers never becomes as many handlers, claim
 * renewals and store writes at once.
 */
const REQUESTS_IN_FLIGHT = 64
/** A claim-store answer that decides nothing (no leader, a lost reply): the request is tried again, not acknowledged away. */
const unanswered = (code: string) => code === 'CLAIM_STORE_FAILED' || code === 'CLAIM_UNCERTAIN'

export async function createDurableResponder<RequestPayload, ResultFields extends Record<string, unknown>>(
  options: ResponderOptions<RequestPayload, ResultFields>,
  plan: InteractionPlan,
  binding: DurableResponderBinding,
): Promise<ExecutorResult<Responder>> {
  const { interaction, module, connection: nc, peerId } = options
  const now = binding.now ?? Date.now
  const ownership = plan.delivery.ownership
  const { requestChannel, resultChannel, cancelChannel, cancelResultChannel } = responderChannels(module, interaction, plan)
  if (!requestChannel?.subject || !resultChannel?.subject)
    return refuse('EXECUTOR_INVALID_DESCRIPTOR', `${interaction.id}: a responder needs request and result channels`)
  const badReplicas = replicasRefusal(binding.replicas)
  if (badReplicas) return refuse('EXECUTOR_INVALID_DESCRIPTOR', `${interaction.id}: the binding's ${badReplicas}`)
  const replicated = binding.replicas !== undefined ? { replicas: binding.replicas } : {}
  let claims: ClaimStore | undefined
  if (ownership) {
    if (!binding.claimBucket) return refuse('EXECUTOR_INVALID_DESCRIPTOR', `${interaction.id}: ownership needs the binding's claimBucket`)
    const opened = await openClaimStore(nc, binding.claimBucket, replicated)
    if (!opened.ok) return opened
    claims = opened.value
  }
  let kept: RecordBucket | undefined
  const keptIn = binding.resultBucket ?? binding.claimBucket
  if (keptIn) {
    const opened = await openRecordBucket(nc, keptIn, replicated)
    if (!opened.ok) return refuse('EXECUTOR_STATE_FAILED', opened.message)
    kept = opened.value
  }
  const fewer = binding.replicas !== undefined ? await streamReplicasRefusal(nc, binding.requestStream, binding.replicas) : undefined
  if (fewer) return refuse('EXECUTOR_STATE_FAILED', fewer)
  const target = plan.dispatch.targetParameter
  const ackWaitMs = binding.ackWaitMs ?? 5000
  const makeConsumer = () =>
    ensureConsumer(nc, binding.requestStream, peerConsumer(interaction, peerId), peerSubject(requestChannel, target, peerId), ackWaitMs)
  const consumer = await makeConsumer()
  if (!consumer.ok) return refuse('EXECUTOR_STATE_FAILED', consumer.message)
  const generated = Object.entries(interaction.inputs).find(([, i]) => i.source === 'generated')?.[0]
  const pointers = {
    operation: boundPointer(interaction, (s) => s['input'] === generated),
    branch: boundPointer(interaction, (s) => s['branch'] === 'id'),
    attempt: boundPointer(interaction, (s) => s['branch'] === 'attempt'),
    fence: boundPointer(interaction, (s) => s['branch'] === 'fence'),
  }
  const records = new Map<string, BranchRecord>()
  const early = new EarlyCancels()
  /** The fence of the attempt a delivery is reading the stores for, by branch (before its record says it runs). */
  const preparing = new Map<string, number>()
  let published = 0
  const inFlight = new Set<Promise<void>>()
  let closing = false

  async function onRequest(msg: JsMsg): Promise<void> {
    let payload: unknown
    try {
      payload = parseJsonData(decoder.decode(msg.data))
    } catch {
      return msg.term()
    }
    const params = requestChannel!.subject!.tryParse(msg.subject) as Record<string, string> | undefined
    if (!params || check(requestChannel!.validatePayload, payload)) return msg.term()
    const operationId = readPointer(payload, pointers.operation)
    const branchId = readPointer(payload, pointers.branch)
    const attempt = readPointer(payload, pointers.attempt)
    const fence = readPointer(payload, pointers.fence)
    if (typeof operationId !== 'string' || typeof branchId !== 'string' || !Number.isSafeInteger(attempt) || !Number.isSafeInteger(fence)) return msg.term()
    const f = fence as number
    const key = `${operationId}/${branchId}`
    const record = records.get(key)
    /** Publishes the result; false when the stream did not acknowledge it (the request is then redelivered, and the result sent again). */
    const answer = async (fields: Record<string, unknown>): Promise<boolean> => {
      const result: Record<string, unknown> = { ...fields }
      const c = plan.correlation
      setPointer(result, c.operation, operationId)
      setPointer(result, c.branch, branchId)
      setPointer(result, c.attempt, attempt)
      setPointer(result, c.fence, f)
      setPointer(result, c.peer, peerId)
      if (check(resultChannel!.validatePayload, result)) return true
      const params2: Record<string, string> = {}
      for (const p of Object.keys(resultChannel!.parameters)) params2[p] = p === target ? peerId : params![p]!
      const sent = await publishOnce(nc, resultChannel!.subject!.render(params2), result, `${operationId}.${branchId}.${String(attempt)}.result`)
      if (sent.ok) published++
      return sent.ok
    }
    if (record && f < record.fence) return msg.ack() // stale: a higher fence was seen
    if (record?.committed && f === record.fence) {
      // Idempotency: the effect ran once; the same request again gets its result again.
      return (await answer(record.committed)) ? msg.ack() : msg.nak(ackWaitMs)
    }
    if (record?.running && f === record.fence) return // the same attempt runs; it acknowledges
    // The same attempt cancelled and stopped: a replay of its request (a copy stored again under
    // another message id, a forged one) runs nothing and publishes nothing.
    if (record?.stopped && f === record.fence && attempt === record.attempt) {
      record.requestSeen = true
      return msg.ack()
    }
    const ckey = claimKey(operationId, branchId)
    const rkey = resultKey(operationId, branchId)
    /**
     * The handler's result committed and published: kept first (a restart between the commit and the
     * publication republishes it), then the claim committed under this fence, then sent. A step
     * the stores leave unanswered (an election) leaves the result in `current.finished` and the
     * request unacknowledged: its redelivery comes back here, and the handler does not run again.
     */
    const settle = async (current: BranchRecord, fields: Record<string, unknown>, keptRevision?: number): Promise<void> => {
      current.finished = fields
      if (kept) {
        // The result key's revision as read before the handler ran, or read now (a redelivery).
        let revision = keptRevision
        if (revision === undefined) {
          const stored = await kept.read<KeptResult>(rkey)
          if (!stored.ok) return msg.nak(ackWaitMs)
          const k = stored.value?.value
          if (!(k && k.fence === f && k.peerId === peerId && k.attempt === attempt)) revision = stored.value?.revision ?? 0
        }
        if (revision !== undefined) {
          const value: KeptResult = { peerId, attempt: attempt as number, fence: f, fields: { ...fields } }
          const written = await kept.write(rkey, value, revision)
          // Another fence's holder wrote it (a takeover): the commit below is refused as stale.
          if (!written.ok && !written.conflict) return msg.nak(ackWaitMs)
        }
      }
      // Fence at commit: the claim is committed under this fence, or nothing is published.
      if (claims) {
        const committed = await claims.commit(ckey, peerId, f, now())
        if (!committed.ok) {
          // Refused (stale, expired): nothing is published, unless the refusal is our own earlier
          // commit whose answer was lost. Unanswered (an election): the request comes again.
          if (unanswered(committed.code)) return msg.nak(ackWaitMs)
          const held = await claims.read(ckey)
          if (!held.ok) return msg.nak(ackWaitMs)
          const c = held.value?.claim
          // Still ours, held and within its lease: the compare-and-set lost to a write of our own (a
          // renewal an election left pending, landing late) or read the key from a server behind. The
          // claim is not lost: the request comes again and the commit is tried again.
          if (c && c.fence === f && c.peerId === peerId && c.state === 'held' && c.leaseUntilMs > now()) return msg.nak(ackWaitMs)
          if (!(c && c.fence === f && c.peerId === peerId && c.state === 'committed')) {
            current.finished = undefined
            return msg.ack()
          }
        }
      }
      current.finished = undefined
      current.committed = fields
      // A result the stream did not acknowledge (no leader in an election): the request comes again and the committed result is sent again (same message id).
      if (await answer(fields)) msg.ack()
      else msg.nak(ackWaitMs)
    }
    if (record?.finished && f === record.fence) return settle(record, record.finished)
    // Another delivery of this attempt is reading its stores: a redelivery comes once the
    // acknowledgement wait passes, and those reads can outlast it in an election. That delivery runs
    // the request and acknowledges it; this one would run the handler a second time. The reads are
    // the only waits before the record says the request runs.
    if (preparing.get(key) === f) return
    preparing.set(key, f)
    /** A result this attempt kept before a restart: settled again without running the handler. */
    const restorable = (r: KeptResult | undefined): r is KeptResult =>
      r !== undefined && r.fence === f && r.peerId === peerId && r.attempt === attempt && typeof r.fields === 'object' && r.fields !== null
    let stored: Awaited<ReturnType<RecordBucket['read']>> | undefined
    let k: KeptResult | undefined
    let held: Awaited<ReturnType<ClaimStore['read']>> | undefined
    try {
      stored = kept ? await kept.read<KeptResult>(rkey) : undefined
      k = stored?.ok ? (stored.value?.value as KeptResult | undefined) : undefined
      if (claims && !restorable(k)) held = await claims.read(ckey)
    } finally {
      preparing.delete(key)
    }
    if (restorable(k)) {
      // Restarted after keeping the result: committed now if the claim is still this attempt's, then published again.
      const restored: BranchRecord = { fence: f, attempt: attempt as number }
      records.set(key, restored)
      return settle(restored, { ...k.fields })
    }
    // The lease this holder last secured: a renewal the store could not answer (an election, a lost
    // reply) leaves the claim held until then, so only a stale claim or a lease about to lapse aborts.
    let securedUntil = Number.POSITIVE_INFINITY
    if (claims) {
      // The claim store did not answer (an election, a lost reply): that decides nothing, the request comes again.
      if (!held?.ok) return msg.nak(ackWaitMs)
      const c = held.value?.claim
      // Only the holder of the request's fence runs it: a claim replaced or expired meanwhile makes the request stale.
      if (!c || c.fence !== f || c.peerId !== peerId || c.state !== 'held' || c.leaseUntilMs <= now()) return msg.ack()
      securedUntil = c.leaseUntilMs
    }
    // Closing: the request is not started here (left unacknowledged, it is delivered again, to this
    // peer's next responder).
    if (closing) return
    // What the stores' reads let happen meanwhile: a cancel of this attempt (its record stopped), or a
    // higher fence's request or cancel (this one is then stale).
    const latest = records.get(key)
    if (latest && latest.fence > f) return msg.ack()
    if (latest?.stopped && latest.fence === f && latest.attempt === attempt) {
      latest.requestSeen = true
      return msg.ack()
    }
    latest?.running?.abort() // a higher fence supersedes the running execution
    const current: BranchRecord = { fence: f, attempt: attempt as number, running: new AbortController() }
    records.set(key, current)
    const signal = current.running!.signal
    // While the handler runs: the request stays in progress (no redelivery) and, under ownership, the claim is renewed.
    // One renewal at a time: renewals a fault left unanswered would otherwise land together and
    // race on the key's revision, and the loser's compare-and-set would read as the claim lost.
    let renewing: Promise<void> | undefined
    /**
     * A stale answer is believed once the claim is read to be another's: an earlier renewal of ours
     * that an election left pending can land after it and move the revision under the next one.
     */
    const lost = async (): Promise<boolean> => {
      const held = await claims!.read(ckey)
      const c = held.ok ? held.value?.claim : undefined
      return held.ok && !(c && c.fence === f && c.peerId === peerId && c.state === 'held')
    }
    const renewal = setInterval(
      () => {
        msg.working()
        if (claims && !renewing) {
          const until = now() + ownership!.leaseMs
          renewing = claims
            .renew(ckey, peerId, f, until, now())
            .then(async (renewed) => {
              if (renewed.ok) securedUntil = until
              else if ((renewed.code === 'CLAIM_STALE' && (await lost())) || securedUntil - now() <= ownership!.renewEveryMs) current.running?.abort()
            })
            .finally(() => (renewing = undefined))
        }
      },
      ownership ? ownership.renewEveryMs : Math.max(1, Math.floor(ackWaitMs / 2)),
    )
    let fields: ResultFields | undefined
    try {
      fields = await options.handler({ operationId, branchId, attempt: attempt as number, fence: f, payload: payload as RequestPayload, signal })
    } catch {
      fields = undefined
    } finally {
      clearInterval(renewal)
    }
    // A renewal still in flight would race the commit on the key's revision: its answer comes first
    // (bounded by the store's timeouts), and with it the news of a claim lost meanwhile.
    await renewing
    current.running = undefined
    // Aborted by close(): left unacknowledged, so the peer's next responder runs the request.
    if (closing && signal.aborted) return
    if (fields === undefined || signal.aborted || records.get(key) !== current) return msg.ack()
    return settle(current, { ...fields }, stored?.ok ? (stored.value?.revision ?? 0) : undefined)
  }

  /** A CancelRequest (a core message): stopped while running or before its request is delivered, already-completed after the commit, unknown for an older attempt. */
  function onCancel(msg: Msg): void {
    let payload: Record<string, unknown>
    try {
      payload = parseJsonData(decoder.decode(msg.data)) as Record<string, unknown>
    } catch {
      return
    }
    const params = cancelChannel!.subject!.tryParse(msg.subject) as Record<string, string> | undefined
    if (!params || check(cancelChannel!.validatePayload, payload)) return
    const { operationId, branchId } = payload
    if (typeof operationId !== 'string' || typeof branchId !== 'string') return
    const key = `${operationId}/${branchId}`
    const record = records.get(key)
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
      // The cancel came before its attempt's request was delivered (core messages overtake the
      // stream, a backlog holds it) or while its delivery reads the stores: the attempt is stopped
      // before it starts, and its request, when it comes, runs nothing. An earlier attempt still
      // running is superseded, as that request would supersede it.
      record?.running?.abort()
      const stopped: BranchRecord = { fence: fence as number, attempt: attempt as number, stopped: true }
      records.set(key, stopped)
      early.add(() => {
        if (records.get(key) === stopped && !stopped.requestSeen) records.delete(key)
      })
      outcome = 'stopped'
    }
    const reply = { operationId, branchId, outcome }
    if (check(cancelResultChannel!.validatePayload, reply)) return
    const out: Record<string, string> = {}
    for (const p of Object.keys(cancelResultChannel!.parameters)) out[p] = p === target ? peerId : params[p]!
    try {
      // A core publication with a message id: a stream retaining CancelResults stores it once (an
      // executor resuming the operation reads it there), a live executor's subscription gets it at once.
      const h = headers()
      h.set('Nats-Msg-Id', `${operationId}.${branchId}.${String(payload['attempt'])}.${String(payload['fence'])}.cancelled`)
      nc.publish(cancelResultChannel!.subject!.render(out), JSON.stringify(reply), { headers: h })
    } catch {
      // A subject that cannot be rendered: no reply (the executor times the request out).
    }
  }
  let cancels: Subscription | undefined
  if (cancelChannel?.subject && cancelResultChannel?.subject)
    cancels = nc.subscribe(peerSubject(cancelChannel, target, peerId), { callback: (error, msg) => (error ? undefined : onCancel(msg)) })

  // Requests run concurrently (a stalled one must not block the next), at most REQUESTS_IN_FLIGHT at
  // once (the rest held, marked in progress: see consumeAll); each acknowledges itself.
  const consuming = await consumeAll(
    consumer.value,
    (msg) => {
      const work = onRequest(msg).catch(() => undefined)
      inFlight.add(work)
      void work.finally(() => inFlight.delete(work))
      return work
    },
    { inFlight: REQUESTS_IN_FLIGHT, ackWaitMs, recreate: makeConsumer },
  )
  if (!consuming.ok) {
    cancels?.unsubscribe()
    return refuse('EXECUTOR_STATE_FAILED', consuming.message)
  }
  await nc.flush()
  const messages = consuming.value
  return ok({
    published: () => published,
    async close() {
      // No handler starts once closing (a request not yet started is left for a redelivery), no new
      // request is taken, and every running handler is aborted; then the ones in flight end.
      closing = true
      cancels?.unsubscribe()
      const stopped = messages.close()
      for (const r of records.values()) r.running?.abort()
      await Promise.all([...inFlight])
      await stopped
    },
  })
}
