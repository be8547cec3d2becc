/**
 * RFC 3986 URI syntax, as CloudEvents' URI (`absolute-URI`, section 4.3) and URI-reference
 * (section 4.1) types use it, and as DASP identities are written. A parser of the grammar's parts
 * (scheme, authority with userinfo, host and port, path, query, fragment), not a pattern: each part
 * is checked against its own rule, the IP literal against the IPv6 grammar. Nothing is normalized:
 * peers compare these strings exactly.
 *
 * Complexity: one pass over the string per part, linear in its length; never throws.
 */

const HEX = /^[0-9A-Fa-f]$/
const UNRESERVED_AND_SUB_DELIMS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;="
/** One table of allowed ASCII characters per part (its extra characters), built once. */
const tables = new Map<string, Uint8Array>()

function table(extra: string): Uint8Array {
  let t = tables.get(extra)
  if (!t) {
    t = new Uint8Array(128)
    for (const c of UNRESERVED_AND_SUB_DELIMS + extra) t[c.charCodeAt(0)] = 1
    tables.set(extra, t)
  }
  return t
}

/** Every character is unreserved, a sub-delim, one of `extra`, or a `%` with two hex digits (RFC 3986 section 2). */
function allowed(text: string, extra: string): boolean {
  const t = table(extra)
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === 0x25) {
      if (!HEX.test(text.charAt(i + 1)) || !HEX.test(text.charAt(i + 2))) return false
      i += 2
    } else if (code >= 128 || t[code] !== 1) return false
  }
  return true
}

/** pchar = unreserved / pct-encoded / sub-delims / ":" / "@" */
const PCHAR_EXTRA = ':@'

const DEC_OCTET = /^(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9][0-9]|[0-9])$/
const H16 = /^[0-9A-Fa-f]{1,4}$/

function isIpv4(text: string): boolean {
  const parts = text.split('.')
  return parts.length === 4 && parts.every((p) => DEC_OCTET.test(p))
}

/** IPv6address (RFC 3986 section 3.2.2): eight 16-bit groups, the last two possibly an IPv4 address, one `::` for a run of zeros. */
export function isIpv6(text: string): boolean {
  const gap = text.indexOf('::')
  if (gap !== -1 && text.indexOf('::', gap + 1) !== -1) return false
  const head = gap === -1 ? text : text.slice(0, gap)
  const tail = gap === -1 ? '' : text.slice(gap + 2)
  const groups = [...(head === '' ? [] : head.split(':')), ...(tail === '' ? [] : tail.split(':'))]
  if (gap === -1 && head === '') return false
  let count = 0
  for (let i = 0; i < groups.length; i++) {
    const group = groups[i]!
    if (H16.test(group)) count += 1
    // ls32: an IPv4 address only as the last two groups, at the end of the text.
    else if (i === groups.length - 1 && (gap === -1 || tail !== '') && isIpv4(group)) count += 2
    else return false
  }
  return gap === -1 ? count === 8 : count <= 7
}

/** IP-literal = "[" ( IPv6address / IPvFuture ) "]", without the brackets. */
function isIpLiteral(inner: string): boolean {
  if (inner.length > 0 && (inner[0] === 'v' || inner[0] === 'V')) {
    const dot = inner.indexOf('.')
    const version = inner.slice(1, dot)
    return dot > 1 && /^[0-9A-Fa-f]+$/.test(version) && dot < inner.length - 1 && allowed(inner.slice(dot + 1), ':') && !inner.slice(dot + 1).includes('%')
  }
  return isIpv6(inner)
}

/** authority = [ userinfo "@" ] host [ ":" port ] */
function isAuthority(authority: string): boolean {
  const at = authority.indexOf('@')
  // userinfo has no "@", so a second one is not an authority.
  if (at !== -1 && authority.indexOf('@', at + 1) !== -1) return false
  if (at !== -1 && !allowed(authority.slice(0, at), ':')) return false
  const hostPort = at === -1 ? authority : authority.slice(at + 1)
  let rest: string
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']')
    if (close === -1 || !isIpLiteral(hostPort.slice(1, close))) return false
    rest = hostPort.slice(close + 1)
  } else {
    const colon = hostPort.indexOf(':')
    // reg-name (an IPv4 address is one too): unreserved, pct-encoded, sub-delims.
    if (!allowed(colon === -1 ? hostPort : hostPort.slice(0, colon), '')) return false
    rest = colon === -1 ? '' : hostPort.slice(colon)
  }
  return rest === '' || (rest[0] === ':' && /^[0-9]*$/.test(rest.slice(1)))
}

interface Parts {
  scheme?: string
  authority?: string
  path: string
  query?: string
  fragment?: string
}

/** Splits a URI-reference into its parts (RFC 3986 Appendix B), without judging them. */
function split(text: string): Parts {
  let rest = text
  const parts: Parts = { path: '' }
  const hash = rest.indexOf('#')
  if (hash !== -1) {
    parts.fragment = rest.slice(hash + 1)
    rest = rest.slice(0, hash)
  }
  const question = rest.indexOf('?')
  if (question !== -1) {
    parts.query = rest.slice(question + 1)
    rest = rest.slice(0, question)
  }
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(rest)
  if (scheme) {
    parts.scheme = scheme[0].slice(0, -1)
    rest = rest.slice(scheme[0].length)
  }
  if (rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2)
    parts.authority = slash === -1 ? rest.slice(2) : rest.slice(2, slash)
    rest = slash === -1 ? '' : rest.slice(slash)
  }
  parts.path = rest
  return parts
}

function validParts(parts: Parts): boolean {
  if (parts.authority !== undefined && !isAuthority(parts.authority)) return false
  // Every path form is segments of pchar joined by "/"; with an authority it is empty or starts with "/" (split ensures it).
  if (!allowed(parts.path, PCHAR_EXTRA + '/')) return false
  // path-noscheme: in a relative reference, a first segment with ":" would read as a scheme.
  if (parts.scheme === undefined && parts.authority === undefined) {
    const first = parts.path.split('/', 1)[0]!
    if (first.includes(':')) return false
  }
  if (parts.query !== undefined && !allowed(parts.query, PCHAR_EXTRA + '/?')) return false
  if (parts.fragment !== undefined && !allowed(parts.fragment, PCHAR_EXTRA + '/?')) return false
  return true
}

/** RFC 3986 `absolute-URI` (section 4.3): a scheme, a hierarchical part, an optional query, no fragment. */
export function isAbsoluteUri(value: unknown): value is string {
  if (typeof value !== 'string') return false
  const parts = split(value)
  return parts.scheme !== undefined && parts.fragment === undefined && validParts(parts)
}

/** RFC 3986 `URI-reference` (section 4.1): a URI (fragment allowed) or a relative reference. */
export function isUriReference(value: unknown): value is string {
  return typeof value === 'string' && validParts(split(value))
}
