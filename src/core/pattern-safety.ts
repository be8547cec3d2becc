/**
 * Which engine runs a schema `pattern` that a contract (written by another team) supplies.
 *
 * JavaScript's `RegExp` backtracks: `^(a+)+$` takes seconds on 32 characters, and no timeout can
 * stop a synchronous match. The policy, for every pattern a generated validator runs; no valid
 * pattern fails the build:
 *
 * - `native`: the pattern is provably cheap for a backtracking engine, and runs as a `RegExp`
 *   (fast, and nothing extra is shipped). Proof: from any start position the matcher explores at
 *   most `WAYS_BUDGET` paths (bounded quantifiers and alternation multiply, see `ways`), and every
 *   unbounded quantifier is a single-character set repeated, at the top level of an alternative
 *   anchored with `^` (inside unrepeated groups at most), and either a *deterministic run*
 *   (followed by `$`, by nothing, or by a character set disjoint from it, so giving characters
 *   back can never let the rest match: one way) or the alternative's one *free run* (any follow,
 *   after which nothing is repeated without bound: each of its n + 1 lengths is tried once against
 *   a rest with bounded paths). Such a pattern matches in O(n * WAYS_BUDGET * m) for input length
 *   n and pattern length m. Patterns with ES2025 syntax a `RegExp` of Node 20 does not parse
 *   (modifiers, duplicate group names) are never native.
 * - `linear`: any other pattern that RE2 syntax can express runs on `re2js` (RE2's linear-time
 *   automaton), translated here node by node with ECMAScript's meaning of `.`, `\s` and escapes.
 * - `decomposed`: a pattern whose lookaheads lead an anchored alternative
 *   (`^(?=.*[A-Z])(?=.*\d).{8,}$`) runs as separate lookaround-free tests, each placed by this same
 *   policy (native or linear): `pattern-decompose.ts` states the proof and the shapes.
 * - `budgeted`: anything else (a backreference, a lookbehind, a lookaround elsewhere, a form RE2
 *   cannot express, repeat counts above RE2's 1000, an RE2 program of more than
 *   MAX_PATTERN_PROGRAM instructions): it runs on a backtracking matcher with a step budget
 *   (`runtime/shared/budgeted-pattern.ts`, MAX_PATTERN_STEPS per match). Its verdicts are
 *   ECMAScript's; a value it cannot decide within the budget fails the pattern with its own error.
 *   The formats warn about such a pattern (`*_PATTERN_BUDGETED`).
 *
 * The linear engine is linear in the input for a fixed pattern, but its step is a walk over the
 * program's live instructions: a match costs up to program size x input length (a 25 KB pattern
 * `^(a?){n}a{n}$` written out, 15,004 instructions, took 9 s on 10,000 characters). So its
 * program is bounded here (MAX_PATTERN_PROGRAM), and at run time a match whose program size x
 * input length passes MAX_PATTERN_WORK is not run: the value is undecided and fails the pattern
 * (`runtime/linear-pattern`).
 *
 * Patterns are read in Unicode mode, as the validators compile them (a format whose dialect has no
 * Unicode flag, OpenAPI 3.0's, rewrites its patterns first: pattern-dialect.ts); one valid only
 * without the flag (`\-`, an identity escape) is read that way, the only meaning it has (`rewritten`). The analysis is linear in
 * the pattern's length (one walk of its syntax tree; character sets are at most a few ranges).
 */
import type { AST } from '@eslint-community/regexpp'
import { lazyRequire } from './lazy-require.js'
import { memoized } from './memo.js'
import { backtrackProgram, modified, NO_FLAGS, type Flags } from './pattern-program.js'
import { splitPattern, type Split } from './pattern-decompose.js'
import { leadingOptions, underOptions, unicodeModeSource } from './pattern-dialect.js'
import { MAX_PATTERN_PROGRAM, linearMatcherOn } from '../runtime/shared/linear-engine.js'
import { MAX_PATTERN_STEPS, type BacktrackProgram } from '../runtime/shared/budgeted-pattern.js'
import { patternMatchers, type PatternSpec } from '../runtime/shared/pattern-matchers.js'
import type { PatternMatcher } from '../runtime/shared/schema-check.js'

export type PatternEngine =
  | { engine: 'native' }
  /** Valid only without the Unicode flag (`^\d{3}\-\d{4}$`): native, on its Unicode-mode form (pattern-dialect.ts). */
  | { engine: 'rewritten'; spec: { readonly re: string } }
  | { engine: 'linear'; source: string }
  | { engine: 'decomposed'; spec: PatternSpec }
  | { engine: 'budgeted'; spec: { readonly steps: BacktrackProgram }; reason: string }
  | { engine: 'invalid'; reason: string }

/** Paths from one start position a pattern may explore and still run natively. */
export const WAYS_BUDGET = 1024

/** The linear engine's program bound and the budgeted matcher's step budget (stated where the matchers are: `runtime/shared/`). */
export { MAX_PATTERN_PROGRAM, MAX_PATTERN_STEPS }

/**
 * The step budget as people read it (262,144), digits grouped by hand: `toLocaleString` loads ICU,
 * about 10 ms of a fresh process, and the rules' descriptions are made when their modules load.
 */
export const PATTERN_BUDGET_TEXT = String(MAX_PATTERN_STEPS).replace(/\B(?=(\d{3})+$)/g, ',')

const re2js = lazyRequire<typeof import('re2js')>('re2js')

const regexpp = lazyRequire<typeof import('@eslint-community/regexpp')>('@eslint-community/regexpp')
let parserInstance: InstanceType<typeof import('@eslint-community/regexpp').RegExpParser> | undefined
/** The parser, made when the first pattern is read. */
const parser = () => (parserInstance ??= new (regexpp().RegExpParser)({ ecmaVersion: 2025 }))

/** The engine for `pattern`; `invalid` when it is not a regular expression at all (a format's schema rule reports that). */
export const patternEngine: (pattern: string) => PatternEngine = memoized(decide)

/** What the runtime needs to run a pattern (`patternMatchers`), or undefined for a native one. */
export function runtimeSpec(engine: PatternEngine): PatternSpec | undefined {
  switch (engine.engine) {
    case 'linear':
      return engine.source
    case 'decomposed':
    case 'budgeted':
    case 'rewritten':
      return engine.spec
    default:
      return undefined
  }
}

/** Whether a spec has a part for the linear-time engine (then the module imports `linearMatcher`). */
export function usesLinear(spec: PatternSpec): boolean {
  if (typeof spec === 'string') return true
  if ('all' in spec) return spec.all.some(usesLinear)
  if ('any' in spec) return spec.any.some(usesLinear)
  if ('not' in spec) return usesLinear(spec.not)
  return false
}

/**
 * A pattern led by an inline options group (`(?i)^\\p{Lu}+$`, pattern-dialect.ts), its rest read as
 * JSON Schema reads a pattern (Unicode mode; else the one meaning it has without the flag): the
 * group as written and the Unicode-mode source under its modifier flags, or why the rest is no
 * pattern. Undefined for a pattern without such a group.
 */
export function optionsReading(pattern: string): { group: string; source: string } | { group: string; invalid: string } | undefined {
  const options = leadingOptions(pattern)
  if (!options) return undefined
  if (leadingOptions(options.rest)) return { group: options.group, invalid: 'two leading options groups' }
  try {
    parser().parsePattern(options.rest, 0, options.rest.length, { unicode: true })
    return { group: options.group, source: underOptions(options.flags, options.rest) }
  } catch (error) {
    const read = unicodeModeSource(options.rest)
    return read.ok ? { group: options.group, source: underOptions(options.flags, read.source) } : { group: options.group, invalid: (error as Error).message }
  }
}

function decide(pattern: string): PatternEngine {
  const options = optionsReading(pattern)
  if (options) {
    if ('invalid' in options) return { engine: 'invalid', reason: options.invalid }
    // Run as its Unicode-mode form under its own text, as a pattern valid only without the flag is.
    const engine = patternEngine(options.source)
    return engine.engine === 'native' ? { engine: 'rewritten', spec: { re: options.source } } : engine
  }
  let ast: AST.Pattern
  try {
    ast = parser().parsePattern(pattern, 0, pattern.length, { unicode: true })
  } catch (error) {
    // ECMA-262 without the Unicode flag (JSON Schema's dialect allows it) is the only meaning such a
    // pattern has: it runs as its Unicode-mode form, under its own text.
    const read = unicodeModeSource(pattern)
    if (!read.ok) return { engine: 'invalid', reason: (error as Error).message }
    const engine = patternEngine(read.source)
    return engine.engine === 'native' ? { engine: 'rewritten', spec: { re: read.source } } : engine
  }
  const single = singleEngine(ast)
  if (!('reason' in single)) return single
  const split = splitPattern(pattern, ast)
  if ('reason' in split) return budgeted(ast, split.lookaround ? `${split.reason}; ${single.reason}` : single.reason)
  const placed = splitSpec(split)
  return 'spec' in placed ? { engine: 'decomposed', spec: placed.spec } : budgeted(ast, placed.reason)
}

const budgeted = (ast: AST.Pattern, reason: string): PatternEngine => ({ engine: 'budgeted', spec: { steps: backtrackProgram(ast) }, reason })

/** Native or linear for the whole pattern, or why neither. */
function singleEngine(ast: AST.Pattern): { engine: 'native' } | { engine: 'linear'; source: string } | { reason: string } {
  if (provablyCheap(ast)) return { engine: 'native' }
  let source: string
  try {
    source = alternatives(ast.alternatives)
  } catch (error) {
    if (error instanceof Untranslatable) return { reason: `${error.message}, and it is not provably linear for a backtracking engine` }
    throw error
  }
  // Every atom is at least one instruction: a pattern with more is refused without compiling it
  // (RE2JS compiles a 50 KB pattern in seconds).
  const atoms = atomCount(ast)
  if (atoms > MAX_PATTERN_PROGRAM) return tooLarge(`at least ${atoms}`)
  // The program the run time compiles, measured here: its size bounds the cost of every match.
  let size: number
  try {
    size = re2js().RE2JS.compile(source).programSize()
  } catch (error) {
    return { reason: `RE2 cannot compile it (${(error as Error).message})` }
  }
  if (size > MAX_PATTERN_PROGRAM) return tooLarge(String(size))
  return { engine: 'linear', source }
}

/** The runtime form of a split pattern, each part placed by the policy; a reason when a part has neither a native nor a linear engine. */
function splitSpec(split: Split): { spec: PatternSpec } | { reason: string } {
  const alternatives: PatternSpec[] = []
  for (const conjunction of split) {
    const parts: PatternSpec[] = []
    for (const part of conjunction) {
      const engine = patternEngine(part.source)
      const spec = engine.engine === 'native' ? { re: part.source } : engine.engine === 'linear' ? engine.source : undefined
      if (spec === undefined)
        return { reason: `its part ${JSON.stringify(part.source)} has neither engine (${'reason' in engine ? engine.reason : engine.engine})` }
      parts.push(part.negate ? { not: spec } : spec)
    }
    alternatives.push(parts.length === 1 ? parts[0]! : { all: parts })
  }
  return { spec: alternatives.length === 1 ? alternatives[0]! : { any: alternatives } }
}

const tooLarge = (size: string): { reason: string } => ({
  reason: `its linear-time program has ${size} instructions, more than ${MAX_PATTERN_PROGRAM} (each match costs program size x input length), and it is not provably linear for a backtracking engine`,
})

/** Characters and character sets in the pattern's text: a lower bound of its program's size. Iterative, linear in the pattern. */
function atomCount(ast: AST.Pattern): number {
  let count = 0
  const stack: AST.Node[] = [ast]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (node.type === 'Character' || node.type === 'CharacterSet' || node.type === 'CharacterClass') count++
    else if (node.type === 'Quantifier') stack.push(node.element)
    else if ('alternatives' in node) for (const alt of node.alternatives) stack.push(alt)
    else if (node.type === 'Alternative') for (const e of node.elements) stack.push(e)
  }
  return count
}

// ---- The proof for the native engine ----

function provablyCheap(ast: AST.Pattern): boolean {
  const syntax = nativeSyntax(ast)
  if (syntax === undefined) return false
  let total = 0
  for (const alt of ast.alternatives) {
    // Unbounded runs are cheap only from one start position: the alternative must begin with `^`.
    const anchored = alt.elements[0]?.type === 'Assertion' && alt.elements[0].kind === 'start'
    // A backreference compares as many characters as its group took: after a free run that is up
    // to n per length tried, so a pattern with one has no free run.
    total = saturate(total + waysOf(alt, { anchored, free: syntax.backreference }))
  }
  return total <= WAYS_BUDGET
}

/**
 * Whether every `RegExp` the validators may run on parses it (no modifiers, no group name used
 * twice: ES2025, not in Node 20), and whether it has a backreference; undefined when it does not parse.
 */
function nativeSyntax(ast: AST.Pattern): { backreference: boolean } | undefined {
  const names = new Set<string>()
  let backreference = false
  const stack: AST.Node[] = [ast]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (node.type === 'Backreference') backreference = true
    if (node.type === 'Group' && node.modifiers) return undefined
    if (node.type === 'CapturingGroup' && node.name !== null) {
      if (names.has(node.name)) return undefined
      names.add(node.name)
    }
    if ('alternatives' in node) for (const alt of node.alternatives) stack.push(alt)
    else if (node.type === 'Alternative') for (const e of node.elements) stack.push(e)
    else if (node.type === 'Quantifier') stack.push(node.element)
  }
  return { backreference }
}

/**
 * Where the walk stands: in an alternative anchored with `^` (outside any lookaround), and whether
 * that alternative's one free run has been met or may not be (after it, nothing may repeat
 * without bound).
 */
interface Walk {
  anchored: boolean
  free: boolean
}

/** Whether a run is met at most once per path: only groups (no repetition, no lookaround) between it and the top level. */
function unrepeated(node: AST.Element): boolean {
  for (let p: AST.Node = node.parent; p.type !== 'Pattern'; p = p.parent!) if (p.type === 'Quantifier' || p.type === 'Assertion') return false
  return true
}

/**
 * A repeated single-character set whose follow can never match a character the set takes: after
 * the greedy run, giving characters back cannot let the rest match, so the run has one way.
 * The follow is the next element, or, for a run that ends a group's alternative, what follows
 * the group (a group repeated at most once); the end of the pattern and `$` follow anything.
 */
function deterministicRun(run: AST.Quantifier): boolean {
  const set = charSet(run.element)
  if (set === undefined) return false
  const follow = followSet(run)
  return follow === 'end' || (follow !== undefined && disjoint(set, follow))
}

function followSet(node: AST.Element): Ranges | 'end' | undefined {
  const parent = node.parent
  if (parent.type === 'Quantifier') return parent.max <= 1 ? followSet(parent) : undefined
  if (parent.type !== 'Alternative') return undefined
  const next = parent.elements[parent.elements.indexOf(node) + 1]
  if (next === undefined) {
    const group = parent.parent
    if (group.type === 'Pattern') return 'end'
    return group.type === 'Group' || group.type === 'CapturingGroup' ? followSet(group) : undefined
  }
  return firstSet(next)
}

/** The characters `node` can start with, when it cannot match the empty string; `end` for `$`. */
function firstSet(node: AST.Element): Ranges | 'end' | undefined {
  if (node.type === 'Assertion') return node.kind === 'end' ? 'end' : undefined
  if (node.type === 'Quantifier') return node.min >= 1 ? firstSet(node.element) : undefined
  if (node.type === 'Group' || node.type === 'CapturingGroup') {
    const parts: Ranges = []
    for (const alt of node.alternatives) {
      const first = alt.elements[0] === undefined ? undefined : firstSet(alt.elements[0])
      if (first === undefined || first === 'end') return undefined
      for (const range of first) parts.push(range)
    }
    return normalizeRanges(parts)
  }
  return charSet(node)
}

const OVER = WAYS_BUDGET + 1
const saturate = (n: number) => (n > OVER ? OVER : n)

/**
 * An upper bound on the paths a backtracking matcher explores through an alternative from one
 * position, a free run counted as one (its n + 1 lengths are the linear factor of the bound).
 */
function waysOf(alt: AST.Alternative, walk: Walk): number {
  let product = 1
  for (const e of alt.elements) product = saturate(product * ways(e, walk))
  return product
}

/**
 * The same for one element. An unbounded run has one way only when anchored: a deterministic run
 * (giving back never helps), or the alternative's free run, met once per path with nothing
 * unbounded after it (each of its lengths meets a rest of bounded paths, O(m) each).
 */
function ways(node: AST.Element, walk: Walk): number {
  switch (node.type) {
    case 'Group':
    case 'CapturingGroup':
      return sumOf(node.alternatives, walk)
    case 'Assertion':
      // Inside a lookaround the matcher runs from wherever it stands: nothing there is anchored.
      return node.kind === 'lookahead' || node.kind === 'lookbehind' ? sumOf(node.alternatives, { anchored: false, free: walk.free }) : 1
    case 'Quantifier': {
      if (node.max === Infinity) {
        if (!walk.anchored || walk.free) return OVER
        if (deterministicRun(node)) return 1
        if (charSet(node.element) === undefined || !unrepeated(node)) return OVER
        walk.free = true
        return 1
      }
      const inner = ways(node.element, walk)
      // One path per count when the element has one; otherwise ways^k grows past the budget
      // within a few counts (2^11 > 1024), so the loop stops there whatever the counts are.
      if (inner === 1) return saturate(node.max - node.min + 1)
      if (node.max > 16) return OVER
      let sum = 0
      let power = 1
      for (let k = 0; k <= node.max; k++) {
        if (k >= node.min) sum = saturate(sum + power)
        power = saturate(power * inner)
      }
      return sum
    }
    default:
      return 1
  }
}

function sumOf(alternatives: readonly AST.Alternative[], walk: Walk): number {
  let sum = 0
  for (const alt of alternatives) sum = saturate(sum + waysOf(alt, walk))
  return sum
}

// ---- Character sets as sorted, disjoint code point ranges ----

type Ranges = Array<[number, number]>
const MAX_CODE_POINT = 0x10ffff
const DIGIT: Ranges = [[0x30, 0x39]]
const WORD: Ranges = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
]
/** ECMAScript's WhiteSpace and LineTerminator, what `\s` matches. */
const SPACE: Ranges = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
]
/** What `.` matches without the `s` flag: anything but a line terminator. */
const ANY: Ranges = complement([
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
])

function normalizeRanges(ranges: Ranges): Ranges {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0])
  const out: Ranges = []
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1]
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi)
    else out.push([lo, hi])
  }
  return out
}

function complement(ranges: Ranges): Ranges {
  const out: Ranges = []
  let next = 0
  for (const [lo, hi] of normalizeRanges(ranges)) {
    if (lo > next) out.push([next, lo - 1])
    next = hi + 1
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT])
  return out
}

function disjoint(a: Ranges, b: Ranges): boolean {
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) {
    if (a[i]![1] < b[j]![0]) i++
    else if (b[j]![1] < a[i]![0]) j++
    else return false
  }
  return true
}

/** The characters a single-character element matches, or undefined (not one, or not known exactly). */
function charSet(node: AST.Node): Ranges | undefined {
  switch (node.type) {
    case 'Character':
      return [[node.value, node.value]]
    case 'CharacterSet':
      if (node.kind === 'any') return ANY
      if (node.kind === 'property') return undefined
      return node.negate ? complement(escapeSet(node.kind)) : escapeSet(node.kind)
    case 'CharacterClass': {
      if (node.unicodeSets) return undefined
      const parts: Ranges = []
      for (const element of node.elements) {
        if (element.type === 'CharacterClassRange') parts.push([element.min.value, element.max.value])
        else {
          const inner = charSet(element)
          if (inner === undefined) return undefined
          for (const range of inner) parts.push(range)
        }
      }
      return node.negate ? complement(parts) : normalizeRanges(parts)
    }
    default:
      return undefined
  }
}

const escapeSet = (kind: 'digit' | 'space' | 'word'): Ranges => (kind === 'digit' ? DIGIT : kind === 'word' ? WORD : SPACE)

// ---- Translation to RE2 syntax, with ECMAScript's meaning ----

class Untranslatable extends Error {}

/**
 * The word characters of a case-insensitive Unicode-mode pattern: ECMAScript adds U+017F (long s)
 * and U+212A (Kelvin sign), whose case folds are `s` and `k` (ECMA-262, WordCharacters). So does
 * RE2's folding of `[0-9A-Za-z_]`; written out here, the set is closed under folding, and so is its
 * complement (`\W`).
 */
const FOLDED_WORD: Ranges = normalizeRanges([...WORD, [0x17f, 0x17f], [0x212a, 0x212a]])

/**
 * A pattern's alternatives in RE2's syntax, with ECMAScript's meaning under `flags` (a modifier
 * group's, `(?i:...)`, `(?s:...)`, `(?m:...)`; the pattern itself runs with none).
 */
function alternatives(list: readonly AST.Alternative[], flags: Flags = NO_FLAGS): string {
  return list.map((alt) => alt.elements.map((node) => element(node, flags)).join('')).join('|')
}

function element(node: AST.Element, flags: Flags): string {
  switch (node.type) {
    case 'Assertion':
      if (node.kind === 'start' || node.kind === 'end') {
        // A multiline ^ and $ also stop at \r, U+2028 and U+2029; RE2's at \n alone.
        if (flags.multiline) throw new Untranslatable(`a multiline ${node.raw} stops at line ends RE2's does not`)
        return node.kind === 'start' ? '^' : '$'
      }
      if (node.kind === 'word') {
        // Case-insensitive, ECMAScript's word characters include U+017F and U+212A; RE2's \b never does.
        if (flags.ignoreCase) throw new Untranslatable(`a case-insensitive ${node.raw} takes U+017F and U+212A for word characters, RE2's does not`)
        return node.negate ? '\\B' : '\\b'
      }
      throw new Untranslatable(`RE2 has no ${node.kind} (${node.raw})`)
    case 'Backreference':
      throw new Untranslatable(`RE2 has no backreferences (${node.raw})`)
    case 'Group':
      return `(?:${alternatives(node.alternatives, node.modifiers ? modified(flags, node.modifiers) : flags)})`
    case 'CapturingGroup':
      return `(?:${alternatives(node.alternatives, flags)})`
    case 'Quantifier': {
      const inner =
        node.element.type === 'Group' || node.element.type === 'CapturingGroup' ? element(node.element, flags) : `(?:${element(node.element, flags)})`
      if (node.min > 1000 || (node.max !== Infinity && node.max > 1000)) throw new Untranslatable(`RE2 takes repeat counts up to 1000 (${node.raw.slice(-12)})`)
      const count =
        node.max === Infinity
          ? node.min === 0
            ? '*'
            : node.min === 1
              ? '+'
              : `{${node.min},}`
          : node.min === node.max
            ? `{${node.min}}`
            : `{${node.min},${node.max}}`
      return inner + count
    }
    case 'CharacterSet':
      // Under `s`, a dot is every character.
      if (node.kind === 'any' && flags.dotAll) return classText([[0, MAX_CODE_POINT]])
      if (node.kind === 'property') {
        if (flags.ignoreCase) throw new Untranslatable(`a case-insensitive property escape is not translated (${node.raw})`)
        return property(node)
      }
    // falls through: the other sets have exact ranges
    default: {
      if (flags.ignoreCase) return foldedSet(node)
      const set = charSet(node)
      if (set === undefined) throw new Untranslatable(`this character set has no exact RE2 form (${node.raw})`)
      return classText(set)
    }
  }
}

/**
 * A character, escape or class under `i`, as RE2 writes it with ECMAScript's Unicode-mode meaning:
 * a class matches a character when some member has the same simple case fold (ECMA-262,
 * Canonicalize), an inverted one when none has, which is RE2's `(?i:[...])` and `(?i:[^...])`: it
 * closes the members under folding, then inverts. The escapes inside are sets closed under folding
 * already (`\w` with its two extra members, digits, spaces and their complements).
 */
function foldedSet(node: AST.Node): string {
  const members: Ranges = []
  let negate = false
  const add = (element: AST.Node): void => {
    switch (element.type) {
      case 'Character':
        members.push([element.value, element.value])
        return
      case 'CharacterClassRange':
        members.push([element.min.value, element.max.value])
        return
      case 'CharacterSet': {
        if (element.kind === 'any') {
          members.push(...ANY)
          return
        }
        if (element.kind === 'property') throw new Untranslatable(`a case-insensitive property escape is not translated (${element.raw})`)
        const set = element.kind === 'word' ? FOLDED_WORD : escapeSet(element.kind)
        members.push(...(element.negate ? complement(set) : set))
        return
      }
      default:
        throw new Untranslatable(`this character set has no exact RE2 form (${element.raw})`)
    }
  }
  if (node.type === 'CharacterClass') {
    if (node.unicodeSets) throw new Untranslatable(`this character set has no exact RE2 form (${node.raw})`)
    negate = node.negate
    for (const element of node.elements) add(element)
  } else add(node)
  const ranges = normalizeRanges(members)
  if (ranges.length === 0) return negate ? classText([[0, MAX_CODE_POINT]]) : classText([])
  const text = ranges.map(([lo, hi]) => (lo === hi ? codePoint(lo) : `${codePoint(lo)}-${codePoint(hi)}`)).join('')
  return `(?i:[${negate ? '^' : ''}${text}])`
}

/** `\\p{L}`, `\\p{Lu}`, `\\p{Script=Greek}`: the forms RE2 names the same way (general categories by short name, scripts). */
function property(node: AST.CharacterSet & { kind: 'property' }): string {
  const category = node.key === 'General_Category' || node.key === 'gc'
  const name = category && node.value !== null && /^[A-Z][a-z]?$/.test(node.value) ? node.value : node.key === 'Script' || node.key === 'sc' ? node.value : null
  if (name === null || node.strings) throw new Untranslatable(`RE2 names this property differently (${node.raw})`)
  return `${node.negate ? '\\P' : '\\p'}{${name}}`
}

function classText(ranges: Ranges): string {
  if (ranges.length === 0) return '[^\\x{0}-\\x{10ffff}]'
  if (ranges.length === 1 && ranges[0]![0] === ranges[0]![1]) return codePoint(ranges[0]![0])
  return `[${ranges.map(([lo, hi]) => (lo === hi ? codePoint(lo) : `${codePoint(lo)}-${codePoint(hi)}`)).join('')}]`
}

const codePoint = (cp: number) => (/[A-Za-z0-9]/.test(String.fromCodePoint(cp)) && cp < 0x80 ? String.fromCodePoint(cp) : `\\x{${cp.toString(16)}}`)

/**
 * The patterns in a JSON Schema value (`pattern` members and `patternProperties` keys) that do not
 * run as one native `RegExp`, with what the runtime needs to run them (`runtimeSpec`), added to
 * `into`; `engine` decides each (a format passes its memoized decision, the one its pattern rule
 * warns from). Iterative; linear in the value's size.
 */
export function runtimePatternsIn(schema: unknown, into: Map<string, PatternSpec>, engine: (pattern: string) => PatternEngine = patternEngine): void {
  // Only collections are pushed, and members are read by for-in: no array of keys and none of the
  // patterns found per node (bench/: every node of every payload validator's schema passes here).
  const stack: object[] = []
  if (typeof schema === 'object' && schema !== null) stack.push(schema)
  while (stack.length > 0) {
    const value = stack.pop()!
    if (Array.isArray(value)) {
      for (const item of value) if (typeof item === 'object' && item !== null) stack.push(item)
      continue
    }
    const record = value as Record<string, unknown>
    if (typeof record.pattern === 'string') addRuntimePattern(engine, record.pattern, into)
    const patterned = record.patternProperties
    if (typeof patterned === 'object' && patterned !== null && !Array.isArray(patterned))
      for (const key of Object.keys(patterned)) addRuntimePattern(engine, key, into)
    for (const key in record) {
      if (!hasOwnProperty.call(record, key)) continue
      const child = record[key]
      if (typeof child === 'object' && child !== null) stack.push(child)
    }
  }
}

/** Adds `pattern` with its runtime form when it does not run as one native `RegExp`. */
function addRuntimePattern(engine: (pattern: string) => PatternEngine, pattern: string, into: Map<string, PatternSpec>): void {
  const spec = runtimeSpec(engine(pattern))
  if (spec !== undefined) into.set(pattern, spec)
}

/**
 * `Object.prototype.hasOwnProperty`, called on a for-in loop's own object and key: V8 answers that
 * call from the loop's enum cache without a lookup (it does not for `Object.hasOwn`).
 */
const hasOwnProperty = Object.prototype.hasOwnProperty

/** The warning a format gives for a pattern on the budgeted matcher: the pattern, why, the budget, and what happens at run time. */
export function budgetedPatternMessage(pattern: string, reason: string): string {
  return (
    `Pattern ${JSON.stringify(pattern)} is not proven to run in linear time (${reason}). It runs on a backtracking matcher with a budget of ` +
    `${PATTERN_BUDGET_TEXT} steps per value: a value it cannot decide within the budget fails validation ` +
    `(keyword "pattern", "could not be evaluated on this value within its step budget"). Without backreferences and lookbehind, ` +
    `and with lookaheads only right after \`^\`, the pattern runs on a proven engine.`
  )
}

/**
 * A linear-time matcher for one RE2 translation (a `linear` engine's `source`), on re2js's CommonJS
 * build: `undecided` is set when a value is past MAX_PATTERN_WORK and was not matched (the diff's
 * three-valued validator reads that as no answer).
 */
export function linearBuildMatcher(source: string): PatternMatcher & { undecided: boolean } {
  return linearMatcherOn(re2js().RE2JS, source) as PatternMatcher & { undecided: boolean }
}

/**
 * A matcher for a check the build itself runs on document data (ajv over a schema a document
 * declares: DASP's setting `items`): the engine this policy gives the pattern, never one `RegExp`
 * for a pattern not proven cheap. A budget that runs out refuses the value. An invalid pattern
 * throws as `RegExp` does. Named by its pattern (`toString`), as ajv keeps one per name.
 */
export function buildTimeMatcher(pattern: string): PatternMatcher & { toString(): string } {
  const spec = runtimeSpec(patternEngine(pattern))
  if (spec === undefined) return new RegExp(pattern, 'u')
  // re2js's CommonJS build, required here on the first such pattern (the runtime's `linearMatcher`
  // imports its ES module at load, a quarter of a megabyte most compiles never run).
  const matcher = patternMatchers({ [pattern]: spec }, (source) => linearMatcherOn(re2js().RE2JS, source))[pattern]!
  return { test: (text: string) => matcher.test(text), toString: () => `/${pattern}/u` }
}
