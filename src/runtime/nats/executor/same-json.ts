/**
 * The success predicate's comparison: `equals` without coercion, JSON equality for objects (their
 * canonical JSON, so key order does not matter). A value canonicalize cannot write (a lone
 * surrogate a peer's JSON escaped in, a cycle) equals nothing: false, never a throw. O(value size).
 */
import canonicalize from 'canonicalize'

const serialize = canonicalize as unknown as (value: unknown) => string | undefined

export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  try {
    const left = serialize(a)
    return left !== undefined && left === serialize(b)
  } catch {
    return false
  }
}
