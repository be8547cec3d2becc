/**
 * "Credentials and live state are deployment inputs and never bundled" (NATS profile v0.2, bundle
 * paragraph). What can be told from bytes alone is whether a bundled file carries a NATS secret or a
 * private key: a `.creds` file's armour, an nkey seed, a NATS JWT, a PEM private key. Every file of
 * the bundle is scanned once when it is read (load.ts), so a secret anywhere in the distribution
 * fails every build that uses it.
 *
 * Complexity: O(n) in the text. The armour markers are `indexOf` searches; a seed candidate is looked
 * at only where an `S` starts a base32 run, and each run is walked once.
 */
import { joinPointer } from '../../runtime/shared/json-pointer.js'

/** Fixed text that only secrets carry. */
const MARKERS: ReadonlyArray<[marker: string, kind: string]> = [
  ['-----BEGIN NATS USER JWT-----', 'a NATS credentials file (user JWT)'],
  ['NKEY SEED-----', 'a NATS credentials file (nkey seed)'],
  ['PRIVATE KEY-----', 'a PEM private key'],
  // base64url of {"typ":"JWT","alg":"ed25519-nkey"}: the header of every NATS operator, account and user JWT.
  ['eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ', 'a NATS JWT'],
]

/** An nkey seed: `S`, the key type (user, account, operator, server, cluster, curve), 56 more base32 characters. */
const SEED_LENGTH = 58
const SEED_TYPES = new Set(['U', 'A', 'O', 'N', 'C', 'X'])
const isBase32 = (c: number) => (c >= 65 && c <= 90) /* A-Z */ || (c >= 50 && c <= 55) /* 2-7 */

export interface FoundCredential {
  /** What it looks like, for the message. */
  kind: string
  /** UTF-16 offset of its first character. */
  offset: number
}

/** The first credential-looking text in `text`, or undefined. */
export function findCredential(text: string): FoundCredential | undefined {
  let found: FoundCredential | undefined
  for (const [marker, kind] of MARKERS) {
    const offset = text.indexOf(marker)
    if (offset >= 0 && (found === undefined || offset < found.offset)) found = { kind, offset }
  }
  // Walk base32 runs; a run is a seed exactly when it is 58 long and starts with S and a key type.
  for (let i = 0; i < text.length && (found === undefined || i < found.offset);) {
    if (!isBase32(text.charCodeAt(i))) {
      i++
      continue
    }
    let end = i
    while (end < text.length && isBase32(text.charCodeAt(end))) end++
    if (end - i === SEED_LENGTH && text[i] === 'S' && SEED_TYPES.has(text[i + 1]!)) return { kind: 'an nkey seed', offset: i }
    i = end
  }
  return found
}

/** 1-based line of an offset (for a message about a file that is not parsed). */
export function lineOf(text: string, offset: number): number {
  let line = 1
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++
  return line
}

/** The JSON Pointer of the first string value of a parsed document that holds a credential ('' when only a key does). Iterative: no recursion on input. */
export function credentialPointer(value: unknown): string {
  const stack: Array<[unknown, string]> = [[value, '']]
  while (stack.length > 0) {
    const [node, pointer] = stack.pop()!
    if (typeof node === 'string') {
      if (findCredential(node)) return pointer
    } else if (node !== null && typeof node === 'object') {
      const entries = Array.isArray(node) ? node.map((v, i) => [String(i), v] as const) : Object.entries(node)
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], joinPointer(pointer, entries[i]![0])])
    }
  }
  return ''
}
