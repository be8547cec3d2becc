/**
 * The language of a JSON Schema `pattern` as a finite automaton (refa), so two patterns can be
 * compared by inclusion both ways. A pattern is a search, not a whole match (ECMA-262 `test`): the
 * strings it accepts are those with a matching substring, so the automaton is built from
 * `[^]*(?:P)[^]*` matched whole, with `^` and `$` as moves that hold only at the string's ends.
 *
 * The regular subset is decided: literals, classes, escapes, groups, alternation, quantifiers and
 * the anchors `^`/`$`. Lookarounds, `\b`/`\B` and backreferences are not (`unknown`), nor is a
 * pattern longer than MAX_PATTERN_LENGTH characters or whose automaton needs more than MAX_STATES
 * states, or MAX_DFA_STATES once deterministic (determinization can be exponential: the caps bound it). JSON Schema patterns run in
 * Unicode mode (the generated validators' `new RegExp(p, 'u')`); OpenAPI 3.0 patterns are read
 * without the flag and run as their Unicode-mode form (core/pattern-dialect.ts), as the validators do.
 *
 * Cost: at most MAX_STATES nondeterministic and MAX_DFA_STATES deterministic states per automaton,
 * complement and product; languages are cached by pattern (CACHE_LIMIT of them).
 */
import type { AST } from '@eslint-community/regexpp'
import type * as Refa from 'refa'
import { lazyRequire } from '../../lazy-require.js'
import { leadingOptions, unicodeModeSource } from '../../pattern-dialect.js'
import type { Dialect } from './context.js'

const refa = lazyRequire<typeof Refa>('refa')

/** Patterns longer than this are not read (their automata would be large anyway). */
export const MAX_PATTERN_LENGTH = 1_000
/**
 * States the pattern's own automaton may have (its syntax tree's nodes too): determinizing a search
 * costs up to the product of these two, and `[^]*x{200}[^]*` already takes a few hundred ms.
 */
export const MAX_STATES = 500
/** States a deterministic automaton (the pattern's, its complement, a product) may have. */
export const MAX_DFA_STATES = 2_000

/** A decided language, or why it is not decided. */
export type PatternLanguage = { ok: true; nfa: Refa.NFA; dfa: Refa.DFA } | { ok: false; reason: string }

const cache = new Map<string, PatternLanguage>()
const CACHE_LIMIT = 256

export function patternLanguage(pattern: string, dialect: Dialect): PatternLanguage {
  const key = `${dialect}\u0000${pattern}`
  const hit = cache.get(key)
  if (hit) return hit
  const made = build(pattern, dialect)
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!)
  cache.set(key, made)
  return made
}

function build(pattern: string, dialect: Dialect): PatternLanguage {
  if (pattern.length > MAX_PATTERN_LENGTH) return { ok: false, reason: `the pattern is longer than ${MAX_PATTERN_LENGTH} characters` }
  let source = pattern
  let flags = 'u'
  // A leading inline options group (`(?i)`, as .NET, PCRE and Java write it) is read, as the checker
  // and the validators read it, as those flags over the rest of the pattern (pattern-dialect.ts): the
  // group spans the whole pattern, so its case-insensitive and dot-all flags are the expression's own.
  // Multiline changes what ^ and $ mean, which the automata here do not model: left as written.
  const options = leadingOptions(pattern)
  if (options !== undefined && /^[is]+$/.test(options.flags)) {
    const rest = unicodeModeSource(options.rest)
    if (!rest.ok) return { ok: false, reason: 'the pattern is not a valid regular expression' }
    source = rest.source
    flags += options.flags
  } else if (dialect === 'openapi-3.0') {
    const read = unicodeModeSource(pattern)
    if (!read.ok) return { ok: false, reason: 'the pattern is not a valid regular expression' }
    source = read.source
  }
  const { JS, NFA, DFA } = refa()
  let alone: Refa.JS.Parser
  try {
    alone = JS.Parser.fromLiteral({ source, flags })
  } catch {
    return { ok: false, reason: 'the pattern is not a valid regular expression' }
  }
  const outside = unsupported(alone.ast.pattern)
  if (outside) return { ok: false, reason: `the pattern uses ${outside}, which is outside the regular subset compared here` }
  try {
    const { expression, maxCharacter } = alone.parse({ backreferences: 'throw', assertions: 'parse', maxNodes: MAX_STATES })
    const nfa = NFA.fromFA(searchAutomaton(expression, maxCharacter), new NFA.LimitedNodeFactory(4 * MAX_STATES))
    const dfa = DFA.fromFA(nfa, new DFA.LimitedNodeFactory(MAX_DFA_STATES))
    dfa.minimize()
    return { ok: true, nfa, dfa }
  } catch (error) {
    if (error instanceof refa().TooManyNodesError || error instanceof TooManyStates)
      return {
        ok: false,
        reason: `the pattern's automaton would exceed ${MAX_STATES} states (${MAX_DFA_STATES} once deterministic), the bound this diff spends on one pattern`,
      }
    if (error instanceof NotAnAnchor) return { ok: false, reason: 'the pattern uses an assertion other than ^ and $' }
    throw error
  }
}

class TooManyStates extends Error {}
class NotAnAnchor extends Error {}

type Move = { kind: 'char'; to: number; chars: Refa.CharSet } | { kind: 'empty' | 'start' | 'end'; to: number }

/**
 * The strings with a substring the expression matches, as a transition iterator refa reads: a
 * Thompson automaton of `[^]*(?:P)[^]*` whose `^` and `$` are conditional empty moves, run together
 * with two facts: whether a character was read, and whether a `$` was passed (after which none may
 * be). `^` holds only before the first character: that is their meaning without the `m` flag.
 */
function searchAutomaton(expression: Refa.JS.ParseResult['expression'], maxCharacter: number): Refa.TransitionIterable<number> {
  const { CharSet } = refa()
  const all = CharSet.all(maxCharacter)
  const moves: Move[][] = []
  const state = (): number => {
    if (moves.length >= MAX_STATES) throw new TooManyStates()
    moves.push([])
    return moves.length - 1
  }
  const link = (from: number, move: Move) => moves[from]!.push(move)
  const alternatives = (list: readonly Refa.Concatenation[], from: number): number => {
    const end = state()
    for (const alternative of list) {
      let at = from
      for (const element of alternative.elements) at = part(element, at)
      link(at, { kind: 'empty', to: end })
    }
    return end
  }
  const part = (element: Refa.Element, from: number): number => {
    switch (element.type) {
      case 'CharacterClass': {
        const to = state()
        link(from, { kind: 'char', to, chars: element.characters })
        return to
      }
      case 'Alternation':
        return alternatives(element.alternatives, from)
      case 'Assertion': {
        const only = element.alternatives.length === 1 && element.alternatives[0]!.elements.length === 1 ? element.alternatives[0]!.elements[0]! : undefined
        if (!element.negate || only?.type !== 'CharacterClass' || !only.characters.isAll) throw new NotAnAnchor()
        const to = state()
        link(from, { kind: element.kind === 'behind' ? 'start' : 'end', to })
        return to
      }
      case 'Quantifier': {
        let at = from
        for (let i = 0; i < element.min; i++) at = alternatives(element.alternatives, at)
        if (element.max === Infinity) {
          const loop = state()
          link(at, { kind: 'empty', to: loop })
          link(alternatives(element.alternatives, loop), { kind: 'empty', to: loop })
          return loop
        }
        const end = state()
        link(at, { kind: 'empty', to: end })
        for (let i = element.min; i < element.max; i++) {
          at = alternatives(element.alternatives, at)
          link(at, { kind: 'empty', to: end })
        }
        return end
      }
      case 'Unknown':
        throw new NotAnAnchor()
    }
  }
  const initial = state()
  link(initial, { kind: 'char', to: initial, chars: all })
  const last = alternatives(expression.alternatives, initial)
  const final = state()
  link(last, { kind: 'empty', to: final })
  link(final, { kind: 'char', to: final, chars: all })

  // Product states: automaton state * 4 + (a character was read ? 2 : 0) + (past `$` ? 1 : 0).
  const closures = new Map<number, number[]>()
  const closure = (start: number): number[] => {
    const known = closures.get(start)
    if (known) return known
    const seen = new Set([start])
    const stack = [start]
    // Bounded: each product state is pushed once.
    while (stack.length) {
      const at = stack.pop()!
      const flags = at % 4
      for (const move of moves[(at - flags) / 4]!) {
        if (move.kind === 'char' || (move.kind === 'start' && flags >= 2)) continue
        const next = move.to * 4 + (move.kind === 'end' ? flags | 1 : flags)
        if (!seen.has(next)) {
          seen.add(next)
          stack.push(next)
        }
      }
    }
    const out = [...seen]
    closures.set(start, out)
    return out
  }
  const getOut = (at: number): ReadonlyMap<number, Refa.CharSet> => {
    const out = new Map<number, Refa.CharSet>()
    for (const reached of closure(at)) {
      if (reached % 2 === 1) continue
      for (const move of moves[Math.floor(reached / 4)]!) {
        if (move.kind !== 'char') continue
        const to = move.to * 4 + 2
        const had = out.get(to)
        out.set(to, had ? had.union(move.chars) : move.chars)
      }
    }
    return out
  }
  const isFinal = (at: number): boolean => closure(at).some((reached) => Math.floor(reached / 4) === final)
  return { maxCharacter, transitionIterator: () => ({ initial: initial * 4, getOut, isFinal, stableOut: true }) }
}

/** The first construct outside the regular subset, named for a sentence. */
function unsupported(node: AST.Pattern): string | undefined {
  const stack: AST.Node[] = [node]
  // Bounded: each node of the (length-capped) pattern is visited once.
  while (stack.length) {
    const at = stack.pop()!
    if (at.type === 'Backreference') return 'a backreference'
    if (at.type === 'Assertion') {
      if (at.kind === 'lookahead' || at.kind === 'lookbehind') return 'a lookaround'
      if (at.kind === 'word') return 'a word boundary'
    }
    if ('alternatives' in at) stack.push(...(at.alternatives as AST.Node[]))
    if ('elements' in at) stack.push(...(at.elements as AST.Node[]))
    if (at.type === 'Quantifier') stack.push(at.element)
  }
  return undefined
}

/** How two decided languages relate, with a short string in each difference when there is one. */
export interface Inclusion {
  /** A string the first accepts and the second refuses, if any. */
  onlyFirst?: string
  onlySecond?: string
}

/** Compares two languages both ways; `undefined` when a product exceeds the state cap. */
export function compareLanguages(a: Extract<PatternLanguage, { ok: true }>, b: Extract<PatternLanguage, { ok: true }>): Inclusion | undefined {
  try {
    const onlyFirst = shortestIn(a.nfa, complementOf(b.dfa))
    const onlySecond = shortestIn(b.nfa, complementOf(a.dfa))
    return { ...(onlyFirst === undefined ? {} : { onlyFirst }), ...(onlySecond === undefined ? {} : { onlySecond }) }
  } catch (error) {
    if (error instanceof refa().TooManyNodesError) return undefined
    throw error
  }
}

/** A short string outside the language (none when it accepts every string). */
export function shortestOutside(language: Extract<PatternLanguage, { ok: true }>): string | undefined {
  try {
    const outside = complementOf(language.dfa)
    return shortestIn(outside, outside)
  } catch (error) {
    if (error instanceof refa().TooManyNodesError) return undefined
    throw error
  }
}

/** The shortest string inside the language (its characters printable ASCII where the sets allow), or none. */
export function shortestInside(language: Extract<PatternLanguage, { ok: true }>): string | undefined {
  try {
    return shortestIn(language.nfa, language.dfa)
  } catch (error) {
    if (error instanceof refa().TooManyNodesError) return undefined
    throw error
  }
}

/** Whether the language is every string (the pattern constrains nothing). */
export function acceptsEverything(language: Extract<PatternLanguage, { ok: true }>): boolean {
  return complementOf(language.dfa).isEmpty
}

function complementOf(dfa: Refa.DFA): Refa.DFA {
  const copy = dfa.copy(new (refa().DFA.LimitedNodeFactory)(MAX_DFA_STATES))
  copy.complement()
  return copy
}

/** The shortest string both accept (its characters printable ASCII where the sets allow), or none. */
function shortestIn<L>(left: Refa.TransitionIterable<L>, right: Refa.DFA): string | undefined {
  for (const set of refa().getIntersectionWordSets(left, right, MAX_DFA_STATES)) return String.fromCodePoint(...set.map(pick))
  return undefined
}

function pick(set: Refa.CharSet): number {
  for (const range of set.ranges) {
    const printable = Math.max(range.min, 0x61)
    if (printable <= Math.min(range.max, 0x7a)) return printable
  }
  for (const range of set.ranges) {
    const printable = Math.max(range.min, 0x20)
    if (printable <= Math.min(range.max, 0x7e)) return printable
  }
  return set.ranges[0]!.min
}

/** The fewest and most characters (code points: the automata read with the `u` flag) of the strings a pattern admits. */
export interface LengthRange {
  min: number
  /** Infinity where the language is infinite (an unanchored pattern, a `*`). */
  max: number
}

/**
 * The lengths of the strings a decided pattern admits, by the automaton's paths: the shortest path
 * to a final state, and the longest where the language is finite (its useful states, those on a path
 * from the start to a final state, then form no cycle). Undefined for a pattern that admits no
 * string. Linear in the automaton's states and transitions (at most MAX_STATES x 4 states).
 */
export function lengthRange(language: Extract<PatternLanguage, { ok: true }>): LengthRange | undefined {
  const nfa = language.nfa
  if (nfa.isEmpty) return undefined
  type Node = (typeof nfa)['initial']
  // The states from which a final state is reached (each visited once).
  const incoming = new Map<Node, Node[]>()
  const seen = new Set<Node>([nfa.initial])
  const order: Node[] = [nfa.initial]
  for (let i = 0; i < order.length; i++)
    for (const to of order[i]!.out.keys()) {
      let list = incoming.get(to)
      if (!list) incoming.set(to, (list = []))
      list.push(order[i]!)
      if (!seen.has(to)) {
        seen.add(to)
        order.push(to)
      }
    }
  const useful = new Set<Node>(nfa.finals)
  const back = [...nfa.finals]
  while (back.length)
    for (const from of incoming.get(back.pop()!) ?? []) {
      if (useful.has(from)) continue
      useful.add(from)
      back.push(from)
    }
  // Shortest: breadth first from the start over useful states.
  const depth = new Map<Node, number>([[nfa.initial, 0]])
  const queue: Node[] = [nfa.initial]
  let min = Infinity
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!
    const d = depth.get(node)!
    if (nfa.finals.has(node)) min = Math.min(min, d)
    for (const to of node.out.keys()) {
      if (!useful.has(to) || depth.has(to)) continue
      depth.set(to, d + 1)
      queue.push(to)
    }
  }
  if (!nfa.isFinite) return { min, max: Infinity }
  // Longest: over the useful states, which form no cycle in a finite language, in reverse topological order.
  const longest = new Map<Node, number>()
  const stack: Array<{ node: Node; expanded: boolean }> = [{ node: nfa.initial, expanded: false }]
  while (stack.length) {
    const top = stack[stack.length - 1]!
    if (longest.has(top.node)) {
      stack.pop()
      continue
    }
    if (!top.expanded) {
      top.expanded = true
      for (const to of top.node.out.keys()) if (useful.has(to) && !longest.has(to)) stack.push({ node: to, expanded: false })
      continue
    }
    stack.pop()
    let most = nfa.finals.has(top.node) ? 0 : -Infinity
    for (const to of top.node.out.keys()) if (useful.has(to)) most = Math.max(most, 1 + longest.get(to)!)
    longest.set(top.node, most)
  }
  return { min, max: longest.get(nfa.initial)! }
}
