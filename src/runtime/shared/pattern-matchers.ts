/**
 * The matchers a generated module builds for its schema patterns that do not run as one native
 * `RegExp` (the compiler decides which engine runs each pattern: `src/core/pattern-safety.ts`),
 * from a compact description the compiler writes (`PatternSpec`). No parser and no `re2js` here:
 * a module whose patterns need the linear-time engine passes its matcher factory
 * (`linearMatcher`, from `unplugin-contracts/runtime/linear-pattern`), so a module without such a
 * pattern ships none of it.
 */
import { budgetedMatcher, type BacktrackProgram } from './budgeted-pattern.js'
import type { PatternMatcher, PatternMatchers } from './schema-check.js'

/**
 * How a pattern runs:
 * - a string: its RE2 translation, for the linear-time engine;
 * - `{ re }`: a native `RegExp` (Unicode mode) proven cheap for a backtracking engine;
 * - `{ all }`, `{ any }`, `{ not }`: the conjunction, disjunction or negation of others (a pattern
 *   whose leading lookarounds were split into separate tests: `^(?=A)(?!B)R` is
 *   `{ all: [^(?:A), { not: ^(?:B) }, ^(?:R)] }`);
 * - `{ steps }`: the budgeted backtracking matcher's program (`budgeted-pattern.ts`).
 */
export type PatternSpec =
  | string
  | { readonly re: string }
  | { readonly all: readonly PatternSpec[] }
  | { readonly any: readonly PatternSpec[] }
  | { readonly not: PatternSpec }
  | { readonly steps: BacktrackProgram }

/** Makes a linear-time matcher from an RE2 translation. */
export type LinearMatcherFactory = (source: string) => PatternMatcher

/** Match, no match, or undecided (a budget ran out: the value fails the pattern with its own error). */
const YES = 1
const NO = 0
const UNDECIDED = -1
type Verdict = typeof YES | typeof NO | typeof UNDECIDED

type Evaluate = (text: string) => Verdict

/** A matcher whose every answer is undecided: a description this runtime cannot run (a module built by hand). */
const UNRUNNABLE: Evaluate = () => UNDECIDED

/**
 * Matchers by the pattern's text. Each part is made on its first use (a `RegExp` compiled, an RE2
 * program built); nothing throws: a part that cannot be made answers undecided. `test` answers
 * whether the text matches; `undecided` then says whether a `false` was a budget running out.
 */
export function patternMatchers(specs: Readonly<Record<string, PatternSpec>>, linear?: LinearMatcherFactory): PatternMatchers {
  const out = Object.create(null) as Record<string, PatternMatcher>
  for (const pattern of Object.keys(specs)) {
    const evaluate = evaluator(specs[pattern]!, linear)
    const matcher = {
      undecided: false,
      test(text: string): boolean {
        const verdict = evaluate(text)
        matcher.undecided = verdict === UNDECIDED
        return verdict === YES
      },
    }
    out[pattern] = matcher
  }
  return Object.freeze(out)
}

function evaluator(spec: PatternSpec, linear: LinearMatcherFactory | undefined): Evaluate {
  if (typeof spec === 'string') return linear === undefined ? UNRUNNABLE : fromMatcher(() => linear(spec))
  if (typeof spec !== 'object' || spec === null) return UNRUNNABLE
  if ('re' in spec) return fromMatcher(() => new RegExp(spec.re, 'u'))
  if ('steps' in spec) return fromMatcher(() => budgetedMatcher(spec.steps))
  if ('not' in spec) {
    const inner = evaluator(spec.not, linear)
    return (text) => {
      const v = inner(text)
      return v === UNDECIDED ? UNDECIDED : v === YES ? NO : YES
    }
  }
  if ('all' in spec) {
    const parts = spec.all.map((p) => evaluator(p, linear))
    // A part that fails decides; one that could not decide leaves the whole undecided unless another fails.
    return (text) => {
      let verdict: Verdict = YES
      for (const part of parts) {
        const v = part(text)
        if (v === NO) return NO
        if (v === UNDECIDED) verdict = UNDECIDED
      }
      return verdict
    }
  }
  if ('any' in spec) {
    const parts = spec.any.map((p) => evaluator(p, linear))
    return (text) => {
      let verdict: Verdict = NO
      for (const part of parts) {
        const v = part(text)
        if (v === YES) return YES
        if (v === UNDECIDED) verdict = UNDECIDED
      }
      return verdict
    }
  }
  return UNRUNNABLE
}

/** A part run by a matcher made on first use; one that cannot be made (or throws) answers undecided. */
function fromMatcher(make: () => PatternMatcher): Evaluate {
  let matcher: PatternMatcher | null | undefined
  return (text) => {
    if (matcher === undefined) {
      try {
        matcher = make()
      } catch {
        matcher = null
      }
    }
    if (matcher === null) return UNDECIDED
    try {
      const matched = matcher.test(text)
      return matched ? YES : matcher.undecided === true ? UNDECIDED : NO
    } catch {
      return UNDECIDED
    }
  }
}

/**
 * The pattern engine ajv's standalone code calls (`code.regExp`, `src/formats/nats/payload-validators.ts`):
 * the runtime matcher of a pattern listed in `specs`, a native `RegExp` for any other (proven cheap).
 * ajv's code reports an undecided value with its usual `pattern` error.
 */
export function ajvPatterns(specs: Readonly<Record<string, PatternSpec>>, linear?: LinearMatcherFactory): (pattern: string, flags: string) => PatternMatcher {
  const matchers = patternMatchers(specs, linear)
  return (pattern, flags) => (Object.hasOwn(matchers, pattern) ? matchers[pattern]! : new RegExp(pattern, flags))
}
