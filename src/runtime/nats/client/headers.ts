/**
 * A message's headers as its AsyncAPI `headers` schema sees them: a plain object, one string per
 * header name. Names are compared exactly (nats.js v3 matches header names case-sensitively by
 * default: `traceId` and `TraceId` are two headers). A header given more than once has no single
 * value the schema could check: it is refused, as is a value that is not a string. Names beginning
 * with `Nats-` are the protocol's and JetStream's own (`Nats-Msg-Id`, `Nats-Expected-Stream`, ...),
 * not the application's: they are left out of the object the schema checks.
 *
 * What is checked is what travels: nats.js refuses a name outside printable ASCII (or with a colon)
 * and a value holding a line break, and trims a value's surrounding white space, so a plain object
 * with such a name or value is refused here (the validator would otherwise pass a value the wire
 * changes, or nats.js throw its own error). And nats.js decodes a received message's headers when
 * they are first read, throwing on what it would not write: such headers, from a peer writing the
 * protocol itself, are refused as unreadable, never thrown out of the connection.
 */
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/nats-core'
import type { ResultError } from '../../shared/result.js'
import { escapeToken } from '../../shared/json-pointer.js'

/** Names the NATS protocol and JetStream reserve for themselves. */
const RESERVED = 'Nats-'

/** What a message's headers read as: the object to check, or why there is none. */
export type HeaderObject = { readonly ok: true; readonly value: Record<string, string> } | { readonly ok: false; readonly errors: ResultError[] }

/** A header name nats.js writes: printable ASCII but the colon (its `canonicalMIMEHeaderKey`). */
const NAME = /^[!-9;-~]+$/
/** A value nats.js sends as given: no line break, nothing its `trim()` removes at either end. */
const sentAsGiven = (value: string): boolean => !/[\r\n]/.test(value) && value.trim() === value

/** Why a plain object's header would not travel as given, if it would not. */
function unsendable(name: string, value: string): ResultError | undefined {
  const path = `/${escapeToken(name)}`
  if (!NAME.test(name)) return { path, message: `${path} is not a header name (printable ASCII but ':')`, code: 'headerName' }
  if (!sentAsGiven(value))
    return { path, message: `${path} would not be sent as given (a line break, or white space at an end that nats.js trims)`, code: 'headerValue' }
  return undefined
}

/** Headers nats.js could not decode (see above). */
export const UNREADABLE_HEADERS: unique symbol = Symbol('unreadable headers')

/** A received message's nats.js headers (none: undefined), or UNREADABLE_HEADERS when nats.js throws decoding them. */
export function receivedHeaders(msg: { readonly headers?: MsgHdrs }): MsgHdrs | undefined | typeof UNREADABLE_HEADERS {
  try {
    return msg.headers
  } catch {
    return UNREADABLE_HEADERS
  }
}

/** The problem of headers nats.js could not decode. */
export const unreadableHeadersErrors = (): ResultError[] => [
  { path: '', message: '(headers) cannot be read: a name or value nats.js does not accept', code: 'headerName' },
]

/** nats.js headers (an array has `keys` and `values` too: it is not one). */
function isMsgHdrs(value: unknown): value is MsgHdrs {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const h = value as MsgHdrs
  return typeof h.keys === 'function' && typeof h.values === 'function' && typeof h.get === 'function' && typeof h.append === 'function'
}

/** A plain object of `headers` (nats.js MsgHdrs, a plain object of strings, or none), or the problems that keep it from being one. */
export function headerObject(headers: unknown): HeaderObject {
  // Null prototype: a header called `__proto__` or `constructor` is a name like any other.
  const value = Object.create(null) as Record<string, string>
  const errors: ResultError[] = []
  if (headers === undefined || headers === null) return { ok: true, value }
  if (headers === UNREADABLE_HEADERS) return { ok: false, errors: unreadableHeadersErrors() }
  if (isMsgHdrs(headers)) {
    // An object that only looks like MsgHdrs may throw or answer anything: a refusal, never a throw.
    let names: unknown
    try {
      names = headers.keys()
    } catch {
      names = undefined
    }
    if (!Array.isArray(names)) return { ok: false, errors: [{ path: '', message: '(headers) cannot be read as nats.js MsgHdrs', code: 'type' }] }
    for (const name of names) {
      if (typeof name !== 'string' || name.startsWith(RESERVED)) continue
      let values: unknown
      try {
        values = headers.values(name)
      } catch {
        values = undefined
      }
      if (Array.isArray(values) && values.length === 1 && typeof values[0] === 'string') value[name] = values[0]
      else if (!Array.isArray(values) || values.some((v) => typeof v !== 'string'))
        errors.push({ path: `/${escapeToken(name)}`, message: `/${escapeToken(name)} must be a string (a header value)`, code: 'type' })
      else
        errors.push({
          path: `/${escapeToken(name)}`,
          message: `/${escapeToken(name)} is given ${values.length} times (a header the schema checks has one value)`,
          code: 'repeated',
        })
    }
  } else if (typeof headers === 'object' && !Array.isArray(headers)) {
    for (const name of Object.keys(headers)) {
      const v = (headers as Record<string, unknown>)[name]
      // Reserved names are not the schema's, but they are sent: they too must travel as given.
      const problem = typeof v === 'string' ? unsendable(name, v) : undefined
      if (problem) errors.push(problem)
      else if (name.startsWith(RESERVED)) continue
      else if (typeof v === 'string') value[name] = v
      else errors.push({ path: `/${escapeToken(name)}`, message: `/${escapeToken(name)} must be a string (a header value)`, code: 'type' })
    }
  } else errors.push({ path: '', message: '(headers) must be a plain object of strings or nats.js MsgHdrs', code: 'type' })
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value }
}

/** nats.js headers for what a publish was given (MsgHdrs as they are; a plain object copied, value by value). */
export function msgHdrsOf(values: Readonly<Record<string, string>> | MsgHdrs): MsgHdrs {
  if (isMsgHdrs(values)) return values
  const h = natsHeaders()
  for (const [key, value] of Object.entries(values)) h.set(key, value)
  return h
}
