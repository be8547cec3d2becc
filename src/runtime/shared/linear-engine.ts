/**
 * The linear-time matcher over an RE2 engine given to it: `linear-pattern.ts` gives it `re2js`'s
 * ES module (what generated modules import), and the compiler the same package's CommonJS build,
 * required only when a document has a pattern to match at build time (`src/core/pattern-safety.ts`):
 * re2js is a quarter of a megabyte of code, and most compiles never run a pattern.
 */
import type { PatternMatcher } from './schema-check.js'

/** What the matcher needs of RE2: `RE2JS` (its static `compile`), from either build. */
export interface LinearEngine {
  compile(source: string): LinearProgram
}
export interface LinearProgram {
  programSize(): number
  test(text: string): boolean
}

/**
 * The most instructions a pattern's program may have: the compiler sends a pattern past it to the
 * budgeted matcher instead (`src/core/pattern-safety.ts`), and a matcher here whose program is
 * larger (a module built by hand) leaves every value undecided.
 */
export const MAX_PATTERN_PROGRAM = 1000

/**
 * The most instruction steps one match may take, as program size x input length (RE2's automaton
 * advances every live instruction per character: about 10^8 steps a second once warm). A value
 * past it fails the pattern without being matched: a 10-instruction pattern takes values up to
 * ~100,000 characters, a 1,000-instruction one up to ~1,000; a longer value is undecided and fails
 * the pattern with its own error. Worst case per match: about a million steps (~10 ms), whatever
 * the pattern and the value; per validation, that times the strings checked, so linear in the data.
 */
export const MAX_PATTERN_WORK = 1 << 20

/**
 * A linear-time matcher, on `engine`, for one RE2 translation (made by the compiler, with
 * ECMAScript's meaning of `.`, `\s` and escapes), compiled on its first use. A value past MAX_PATTERN_WORK is not matched:
 * `test` answers `false` and `undecided` says so (the validators report the pattern as not
 * evaluated within its budget). A translation RE2 cannot compile, or a program past
 * MAX_PATTERN_PROGRAM, leaves every value undecided (a result, not a throw).
 */
export function linearMatcherOn(engine: LinearEngine, source: string): PatternMatcher {
  let compiled: { re: LinearProgram; size: number } | null | undefined
  const program = () => {
    if (compiled !== undefined) return compiled
    try {
      const re = engine.compile(source)
      compiled = { re, size: Math.max(1, re.programSize()) }
    } catch {
      compiled = null
    }
    return compiled
  }
  const matcher = {
    undecided: false,
    test(text: string): boolean {
      const p = program()
      // Checked before matching: the length bounds the characters the automaton steps over.
      const runs = p !== null && p.size <= MAX_PATTERN_PROGRAM && p.size * text.length <= MAX_PATTERN_WORK
      matcher.undecided = !runs
      return runs && p.re.test(text)
    },
  }
  return matcher
}
