/**
 * Does a contract carry a secret? What can be told from bytes alone: a NATS `.creds` file's armour,
 * an nkey seed, a NATS JWT, a PEM private key. Every format scans its documents with this (NATS:
 * every bundled file; Benzene and DASP: each document they read), because a document's strings
 * reach the generated module, and a secret there ships with the application.
 *
 * Two readings of a document are scanned, because each catches what the other cannot:
 * - every decoded string, keys included (`decodedCredential`): what the module carries. YAML
 *   escapes (`\x53`, `\u0053`, `\U00000053`), JSON escapes (`\u0053`), a double-quoted line
 *   continuation and the folding of multi-line scalars are undone by the parser, so a seed written
 *   `"\x53UAB..."` is found in the value `SUAB...`.
 * - the raw text (`findCredential` on it): what the file carries, comments included (a YAML
 *   comment never reaches a value, but a secret in it is still shipped in the bundle).
 * In both, a seed may be broken by whitespace that holds a line break (a folded scalar turns the
 * break into a space, a literal one keeps it, the raw text of a plain or quoted multi-line scalar
 * has the break and the next line's indentation, a double-quoted continuation a `\` before it):
 * base32 pieces joined across such breaks are a seed when the 58 characters carry a valid nkey
 * CRC-16, which prose practically never does (1 in 65,536).
 *
 * Complexity: O(n) in the text and in the decoded strings (each distinct string scanned once; YAML
 * aliases are limited in number and expansion). The markers are `indexOf` searches (on the text,
 * and on the text without whitespace when two regular expressions say one may be there); a seed
 * is looked for only from a base32 run that starts with `S` (found with `indexOf`), each run from
 * there walked once; runs separated by breaks (at most BREAK_LIMIT characters) are chained, and a
 * chain is searched for a joined seed with two pointers (linear in its runs; a checksum of 58
 * characters only where whole runs add up to exactly 58 from an `S`).
 */
import { joinPointer } from '../runtime/shared/json-pointer.js'

/** Fixed text that only secrets carry. */
const MARKERS: ReadonlyArray<[marker: string, kind: string]> = [
  ['-----BEGIN NATS USER JWT-----', 'a NATS credentials file (user JWT)'],
  ['NKEY SEED-----', 'a NATS credentials file (nkey seed)'],
  ['PRIVATE KEY-----', 'a PEM private key'],
  // base64url of {"typ":"JWT","alg":"ed25519-nkey"}: the header of every NATS operator, account and user JWT.
  ['eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ', 'a NATS JWT'],
]
/** The markers as they read once whitespace is taken out (a marker folded over two lines). */
const COMPACT_MARKERS = MARKERS.map(([marker, kind]) => [marker.replace(/\s+/g, ''), kind] as const)

/** An nkey seed: `S`, the key type (user, account, operator, server, cluster, curve), 56 more base32 characters. */
const SEED_LENGTH = 58
const SEED_TYPES = new Set(['U', 'A', 'O', 'N', 'C', 'X'])
const isBase32 = (c: number) => (c >= 65 && c <= 90) /* A-Z */ || (c >= 50 && c <= 55) /* 2-7 */
/** The longest break (whitespace, or `\` and a line break, with indentation) a joined seed may span. */
const BREAK_LIMIT = 256
/** The fewest characters any secret here takes (the shortest marker; a seed takes 58). */
const SHORTEST_SECRET = Math.min(SEED_LENGTH, ...MARKERS.map(([marker]) => marker.replace(/\s+/g, '').length))

export interface FoundCredential {
  /** What it looks like, for the message. */
  kind: string
  /** UTF-16 offset of its first character. */
  offset: number
}

/**
 * Necessary for a marker to appear once whitespace is taken out: five dashes with only whitespace
 * between them (the armour markers), or the JWT marker's `J0eXA`. Without either, the compact text
 * (a copy of the whole text) is not made: most long texts have whitespace (bench/: a large
 * document's raw text was copied for nothing on every compile).
 */
const COMPACT_DASHES = /-\s*-\s*-\s*-\s*-/
const COMPACT_JWT = /J\s*0\s*e\s*X\s*A/

/** The first credential-looking text in `text`, or undefined. */
export function findCredential(text: string): FoundCredential | undefined {
  // Shorter than the shortest marker and than a seed: nothing to find (most keys and values).
  if (text.length < SHORTEST_SECRET) return undefined
  let found: FoundCredential | undefined
  const take = (offset: number, kind: string) => {
    if (offset >= 0 && (found === undefined || offset < found.offset)) found = { kind, offset }
  }
  // Every marker holds a `-` or a `J`, whitespace taken out or not: most strings have neither.
  if (text.includes('-') || text.includes('J')) {
    for (const [marker, kind] of MARKERS) take(text.indexOf(marker), kind)
    if (found === undefined && /\s/.test(text) && (COMPACT_DASHES.test(text) || COMPACT_JWT.test(text))) {
      // A marker broken by whitespace: found in the text without it (the offset is then the text's start).
      const compact = text.replace(/\s+/g, '')
      for (const [marker, kind] of COMPACT_MARKERS) if (compact.includes(marker)) take(0, kind)
    }
  }
  // Fewer characters than a seed: no seed, contiguous or joined (its runs add up to 58).
  if (text.length < SEED_LENGTH) return found
  // Walk base32 runs; a run is a seed exactly when it is 58 long and starts with S and a key type.
  // Runs separated by breaks form a chain, where a joined seed is looked for (Chain). Every seed
  // starts at a run that starts with `S`, so a chain is only started at such a run: the text up to
  // the next one is skipped with a native search (bench/: this scan walked every character of a
  // large document in JavaScript on every compile), and a chain ends at the first gap that is no
  // break. Runs before a chain's first `S` run could only head windows that are no seed.
  const chain = CHAIN.reset(text)
  for (let i = nextSRun(text, 0); i !== -1 && (found === undefined || i < found.offset);) {
    let end = i
    while (end < text.length && isBase32(text.charCodeAt(end))) end++
    if (end - i === SEED_LENGTH && text.charCodeAt(i) === 83 /* S */ && SEED_TYPES.has(text[i + 1]!)) {
      take(i, 'an nkey seed')
      return found
    }
    chain.add(i, end)
    if (chain.found !== undefined) {
      take(chain.found, 'an nkey seed')
      return found
    }
    const next = breakEnd(text, end)
    if (next !== -1) i = next
    else {
      chain.clear()
      i = nextSRun(text, end)
    }
  }
  return found
}

/** The next offset at or after `from` where a base32 run starts with `S`, or -1. */
function nextSRun(text: string, from: number): number {
  for (let at = text.indexOf('S', from); at !== -1; at = text.indexOf('S', at + 1)) if (at === 0 || !isBase32(text.charCodeAt(at - 1))) return at
  return -1
}

/**
 * Where the next base32 run starts when only a break separates it from a run ending at `end`
 * (whitespace, or `\` then a line break and whitespace; at most BREAK_LIMIT characters); -1 when
 * anything else comes first (the chain ends there).
 */
function breakEnd(text: string, end: number): number {
  let at = end
  if (text.charCodeAt(at) === 92 /* \ */) {
    const next = text.charCodeAt(at + 1)
    if (next !== 10 && next !== 13) return -1
    at++
  }
  for (; at < text.length && at - end <= BREAK_LIMIT; at++) {
    const c = text.charCodeAt(at)
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break
  }
  return at > end && at - end <= BREAK_LIMIT && at < text.length && isBase32(text.charCodeAt(at)) ? at : -1
}

/**
 * The last runs of a chain of base32 runs separated by breaks, where a seed broken over lines may
 * be: a window of whole runs adding up to at most 58 characters (so at most 58 runs, in a ring).
 * A seed of two or more runs ends at some run j and starts at the earliest run k whose sum up to j
 * is at most 58 (sums shrink as k grows), so one check per added run finds every one, in text
 * order. O(1) per run, plus O(58) for a candidate (a sum of exactly 58 from `S` and a key type).
 */
class Chain {
  private readonly starts = new Int32Array(64)
  private readonly ends = new Int32Array(64)
  private head = 0
  private count = 0
  private sum = 0
  private text = ''
  /** Where the chain's first seed starts, once found. */
  found: number | undefined

  /** Empty, for a scan of `text`. */
  reset(text: string): this {
    this.text = text
    this.found = undefined
    this.clear()
    return this
  }
  clear(): void {
    this.head = this.count = this.sum = 0
  }
  add(start: number, end: number): void {
    const slot = (this.head + this.count) & 63
    this.starts[slot] = start
    this.ends[slot] = end
    this.count++
    this.sum += end - start
    while (this.sum > SEED_LENGTH) {
      this.sum -= this.ends[this.head]! - this.starts[this.head]!
      this.head = (this.head + 1) & 63
      this.count--
    }
    if (this.found === undefined && this.sum === SEED_LENGTH && this.count > 1 && this.candidate()) this.found = this.starts[this.head]
  }

  /** Whether the runs in the window read together are a seed with a valid checksum. */
  private candidate(): boolean {
    let seed = ''
    for (let r = 0; r < this.count && seed.length < 2; r++) {
      const slot = (this.head + r) & 63
      seed += this.text.slice(this.starts[slot], this.ends[slot])
    }
    if (seed[0] !== 'S' || !SEED_TYPES.has(seed[1]!)) return false
    seed = ''
    for (let r = 0; r < this.count; r++) {
      const slot = (this.head + r) & 63
      seed += this.text.slice(this.starts[slot], this.ends[slot])
    }
    return validSeedChecksum(seed)
  }
}

/** One chain for every scan (a scan runs to its end before another starts): no two typed arrays per string scanned. */
const CHAIN = new Chain()

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

/** An nkey seed's bytes end with the CRC-16/XMODEM of the bytes before them, little-endian (nkeys' encoding). */
function validSeedChecksum(seed: string): boolean {
  const bytes: number[] = []
  let buffer = 0
  let bits = 0
  for (const c of seed) {
    buffer = (buffer << 5) | BASE32.indexOf(c)
    bits += 5
    if (bits >= 8) {
      bits -= 8
      bytes.push((buffer >> bits) & 0xff)
    }
  }
  if (bytes.length < 3) return false
  const body = bytes.slice(0, -2)
  let crc = 0
  for (const byte of body) {
    crc ^= byte << 8
    for (let k = 0; k < 8; k++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
  }
  return bytes[bytes.length - 2] === (crc & 0xff) && bytes[bytes.length - 1] === crc >> 8
}

/** 1-based line of an offset (for a message about a file that is not parsed). */
export function lineOf(text: string, offset: number): number {
  let line = 1
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++
  return line
}

/**
 * The first decoded string of a parsed document (a value, or a key: then the pointer is its
 * member's) that holds a credential, in document order. Iterative: no recursion on input; each
 * distinct string is scanned once however often aliases repeat it.
 */
export function decodedCredential(value: unknown): { kind: string; pointer: string } | undefined {
  const scanned = new Map<string, string | undefined>()
  const kindIn = (text: string) => {
    if (text.length < SHORTEST_SECRET) return undefined
    // A short string costs less to scan than to look up: only those that could hold a seed are kept.
    if (text.length < SEED_LENGTH) return findCredential(text)?.kind
    if (!scanned.has(text)) scanned.set(text, findCredential(text)?.kind)
    return scanned.get(text)
  }
  // Almost every document holds none: a first walk only asks whether any string does, without
  // the frames the pointer needs (bench/: one object per node of a large document, on every
  // compile); the walk below, in document order, runs only when one does.
  if (!holdsCredential(value, kindIn)) return undefined
  // Pointers are made only for the string that holds a secret: a frame knows its parent and key.
  interface Frame {
    readonly node: unknown
    readonly parent: Frame | undefined
    readonly key: string
  }
  const pointerOf = (frame: Frame): string => {
    const keys: string[] = []
    for (let at: Frame | undefined = frame; at?.parent; at = at.parent) keys.push(at.key)
    return keys.reverse().reduce((pointer, key) => joinPointer(pointer, key), '')
  }
  const stack: Frame[] = [{ node: value, parent: undefined, key: '' }]
  while (stack.length > 0) {
    const frame = stack.pop()!
    const node = frame.node
    if (typeof node === 'string') {
      const kind = kindIn(node)
      if (kind) return { kind, pointer: pointerOf(frame) }
    } else if (node !== null && typeof node === 'object') {
      if (Array.isArray(node)) {
        for (let i = node.length - 1; i >= 0; i--) stack.push({ node: node[i], parent: frame, key: String(i) })
      } else {
        const keys = Object.keys(node)
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i]!
          const member: Frame = { node: (node as Record<string, unknown>)[key], parent: frame, key }
          // The key is scanned where its member is visited: pushed as a string standing for the member.
          stack.push(member)
          if (key.length >= SHORTEST_SECRET) stack.push({ node: key, parent: frame, key })
        }
      }
    }
  }
  return undefined
}

/** Whether any string of `value`, or any key, holds a credential (`kindIn`); in no particular order. Iterative. */
function holdsCredential(value: unknown, kindIn: (text: string) => string | undefined): boolean {
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const node = stack.pop()
    if (typeof node === 'string') {
      if (node.length >= SHORTEST_SECRET && kindIn(node)) return true
    } else if (node !== null && typeof node === 'object') {
      if (Array.isArray(node)) {
        for (let i = 0; i < node.length; i++) stack.push(node[i])
      } else {
        // for-in over own names: no array of keys per object.
        for (const key in node) {
          if (!Object.hasOwn(node, key)) continue
          if (key.length >= SHORTEST_SECRET && kindIn(key)) return true
          stack.push((node as Record<string, unknown>)[key])
        }
      }
    }
  }
  return false
}

/** Where a document carries a credential: the decoded value's pointer, or (only the text shows it: a comment) '' and the text offset. */
export interface CredentialSite {
  kind: string
  pointer: string
  /** Set when only the raw text carries it. */
  offset?: number
}

/** Scans a parsed document's decoded strings, then its raw text (what only the text has: comments). */
export function credentialIn(source: { text: string; value: unknown }): CredentialSite | undefined {
  const decoded = source.value === undefined ? undefined : decodedCredential(source.value)
  if (decoded) return decoded
  const raw = findCredential(source.text)
  return raw && { kind: raw.kind, pointer: '', offset: raw.offset }
}
