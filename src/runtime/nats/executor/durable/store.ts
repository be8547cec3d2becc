/**
 * An operation's durable state, three records per operation in one KV bucket:
 * - `<op>.admission`: what admission committed (principal, input bytes and inputs, the audience
 *   snapshot, the admission time the deadline counts from), created once;
 * - `<op>.state`: the decision core's event log and the outbox, rewritten by compare-and-set on
 *   every change (the log is the state: replaying it through the core gives the state back);
 * - `<op>.decision`: the decision, created once (a second writer loses and reads the first);
 * - `<op>.parked`: results that arrived while no executor drove the operation, kept (at most
 *   `MAX_PARKED`, each once) for the executor that resumes it: the result message itself is then
 *   terminated instead of being redelivered without end.
 */
import type { Decision, ExecutorEvent } from '../events.js'
import type { ManifestEntry } from '../adapters.js'
import type { RecordAnswer, RecordBucket, Stored } from './records.js'

export interface AdmissionRecord {
  readonly operationId: string
  readonly principalId: string
  readonly idempotencyKey: string
  /** The canonical JSON of the invocation's inputs: the idempotency comparison. */
  readonly inputBytes: string
  readonly audience: { readonly revision: string; readonly peers: readonly string[] }
  /** The admission commit: the deadline counts from here, across restarts. */
  readonly admittedAtMs: number
  /**
   * The authenticated branch manifest (dispatch `branches`, `none`): its digest and entries, saved
   * before anything is dispatched; a resumed executor derives the branches from it.
   */
  readonly manifest?: { readonly digest: string; readonly entries: readonly ManifestEntry[] }
}

/**
 * A message decided to be sent: recorded before publication, published again after a crash while
 * not marked published. A request goes to its stream with its message id (stored once); a cancel
 * request is a core publication (a repeated one is answered again).
 */
export interface OutboxEntry {
  /** Absent: a request. */
  readonly kind?: 'cancel'
  readonly msgId: string
  readonly subject: string
  readonly payload: Record<string, unknown>
  readonly branchId: string
  readonly attempt: number
  readonly published: boolean
}

/** A result (or CancelResult) kept for the executor that resumes its operation: the subject it came on, its payload, when it came. */
export interface ParkedResult {
  /** Absent: a result; `cancel`: a CancelResult. */
  readonly kind?: 'cancel'
  readonly subject: string
  readonly payload: unknown
  readonly atMs: number
  /** Its sequence in the result stream (absent in a record written before it was kept). */
  readonly seq?: number
}

/** The most results kept per operation: a peer publishing more cannot grow the record without bound. */
export const MAX_PARKED = 256
/**
 * The most bytes (JSON) of the kept results of one operation: the record is one message of the
 * bucket's stream, which the server bounds (`max_payload`, 1 MiB by default). A result that would
 * pass this is not kept: it is terminated after its bounded redeliveries like any other.
 */
export const MAX_PARKED_BYTES = 512 * 1024

export interface OperationState {
  readonly events: readonly ExecutorEvent[]
  readonly outbox: readonly OutboxEntry[]
}

export interface OperationStore {
  /** Creates the admission record, or answers the one already there (`created: false`). */
  admit(record: AdmissionRecord): Promise<RecordAnswer<{ record: AdmissionRecord; created: boolean }>>
  admission(operationId: string): Promise<RecordAnswer<AdmissionRecord | null>>
  state(operationId: string): Promise<RecordAnswer<Stored<OperationState> | null>>
  /** `conflict` when another writer changed the state since `expectedRevision`. */
  saveState(operationId: string, state: OperationState, expectedRevision: number): Promise<RecordAnswer<number>>
  /** Records the decision once: answers the recorded one (`won: false` when another writer recorded it first). */
  decide(operationId: string, decision: Decision): Promise<RecordAnswer<{ decision: Decision; won: boolean }>>
  decision(operationId: string): Promise<RecordAnswer<Stored<Decision> | null>>
  /** Keeps a result for the resuming executor (compare-and-set append): `kept` false when already kept or the record is full. */
  park(operationId: string, result: ParkedResult): Promise<RecordAnswer<{ kept: boolean }>>
  /** The results kept for an operation, oldest first. */
  parked(operationId: string): Promise<RecordAnswer<readonly ParkedResult[]>>
}

const encoder = new TextEncoder()

export function operationStore(bucket: RecordBucket): OperationStore {
  const firstWins = async <T>(key: string, value: T): Promise<RecordAnswer<{ value: T; won: boolean }>> => {
    const written = await bucket.write(key, value, 0)
    if (written.ok) return { ok: true, value: { value, won: true } }
    if (!written.conflict) return written
    const existing = await bucket.read<T>(key)
    if (!existing.ok) return existing
    if (!existing.value) return { ok: false, conflict: false, message: `${key}: written by another writer but not readable` }
    return { ok: true, value: { value: existing.value.value, won: false } }
  }
  return {
    async admit(record) {
      const answer = await firstWins(`${record.operationId}.admission`, record)
      return answer.ok ? { ok: true, value: { record: answer.value.value, created: answer.value.won } } : answer
    },
    async admission(operationId) {
      const answer = await bucket.read<AdmissionRecord>(`${operationId}.admission`)
      return answer.ok ? { ok: true, value: answer.value?.value ?? null } : answer
    },
    state: (operationId) => bucket.read<OperationState>(`${operationId}.state`),
    saveState: (operationId, state, expectedRevision) => bucket.write(`${operationId}.state`, state, expectedRevision),
    async decide(operationId, decision) {
      const answer = await firstWins(`${operationId}.decision`, decision)
      return answer.ok ? { ok: true, value: { decision: answer.value.value, won: answer.value.won } } : answer
    },
    decision: (operationId) => bucket.read<Decision>(`${operationId}.decision`),
    async park(operationId, result) {
      const key = `${operationId}.parked`
      const same = (a: ParkedResult) => a.subject === result.subject && JSON.stringify(a.payload) === JSON.stringify(result.payload)
      // Bounded: each lost compare-and-set means another writer appended meanwhile.
      for (let tries = 0; tries < 8; tries++) {
        const current = await bucket.read<ParkedResult[]>(key)
        if (!current.ok) return current
        const list = current.value?.value ?? []
        if (list.some(same) || list.length >= MAX_PARKED) return { ok: true, value: { kept: false } }
        const next = [...list, result]
        if (encoder.encode(JSON.stringify(next)).length > MAX_PARKED_BYTES) return { ok: true, value: { kept: false } }
        const written = await bucket.write(key, next, current.value?.revision ?? 0)
        if (written.ok) return { ok: true, value: { kept: true } }
        if (!written.conflict) return written
      }
      return { ok: false, conflict: true, message: `${key}: too many concurrent writers` }
    },
    async parked(operationId) {
      const answer = await bucket.read<ParkedResult[]>(`${operationId}.parked`)
      if (!answer.ok) return answer
      const list = answer.value?.value
      return { ok: true, value: Array.isArray(list) ? inStreamOrder(list) : [] }
    },
  }
}

/**
 * Kept results in the order their stream holds them. Two executors parking at once append in the
 * order their compare-and-sets win, not the order the messages came (a wrong-attempt reply parked
 * after the right one it preceded would be read as a repeat and its refusal never logged), so each
 * kind's entries (one stream per kind) are put back in sequence order in the places that kind holds;
 * an entry without a sequence (a record written before it was kept) stays where it is.
 */
function inStreamOrder(list: readonly ParkedResult[]): readonly ParkedResult[] {
  const ordered = [...list]
  for (const kind of [undefined, 'cancel'] as const) {
    const places = list.flatMap((r, i) => (r?.kind === kind && Number.isSafeInteger(r.seq) ? [i] : []))
    const sorted = places.map((i) => list[i]!).sort((a, b) => a.seq! - b.seq!)
    places.forEach((place, k) => (ordered[place] = sorted[k]!))
  }
  return ordered
}
