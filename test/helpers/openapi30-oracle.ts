/**
 * An independent reading of OpenAPI 3.0 Schema Objects, for checking generated validators against.
 *
 * Written from the OpenAPI 3.0.x text (Schema Object, Discriminator Object, Data Types) and from
 * what .NET producers (Swashbuckle, NSwag, ASP.NET Core's generator) mean by what they write, and
 * from nothing in `src/`. Each OpenAPI 3.0 schema is translated, for one direction of travel, into
 * a JSON Schema draft-07 schema that ajv then runs as it stands. The adjustments the dialect needs,
 * each with the reason for it:
 *
 * - Keywords: only those the Schema Object lists are read; anything else (`patternProperties`,
 *   `dependencies`, `const`, `if`, `contains`, `propertyNames`, `$id`, ...) is not part of the
 *   dialect and constrains nothing (Schema Object: the keywords "taken directly from" and "adjusted
 *   from" JSON Schema Wright draft 00 are a closed list).
 * - `$ref`: the reference alone; anything beside it is ignored (Reference Object: "This object
 *   cannot be extended with additional properties and any properties added SHALL be ignored").
 * - `nullable: true` admits `null` for the schema as a whole, also beside a `type` and a
 *   composition (`{type: object, oneOf: [X], nullable: true}` is `X | null`): OpenAPI 3.0.1, the
 *   dialect a Benzene Contract Document names (§1), says "Allows sending a null value for the
 *   defined schema", and that is what ASP.NET Core, NSwag and Swashbuckle mean by it (3.0.3's
 *   narrower wording, "other constraints ... may disallow null", would refuse every null such a
 *   member carries).
 * - `exclusiveMinimum` / `exclusiveMaximum` are booleans that make `minimum` / `maximum` exclusive
 *   (Schema Object, after Wright draft 00 §5.3 / §5.2).
 * - `readOnly` members are not required in requests, `writeOnly` members not in responses (Schema
 *   Object: "the required will take effect on the response only"; writeOnly the other way round).
 *   Sent anyway they are checked like any other member: readOnly "SHOULD NOT be sent as part of the
 *   request", a recommendation to the sender, not a rule that makes the payload invalid.
 * - `format` (Data Types): `int32` and `int64` are signed integer ranges (`int64` is compared on
 *   the double the JSON number reads as: 2^63 is in, as the double long.MaxValue reads as, and the
 *   next double above it, 2^63 + 2048, is out); `date` and
 *   `date-time` are RFC 3339 full-date / date-time, calendar-exact (RFC 3339 §5.6, §5.7: no 30
 *   February, a leap second `:60` allowed, `T` / `Z` in either case); `byte` is base64. Other
 *   formats (`double`, `float`, `uuid`, `time`, ...) are documentation: none of them is a rule the
 *   Data Types table gives a value to check against.
 * - `pattern` is an ECMA-262 regular expression without the Unicode flag (Schema Object: "This
 *   string SHOULD be a valid regular expression, according to the Ecma-262 Edition 5.1 regular
 *   expression dialect"), so `\d`, identity escapes and lookaheads mean what they mean in JavaScript.
 * - `allOf` is merged as OpenAPI means composition: the members' properties form one object, and a
 *   member with `additionalProperties: false` admits the properties the other members declare
 *   (Schema Object, "Composition and Inheritance": allOf "combines" definitions into one model;
 *   Swashbuckle and NSwag close every member of a hierarchy).
 * - Discriminator Object: the value of `propertyName` selects the schema that validates the
 *   payload, through `mapping` or by schema name ("the discriminator will be the name of the
 *   property that decides which schema definition validates the structure of the model"); a value
 *   that selects nothing fails ("If the discriminator value does not match an implicit or explicit
 *   mapping, no schema can be determined and validation SHOULD fail"). Mapping keys are strings,
 *   and an integer payload value is compared as its decimal string ("tooling MAY convert response
 *   values to strings for comparison"; ASP.NET Core maps `$type` by "0", "1" and sends `0`).
 *   Inline `oneOf` / `anyOf` members are never selected ("inline schemas will not be considered").
 * - A discriminator on a schema with no `oneOf` / `anyOf` that others extend through `allOf` (the
 *   specification's Pet / Cat / Dog) is a choice among those descendants where the schema is
 *   referenced; inside a descendant's `allOf` the reference means the parent's own definition
 *   (Schema Object, "Models with Polymorphism Support": Cat is `allOf: [Pet, {...}]`).
 * - A `oneOf` / `anyOf` without its own discriminator whose members are all references into one
 *   such hierarchy (Swashbuckle and NSwag write a request body `oneOf: [Animal, Cat, Dog]`) is
 *   decided by the hierarchy's discriminator: the value selects one member (or a descendant of
 *   one), which alone validates the payload. The parent and the child it selects describe the same
 *   payload, so counting them as two matches of `oneOf` would refuse every child.
 */
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const Ajv = require('ajv') as typeof import('ajv').default

export type Direction = 'request' | 'response'
type Oas = Record<string, any>
type Json = Record<string, any>

const PREFIX = '#/components/schemas/'

/** A schema name from `#/components/schemas/<name>` (a percent-encoded JSON Pointer token) or a bare name. */
function refName(ref: string): string {
  const token = ref.startsWith(PREFIX) ? ref.slice(PREFIX.length) : ref
  let decoded = token
  try {
    decoded = decodeURIComponent(token)
  } catch {
    // Not a valid percent-encoding: read as written.
  }
  return decoded.replace(/~1/g, '/').replace(/~0/g, '~')
}

const isObject = (v: unknown): v is Oas => typeof v === 'object' && v !== null && !Array.isArray(v)
const isRef = (s: unknown): s is { $ref: string } => isObject(s) && typeof s.$ref === 'string'

/** RFC 3339 full-date, with the calendar. */
function isDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  return m !== null && validDay(Number(m[1]), Number(m[2]), Number(m[3]))
}

function validDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!
  return day <= days
}

/** RFC 3339 date-time: full-date "T" partial-time time-offset, `T` and `Z` in either case (§5.6 NOTE). */
function isDateTime(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/.exec(text)
  if (!m || !validDay(Number(m[1]), Number(m[2]), Number(m[3]))) return false
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 60) return false
  return m[9] === undefined || (Number(m[9]) <= 23 && Number(m[10]) <= 59)
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** The formats the Data Types table gives a checkable meaning, by the JSON type they describe. */
function checkFormat(format: string, value: unknown): boolean {
  if (typeof value === 'number') {
    if (format === 'int32') return Number.isInteger(value) && value >= -(2 ** 31) && value <= 2 ** 31 - 1
    // 2^63 itself is in: it is the double JSON.parse makes of long.MaxValue, 9223372036854775807.
    if (format === 'int64') return Number.isInteger(value) && value >= -(2 ** 63) && value <= 2 ** 63
    return true
  }
  if (typeof value === 'string') {
    if (format === 'date') return isDate(value)
    if (format === 'date-time') return isDateTime(value)
    if (format === 'byte') return BASE64.test(value)
  }
  return true
}

/** The JSON values a discriminator mapping key matches: the key, and the integer it spells. */
function keyValues(key: string): unknown[] {
  return /^-?(0|[1-9]\d*)$/.test(key) && Number.isSafeInteger(Number(key)) ? [key, Number(key)] : [key]
}

/** An OpenAPI 3.0 document's schema catalogue, read for validation. */
export class OpenApi30Oracle {
  private readonly schemas: Record<string, Oas>
  private readonly definitions: Record<string, Json> = {}
  private readonly keys = new Map<string, string>()
  private readonly children = new Map<string, string[]>()
  private readonly ajv = new Ajv({
    strict: false,
    unicodeRegExp: false,
    validateFormats: false,
    allErrors: false,
    validateSchema: false,
    code: { optimize: false },
  })

  constructor(schemas: Record<string, Oas>) {
    this.schemas = schemas
    for (const [name, schema] of Object.entries(schemas)) {
      for (const member of Array.isArray(schema.allOf) ? schema.allOf : []) {
        if (!isRef(member)) continue
        const parent = refName(member.$ref)
        this.children.set(parent, [...(this.children.get(parent) ?? []), name])
      }
    }
    this.ajv.addKeyword({ keyword: 'x-oas-format', schemaType: 'string', validate: (format: string, value: unknown) => checkFormat(format, value) })
  }

  /** A validator for `schema` (a payload schema of the document) travelling in `direction`. */
  validator(schema: unknown, direction: Direction): (value: unknown) => boolean {
    const root = this.translate(schema, direction, false)
    const validate = this.ajv.compile({ ...root, definitions: { ...this.definitions } })
    return (value) => validate(value) === true
  }

  // ---- The hierarchy ----

  /** A discriminator on a schema that chooses by `allOf` descent, not by its own `oneOf`/`anyOf`. */
  private isParent(name: string): boolean {
    const s = this.schemas[name]
    return isObject(s) && isObject(s.discriminator) && !Array.isArray(s.oneOf) && !Array.isArray(s.anyOf)
  }

  /** Every schema extending `name` through `allOf`, grandchildren included, in catalogue order. */
  private descendants(name: string): string[] {
    const found: string[] = []
    const walk = (n: string) => {
      for (const child of this.children.get(n) ?? []) {
        if (found.includes(child) || child === name) continue
        found.push(child)
        walk(child)
      }
    }
    walk(name)
    return found
  }

  /** `name` and the parents (schemas with a discriminator) it descends from, nearest first. */
  private parentsOf(name: string): string[] {
    const result: string[] = []
    const walk = (n: string, seen: Set<string>) => {
      if (seen.has(n)) return
      seen.add(n)
      if (this.isParent(n)) result.push(n)
      const s = this.schemas[n]
      for (const member of isObject(s) && Array.isArray(s.allOf) ? s.allOf : []) if (isRef(member)) walk(refName(member.$ref), seen)
    }
    walk(name, new Set())
    return result
  }

  // ---- Definitions ----

  /** A component schema as a definition: `use` is how a reference means it, `own` its own fields. */
  private definition(name: string, direction: Direction, form: 'use' | 'own'): Json {
    const id = `${name}\u0000${direction}\u0000${form}`
    let key = this.keys.get(id)
    if (key === undefined) {
      key = `d${this.keys.size}`
      this.keys.set(id, key)
      this.definitions[key] = {}
      const schema = this.schemas[name]
      if (!isObject(schema)) this.definitions[key] = { not: {} }
      else if (form === 'use' && this.isParent(name)) this.definitions[key] = this.parentChoice(name, direction)
      else this.definitions[key] = this.translate(schema, direction, false)
    }
    return { $ref: `#/definitions/${key}` }
  }

  /** Where a parent is referenced: the descendant its discriminator selects, by mapping or by name. */
  private parentChoice(name: string, direction: Direction, allowed?: (target: string) => boolean): Json {
    const discriminator = this.schemas[name]!.discriminator as Oas
    const entries: Array<[string, string]> = []
    const mapping = isObject(discriminator.mapping) ? (discriminator.mapping as Record<string, string>) : {}
    for (const [key, target] of Object.entries(mapping)) entries.push([key, refName(target)])
    for (const descendant of this.descendants(name)) if (!Object.hasOwn(mapping, descendant)) entries.push([descendant, descendant])
    const chosen = entries.filter(([, target]) => allowed === undefined || allowed(target))
    return this.choice(
      String(discriminator.propertyName),
      chosen.map(([key, target]) => [key, target === name ? this.definition(target, direction, 'own') : this.definition(target, direction, 'use')]),
    )
  }

  /** The value of `property` selects exactly one schema; a value that selects none fails. */
  private choice(property: string, entries: Array<[string, Json]>): Json {
    const values = entries.flatMap(([key]) => keyValues(key))
    return {
      type: 'object',
      required: [property],
      properties: { [property]: { enum: values } },
      allOf: entries.map(([key, schema]) => ({ if: { required: [property], properties: { [property]: { enum: keyValues(key) } } }, then: schema })),
    }
  }

  // ---- Translation ----

  private translate(schema: unknown, direction: Direction, inAllOf: boolean): Json {
    if (!isObject(schema)) return {}
    if (isRef(schema)) return this.definition(refName(schema.$ref), direction, inAllOf ? 'own' : 'use')
    const core = Array.isArray(schema.allOf) ? this.merged(schema, direction) : this.single(schema, direction)
    return schema.nullable === true ? { anyOf: [{ type: 'null' }, core] } : core
  }

  /** One schema with no `allOf`: its object keywords and the rest. */
  private single(schema: Oas, direction: Direction): Json {
    return { ...this.objectPart([schema], direction), ...this.otherPart(schema, direction) }
  }

  /**
   * `allOf`, flattened through the references it names (each meaning its own definition) into one
   * object: properties and required members from every member, closed when any member is closed
   * (then open to exactly the properties some member declares); every other keyword kept per member.
   */
  private merged(schema: Oas, direction: Direction): Json {
    const members: Oas[] = []
    const seen = new Set<string>()
    const flatten = (s: Oas) => {
      const { allOf, ...rest } = s
      members.push(rest)
      for (const member of Array.isArray(allOf) ? allOf : []) {
        if (isRef(member)) {
          const name = refName(member.$ref)
          if (seen.has(name) || !isObject(this.schemas[name])) continue
          seen.add(name)
          flatten(this.schemas[name]!)
        } else if (isObject(member)) {
          if (member.nullable === true) members.push({ __translated: this.translate(member, direction, true) })
          else flatten(member)
        }
      }
    }
    flatten({ ...schema, nullable: undefined })
    const others = members.map((m) => ('__translated' in m ? (m.__translated as Json) : this.otherPart(m, direction))).filter((j) => Object.keys(j).length > 0)
    const object = this.objectPart(
      members.filter((m) => !('__translated' in m)),
      direction,
    )
    return others.length === 0 ? object : { ...object, allOf: others }
  }

  /** Whether a property is readOnly / writeOnly (on the property schema, or the schema it references). */
  private flag(schema: unknown, flag: 'readOnly' | 'writeOnly'): boolean {
    if (isRef(schema)) {
      const target = this.schemas[refName(schema.$ref)]
      return isObject(target) && target[flag] === true
    }
    return isObject(schema) && schema[flag] === true
  }

  /** properties / required / additionalProperties / min-maxProperties of one or more merged members. */
  private objectPart(members: Oas[], direction: Direction): Json {
    const hidden = direction === 'request' ? 'readOnly' : 'writeOnly'
    const properties = new Map<string, unknown[]>()
    const required = new Set<string>()
    let closed = false
    const extra: Json[] = []
    const out: Json = {}
    for (const m of members) {
      if (isObject(m.properties)) for (const [name, s] of Object.entries(m.properties)) properties.set(name, [...(properties.get(name) ?? []), s])
      if (Array.isArray(m.required)) for (const name of m.required) required.add(String(name))
      if (m.additionalProperties === false) closed = true
      else if (isObject(m.additionalProperties)) extra.push(this.translate(m.additionalProperties, direction, false))
      if (typeof m.maxProperties === 'number') out.maxProperties = Math.min(out.maxProperties ?? Infinity, m.maxProperties)
      if (typeof m.minProperties === 'number') out.minProperties = Math.max(out.minProperties ?? 0, m.minProperties)
    }
    if (properties.size > 0) {
      out.properties = {}
      for (const [name, list] of properties) {
        // Not required in this direction; sent anyway, it is checked like any other member.
        if (list.some((s) => this.flag(s, hidden))) required.delete(name)
        const translated = list.map((s) => this.translate(s, direction, false))
        out.properties[name] = translated.length === 1 ? translated[0] : { allOf: translated }
      }
    }
    if (required.size > 0) out.required = [...required]
    if (closed) out.additionalProperties = false
    else if (extra.length > 0) out.additionalProperties = extra.length === 1 ? extra[0] : { allOf: extra }
    return out
  }

  /** Every keyword of one schema that is not about object members. */
  private otherPart(schema: Oas, direction: Direction): Json {
    const out: Json = {}
    if (typeof schema.type === 'string') out.type = schema.type
    if (Array.isArray(schema.enum)) out.enum = schema.enum
    if (typeof schema.multipleOf === 'number') out.multipleOf = schema.multipleOf
    if (typeof schema.maximum === 'number') {
      if (schema.exclusiveMaximum === true) out.exclusiveMaximum = schema.maximum
      else out.maximum = schema.maximum
    }
    if (typeof schema.minimum === 'number') {
      if (schema.exclusiveMinimum === true) out.exclusiveMinimum = schema.minimum
      else out.minimum = schema.minimum
    }
    for (const k of ['maxLength', 'minLength', 'maxItems', 'minItems'] as const) if (typeof schema[k] === 'number') out[k] = schema[k]
    if (schema.uniqueItems === true) out.uniqueItems = true
    if (typeof schema.pattern === 'string') out.pattern = schema.pattern
    if (typeof schema.format === 'string') out['x-oas-format'] = schema.format
    if (schema.items !== undefined) out.items = this.translate(schema.items, direction, false)
    if (schema.not !== undefined) out.not = this.translate(schema.not, direction, false)
    // Compositions go under `allOf`, so a choice's own `required` and `properties` never overwrite
    // the object keywords beside them. A schema with both `oneOf` and `anyOf` gets both, each its
    // own constraint.
    const compositions: Json[] = []
    if (Array.isArray(schema.oneOf)) compositions.push(this.composition(schema, 'oneOf', direction))
    if (Array.isArray(schema.anyOf))
      compositions.push(
        Array.isArray(schema.oneOf)
          ? { anyOf: schema.anyOf.map((s: unknown) => this.translate(s, direction, false)) }
          : this.composition(schema, 'anyOf', direction),
      )
    if (compositions.length > 0) out.allOf = compositions
    return out
  }

  /** `oneOf` / `anyOf`: chosen by a discriminator (its own, or its members' hierarchy's), else as JSON Schema has it. */
  private composition(schema: Oas, keyword: 'oneOf' | 'anyOf', direction: Direction): Json {
    const members = schema[keyword] as unknown[]
    if (isObject(schema.discriminator)) {
      const mapping = isObject(schema.discriminator.mapping) ? (schema.discriminator.mapping as Record<string, string>) : {}
      const entries: Array<[string, Json]> = Object.entries(mapping).map(([key, target]) => [key, this.definition(refName(target), direction, 'use')])
      for (const member of members) {
        if (!isRef(member)) continue
        const name = refName(member.$ref)
        if (!Object.hasOwn(mapping, name)) entries.push([name, this.definition(name, direction, 'use')])
      }
      return this.choice(String(schema.discriminator.propertyName), entries)
    }
    const names = members.map((m) => (isRef(m) ? refName(m.$ref) : undefined))
    if (names.length > 0 && names.every((n) => n !== undefined)) {
      const lists = (names as string[]).map((n) => this.parentsOf(n))
      const shared = lists[0]!.filter((p) => lists.every((l) => l.includes(p)))
      const parent = shared.find((p) => names.includes(p)) ?? shared[0]
      if (parent !== undefined) {
        const reachable = new Set<string>()
        for (const n of names as string[]) {
          reachable.add(n)
          for (const d of this.descendants(n)) reachable.add(d)
        }
        return this.parentChoice(parent, direction, (target) => reachable.has(target))
      }
    }
    return { [keyword]: members.map((m) => this.translate(m, direction, false)) }
  }
}
