import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'
import { sortKeys } from '../../core/emit.js'
import { normalize, type Projection } from './projection.js'

/** Canonical text of each component schema object, computed once and shared by every projection that includes it. */
const schemaTexts = new WeakMap<object, string>()

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

function schemaText(schema: unknown): string {
  if (typeof schema !== 'object' || schema === null) return canonical(schema)
  let text = schemaTexts.get(schema)
  if (text === undefined) schemaTexts.set(schema, (text = canonical(schema)))
  return text
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

/**
 * JCS of a normalized document. A thousand topic-scoped projections share their component
 * schemas, so each schema's canonical text is made once (bench/: this halves a 1,000-topic
 * compile); everything else goes through `canonicalize` as it is. The conformance cases and their
 * independent Python computation pin the result.
 */
function documentText(doc: Record<string, unknown>): string {
  return objectText(doc, (key, value) => {
    if (key !== 'components' || typeof value !== 'object' || value === null || Array.isArray(value)) return canonical(value)
    return objectText(value as Record<string, unknown>, (k, v) =>
      k === 'schemas' && typeof v === 'object' && v !== null && !Array.isArray(v) ? objectText(v as Record<string, unknown>, (_name, schema) => schemaText(schema)) : canonical(v),
    )
  })
}

/** Seed 6.2: `"sha256:" + lowercase-hex(sha256(JCS(normalize(projection))))`. */
export function contractHash(projection: Projection): string {
  return 'sha256:' + createHash('sha256').update(documentText(normalize(projection)), 'utf8').digest('hex')
}
