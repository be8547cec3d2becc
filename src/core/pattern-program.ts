/**
 * The compact form the budgeted matcher runs (`PatternNode`, `src/runtime/shared/budgeted-pattern.ts`),
 * made from a pattern's syntax tree (Unicode mode, as every pattern is read by then): the runtime
 * parses nothing and imports no parser. Character classes, sets and escapes are handed over as
 * their own source text, which the runtime tests one character at a time with a sticky `RegExp`
 * (so `\p{...}`, `.` and case folding mean exactly what they mean to the JavaScript engine);
 * modifiers (`(?i:...)`, `(?m:...)`, `(?s:...)`) are resolved here into the nodes they change.
 * Linear in the pattern's length.
 */
import type { AST } from '@eslint-community/regexpp'
import { ASSERTIONS, type BacktrackProgram, type PatternNode } from '../runtime/shared/budgeted-pattern.js'

export interface Flags {
  ignoreCase: boolean
  multiline: boolean
  dotAll: boolean
}

export const NO_FLAGS: Flags = { ignoreCase: false, multiline: false, dotAll: false }

/**
 * The budgeted matcher's program for a parsed pattern. `flags`: the flags it is read under (none
 * for a schema pattern; tests compare the matcher with `RegExp` under each).
 */
export function backtrackProgram(ast: AST.Pattern, flags: Partial<Flags> = {}): BacktrackProgram {
  // Capture groups are numbered by their opening parenthesis, left to right.
  const groups: AST.CapturingGroup[] = []
  const stack: AST.Node[] = [ast]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (node.type === 'CapturingGroup') groups.push(node)
    if ('alternatives' in node) for (const alt of node.alternatives) stack.push(alt)
    else if (node.type === 'Alternative') for (const e of node.elements) stack.push(e)
    else if (node.type === 'Quantifier') stack.push(node.element)
  }
  groups.sort((a, b) => a.start - b.start)
  const index = new Map(groups.map((g, i) => [g, i + 1]))
  const starts = groups.map((g) => g.start)

  /** The groups inside `node`: a contiguous run of numbers, found by the opening positions. */
  const inside = (node: AST.Node): [number, number] => {
    const first = lowerBound(starts, node.start)
    const end = lowerBound(starts, node.end)
    return end > first ? [first + 1, end] : [0, -1]
  }

  const alternatives = (list: readonly AST.Alternative[], flags: Flags): PatternNode =>
    list.length === 1 ? sequence(list[0]!, flags) : [3, list.map((alt) => sequence(alt, flags))]

  const sequence = (alt: AST.Alternative, flags: Flags): PatternNode => {
    if (alt.elements.length === 1) return element(alt.elements[0]!, flags)
    // Literal characters in a row are one text node (compact, and compared in one step a code unit).
    const out: PatternNode[] = []
    let text = ''
    const flush = () => {
      if (text.length > 0) out.push([...text].length === 1 ? [1, text.codePointAt(0)!] : [9, text])
      text = ''
    }
    for (const e of alt.elements) {
      if (e.type === 'Character' && !flags.ignoreCase) {
        // Two lone surrogates are two characters, never the pair their code units would spell in a text.
        if (e.value >= 0xdc00 && e.value <= 0xdfff && /[\ud800-\udbff]$/.test(text)) flush()
        text += String.fromCodePoint(e.value)
      } else {
        flush()
        out.push(element(e, flags))
      }
    }
    flush()
    return out.length === 1 ? out[0]! : [2, out]
  }

  const element = (node: AST.Element, flags: Flags): PatternNode => {
    const ci = flags.ignoreCase ? 1 : 0
    switch (node.type) {
      case 'Character':
        return ci === 1 ? [0, `\\u{${node.value.toString(16)}}`, 1] : [1, node.value]
      case 'CharacterSet':
        if (node.kind === 'any') return [0, flags.dotAll ? '[^]' : '.', 0]
        return [0, node.raw, ci]
      case 'CharacterClass':
        return [0, node.raw, ci]
      case 'Assertion':
        switch (node.kind) {
          case 'start':
            return [6, flags.multiline ? ASSERTIONS.lineStart : ASSERTIONS.start]
          case 'end':
            return [6, flags.multiline ? ASSERTIONS.lineEnd : ASSERTIONS.end]
          case 'word':
            return [6, node.negate ? (ci ? ASSERTIONS.notWordIgnoreCase : ASSERTIONS.notWord) : ci ? ASSERTIONS.wordIgnoreCase : ASSERTIONS.word]
          case 'lookahead':
          case 'lookbehind':
            return [7, node.negate ? 1 : 0, node.kind === 'lookbehind' ? 1 : 0, alternatives(node.alternatives, flags)]
        }
        break
      case 'Quantifier': {
        const [first, last] = inside(node.element)
        return [4, node.min, node.max === Infinity ? -1 : node.max, node.greedy ? 1 : 0, element(node.element, flags), first, last]
      }
      case 'Group':
        return alternatives(node.alternatives, node.modifiers ? modified(flags, node.modifiers) : flags)
      case 'CapturingGroup':
        return [5, index.get(node)!, alternatives(node.alternatives, flags)]
      case 'Backreference': {
        const targets = Array.isArray(node.resolved) ? node.resolved : [node.resolved]
        return [8, targets.map((g) => index.get(g)!).sort((a, b) => a - b), ci]
      }
    }
    throw new Error(`unexpected ${(node as AST.Node).type} in a pattern`)
  }

  return [groups.length, alternatives(ast.alternatives, { ...NO_FLAGS, ...flags })]
}

/** The flags inside a modifier group (`(?i:...)`, `(?-s:...)`), from those around it. */
export function modified(flags: Flags, modifiers: AST.Modifiers): Flags {
  const out = { ...flags }
  for (const key of ['ignoreCase', 'multiline', 'dotAll'] as const) {
    if (modifiers.add[key]) out[key] = true
    if (modifiers.remove?.[key]) out[key] = false
  }
  return out
}

/** The first index whose value is at least `value`, in a sorted list. */
function lowerBound(sorted: readonly number[], value: number): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (sorted[mid]! < value) lo = mid + 1
    else hi = mid
  }
  return lo
}
