/**
 * The headers of a message checked together with its payload. A set of messages whose headers
 * schemas differ (or of which some have none: such a message takes any headers) cannot be checked
 * with one headers validator: the headers of one message are not another's, and which message a
 * message is, its payload says. So such a set carries each message's pair of validators, and a
 * message is the contract's when some message of the set takes both its payload and its headers
 * (AsyncAPI 3.1.0, Message Object: `headers` and `payload` describe one message).
 */
import type { ResultError } from '../shared/result.js'
import { check, type Validator } from '../shared/validation.js'

/** One message of a set: its payload's validator and its headers' (undefined: it takes any). */
export type MessageValidators = readonly [payload: Validator | undefined, headers: Validator | undefined]

/**
 * Why no message of `pairs` takes both `payload` and `headers` (a plain object, one string per
 * name), or undefined when one does. The problems are those of the headers of the first message
 * whose payload matches (a payload no message takes is its own problem, found before this).
 * Bounded by the set: each pair's validators run at most once.
 */
export function headersOfMessage(pairs: readonly MessageValidators[], payload: unknown, headers: Readonly<Record<string, string>>): ResultError[] | undefined {
  let first: ResultError[] | undefined
  let matched = false
  for (const pair of pairs) {
    const [validatePayload, validateHeaders] = pair
    if (check(validatePayload, payload) !== undefined) continue
    matched = true
    const problems = check(validateHeaders, headers)
    if (problems === undefined) return undefined
    first ??= problems
  }
  return matched ? first : [{ path: '', message: '(payload) is none of the messages whose headers could be checked', code: 'headers' }]
}

/**
 * Whether a message of `pairs` whose payload `payload` matches has no headers schema: it takes any
 * headers, even those no schema could read (a name given twice), as a channel without one does.
 */
export function takesAnyHeaders(pairs: readonly MessageValidators[], payload: unknown): boolean {
  for (const [validatePayload, validateHeaders] of pairs) if (validateHeaders === undefined && check(validatePayload, payload) === undefined) return true
  return false
}
