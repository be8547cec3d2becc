import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../../../runtime/benzene/document.js'
import { forEachSchema } from '../schema-walk.js'
import { refTarget } from '../../../runtime/benzene/document.js'
import type { BenzeneRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): O(members + mapping) per discriminated schema. */

/**
 * A `discriminator` (OpenAPI 3.0) needs a `oneOf`/`anyOf` to choose from, a `propertyName`, and
 * for every member a value: `$ref` members are named by their schema, inline members need a
 * `mapping` entry; every mapping target must be a schema of the document.
 */
export const discriminatorShape: BenzeneRule = {
  code: 'BENZENE_INVALID_DISCRIMINATOR',
  description:
    'A `discriminator` without `propertyName`, without `oneOf`/`anyOf`, with an inline member no mapping names, or mapping to a schema that does not exist.',
  check({ doc, report }) {
    const schemas = isObject(doc) && isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {}
    forEachSchema(doc, (schema, where) => {
      if (!isObject(schema) || !('discriminator' in schema)) return
      const pointer = where()
      const at = joinPointer(pointer, 'discriminator')
      const d = schema.discriminator
      if (!isObject(d) || typeof d.propertyName !== 'string' || d.propertyName === '') {
        return report(at, 'A discriminator needs a non-empty `propertyName`.')
      }
      const members = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined
      if (!members) return report(at, 'A discriminator chooses among `oneOf` or `anyOf` members; this schema has neither.')
      const mapping = isObject(d.mapping) ? d.mapping : {}
      for (const [value, target] of Object.entries(mapping)) {
        const name = typeof target === 'string' ? (refTarget(target) ?? target) : undefined
        if (name === undefined || !Object.hasOwn(schemas, name)) {
          report(
            joinPointer(at, 'mapping', value),
            `Discriminator value ${JSON.stringify(value)} maps to ${JSON.stringify(target)}, which is not a schema of this document.`,
          )
        }
      }
      members.forEach((member, i) => {
        if (isObject(member) && refTarget(member.$ref) === undefined) {
          report(
            joinPointer(pointer, Array.isArray(schema.oneOf) ? 'oneOf' : 'anyOf', i),
            'An inline member cannot be selected by a discriminator: make it a component schema and `$ref` it.',
          )
        }
      })
    })
  },
}
