/**
 * Canonical JSON (RFC 8785, through `canonicalize`) for the executor's data: the idempotency input
 * bytes, the branch manifest's digest and the success predicate's comparison.
 */
import canonicalize from 'canonicalize'

const serialize = canonicalize as unknown as (value: unknown) => string | undefined

/**
 * The canonical JSON text of `value`, or undefined where it is not JSON data: canonicalize throws on
 * NaN, Infinity, a lone surrogate and a cycle, and returns nothing for `undefined` or a function.
 * O(value size); never a throw.
 */
export function canonicalText(value: unknown): string | undefined {
  try {
    return serialize(value)
  } catch {
    return undefined
  }
}

/**
 * The success predicate's comparison: `equals` without coercion, JSON equality for objects (their
 * canonical JSON, so key order does not matter). A value that is not JSON data (a lone surrogate a
 * peer's JSON escaped in, a cycle) equals nothing: false, never a throw. O(value size).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  const left = canonicalText(a)
  return left !== undefined && left === canonicalText(b)
}
