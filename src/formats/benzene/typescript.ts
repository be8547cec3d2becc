import { chainSafeTypes } from '../../core/alias-chains.js'
import { commentLines, commentText, jsString, propertyKey, sortKeys, toTypeIdentifier } from '../../core/emit.js'
import { hasFlag, isObject, refTarget, type Schema } from '../../runtime/benzene/document.js'
import { closedMerge } from './all-of.js'
import { discriminatorLiterals, discriminatorOf, extendsSelector, hasOwnShape, isParent, namedDiscriminator, type Discriminator } from './inheritance.js'
import type { Direction } from './json-schema.js'
import type { SchemaFacts } from './schema-facts.js'
import { directionFree } from './direction-free.js'

const ALTERNATIVES = ['oneOf', 'anyOf'] as const

/** A component schema being declared: its name (for its choice and what extends it) and whether only its own shape is meant. */
interface Named {
  name: string
  own: boolean
}

export interface TypeOptions {
  int64: 'number' | 'string'
}

/**
 * TypeScript types from OpenAPI 3.0 Schema Objects, saying what the wire carries:
 * `enum`/`const` as literals, `nullable` as `| null`, `additionalProperties: false` as an exact
 * object (no index signature; absent or `true` admits more members, a schema types them),
 * `allOf` as an intersection, a `discriminator` as a discriminated union (of its members, or of
 * the schemas extending a parent, whose own fields are `NameBase`: inheritance.ts), `format` and
 * descriptions as JSDoc. A schema with `readOnly` or `writeOnly` members somewhere in it has two
 * named types: `Name` for responses (writeOnly members optional) and `NameInput` for requests
 * (readOnly members optional): neither direction requires them, and neither forbids them.
 */
export class TypeWriter {
  /** Schema name -> type identifier (response view), assigned once for declarations and references. */
  readonly identifiers = new Map<string, string>()
  /** Schema name -> request-view identifier, for schemas whose two views differ. */
  readonly inputIdentifiers = new Map<string, string>()
  /** Schema name -> identifier of its own shape (`NameBase`, `NameBaseInput`), for schemas with one (inheritance.ts). */
  readonly baseIdentifiers = new Map<string, string>()
  readonly baseInputIdentifiers = new Map<string, string>()
  private readonly taken: Set<string>

  constructor(
    schemaNames: readonly string[],
    private readonly facts: SchemaFacts,
    private readonly options: TypeOptions,
    reserved: readonly string[] = [],
  ) {
    this.taken = new Set(reserved)
    // Names that are identifiers already keep them; the others are sanitized after, so a schema
    // literally called `A_B` is never renamed because `A-B` sanitizes to the same identifier.
    const sorted = [...schemaNames].sort()
    const verbatim = sorted.filter((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    for (const name of verbatim) this.identifiers.set(name, toTypeIdentifier(name, this.taken))
    for (const name of sorted) if (!this.identifiers.has(name)) this.identifiers.set(name, toTypeIdentifier(name, this.taken))
    // Names whose two directions differ get an `Input` type beside their own.
    const free = directionFree(facts)
    const reaching = new Set(sorted.filter((name) => !free(name)))
    for (const name of sorted) {
      if (reaching.has(name)) this.inputIdentifiers.set(name, toTypeIdentifier(this.identifiers.get(name)! + 'Input', this.taken))
    }
    for (const name of sorted) {
      if (!hasOwnShape(name, facts)) continue
      const base = toTypeIdentifier(this.identifiers.get(name)! + 'Base', this.taken)
      this.baseIdentifiers.set(name, base)
      if (reaching.has(name)) this.baseInputIdentifiers.set(name, toTypeIdentifier(base + 'Input', this.taken))
    }
  }

  /**
   * The declarations of one schema: `export type Name = ...;` and, when it differs,
   * `export type NameInput = ...;` (and the `Base` types of a schema others extend), each as its
   * identifier, its type and its JSDoc, for `writeDeclarations`.
   */
  declarations(name: string): Declaration[] {
    const schema = this.facts.catalogue[name]!
    const declare = (identifier: string | undefined, direction: Direction, own: boolean, doc: string): Declaration[] =>
      identifier ? [{ identifier, type: this.type(schema, direction, '', false, { name, own }), doc }] : []
    const baseDoc = `/** The own fields of ${commentText(jsString(name))}, which the schemas extending it share. */\n`
    return [
      ...declare(this.identifiers.get(name), 'response', false, jsDoc(schema, '')),
      ...declare(this.inputIdentifiers.get(name), 'request', false, jsDoc(schema, '')),
      ...declare(this.baseIdentifiers.get(name), 'response', true, baseDoc),
      ...declare(this.baseInputIdentifiers.get(name), 'request', true, baseDoc),
    ]
  }

  /**
   * `closed`: an inline allOf member of a closed merge, which must not add an index signature.
   * `named`: the component schema being declared, and whether only its own shape is meant.
   */
  type(schema: unknown, direction: Direction, indent: string, closed = false, named?: Named): string {
    if (!isObject(schema)) return 'unknown'
    const base = this.baseType(schema, direction, indent, closed, named)
    return hasFlag(schema, 'nullable') && base !== 'unknown' && base !== 'null' ? `${wrap(base)} | null` : base
  }

  private baseType(schema: Schema, direction: Direction, indent: string, closed: boolean, named: Named | undefined): string {
    const ref = refTarget(schema.$ref)
    if (ref !== undefined) return this.reference(ref, direction)
    const d = named?.own ? undefined : named ? namedDiscriminator(named.name, this.facts) : discriminatorOf(schema, this.facts)
    if (d?.mode === 'allOf') return this.choice(d, direction, indent)
    if ('const' in schema) return literalType(schema.const)
    if (Array.isArray(schema.enum)) return union(schema.enum.map(literalType))
    if (Array.isArray(schema.allOf)) {
      // OpenAPI merges allOf: one member with additionalProperties: false closes the whole object.
      // A member that adds nothing (`{}` in a closed merge) is left out rather than intersected.
      const merged = closed || closedMerge(schema, this.facts)
      const parts = schema.allOf.map((s) => {
        const target = isObject(s) ? refTarget(s.$ref) : undefined
        if (target !== undefined && extendsSelector(named?.name, target, this.facts)) return this.reference(target, direction, true)
        return wrap(this.type(s, direction, indent, merged))
      })
      if (isObject(schema.properties)) parts.push(this.objectType(schema, direction, indent, true))
      if (d) parts.push(wrap(this.choice(d, direction, indent)))
      const kept = parts.filter((part) => part !== '{}')
      if (kept.length > 0) return kept.join(' & ')
      return merged ? '{ [key: string]: never }' : '{ [key: string]: unknown }'
    }
    if (d) {
      // A schema that chooses keeps its own properties and required members beside the choice.
      const choice = this.choice(d, direction, indent)
      return isObject(schema.properties) ? `${this.objectType(schema, direction, indent)} & ${wrap(choice)}` : choice
    }
    if (!named?.own) {
      for (const key of ALTERNATIVES) {
        const list = schema[key]
        if (!Array.isArray(list)) continue
        const alternatives = union(list.map((s) => this.type(s, direction, indent)))
        return list.every((member) => this.declaresType(member, schema.type)) ? alternatives : narrowed(alternatives, schema.type)
      }
    }
    switch (schema.type) {
      case 'string':
        return 'string'
      case 'integer':
        return schema.format === 'int64' && this.options.int64 === 'string' ? 'string' : 'number'
      case 'number':
        return 'number'
      case 'boolean':
        return 'boolean'
      case 'array':
        return `${wrap(this.type(schema.items, direction, indent))}[]`
      case 'object':
        return this.objectType(schema, direction, indent, closed)
      default: {
        if (!isObject(schema.properties) && !('additionalProperties' in schema)) return 'unknown'
        const object = this.objectType(schema, direction, indent, closed)
        // Without `type`, object keywords hold for objects only: the validator lets every other JSON
        // value through, and so does the type (a component's own shape, extended through allOf, stays the object).
        return named?.own || closed ? object : `${object} | string | number | boolean | null | unknown[]`
      }
    }
  }

  /** True when `member` (through one `$ref`) declares `type` itself, or no `type` is asked: its type needs no narrowing. */
  private declaresType(member: unknown, type: unknown): boolean {
    if (type === undefined) return true
    const target = isObject(member) ? refTarget(member.$ref) : undefined
    const schema = target !== undefined ? this.facts.catalogue[target] : member
    return isObject(schema) && schema.type === type
  }

  /** `own`: the schema's own shape (`NameBase`), where it has one. */
  private reference(name: string, direction: Direction, own = false): string {
    if (own && this.baseIdentifiers.has(name))
      return (direction === 'request' ? this.baseInputIdentifiers.get(name) : undefined) ?? this.baseIdentifiers.get(name)!
    return (direction === 'request' ? this.inputIdentifiers.get(name) : undefined) ?? this.identifiers.get(name) ?? 'unknown'
  }

  /** A discriminated union: each selected schema with its values (a parent's own shape when it is one), then inline members. */
  private choice(d: Discriminator, direction: Direction, indent: string): string {
    const key = propertyKey(d.propertyName)
    return union([
      ...groupValues(d.values).map(
        ([name, values]) =>
          `(${this.reference(name, direction, isParent(name, this.facts))} & { ${key}: ${union(values.flatMap(discriminatorLiterals).map(literalType))} })`,
      ),
      ...d.inline.map((s) => this.type(s, direction, indent)),
      ...(d.rest !== undefined ? [this.reference(d.rest, direction)] : []),
    ])
  }

  private objectType(schema: Schema, direction: Direction, indent: string, closed = false): string {
    const inner = indent + '  '
    const hidden = direction === 'request' ? 'readOnly' : 'writeOnly'
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : [])
    const members: string[] = []
    const memberTypes: string[] = []
    const properties = isObject(schema.properties) ? schema.properties : {}
    // Sorted: key order means nothing in a contract (the document is not reordered beforehand).
    for (const name of sortKeys(Object.keys(properties))) {
      const child = properties[name]
      const type = this.type(child, direction, inner)
      // OpenAPI 3.0.3 (Schema Object, readOnly/writeOnly): the member SHOULD NOT be sent this way and
      // is not required this way; it is not forbidden, so the validator admits it and the type does too.
      const optional = !required.has(name) || hasFlag(child, hidden)
      memberTypes.push(type)
      members.push(`${jsDoc(child, inner)}${inner}${propertyKey(name)}${optional ? '?' : ''}: ${type};`)
    }
    const extra = schema.additionalProperties
    if (extra !== false && !(closed && extra === undefined)) {
      // An index signature must admit every declared member's type too.
      const valueType = isObject(extra) ? this.type(extra, direction, inner) : 'unknown'
      // An optional member's type includes `undefined` (required names need not be properties).
      const anyOptional = Object.keys(properties).some((name) => !required.has(name) || hasFlag(properties[name], hidden))
      const all = valueType === 'unknown' ? 'unknown' : union([valueType, ...memberTypes, ...(anyOptional ? ['undefined'] : [])])
      members.push(`${inner}[key: string]: ${all};`)
    }
    // Empty and closed: alone only `{}` is valid; as a member of a closed merge it adds nothing.
    if (members.length === 0) return closed ? '{}' : '{ [key: string]: never }'
    return `{\n${members.join('\n')}\n${indent}}`
  }
}

/** One generated `export type`: its name, its type's text, its JSDoc (with its line break). */
export interface Declaration {
  identifier: string
  type: string
  doc: string
}

/**
 * The declarations' text, groups in order, a blank line after each. No chain the checker resolves
 * recursively runs past the validators' depth (core/alias-chains.ts).
 */
export function writeDeclarations(groups: readonly Declaration[][]): string[] {
  const types = chainSafeTypes(new Map(groups.flat().map((d) => [d.identifier, d.type])))
  return groups.flatMap((group) => [...group.map((d) => `${d.doc}export type ${d.identifier} = ${types.get(d.identifier)!};`), ''])
}

/**
 * Alternatives beside a `type` (ASP.NET Core writes `{type: object, anyOf: [...]}` over members that
 * declare no type of their own, whose types admit every JSON value): the validator checks the
 * `type` too, so the union keeps only the members of that kind.
 */
function narrowed(alternatives: string, type: unknown): string {
  if (alternatives === 'unknown' || alternatives === 'never') return alternatives
  switch (type) {
    case 'object':
      return `Exclude<${alternatives}, string | number | boolean | null | unknown[]>`
    case 'array':
      return `Extract<${alternatives}, unknown[]>`
    case 'string':
      return `Extract<${alternatives}, string>`
    case 'integer':
    case 'number':
      return `Extract<${alternatives}, number>`
    case 'boolean':
      return `Extract<${alternatives}, boolean>`
    default:
      return alternatives
  }
}

/** Discriminator values grouped by the schema they select, in first-seen order. */
function groupValues(values: Array<[string, string]>): Array<[string, string[]]> {
  const groups = new Map<string, string[]>()
  for (const [value, name] of values) groups.set(name, [...(groups.get(name) ?? []), value])
  return [...groups]
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
  if (typeof schema.description === 'string' && schema.description !== '') lines.push(...commentLines(schema.description))
  if (typeof schema.format === 'string') lines.push(`@format ${commentText(schema.format)}`)
  if (hasFlag(schema, 'readOnly')) lines.push('@readonly sent by the service only')
  if (hasFlag(schema, 'writeOnly')) lines.push('write-only: sent to the service only')
  if (schema.deprecated === true) lines.push('@deprecated')
  if (lines.length === 0) return ''
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`.trimEnd()).join('\n')}\n${indent} */\n`
}
