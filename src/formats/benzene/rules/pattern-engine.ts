import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { unicodeModeSource } from '../../../core/pattern-dialect.js'
import { PATTERN_BUDGET_TEXT, budgetedPatternMessage, patternEngine } from '../../../core/pattern-safety.js'
import { MAX_PATTERN_STEPS } from '../../../runtime/shared/budgeted-pattern.js'
import { isObject } from '../../../runtime/benzene/document.js'
import { benzeneSchemaRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): O(schemas + pattern lengths) over the shared schema list. */

/**
 * A `pattern` that no proof places on a linear-time engine (a backreference, a lookbehind, a
 * lookaround other than a leading one, a form RE2 cannot express or a program past its bound): it
 * builds, and runs on the budgeted backtracking matcher, so a value it cannot decide within the
 * step budget fails validation with its own error. A warning: the document is valid (OpenAPI 3.0
 * allows any ECMA-262 pattern), but its author should know what happens at run time. See
 * `src/core/pattern-safety.ts` for the policy. Linear in the pattern's length.
 */
export const patternEngineRule = benzeneSchemaRule({
  code: 'BENZENE_PATTERN_BUDGETED',
  severity: 'warning',
  description: `A \`pattern\` not proven to run in linear time (backreference, lookbehind, a lookaround other than a leading one, a form RE2 cannot express): it runs under a budget of ${PATTERN_BUDGET_TEXT} steps per value, and a value it cannot decide within it fails validation.`,
  visit(schema, where, report) {
    if (!isObject(schema) || typeof schema.pattern !== 'string') return
    // Read as OpenAPI 3.0 does, without the Unicode flag; one that does not parse at all is BENZENE_INVALID_SCHEMA's.
    const read = unicodeModeSource(schema.pattern)
    if (!read.ok) return
    const engine = patternEngine(read.source)
    if (engine.engine !== 'budgeted') return
    report(joinPointer(where(), 'pattern'), budgetedPatternMessage(schema.pattern, engine.reason), { pattern: schema.pattern, budget: MAX_PATTERN_STEPS })
  },
})
