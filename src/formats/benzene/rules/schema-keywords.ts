import { joinPointer } from '../../../core/json-pointer.js'
import { isObject } from '../document.js'
import { forEachSchema } from '../schema-walk.js'
import type { Report, Rule } from './rule.js'

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object'])

/**
 * The OpenAPI 3.0 Schema Object keywords the generator reads must have the shape 3.0 gives them.
 * Keywords it does not read are left alone (documents may carry vendor extensions).
 */
function checkSchema(schema: unknown, pointer: string, report: Report): void {
  if (!isObject(schema)) {
    report(pointer, `A schema must be an object (OpenAPI 3.0 has no boolean schemas), not ${JSON.stringify(schema)}.`)
    return
  }
  const bad = (key: string, expected: string) => report(joinPointer(pointer, key), `\`${key}\` must be ${expected}.`, { keyword: key })
  const at = (key: string) => schema[key]
  if ('type' in schema && !(typeof at('type') === 'string' && TYPES.has(at('type') as string))) {
    bad('type', `one of ${[...TYPES].join(', ')} (OpenAPI 3.0 has no type arrays)`)
  }
  if ('properties' in schema) {
    if (!isObject(at('properties'))) bad('properties', 'an object of schemas')
    else for (const [name, child] of Object.entries(at('properties') as object)) if (!isObject(child)) checkSchema(child, joinPointer(pointer, 'properties', name), report)
  }
  if ('required' in schema && !(Array.isArray(at('required')) && (at('required') as unknown[]).every((n) => typeof n === 'string') && new Set(at('required') as string[]).size === (at('required') as string[]).length)) {
    bad('required', 'an array of distinct property names')
  }
  for (const key of ['items', 'not']) if (key in schema && !isObject(at(key))) bad(key, 'a schema object')
  if (at('type') === 'array' && !('items' in schema)) report(pointer, 'A schema of type "array" must have `items` (OpenAPI 3.0).', { keyword: 'items' })
  if ('additionalProperties' in schema && typeof at('additionalProperties') !== 'boolean' && !isObject(at('additionalProperties'))) {
    bad('additionalProperties', 'a boolean or a schema object')
  }
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    if (!(key in schema)) continue
    const list = at(key)
    if (!Array.isArray(list) || list.length === 0) bad(key, 'a non-empty array of schemas')
    else list.forEach((child, i) => !isObject(child) && checkSchema(child, joinPointer(pointer, key, i), report))
  }
  if ('pattern' in schema) {
    if (typeof at('pattern') !== 'string' || !compiles(at('pattern') as string)) bad('pattern', 'a regular expression (ECMA-262, Unicode mode)')
  }
  if ('enum' in schema) {
    const values = at('enum')
    if (!(Array.isArray(values) && values.length > 0)) bad('enum', 'a non-empty array')
    else if (new Set(values.map((v) => JSON.stringify(v))).size !== values.length) bad('enum', 'a list of distinct values')
  }
  for (const key of ['minimum', 'maximum']) if (key in schema && typeof at(key) !== 'number') bad(key, 'a number')
  if ('multipleOf' in schema && !(typeof at('multipleOf') === 'number' && (at('multipleOf') as number) > 0)) bad('multipleOf', 'a number greater than 0')
  for (const key of ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties']) {
    if (key in schema && !(Number.isSafeInteger(at(key)) && (at(key) as number) >= 0)) bad(key, 'a non-negative integer')
  }
  for (const key of ['uniqueItems', 'exclusiveMinimum', 'exclusiveMaximum']) if (key in schema && typeof at(key) !== 'boolean') bad(key, 'a boolean (OpenAPI 3.0)')
  for (const key of ['nullable', 'readOnly', 'writeOnly']) if (key in schema && typeof at(key) !== 'boolean') bad(key, 'a boolean')
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u')
    return true
  } catch {
    return false
  }
}

export const schemaKeywords: Rule = {
  code: 'BENZENE_INVALID_SCHEMA',
  description: 'A schema, or a keyword the generator reads (type, properties, required, items, additionalProperties, allOf/anyOf/oneOf, enum, nullable), is not shaped as OpenAPI 3.0 defines it.',
  check(doc, report) {
    forEachSchema(doc, (schema, pointer) => {
      // Top-level schemas of the wrong JSON type are BENZENE_WRONG_TYPE's; nested ones are ours.
      if (isObject(schema)) checkSchema(schema, pointer, report)
    })
  },
}
