/**
 * A topic's contract hash as a generated module writes it: the digest's 32 bytes in base64 (43
 * characters, no padding) rather than the 64 hex digits of the API (Contract Document §6.2 fixes
 * the hash text a client shows, not how a module stores it). A digest is random to a compressor,
 * which already codes hex at about 4.5 bits a character and base64 at about 6: a thousand-topic
 * module is about 4 KB (6%) smaller gzipped, and the client's `contractHash` is the same text. The
 * compiler writes the stored form with Node's base64 (`storedHash` in the Benzene generator).
 */
/**
 * `sha256:` + lowercase hex of a base64 digest (`atob`: browsers, Node, workers). Anything else (the
 * hash text itself, as older modules wrote it, or a hand-written call's text) is returned as it is.
 */
export function hashText(stored: string): `sha256:${string}` {
  if (!/^[A-Za-z0-9+/]{43}$/.test(stored)) return stored as `sha256:${string}`
  const bytes = atob(stored)
  let hex = ''
  for (let i = 0; i < bytes.length; i++) hex += bytes.charCodeAt(i).toString(16).padStart(2, '0')
  return `sha256:${hex}`
}
