import { sortedCopy, sortKeys } from '../../core/emit.js'
import { isObject, type Schema } from './document.js'
import { refTarget } from './rules/refs.js'

/**
 * OpenAPI 3.0 Schema Objects -> JSON Schema draft-07 for the generated validators, for one
 * direction of travel:
 * - `nullable` becomes a `null` type (and enum member); the boolean `exclusiveMinimum/Maximum`
 *   of 3.0 becomes the numeric form;
 * - `readOnly` properties are not required in requests, `writeOnly` ones not in responses;
 * - `allOf` is merged as OpenAPI means it: `additionalProperties: false` on a member admits the
 *   properties of every other member (plain JSON Schema would reject them);
 * - a `discriminator` selects the one member its property names, so errors come from that member;
 * - the formats a service can rely on are checked (int32 range, int64 as decimal strings when
 *   asked, date-time, date, uuid, byte); others are documentation only;
 * - descriptions, examples and vendor keywords are dropped: nothing from them reaches the code.
 * Component schemas become `definitions/d<N>`, so no schema name ever becomes part of a URI.
 */
export type Direction = 'request' | 'response'

const FORMAT_PATTERNS: Record<string, string> = {
  'date-time': '^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?(?:[Zz]|[+-]\\d{2}:\\d{2})$',
  date: '^\\d{4}-\\d{2}-\\d{2}$',
  uuid: '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$',
  byte: '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$',
}
const sortedData = (value: unknown) => (value !== null && typeof value === 'object' ? sortedCopy(value) : value)
const ALTERNATIVES = ['oneOf', 'anyOf'] as const
const INT32 = { minimum: -2147483648, maximum: 2147483647 }
const COPIED = ['minimum', 'maximum', 'multipleOf', 'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties'] as const

export interface ConvertContext {
  catalogue: Readonly<Record<string, Schema>>
  direction: Direction
  int64: 'number' | 'string'
  /** The id of the document holding the definitions, e.g. `req`. */
  documentId: string
  /** Schema name -> definition key; filled as references are met. */
  keys: Map<string, string>
  /** Schema names whose "open" variant (no top-level `additionalProperties: false`) is needed. */
  open: Set<string>
  /** When set, every definition reference the converter writes is added here. */
  refs?: Set<string>
}

export function definitionKey(ctx: ConvertContext, name: string, open = false): string {
  let key = ctx.keys.get(name)
  if (key === undefined) ctx.keys.set(name, (key = `d${ctx.keys.size}`))
  if (open) ctx.open.add(name)
  return open ? `${key}open` : key
}

/**
 * Key order means nothing in a contract: every map the output depends on (properties, discriminator
 * mappings, object values in enum/const) is read in sorted key order, so the same contract with its
 * members reordered gives the same bytes. (The document is not copied with sorted keys first: on a
 * 1,000-topic contract that copy was a tenth of the compile, bench/.)
 */
export function convert(schema: unknown, ctx: ConvertContext, open = false): Record<string, unknown> | boolean {
  if (!isObject(schema)) return true
  const ref = refTarget(schema.$ref)
  if (ref !== undefined) {
    const target = `${ctx.documentId}#/definitions/${definitionKey(ctx, ref, open)}`
    ctx.refs?.add(target)
    return { $ref: target }
  }
  const out: Record<string, unknown> = {}
  const nullable = schema.nullable === true

  if (typeof schema.type === 'string') {
    let type = schema.type
    if (type === 'integer' && schema.format === 'int64' && ctx.int64 === 'string') {
      type = 'string'
      out.pattern = '^-?\\d+$'
    }
    out.type = nullable ? [type, 'null'] : type
  }
  // Values are data: object values get their keys sorted, like every map below (see convert's note).
  if (Array.isArray(schema.enum)) out.enum = nullable && !schema.enum.includes(null) ? [...schema.enum.map(sortedData), null] : schema.enum.map(sortedData)
  if ('const' in schema) out.const = sortedData(schema.const)
  for (const key of COPIED) if (key in schema) out[key] = schema[key]
  if (schema.exclusiveMinimum === true && typeof schema.minimum === 'number') {
    out.exclusiveMinimum = schema.minimum
    delete out.minimum
  }
  if (schema.exclusiveMaximum === true && typeof schema.maximum === 'number') {
    out.exclusiveMaximum = schema.maximum
    delete out.maximum
  }
  if (typeof schema.format === 'string') {
    if (schema.format === 'int32') Object.assign(out, { minimum: Math.max(INT32.minimum, (out.minimum as number) ?? -Infinity), maximum: Math.min(INT32.maximum, (out.maximum as number) ?? Infinity) })
    const pattern = FORMAT_PATTERNS[schema.format]
    if (pattern && schema.type === 'string' && out.pattern === undefined) out.pattern = pattern
  }
  if ('items' in schema) out.items = convert(schema.items, ctx)

  if (isObject(schema.properties)) {
    const properties = schema.properties
    const entries = sortKeys(Object.keys(properties)).map((name) => [name, convert(properties[name], ctx)] as const)
    // fromEntries defines own keys, so `__proto__` stays a property name. ajv skips a property of
    // that name, so it is checked as the one key matching a pattern instead.
    out.properties = Object.fromEntries(entries.filter(([name]) => name !== '__proto__'))
    const proto = entries.find(([name]) => name === '__proto__')
    if (proto) out.patternProperties = { '^__proto__$': proto[1] }
  }
  if (Array.isArray(schema.required)) {
    const properties = isObject(schema.properties) ? schema.properties : {}
    const hidden = ctx.direction === 'request' ? 'readOnly' : 'writeOnly'
    const required = (schema.required as string[]).filter((name) => !(isObject(properties[name]) && properties[name]![hidden] === true))
    if (required.length > 0) out.required = required
  }
  if (schema.additionalProperties === false && !open) out.additionalProperties = false
  else if (isObject(schema.additionalProperties)) out.additionalProperties = convert(schema.additionalProperties, ctx)

  if (Array.isArray(schema.allOf)) mergeAllOf(schema, out, ctx)
  const discriminator = discriminatorOf(schema)
  for (const key of ALTERNATIVES) {
    const list = schema[key]
    if (!Array.isArray(list)) continue
    if (discriminator) Object.assign(out, discriminate(discriminator, ctx))
    else out[key] = list.map((member) => convert(member, ctx))
  }
  if ('not' in schema) out.not = convert(schema.not, ctx)
  if (nullable && out.type === undefined && Object.keys(out).length > 0) return { anyOf: [{ type: 'null' }, out] }
  return out
}

/** allOf with OpenAPI's meaning: members are checked open, the merged object is checked closed. */
function mergeAllOf(schema: Schema, out: Record<string, unknown>, ctx: ConvertContext): void {
  const members = schema.allOf as unknown[]
  out.allOf = members.map((member) => convert(member, ctx, true))
  const names = new Set<string>(Object.keys(isObject(schema.properties) ? schema.properties : {}))
  let closed = schema.additionalProperties === false
  const seen = new Set<string>()
  const collect = (member: unknown): void => {
    if (!isObject(member)) return
    const ref = refTarget(member.$ref)
    if (ref !== undefined) {
      if (seen.has(ref)) return
      seen.add(ref)
      return collect(ctx.catalogue[ref])
    }
    if (member.additionalProperties === false) closed = true
    if (isObject(member.properties)) for (const name of Object.keys(member.properties)) names.add(name)
    if (Array.isArray(member.allOf)) member.allOf.forEach(collect)
  }
  members.forEach(collect)
  if (closed) {
    const properties = (out.properties ?? {}) as Record<string, unknown>
    out.properties = Object.fromEntries([...sortKeys([...names]).filter((name) => !Object.hasOwn(properties, name)).map((name) => [name, true]), ...Object.entries(properties)])
    out.additionalProperties = false
  }
}

export interface Discriminator {
  propertyName: string
  /** Discriminator value -> member schema name, in document order. */
  values: Array<[value: string, schemaName: string]>
}

/** The discriminator of a `oneOf`/`anyOf` schema: explicit `mapping` first, then each `$ref` member by its schema name. */
export function discriminatorOf(schema: Schema): Discriminator | undefined {
  const d = schema.discriminator
  if (!isObject(d) || typeof d.propertyName !== 'string') return undefined
  const members = (Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : []) as unknown[]
  const values: Array<[string, string]> = []
  const mapped = new Set<string>()
  if (isObject(d.mapping)) {
    for (const value of sortKeys(Object.keys(d.mapping))) {
      const target = d.mapping[value]
      const name = typeof target === 'string' ? (refTarget(target) ?? target) : undefined
      if (name !== undefined) {
        values.push([value, name])
        mapped.add(name)
      }
    }
  }
  for (const member of members) {
    const name = isObject(member) ? refTarget(member.$ref) : undefined
    if (name !== undefined && !mapped.has(name)) values.push([name, name])
  }
  return { propertyName: d.propertyName, values }
}

function reference(ctx: ConvertContext, name: string): string {
  const target = `${ctx.documentId}#/definitions/${definitionKey(ctx, name)}`
  ctx.refs?.add(target)
  return target
}

function discriminate(d: Discriminator, ctx: ConvertContext): Record<string, unknown> {
  return {
    type: 'object',
    required: [d.propertyName],
    properties: { [d.propertyName]: { enum: d.values.map(([value]) => value) } },
    allOf: d.values.map(([value, name]) => ({
      if: { properties: { [d.propertyName]: { const: value } } },
      then: { $ref: reference(ctx, name) },
    })),
  }
}

/**
 * The definitions document for one direction: every schema referenced so far, open variants
 * included. `refs`, when given, receives the references each definition makes, by key.
 */
export function definitionsDocument(ctx: ConvertContext, refs?: Map<string, ReadonlySet<string>>): Record<string, unknown> {
  const definitions: Record<string, unknown> = {}
  // Converting a definition can reference more schemas; keep going until nothing new appears.
  const done = new Set<string>()
  for (let changed = true; changed; ) {
    changed = false
    for (const name of [...ctx.keys.keys(), ...ctx.open]) {
      for (const open of ctx.open.has(name) ? [false, true] : [false]) {
        const key = definitionKey(ctx, name, open)
        if (done.has(key)) continue
        done.add(key)
        changed = true
        const made = new Set<string>()
        definitions[key] = convert(ctx.catalogue[name], refs ? { ...ctx, refs: made } : ctx, open)
        refs?.set(key, made)
      }
    }
  }
  return { $id: ctx.documentId, definitions }
}
