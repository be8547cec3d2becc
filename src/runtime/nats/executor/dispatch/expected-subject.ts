/**
 * The subject a peer's result is expected on: the result channel's address with the operation's
 * own values (bound once per operation) and the peer's id at the target parameter. Comparing a
 * result's subject with it takes no split and no parameter object; a subject that is not it is
 * parsed as before, so the check answers exactly what parsing it would (see `expectedSubject`).
 */
import { templateTokens, type Channel } from '../../subjects.js'
import { inDomain } from '../../tokens.js'

/** True when `subject` is the expected subject of `peerId`'s result. O(subject length). */
export type ExpectedSubject = (subject: string, peerId: string) => boolean

/**
 * The expected-subject test of a channel whose parameters other than `target` all have a value in
 * `values` (each in its parameter's domain) and whose address names `target` exactly once;
 * undefined otherwise (the caller parses). A subject it accepts is one the channel's `tryParse`
 * parses with `target` equal to the peer: every token is the address's literal or a value in its
 * parameter's domain (no token holds a dot), so the split gives back the same tokens.
 */
export function expectedSubject(
  channel: Channel<any, any, any>,
  target: string | undefined,
  values: Readonly<Record<string, unknown>>,
): ExpectedSubject | undefined {
  const address = channel.address
  if (!address || target === undefined || !Object.hasOwn(channel.parameters, target)) return undefined
  const targetType = channel.parameters[target]!
  const parts: string[] = []
  let slot = -1
  // The address's tokens as the channel's subject reads them (`createChannel`).
  const tokens = templateTokens(address)
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    if (typeof token === 'string') {
      parts.push(token)
      continue
    }
    const param = token.param
    if (param === target) {
      if (slot >= 0) return undefined
      slot = i
      parts.push('')
    } else {
      const value = Object.hasOwn(values, param) ? values[param] : undefined
      if (!Object.hasOwn(channel.parameters, param) || typeof value !== 'string' || !inDomain(channel.parameters[param]!, value)) return undefined
      parts.push(value)
    }
  }
  if (slot < 0) return undefined
  const prefix = parts
    .slice(0, slot)
    .map((p) => p + '.')
    .join('')
  const suffix = parts
    .slice(slot + 1)
    .map((p) => '.' + p)
    .join('')
  const fixed = prefix.length + suffix.length
  return (subject, peerId) =>
    subject.length === fixed + peerId.length &&
    subject.startsWith(prefix) &&
    subject.startsWith(peerId, prefix.length) &&
    subject.endsWith(suffix) &&
    inDomain(targetType, peerId)
}
