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

/**
 * RFC 8785 text of a JSON value (parsed contract data: no cycles, no toJSON, no undefined in
 * arrays). Leaves (numbers, strings, literals) are serialized by `canonicalize`, which owns JCS's
 * number and string forms; objects and arrays are composed here, keys in UTF-16 code-unit order as
 * `canonicalize` orders them. Composing avoids the library's per-call allocations, which were a
 * fifth of a 1,000-topic compile's garbage (bench/). The conformance cases and their independent
 * Python computation pin the result.
 */
export function canonical(value: unknown): string {
  if (value !== null && typeof value === 'object') {
    if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
    let text = '{'
    for (const k of sortKeys(Object.keys(value))) {
      const member = (value as Record<string, unknown>)[k]
      if (member === undefined) continue
      text += `${text.length > 1 ? ',' : ''}${serialize(k, NO_CYCLES)!}:${canonical(member)}`
    }
    return text + '}'
  }
  const text = serialize(value, NO_CYCLES)
  if (text === undefined) throw new Error('canonicalize returned nothing for a contract value')
  return text
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
    sink.text(`${first ? '' : ','}${serialize(k, NO_CYCLES)!}:`)
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
