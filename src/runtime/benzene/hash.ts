/**
 * The Benzene contract hash (Contract Document §6.2): `"sha256:" + lowercase-hex(sha256(JCS(
 * normalizeProjection(projection))))`. One writer of the hash input, shared by the compiler (Node's digest,
 * `hash-node.ts`) and `checkDrift` in browsers (Web Crypto, below), so the two can never disagree.
 */
import canonicalize from 'canonicalize'
import { isObject } from '../shared/json-value.js'
import { sortKeys } from '../shared/sort-keys.js'
import { normalizeProjection, type Projection } from './projection.js'

/** `canonicalize` with the cycle guard it would otherwise allocate on every call (a Set per key and leaf). */
const serialize = canonicalize as unknown as (value: unknown, seen: Set<object>) => string | undefined
const NO_CYCLES = new Set<object>()

/** A UTF-16 surrogate: only a string holding one can be a lone surrogate, which JCS refuses. */
const SURROGATE = /[\uD800-\uDFFF]/

/**
 * RFC 8785 text of a leaf (a string, a number, a literal) or a key. JCS writes strings and finite
 * numbers exactly as `JSON.stringify` does; what it refuses (a lone surrogate, NaN, an infinity) is
 * left to `canonicalize`, which owns those errors. The common leaves skip its per-call checks, which
 * were a third of a 1,000-topic contract's hashing (bench/).
 */
function leaf(value: unknown): string {
  if (typeof value === 'string') {
    if (!SURROGATE.test(value)) return JSON.stringify(value)
  } else if (typeof value === 'number') {
    if (Number.isFinite(value)) return JSON.stringify(value)
  } else if (typeof value === 'boolean') return value ? 'true' : 'false'
  else if (value === null) return 'null'
  const text = serialize(value, NO_CYCLES)
  if (text === undefined) throw new Error('canonicalize returned nothing for a contract value')
  return text
}

/**
 * RFC 8785 text of a JSON value (parsed contract data: no cycles, no toJSON, no undefined in
 * arrays). Leaves are written by `leaf` (`canonicalize`'s forms); objects and arrays are composed
 * here, keys in UTF-16 code-unit order as `canonicalize` orders them. Composing avoids the
 * library's per-call allocations, which were a fifth of a 1,000-topic compile's garbage (bench/).
 * The conformance cases and their independent Python computation pin the result.
 */
export function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return leaf(value)
  if (Array.isArray(value)) {
    let text = '['
    for (let i = 0; i < value.length; i++) text += (i === 0 ? '' : ',') + canonical(value[i])
    return text + ']'
  }
  let text = ''
  for (const k of sortKeys(Object.keys(value))) {
    const member = (value as Record<string, unknown>)[k]
    if (member === undefined) continue
    text += (text === '' ? '{' : ',') + leaf(k) + ':' + canonical(member)
  }
  return text === '' ? '{}' : text + '}'
}

/** Where the hash input goes: text as it is written, and each component schema whole (a digest may cache its bytes). */
export interface HashSink {
  text(text: string): void
  schema(schema: unknown): void
}

/** `{`, members in UTF-16 code-unit order of their keys, `}`, as `canonical` spells them. */
function writeObject(sink: HashSink, value: Record<string, unknown>, member: (key: string, value: unknown) => void): void {
  let first = true
  sink.text('{')
  for (const k of sortKeys(Object.keys(value))) {
    if (value[k] === undefined) continue
    sink.text(`${first ? '' : ','}${leaf(k)}:`)
    first = false
    member(k, value[k])
  }
  sink.text('}')
}

/**
 * Writes JCS(normalizeProjection(projection)) into `sink`. Topic-scoped projections share their component
 * schemas, so each schema goes to the sink whole (`schema`), where a digest can reuse its bytes
 * (bench/: this halves a 1,000-topic compile); everything else is canonicalized as it is.
 */
export function writeHashInput(projection: Projection, sink: HashSink): void {
  const doc = normalizeProjection(projection)
  writeObject(sink, doc, (key, value) => {
    if (key !== 'components' || !isObject(value)) return sink.text(canonical(value))
    writeObject(sink, value, (k, v) =>
      k === 'schemas' && isObject(v) ? writeObject(sink, v, (_name, schema) => sink.schema(schema)) : sink.text(canonical(v)),
    )
  })
}

/** The contract hash with Web Crypto (browsers, and any runtime with `crypto.subtle`). */
export async function contractHashWeb(projection: Projection): Promise<string> {
  let text = ''
  writeHashInput(projection, { text: (t) => (text += t), schema: (s) => (text += canonical(s)) })
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))
  return 'sha256:' + [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')
}
