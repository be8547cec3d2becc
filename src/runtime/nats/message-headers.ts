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
 * The message of `pairs` that takes both `payload` and the message's headers (`checkHeaders`
 * checks them against one message's headers validator): its headers validator (undefined: it has
 * none and takes any headers), or why there is none: the problems of the headers of the first
 * message whose payload matches (a payload no message takes is its own problem, found before
 * this). Bounded by the set: each pair's validators run at most once.
 */
export function headersOfMessage(
  pairs: readonly MessageValidators[],
  payload: unknown,
  checkHeaders: (validate: Validator) => ResultError[] | undefined,
): { readonly ok: true; readonly validate?: Validator } | { readonly ok: false; readonly errors: ResultError[] } {
  let first: ResultError[] | undefined
  for (const pair of pairs) {
    const [validatePayload, validateHeaders] = pair
    if (check(validatePayload, payload) !== undefined) continue
    if (validateHeaders === undefined) return { ok: true }
    // The message's headers as this schema reads them (the `Nats-` names it names among them).
    const problems = checkHeaders(validateHeaders)
    if (problems === undefined) return { ok: true, validate: validateHeaders }
    first ??= problems
  }
  return { ok: false, errors: first ?? [{ path: '', message: '(payload) is none of the messages whose headers could be checked', code: 'headers' }] }
}

/**
 * Whether a message of `pairs` whose payload `payload` matches has no headers schema: it takes any
 * headers, even those no schema could read (a name given twice), as a channel without one does.
 */
export function takesAnyHeaders(pairs: readonly MessageValidators[], payload: unknown): boolean {
  for (const [validatePayload, validateHeaders] of pairs) if (validateHeaders === undefined && check(validatePayload, payload) === undefined) return true
  return false
}
