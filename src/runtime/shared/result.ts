/** The Benzene status vocabulary (case-sensitive) and the result every topic call resolves to. */
export const SUCCESS_STATUSES = ['ok', 'created', 'accepted', 'updated', 'deleted', 'ignored'] as const
export const FAILURE_STATUSES = [
  'bad-request',
  'validation-error',
  'unauthorized',
  'forbidden',
  'not-found',
  'conflict',
  'too-many-requests',
  'timeout',
  'not-implemented',
  'service-unavailable',
  'unexpected-error',
] as const
export const TRANSIENT_STATUSES = ['service-unavailable', 'too-many-requests', 'timeout'] as const

export type SuccessStatus = (typeof SUCCESS_STATUSES)[number]
export type FailureStatus = (typeof FAILURE_STATUSES)[number]
export type BenzeneStatus = SuccessStatus | FailureStatus

export interface ResultError {
  message: string
  /** JSON Pointer or dotted path of the field the error is about, when there is one. */
  path?: string
  code?: string
}

export interface SuccessResult<T> {
  readonly status: SuccessStatus
  readonly isSuccessful: true
  readonly payload: T
  readonly errors: readonly ResultError[]
}

export interface FailureResult {
  readonly status: FailureStatus
  readonly isSuccessful: false
  /** True for `service-unavailable`, `too-many-requests` and `timeout`: the same call may succeed later. */
  readonly isTransient: boolean
  /** Whatever the service sent back (a problem document, the raw body), if anything. */
  readonly payload?: unknown
  readonly errors: readonly ResultError[]
}

export type Result<T> = SuccessResult<T> | FailureResult

const success = new Set<string>(SUCCESS_STATUSES)
const failure = new Set<string>(FAILURE_STATUSES)
const transient = new Set<string>(TRANSIENT_STATUSES)

export function isSuccessStatus(status: unknown): status is SuccessStatus {
  return typeof status === 'string' && success.has(status)
}

export function isFailureStatus(status: unknown): status is FailureStatus {
  return typeof status === 'string' && failure.has(status)
}

/** `service-unavailable`, `too-many-requests` and `timeout`: worth retrying. */
export function isTransientStatus(status: unknown): boolean {
  return typeof status === 'string' && transient.has(status)
}

export function ok<T>(payload: T, status: SuccessStatus = 'ok'): SuccessResult<T> {
  return Object.freeze({ status, isSuccessful: true as const, payload, errors: Object.freeze([]) })
}

export function fail(status: FailureStatus, errors: readonly (ResultError | string)[] = [], payload?: unknown): FailureResult {
  const list = Object.freeze(errors.map((e) => Object.freeze(typeof e === 'string' ? { message: e } : { ...e })))
  const base = { status, isSuccessful: false as const, isTransient: transient.has(status), errors: list }
  return Object.freeze(payload === undefined ? base : { ...base, payload })
}

/**
 * Checks what a sender returned. A sender is user code: a malformed result becomes an
 * `unexpected-error` failure instead of a lie in the types.
 */
export function toResult<T>(value: unknown): Result<T> {
  if (typeof value !== 'object' || value === null) return fail('unexpected-error', ['The message sender returned no result object.'])
  const r = value as { status?: unknown; isSuccessful?: unknown; payload?: unknown; errors?: unknown }
  const errors = Array.isArray(r.errors) ? r.errors.map(toError) : []
  if (r.isSuccessful === true && isSuccessStatus(r.status)) {
    return Object.freeze({ status: r.status, isSuccessful: true as const, payload: r.payload as T, errors: Object.freeze(errors) })
  }
  if (r.isSuccessful === false && isFailureStatus(r.status)) return fail(r.status, errors, r.payload)
  return fail(
    'unexpected-error',
    [`The message sender returned an invalid result (status ${JSON.stringify(r.status)}, isSuccessful ${JSON.stringify(r.isSuccessful)}).`],
    value,
  )
}

function toError(value: unknown): ResultError {
  if (typeof value === 'string') return { message: value }
  if (typeof value === 'object' && value !== null && typeof (value as ResultError).message === 'string') {
    const { message, path, code } = value as ResultError
    return { message, ...(typeof path === 'string' ? { path } : {}), ...(typeof code === 'string' ? { code } : {}) }
  }
  return { message: String(value) }
}
