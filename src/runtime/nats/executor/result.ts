/** What every executor entry point answers: a value, or a refusal with a stable code (never a throw). */
export type ExecutorErrorCode =
  | 'EXECUTOR_UNSUPPORTED'
  | 'EXECUTOR_INVALID_DESCRIPTOR'
  | 'EXECUTOR_INVALID_INPUT'
  | 'EXECUTOR_IDEMPOTENCY_CONFLICT'
  | 'EXECUTOR_EMPTY_AUDIENCE'
  | 'EXECUTOR_ADMISSION_REFUSED'
  | 'EXECUTOR_ADAPTER_FAILED'
  | 'EXECUTOR_ADAPTER_MISSING'
  | 'EXECUTOR_MANIFEST_REFUSED'
  | 'EXECUTOR_UNKNOWN_OPERATION'
  | 'EXECUTOR_CLOSED'
  | 'EXECUTOR_STATE_FAILED'
  | 'CLAIM_NOT_YOURS'
  | 'CLAIM_STALE'
  | 'CLAIM_EXPIRED'
  | 'CLAIM_STORE_FAILED'
  /** A claim write whose answer was lost and whose landing could not be settled by reading the key. */
  | 'CLAIM_UNCERTAIN'

export type ExecutorResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly code: ExecutorErrorCode; readonly message: string }

export function ok<T>(value: T): ExecutorResult<T> {
  return { ok: true, value }
}

export function refuse<T = never>(code: ExecutorErrorCode, message: string): ExecutorResult<T> {
  return { ok: false, code, message }
}
