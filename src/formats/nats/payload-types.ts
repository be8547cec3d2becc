import { chainSafeTypes } from '../../core/alias-chains.js'
import { commentText, jsString, propertyKey, sortKeys, toTypeIdentifier } from '../../core/emit.js'
import { splitPointer } from '../../runtime/shared/json-pointer.js'
import { isObject } from './document.js'

/** Nesting of inline schemas written out; deeper ones are `unknown` (documents are depth-limited already; this keeps the output bounded too). */
const MAX_DEPTH = 64

const COMPONENT = '#/components/schemas/'

/**
 * TypeScript types of message payloads from AsyncAPI Schema Objects (JSON Schema draft-07), saying
 * what the wire carries, never narrower than the validator: `enum`/`const` as literals (of the
 * `type` given), `type` (one or a list) as the primitive types, `properties` with `required` as an
 * object type (open unless `additionalProperties: false`), `items` as an array or a tuple, object or
 * array keywords without `type` as that object or array or any other JSON value (draft-07 applies
 * them to objects and arrays only), `oneOf`/`anyOf` as a union, `allOf` as an intersection,
 * `$ref` to `#/components/schemas/<Name>` as the named type, and `description`/`format` as JSDoc.
 * What draft-07 can say but a type cannot (`pattern`, bounds, `not`, `if`) is left to the
 * validator. References into locked files were made local before (message-schemas.ts); any other
 * reference is `unknown`.
 *
 * Complexity: each component is written once (named types break recursion); each inline node once.
 */
export class PayloadTypeWriter {
  /** Component name -> exported type identifier, for the components payloads reach. */
  readonly names = new Map<string, string>()
  private readonly pending: string[] = []

  constructor(
    private readonly components: Readonly<Record<string, unknown>>,
    private readonly taken: Set<string>,
  ) {}

  /** The type of one payload schema; the components it reaches are queued for `declarations`. */
  typeOf(schema: unknown, depth = 0): string {
    if (schema === undefined || schema === true) return 'unknown'
    if (schema === false) return 'never'
    if (!isObject(schema) || depth > MAX_DEPTH) return 'unknown'
    if (typeof schema.$ref === 'string') return this.reference(schema.$ref)
    const parts: string[] = []
    // Literals of a type the schema's `type` excludes are refused by the validator: left out.
    if (Object.hasOwn(schema, 'const')) parts.push(literalsOf([schema.const], schema.type))
    else if (Array.isArray(schema.enum)) parts.push(literalsOf(schema.enum, schema.type))
    else {
      const structural = this.structural(schema, depth)
      if (structural !== undefined) parts.push(structural)
    }
    for (const key of ['oneOf', 'anyOf'] as const)
      if (Array.isArray(schema[key]) && schema[key].length > 0) parts.push(`(${schema[key].map((s) => this.typeOf(s, depth + 1)).join(' | ')})`)
    if (Array.isArray(schema.allOf)) for (const s of schema.allOf) parts.push(`(${this.typeOf(s, depth + 1)})`)
    return parts.length === 0 ? 'unknown' : parts.join(' & ')
  }

  /** Every queued component as `export type Name = ...;`, in name order, each with its JSDoc. */
  declarations(): string[] {
    const bodies = new Map<string, string>()
    const docs = new Map<string, string>()
    for (let next = 0; next < this.pending.length; next++) {
      const name = this.pending[next]!
      const schema = this.components[name]
      bodies.set(this.names.get(name)!, this.typeOf(schema))
      docs.set(this.names.get(name)!, jsDoc(schema, ''))
    }
    // No chain a checker resolves recursively runs past the validators' depth (core/alias-chains.ts).
    const types = chainSafeTypes(bodies)
    return [...types.keys()].sort().map((id) => `${docs.get(id)!}export type ${id} = ${types.get(id)!};`)
  }

  private reference(ref: string): string {
    if (!ref.startsWith(COMPONENT)) return 'unknown'
    const tokens = splitPointer(ref.slice(COMPONENT.length - 1))
    if (tokens.length !== 1 || !Object.hasOwn(this.components, tokens[0]!)) return 'unknown'
    const name = tokens[0]!
    let id = this.names.get(name)
    if (id === undefined) {
      this.names.set(name, (id = toTypeIdentifier(name, this.taken)))
      this.pending.push(name)
    }
    return id
  }

  /**
   * `type` (and the members it implies), or undefined when the schema says nothing of its type.
   * Without `type`, object keywords (`properties`, `required`, ...) and array keywords (`items`, ...)
   * constrain objects and arrays only: draft-07 accepts every other JSON value too, so the type is
   * the object (or array) those keywords describe, or'd with the other JSON types, exactly as wide
   * as the validator.
   */
  private structural(schema: Record<string, unknown>, depth: number): string | undefined {
    const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type : undefined
    if (!types) {
      const object = OBJECT_KEYWORDS.some((k) => Object.hasOwn(schema, k))
      const array = ARRAY_KEYWORDS.some((k) => Object.hasOwn(schema, k))
      if (!object && !array) return undefined
      const objectPart = object ? this.objectType(schema, depth) : '{ [member: string]: unknown; }'
      const arrayPart = array ? this.arrayType(schema, depth) : 'unknown[]'
      return `(${objectPart} | ${arrayPart} | string | number | boolean | null)`
    }
    const each = types.map((t) => {
      switch (t) {
        case 'string':
          return 'string'
        case 'integer':
        case 'number':
          return 'number'
        case 'boolean':
          return 'boolean'
        case 'null':
          return 'null'
        case 'array':
          return this.arrayType(schema, depth)
        case 'object':
          return this.objectType(schema, depth)
        default:
          return 'unknown'
      }
    })
    return each.length === 1 ? each[0]! : `(${each.join(' | ')})`
  }

  private arrayType(schema: Record<string, unknown>, depth: number): string {
    if (Array.isArray(schema.items)) {
      const rest = schema.additionalItems === false ? '' : ', ...unknown[]'
      return `[${schema.items.map((s) => `(${this.typeOf(s, depth + 1)})?`).join(', ')}${rest}]`
    }
    return `Array<${this.typeOf(schema.items, depth + 1)}>`
  }

  private objectType(schema: Record<string, unknown>, depth: number): string {
    const properties = isObject(schema.properties) ? schema.properties : {}
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((k): k is string => typeof k === 'string') : [])
    // Members no named property describes may be there (any type) unless the object is closed;
    // `patternProperties` names members a type cannot spell, so those keep it open too.
    const open = schema.additionalProperties !== false || schema.patternProperties !== undefined
    let members = ''
    for (const key of sortKeys(Object.keys(properties))) {
      const doc = jsDoc(properties[key], ' ')
      members += ` ${doc}${propertyKey(key)}${required.has(key) ? '' : '?'}: ${this.typeOf(properties[key], depth + 1)};`
    }
    for (const key of sortKeys([...required].filter((k) => !Object.hasOwn(properties, k)))) {
      // A required member that a closed object cannot have: no object is valid.
      if (!open) return 'never'
      members += ` ${propertyKey(key)}: unknown;`
    }
    if (open) members += ' [member: string]: unknown;'
    // Closed with no members: the empty object only (`{}` would admit every value but null).
    return members === '' ? '{ [member: string]: never; }' : `{${members} }`
  }
}

/** Keywords that constrain objects only (draft-07 section 6.5): without `type`, other values pass them. */
const OBJECT_KEYWORDS = [
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'minProperties',
  'maxProperties',
  'dependencies',
  'propertyNames',
]
/** Keywords that constrain arrays only (draft-07 section 6.4). */
const ARRAY_KEYWORDS = ['items', 'additionalItems', 'minItems', 'maxItems', 'uniqueItems', 'contains']

/** `const`/`enum` values as literal types, keeping those of a type `type` allows (every one without `type`); `never` when none is left. */
function literalsOf(values: readonly unknown[], type: unknown): string {
  const types = typeof type === 'string' ? [type] : Array.isArray(type) ? type : undefined
  const kept = types === undefined ? values : values.filter((v) => types.some((t) => jsonTypeHolds(t, v)))
  return kept.map(literalType).join(' | ') || 'never'
}

/** Draft-07's `type` check for one JSON value (section 6.1.1; an integer is a number with no fraction). */
function jsonTypeHolds(type: unknown, value: unknown): boolean {
  switch (type) {
    case 'null':
      return value === null
    case 'boolean':
      return typeof value === 'boolean'
    case 'string':
      return typeof value === 'string'
    case 'number':
      return typeof value === 'number'
    case 'integer':
      return Number.isInteger(value)
    case 'array':
      return Array.isArray(value)
    case 'object':
      return isObject(value)
    default:
      return false
  }
}

/** A `const`/`enum` value as a literal type (JSON scalars; anything else is `unknown`). */
function literalType(value: unknown): string {
  if (value === null) return 'null'
  if (typeof value === 'string') return jsString(value)
  if (typeof value === 'boolean') return String(value)
  if (typeof value === 'number' && Number.isFinite(value)) return value < 0 ? `(${value})` : String(value)
  return 'unknown'
}

/** `description` and `format` as a one-line JSDoc comment (escaped), or ''. */
function jsDoc(schema: unknown, after: string): string {
  if (!isObject(schema)) return ''
  const parts: string[] = []
  if (typeof schema.description === 'string') parts.push(schema.description.replace(/\s+/g, ' ').trim())
  if (typeof schema.format === 'string') parts.push(`@format ${schema.format}`)
  // `</` broken up too: the declarations may be shown inside HTML (docs, playgrounds).
  return parts.length === 0 ? '' : `/** ${commentText(parts.join(' ')).replace(/<\//g, '<\\/')} */${after === '' ? '\n' : after}`
}
