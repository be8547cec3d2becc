/**
 * A result's correlation members (operation, branch, attempt, peer, fence) read once per result:
 * the routing by operation id, the checks and the decision core's event all use the one reading.
 * Each expression's pointer is resolved once per executor; a one-token pointer (the usual
 * `$message.payload#/operationId`) reads its member directly.
 */
import { pointerTokens, readPointerValue } from './dispatch/pointers.js'

export interface Correlation {
  readonly operationId: unknown
  readonly branchId: unknown
  readonly attempt: unknown
  readonly peerId: unknown
  readonly fence: unknown
}

export interface CorrelationExpressions {
  readonly operation: string
  readonly branch: string
  readonly attempt: string
  readonly peer: string
  readonly fence: string
}

/** Reads one payload-only expression's value (own members only), as `readPointerValue` does. O(pointer depth). */
export function memberReader(expression: string): (payload: unknown) => unknown {
  const tokens = pointerTokens(expression)
  if (tokens === null) return () => undefined
  if (tokens.length === 1) {
    const token = tokens[0]!
    return (payload) =>
      typeof payload === 'object' && payload !== null && Object.hasOwn(payload, token) ? (payload as Record<string, unknown>)[token] : undefined
  }
  return (payload) => readPointerValue(expression, payload)
}

/** The five members of a payload, read once. O(1) per result. */
export function correlationReader(c: CorrelationExpressions): (payload: unknown) => Correlation {
  const operation = memberReader(c.operation)
  const branch = memberReader(c.branch)
  const attempt = memberReader(c.attempt)
  const peer = memberReader(c.peer)
  const fence = memberReader(c.fence)
  return (payload) => ({
    operationId: operation(payload),
    branchId: branch(payload),
    attempt: attempt(payload),
    peerId: peer(payload),
    fence: fence(payload),
  })
}
