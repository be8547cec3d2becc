/**
 * `unplugin-contracts/runtime/linear-pattern`: linear-time matchers for the schema patterns the
 * compiler could not prove cheap for JavaScript's backtracking `RegExp` (`src/core/pattern-safety.ts`
 * states the policy). Each runs on `re2js`, a port of RE2's automaton: its time grows with the
 * input's length only, whatever the pattern. Only modules with such a pattern import this file.
 */
import { RE2JS } from 're2js'
import type { PatternMatcher, PatternMatchers } from './schema-check.js'

/**
 * The most instructions a pattern's program may have: the compiler refuses a pattern past it
 * (`src/core/pattern-safety.ts`, a format's `*_PATTERN_UNSUPPORTED`), and a matcher here whose
 * program is larger (a module built by hand) fails every value.
 */
export const MAX_PATTERN_PROGRAM = 1000

/**
 * The most instruction steps one match may take, as program size x input length (RE2's automaton
 * advances every live instruction per character: about 10^8 steps a second once warm). A value
 * past it fails the pattern without being matched: a 10-instruction pattern takes values up to
 * ~100,000 characters, a 1,000-instruction one up to ~1,000. Worst case per match: about a
 * million steps (~10 ms), whatever the pattern and the value; per validation, that times the
 * strings checked, so linear in the data.
 */
export const MAX_PATTERN_WORK = 1 << 20

/**
 * Matchers by the pattern's text, from its RE2 translation (made by the compiler, with
 * ECMAScript's meaning of `.`, `\s` and escapes). Each compiles on its first use; a translation
 * RE2 cannot compile fails every value (a result, not a throw).
 */
export function linearPatterns(translations: Readonly<Record<string, string>>): PatternMatchers {
  const out = Object.create(null) as Record<string, PatternMatcher>
  for (const pattern of Object.keys(translations)) {
    let compiled: { re: RE2JS; size: number } | null | undefined
    const source = translations[pattern]!
    const program = () => {
      if (compiled !== undefined) return compiled
      try {
        const re = RE2JS.compile(source)
        compiled = { re, size: Math.max(1, re.programSize()) }
      } catch {
        compiled = null
      }
      return compiled
    }
    out[pattern] = Object.freeze({
      test: (text: string) => {
        const p = program()
        // Checked before matching: the length bounds the characters the automaton steps over.
        return p !== null && p.size <= MAX_PATTERN_PROGRAM && p.size * text.length <= MAX_PATTERN_WORK && p.re.test(text)
      },
    })
  }
  return Object.freeze(out)
}
