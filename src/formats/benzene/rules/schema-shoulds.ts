import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../../../runtime/benzene/document.js'
import { canonicalKey } from '../../../runtime/shared/schema-values.js'
import { benzeneSchemaRule } from './rule.js'

/**
 * SHOULD-level problems of the schema dialect: warnings, the build goes on. OpenAPI 3.0 takes `enum`
 * from JSON Schema Wright draft 00 §5.5.1: the value MUST be an array (BENZENE_INVALID_SCHEMA
 * otherwise), it SHOULD have at least one element, and its elements SHOULD be unique.
 *
 * Complexity: O(schemas + enum values) over the shared schema list; duplicates through one set of
 * canonical keys (O(total size of the values)).
 */

const enumOf = (schema: unknown): unknown[] | undefined => (isObject(schema) && Array.isArray(schema.enum) ? schema.enum : undefined)

export const enumEmpty = benzeneSchemaRule({
  code: 'BENZENE_ENUM_EMPTY',
  severity: 'warning',
  description: '`enum: []` admits no value at all (JSON Schema Wright draft 00 §5.5.1: SHOULD have at least one element).',
  visit(schema, where, report) {
    if (enumOf(schema)?.length === 0) report(joinPointer(where(), 'enum'), '`enum` is empty: no value is valid here; the type is `never`.')
  },
})

export const enumDuplicate = benzeneSchemaRule({
  code: 'BENZENE_ENUM_DUPLICATE',
  severity: 'warning',
  description: 'An `enum` lists one value twice, `0` and `-0` included (JSON Schema Wright draft 00 §5.5.1: elements SHOULD be unique).',
  visit(schema, where, report) {
    const values = enumOf(schema)
    if (values === undefined || values.length < 2) return
    const seen = new Map<string, number>()
    for (let i = 0; i < values.length; i++) {
      // Equal as JSON values: canonical keys compare numbers by value (0 and -0 alike) and objects whatever their key order.
      const key = canonicalKey(values[i])
      const first = seen.get(key)
      if (first !== undefined) {
        report(joinPointer(where(), 'enum', i), `\`enum\` lists ${JSON.stringify(values[i])} again (first at index ${first}); the repeat changes nothing.`)
        return
      }
      seen.set(key, i)
    }
  },
})
