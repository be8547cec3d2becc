import { jsLiteral, sortKeys } from './emit.js'
import { usesLinear } from './pattern-safety.js'
import type { PatternSpec } from '../runtime/shared/pattern-matchers.js'

/**
 * The module constant holding the matchers of every pattern its validators do not run as one
 * native `RegExp` (`patternMatchers`, imported with the validators' other helpers as
 * `PATTERN_MATCHERS_HELPER`).
 */
export const PATTERNS_CONSTANT = '$patterns'
/** The runtime helper that builds the constant, as the module imports it. */
export const PATTERN_MATCHERS_HELPER = 'patternMatchers as $patternMatchers'
/** The import of the linear-time engine, for the header of a module with a pattern that needs it (`usesLinear`). */
export const LINEAR_PATTERNS_IMPORT = 'import { linearMatcher as $linearMatcher } from "unplugin-contracts/runtime/linear-pattern";'

/** Whether any of the patterns needs the linear-time engine (then the module imports it: `LINEAR_PATTERNS_IMPORT`). */
export function needsLinearEngine(patterns: ReadonlyMap<string, PatternSpec>): boolean {
  for (const spec of patterns.values()) if (usesLinear(spec)) return true
  return false
}

/**
 * The `$patterns` constant's expression: one matcher per pattern, in code-unit order
 * (deterministic), with the linear-time engine passed only when a pattern needs it. `helper`: the
 * runtime builder called (`$patternMatchers`, or `$ajvPatterns` for ajv's standalone code).
 */
export function patternsConstant(patterns: ReadonlyMap<string, PatternSpec>, helper = '$patternMatchers'): string {
  const record: Record<string, PatternSpec> = {}
  for (const pattern of sortKeys([...patterns.keys()])) Object.defineProperty(record, pattern, { value: patterns.get(pattern)!, enumerable: true })
  return `/* @__PURE__ */ ${helper}(${jsLiteral(record)}${needsLinearEngine(patterns) ? ', $linearMatcher' : ''})`
}
