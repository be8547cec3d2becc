/**
 * The subject a peer's result is expected on: the result channel's address with the operation's
 * own values and the peer's id at the target parameter. Comparing a result's subject with it takes
 * no split and no parameter object; a subject that is not it is parsed as before, so the check
 * answers exactly what parsing would (see `expectedSubject`).
 */
import { templateTokens, type Channel } from '../../subjects.js'
import { inDomain } from '../../tokens.js'

/** True when `subject` is the expected subject of `peerId`'s result. O(subject length), nothing allocated. */
export type ExpectedSubject = (subject: string, peerId: string) => boolean

/**
 * Worked out once per channel: the address's tokens, with `target` named exactly once and every
 * other parameter among `bound` (the parameters an operation gives one value for all its
 * branches); undefined otherwise (the caller parses every subject). The answer, given one
 * operation's values (`valueOf`), is its test, or undefined when a value is not a token of its
 * parameter's domain. A subject the test accepts is one the channel's `tryParse` parses with
 * `target` equal to the peer: each token is the address's literal or a value in its parameter's
 * domain (no such value holds a dot), so the split gives back the same tokens, each accepted.
 */
export function expectedSubject(
  channel: Channel<any, any, any>,
  target: string | undefined,
  bound: ReadonlySet<string>,
): ((valueOf: (param: string) => unknown) => ExpectedSubject | undefined) | undefined {
  const address = channel.address
  if (!address || !channel.subject || target === undefined || !Object.hasOwn(channel.parameters, target)) return undefined
  const targetType = channel.parameters[target]!
  // The address's tokens as the channel's subject reads them (`createChannel`).
  const tokens = templateTokens(address)
  const slot = tokens.findIndex((t) => typeof t !== 'string' && t.param === target)
  const params = tokens.filter((t): t is { param: string } => typeof t !== 'string').map((t) => t.param)
  if (slot < 0 || params.filter((p) => p === target).length !== 1) return undefined
  if (params.some((p) => p !== target && (!bound.has(p) || !Object.hasOwn(channel.parameters, p)))) return undefined
  const text = (from: number, to: number, valueOf: (param: string) => unknown): string | undefined => {
    let out = ''
    for (let i = from; i < to; i++) {
      const token = tokens[i]!
      let part: string
      if (typeof token === 'string') part = token
      else {
        const value = valueOf(token.param)
        if (typeof value !== 'string' || !inDomain(channel.parameters[token.param]!, value)) return undefined
        part = value
      }
      out += i === 0 ? part : '.' + part
    }
    return out
  }
  return (valueOf) => {
    const before = text(0, slot, valueOf)
    const after = text(slot + 1, tokens.length, valueOf)
    if (before === undefined || after === undefined) return undefined
    const prefix = slot === 0 ? '' : before + '.'
    // Every token after the slot was written with its leading dot.
    const suffix = after
    const fixed = prefix.length + suffix.length
    return (subject, peerId) =>
      subject.length === fixed + peerId.length &&
      subject.startsWith(prefix) &&
      subject.startsWith(peerId, prefix.length) &&
      subject.endsWith(suffix) &&
      inDomain(targetType, peerId)
  }
}
