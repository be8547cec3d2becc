/**
 * `unplugin-contracts/runtime/linear-pattern`: linear-time matchers for the schema patterns the
 * compiler could not prove cheap for JavaScript's backtracking `RegExp` (`src/core/pattern-safety.ts`
 * states the policy). Each runs on `re2js`, a port of RE2's automaton: its time grows with the
 * input's length only, whatever the pattern. Only modules with such a pattern import this file.
 */
import { RE2JS } from 're2js'
import { linearMatcherOn } from './linear-engine.js'
import { patternMatchers } from './pattern-matchers.js'
import type { PatternMatcher, PatternMatchers } from './schema-check.js'

export { MAX_PATTERN_PROGRAM, MAX_PATTERN_WORK } from './linear-engine.js'

/**
 * A linear-time matcher for one RE2 translation (made by the compiler, with ECMAScript's meaning of
 * `.`, `\s` and escapes), compiled on its first use; see `linearMatcherOn` for what it answers.
 */
export function linearMatcher(source: string): PatternMatcher {
  return linearMatcherOn(RE2JS, source)
}

/**
 * Matchers by the pattern's text, from their RE2 translations: what modules generated before
 * `patternMatchers` (`runtime/shared/pattern-matchers.ts`) called, kept for them.
 */
export function linearPatterns(translations: Readonly<Record<string, string>>): PatternMatchers {
  return patternMatchers(translations, linearMatcher)
}
