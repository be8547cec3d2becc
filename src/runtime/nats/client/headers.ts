/**
 * A message's headers as its AsyncAPI `headers` schema sees them: a plain object, one string per
 * header name. Names are compared exactly (nats.js v3 matches header names case-sensitively by
 * default: `traceId` and `TraceId` are two headers). A header given more than once has no single
 * value the schema could check: it is refused, as is a value that is not a string. Names beginning
 * with `Nats-` are the protocol's and JetStream's own (`Nats-Msg-Id`, `Nats-Expected-Stream`, ...),
 * not the application's: they are left out of the object the schema checks.
 */
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/nats-core'
import type { ResultError } from '../../shared/result.js'
import { escapeToken } from '../../shared/json-pointer.js'

/** Names the NATS protocol and JetStream reserve for themselves. */
const RESERVED = 'Nats-'

/** What a message's headers read as: the object to check, or why there is none. */
export type HeaderObject = { readonly ok: true; readonly value: Record<string, string> } | { readonly ok: false; readonly errors: ResultError[] }

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
      if (name.startsWith(RESERVED)) continue
      const v = (headers as Record<string, unknown>)[name]
      if (typeof v === 'string') value[name] = v
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
