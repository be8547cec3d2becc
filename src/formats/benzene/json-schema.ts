import { sortedCopy, sortKeys } from '../../core/emit.js'
import { hasFlag, isObject, refTarget, type Schema } from '../../runtime/benzene/document.js'

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

/**
 * RFC 3339 §5.6 `full-date`, calendar-exact (§5.7): months 01-12, each month's own last day, and
 * 29 February only in leap years (divisible by 4, and centuries only when divisible by 400).
 * Bounded quantifiers and alternation only, so it runs as a native `RegExp` (core/pattern-safety).
 */
const MONTH_DAY = '(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))'
const LEAP_YEAR = '(?:\\d{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)'
const FULL_DATE = `(?:\\d{4}-${MONTH_DAY}|${LEAP_YEAR}-02-29)`
/** RFC 3339 §5.6 `full-time`: hours 00-23, minutes 00-59, seconds up to a leap second 60, a numeric offset or Z. */
const FULL_TIME = '(?:[01]\\d|2[0-3]):[0-5]\\d:(?:[0-5]\\d|60)(?:\\.\\d+)?(?:[Zz]|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)'

const FORMAT_PATTERNS: Record<string, string> = {
  'date-time': `^${FULL_DATE}[Tt]${FULL_TIME}$`,
  date: `^${FULL_DATE}$`,
  uuid: '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$',
  byte: '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$',
}
const sortedData = (value: unknown) => (value !== null && typeof value === 'object' ? sortedCopy(value) : value)
const ALTERNATIVES = ['oneOf', 'anyOf'] as const
const INT32 = { minimum: -2147483648, maximum: 2147483647 }
const COPIED = 'minimum maximum multipleOf minLength maxLength pattern minItems maxItems uniqueItems minProperties maxProperties'.split(' ')

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
    if (schema.format === 'int32')
      Object.assign(out, {
        minimum: Math.max(INT32.minimum, (out.minimum as number) ?? -Infinity),
        maximum: Math.min(INT32.maximum, (out.maximum as number) ?? Infinity),
      })
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
    const required = (schema.required as string[]).filter((name) => !hasFlag(properties[name], hidden))
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
  for (const member of members) {
    const part = ownPart(member)
    closed ||= part.closed
    for (const name of part.names) names.add(name)
    for (const ref of part.refs) {
      const merged = mergedOf(ctx.catalogue, ref)
      closed ||= merged.closed
      for (const name of merged.names) names.add(name)
    }
  }
  if (closed) {
    const properties = (out.properties ?? {}) as Record<string, unknown>
    out.properties = Object.fromEntries([
      ...sortKeys([...names])
        .filter((name) => !Object.hasOwn(properties, name))
        .map((name) => [name, true]),
      ...Object.entries(properties),
    ])
    out.additionalProperties = false
  }
}

/**
 * True when an allOf merge is closed: the schema or some member, followed through `$ref` and
 * nested `allOf`, says `additionalProperties: false`. Types and validators decide it the same way.
 */
export function closedMerge(schema: Schema, catalogue: Readonly<Record<string, Schema>>): boolean {
  if (schema.additionalProperties === false) return true
  if (!Array.isArray(schema.allOf)) return false
  for (const member of schema.allOf as unknown[]) {
    const part = ownPart(member)
    if (part.closed || part.refs.some((ref) => mergedOf(catalogue, ref).closed)) return true
  }
  return false
}

/** What an `allOf` member contributes to the closed merge: its property names, and whether it is closed. */
interface Merged {
  names: ReadonlySet<string>
  closed: boolean
}

/**
 * A schema's own part of the merge, through its inline `allOf` members: property names, whether
 * any is closed, and the component names it refers to (not followed). Iterative.
 */
function ownPart(root: unknown): { names: string[]; closed: boolean; refs: string[] } {
  const out = { names: [] as string[], closed: false, refs: [] as string[] }
  const stack: unknown[] = [root]
  while (stack.length > 0) {
    const member = stack.pop()
    if (!isObject(member)) continue
    const ref = refTarget(member.$ref)
    if (ref !== undefined) {
      out.refs.push(ref)
      continue
    }
    if (member.additionalProperties === false) out.closed = true
    if (isObject(member.properties)) for (const name of Object.keys(member.properties)) out.names.push(name)
    if (Array.isArray(member.allOf)) for (const sub of member.allOf) stack.push(sub)
  }
  return out
}

const mergedByCatalogue = new WeakMap<object, Map<string, Merged>>()

/**
 * The merge contribution of a named schema and, through `allOf`, of everything it extends: an
 * iterative depth-first walk that computes each name once (memoized per catalogue), so a
 * 1,600-long `allOf` chain is neither a deep recursion nor walked again for each of its links.
 * A name met again while still being walked (a cycle) contributes nothing there, as before, and
 * the names whose result depended on such a cut are not memoized.
 */
function mergedOf(catalogue: Readonly<Record<string, Schema>>, root: string): Merged {
  let memo = mergedByCatalogue.get(catalogue)
  if (!memo) mergedByCatalogue.set(catalogue, (memo = new Map()))
  const known = memo.get(root)
  if (known) return known
  interface Frame {
    name: string
    own: { names: string[]; closed: boolean; refs: string[] }
    next: number
    names: Set<string>
    closed: boolean
    cut: boolean
  }
  const open = new Map<string, Frame>()
  const frame = (name: string): Frame => {
    const own = ownPart(Object.hasOwn(catalogue, name) ? catalogue[name] : undefined)
    return { name, own, next: 0, names: new Set(own.names), closed: own.closed, cut: false }
  }
  const stack: Frame[] = [frame(root)]
  open.set(root, stack[0]!)
  let result: Merged | undefined
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!
    if (top.next < top.own.refs.length) {
      const child = top.own.refs[top.next++]!
      const done = memo.get(child)
      if (done) {
        top.closed ||= done.closed
        for (const n of done.names) top.names.add(n)
      } else if (open.has(child)) {
        // A cycle: every name still being walked above `child` misses what `child` will add.
        for (let i = stack.length - 1; i >= 0 && stack[i]!.name !== child; i--) stack[i]!.cut = true
      } else {
        const f = frame(child)
        open.set(child, f)
        stack.push(f)
      }
      continue
    }
    stack.pop()
    open.delete(top.name)
    const merged: Merged = { names: top.names, closed: top.closed }
    if (!top.cut) memo.set(top.name, merged)
    const parent = stack[stack.length - 1]
    if (parent) {
      parent.closed ||= merged.closed
      for (const n of merged.names) parent.names.add(n)
    } else result = merged
  }
  return result!
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
  // Round by round: each round converts, in the order names were first referenced, every name
  // with a variant not converted yet (that order fixes the output's bytes). Only the names
  // referenced or opened since the previous round can have one, so a round looks at those alone:
  // Map and Set iterators see entries added after they were made. Linear, where listing every
  // name each round was quadratic on a long chain (each round finds one more name).
  const done = new Set<string>()
  const keyNames = ctx.keys.keys()
  const openNames = ctx.open.values()
  const position = new Map<string, number>()
  let openTaken = 0
  for (let changed = true; changed;) {
    changed = false
    const fresh: string[] = []
    while (position.size < ctx.keys.size) {
      const name = keyNames.next().value!
      position.set(name, position.size)
      fresh.push(name)
    }
    // Most rounds open nothing new (a chain of references finds one name a round): then the round
    // is just the fresh names, with nothing allocated for the open ones.
    let round = fresh
    if (openTaken < ctx.open.size) {
      const freshSet = new Set(fresh)
      const reopened: string[] = []
      const unkeyed: string[] = []
      for (const end = ctx.open.size; openTaken < end; openTaken++) {
        const name = openNames.next().value!
        if (!position.has(name)) unkeyed.push(name)
        else if (!freshSet.has(name)) reopened.push(name)
      }
      reopened.sort((a, b) => position.get(a)! - position.get(b)!)
      round = [...reopened, ...fresh, ...unkeyed]
    }
    for (const name of round) {
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
