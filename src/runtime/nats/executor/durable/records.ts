/**
 * JSON records in a JetStream KV bucket (the `KV_<bucket>` stream, `$KV.<bucket>.<key>` subjects,
 * one value per key: the layout nats.js's KV uses, written through `@nats-io/jetstream` since
 * `@nats-io/kv` is not a dependency). Every write is a compare-and-set on the key's last revision
 * (0: the key must not exist yet), so of two writers of the same revision one loses. Reads go to
 * the stream (`getMessage`), not a direct get: the profile does not assume read-your-writes from
 * direct reads.
 */
import { errorText } from '../../../shared/error-text.js'
import type { NatsConnection } from '@nats-io/nats-core'
import { jetstream } from '@nats-io/jetstream'
import { randomUUID } from 'node:crypto'
import { openKvStream, type Replicas } from '../kv-stream.js'
import { storedMsgId } from '../../client/headers.js'
import { strictUtf8 } from '../../../shared/utf8.js'

export interface Stored<T> {
  readonly value: T
  /** The key's last revision: the expected revision of the next write. */
  readonly revision: number
}

export type RecordAnswer<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly conflict: boolean; readonly message: string }

export interface RecordBucket {
  read<T>(key: string): Promise<RecordAnswer<Stored<T> | null>>
  /** Writes when the key's last revision is `expectedRevision`; `conflict` when another write came first. */
  write(key: string, value: unknown, expectedRevision: number): Promise<RecordAnswer<number>>
}

const encoder = new TextEncoder()
/** A peer's bytes as text, strictly (utf8.ts): not UTF-8, or a byte order mark first, is not JSON. */
const decoder = strictUtf8
const KEY = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/
/**
 * A read or write the stream does not answer (a leader election takes seconds on a cluster) is tried
 * again for at most `settleMs` (default this long: longer than an election on a loaded machine),
 * about one try per half second of it, this far apart: bounded.
 */
export const DEFAULT_SETTLE_MS = 20_000
const SETTLE_PAUSE_MS = 250
const settleTries = (settleMs: number) => Math.max(4, Math.ceil(settleMs / 500))

/**
 * Opens the bucket, creating its stream when missing: file storage, discard new, one value per key,
 * replicated on a cluster (an operation's state must outlive a node; `replicas` overrides the default).
 */
export interface RecordBucketOptions {
  /** The stream's replicas when it is created here (an existing one is used as it is); default 1 on a single server, 3 on a cluster. */
  readonly replicas?: Replicas
  /** How long a read or write the stream does not answer is tried again before it is answered as failed; default 20000. */
  readonly settleMs?: number
}

/** A refusal sentence when `settleMs` is given and not a positive whole number of milliseconds; undefined when acceptable. */
export function settleRefusal(settleMs: unknown): string | undefined {
  if (settleMs === undefined || (Number.isSafeInteger(settleMs) && (settleMs as number) > 0)) return undefined
  return `settleMs ${JSON.stringify(settleMs) ?? String(settleMs)}: a positive whole number of milliseconds`
}

/** Room kept for a record write's headers (its message id and expected revision) under the server's max_payload. */
const HEADER_BYTES = 256

/** The precise answer for a record the server cannot take as one message. */
function tooLarge(key: string, bytes: number, limit: number): string {
  return `${key}: the record is ${bytes} bytes, over what one message may carry (the server's max_payload of ${limit} bytes, less ${HEADER_BYTES} for its headers)`
}

export async function openRecordBucket(nc: NatsConnection, bucket: string, options: RecordBucketOptions = {}): Promise<RecordAnswer<RecordBucket>> {
  const badSettle = settleRefusal(options.settleMs)
  if (badSettle) return { ok: false, conflict: false, message: `the bucket ${bucket}: ${badSettle}` }
  const SETTLE_MS = options.settleMs ?? DEFAULT_SETTLE_MS
  const SETTLE_TRIES = settleTries(SETTLE_MS)
  const opened = await openKvStream(nc, bucket, options.replicas)
  if (!opened.ok) return { ok: false, conflict: false, message: opened.message }
  const { jsm, stream } = opened
  const js = jetstream(nc)
  const subject = (key: string) => `$KV.${bucket}.${key}`
  /** The key's last value as text with its revision; null when it has none. Retried while the stream has no leader (bounded). */
  const readRaw = async (key: string): Promise<RecordAnswer<{ text: string; revision: number; msgId: string | undefined } | null>> => {
    const end = Date.now() + SETTLE_MS
    let last = ''
    for (let attempt = 0; attempt < SETTLE_TRIES && Date.now() <= end; attempt++) {
      try {
        const msg = await jsm.streams.getMessage(stream, { last_by_subj: subject(key) })
        if (!msg) return { ok: true, value: null }
        return { ok: true, value: { text: decoder.decode(msg.data), revision: msg.seq, msgId: storedMsgId(msg) } }
      } catch (error) {
        last = errorText(error)
        if (/no message found/i.test(last)) return { ok: true, value: null }
      }
      await new Promise((resolve) => setTimeout(resolve, SETTLE_PAUSE_MS))
    }
    return { ok: false, conflict: false, message: `${key}: ${last || 'no answer'}` }
  }
  return {
    ok: true,
    value: {
      async read<T>(key: string): Promise<RecordAnswer<Stored<T> | null>> {
        if (!KEY.test(key)) return { ok: false, conflict: false, message: `${JSON.stringify(key)} is not a key` }
        const raw = await readRaw(key)
        if (!raw.ok) return raw
        if (raw.value === null) return { ok: true, value: null }
        try {
          return { ok: true, value: { value: JSON.parse(raw.value.text) as T, revision: raw.value.revision } }
        } catch (error) {
          return { ok: false, conflict: false, message: `${key}: ${errorText(error)}` }
        }
      },
      async write(key, value, expectedRevision) {
        if (!KEY.test(key)) return { ok: false, conflict: false, message: `${JSON.stringify(key)} is not a key` }
        const text = JSON.stringify(value)
        const data = encoder.encode(text)
        // A record is one message: one the server would refuse (max_payload, with its headers) is answered at once, never retried.
        const limit = nc.info?.max_payload
        if (limit !== undefined && data.length + HEADER_BYTES > limit) return { ok: false, conflict: false, message: tooLarge(key, data.length, limit) }
        // One message id for every try of this write: a try whose answer was lost and a later one are stored once.
        const msgID = randomUUID()
        const end = Date.now() + SETTLE_MS
        let last = ''
        for (let attempt = 0; attempt < SETTLE_TRIES && Date.now() <= end; attempt++) {
          try {
            const ack = await js.publish(subject(key), data, { msgID, expect: { lastSubjectSequence: expectedRevision } })
            return { ok: true, value: ack.seq }
          } catch (error) {
            last = errorText(error)
            if (/max_payload/i.test(last)) return { ok: false, conflict: false, message: tooLarge(key, data.length, limit ?? 0) }
            if (/wrong last sequence/i.test(last)) {
              // A try whose answer was lost may have landed: then the key holds our message id, and the write is ours.
              const now = await readRaw(key)
              if (now.ok && now.value !== null && now.value.msgId === msgID && now.value.revision > expectedRevision)
                return { ok: true, value: now.value.revision }
              // A later revision by another writer is a conflict; an earlier one is a stale answer (below): asked again.
              if (!now.ok || (now.value?.revision ?? 0) > expectedRevision) return { ok: false, conflict: true, message: `${key}: ${last}` }
            }
          }
          // No answer (an election, a lost reply, a leader gone): settled by the key itself, else sent again.
          const now = await readRaw(key)
          if (now.ok) {
            const revision = now.value?.revision ?? 0
            if (now.value !== null && now.value.msgId === msgID && revision > expectedRevision) return { ok: true, value: revision }
            // Only a later revision is another writer's. An earlier one than the writer knows the key had
            // is the answer of a server behind the group (a leader cut off that has not stepped down yet,
            // one just elected that has not applied everything): not the key's state, so it proves nothing.
            if (revision > expectedRevision) return { ok: false, conflict: true, message: `${key}: moved to revision ${revision} meanwhile` }
          }
          await new Promise((resolve) => setTimeout(resolve, SETTLE_PAUSE_MS))
        }
        return { ok: false, conflict: false, message: `${key}: ${last || 'no answer'}` }
      },
    },
  }
}
