import { commentText, jsString, propertyKey, toTypeIdentifier } from '../../core/emit.js'
import { isObject, type Schema } from './document.js'
import { refTarget } from './rules/refs.js'

/**
 * TypeScript types from OpenAPI 3.0 Schema Objects: component schemas become named type aliases
 * (recursive references work because aliases of object types may refer to themselves), inline
 * schemas become type expressions.
 */
export class TypeWriter {
  /** Schema name -> type identifier, assigned once so declarations and references agree. */
  readonly identifiers = new Map<string, string>()
  private readonly taken: Set<string>

  constructor(schemaNames: readonly string[], reserved: readonly string[] = []) {
    this.taken = new Set(reserved)
    // Names that are identifiers already keep them; the others are sanitized after, so a schema
    // literally called `A_B` is never renamed because `A-B` sanitizes to the same identifier.
    const sorted = [...schemaNames].sort()
    const verbatim = sorted.filter((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    for (const name of verbatim) this.identifiers.set(name, toTypeIdentifier(name, this.taken))
    for (const name of sorted) if (!this.identifiers.has(name)) this.identifiers.set(name, toTypeIdentifier(name, this.taken))
  }

  /** `export type Name = ...;` with the schema's description as JSDoc. */
  declaration(name: string, schema: Schema): string {
    return `${jsDoc(schema, '')}export type ${this.identifiers.get(name)} = ${this.type(schema, '')};`
  }

  type(schema: unknown, indent: string): string {
    if (!isObject(schema)) return 'unknown'
    const base = this.baseType(schema, indent)
    return schema.nullable === true && base !== 'unknown' ? `${wrap(base)} | null` : base
  }

  private baseType(schema: Schema, indent: string): string {
    const ref = refTarget(schema.$ref)
    if (ref !== undefined) return this.identifiers.get(ref) ?? 'unknown'
    if (Array.isArray(schema.enum)) return union(schema.enum.map(literalType))
    if (Array.isArray(schema.allOf)) return schema.allOf.map((s) => wrap(this.type(s, indent))).join(' & ')
    for (const key of ['oneOf', 'anyOf'] as const) {
      const list = schema[key]
      if (Array.isArray(list)) return union(list.map((s) => this.type(s, indent)))
    }
    switch (schema.type) {
      case 'string':
        return 'string'
      case 'integer':
      case 'number':
        return 'number'
      case 'boolean':
        return 'boolean'
      case 'array':
        return `${wrap(this.type(schema.items, indent))}[]`
      case 'object':
        return this.objectType(schema, indent)
      default:
        return isObject(schema.properties) || 'additionalProperties' in schema ? this.objectType(schema, indent) : 'unknown'
    }
  }

  private objectType(schema: Schema, indent: string): string {
    const inner = indent + '  '
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : [])
    const members: string[] = []
    const memberTypes: string[] = []
    const properties = isObject(schema.properties) ? schema.properties : {}
    for (const [name, child] of Object.entries(properties)) {
      const type = this.type(child, inner)
      memberTypes.push(type)
      members.push(`${jsDoc(child, inner)}${inner}${propertyKey(name)}${required.has(name) ? '' : '?'}: ${type};`)
    }
    const extra = schema.additionalProperties
    if (isObject(extra) || (extra === undefined && members.length === 0) || extra === true) {
      // An index signature must admit every declared member's type too.
      const valueType = isObject(extra) ? this.type(extra, inner) : 'unknown'
      const all = valueType === 'unknown' ? 'unknown' : union([valueType, ...memberTypes, ...(required.size < memberTypes.length ? ['undefined'] : [])])
      members.push(`${inner}[key: string]: ${all};`)
    }
    if (members.length === 0) return '{ [key: string]: never }'
    return `{\n${members.join('\n')}\n${indent}}`
  }
}

function literalType(value: unknown): string {
  if (typeof value === 'string') return jsString(value)
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return JSON.stringify(value)
  return 'unknown'
}

function union(types: string[]): string {
  const unique = [...new Set(types)]
  if (unique.includes('unknown')) return 'unknown'
  return unique.length === 0 ? 'never' : unique.join(' | ')
}

/** Parenthesizes a type with a top-level `|` or `&` before it is used in `[]`, `&` or `| null`. */
function wrap(type: string): string {
  let depth = 0
  let quoted = false
  for (let i = 0; i < type.length; i++) {
    const ch = type[i]
    if (quoted) {
      if (ch === '\\') i++
      else if (ch === '"') quoted = false
    } else if (ch === '"') quoted = true
    else if (ch === '{' || ch === '(' || ch === '[') depth++
    else if (ch === '}' || ch === ')' || ch === ']') depth--
    else if (depth === 0 && (ch === '|' || ch === '&')) return `(${type})`
  }
  return type
}

function jsDoc(schema: unknown, indent: string): string {
  if (!isObject(schema)) return ''
  const lines: string[] = []
  if (typeof schema.title === 'string' && schema.title !== '') lines.push(commentText(schema.title))
  if (typeof schema.description === 'string' && schema.description !== '') lines.push(...commentText(schema.description).split('\n'))
  if (typeof schema.format === 'string') lines.push(`@format ${commentText(schema.format)}`)
  if (lines.length === 0) return ''
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`.trimEnd()).join('\n')}\n${indent} */\n`
}
