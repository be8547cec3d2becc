/**
 * A message's headers schema read in the only domain NATS headers have: a map of names to strings
 * (nats.js writes and reads each header value as a string; the client checks them so). The schema
 * engine compares JSON Schemas over every JSON value, so on headers it proved breaks no peer can
 * meet: `{x: {type: [string, integer]}}` narrowed to `{x: {type: string}}`, a property typed as a
 * string added to an open map, a headers schema added that accepts every map of strings: each was
 * `breaking`, with a witness such as `{"x": 0}` that no peer can send.
 *
 * So each side is compared as its schema intersected with that domain, written in the schema's own
 * terms where that is exact: the root is an object; each property's, pattern property's and
 * additional property's schema is a string's (its `type` narrowed to `string`, its `enum` and
 * `const` to their strings, a local `$ref` to its target read the same way), and an open map's
 * names take strings. What it cannot write so (a combinator, a reference into another file) is left
 * as written, and a change the engine proves with a witness no map of strings stands for is read as
 * unknown (a warning), never as a break (headers.ts). Cost: once per headers schema and version in
 * a diff, one copy of the schema's root and of its members' schemas (one level: header values are
 * flat), and one object per token of its pointer.
 */
import type { SchemaSide } from '../../../core/diff/schema-diff-types.js'
import { splitPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../document.js'
import type { Version } from './context.js'
import { localPointer, valueAt } from './payloads.js'

/** Local references followed from the headers schema's root, or from one member's schema, at most. */
const MAX_HOPS = 16

/** Where a chain of local `$ref`-only schemas from `pointer` ends (within MAX_HOPS), and the node there. */
function followed(doc: unknown, pointer: string): { pointer: string; node: unknown } {
  let node = valueAt(doc, pointer)
  for (let hops = 0; hops < MAX_HOPS; hops++) {
    if (!isObject(node) || typeof node.$ref !== 'string' || Object.keys(node).length !== 1) break
    const next = localPointer(node.$ref)
    if (next === undefined) break
    pointer = next
    node = valueAt(doc, pointer)
  }
  return { pointer, node }
}

const COMBINATORS = ['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', '$ref'] as const

/** A member's schema as a schema of its string values (see the module comment), or the schema as written where that cannot be said exactly. */
function stringValues(doc: unknown, schema: unknown): unknown {
  if (schema === true) return { type: 'string' }
  if (isObject(schema) && typeof schema.$ref === 'string' && Object.keys(schema).length === 1) {
    const local = localPointer(schema.$ref)
    const target = local === undefined ? undefined : followed(doc, local)
    // A member's local reference is read at its target (one level: the target is no reference itself).
    return target === undefined || target.node === undefined || (isObject(target.node) && Object.hasOwn(target.node, '$ref'))
      ? schema
      : stringValues(doc, target.node)
  }
  if (!isObject(schema) || COMBINATORS.some((k) => Object.hasOwn(schema, k))) return schema
  const out: Record<string, unknown> = { ...schema }
  const { type } = schema
  if (type === undefined) out.type = 'string'
  else if (type === 'string' || (Array.isArray(type) && type.includes('string'))) out.type = 'string'
  else return false
  if (Array.isArray(schema.enum)) {
    const strings = schema.enum.filter((v) => typeof v === 'string')
    if (strings.length === 0) return false
    out.enum = strings
  }
  if (Object.hasOwn(schema, 'const') && typeof schema.const !== 'string') return false
  return out
}

/** Each member schema of `map` (`properties`, `patternProperties`) read by `stringValues`. */
function eachStringValues(doc: unknown, map: unknown): unknown {
  if (!isObject(map)) return map
  return Object.fromEntries(Object.entries(map).map(([name, schema]) => [name, stringValues(doc, schema)]))
}

/** The headers schema `root` as a schema of maps of strings (see the module comment). */
function headerMap(doc: unknown, root: unknown): unknown {
  if (!isObject(root) || COMBINATORS.some((k) => Object.hasOwn(root, k))) return root
  const out: Record<string, unknown> = { ...root }
  const { type } = root
  if (type === undefined || (Array.isArray(type) && type.includes('object'))) out.type = 'object'
  if (Object.hasOwn(root, 'properties')) out.properties = eachStringValues(doc, root.properties)
  if (Object.hasOwn(root, 'patternProperties')) out.patternProperties = eachStringValues(doc, root.patternProperties)
  const extra = root.additionalProperties
  out.additionalProperties = extra === undefined ? { type: 'string' } : stringValues(doc, extra)
  return out
}

/**
 * A document holding `node` at `pointer` and nothing else but the path to it (and the original's
 * `$schema`, which says how keywords beside a `$ref` read): the engine reads the schema there, and
 * every reference through the side's `resolve`, in the document as written. Copying the document's
 * objects on the path instead copied every channel for each message's headers.
 */
function holding(doc: unknown, pointer: string, node: unknown): unknown {
  const tokens = splitPointer(pointer)
  if (tokens.length === 0) return node
  const root: Record<string, unknown> = isObject(doc) && typeof doc.$schema === 'string' ? { $schema: doc.$schema } : {}
  let at = root
  for (const token of tokens.slice(0, -1)) {
    const next: Record<string, unknown> = {}
    at[token] = next
    at = next
  }
  at[tokens[tokens.length - 1]!] = node
  return root
}

/**
 * The headers schema at `pointer` of version `v` as the engine should compare it: its local
 * `$ref`s followed to the schema, read as a schema of maps of strings. `pointer` undefined: no
 * headers schema, which takes any map of strings.
 */
export function headerMapSide(v: Version, pointer: string | undefined): SchemaSide {
  // Once per headers schema and version (Version.headerSides): a message's cover asks for its neighbours' many times.
  const key = pointer ?? ''
  let side = v.headerSides.get(key)
  if (side === undefined) v.headerSides.set(key, (side = readAsHeaderMaps(v, pointer)))
  return side
}

function readAsHeaderMaps(v: Version, pointer: string | undefined): SchemaSide {
  const file = v.doc.file
  if (pointer === undefined) {
    const document = { headers: { type: 'object', additionalProperties: { type: 'string' } } }
    return { file, document, pointer: '/headers', resolve: () => undefined }
  }
  const at = followed(v.doc.value, pointer)
  const written = v.doc.value
  const document = at.node === undefined ? written : holding(written, at.pointer, headerMap(written, at.node))
  return {
    file,
    document,
    pointer: at.pointer,
    resolve(ref) {
      const local = localPointer(ref)
      return local === undefined || valueAt(written, local) === undefined ? undefined : { file, document: written, pointer: local }
    },
  }
}

/**
 * A value as headers a peer can send: a map whose values are each written as a string (a JSON
 * witness of the engine, `{"x": null}`, becomes `{"x": "null"}`), or undefined for a value that is
 * no map. The caller checks it again against both schemas.
 */
export function asHeaderMap(value: unknown): Record<string, string> | undefined {
  if (!isObject(value)) return undefined
  const entries = Object.entries(value)
  if (entries.every(([, v]) => typeof v === 'string')) return value as Record<string, string>
  return Object.fromEntries(entries.map(([k, v]) => [k, typeof v === 'string' ? v : (JSON.stringify(v) ?? '')]))
}
