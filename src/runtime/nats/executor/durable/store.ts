/**
 * An operation's durable state, three records per operation in one KV bucket:
 * - `<op>.admission`: what admission committed (principal, input bytes and inputs, the audience
 *   snapshot, the admission time the deadline counts from), created once;
 * - `<op>.state`: the decision core's event log and the outbox, rewritten by compare-and-set on
 *   every change (the log is the state: replaying it through the core gives the state back);
 * - `<op>.decision`: the decision, created once (a second writer loses and reads the first).
 */
import type { Decision, ExecutorEvent } from '../events.js'
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
}

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
  }
}
