/**
 * durable-per-recipient delivery on JetStream (profile v0.2, "Native resources" and "Delivery,
 * retries and ownership"): the request stream must be file-backed with limits retention and discard
 * new (capacity refusal rejects new work instead of evicting accepted work); every peer reads its
 * requests through a durable pull consumer of its own, filtered to its subjects (a shared
 * work-queue consumer would not be an independent fan-out); publications carry a message id, so a
 * republication inside the stream's duplicate window is stored once.
 */
import { errorText } from '../../../shared/error-text.js'
import type { NatsConnection } from '@nats-io/nats-core'
import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  type Consumer,
  type ConsumerConfig,
  type JsMsg,
  type ConsumerMessages,
} from '@nats-io/jetstream'
import { HeldMessages, consumerAckWaitMs } from '../../held-messages.js'

export type DeliveryAnswer<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string }

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
    return { ok: false, message: `stream ${stream}: ${errorText(error)}` }
  }
}

/**
 * The most messages the server delivers to a consumer made here before some are acknowledged: what a
 * paced consumption holds at most (see `consumeAll`); the rest of a flood waits in the stream.
 */
export const MAX_ACK_PENDING = 1024

/** A durable consumer's name: `<prefix>-<token>` (peer ids and interaction ids are tokens). */
export function consumerName(prefix: string, token: string): string {
  return `${prefix}-${token}`.replace(/[^A-Za-z0-9_-]/g, '_')
}

/**
 * Why an existing consumer is not one this runtime may use as it is, or undefined. It is used, never
 * changed (it may be another deployment's), and its own ack wait and max_deliver are read as they
 * are; but what the runtime's guarantees rest on must hold: the filter, explicit acknowledgment (with
 * `none` a delivered result counts as acknowledged before it is recorded, and with `all` acknowledging
 * one acknowledges every earlier one still in progress: a crash would lose them), a pull consumer,
 * and at most MAX_ACK_PENDING unacknowledged (what bounds the messages a paced consumption holds).
 */
function refusedConsumer(config: ConsumerConfig, filterSubject: string): string | undefined {
  if (config.filter_subject !== filterSubject) return `filters ${String(config.filter_subject)}, not ${filterSubject}`
  if (config.ack_policy !== AckPolicy.Explicit)
    return `acknowledges ${String(config.ack_policy)}, not explicit: a crash could lose messages it counts as acknowledged`
  if (config.deliver_subject !== undefined && config.deliver_subject !== '') return 'is a push consumer, not a pull consumer'
  const pending = config.max_ack_pending
  if (pending === undefined || !Number.isSafeInteger(pending) || pending < 1 || pending > MAX_ACK_PENDING)
    return `allows ${String(pending)} unacknowledged messages, not at most ${MAX_ACK_PENDING}: what it delivers at once is held in memory`
  return undefined
}

/** Creates (or finds, when it exists as `refusedConsumer` asks) a durable pull consumer with explicit acks; `maxDeliver` bounds its deliveries of one message. */
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
      const refused = refusedConsumer(info.config, filterSubject)
      if (refused !== undefined) return { ok: false, message: `consumer ${name} ${refused}` }
    } catch {
      await jsm.consumers.add(stream, {
        durable_name: name,
        filter_subject: filterSubject,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: ackWaitMs * 1e6,
        max_ack_pending: MAX_ACK_PENDING,
        ...(maxDeliver !== undefined ? { max_deliver: maxDeliver } : {}),
      })
    }
    return { ok: true, value: await jetstream(nc).consumers.get(stream, name) }
  } catch (error) {
    return { ok: false, message: `consumer ${name}: ${errorText(error)}` }
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
  return { ok: false, message: `${subject}: ${errorText(last)}` }
}

/** How a consumer's messages are handed over: `paced` (a handler answering with a promise) bounds the ones being handled. */
export interface Pacing {
  /** At most this many messages handled at once (of as many keys); the others wait their turn, held here. */
  readonly inFlight: number
  /** The ack wait asked for: a message held here is marked in progress within it (or the consumer's own, when shorter). */
  readonly ackWaitMs: number
  /**
   * Messages of one key are handled one after another, in the order they came, and take one place
   * of `inFlight` between them (keys take turns): a flood of one key (one operation's results) waits
   * behind its own, not in front of every other key's. Undefined: each message its own key.
   */
  readonly keyOf?: (msg: JsMsg) => string | undefined
  /** Makes the consumer again (as `ensureConsumer`), called when the server says it was deleted or is not found. */
  readonly recreate?: () => Promise<unknown>
  /**
   * Messages the handler took over (its promise settled) and has not yet acknowledged, such as a
   * pipeline of its own: marked in progress with the messages held here, within the same ack wait.
   */
  readonly marked?: ReadonlySet<JsMsg>
}

/** A consumption started by `consumeAll`: `close` stops taking messages (those being handled finish). */
export interface Consumption {
  close(): Promise<void>
}

/**
 * Runs `handle` on every message of a consumer; the handler acks (or naks) itself. Unpaced, each
 * message is handed over as it arrives (a handler that returns at once and keeps its own work).
 * Paced, every message delivered is taken at once from nats.js (which holds no message that
 * nothing marks in progress) and held here until its handler's promise settles: at most `inFlight`
 * handled at once, the rest waiting by key, and every message held, waiting or handled, marked in
 * progress (`working`) each third of the ack wait, so the server delivers one again only if this
 * process stops handling it, never because it waited. What is held is bounded by the server: it
 * delivers no more than the consumer's max ack pending unacknowledged (MAX_ACK_PENDING for the
 * consumers `ensureConsumer` makes). A consumer deleted under it is made again (`recreate`): nats.js
 * goes on pulling by its name.
 */
export async function consumeAll(consumer: Consumer, handle: (msg: JsMsg) => void): Promise<DeliveryAnswer<Consumption>>
export async function consumeAll(consumer: Consumer, handle: (msg: JsMsg) => Promise<void>, paced: Pacing): Promise<DeliveryAnswer<Consumption>>
export async function consumeAll(consumer: Consumer, handle: (msg: JsMsg) => void | Promise<void>, paced?: Pacing): Promise<DeliveryAnswer<Consumption>> {
  try {
    // Short pulls: a pull lost with the consumer's leader (a node killed, an election) is noticed
    // within two missed heartbeats of a 2 s pull, not nats.js's default 30 s.
    if (!paced) {
      const messages = await consumer.consume({ callback: handle as (msg: JsMsg) => void, max_messages: 64, expires: 2000 })
      return { ok: true, value: { close: async () => void (await messages.close()) } }
    }
    // The consumer's own ack wait when it is shorter: one made earlier (another deployment's
    // settings) is used as it is, never changed, so the messages are kept in progress within its wait.
    const ackWaitMs = Math.min(paced.ackWaitMs, (await consumerAckWaitMs(consumer)) ?? Number.POSITIVE_INFINITY)
    const held = new HeldMessages(handle, paced.inFlight, { ...(paced.keyOf ? { keyOf: paced.keyOf } : {}), markHandling: true })
    const marked = paced.marked
    const keepAlive = setInterval(
      () => {
        held.working()
        if (marked) for (const msg of marked) msg.working()
      },
      Math.max(1, Math.floor(ackWaitMs / 3)),
    )
    keepAlive.unref?.()
    const messages = await consumer.consume({ callback: (msg) => held.add(msg), max_messages: 64, expires: 2000 })
    if (paced.recreate) void remakeWhenGone(messages, paced.recreate)
    void messages.closed().finally(() => clearInterval(keepAlive))
    return { ok: true, value: { close: async () => void (await messages.close()) } }
  } catch (error) {
    return { ok: false, message: errorText(error) }
  }
}

/** Makes the consumer again each time nats.js reports it deleted or not found (bounded: one remake at a time). */
async function remakeWhenGone(messages: ConsumerMessages, recreate: () => Promise<unknown>): Promise<void> {
  let remaking: Promise<unknown> | undefined
  try {
    for await (const status of messages.status()) {
      if ((status.type === 'consumer_deleted' || status.type === 'consumer_not_found') && !remaking)
        remaking = recreate()
          .catch(() => undefined)
          .finally(() => (remaking = undefined))
    }
  } catch {
    // The status stream ends with the consumption.
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
