import { commentText, jsString, propertyKey, sortKeys, toTypeIdentifier } from '../../core/emit.js'
import { splitPointer } from '../../runtime/shared/json-pointer.js'
import { isObject } from './document.js'

/** Nesting of inline schemas written out; deeper ones are `unknown` (documents are depth-limited already; this keeps the output bounded too). */
const MAX_DEPTH = 64

const COMPONENT = '#/components/schemas/'

/**
 * TypeScript types of message payloads from AsyncAPI Schema Objects (JSON Schema draft-07), saying
 * what the wire carries: `enum`/`const` as literals, `type` (one or a list) as the primitive types,
 * `properties` with `required` as an object type (open unless `additionalProperties: false`),
 * `items` as an array or a tuple, `oneOf`/`anyOf` as a union, `allOf` as an intersection,
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
    if (Object.hasOwn(schema, 'const')) parts.push(literalType(schema.const))
    else if (Array.isArray(schema.enum)) parts.push(schema.enum.map(literalType).join(' | ') || 'never')
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
    const out: Array<[string, string]> = []
    for (let next = 0; next < this.pending.length; next++) {
      const name = this.pending[next]!
      const schema = this.components[name]
      out.push([this.names.get(name)!, `${jsDoc(schema, '')}export type ${this.names.get(name)!} = ${this.typeOf(schema)};`])
    }
    return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, text]) => text)
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

  /** `type` (and the members it implies), or undefined when the schema says nothing of its type. */
  private structural(schema: Record<string, unknown>, depth: number): string | undefined {
    const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type : undefined
    const implied = types ?? (isObject(schema.properties) ? ['object'] : schema.items !== undefined ? ['array'] : undefined)
    if (!implied) return undefined
    const each = implied.map((t) => {
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
    const required = new Set(Array.isArray(schema.required) ? schema.required : [])
    let members = ''
    for (const key of sortKeys(Object.keys(properties))) {
      const doc = jsDoc(properties[key], ' ')
      members += ` ${doc}${propertyKey(key)}${required.has(key) ? '' : '?'}: ${this.typeOf(properties[key], depth + 1)};`
    }
    // Open unless closed: other members may be there, of any type a property's type allows.
    if (schema.additionalProperties !== false) members += ' [member: string]: unknown;'
    return members === '' ? '{}' : `{${members} }`
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
