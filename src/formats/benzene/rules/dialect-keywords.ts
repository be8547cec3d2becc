import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../../../runtime/benzene/document.js'
import { benzeneSchemaRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): O(keywords) per schema over the shared schema list. */

/**
 * JSON Schema keywords that the OpenAPI 3.0 Schema Object does not take (it lists the keywords it
 * takes from JSON Schema Wright draft 00 and adds its own; later drafts' keywords are not among
 * them). Each value says what the generator does with the keyword.
 */
const OUTSIDE: Readonly<Record<string, string>> = {
  patternProperties: 'ignored',
  dependencies: 'ignored',
  dependentRequired: 'ignored',
  dependentSchemas: 'ignored',
  propertyNames: 'ignored',
  if: 'ignored',
  then: 'ignored',
  else: 'ignored',
  contains: 'ignored',
  minContains: 'ignored',
  maxContains: 'ignored',
  additionalItems: 'ignored',
  prefixItems: 'ignored',
  unevaluatedProperties: 'ignored',
  unevaluatedItems: 'ignored',
  const: 'checked as JSON Schema draft 6 defines it (other OpenAPI 3.0 tools may ignore it)',
}

/**
 * A keyword from a later JSON Schema draft in an OpenAPI 3.0 schema: legal to carry (unknown
 * keywords are not forbidden), but no OpenAPI 3.0 reader checks it, so a payload it was meant to
 * refuse is accepted. Said once per keyword, where it is written.
 */
export const dialectKeywords = benzeneSchemaRule({
  code: 'BENZENE_KEYWORD_OUTSIDE_DIALECT',
  severity: 'warning',
  description: 'A JSON Schema keyword that the OpenAPI 3.0 Schema Object does not have (`patternProperties`, `dependencies`, `if`, `const`, ...).',
  visit(schema, where, report) {
    if (!isObject(schema)) return
    for (const key of Object.keys(schema)) {
      if (!Object.hasOwn(OUTSIDE, key)) continue
      report(
        joinPointer(where(), key),
        `\`${key}\` is not an OpenAPI 3.0 Schema Object keyword; it is ${OUTSIDE[key]}. Write it with the 3.0 keywords, or move the document to a dialect that has it.`,
        { keyword: key },
      )
    }
  },
})
