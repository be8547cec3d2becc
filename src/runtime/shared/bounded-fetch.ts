/**
 * One HTTP exchange with the limits every runtime call to a service keeps, whatever the service
 * (or a contract) says: the request goes only to the origin the application configured, a
 * redirect is an answer (never followed to another origin with the application's headers), and
 * the body is read as a stream up to a byte limit, so memory stays bounded.
 */

/** Default limit of an answer's body: far above any Benzene envelope or contract document. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
/**
 * Time limit of one exchange when the caller gives none: a service that starts an answer and never
 * finishes it must not hold a caller forever (`Infinity` asks for no limit).
 */
export const DEFAULT_TIMEOUT_MS = 30_000
/** Same-origin redirects followed at most (when allowed). */
const MAX_REDIRECTS = 5

export interface ExchangeLimits {
  /** Bytes of a body read at most; past it the exchange fails with `too-large`. */
  maxBodyBytes?: number
  /**
   * `'none'` (default): a 3xx answer is a failure with its status. `'same-origin'`: 307 and 308
   * redirects to the same origin are followed (the method and body kept); any other is a failure.
   * Browsers hide a redirect's target from scripts, so there every redirect is a failure.
   */
  redirects?: 'none' | 'same-origin'
}

export type Exchange =
  | { ok: true; status: number; text: string }
  | { ok: false; reason: 'redirect'; status: number; location?: string }
  | { ok: false; reason: 'too-large'; status: number; limit: number }
  | { ok: false; reason: 'not-utf8'; status: number }

/**
 * `fetch` with those limits. Throws what `fetch` throws (network errors, aborts), and on a
 * `maxBodyBytes` that is no limit (`bodyLimit`: callers check it first, to refuse before sending);
 * the caller turns that into its own failure.
 */
export async function boundedExchange(doFetch: typeof globalThis.fetch, url: URL, init: RequestInit, limits: ExchangeLimits = {}): Promise<Exchange> {
  const maxBytes = bodyLimit(limits.maxBodyBytes)
  if (maxBytes === null) throw new RangeError(`maxBodyBytes ${String(limits.maxBodyBytes)} is not a limit (a number of bytes, at least 0).`)
  let target = url
  for (let hop = 0; ; hop++) {
    const response = await doFetch(target, { ...init, redirect: 'manual' })
    if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
      const location = response.headers.get('location') ?? undefined
      await response.body?.cancel().catch(() => undefined)
      const next = location === undefined ? undefined : safeUrl(location, target)
      const follow =
        limits.redirects === 'same-origin' &&
        (response.status === 307 || response.status === 308) &&
        next !== undefined &&
        next.origin === url.origin &&
        hop < MAX_REDIRECTS
      if (!follow) return { ok: false, reason: 'redirect', status: response.status, ...(location === undefined ? {} : { location }) }
      target = next
      continue
    }
    const text = await readLimited(response, maxBytes)
    if (text === undefined) return { ok: false, reason: 'too-large', status: response.status, limit: maxBytes }
    if (text === NOT_UTF8) return { ok: false, reason: 'not-utf8', status: response.status }
    return { ok: true, status: response.status, text }
  }
}

function safeUrl(location: string, base: URL): URL | undefined {
  try {
    return new URL(location, base)
  } catch {
    return undefined
  }
}

/** What `readLimited` answers for a body that is not UTF-8. */
const NOT_UTF8: unique symbol = Symbol('not UTF-8')

/**
 * The body as text, undefined past `maxBytes` (the rest is not read), or NOT_UTF8: JSON exchanged
 * between systems MUST be UTF-8 (RFC 8259, section 8.1), and bytes that are not would be read as
 * U+FFFD, text the service never sent. A byte order mark is kept (JSON.parse then refuses it).
 */
async function readLimited(response: Response, maxBytes: number): Promise<string | undefined | typeof NOT_UTF8> {
  const declared = Number(response.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined)
    return undefined
  }
  if (!response.body) return ''
  const reader = response.body.getReader()
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
  let received = 0
  let text = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    received += value.byteLength
    if (received > maxBytes) {
      await reader.cancel().catch(() => undefined)
      return undefined
    }
    const piece = decoded(decoder, value)
    if (piece === NOT_UTF8) {
      await reader.cancel().catch(() => undefined)
      return NOT_UTF8
    }
    text += piece
  }
  const rest = decoded(decoder)
  return rest === NOT_UTF8 ? NOT_UTF8 : text + rest
}

/** The next piece of text (the end of it without `bytes`), or NOT_UTF8 where the fatal decoder throws. */
function decoded(decoder: InstanceType<typeof TextDecoder>, bytes?: Uint8Array): string | typeof NOT_UTF8 {
  try {
    return bytes === undefined ? decoder.decode() : decoder.decode(bytes, { stream: true })
  } catch {
    return NOT_UTF8
  }
}

/**
 * A time limit in milliseconds as a delay `AbortSignal.timeout` takes: DEFAULT_TIMEOUT_MS when none
 * is given, undefined for no limit (`Infinity`), null for a value that is no time (negative, `NaN`, not a number). A
 * fraction is rounded up; past 2^31 - 1 ms Node's timers fire after 1 ms, so that is the most.
 */
export function timerDelay(ms: number | undefined): number | undefined | null {
  if (ms === Infinity) return undefined
  if (ms === undefined) return DEFAULT_TIMEOUT_MS
  if (typeof ms !== 'number' || !(ms >= 0)) return null
  return Math.min(Math.ceil(ms), 2 ** 31 - 1)
}

/**
 * A body limit in bytes as the exchange reads it: the default when none is given, `Infinity` for
 * no limit, null for a value that is no limit (negative, `NaN`, not a number: a `NaN` compares false
 * with every length, so taken as it is it would read any body whole).
 */
export function bodyLimit(bytes: number | undefined): number | null {
  if (bytes === undefined) return DEFAULT_MAX_BODY_BYTES
  if (typeof bytes !== 'number' || !(bytes >= 0)) return null
  return bytes
}

/** `baseUrl`'s origin with `path` resolved against it, or undefined when the result is on another origin. */
export function sameOriginUrl(baseUrl: string | URL, path: string | undefined): URL | undefined {
  const base = new URL(baseUrl)
  const url = path === undefined ? base : new URL(path, base)
  return url.origin === base.origin ? url : undefined
}
