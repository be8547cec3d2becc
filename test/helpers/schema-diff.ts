/**
 * Helpers for the schema diff's tests: a `SchemaSide` over one in-memory document (or several
 * files), a seeded generator of small random JSON Schemas and single edits of them, a finite
 * universe of values, and ajv as the judge of what each schema accepts. Written apart from the
 * engine: nothing here reads src/core/diff/schema/.
 */
import { Ajv2020 } from 'ajv/dist/2020.js'
import type { SchemaChange, SchemaSide } from '../../src/core/diff/schema-diff-types.js'
import { diffSchemas } from '../../src/core/diff/schema-diff.js'

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

function at(document: unknown, pointer: string): unknown {
  if (pointer === '') return document
  let node: unknown = document
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined
    node = (node as Record<string, unknown>)[key]
  }
  return node
}

/**
 * A side whose `$ref`s are `#pointer` within its file or `other.json#pointer` into `files`
 * (file names absolute under /virtual/). A reference that names nothing resolves to `undefined`.
 */
export function sideOf(document: unknown, pointer = '', options: { file?: string; files?: Record<string, unknown> } = {}): SchemaSide {
  const file = options.file ?? '/virtual/schema.json'
  const files: Record<string, unknown> = { ...options.files, [file]: document }
  return {
    file,
    document,
    pointer,
    resolve(ref, from) {
      const hash = ref.indexOf('#')
      const target = hash < 0 ? ref : ref.slice(0, hash)
      const targetFile = target === '' ? from.file : `/virtual/${target}`
      const targetPointer = hash < 0 ? '' : decodeURIComponent(ref.slice(hash + 1))
      if (!Object.hasOwn(files, targetFile)) return undefined
      const targetDocument = files[targetFile]
      if (at(targetDocument, targetPointer) === undefined) return undefined
      return { file: targetFile, document: targetDocument, pointer: targetPointer }
    },
  }
}

export { random } from './seeded-random.js'

const SCALARS: Json[] = [null, true, false, 0, 1, -1, 2, 3, 2.5, -0.5, 10, '', 'a', 'b', 'ab', 'abc', 'ba', '0']
const KEYS = ['a', 'b', 'c']

/** The finite universe of values the judge enumerates: scalars, short arrays, small objects with keys from {a, b, c}. */
export function valueUniverse(): Json[] {
  const out: Json[] = [...SCALARS]
  const small: Json[] = [null, 0, 1, 2.5, '', 'a', true]
  out.push([], [[]], [{}], [1, 1], [1, 'a'], ['a', 'a'], [null, null], [{ a: 1 }], [0, 1, 2])
  for (const value of small) out.push([value])
  for (const value of small) for (const key of KEYS) out.push({ [key]: value })
  out.push({}, { a: 1, b: 2 }, { a: 'a', b: 'b', c: 'c' }, { a: null, c: 1 }, { b: [] }, { a: {} }, { a: { a: 1 } }, { c: [1] }, { a: 1, b: 'x' }, { d: 1 })
  out.push({ a: [1, 1] }, { a: 'ab', b: 2.5 }, { b: { b: null } })
  return out
}

export type Schema = boolean | Record<string, Json>

/** A generator of small random schemas over the keywords the diff reads, with `$defs` to `$ref`. */
export class SchemaGenerator {
  /** The definitions a new `$ref` may name: D1 may name D0 and D0 nothing, so no reference loops without a value step (ajv refuses those). */
  private refs: string[] = []

  /** OpenAPI 3.0 Schema Objects (single `type`, `nullable`, boolean exclusive bounds, no boolean schemas) in `components.schemas`. */
  constructor(
    private readonly next: () => number,
    private readonly openapi = false,
  ) {}

  private ref(name: string): string {
    return this.openapi ? `#/components/schemas/${name}` : `#/$defs/${name}`
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  subset<T>(items: readonly T[], p = 0.5): T[] {
    return items.filter(() => this.chance(p))
  }

  /** A document: the root schema, with two definitions it and they may reference. */
  document(): Record<string, Json> {
    this.refs = []
    const d0 = this.schema(1) as Json
    this.refs = [this.ref('D0')]
    const d1 = this.schema(1) as Json
    this.refs = [this.ref('D0'), this.ref('D1')]
    const root = this.schema(2) as Record<string, Json>
    if (this.openapi) return { openapi: '3.0.1', components: { schemas: { D0: d0, D1: d1, Root: root } } }
    const rootObject: Record<string, Json> = typeof root === 'boolean' ? { allOf: [root] } : root
    return { $schema: 'https://json-schema.org/draft/2020-12/schema', ...rootObject, $defs: { D0: d0, D1: d1 } }
  }

  schema(depth: number): Schema {
    if (!this.openapi && this.chance(0.06)) return this.chance(0.5)
    if (depth > 0 && this.refs.length && this.chance(0.12)) return { $ref: this.pick(this.refs) }
    const out: Record<string, Json> = {}
    const count = 1 + Math.floor(this.next() * 3)
    for (let i = 0; i < count; i++) this.addKeyword(out, depth)
    return out
  }

  keywordValue(keyword: string, depth: number): Json {
    const sub = () => this.schema(depth - 1) as Json
    switch (keyword) {
      case 'type': {
        if (this.openapi) return this.pick(['boolean', 'object', 'array', 'string', 'number', 'integer'])
        const types = this.subset(['null', 'boolean', 'object', 'array', 'string', 'number', 'integer'], 0.3)
        return types.length === 1 ? types[0]! : types.length ? types : 'string'
      }
      case 'enum':
        return this.subset<Json>([null, 0, 1, 2.5, '', 'a', 'ab', true, [], {}], 0.3).concat(this.pick<Json>([1, 'a']))
      case 'const':
        return this.pick<Json>([null, 0, 1, 'a', '', true, { a: 1 }, []])
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        if (this.openapi) return this.chance(0.5)
        return this.pick([-1, 0, 1, 2, 2.5, 3])
      case 'minimum':
      case 'maximum':
        return this.pick([-1, 0, 1, 2, 2.5, 3])
      case 'nullable':
        return this.chance(0.6)
      case 'multipleOf':
        return this.pick([1, 2, 3, 4])
      case 'minLength':
      case 'maxLength':
      case 'minItems':
      case 'maxItems':
      case 'minProperties':
      case 'maxProperties':
        return this.pick([0, 1, 2, 3])
      case 'pattern':
        return this.pick(['^a', 'b', '^a+$', '^[ab]*$'])
      case 'uniqueItems':
        return this.chance(0.7)
      case 'items':
        return depth > 0 || this.openapi ? (depth > 0 ? sub() : {}) : this.chance(0.5)
      case 'not':
      case 'propertyNames':
        // OpenAPI 3.0 has no boolean schemas (only additionalProperties takes a boolean).
        return depth > 0 ? sub() : this.openapi ? { type: this.pick(['string', 'integer', 'object']) } : this.chance(0.5)
      case 'additionalProperties':
        return depth > 0 ? sub() : this.chance(0.5)
      case 'prefixItems':
        return depth > 0 ? [sub(), ...(this.chance(0.5) ? [sub()] : [])] : [true]
      case 'properties': {
        const props: Record<string, Json> = {}
        for (const key of this.subset(KEYS, 0.5)) props[key] = depth > 0 ? sub() : this.openapi ? {} : this.chance(0.5)
        return props
      }
      case 'required':
        return this.subset(KEYS, 0.4)
      case 'anyOf':
      case 'oneOf':
      case 'allOf': {
        const count = 1 + Math.floor(this.next() * 3)
        return Array.from({ length: count }, () => (depth > 0 ? sub() : this.openapi ? { type: this.pick(['string', 'integer', 'object']) } : this.chance(0.5)))
      }
      case 'description':
        return this.pick(['x', 'y', 'z'])
      default:
        return {}
    }
  }

  static readonly KEYWORDS = [
    'type',
    'type',
    'type',
    'enum',
    'const',
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'exclusiveMaximum',
    'multipleOf',
    'minLength',
    'maxLength',
    'pattern',
    'minItems',
    'maxItems',
    'uniqueItems',
    'items',
    'prefixItems',
    'properties',
    'properties',
    'required',
    'additionalProperties',
    'minProperties',
    'maxProperties',
    'anyOf',
    'oneOf',
    'allOf',
    'not',
    'propertyNames',
    'description',
  ] as const

  static readonly OPENAPI_KEYWORDS = [
    'type',
    'type',
    'type',
    'nullable',
    'nullable',
    'enum',
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'exclusiveMaximum',
    'multipleOf',
    'minLength',
    'maxLength',
    'pattern',
    'minItems',
    'maxItems',
    'uniqueItems',
    'items',
    'properties',
    'properties',
    'required',
    'additionalProperties',
    'minProperties',
    'maxProperties',
    'anyOf',
    'oneOf',
    'allOf',
    'not',
    'description',
  ] as const

  addKeyword(node: Record<string, Json>, depth: number): void {
    const keyword = this.pick<string>(this.openapi ? SchemaGenerator.OPENAPI_KEYWORDS : SchemaGenerator.KEYWORDS)
    if (keyword === 'propertyNames') node.propertyNames = { maxLength: this.pick([0, 1]) }
    else if (keyword === 'description') node.description = this.pick(['x', 'y'])
    else node[keyword] = this.keywordValue(keyword, depth)
  }

  /** One random edit somewhere in the document: a keyword added, removed or changed, or a subschema replaced. */
  edit(document: Record<string, Json>): Record<string, Json> {
    const copy = JSON.parse(JSON.stringify(document)) as Record<string, Json>
    const nodes: Found[] = []
    if (this.openapi) {
      const schemas = (copy.components as Record<string, Json>).schemas as Record<string, Json>
      for (const [name, value] of Object.entries(schemas)) collectSchemas(value, nodes, schemas, name, name === 'D0', name === 'D1')
    } else collectSchemas(copy, nodes)
    // Edits inside a definition nothing references change nothing: leave those out.
    const text = JSON.stringify(copy)
    const referenced = (name: string) => text.includes(`"$ref":"${this.ref(name)}"`)
    const live = nodes.filter((found) => (!found.inD0 || referenced('D0')) && (!found.inD1 || referenced('D1')))
    const target = this.pick(live.length ? live : nodes)
    const depth = 1
    // Inside D0 no reference may be made; elsewhere only to D0.
    this.refs = target.inD0 ? [] : [this.ref('D0')]
    if (typeof target.node === 'boolean' || this.chance(0.1)) {
      setChild(target.parent, target.key, this.schema(depth) as Json)
      return copy
    }
    const node = target.node
    const keys = Object.keys(node).filter((key) => key !== '$defs' && key !== '$schema')
    const roll = this.next()
    if (roll < 0.35 || keys.length === 0) this.addKeyword(node, depth)
    else if (roll < 0.6) delete node[this.pick(keys)]
    else {
      const key = this.pick(keys)
      if (key === 'properties' && node.properties && typeof node.properties === 'object' && !Array.isArray(node.properties) && this.chance(0.5)) {
        const props = node.properties as Record<string, Json>
        const name = this.pick(KEYS)
        if (Object.hasOwn(props, name) && this.chance(0.5)) delete props[name]
        else props[name] = this.schema(depth) as Json
      } else if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf') && Array.isArray(node[key]) && this.chance(0.5)) {
        const members = node[key] as Json[]
        if (members.length > 1 && this.chance(0.5)) members.splice(Math.floor(this.next() * members.length), 1)
        else members.push(this.schema(depth) as Json)
      } else if (key === '$ref') node.$ref = target.inD0 || target.inD1 ? this.ref('D0') : this.pick([this.ref('D0'), this.ref('D1')])
      else node[key] = this.keywordValue(key, depth)
    }
    return copy
  }
}

function setChild(parent: Record<string, Json> | Json[], key: string | number, value: Json): void {
  if (Array.isArray(parent)) parent[key as number] = value
  else parent[key as string] = value
}

const SCHEMA_MAPS = new Set(['properties', '$defs'])
const SCHEMA_LISTS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems'])
const SCHEMA_VALUES = new Set(['items', 'additionalProperties', 'not', 'propertyNames'])

/** Every subschema of a document with where it sits (the root excluded: it is edited in place). */
interface Found {
  parent: Record<string, Json> | Json[]
  key: string | number
  node: Schema
  inD0: boolean
  inD1: boolean
}

function collectSchemas(node: Json, out: Found[], parent?: Record<string, Json> | Json[], key?: string | number, inD0 = false, inD1 = false): void {
  if (parent !== undefined && key !== undefined && (typeof node === 'boolean' || (node && typeof node === 'object' && !Array.isArray(node))))
    out.push({ parent, key, node: node as Schema, inD0, inD1 })
  if (!node || typeof node !== 'object' || Array.isArray(node)) return
  if (parent === undefined) out.push({ parent: [node], key: 0, node: node as Schema, inD0, inD1 })
  for (const [name, value] of Object.entries(node)) {
    if (SCHEMA_MAPS.has(name) && value && typeof value === 'object' && !Array.isArray(value))
      for (const [k, v] of Object.entries(value)) {
        const defs = name === '$defs' && parent === undefined
        collectSchemas(v, out, value as Record<string, Json>, k, inD0 || (defs && k === 'D0'), inD1 || (defs && k === 'D1'))
      }
    else if (SCHEMA_LISTS.has(name) && Array.isArray(value)) value.forEach((v, i) => collectSchemas(v, out, value, i, inD0, inD1))
    else if (SCHEMA_VALUES.has(name)) collectSchemas(value, out, node as Record<string, Json>, name, inD0, inD1)
  }
}

/**
 * ajv (draft 2020-12) as the judge of what a schema accepts. With `allErrors`: without it ajv 8.20
 * skips the keywords after a tuple (`prefixItems`, `items` as a list) for an array shorter than the
 * tuple, so `{prefixItems: [{type: 'integer'}], contains: {}}` accepted `[]` (found by the implied-bounds oracle).
 */
export function judge(): (schema: unknown) => (value: unknown) => boolean {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, validateSchema: false, code: { optimize: false } })
  return (schema) => {
    const validate = ajv.compile(schema as object)
    return (value) => validate(value) as boolean
  }
}

/** A document of component schemas: the shared schemas and the payloads `P0`, `P1`, ... that name them. */
export type ComponentsDoc = { components: { schemas: Record<string, unknown> } }

/** A deep copy of JSON data. */
export const cloneJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T

/**
 * Every payload `P<i>` diffed with its own call, on fresh copies of both documents (memos keyed by
 * the documents start empty), as the NATS differ diffs each channel's payload.
 */
export function diffEachPayload(docs: { old: ComponentsDoc; new: ComponentsDoc }, payloads: number, dialect: 'json-schema' | 'openapi-3.0'): SchemaChange[][] {
  const old = cloneJson(docs.old)
  const next = cloneJson(docs.new)
  const out: SchemaChange[][] = []
  for (let i = 0; i < payloads; i++) {
    const pointer = `/components/schemas/P${i}`
    out.push(diffSchemas(sideOf(old, pointer, { file: '/virtual/old.json' }), sideOf(next, pointer, { file: '/virtual/new.json' }), { dialect }))
  }
  return out
}
