/**
 * Branch claims in a JetStream KV bucket (the `KV_<bucket>` stream with `$KV.<bucket>.<key>`
 * subjects, the layout nats.js's KV uses; written here through `@nats-io/jetstream` because
 * `@nats-io/kv` is not a dependency). A claim's fence is the KV revision (stream sequence) of the
 * write that created it: revisions only grow, so a later claim always has a higher fence. Every
 * change is a compare-and-set on the key's last revision; renewals and the commit keep the fence,
 * so a holder whose claim was replaced (by a takeover or an expiry) can renew or commit nothing.
 * Reads go to the stream leader (`getMessage`), never a direct read: the profile does not assume
 * read-your-writes from direct gets.
 *
 * The durable executor (`../durable/executor.ts`) writes a claim per attempt and expires a claim
 * past its lease; the durable responder (`../delivery/responder.ts`) renews and commits it.
 */
import { errorText } from '../../../shared/error-text.js'
import { randomUUID } from 'node:crypto'
import type { NatsConnection } from '@nats-io/nats-core'
import { jetstream, JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream'
import { openKvStream } from '../kv-stream.js'
import { storedMsgId } from '../../client/headers.js'
import { ok, refuse, type ExecutorResult } from '../result.js'
import { strictUtf8 } from '../../../shared/utf8.js'

export interface Claim {
  readonly peerId: string
  readonly attempt: number
  /** The KV revision of the write that created the claim. */
  readonly fence: number
  readonly leaseUntilMs: number
  readonly state: 'held' | 'committed' | 'expired'
}

export interface StoredClaim {
  readonly claim: Claim
  /** The key's last revision (a renewal moves it; the fence stays). */
  readonly revision: number
}

export interface ClaimStore {
  /** The current claim of a key, or null. */
  read(key: string): Promise<ExecutorResult<StoredClaim | null>>
  /** A new claim for `peerId` replacing whatever the key holds at `expectedRevision` (0: nothing yet). */
  claim(key: string, claim: { peerId: string; attempt: number; leaseUntilMs: number }, expectedRevision: number): Promise<ExecutorResult<StoredClaim>>
  /** Extends the lease of the holder of `fence`. */
  renew(key: string, peerId: string, fence: number, leaseUntilMs: number, nowMs: number): Promise<ExecutorResult<StoredClaim>>
  /** Commits the holder of `fence` (its effect is done); refused to a stale or expired holder. */
  commit(key: string, peerId: string, fence: number, nowMs: number): Promise<ExecutorResult<StoredClaim>>
  /** Marks a claim whose lease has passed as expired (its holder can no longer commit). */
  expire(key: string, fence: number, nowMs: number): Promise<ExecutorResult<StoredClaim>>
}

/** What one publication says about the write: stored at a revision, refused as stale, certainly not stored, or unknown. */
type WriteAnswer = { landed: number } | { stale: string } | { failed: string } | { uncertain: string }

const encoder = new TextEncoder()
/** A peer's bytes as text, strictly (utf8.ts): not UTF-8, or a byte order mark first, is not JSON. */
const decoder = strictUtf8
/** Reads and compare-and-sets of one change before a refusal stands (see `change`). */
const CHANGE_TRIES = 3
const TOKEN = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/

function parseClaim(data: Uint8Array): Claim | null {
  try {
    const v = JSON.parse(decoder.decode(data)) as Record<string, unknown>
    const n = (x: unknown) => Number.isSafeInteger(x) && (x as number) >= 0
    if (typeof v['peerId'] !== 'string' || !n(v['attempt']) || !n(v['fence']) || !n(v['leaseUntilMs'])) return null
    if (v['state'] !== 'held' && v['state'] !== 'committed' && v['state'] !== 'expired') return null
    return { peerId: v['peerId'], attempt: v['attempt'] as number, fence: v['fence'] as number, leaseUntilMs: v['leaseUntilMs'] as number, state: v['state'] }
  } catch {
    return null
  }
}

export interface ClaimStoreOptions {
  /**
   * The claim stream's replicas when it is created here (an existing stream is used as it is: its
   * configuration is the operator's). Default: 1 on a single server, 3 on a cluster (a claim bucket
   * with one replica dies with its server, and with it every fence).
   */
  readonly replicas?: 1 | 3 | 5
}

export { defaultReplicas } from '../kv-stream.js'

/** Opens (creating when missing) the bucket's stream: file storage, one value per key. */
export async function openClaimStore(nc: NatsConnection, bucket: string, options: ClaimStoreOptions = {}): Promise<ExecutorResult<ClaimStore>> {
  const opened = await openKvStream(nc, bucket, options.replicas, 'claim bucket')
  if (!opened.ok) return refuse('CLAIM_STORE_FAILED', opened.message)
  const { jsm, stream } = opened
  const js = jetstream(nc)
  const subject = (key: string) => `$KV.${bucket}.${key}`
  const failed = (error: unknown) => refuse<never>('CLAIM_STORE_FAILED', errorText(error))

  const read = async (key: string): Promise<ExecutorResult<StoredClaim | null>> => {
    if (!TOKEN.test(key)) return refuse('CLAIM_STORE_FAILED', `${JSON.stringify(key)} is not a key`)
    try {
      const msg = await jsm.streams.getMessage(stream, { last_by_subj: subject(key) })
      if (!msg) return ok(null)
      const claim = parseClaim(msg.data)
      return claim ? ok({ claim, revision: msg.seq }) : refuse('CLAIM_STORE_FAILED', `${key} holds no claim`)
    } catch (error) {
      // No message on the subject: the key was never claimed.
      if (error instanceof Error && /no message found/i.test(error.message)) return ok(null)
      return failed(error)
    }
  }
  /** One compare-and-set publication; the message id makes it idempotent (the stream deduplicates it). */
  const publish = async (key: string, data: Uint8Array, expectedRevision: number, msgID: string): Promise<WriteAnswer> => {
    try {
      const ack = await js.publish(subject(key), data, { msgID, expect: { lastSubjectSequence: expectedRevision } })
      return { landed: ack.seq }
    } catch (error) {
      if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamWrongLastSequence) return { stale: errorText(error) }
      // The server answered a refusal, or nobody received the request (no responders, which nats.js
      // reports as JetStreamNotEnabled; the class is not exported): certainly not written.
      if (error instanceof JetStreamApiError || (error instanceof Error && error.name === 'JetStreamNotEnabled')) return { failed: errorText(error) }
      // A timeout or a lost connection: the write may have landed.
      return { uncertain: errorText(error) }
    }
  }
  /**
   * Compare-and-set on the key's last revision; answers the new revision. A write whose answer was
   * lost is settled by reading the key: our message id there means we hold it; a later revision
   * means someone else wrote (stale); the revision we expected means it has not landed (yet), so it
   * is sent once more with the same id (deduplicated if it did land meanwhile); an earlier one is a
   * server behind the group answering (uncertain). Uncertain only when that settling fails too.
   */
  const write = async (key: string, claim: Claim, expectedRevision: number): Promise<ExecutorResult<number>> => {
    const data = encoder.encode(JSON.stringify(claim))
    const msgID = randomUUID()
    const first = await publish(key, data, expectedRevision, msgID)
    if ('landed' in first) return ok(first.landed)
    if ('stale' in first) return refuse('CLAIM_STALE', `${key}: the claim changed (${first.stale})`)
    if ('failed' in first) return refuse('CLAIM_STORE_FAILED', `${key}: not written (${first.failed})`)
    const uncertain = (why: string) =>
      refuse<number>('CLAIM_UNCERTAIN', `${key}: the write's answer was lost (${first.uncertain}) and could not be settled (${why})`)
    let last: { seq: number; msgId: string | undefined } | null
    try {
      const msg = await jsm.streams.getMessage(stream, { last_by_subj: subject(key) })
      last = msg ? { seq: msg.seq, msgId: storedMsgId(msg) } : null
    } catch (error) {
      if (!(error instanceof Error && /no message found/i.test(error.message))) return uncertain(errorText(error))
      last = null
    }
    if (last && last.msgId === msgID) return ok(last.seq)
    if ((last?.seq ?? 0) > expectedRevision) return refuse('CLAIM_STALE', `${key}: the claim changed (revision ${last?.seq ?? 0}, not ${expectedRevision})`)
    // An earlier revision than the one this write expected is the answer of a server behind the group
    // (a leader cut off that has not stepped down yet): it proves nothing about the claim.
    if ((last?.seq ?? 0) < expectedRevision) return uncertain(`the key read at revision ${last?.seq ?? 0}, before ${expectedRevision}: an answer from behind`)
    const again = await publish(key, data, expectedRevision, msgID)
    if ('landed' in again) return ok(again.landed)
    if ('stale' in again) return refuse('CLAIM_STALE', `${key}: the claim changed (${again.stale})`)
    return uncertain('failed' in again ? again.failed : again.uncertain)
  }
  /**
   * Reads, checks the holder, writes the changed claim at the revision read. A compare-and-set the
   * stream refuses means the key moved after the read, or the read came from behind (an election:
   * a replica that had not yet applied this writer's own last write): it is read again and, if the
   * claim still passes the check, written again, at most CHANGE_TRIES times. So a lone writer is never
   * told its claim is stale by its own earlier write; another writer's change fails the check.
   */
  const change = async (key: string, check: (c: Claim) => ExecutorResult<Claim>): Promise<ExecutorResult<StoredClaim>> => {
    let refused: ExecutorResult<StoredClaim> = refuse('CLAIM_STALE', `${key}: the claim changed`)
    for (let tries = 0; tries < CHANGE_TRIES; tries++) {
      const current = await read(key)
      if (!current.ok) return current
      if (!current.value) return refuse('CLAIM_STALE', `${key} holds no claim`)
      const next = check(current.value.claim)
      if (!next.ok) return next
      const written = await write(key, next.value, current.value.revision)
      if (written.ok) return ok({ claim: next.value, revision: written.value })
      if (written.code !== 'CLAIM_STALE') return written
      refused = written
    }
    return refused
  }
  const holder = (c: Claim, peerId: string, fence: number, nowMs: number): ExecutorResult<Claim> => {
    if (c.fence !== fence) return refuse('CLAIM_STALE', `fence ${fence} was replaced by fence ${c.fence}`)
    if (c.peerId !== peerId) return refuse('CLAIM_NOT_YOURS', `the claim is ${c.peerId}'s`)
    if (c.state !== 'held' || nowMs >= c.leaseUntilMs) return refuse('CLAIM_EXPIRED', `the claim is ${c.state === 'held' ? 'past its lease' : c.state}`)
    return ok(c)
  }

  return ok({
    read,
    async claim(key, claim, expectedRevision) {
      if (!TOKEN.test(key)) return refuse('CLAIM_STORE_FAILED', `${JSON.stringify(key)} is not a key`)
      // The fence is the revision of this very write: written first as a placeholder, then stamped
      // by a second compare-and-set (only the creator can win it: any other writer moves the revision).
      const placeholder: Claim = { ...claim, fence: 0, state: 'held' }
      const created = await write(key, placeholder, expectedRevision)
      if (!created.ok) return created
      const stamped: Claim = { ...placeholder, fence: created.value }
      const written = await write(key, stamped, created.value)
      return written.ok ? ok({ claim: stamped, revision: written.value }) : written
    },
    renew: (key, peerId, fence, leaseUntilMs, nowMs) =>
      change(key, (c) => {
        const h = holder(c, peerId, fence, nowMs)
        return h.ok ? ok({ ...c, leaseUntilMs }) : h
      }),
    commit: (key, peerId, fence, nowMs) =>
      change(key, (c) => {
        const h = holder(c, peerId, fence, nowMs)
        return h.ok ? ok({ ...c, state: 'committed' }) : h
      }),
    expire: (key, fence, nowMs) =>
      change(key, (c) => {
        if (c.fence !== fence) return refuse('CLAIM_STALE', `fence ${fence} was replaced by fence ${c.fence}`)
        if (c.state !== 'held' || nowMs < c.leaseUntilMs) return refuse('CLAIM_EXPIRED', 'the claim is not past its lease')
        return ok({ ...c, state: 'expired' })
      }),
  })
}
