/**
 * Patterns whose lookaheads lead an anchored alternative, split into separate lookaround-free
 * tests: `^(?=.*[A-Z])(?=.*\d)(?!.*\s).{8,}$` is `^(?:.*[A-Z])` and `^(?:.*\d)` and not
 * `^(?:.*\s)` and `^(?:.{8,}$)`, each of which the engine policy then places (native when proven
 * cheap, else the linear-time engine: `pattern-safety.ts`).
 *
 * Proof, for JavaScript's `RegExp.prototype.test` (ECMA-262 Pattern Semantics) on a pattern with
 * no backreference anywhere (so captures never change a verdict) and no flags (so `^` matches at
 * position 0 only):
 *
 * 1. test(A | B) = test(A) or test(B): a match starts somewhere with one alternative.
 * 2. An unquantified group `(?:X | Y)` (or a capture group, or one under `?`, which is
 *    `(?:X | Y |)`) met before anything that consumes a character distributes over its
 *    alternatives: `L (?:X|Y) R` matches where `L X R` or `L Y R` does (the matcher tries both with
 *    the same continuation; an iteration of `?` that consumed nothing only repeats the path that
 *    skips it).
 * 3. An alternative whose leading zero-width run (before any other element) holds `^` and
 *    lookaheads `(?=A)`, `(?!B)`, followed by a rest R with no lookaround, can only match at
 *    position 0, where every one of them is evaluated; a lookahead is atomic (its body's choices
 *    are never revisited), so it succeeds exactly when its body matches at 0 (test of `^(?:A)`),
 *    and the alternative matches exactly when all positive ones do, no negative one does, and R
 *    matches at 0 (test of `^(?:R)`).
 * 4. An alternative with no lookaround at all is its own test.
 *
 * So the shapes proven are: a top-level alternation (after distributing the groups of 2) each of
 * whose alternatives is of form 3 or 4. Anything else (a lookbehind, a lookaround after a
 * consuming element, nested in a lookaround, in an unanchored alternative, under a repetition, a
 * backreference anywhere) is not split: it runs on the budgeted matcher. Linear in the pattern's
 * length times the alternatives distributed (at most MAX_SPLIT_ALTERNATIVES).
 */
import type { AST } from '@eslint-community/regexpp'

/** One test of a split pattern: a lookaround-free pattern that must match, or must not (`negate`). */
export interface SplitPart {
  source: string
  negate: boolean
}

/** A split pattern: it matches when every part of one of the alternatives agrees. */
export type Split = SplitPart[][]

/** Alternatives a split may distribute into: past it the pattern is not split (the budgeted matcher runs it). */
export const MAX_SPLIT_ALTERNATIVES = 64

/** Why a pattern has no split form; `lookaround`: whether it has one (else the reason says nothing new). */
export interface NoSplit {
  reason: string
  lookaround: boolean
}

/** The split form of `pattern` (its syntax tree `ast`, Unicode mode), or why it has none. */
export function splitPattern(pattern: string, ast: AST.Pattern): Split | NoSplit {
  const found = scan(ast)
  if (!found.lookaround) return { reason: 'it has no lookaround to split', lookaround: false }
  if (found.backreference) return { reason: 'it has a backreference', lookaround: true }
  const sequences: AST.Element[][] = []
  for (const alt of ast.alternatives) {
    const problem = distribute([...alt.elements], sequences)
    if (problem !== undefined) return { reason: problem, lookaround: true }
  }
  const out: Split = []
  for (const elements of sequences) {
    const parts = conjunction(pattern, elements)
    if ('reason' in parts) return { reason: parts.reason, lookaround: true }
    out.push(parts)
  }
  return out
}

/** Whether the tree has a backreference, and whether it has a lookaround. Iterative. */
function scan(ast: AST.Pattern): { backreference: boolean; lookaround: boolean } {
  let backreference = false
  let lookaround = false
  const stack: AST.Node[] = [ast]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (node.type === 'Backreference') backreference = true
    if (node.type === 'Assertion' && (node.kind === 'lookahead' || node.kind === 'lookbehind')) lookaround = true
    if ('alternatives' in node) for (const alt of node.alternatives) stack.push(alt)
    else if (node.type === 'Alternative') for (const e of node.elements) stack.push(e)
    else if (node.type === 'Quantifier') stack.push(node.element)
  }
  return { backreference, lookaround }
}

const hasLookaround = (node: AST.Node): boolean => scan(node as AST.Pattern).lookaround
const isLookahead = (e: AST.Element): e is AST.LookaheadAssertion => e.type === 'Assertion' && e.kind === 'lookahead'
const isStart = (e: AST.Element) => e.type === 'Assertion' && e.kind === 'start'

/** A group that distributes (step 2): unquantified or under `?`, no modifiers, with a lookaround inside. */
function distributable(e: AST.Element): { group: AST.Group | AST.CapturingGroup; optional: boolean } | undefined {
  let node: AST.Element = e
  let optional = false
  if (node.type === 'Quantifier') {
    if (node.min > 1 || node.max !== 1) return undefined
    optional = node.min === 0
    node = node.element
  }
  if (node.type === 'CapturingGroup' || (node.type === 'Group' && !node.modifiers)) return hasLookaround(node) ? { group: node, optional } : undefined
  return undefined
}

/** Adds the sequences `elements` distributes into (step 2) to `out`; a reason when there are too many. */
function distribute(elements: AST.Element[], out: AST.Element[][]): string | undefined {
  const queue: AST.Element[][] = [elements]
  while (queue.length > 0) {
    const sequence = queue.pop()!
    let i = 0
    while (i < sequence.length && (isStart(sequence[i]!) || isLookahead(sequence[i]!))) i++
    const group = i < sequence.length ? distributable(sequence[i]!) : undefined
    if (group === undefined) {
      if (out.length >= MAX_SPLIT_ALTERNATIVES) return `it distributes into more than ${MAX_SPLIT_ALTERNATIVES} alternatives`
      out.push(sequence)
      continue
    }
    const before = sequence.slice(0, i)
    const after = sequence.slice(i + 1)
    // Pushed in reverse so that the alternatives come out in the pattern's order.
    const expanded = group.group.alternatives.map((alt) => [...before, ...alt.elements, ...after])
    if (group.optional) expanded.push([...before, ...after])
    for (let k = expanded.length - 1; k >= 0; k--) queue.push(expanded[k]!)
    if (queue.length + out.length > MAX_SPLIT_ALTERNATIVES) return `it distributes into more than ${MAX_SPLIT_ALTERNATIVES} alternatives`
  }
  return undefined
}

/** The tests of one distributed alternative (steps 3 and 4), or why it is not of a proven shape. */
function conjunction(pattern: string, elements: readonly AST.Element[]): SplitPart[] | { reason: string } {
  if (!elements.some(hasLookaround)) return [{ source: sourceOf(pattern, elements), negate: false }]
  let i = 0
  let anchored = false
  const parts: SplitPart[] = []
  for (; i < elements.length; i++) {
    const e = elements[i]!
    if (isStart(e)) anchored = true
    else if (isLookahead(e)) {
      if (e.alternatives.some(hasLookaround)) return { reason: 'it has a lookaround inside a lookaround' }
      parts.push({ source: `^(?:${pattern.slice(e.alternatives[0]!.start, e.alternatives.at(-1)!.end)})`, negate: e.negate })
    } else break
  }
  const rest = elements.slice(i)
  if (!anchored) return { reason: 'it has a lookaround in an alternative that does not begin with `^`' }
  if (rest.some(hasLookaround)) return { reason: 'it has a lookbehind, or a lookaround after the leading `^` and lookaheads of its alternative' }
  if (rest.length > 0) parts.push({ source: `^(?:${sourceOf(pattern, rest)})`, negate: false })
  return parts
}

/**
 * The source of a sequence of elements: each run of elements adjacent in the pattern as its own
 * text, runs that came together by distributing a group each wrapped in `(?:...)` (two texts
 * never fuse into another token), but a run that is only `^` or `$`.
 */
function sourceOf(pattern: string, elements: readonly AST.Element[]): string {
  const runs: string[] = []
  let first: AST.Element | undefined
  let last: AST.Element | undefined
  for (const e of elements) {
    if (last !== undefined && e.parent === last.parent && e.start === last.end) {
      last = e
      continue
    }
    if (first !== undefined) runs.push(pattern.slice(first.start, last!.end))
    first = e
    last = e
  }
  if (first !== undefined) runs.push(pattern.slice(first.start, last!.end))
  // `^` and `$` alone fuse with no neighbour (and a leading `^` keeps the test anchored for the native proof).
  return runs.length === 1 ? runs[0]! : runs.map((r) => (r === '^' || r === '$' ? r : `(?:${r})`)).join('')
}
