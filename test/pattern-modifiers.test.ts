/**
 * Patterns with modifier groups run on the linear engine: a leading `(?i)` (what .NET and Java
 * producers write, read as ECMAScript's `(?i:...)` over the rest) and inner `(?i:...)`, `(?s:...)`,
 * `(?-i:...)` groups are translated to RE2 with ECMAScript's Unicode-mode meaning (case-insensitive:
 * the same simple case fold, `\w` and `\W` with U+017F and U+212A; `s`: a dot is every character).
 * Before, each one was budgeted, with a warning: what RE2 cannot say exactly (a case-insensitive
 * `\b`, a multiline `^`, a property escape under `i`) still is.
 *
 * Oracles written apart from the translation: JavaScript's own `RegExp` with the `u` flag and the
 * modifiers' flags for a leading group (the whole rest under them), on generated patterns and texts
 * rich in the characters whose folds differ between engines; the budgeted backtracking matcher
 * (src/core/pattern-program.ts, which resolves modifiers itself) for inner groups, which Node 20's
 * `RegExp` cannot parse; and, per character, every cased character of the Basic Multilingual Plane.
 */
import { RegExpParser } from '@eslint-community/regexpp'
import { describe, expect, it } from 'vitest'
import { backtrackProgram } from '../src/core/pattern-program.js'
import { patternEngine, runtimeSpec } from '../src/core/pattern-safety.js'
import { budgetedVerdict } from '../src/runtime/shared/budgeted-pattern.js'
import { linearMatcher } from '../src/runtime/shared/linear-pattern.js'
import { patternMatchers } from '../src/runtime/shared/pattern-matchers.js'
import { random } from './helpers/seeded-random.js'

const parser = new RegExpParser({ ecmaVersion: 2025 })

/** How a module's validator runs `pattern`: its runtime matcher (the pattern is never native: it has a modifier group). */
function matcherOf(pattern: string) {
  const spec = runtimeSpec(patternEngine(pattern))
  expect(spec, pattern).toBeDefined()
  return patternMatchers({ [pattern]: spec! }, linearMatcher)[pattern]!
}

/** Characters whose case folds differ between naive engines, and their neighbours. */
const SPECIAL = [
  's',
  'S',
  '\u017f',
  'k',
  'K',
  '\u212a',
  '\u00df',
  '\u1e9e',
  '\u03c3',
  '\u03a3',
  '\u03c2',
  'i',
  'I',
  '\u0130',
  '\u0131',
  '\u00e5',
  '\u212b',
  '\u00c5',
]
const ALPHABET = [...SPECIAL, 'a', 'A', 'b', 'f', 'F', 'z', '1', '_', ' ', '-', '\n', '\r', '\u2028', '\u00e9', '\u00c9', '\u{1f600}']

function generator(seed: number) {
  const next = random(seed)
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!
  const atom = (depth: number): string => {
    const r = next()
    if (r < 0.35) return pick(['s', 'k', 'a', 'B', '\\u017f', '\\u212a', '\\u00df', '\\u03c3', 'i', '\\u0130', '_', '1', '-'])
    if (r < 0.5) return pick(['.', '\\w', '\\W', '\\d', '\\D', '\\s', '\\S'])
    if (r < 0.75) return pick(['[a-z]', '[^a-f]', '[\\w]', '[^\\W\\d]', '[K-T]', '[^s]', '[\\u017f\\u212a]', '[A-Z\\d]', '[^\\s\\u00df]', '[\\W]'])
    if (depth > 1) return pick(['s', '.', '[a-z]'])
    return `(${sequence(depth + 1)}${next() < 0.3 ? `|${sequence(depth + 1)}` : ''})`
  }
  const quantified = (depth: number) => atom(depth) + (next() < 0.3 ? pick(['?', '*', '+', '{1,2}']) : '')
  const sequence = (depth: number) => Array.from({ length: 1 + Math.floor(next() * 3) }, () => quantified(depth)).join('')
  const pattern = () => `${next() < 0.7 ? '^' : ''}${sequence(0)}${next() < 0.7 ? '$' : ''}`
  const text = () => Array.from({ length: Math.floor(next() * 5) }, () => pick(ALPHABET)).join('')
  return { pattern, text, pick, next }
}

describe('a leading options group, against RegExp with the same flags', () => {
  it.each([
    ['i', 'ui'],
    ['s', 'us'],
    ['is', 'uis'],
  ])('(?%s): 200 generated patterns, 40 texts each, every one on the linear engine', (options, flags) => {
    const g = generator(options.length * 101 + options.charCodeAt(0))
    for (let n = 0; n < 200; n++) {
      const rest = g.pattern()
      const pattern = `(?${options})${rest}`
      expect(patternEngine(pattern).engine, pattern).toBe('linear')
      const matcher = matcherOf(pattern)
      const native = new RegExp(rest, flags)
      for (let k = 0; k < 40; k++) {
        const text = k < SPECIAL.length ? SPECIAL[k]! : g.text()
        expect(matcher.test(text), `${pattern} on ${JSON.stringify(text)}`).toBe(native.test(text))
      }
    }
  })

  it('each case-special character and a sample of others, against every cased character of the BMP', () => {
    const cased: string[] = []
    for (let cp = 0; cp <= 0xffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue
      const c = String.fromCharCode(cp)
      if (c.toLowerCase() !== c || c.toUpperCase() !== c || cp < 0x80) cased.push(c)
    }
    const g = generator(7)
    const sample = [...SPECIAL, ...Array.from({ length: 40 }, () => g.pick(cased))]
    for (const c of sample) {
      const escaped = `\\u{${c.codePointAt(0)!.toString(16)}}`
      const matcher = matcherOf(`(?i)^${escaped}$`)
      const native = new RegExp(`^${escaped}$`, 'ui')
      const differ = cased.filter((x) => matcher.test(x) !== native.test(x))
      expect(differ, `(?i)^${escaped}$`).toEqual([])
    }
  })
})

describe('inner modifier groups, against the budgeted matcher (which resolves modifiers itself)', () => {
  it('300 generated patterns with a group switching i or s on or off inside, 30 texts each', () => {
    const g = generator(1234)
    let linear = 0
    for (let n = 0; n < 300; n++) {
      const inner = g.pick(['(?i:', '(?s:', '(?is:', '(?-i:', '(?i-s:'])
      const body = `${g.pattern().replace(/^\^|\$$/g, '')}`
      const pattern = g.next() < 0.5 ? `^a${inner}${body})b$` : `^(?i:x${g.pick(['(?-i:', '(?s:'])}${body})y)$`
      const engine = patternEngine(pattern)
      if (engine.engine === 'linear') linear++
      const matcher = matcherOf(pattern)
      const program = backtrackProgram(parser.parsePattern(pattern, 0, pattern.length, { unicode: true }))
      for (let k = 0; k < 30; k++) {
        const text = (g.next() < 0.5 ? 'a' : g.pick(['x', 'X'])) + g.text() + (g.next() < 0.5 ? 'b' : g.pick(['y', 'Y']))
        const expected = budgetedVerdict(program, text)
        expect(matcher.test(text), `${pattern} on ${JSON.stringify(text)}`).toBe(expected === true)
      }
    }
    // Patterns with a word boundary under i are few in the grammar: nearly all run on the linear engine.
    expect(linear).toBeGreaterThan(275)
  })
})

describe('what RE2 cannot say exactly stays on the budgeted matcher, with its reason', () => {
  it.each([
    ['(?i)\\bfoo', 'a case-insensitive \\b takes U+017F and U+212A'],
    ['(?m)^a$', 'a multiline ^ stops at line ends'],
    ['(?i)^\\p{Lu}$', 'a case-insensitive property escape is not translated'],
  ])('%s', (pattern, reason) => {
    const engine = patternEngine(pattern)
    expect(engine.engine).toBe('budgeted')
    expect('reason' in engine && engine.reason).toContain(reason)
  })

  it('a multiline group without ^ or $, and a case-insensitive one without \\b, are translated', () => {
    expect(patternEngine('(?m)a+b').engine).toBe('linear')
    expect(patternEngine('^(?m:ab)$').engine).toBe('linear')
  })
})
