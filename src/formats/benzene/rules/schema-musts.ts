import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { hasFlag, isObject } from '../../../runtime/benzene/document.js'
import { benzeneSchemaRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): O(schemas) over the shared schema list. */

/** JSON Schema Wright draft 00 §5.4.3, which OpenAPI 3.0 takes `required` from: "This array MUST have at least one element." */
export const requiredNonEmpty = benzeneSchemaRule({
  code: 'BENZENE_REQUIRED_EMPTY',
  description: '`required: []`: the array must have at least one element (OpenAPI 3.0 Schema Object, from JSON Schema Wright draft 00 §5.4.3).',
  visit(schema, where, report) {
    if (isObject(schema) && Array.isArray(schema.required) && schema.required.length === 0) {
      report(joinPointer(where(), 'required'), '`required` must list at least one property; omit it when none is required.')
    }
  },
})

/** OpenAPI 3.0 Schema Object, readOnly/writeOnly: "A property MUST NOT be marked as both readOnly and writeOnly being true." */
export const readWriteOnly = benzeneSchemaRule({
  code: 'BENZENE_READ_WRITE_ONLY',
  description: 'A schema marked both `readOnly: true` and `writeOnly: true` (OpenAPI 3.0 Schema Object: MUST NOT).',
  visit(schema, where, report) {
    if (hasFlag(schema, 'readOnly') && hasFlag(schema, 'writeOnly')) {
      report(joinPointer(where(), 'writeOnly'), 'A schema cannot be both readOnly (sent by the service only) and writeOnly (sent to it only).')
    }
  },
})

const JSON_TYPE: Record<string, (value: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number',
  integer: (v) => typeof v === 'number' && Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  array: (v) => Array.isArray(v),
  object: (v) => isObject(v),
}

/** OpenAPI 3.0 Schema Object, default: "The default value MUST conform to the defined type for the Schema Object defined at the same level." */
export const defaultType = benzeneSchemaRule({
  code: 'BENZENE_DEFAULT_TYPE',
  description: "A `default` that is not of the schema's `type` (null only where `nullable: true`) (OpenAPI 3.0 Schema Object: MUST conform).",
  visit(schema, where, report) {
    if (!isObject(schema) || !('default' in schema) || typeof schema.type !== 'string' || !Object.hasOwn(JSON_TYPE, schema.type)) return
    const value = schema.default
    if (value === null ? schema.nullable === true : JSON_TYPE[schema.type]!(value)) return
    report(
      joinPointer(where(), 'default'),
      `\`default\` ${JSON.stringify(value)} is not of type ${schema.type}${value === null ? ' (null needs nullable: true)' : ''}.`,
    )
  },
})
