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
 * names take strings; the members of an `allOf`, `anyOf` or `oneOf` are read the same way. What it
 * cannot write so (a `not` or a conditional, a reference into another file) is left as written, and a change the engine proves with a witness no map of strings stands for is read as
 * unknown (a warning), never as a break (headers.ts). Cost: once per headers schema and version in
 * a diff, one copy of the schema's root and of its members' schemas (one level: header values are
 * flat), and one object per token of its pointer.
 */
import { schemaAccepts } from '../../../core/diff/schema-diff.js'
import type { SchemaSide } from '../../../core/diff/schema-diff-types.js'
import { RESERVED_PREFIX } from '../../../runtime/nats/reserved-headers.js'
import { reservedHeaderNames } from '../reserved-header-names.js'
import { HEADER_NAME, sentAsGiven } from '../../../runtime/nats/header-text.js'
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
/** Combinators whose members a headers schema is read through (headerMap), and those it is not. */
const MEMBERS = ['allOf', 'anyOf', 'oneOf'] as const
const OPAQUE = ['not', 'if', 'then', 'else', '$ref'] as const
/** Members of members read so, at most (a hostile schema nests them without end). */
const MAX_MEMBER_DEPTH = 8

/** A combinator's member at its target when it is a local reference alone (as `followed` reads it), else as written. */
function memberTarget(doc: unknown, member: unknown): unknown {
  if (!isObject(member) || typeof member.$ref !== 'string' || Object.keys(member).length !== 1) return member
  const local = localPointer(member.$ref)
  const target = local === undefined ? undefined : followed(doc, local).node
  return target === undefined ? member : target
}

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

/** The headers schema `root` as a schema of maps of strings (see the module comment), the `Nats-` names `free` taking any string; `depth`: members of allOf, anyOf and oneOf read through. */
function headerMap(doc: unknown, root: unknown, free: readonly string[], depth = 0): unknown {
  if (!isObject(root) || OPAQUE.some((k) => Object.hasOwn(root, k))) return root
  const out: Record<string, unknown> = { ...root }
  // Each member of an allOf, anyOf or oneOf is a schema of the same map, read the same way (the
  // intersection, union or one-of of maps of strings is that of the members, each read so); its
  // local reference at its target. A `not` or a conditional is not (its complement is no map).
  for (const keyword of MEMBERS)
    if (Array.isArray(root[keyword]) && depth < MAX_MEMBER_DEPTH)
      out[keyword] = root[keyword].map((member: unknown) => headerMap(doc, memberTarget(doc, member), free, depth + 1))
  const { type } = root
  if (type === undefined || (Array.isArray(type) && type.includes('object'))) out.type = 'object'
  if (Object.hasOwn(root, 'properties')) out.properties = eachStringValues(doc, root.properties)
  // The `Nats-` names the other schema checks and this one does not: any string here.
  if (free.length > 0) out.properties = { ...(isObject(out.properties) ? out.properties : {}), ...Object.fromEntries(free.map((n) => [n, { type: 'string' }])) }
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

/** A headers side: the schema as the engine compares it, and the `Nats-` names it names (the client checks those, and leaves every other `Nats-` name out). */
export interface HeaderSide extends SchemaSide {
  readonly named: ReadonlySet<string>
  /**
   * Whether the reading as maps of strings is exact: no `not`, conditional or reference left in the
   * schema or a header's (what the engine then reads as written, over every JSON value).
   */
  readonly exact: boolean
}

/** Whether a schema read by headerMap holds nothing it left as written (see HeaderSide `exact`). */
function exactly(node: unknown, depth = 0): boolean {
  if (!isObject(node)) return true
  if (depth > MAX_MEMBER_DEPTH || OPAQUE.some((k) => Object.hasOwn(node, k))) return false
  for (const keyword of MEMBERS) if (Array.isArray(node[keyword]) && !node[keyword].every((m: unknown) => exactly(m, depth + 1))) return false
  const valueSchemas = [
    ...(isObject(node.properties) ? Object.values(node.properties) : []),
    ...(isObject(node.patternProperties) ? Object.values(node.patternProperties) : []),
    node.additionalProperties,
  ]
  return valueSchemas.every((schema) => !isObject(schema) || !COMBINATORS.some((k) => Object.hasOwn(schema, k)))
}

/**
 * The headers schema at `pointer` of version `v` as the engine should compare it: its local
 * `$ref`s followed to the schema, read as a schema of maps of strings. `pointer` undefined: no
 * headers schema, which takes any map of strings. `alsoNamed`: the `Nats-` names the schema it is
 * compared with names; those this one does not name take any string here (the client leaves them
 * out of what it checks), so the engine compares what each client checks.
 */
export function headerMapSide(v: Version, pointer: string | undefined, alsoNamed: Iterable<string> = []): HeaderSide {
  const named = namedHeaders(v, pointer)
  const free = [...new Set(alsoNamed)].filter((n) => !named.has(n)).sort()
  // Once per headers schema, version and names (Version.headerSides): a message's cover asks for its neighbours' many times.
  const key = `${pointer ?? ''}\u0000${free.join('\u0000')}`
  let side = v.headerSides.get(key)
  if (side === undefined) v.headerSides.set(key, (side = readAsHeaderMaps(v, pointer, named, free)))
  return side
}

/** The `Nats-` names the headers schema at `pointer` names (reserved-header-names.ts, as the generator gives them to the client); none without one. */
export function namedHeaders(v: Version, pointer: string | undefined): ReadonlySet<string> {
  if (pointer === undefined) return NONE
  let names = v.headerNames.get(pointer)
  if (names === undefined) {
    const doc = v.doc.value
    const schemas = isObject(doc) && isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {}
    v.headerNames.set(pointer, (names = new Set(reservedHeaderNames(followed(doc, pointer).node, schemas))))
  }
  return names
}

const NONE: ReadonlySet<string> = new Set()

/**
 * Whether the client of `side`'s schema accepts `headers`: the `Nats-` names the schema does not
 * name left out, the rest held to the schema by the engine's validator (undefined: not decided).
 */
export function acceptsHeaders(side: HeaderSide, headers: Record<string, string>): boolean | undefined {
  const checked = Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith(RESERVED_PREFIX) || side.named.has(name)))
  return schemaAccepts(side, checked)
}

function readAsHeaderMaps(v: Version, pointer: string | undefined, named: ReadonlySet<string>, free: readonly string[]): HeaderSide {
  const file = v.doc.file
  if (pointer === undefined) {
    const document = { headers: { type: 'object', additionalProperties: { type: 'string' } } }
    return { file, document, pointer: '/headers', resolve: () => undefined, named, exact: true }
  }
  const at = followed(v.doc.value, pointer)
  const written = v.doc.value
  const read = at.node === undefined ? undefined : headerMap(written, at.node, free)
  const document = read === undefined ? written : holding(written, at.pointer, read)
  return {
    exact: read !== undefined && exactly(read),
    file,
    document,
    pointer: at.pointer,
    resolve(ref) {
      const local = localPointer(ref)
      return local === undefined || valueAt(written, local) === undefined ? undefined : { file, document: written, pointer: local }
    },
    named,
  }
}

/**
 * A value as headers a peer can send: a map of header names (printable ASCII but the colon) to values
 * nats.js sends as given (no line break, no white space at either end), each value written as a
 * string (a JSON witness of the engine, `{"x": null}`, becomes `{"x": "null"}`) and made sendable
 * (`" a"` becomes `"a"`); undefined for a value that is no map or has a name no peer can send. The
 * caller checks it again against both schemas.
 */
export function asHeaderMap(value: unknown): Record<string, string> | undefined {
  if (!isObject(value)) return undefined
  const entries = Object.entries(value)
  if (!entries.every(([name]) => HEADER_NAME.test(name))) return undefined
  if (entries.every(([, v]) => typeof v === 'string' && sentAsGiven(v))) return value as Record<string, string>
  const sendable = (v: unknown) => {
    const text = typeof v === 'string' ? v : (JSON.stringify(v) ?? '')
    return sentAsGiven(text) ? text : text.replace(/[\r\n]/g, '').trim()
  }
  return Object.fromEntries(entries.map(([k, v]) => [k, sendable(v)]))
}
