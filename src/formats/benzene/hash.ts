import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'
import { sortKeys } from '../../core/emit.js'
import { normalize, type Projection } from './projection.js'

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
function canonical(value: unknown): string {
  if (value !== null && typeof value === 'object') {
    if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
    return objectText(value as Record<string, unknown>, (_key, member) => canonical(member))
  }
  const text = serialize(value, NO_CYCLES)
  if (text === undefined) throw new Error('canonicalize returned nothing for a contract value')
  return text
}

/**
 * The UTF-8 bytes of a component schema's canonical text, made once per schema object: a thousand
 * topic-scoped projections share their schemas, and hashing the shared bytes directly spares
 * building and re-encoding each projection's whole text (bench/).
 */
const schemaBytes = new WeakMap<object, Buffer>()

function bytesOfSchema(schema: unknown): Buffer {
  if (typeof schema !== 'object' || schema === null) return Buffer.from(canonical(schema), 'utf8')
  let bytes = schemaBytes.get(schema)
  if (bytes === undefined) schemaBytes.set(schema, (bytes = Buffer.from(canonical(schema), 'utf8')))
  return bytes
}

/** An object's RFC 8785 text from its members' texts: keys in UTF-16 code-unit order, as `canonicalize` sorts them. */
function objectText(value: Record<string, unknown>, member: (key: string, value: unknown) => string): string {
  let text = '{'
  for (const k of sortKeys(Object.keys(value))) {
    if (value[k] === undefined) continue
    text += `${text.length > 1 ? ',' : ''}${serialize(k, NO_CYCLES)!}:${member(k, value[k])}`
  }
  return text + '}'
}

/** Feeds a SHA-256 with text and ready-made bytes, text gathered between byte chunks. */
class HashWriter {
  private pending = ''
  private readonly hash = createHash('sha256')
  text(text: string): void {
    this.pending += text
  }
  bytes(bytes: Buffer): void {
    if (this.pending !== '') this.hash.update(this.pending, 'utf8')
    this.pending = ''
    this.hash.update(bytes)
  }
  /** `{`, members in UTF-16 code-unit order of their keys, `}`, as objectText spells them. */
  object(value: Record<string, unknown>, member: (key: string, value: unknown) => void): void {
    let first = true
    this.text('{')
    for (const k of sortKeys(Object.keys(value))) {
      if (value[k] === undefined) continue
      this.text(`${first ? '' : ','}${serialize(k, NO_CYCLES)!}:`)
      first = false
      member(k, value[k])
    }
    this.text('}')
  }
  digest(): string {
    if (this.pending !== '') this.hash.update(this.pending, 'utf8')
    return this.hash.digest('hex')
  }
}

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * JCS of a normalized document, hashed as it is written. A thousand topic-scoped projections share
 * their component schemas, so each schema's canonical bytes are made once (bench/: this halves a
 * 1,000-topic compile); everything else is canonicalized as it is. The conformance cases and their
 * independent Python computation pin the result.
 */
function hashDocument(doc: Record<string, unknown>): string {
  const out = new HashWriter()
  out.object(doc, (key, value) => {
    if (key !== 'components' || !isMap(value)) return out.text(canonical(value))
    out.object(value, (k, v) => (k === 'schemas' && isMap(v) ? out.object(v, (_name, schema) => out.bytes(bytesOfSchema(schema))) : out.text(canonical(v))))
  })
  return out.digest()
}

/** Seed 6.2: `"sha256:" + lowercase-hex(sha256(JCS(normalize(projection))))`. */
export function contractHash(projection: Projection): string {
  return 'sha256:' + hashDocument(normalize(projection))
}
