/**
 * One reading of a content pin for every comparison (the runtime's reopen check and the differ):
 * canonical JSON (RFC 8785) with a `sha256` or `commit` of hex digits in lowercase, since hex digits
 * in either case name the same bytes (the layout's pin rule). Anything else is compared as written.
 */
import canonicalize from 'canonicalize'

const HEX = /^[0-9a-fA-F]+$/

export function pinText(pin: unknown): string {
  if (pin === null || typeof pin !== 'object' || Array.isArray(pin)) return canonicalize(pin) ?? ''
  const p = pin as Record<string, unknown>
  const lower = (v: unknown) => (typeof v === 'string' && HEX.test(v) ? v.toLowerCase() : v)
  return canonicalize({ ...p, ...('sha256' in p ? { sha256: lower(p.sha256) } : {}), ...('commit' in p ? { commit: lower(p.commit) } : {}) }) ?? ''
}
