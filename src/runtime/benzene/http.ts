/**
 * `unplugin-contracts/runtime/http`: a `MessageSender` for "Benzene message over HTTP"
 * (Benzene message over HTTP). One POST per message, carrying `{ topic, headers, body }` with the payload
 * serialized as a string; the answer `{ statusCode, isSuccessful, headers, body }` becomes a
 * `Result`. Never throws: timeouts, refused connections and malformed answers are failures.
 */
import { errorText } from '../shared/error-text.js'
import {
  FAILURE_STATUSES,
  SUCCESS_STATUSES,
  fail,
  isFailureStatus,
  isSuccessStatus,
  ok,
  type BenzeneStatus,
  type FailureStatus,
  type Result,
  type ResultError,
} from '../shared/result.js'
import { bodyLimit, boundedExchange, sameOriginUrl, timerDelay, type Exchange } from '../shared/bounded-fetch.js'
import { isObject } from '../shared/json-value.js'
import type { MessageSender } from './sender.js'

export interface HttpSenderOptions {
  /** The service's origin (`https://payments.internal`), or the whole endpoint URL when `endpoint` is absent. */
  baseUrl: string | URL
  /**
   * The document's `messageEndpoint` (`/benzene/invoke`), resolved against `baseUrl`. There is no
   * default path: a service without `messageEndpoint` does not take messages over HTTP (Benzene Contract Document §1).
   */
  endpoint?: string
  /** A `fetch` implementation; default: the global one. */
  fetch?: typeof globalThis.fetch
  /** HTTP headers for every request (authorization, tracing); message headers go inside the envelope. */
  headers?: Readonly<Record<string, string>> | (() => Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>>)
  /**
   * Time limit of one call, answer included; past it the call resolves to `timeout`. A fraction is
   * rounded up to a whole millisecond, more than 2^31 - 1 (about 24.8 days) is that, `Infinity`
   * is no limit, and a value that is no time at all (negative, `NaN`) makes every call a
   * `bad-request` failure without a request.
   * @default 30000 (30 s)
   */
  timeoutMs?: number
  /**
   * Bytes of an answer read at most (streamed; past it the call fails with `unexpected-error` and
   * the rest is not read). `Infinity` is no limit; a value that is no limit (negative, `NaN`) makes
   * every call a `bad-request` failure without a request.
   * @default 4194304 (4 MiB)
   */
  maxBodyBytes?: number
  /**
   * Redirects: `'none'` makes any 3xx answer a failure with its status; `'same-origin'` follows
   * 307/308 redirects that stay on `baseUrl`'s origin. The message and the `headers` are never
   * sent to another origin.
   * @default 'none'
   */
  redirects?: 'none' | 'same-origin'
}

/** HTTP status for each Benzene status, and back (Benzene message over HTTP; docs/runtime.md). */
const HTTP_STATUS: Record<BenzeneStatus, number> = {
  ok: 200,
  ignored: 200,
  created: 201,
  accepted: 202,
  updated: 204,
  deleted: 204,
  'bad-request': 400,
  unauthorized: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  'validation-error': 422,
  'too-many-requests': 429,
  'unexpected-error': 500,
  'not-implemented': 501,
  'service-unavailable': 503,
  timeout: 504,
}

/** The Benzene status an HTTP status stands for: the first status mapped to it, or the nearest class. */
export function statusFromHttp(code: number): BenzeneStatus {
  for (const status of [...SUCCESS_STATUSES, ...FAILURE_STATUSES]) if (HTTP_STATUS[status] === code) return status
  if (code >= 200 && code < 300) return 'ok'
  if (code >= 400 && code < 500) return 'bad-request'
  return 'unexpected-error'
}

export function httpStatusOf(status: BenzeneStatus): number {
  return HTTP_STATUS[status]
}

export function createHttpSender(options: HttpSenderOptions): MessageSender {
  // The endpoint is a path on `baseUrl`'s origin. It may come from a contract (`messageEndpoint`),
  // and a contract must never choose where the application's messages and credentials go.
  const url = sameOriginUrl(options.baseUrl, options.endpoint)
  const origin = new URL(options.baseUrl).origin
  const limits = { maxBodyBytes: options.maxBodyBytes, redirects: options.redirects }
  const timeoutMs = timerDelay(options.timeoutMs)
  return {
    async send(topic, request, headers): Promise<Result<unknown>> {
      if (!url)
        return fail('bad-request', [`Refused: endpoint ${JSON.stringify(options.endpoint)} is not a path on ${origin}; messages go only to baseUrl's origin.`])
      if (timeoutMs === null)
        return fail('bad-request', [`Refused: timeoutMs ${String(options.timeoutMs)} is not a time limit (a number of milliseconds, at least 0).`])
      if (bodyLimit(options.maxBodyBytes) === null)
        return fail('bad-request', [`Refused: maxBodyBytes ${String(options.maxBodyBytes)} is not a limit (a number of bytes, at least 0).`])
      const doFetch = options.fetch ?? globalThis.fetch
      let envelope: string
      try {
        envelope = JSON.stringify({ topic, headers: { ...headers }, body: request === undefined ? '' : JSON.stringify(request) })
      } catch (error) {
        // Called directly (a topic client checks its request first): a bigint, a cycle, a getter or a Proxy that throws.
        return fail('validation-error', [{ message: `(payload) cannot be written as JSON: ${describe(error)}`, path: '', code: 'json' }])
      }
      // AbortSignal.timeout throws on anything but whole milliseconds up to 2^32 - 1 (and timers past 2^31 - 1 fire at once).
      const signal = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs)
      let exchange: Exchange
      try {
        const extra = typeof options.headers === 'function' ? await options.headers() : options.headers
        exchange = await boundedExchange(
          doFetch,
          url,
          { method: 'POST', headers: { ...extra, 'content-type': 'application/json', accept: 'application/json' }, body: envelope, signal },
          limits,
        )
      } catch (error) {
        if (signal?.aborted) return fail('timeout', [`No answer from ${url.origin} within ${timeoutMs} ms.`])
        return fail('service-unavailable', [`Cannot reach ${url.origin}: ${describe(error)}`])
      }
      if (exchange.ok) return readAnswer(exchange.status, exchange.text)
      if (exchange.reason === 'redirect')
        return fail('unexpected-error', [
          `HTTP ${exchange.status}: the service redirected${exchange.location === undefined ? '' : ` to ${exchange.location}`}; redirects are not followed (option redirects).`,
        ])
      if (exchange.reason === 'not-utf8') return fail('unexpected-error', [`HTTP ${exchange.status}: the answer is not UTF-8 text, as JSON must be.`])
      return fail('unexpected-error', [`HTTP ${exchange.status}: the answer is larger than ${exchange.limit} bytes (option maxBodyBytes).`])
    },
  }
}

/** An HTTP answer as a Result: the envelope when there is one, the HTTP status otherwise (a 204 has no body). */
export function readAnswer(httpStatus: number, text: string): Result<unknown> {
  const fallback = statusFromHttp(httpStatus)
  if (text.trim() === '') {
    return isSuccessStatus(fallback) ? ok(undefined, fallback) : fail(fallback as FailureStatus, [`HTTP ${httpStatus} without a body.`])
  }
  const envelope = parseJsonOr(text, undefined)
  if (!isEnvelope(envelope)) {
    if (isFailureStatus(fallback)) return fail(fallback, [`HTTP ${httpStatus}: ${text.slice(0, 200)}`], text)
    return fail('unexpected-error', ['The service answered without a Benzene envelope.'], text)
  }
  const declared = typeof envelope.statusCode === 'number' ? statusFromHttp(envelope.statusCode) : envelope.statusCode
  // A body that is JSON text is its value (`"null"` is null); any other text stays the string it is.
  const body = typeof envelope.body === 'string' && envelope.body !== '' ? parseJsonOr(envelope.body, envelope.body) : undefined
  if (envelope.isSuccessful) return ok(body, isSuccessStatus(declared) ? declared : isSuccessStatus(fallback) ? fallback : 'ok')
  const problem = isObject(body) ? body : undefined
  const status = isFailureStatus(declared)
    ? declared
    : isFailureStatus(problem?.benzeneStatus)
      ? problem.benzeneStatus
      : isFailureStatus(fallback)
        ? fallback
        : 'unexpected-error'
  return fail(status, problemErrors(problem, status, body), body)
}

/** RFC 9457 problem document -> one error per listed error, or its detail/title. */
function problemErrors(problem: Record<string, unknown> | undefined, status: string, body: unknown): ResultError[] {
  const listed = Array.isArray(problem?.errors) ? problem.errors : []
  const errors = listed.map((e): ResultError => {
    if (typeof e === 'string') return { message: e }
    const item = isObject(e) ? e : {}
    const message = [item.message, item.detail, item.title].find((v) => typeof v === 'string') as string | undefined
    const path = [item.path, item.pointer, item.field, item.property].find((v) => typeof v === 'string') as string | undefined
    const code = typeof item.code === 'string' ? item.code : undefined
    return { message: message ?? entryText(e), ...(path === undefined ? {} : { path }), ...(code === undefined ? {} : { code }) }
  })
  if (errors.length > 0) return errors
  const summary = [problem?.detail, problem?.title].find((v) => typeof v === 'string') as string | undefined
  return [{ message: summary ?? (typeof body === 'string' && body !== '' ? body : `The service answered ${status}.`) }]
}

/**
 * A listed error without a message, as the JSON it was: an entry nested too deep for
 * `JSON.stringify`'s recursion (the answer is bounded in bytes, not in depth) is named, not thrown.
 */
function entryText(entry: unknown): string {
  try {
    return JSON.stringify(entry)
  } catch {
    return 'An error entry nested too deeply to be shown.'
  }
}

interface Envelope {
  statusCode: string | number
  isSuccessful: boolean
  headers?: unknown
  body?: unknown
}

function isEnvelope(value: unknown): value is Envelope {
  return isObject(value) && typeof value.isSuccessful === 'boolean' && (typeof value.statusCode === 'string' || typeof value.statusCode === 'number')
}

function parseJsonOr(text: string, otherwise: unknown): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return otherwise
  }
}

function describe(error: unknown): string {
  try {
    const cause = (error as { cause?: { code?: string; message?: string } })?.cause
    return cause?.code ?? cause?.message ?? errorText(error)
  } catch {
    return errorText(error)
  }
}
