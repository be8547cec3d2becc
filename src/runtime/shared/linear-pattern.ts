/**
 * `unplugin-contracts/runtime/linear-pattern`: linear-time matchers for the schema patterns the
 * compiler could not prove cheap for JavaScript's backtracking `RegExp` (`src/core/pattern-safety.ts`
 * states the policy). Each runs on `re2js`, a port of RE2's automaton: its time grows with the
 * input's length only, whatever the pattern. Only modules with such a pattern import this file.
 */
import { RE2JS } from 're2js'
import type { PatternMatcher, PatternMatchers } from './schema-check.js'

/**
 * Matchers by the pattern's text, from its RE2 translation (made by the compiler, with
 * ECMAScript's meaning of `.`, `\s` and escapes). Each compiles on its first use.
 */
export function linearPatterns(translations: Readonly<Record<string, string>>): PatternMatchers {
  const out = Object.create(null) as Record<string, PatternMatcher>
  for (const pattern of Object.keys(translations)) {
    let compiled: RE2JS | undefined
    const source = translations[pattern]!
    out[pattern] = Object.freeze({ test: (text: string) => (compiled ??= RE2JS.compile(source)).test(text) })
  }
  return Object.freeze(out)
}
