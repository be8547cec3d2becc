import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject, refTarget } from '../../../runtime/benzene/document.js'
import { benzeneRule, benzeneSchemaRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): O(schemas) over the shared schema list, each reference a map lookup. */

export const refForm = benzeneSchemaRule({
  code: 'BENZENE_REF_FORM',
  description: 'A `$ref` is not of the exact form `#/components/schemas/<name>` (no external, relative or other-part refs; Benzene Contract Document §4).',
  visit(schema, where, report) {
    if (!isObject(schema) || !('$ref' in schema)) return
    if (refTarget(schema.$ref) === undefined) {
      report(
        joinPointer(where(), '$ref'),
        `$ref ${JSON.stringify(schema.$ref)} is not of the form "#/components/schemas/<name>"; contract documents allow no other reference (Benzene Contract Document §4).`,
        { ref: schema.$ref },
      )
    }
  },
})

export const refTargetExists = benzeneRule({
  code: 'BENZENE_REF_MISSING',
  description: 'A `$ref` names a schema that `components.schemas` does not declare.',
  check({ doc, facts }, report) {
    const schemas = isObject(doc) && isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : undefined
    if (!schemas) return
    facts.forEachSchema((schema, where) => {
      if (!isObject(schema)) return
      const name = refTarget(schema.$ref)
      if (name !== undefined && !Object.hasOwn(schemas, name)) {
        report(joinPointer(where(), '$ref'), `$ref points at components.schemas[${JSON.stringify(name)}], which does not exist.`, {
          ref: schema.$ref,
          name,
        })
      }
    })
  },
})
