import { documentShape, kindOf, walkShape } from './shape.js'
import { benzeneRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): O(document) through the shared shape walk. */

const article = (kind: string) => (/^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`)

export const memberTypes = benzeneRule({
  code: 'BENZENE_WRONG_TYPE',
  description: 'A known member has the wrong JSON type (e.g. `requests` not an array, `topic` not a string, a schema that is not an object).',
  check({ doc }, report) {
    walkShape(doc, documentShape, '', (pointer, spec, value, present) => {
      if (!present || spec.kind === 'any') return
      const actual = kindOf(value)
      if (actual !== spec.kind) {
        report(pointer, `${pointer === '' ? 'The document' : pointer} must be ${article(spec.kind)}, not ${article(actual)}.`, { expected: spec.kind, actual })
      }
    })
  },
})
