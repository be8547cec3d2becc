import { isObject } from '../../../runtime/benzene/document.js'
import { benzeneRule } from './rule.js'

/**
 * Benzene Contract Document §1: `openapi` is REQUIRED and "always the literal \"3.0.1\"", a heritage
 * marker naming the schema dialect, and "Consumers MUST NOT reject a document on this value". So
 * any other value (another string, a number, null) is a warning and the build goes on; only its
 * absence is an error (BENZENE_MISSING_MEMBER), as for every REQUIRED member. The schemas are read
 * as OpenAPI 3.0 whatever it says.
 *
 * Complexity: O(1).
 */
export const openapiValue = benzeneRule({
  code: 'BENZENE_OPENAPI_VALUE',
  severity: 'warning',
  description: '`openapi` is not the literal "3.0.1" producers write; never a reason to reject the document (Benzene Contract Document §1).',
  check({ doc }, report) {
    if (!isObject(doc) || !('openapi' in doc) || doc.openapi === '3.0.1') return
    report('/openapi', `\`openapi\` is ${JSON.stringify(doc.openapi)}, not "3.0.1"; the document is read as the OpenAPI 3.0 schema dialect regardless.`, {
      value: doc.openapi,
    })
  },
})
