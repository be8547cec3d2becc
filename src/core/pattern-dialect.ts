/**
 * OpenAPI 3.0 (Schema Object `pattern`, after JSON Schema Wright draft 00) writes patterns in the
 * ECMA-262 dialect without the Unicode flag: `^\d{3}\-\d{4}$` is valid there (`\-` is an identity
 * escape) and a syntax error in Unicode mode, which the validators, the pattern analysis
 * (pattern-safety.ts) and the linear-time engine all use. This module reads a pattern the way
 * that dialect does and writes the same expression in Unicode-mode syntax, so one dialect runs
 * downstream: every literal character becomes itself or a `\u{...}` escape, every other node
 * keeps its meaning.
 *
 * Where the two modes differ in meaning rather than syntax, the Unicode reading is taken and said
 * here: the modes agree on every string of Basic Multilingual Plane characters; above it, `.`, a
 * character class and a repeat count see one character where the non-Unicode mode sees two code
 * units (a literal astral character is one character: `😀+` repeats it). Under a `(?i:...)`
 * modifier, case is folded as Unicode mode folds it (`ſ` matches `s`). Annex B's quantified
 * lookahead (`(?=a)*`) is written by its meaning (`quantifiedAssertion`).
 *
 * Linear in the pattern's length (one walk of its syntax tree); results cached per pattern.
 */
import type { AST } from '@eslint-community/regexpp'
import { lazyRequire } from './lazy-require.js'
import { memoized } from './memo.js'

const regexpp = lazyRequire<typeof import('@eslint-community/regexpp')>('@eslint-community/regexpp')
let parserInstance: InstanceType<typeof import('@eslint-community/regexpp').RegExpParser> | undefined
/** The parser, made when the first pattern is read. */
const parser = () => (parserInstance ??= new (regexpp().RegExpParser)({ ecmaVersion: 2025 }))

/**
 * The Unicode-mode form, or `invalid`: not a pattern of the dialect at all. Every valid pattern has
 * a form. `inlineOptions`: the leading options group it was read with (see INLINE_OPTIONS).
 */
export type UnicodeSource = { ok: true; source: string; inlineOptions?: string } | { ok: false; invalid: true; reason: string }

/**
 * A leading inline options group, `(?i)`, `(?s)`, `(?m)`, `(?n)` or several at once (`(?is)`), as
 * .NET, PCRE, Java and Python write them: producers copy such patterns from their code (Swashbuckle
 * and NSwag copy a .NET `[RegularExpression]` verbatim). ECMA-262 has no such group, but the
 * specifications only say a pattern SHOULD be ECMA-262, and a leading group means exactly what an
 * ES2025 modifier group around the rest means (`(?i)^[a-z]+$` is `(?i:^[a-z]+$)`): case-insensitive
 * (`i`, folded as Unicode mode folds case), `.` matching line terminators (`s`), `^`/`$` at line
 * ends (`m`); `n` (explicit capture) changes no match and is dropped. Any other option (`x`, whose
 * pattern is read differently) or a group elsewhere in the pattern stays invalid.
 */
const INLINE_OPTIONS = /^\(\?([imsn]+)\)/

/** The Unicode-mode source of a non-Unicode ECMA-262 pattern, or why there is none. */
export const unicodeModeSource: (pattern: string) => UnicodeSource = memoized(translate)

/** A leading inline options group (INLINE_OPTIONS): as written, the ES2025 modifier flags it means (`n` dropped), and the rest of the pattern. */
export function leadingOptions(pattern: string): { group: string; flags: string; rest: string } | undefined {
  const options = INLINE_OPTIONS.exec(pattern)
  if (!options) return undefined
  return { group: options[0], flags: [...new Set(options[1]!.replace(/n/g, ''))].sort().join(''), rest: pattern.slice(options[0].length) }
}

/** `source` (a Unicode-mode pattern) under the modifier flags of a leading options group. */
export const underOptions = (flags: string, source: string): string => (flags === '' ? source : `(?${flags}:${source})`)

function translate(pattern: string): UnicodeSource {
  const options = leadingOptions(pattern)
  if (options) {
    if (INLINE_OPTIONS.test(options.rest)) return { ok: false, invalid: true, reason: 'two leading options groups' }
    const rest = translate(options.rest)
    if (!rest.ok) return rest
    return { ok: true, source: underOptions(options.flags, rest.source), inlineOptions: options.group }
  }
  let ast: AST.Pattern
  try {
    ast = parser().parsePattern(pattern, 0, pattern.length, { unicode: false })
  } catch (error) {
    return { ok: false, invalid: true, reason: (error as Error).message }
  }
  const source = alternatives(ast.alternatives)
  // Every node has a Unicode-mode form (Annex B's included): a rewrite that does not parse is a bug
  // here, reported as one (CONTRACTS_INTERNAL), never taken for a fault of the document.
  try {
    parser().parsePattern(source, 0, source.length, { unicode: true })
  } catch (error) {
    throw new Error(`the Unicode-mode rewrite of ${JSON.stringify(pattern)} does not parse: ${(error as Error).message}`, { cause: error })
  }
  return { ok: true, source }
}

const alternatives = (list: readonly AST.Alternative[]) => list.map(sequence).join('|')

/** An alternative's elements; a high surrogate followed by a low one is the one character they encode. */
function sequence(alt: AST.Alternative): string {
  const out: string[] = []
  const elements = alt.elements
  for (let i = 0; i < elements.length; i++) {
    const node = elements[i]!
    const next = elements[i + 1]
    if (node.type === 'Character' && isHigh(node.value) && next?.type === 'Character' && isLow(next.value)) {
      out.push(escape(pair(node.value, next.value)))
      i++
    } else if (
      node.type === 'Character' &&
      isHigh(node.value) &&
      next?.type === 'Quantifier' &&
      next.element.type === 'Character' &&
      isLow(next.element.value)
    ) {
      // `😀+`: the Unicode reading repeats the character, where code units would repeat its low half.
      out.push(escape(pair(node.value, next.element.value)) + quantifier(next))
      i++
    } else out.push(element(node))
  }
  return out.join('')
}

const pair = (high: number, low: number) => 0x10000 + (high - 0xd800) * 0x400 + (low - 0xdc00)
const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff

function element(node: AST.Element): string {
  switch (node.type) {
    case 'Character':
      return literal(node.value, false)
    case 'CharacterSet':
      // Without the Unicode flag there are no property escapes: `\p` is the letter p (a Character).
      return node.kind === 'any' ? '.' : setEscape(node as AST.EscapeCharacterSet)
    case 'CharacterClass':
      return characterClass(node)
    case 'Assertion':
      switch (node.kind) {
        case 'start':
          return '^'
        case 'end':
          return '$'
        case 'word':
          return node.negate ? '\\B' : '\\b'
        case 'lookahead':
          return `(?${node.negate ? '!' : '='}${alternatives(node.alternatives)})`
        case 'lookbehind':
          return `(?<${node.negate ? '!' : '='}${alternatives(node.alternatives)})`
      }
      break
    case 'Quantifier':
      return node.element.type === 'Assertion' ? quantifiedAssertion(node, node.element) : element(node.element) + quantifier(node)
    case 'CapturingGroup':
      return `(${node.name === null ? '' : `?<${node.name}>`}${alternatives(node.alternatives)})`
    case 'Group':
      // Modifiers (`(?i:...)`) are written the same way in both modes; `i` folds case as Unicode mode does.
      return `(?${node.modifiers ? node.modifiers.raw : ''}:${alternatives(node.alternatives)})`
    case 'Backreference':
      return typeof node.ref === 'number' ? `\\${node.ref}` : `\\k<${node.ref}>`
  }
  throw new Error(`unexpected ${node.type}`)
}

/**
 * Annex B's quantified lookahead (`(?=a)*`), which Unicode mode does not parse, by its meaning
 * (ECMA-262 RepeatMatcher): an iteration of a lookahead consumes nothing, so at least one required
 * iteration is the lookahead once, and an optional one always fails the empty check, leaving the
 * quantifier matching the empty string with the lookahead's groups unset. Those groups keep their
 * numbers inside a branch that never matches (`(?:(?!)...)?`).
 */
function quantifiedAssertion(node: AST.Quantifier, assertion: AST.Assertion): string {
  const own = element(assertion)
  if (node.min >= 1) return own
  return /\((?!\?)|\(\?</.test(assertion.raw) ? `(?:(?!)${own})?` : '(?:)'
}

function quantifier(node: AST.Quantifier): string {
  const count =
    node.min === 0 && node.max === Infinity
      ? '*'
      : node.min === 1 && node.max === Infinity
        ? '+'
        : node.min === 0 && node.max === 1
          ? '?'
          : node.max === Infinity
            ? `{${node.min},}`
            : node.min === node.max
              ? `{${node.min}}`
              : `{${node.min},${node.max}}`
  return count + (node.greedy ? '' : '?')
}

function setEscape(node: AST.EscapeCharacterSet): string {
  const letter = node.kind === 'digit' ? 'd' : node.kind === 'space' ? 's' : 'w'
  return `\\${node.negate ? letter.toUpperCase() : letter}`
}

function characterClass(node: AST.CharacterClass): string {
  const parts = node.elements.map((e) => {
    if (e.type === 'CharacterClassRange') return `${literal(e.min.value, true)}-${literal(e.max.value, true)}`
    if (e.type === 'Character') return literal(e.value, true)
    if (e.type === 'CharacterSet' && e.kind !== 'property') return setEscape(e)
    throw new Error(`unexpected ${e.type} in a class`)
  })
  return `[${node.negate ? '^' : ''}${parts.join('')}]`
}

/** Characters with a meaning of their own in Unicode-mode syntax, outside a class and inside one. */
const SYNTAX = new Set('^$\\.*+?()[]{}|/')
const CLASS_SYNTAX = new Set('\\]^-[')

/** A character as itself where that is plain printable ASCII in its position, else `\u{...}`. */
function literal(value: number, inClass: boolean): string {
  if (value >= 0x20 && value <= 0x7e) {
    const ch = String.fromCharCode(value)
    if (!(inClass ? CLASS_SYNTAX : SYNTAX).has(ch)) return ch
  }
  return escape(value)
}

const escape = (value: number) => `\\u{${value.toString(16)}}`
