/**
 * Documents made from a JSON Schema, for holding the editor schemas (schemas/) and the checker to
 * the same verdicts: `sampleOf` makes a value with every member a schema names (each valid by it),
 * and `familyOf` lists, for each object the schema describes in that value, its variants: an
 * unknown member planted, each member given a value of a wrong type, each member removed. Whether a
 * variant is malformed is for a shape check to say (an unknown member in an open object, or an
 * optional member removed, is not): the schema and the checker must say the same. Only the subset of JSON Schema the checker's
 * shapes use is understood (type, properties, required, additionalProperties, items, anyOf,
 * if/then/else on a type, enum, const, min*).
 */
import type { ValidateFunction } from 'ajv'
import { escapeToken } from '../../src/runtime/shared/json-pointer.js'

export type Schema = Record<string, any>
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

const isObject = (value: unknown): value is Record<string, Json> => typeof value === 'object' && value !== null && !Array.isArray(value)
const typesOf = (schema: Schema): string[] => (schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type])

/** The schema with its `if` decided for a value of `type` (the shapes test only the type in `if`). */
function decided(schema: Schema, type: string | undefined): Schema {
  if (schema.if === undefined) return schema
  const { if: test, then, else: otherwise, ...rest } = schema
  const branch = typesOf(test).includes(type ?? '') ? then : otherwise
  return { ...rest, ...(branch ?? {}) }
}

/** The JSON type of a value as a schema's `type` names it. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value
}

/** A value valid by `schema` with every member it names present (an object, then an array, is preferred where a type is open). */
export function sampleOf(schema: Schema): Json {
  if (schema.const !== undefined) return schema.const
  if (schema.enum !== undefined) return schema.enum[0]
  if (schema.anyOf !== undefined) {
    // The deepest branch: an object one reaches more members.
    const branch = schema.anyOf.find((b: Schema) => typesOf(b).includes('object')) ?? schema.anyOf[0]
    return sampleOf(branch)
  }
  const types = typesOf(schema)
  const type = ['object', 'array', 'string', 'integer', 'number', 'boolean'].find((t) => types.length === 0 || types.includes(t))
  const s = decided(schema, type)
  switch (type) {
    case 'object': {
      const out: Record<string, Json> = {}
      for (const [name, member] of Object.entries<Schema>(s.properties ?? {})) out[name] = sampleOf(member)
      if (isObject(s.additionalProperties)) out.entry = sampleOf(s.additionalProperties)
      else if (Object.keys(out).length < (s.minProperties ?? 0)) out.entry = 'text'
      return out
    }
    case 'array':
      return [s.items === undefined ? 'text' : sampleOf(s.items)]
    case 'string':
      return 'text'
    case 'integer':
    case 'number':
      return Math.max(1, s.minimum ?? 1)
    default:
      return true
  }
}

/** One variant: the document with a member set to `value` (or removed), and where a report of it would point. */
export interface Variant {
  what: 'unknown member' | 'wrong type' | 'missing member'
  /** The parent's pointer and the member's name. */
  parent: string
  member: string
  /** `undefined`: the member is removed. */
  value: Json | undefined
  /** The pointers a report of this variant may name: the member, or (a missing one) also its object. */
  names: string[]
}

export const pointerOf = (parent: string, member: string) => `${parent}/${escapeToken(member)}`

/** Values of each JSON type, one of which a member schema refuses. */
const WRONG: Json[] = [true, 'text', 1.5, [], {}, null]

/**
 * The variants of `value` (valid by `schema`), once per object schema (a shared shape, such as a
 * pin used in three places, is varied where it first occurs). `accepts(schema, value)` is a
 * validator of the same draft, which picks a wrong value for each member; it does not decide which
 * variants are malformed (the variants do not depend on what the schema requires or closes).
 */
export function familyOf(schema: Schema, value: Json, accepts: (schema: Schema, value: unknown) => boolean): Variant[] {
  const out: Variant[] = []
  const varied = new Set<object>()
  const walk = (schema: Schema, value: Json, pointer: string): void => {
    if (schema.anyOf !== undefined) {
      const branch = schema.anyOf.find((b: Schema) => accepts(b, value))
      if (branch) walk(branch, value, pointer)
      return
    }
    const s = decided(schema, jsonType(value))
    if (isObject(value)) {
      const properties: Record<string, Schema> = s.properties ?? {}
      if (!varied.has(s)) {
        varied.add(s)
        out.push({ what: 'unknown member', parent: pointer, member: 'notAMember', value: 'text', names: [pointerOf(pointer, 'notAMember')] })
        const members = Object.entries(properties).filter(([name]) => Object.hasOwn(value, name))
        if (isObject(s.additionalProperties)) {
          const key = Object.keys(value).find((k) => !Object.hasOwn(properties, k))
          if (key !== undefined) members.push([key, s.additionalProperties])
        }
        for (const [name, member] of members) {
          const wrong = WRONG.find((candidate) => !accepts(member, candidate))
          if (wrong !== undefined) out.push({ what: 'wrong type', parent: pointer, member: name, value: wrong, names: [pointerOf(pointer, name)] })
        }
        for (const [name] of members)
          out.push({ what: 'missing member', parent: pointer, member: name, value: undefined, names: [pointerOf(pointer, name), pointer] })
      }
      for (const [name, child] of Object.entries(value)) {
        const member = Object.hasOwn(properties, name) ? properties[name] : isObject(s.additionalProperties) ? s.additionalProperties : undefined
        if (member) walk(member, child, pointerOf(pointer, name))
      }
    } else if (Array.isArray(value) && isObject(s.items)) {
      value.forEach((item, i) => walk(s.items, item, `${pointer}/${i}`))
    }
  }
  walk(schema, value, '')
  return out
}

/** `doc` with one variant applied (a copy; `doc` is not changed). */
export function applied(doc: unknown, variant: Variant): Json {
  const copy = structuredClone(doc) as Json
  const tokens =
    variant.parent === ''
      ? []
      : variant.parent
          .slice(1)
          .split('/')
          .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
  let at: any = copy
  for (const token of tokens) at = at[token]
  if (variant.value === undefined) delete at[variant.member]
  else at[variant.member] = variant.value
  return copy
}

/** Every pointer an ajv error speaks about: its value, and the member it names (an unknown or a missing one). */
export function errorPointers(errors: ValidateFunction['errors']): Set<string> {
  const out = new Set<string>()
  for (const e of errors ?? []) {
    out.add(e.instancePath)
    const params = e.params as { additionalProperty?: string; missingProperty?: string }
    if (params.additionalProperty !== undefined) out.add(pointerOf(e.instancePath, params.additionalProperty))
    if (params.missingProperty !== undefined) out.add(pointerOf(e.instancePath, params.missingProperty))
  }
  return out
}
