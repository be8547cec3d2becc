/**
 * Reads a descriptor's `delivery` (and its `ownership`) into what the executor runs (profile v0.2,
 * "Delivery, retries and ownership"): memory state runs one attempt with no backoff; durable state
 * (durable-per-recipient, restart resume) runs up to 16 attempts with a fixed backoff, and needs
 * ownership for more than one attempt or a one-eligible dispatch.
 */
import type { RetryPolicy } from '../events.js'

export interface OwnershipPlan {
  readonly leaseMs: number
  readonly renewEveryMs: number
}

export interface DeliveryPlan {
  /** durable-per-recipient with durable state and restart resume; false: online-best-effort in memory. */
  readonly durable: boolean
  readonly retry: RetryPolicy
  readonly recoveryGraceMs: number
  readonly ownership?: OwnershipPlan
}

type Data = Record<string, unknown>
const isObject = (v: unknown): v is Data => typeof v === 'object' && v !== null && !Array.isArray(v)
const int = (o: Data, k: string): number | undefined => (Number.isSafeInteger(o[k]) && (o[k] as number) >= 0 ? (o[k] as number) : undefined)

export type DeliveryReading = { readonly ok: true; readonly value: DeliveryPlan } | { readonly ok: false; readonly why: string }

/** O(1). `why` is a sentence for an EXECUTOR_INVALID_DESCRIPTOR refusal. */
export function readDelivery(delivery: Data, dispatchMode: string): DeliveryReading {
  const bad = (why: string): DeliveryReading => ({ ok: false, why })
  const maxAttempts = int(delivery, 'maxAttempts') ?? 1
  const retryBackoffMs = int(delivery, 'retryBackoffMs') ?? 0
  const settlementGraceMs = int(delivery, 'settlementGraceMs') ?? 0
  const recoveryGraceMs = int(delivery, 'recoveryGraceMs') ?? 0
  const retry: RetryPolicy = { maxAttempts, retryBackoffMs, settlementGraceMs }
  const { mode, state, restart } = delivery
  if (mode === 'online-best-effort' && state === 'memory') {
    // The profile (and the compiler's NATS_OWNERSHIP rule): one-eligible needs ownership, ownership needs durable state.
    if (dispatchMode === 'one-eligible') return bad('one-eligible dispatch needs ownership and durable state')
    if (maxAttempts !== 1 || retryBackoffMs !== 0) return bad('memory execution runs one attempt with no backoff')
    return { ok: true, value: { durable: false, retry, recoveryGraceMs } }
  }
  if (mode !== 'durable-per-recipient' || state !== 'durable' || restart !== 'resume')
    return bad('delivery is online-best-effort in memory, or durable-per-recipient with durable state and restart resume')
  if (maxAttempts < 1 || maxAttempts > 16) return bad('maxAttempts is 1..16')
  const ownership = delivery['ownership']
  let owned: OwnershipPlan | undefined
  if (ownership !== undefined) {
    if (!isObject(ownership)) return bad('ownership')
    const leaseMs = int(ownership, 'leaseMs')
    const renewEveryMs = int(ownership, 'renewEveryMs')
    if (!leaseMs || !renewEveryMs || renewEveryMs * 2 >= leaseMs) return bad('ownership needs a positive renewEveryMs below half of leaseMs')
    if (ownership['onLoss'] !== undefined && ownership['onLoss'] !== 'retry') return bad('ownership.onLoss is retry')
    owned = { leaseMs, renewEveryMs }
  }
  if (!owned && (dispatchMode === 'one-eligible' || maxAttempts > 1)) return bad('a one-eligible dispatch or more than one attempt needs ownership')
  return { ok: true, value: { durable: true, retry, recoveryGraceMs, ...(owned ? { ownership: owned } : {}) } }
}
