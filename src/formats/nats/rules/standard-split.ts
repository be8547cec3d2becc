import { knownSites } from '../../../core/json-refs.js'

/**
 * The AsyncAPI 3.1.0 schema cut to what a NATS contract reaches, for the first-error check every
 * valid document meets (scripts/precompile-asyncapi.mjs compiles it when the package is built).
 *
 * Most of the official schema's compiled code checks what a NATS contract does not hold: the
 * binding objects of the other protocols (Kafka, AMQP, SQS, ...) and message schemas in the
 * OpenAPI, Avro or JSON Schema draft-07 formats. The cut schema keeps every member and every
 * keyword but those subschemas, which become `{}` (anything), so a document that holds none of
 * them meets exactly the checks the full schema makes, in the same order: the same verdict and the
 * same first error. `needsFullSchema` tells a document that holds one of them (a member named for
 * a cut protocol in any bindings object, a `schemaFormat` of a cut format anywhere), which the
 * full schema checks instead. Both tests look further than the schema does (any depth, any
 * position), so they can only send a document to the full schema needlessly, never the other way.
 *
 * `withoutAnnotations` drops what no validator reads (descriptions, titles, examples, comments):
 * ajv's standalone code carries each schema it checks as a constant, and these were most of it.
 */

type Schema = Record<string, unknown>

/** What the cut removed, the data `needsFullSchema` reads (written into the built validator). */
export interface StandardCut {
  /** Members of the bindings objects whose schemas were cut (every protocol but NATS). */
  readonly protocols: readonly string[]
  /** `schemaFormat` values whose message-schema check was cut. */
  readonly schemaFormats: readonly string[]
}

const BINDINGS_OBJECTS = ['serverBindingsObject', 'channelBindingsObject', 'operationBindingsObject', 'messageBindingsObject']
const KEPT_PROTOCOL = 'nats'
const ASYNCAPI_SCHEMA_REF = '#/definitions/schema'

const isSchemaObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value)

/** A member of `schema` that must be an object; throws naming it when the schema is not shaped as expected. */
function member(schema: Schema, path: string, ...keys: Array<string | number>): Schema | Schema[] {
  let at: unknown = schema
  for (const key of keys) at = (at as Record<string | number, unknown> | undefined)?.[key]
  if (typeof at !== 'object' || at === null) throw new Error(`the AsyncAPI schema has no ${path}/${keys.join('/')}: the NATS cut needs updating`)
  return at as Schema | Schema[]
}

/**
 * The cut of the official AsyncAPI 3.1.0 schema (not changed; a copy is returned) and what was cut.
 * Throws when the schema is not shaped as this expects (another @asyncapi/specs), so a build
 * never ships a cut that silently checks less.
 */
export function natsStandardSchema(official: object): { schema: Schema; cut: StandardCut } {
  const schema = structuredClone(official) as Schema
  const definitions = member(schema, '#', 'definitions') as Schema
  const protocols = new Set<string>()
  for (const name of BINDINGS_OBJECTS) {
    const properties = member(definitions, '#/definitions', name, 'properties') as Schema
    if (!(KEPT_PROTOCOL in properties)) throw new Error(`the AsyncAPI schema's ${name} has no ${KEPT_PROTOCOL} member: the NATS cut needs updating`)
    for (const protocol of Object.keys(properties))
      if (protocol !== KEPT_PROTOCOL) {
        properties[protocol] = {}
        protocols.add(protocol)
      }
  }
  const schemaFormats = new Set<string>()
  const branches = member(definitions, '#/definitions', 'multiFormatSchema', 'else', 'allOf') as Schema[]
  for (const branch of branches) {
    const formats = (branch.if as { properties?: { schemaFormat?: { enum?: unknown } } } | undefined)?.properties?.schemaFormat?.enum
    // A branch that is not one schema format's (the default, when no schemaFormat is given) stays.
    if (!Array.isArray(formats)) continue
    const checked = (branch.then as { properties?: { schema?: unknown } } | undefined)?.properties?.schema
    // The AsyncAPI Schema Object's own formats stay: a NATS contract's payloads are written in them.
    if (isSchemaObject(checked) && checked.$ref === ASYNCAPI_SCHEMA_REF) continue
    if (!formats.every((format) => typeof format === 'string'))
      throw new Error('the AsyncAPI schema names a schemaFormat that is not a string: the NATS cut needs updating')
    branch.then = {}
    for (const format of formats as string[]) schemaFormats.add(format)
  }
  if (protocols.size === 0 || schemaFormats.size === 0) throw new Error('the NATS cut of the AsyncAPI schema cut nothing: it needs updating')
  return { schema, cut: { protocols: [...protocols].sort(), schemaFormats: [...schemaFormats].sort() } }
}

const BINDINGS_MAP = /^(?:server|channel|operation|message)Bindings$/

/**
 * Whether `doc` holds something the cut schema does not check: a member named for a cut protocol
 * in an object under a `bindings` member or in a `components` bindings map (at any depth, in any
 * position), or a cut `schemaFormat` in any object. O(document): each value visited once (a value
 * reached twice, as YAML aliases make, is not walked again).
 */
export function needsFullSchema(doc: unknown, cut: StandardCut): boolean {
  // The document's one walk (json-refs.ts) already collected both when loading asked for its
  // references: a second walk of the whole document was a twentieth of a NATS compile (bench/).
  const known = isSchemaObject(doc) ? knownSites(doc) : undefined
  if (known) return cut.protocols.some((p) => known.bindingMembers.has(p)) || cut.schemaFormats.some((f) => known.schemaFormats.has(f))
  const protocols = new Set(cut.protocols)
  const schemaFormats = new Set(cut.schemaFormats)
  const seen = new Set<object>()
  const holdsCutProtocol = (value: unknown): boolean => isSchemaObject(value) && Object.keys(value).some((key) => protocols.has(key))
  /** `under`: the member name `value` was reached by. */
  const stack: Array<{ value: unknown; under: string | undefined; inBindingsMap: boolean }> = [{ value: doc, under: undefined, inBindingsMap: false }]
  while (stack.length > 0) {
    const { value, under, inBindingsMap } = stack.pop()!
    if (typeof value !== 'object' || value === null || seen.has(value)) continue
    seen.add(value)
    if (Array.isArray(value)) {
      for (const item of value) stack.push({ value: item, under: undefined, inBindingsMap: false })
      continue
    }
    const record = value as Record<string, unknown>
    if ((under === 'bindings' || inBindingsMap) && holdsCutProtocol(record)) return true
    const format = Object.hasOwn(record, 'schemaFormat') ? record.schemaFormat : undefined
    if (typeof format === 'string' && schemaFormats.has(format)) return true
    const map = under !== undefined && BINDINGS_MAP.test(under)
    for (const key of Object.keys(record)) stack.push({ value: record[key], under: key, inBindingsMap: map })
  }
  return false
}

const ANNOTATIONS = new Set(['description', 'title', 'examples', '$comment'])
/** Keywords whose value is a map of names to schemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', 'dependencies'])
/** Keywords whose value is a schema or a list of schemas. */
const SCHEMA_VALUES = new Set([
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'items',
  'additionalItems',
  'additionalProperties',
  'contains',
  'propertyNames',
])

/**
 * `schema` without its annotations, walked through the keywords that hold schemas only: a member
 * named `description` in `properties`, or any value of `enum`, `const` or `default`, is data and
 * kept. A keyword this does not know is kept whole, annotations and all (only larger code).
 */
export function withoutAnnotations(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutAnnotations)
  if (!isSchemaObject(schema)) return schema
  const out: Schema = {}
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) continue
    if (SCHEMA_MAPS.has(key) && isSchemaObject(value))
      // `dependencies` maps a name to a schema or to a list of names: a list stays as it is.
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, Array.isArray(sub) ? sub : withoutAnnotations(sub)]))
    else if (SCHEMA_VALUES.has(key)) out[key] = withoutAnnotations(value)
    else out[key] = value
  }
  return out
}
