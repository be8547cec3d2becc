import { unicodeModeSource } from '../../../core/pattern-dialect.js'
import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../../../runtime/benzene/document.js'
import type { Where } from '../schema-walk.js'
import { benzeneSchemaRule, type Report } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): O(keywords) per schema over the shared schema list; duplicates in required through a set. */

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object'])

/**
 * The OpenAPI 3.0 Schema Object keywords the generator reads must have the shape 3.0 gives them.
 * Keywords it does not read are left alone (documents may carry vendor extensions).
 */
// Hoisted: checkSchema runs once per schema node, and a literal array per call showed as garbage (bench/).
const SCHEMA_VALUED = ['items', 'not']
const COMBINERS = ['allOf', 'anyOf', 'oneOf']
const BOUNDS = ['minimum', 'maximum']
const OPENAPI_FLAGS = ['uniqueItems', 'exclusiveMinimum', 'exclusiveMaximum']
const FLAGS = ['nullable', 'readOnly', 'writeOnly']
const COUNTS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties']

/**
 * Whether every keyword `checkSchema` reads is well shaped, read once per own key (most schemas
 * have a few keys, and asking for each of some thirty keywords was most of this rule's time). A
 * schema it accepts gets no report from `checkSchema`; any other is checked there, which reports in
 * its fixed order. Nested schemas are not looked at: `checkSchema` checks a non-object member.
 */
function wellShaped(schema: Record<string, unknown>): boolean {
  for (const key in schema) {
    const value = schema[key]
    switch (key) {
      case 'type':
        if (!(typeof value === 'string' && TYPES.has(value))) return false
        if (value === 'array' && !('items' in schema)) return false
        break
      case 'properties':
        if (!isObject(value)) return false
        for (const name in value) if (!isObject(value[name])) return false
        break
      case 'required':
        if (!(Array.isArray(value) && value.every((n) => typeof n === 'string') && new Set(value).size === value.length)) return false
        break
      case 'items':
      case 'not':
        if (!isObject(value)) return false
        break
      case 'additionalProperties':
        if (typeof value !== 'boolean' && !isObject(value)) return false
        break
      case 'allOf':
      case 'anyOf':
      case 'oneOf':
        if (!Array.isArray(value) || value.length === 0 || !value.every((member) => isObject(member))) return false
        break
      case 'pattern':
        // Left to `checkSchema`, which reads the pattern (as rarely as patterns are written).
        return false
      case 'enum':
        if (!Array.isArray(value)) return false
        break
      case 'minimum':
      case 'maximum':
        if (typeof value !== 'number') return false
        break
      case 'multipleOf':
        if (!(typeof value === 'number' && value > 0)) return false
        break
      case 'minLength':
      case 'maxLength':
      case 'minItems':
      case 'maxItems':
      case 'minProperties':
      case 'maxProperties':
        if (!(Number.isSafeInteger(value) && (value as number) >= 0)) return false
        break
      case 'uniqueItems':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
      case 'nullable':
      case 'readOnly':
      case 'writeOnly':
        if (typeof value !== 'boolean') return false
        break
      default:
        // An inherited name `in` would see, or anything else: `checkSchema` decides.
        if (!Object.hasOwn(schema, key)) return false
    }
  }
  return true
}

function checkSchema(schema: unknown, where: Where, report: Report): void {
  if (isObject(schema) && wellShaped(schema)) return
  if (!isObject(schema)) {
    report(where(), `A schema must be an object (OpenAPI 3.0 has no boolean schemas), not ${JSON.stringify(schema)}.`)
    return
  }
  const bad = (key: string, expected: string) => report(joinPointer(where(), key), `\`${key}\` must be ${expected}.`, { keyword: key })
  const type = schema.type
  if ('type' in schema && !(typeof type === 'string' && TYPES.has(type))) bad('type', `one of ${[...TYPES].join(', ')} (OpenAPI 3.0 has no type arrays)`)
  if ('properties' in schema) {
    const properties = schema.properties
    if (!isObject(properties)) bad('properties', 'an object of schemas')
    else
      for (const name of Object.keys(properties))
        if (!isObject(properties[name])) checkSchema(properties[name], () => joinPointer(where(), 'properties', name), report)
  }
  if ('required' in schema) {
    const required = schema.required
    if (!(Array.isArray(required) && required.every((n) => typeof n === 'string') && new Set(required).size === required.length))
      bad('required', 'an array of distinct property names')
  }
  for (const key of SCHEMA_VALUED) if (key in schema && !isObject(schema[key])) bad(key, 'a schema object')
  if (type === 'array' && !('items' in schema)) report(where(), 'A schema of type "array" must have `items` (OpenAPI 3.0).', { keyword: 'items' })
  if ('additionalProperties' in schema && typeof schema.additionalProperties !== 'boolean' && !isObject(schema.additionalProperties)) {
    bad('additionalProperties', 'a boolean or a schema object')
  }
  for (const key of COMBINERS) {
    if (!(key in schema)) continue
    const list = schema[key]
    if (!Array.isArray(list) || list.length === 0) bad(key, 'a non-empty array of schemas')
    else for (let i = 0; i < list.length; i++) if (!isObject(list[i])) checkSchema(list[i], () => joinPointer(where(), key, i), report)
  }
  if ('pattern' in schema) {
    // OpenAPI 3.0 reads patterns as ECMA-262 without the Unicode flag (core/pattern-dialect.ts).
    const read = typeof schema.pattern === 'string' ? unicodeModeSource(schema.pattern) : undefined
    if (!read || (!read.ok && read.invalid)) bad('pattern', 'a regular expression (ECMA-262, read without the Unicode flag)')
  }
  // Empty or repeating enums are SHOULD-level (schema-shoulds.ts); only a non-array breaks the MUST.
  if ('enum' in schema && !Array.isArray(schema.enum)) bad('enum', 'an array')
  for (const key of BOUNDS) if (key in schema && typeof schema[key] !== 'number') bad(key, 'a number')
  if ('multipleOf' in schema && !(typeof schema.multipleOf === 'number' && schema.multipleOf > 0)) bad('multipleOf', 'a number greater than 0')
  for (const key of COUNTS) {
    if (key in schema && !(Number.isSafeInteger(schema[key]) && (schema[key] as number) >= 0)) bad(key, 'a non-negative integer')
  }
  for (const key of OPENAPI_FLAGS) if (key in schema && typeof schema[key] !== 'boolean') bad(key, 'a boolean (OpenAPI 3.0)')
  for (const key of FLAGS) if (key in schema && typeof schema[key] !== 'boolean') bad(key, 'a boolean')
}

export const schemaKeywords = benzeneSchemaRule({
  code: 'BENZENE_INVALID_SCHEMA',
  description:
    'A schema, or a keyword the generator reads (type, properties, required, items, additionalProperties, allOf/anyOf/oneOf, enum, nullable), is not shaped as OpenAPI 3.0 defines it.',
  visit(schema, where, report) {
    // Top-level schemas of the wrong JSON type are BENZENE_WRONG_TYPE's; nested ones are ours.
    if (isObject(schema)) checkSchema(schema, where, report)
  },
})
