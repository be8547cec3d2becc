/**
 * durable-per-recipient delivery on JetStream (profile v0.2, "Native resources" and "Delivery,
 * retries and ownership"): the request stream must be file-backed with limits retention and discard
 * new (capacity refusal rejects new work instead of evicting accepted work); every peer reads its
 * requests through a durable pull consumer of its own, filtered to its subjects (a shared
 * work-queue consumer would not be an independent fan-out); publications carry a message id, so a
 * republication inside the stream's duplicate window is stored once.
 */
import type { NatsConnection } from '@nats-io/nats-core'
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type Consumer, type JsMsg, type ConsumerMessages } from '@nats-io/jetstream'

export type DeliveryAnswer<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string }

const message = (error: unknown) => (error instanceof Error ? error.message : String(error))
const encoder = new TextEncoder()

/** Checks what the profile requires of a durable stream: file storage, limits retention, discard new. */
export async function checkDurableStream(nc: NatsConnection, stream: string): Promise<DeliveryAnswer<{ duplicateWindowMs: number }>> {
  try {
    const jsm = await jetstreamManager(nc)
    const { config } = await jsm.streams.info(stream)
    const wrong = [
      config.storage !== 'file' && `storage ${String(config.storage)}`,
      config.retention !== 'limits' && `retention ${String(config.retention)}`,
      config.discard !== 'new' && `discard ${String(config.discard)}`,
    ].filter(Boolean)
    if (wrong.length > 0)
      return { ok: false, message: `stream ${stream}: durable delivery needs file storage, limits retention and discard new (it has ${wrong.join(', ')})` }
    return { ok: true, value: { duplicateWindowMs: Math.floor((config.duplicate_window ?? 0) / 1e6) } }
  } catch (error) {
    return { ok: false, message: `stream ${stream}: ${message(error)}` }
  }
}

/** A durable consumer's name: `<prefix>-<token>` (peer ids and interaction ids are tokens). */
export function consumerName(prefix: string, token: string): string {
  return `${prefix}-${token}`.replace(/[^A-Za-z0-9_-]/g, '_')
}

/** Creates (or finds, when it exists with the same filter) a durable pull consumer with explicit acks; `maxDeliver` bounds its deliveries of one message. */
export async function ensureConsumer(
  nc: NatsConnection,
  stream: string,
  name: string,
  filterSubject: string,
  ackWaitMs: number,
  maxDeliver?: number,
): Promise<DeliveryAnswer<Consumer>> {
  try {
    const jsm = await jetstreamManager(nc)
    try {
      const info = await jsm.consumers.info(stream, name)
      if (info.config.filter_subject !== filterSubject)
        return { ok: false, message: `consumer ${name} filters ${String(info.config.filter_subject)}, not ${filterSubject}` }
    } catch {
      await jsm.consumers.add(stream, {
        durable_name: name,
        filter_subject: filterSubject,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: ackWaitMs * 1e6,
        ...(maxDeliver !== undefined ? { max_deliver: maxDeliver } : {}),
      })
    }
    return { ok: true, value: await jetstream(nc).consumers.get(stream, name) }
  } catch (error) {
    return { ok: false, message: `consumer ${name}: ${message(error)}` }
  }
}

/**
 * Publishes with a message id and waits for the stream's acknowledgement; an uncertain publication
 * (no acknowledgement) is retried once with the same id. `duplicate`: the stream already held it.
 */
export async function publishOnce(
  nc: NatsConnection,
  subject: string,
  payload: unknown,
  msgId: string,
): Promise<DeliveryAnswer<{ seq: number; duplicate: boolean }>> {
  const js = jetstream(nc)
  const data = encoder.encode(JSON.stringify(payload))
  let last: unknown
  for (let i = 0; i < 2; i++) {
    try {
      const ack = await js.publish(subject, data, { msgID: msgId })
      return { ok: true, value: { seq: ack.seq, duplicate: ack.duplicate } }
    } catch (error) {
      last = error
    }
  }
  return { ok: false, message: `${subject}: ${message(last)}` }
}

/** How a consumer's messages are handed over: `paced` (a handler answering with a promise) bounds the ones being handled. */
export interface Pacing {
  /** At most this many messages handled at once: the next ones are not pulled until one is done. */
  readonly inFlight: number
  /** The consumer's ack wait: a message still being handled (or waiting its turn) is marked in progress within it. */
  readonly ackWaitMs: number
}

/**
 * Runs `handle` on every message of a consumer; the handler acks (or naks) itself. Unpaced, each
 * message is handed over as it arrives (a handler that returns at once and keeps its own work).
 * Paced, a handler's promise is awaited: nats.js pulls again as it receives, not as its messages are
 * handled, so a handler that queues its work (an operation's results, one at a time) would
 * otherwise take in a flood as fast as the server sends it while each queued message's ack wait
 * runs out, and the server would deliver it again, and again, up to its max deliveries. Paced, the
 * consumer's iterator is read only while fewer than `inFlight` messages are being handled (nats.js
 * sends its next pull from the iterator), and every message being handled is marked in progress
 * (`working`) each third of the ack wait: it is redelivered only if this process stops handling it.
 */
export async function consumeAll(consumer: Consumer, handle: (msg: JsMsg) => void): Promise<DeliveryAnswer<ConsumerMessages>>
export async function consumeAll(consumer: Consumer, handle: (msg: JsMsg) => Promise<void>, paced: Pacing): Promise<DeliveryAnswer<ConsumerMessages>>
export async function consumeAll(consumer: Consumer, handle: (msg: JsMsg) => void | Promise<void>, paced?: Pacing): Promise<DeliveryAnswer<ConsumerMessages>> {
  try {
    // Short pulls: a pull lost with the consumer's leader (a node killed, an election) is noticed
    // within two missed heartbeats of a 2 s pull, not nats.js's default 30 s.
    if (!paced) return { ok: true, value: await consumer.consume({ callback: handle as (msg: JsMsg) => void, max_messages: 64, expires: 2000 }) }
    // The consumer's own ack wait when it is shorter: one made earlier (another deployment's
    // settings) is used as it is, never changed, so the messages are kept in progress within its wait.
    const info = await consumer.info(true).catch(() => undefined)
    const ackWaitMs = Math.min(paced.ackWaitMs, info?.config.ack_wait ? info.config.ack_wait / 1e6 : Number.POSITIVE_INFINITY)
    const messages = await consumer.consume({ max_messages: Math.min(64, paced.inFlight), expires: 2000 })
    void handleAll(messages, handle as (msg: JsMsg) => Promise<void>, { inFlight: paced.inFlight, ackWaitMs })
    return { ok: true, value: messages }
  } catch (error) {
    return { ok: false, message: message(error) }
  }
}

async function handleAll(messages: ConsumerMessages, handle: (msg: JsMsg) => Promise<void>, paced: Pacing): Promise<void> {
  const handling = new Map<Promise<void>, JsMsg>()
  const keepAlive = setInterval(
    () => {
      for (const msg of handling.values()) msg.working()
    },
    Math.max(1, Math.floor(paced.ackWaitMs / 3)),
  )
  keepAlive.unref?.()
  try {
    for await (const msg of messages) {
      const done: Promise<void> = handle(msg)
        .catch(() => undefined)
        .finally(() => handling.delete(done))
      handling.set(done, msg)
      if (handling.size >= paced.inFlight) await Promise.race(handling.keys())
    }
    await Promise.all(handling.keys())
  } catch {
    // The iterator ends with an error when the consumer is closed or deleted: its owner decides what follows.
  } finally {
    clearInterval(keepAlive)
  }
}

/** Whether a subject pattern `covers` every subject `pattern` can match (`*` one token, `>` the rest). */
export function subjectCovers(covers: string, pattern: string): boolean {
  const a = covers.split('.')
  const b = pattern.split('.')
  for (let i = 0; i < a.length; i++) {
    if (a[i] === '>') return i < b.length
    if (i >= b.length || b[i] === '>') return false
    if (a[i] !== '*' && (b[i] === '*' || a[i] !== b[i])) return false
  }
  return a.length === b.length
}

/** Whether a stream retains every subject `pattern` matches (one of its subjects covers it). */
export async function streamRetains(nc: NatsConnection, stream: string, pattern: string): Promise<boolean> {
  try {
    const { config } = await (await jetstreamManager(nc)).streams.info(stream)
    return (config.subjects ?? []).some((s) => subjectCovers(s, pattern))
  } catch {
    return false
  }
}
