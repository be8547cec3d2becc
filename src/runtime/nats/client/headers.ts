/**
 * A message's headers as its AsyncAPI `headers` schema sees them: a plain object, one string per
 * header name. Names are compared exactly (nats.js v3 matches header names case-sensitively by
 * default: `traceId` and `TraceId` are two headers). A header given more than once has no single
 * value the schema could check: it is refused, as is a value that is not a string. Names beginning
 * with `Nats-` are the protocol's and JetStream's own (`Nats-Msg-Id`, `Nats-Expected-Stream`, ...),
 * not the application's: they are kept apart, and checked only where a schema names them
 * (`headersFor`, reserved-headers.ts).
 *
 * What is checked is what travels: nats.js refuses a name outside printable ASCII (or with a colon)
 * and a value holding a line break, and trims a value's surrounding white space, so a plain object
 * with such a name or value is refused here (the validator would otherwise pass a value the wire
 * changes, or nats.js throw its own error). And nats.js decodes a received message's headers when
 * they are first read, throwing on what it would not write: such headers, from a peer writing the
 * protocol itself, are refused as unreadable, never thrown out of the connection.
 */
import { canonicalMIMEHeaderKey, MsgHdrsImpl, type MsgHdrs } from '@nats-io/nats-core'
import type { ResultError } from '../../shared/result.js'
import { errorText } from '../../shared/error-text.js'
import { escapeToken } from '../../shared/json-pointer.js'
import { RESERVED_PREFIX as RESERVED } from '../reserved-headers.js'
import { strictUtf8 } from '../../shared/utf8.js'
import { HEADER_NAME, sentAsGiven } from '../header-text.js'

export { sentAsGiven }

/**
 * What a message's headers read as: the object to check (and, for a plain object given to send,
 * every name with its value as read once, `Nats-` names included: what is sent), or why there is none.
 */
export type HeaderObject =
  | {
      readonly ok: true
      readonly value: Record<string, string>
      readonly sent?: Record<string, string>
      /** The `Nats-` names read, each with its one value or why it has none: checked only where a schema names them (reserved-headers.ts). */
      readonly reserved?: Record<string, string | ResultError>
    }
  | { readonly ok: false; readonly errors: ResultError[] }

/** Why a plain object's header would not travel as given, if it would not. */
function unsendable(name: string, value: string): ResultError | undefined {
  const path = `/${escapeToken(name)}`
  if (!HEADER_NAME.test(name)) return { path, message: `${path} is not a header name (printable ASCII but ':')`, code: 'headerName' }
  if (!sentAsGiven(value))
    return { path, message: `${path} would not be sent as given (a line break, or white space at an end that nats.js trims)`, code: 'headerValue' }
  return undefined
}

/** Headers nats.js could not decode (see above). */
export const UNREADABLE_HEADERS: unique symbol = Symbol('unreadable headers')

/** A received message's nats.js headers (none: undefined), or UNREADABLE_HEADERS when nats.js throws decoding them. */
export function receivedHeaders(msg: { readonly headers?: MsgHdrs }): MsgHdrs | undefined | typeof UNREADABLE_HEADERS {
  try {
    decodeOnce(msg)
    return msg.headers
  } catch {
    return UNREADABLE_HEADERS
  }
}

/** The problem of headers nats.js could not decode. */
export const unreadableHeadersErrors = (): ResultError[] => [
  { path: '', message: '(headers) cannot be read: a name or value nats.js does not accept', code: 'headerName' },
]

/** nats.js headers (an array has `keys` and `values` too: it is not one); false for a value whose reading throws (a Proxy's trap). */
export function isMsgHdrs(value: unknown): value is MsgHdrs {
  try {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
    const h = value as MsgHdrs
    return typeof h.keys === 'function' && typeof h.values === 'function' && typeof h.get === 'function' && typeof h.append === 'function'
  } catch {
    return false
  }
}

/** A plain object of `headers` (nats.js MsgHdrs, a plain object of strings, or none), or the problems that keep it from being one. */
export function headerObject(headers: unknown): HeaderObject {
  try {
    return readHeaders(headers)
  } catch (error) {
    // A Proxy whose traps throw, a revoked one, a getter that throws: no headers to check or send.
    return { ok: false, errors: [{ path: '', message: `(headers) cannot be read: ${errorText(error)}`, code: 'type' }] }
  }
}

/**
 * A plain object: its prototype is none or an `Object.prototype` (of any realm). A Map, a Date, an
 * array or a class instance holds its entries elsewhere than in own members: read as a plain object
 * it would be sent with none of them.
 */
function isPlainObject(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false
  const proto = Object.getPrototypeOf(value) as object | null
  return proto === null || Object.getPrototypeOf(proto) === null
}

/** Why a header's values (as MsgHdrs holds them: a list) are not one string the schema can check, if they are not. */
function valuesProblem(name: string, values: unknown): ResultError | undefined {
  if (Array.isArray(values) && values.length === 1 && typeof values[0] === 'string') return undefined
  if (!Array.isArray(values) || values.some((v) => typeof v !== 'string'))
    return { path: `/${escapeToken(name)}`, message: `/${escapeToken(name)} must be a string (a header value)`, code: 'type' }
  return {
    path: `/${escapeToken(name)}`,
    message: `/${escapeToken(name)} is given ${values.length} times (a header the schema checks has one value)`,
    code: 'repeated',
  }
}

function readHeaders(headers: unknown): HeaderObject {
  // Null prototype: a header called `__proto__` or `constructor` is a name like any other.
  const value = Object.create(null) as Record<string, string>
  const errors: ResultError[] = []
  let reserved: Record<string, string | ResultError> | undefined
  if (headers === undefined) return { ok: true, value }
  if (headers === UNREADABLE_HEADERS) return { ok: false, errors: unreadableHeadersErrors() }
  if (headers instanceof MsgHdrsImpl && headers.headers instanceof Map) {
    // nats.js's own headers (every received message's: decodeOnce made them): its map read once. Its
    // `values(name)` copies every name to find one, so reading each name through it was quadratic
    // (an outside pass: 20,000 fields, about 200 KB, held the connection's every subscription for 30 s).
    for (const [name, values] of headers.headers as Map<unknown, unknown>) {
      if (typeof name !== 'string') continue
      const problem = valuesProblem(name, values)
      if (name.startsWith(RESERVED)) (reserved ??= Object.create(null) as Record<string, string | ResultError>)[name] = problem ?? (values as string[])[0]!
      else if (problem) errors.push(problem)
      else value[name] = (values as string[])[0]!
    }
  } else if (isMsgHdrs(headers)) {
    // An object that only looks like MsgHdrs may throw or answer anything: a refusal, never a throw.
    let names: unknown
    try {
      names = headers.keys()
    } catch {
      names = undefined
    }
    if (!Array.isArray(names)) return { ok: false, errors: [{ path: '', message: '(headers) cannot be read as nats.js MsgHdrs', code: 'type' }] }
    for (const name of names) {
      if (typeof name !== 'string') continue
      let values: unknown
      try {
        values = headers.values(name)
      } catch {
        values = undefined
      }
      const problem = valuesProblem(name, values)
      if (name.startsWith(RESERVED)) (reserved ??= Object.create(null) as Record<string, string | ResultError>)[name] = problem ?? (values as string[])[0]!
      else if (problem) errors.push(problem)
      else value[name] = (values as string[])[0]!
    }
  } else if (isPlainObject(headers)) {
    // Each value read once (a getter answers what it answers then), into what is checked and sent.
    const sent = Object.create(null) as Record<string, string>
    for (const name of Object.keys(headers)) {
      const v = (headers as Record<string, unknown>)[name]
      // Reserved names are not the schema's, but they are sent: they too must travel as given.
      const problem = typeof v === 'string' ? unsendable(name, v) : undefined
      if (problem) errors.push(problem)
      else if (typeof v !== 'string')
        errors.push({ path: `/${escapeToken(name)}`, message: `/${escapeToken(name)} must be a string (a header value)`, code: 'type' })
      else {
        sent[name] = v
        if (!name.startsWith(RESERVED)) value[name] = v
        else (reserved ??= Object.create(null) as Record<string, string | ResultError>)[name] = v
      }
    }
    if (errors.length === 0) return reserved ? { ok: true, value, sent, reserved } : { ok: true, value, sent }
  } else errors.push({ path: '', message: '(headers) must be a plain object of strings or nats.js MsgHdrs', code: 'type' })
  if (errors.length > 0) return { ok: false, errors }
  return reserved ? { ok: true, value, reserved } : { ok: true, value }
}

/**
 * What `validate` checks of headers read by `headerObject`: the application's names, and the
 * `Nats-` names its schema names (reserved-headers.ts) that the message carries; a named one given
 * more than once (or not a string) has no value to check and is refused. The read object itself
 * when the schema names none.
 */
export function headersFor(read: Extract<HeaderObject, { ok: true }>, names: readonly string[] | undefined): HeaderObject {
  if (names === undefined || read.reserved === undefined) return read
  let value: Record<string, string> | undefined
  for (const name of names) {
    if (!Object.hasOwn(read.reserved, name)) continue
    const held = read.reserved[name]!
    if (typeof held !== 'string') return { ok: false, errors: [held] }
    value ??= Object.assign(Object.create(null) as Record<string, string>, read.value)
    value[name] = held
  }
  return value === undefined ? read : { ...read, value }
}

/**
 * nats.js headers of the names and values `headerObject` read from a plain object (checked: names
 * and values nats.js writes as given), made in one pass: `MsgHdrs.set` looks up every name set
 * before it, so setting 30,000 names one by one took seconds.
 */
export function msgHdrsFrom(sent: Readonly<Record<string, string>>): MsgHdrs {
  const record = Object.create(null) as Record<string, string[]>
  for (const name of Object.keys(sent)) record[name] = [sent[name]!]
  return MsgHdrsImpl.fromRecord(record)
}

/** nats.js's own header block line, before any field. */
const HEADER_LINE = 'NATS/1.0'
/**
 * Strict UTF-8, as a payload is read (utf8.ts): a header block that is not UTF-8 throws, so the
 * message is refused as unreadable headers, never read with U+FFFD in place of its bytes (nats.js's
 * own decoder replaces them: an outside pass found such a value accepted).
 */
const headerText = strictUtf8

/**
 * A received message's headers decoded in one pass, as nats.js decodes them (its status line, each
 * `name: value` line split at its first colon, the value trimmed, each name and value checked as
 * nats.js checks them, which throws on what it would not write), and kept on the message so nats.js
 * never decodes them itself: its decoding appends each field through a lookup of every name before
 * it, quadratic in the number of fields (20,000 fields, about 200 KB, took 5.7 s; `max_payload`
 * holds some 90,000). Read from what nats.js keeps of the message (the bytes and the header
 * length of its protocol line, as `heldSize` reads them); a message without them (another client's)
 * is left to nats.js.
 */
function decodeOnce(msg: unknown): void {
  const inner = (msg as { msg?: unknown }).msg ?? msg
  const held = inner as { _headers?: unknown; _rdata?: unknown; _msg?: { hdr?: unknown } }
  const length = held._msg?.hdr
  if (held._headers !== undefined || !(held._rdata instanceof Uint8Array) || typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) return
  held._headers = decodeHeaderBlock(held._rdata.subarray(0, length))
}

/**
 * A header block (`NATS/1.0[ status]\r\nname: value\r\n...`) as nats.js's `MsgHdrsImpl.decode` reads
 * it, in one pass: the same fields, values and status, and a throw where it throws (a name its
 * `canonicalMIMEHeaderKey` refuses), without its lookup of every earlier name per field.
 */
export function decodeHeaderBlock(block: Uint8Array): MsgHdrsImpl {
  const lines = headerText.decode(block).split('\r\n')
  let code = 0
  let description = ''
  if (lines[0] !== HEADER_LINE) {
    let status = lines[0]!.replace(HEADER_LINE, '').trim()
    if (status.length > 0) {
      code = parseInt(status, 10)
      if (Number.isNaN(code)) code = 0
      status = status.replace(code.toString(), '')
      description = status.trim()
    }
  }
  const h = new MsgHdrsImpl(code, description)
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!
    const colon = line === '' ? -1 : line.indexOf(':')
    if (colon === -1) continue
    const name = line.slice(0, colon)
    canonicalMIMEHeaderKey(name)
    const value = MsgHdrsImpl.validHeaderValue(line.slice(colon + 1).trim())
    const values = h.headers.get(name)
    if (values) values.push(value)
    else h.headers.set(name, [value])
  }
  return h
}

/**
 * A stored message's headers (`jsm.streams.getMessage`), decoded in one pass and kept on it so that
 * nats.js never decodes them itself (its `StoredMsg.header` is the same quadratic decoding): a
 * record or claim anyone with write access to the bucket wrote with the most headers JetStream
 * stores (64 KB, about 7,000 short fields) held each read of it for about 0.3 s. Throws where
 * nats.js would (a name it refuses).
 * A message without the server's base64 block (another implementation's) is left to nats.js.
 */
export function storedHeaders(msg: { readonly header: MsgHdrs }): MsgHdrs {
  const held = msg as unknown as { _header?: unknown; smr?: { message?: { hdrs?: unknown } } }
  const block = held.smr?.message?.hdrs
  if (held._header === undefined && typeof block === 'string' && block !== '') held._header = decodeHeaderBlock(base64Bytes(block))
  return msg.header
}

/**
 * A stored message's `Nats-Msg-Id` (what a compare-and-set write settles on), read as nats.js reads
 * it (`header.get`: the first value of a field of exactly that name), in one pass; undefined when
 * there is none or the headers cannot be read (a name nats.js refuses): such a message was not
 * written by this client, which writes only names nats.js accepts, so it is no write of ours.
 */
export function storedMsgId(msg: { readonly header: MsgHdrs }): string | undefined {
  try {
    return storedHeaders(msg).get('Nats-Msg-Id') || undefined
  } catch {
    return undefined
  }
}

/** Base64 text as bytes, as nats.js reads a stored message's (`atob`, then each character's code). */
function base64Bytes(text: string): Uint8Array {
  const binary = atob(text)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes
}
