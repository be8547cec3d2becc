/**
 * Text from a contract written into generated JavaScript and TypeScript (src/core/emit.ts): a string
 * literal holds the same value and none of the characters that reorder or hide what a reader sees; a
 * comment holds them as visible `\u{...}` escapes. The oracle is the language itself: each literal is
 * evaluated in a fresh context.
 */
import { runInNewContext } from 'node:vm'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { commentLines, commentText, jsLiteral, jsString } from '../src/core/emit.js'

/** Direction overrides and isolates, zero-width characters, the byte order mark, separators, NUL. */
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const INVISIBLE = /[\u0000\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u2028\u2029]/
const UNITS = [
  'a',
  'é',
  '😀',
  '"',
  "'",
  '\\',
  '`',
  '${',
  '<',
  '>',
  '</script>',
  '*/',
  '\n',
  '\r',
  '\u2028',
  '\u2029',
  '\u0000',
  '\u202e',
  '\u2066',
  '\u200b',
  '\ufeff',
  '\u200d',
]
const hostile = fc.string({ unit: fc.constantFrom(...UNITS), maxLength: 30 })

// Was observed (and fixed; found by test/probe-sidecars): direction overrides and NUL reached the declarations raw.
describe('contract text in generated code', () => {
  it('jsString: the same value, and no invisible character, separator, `<` or `>` in the literal (property)', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        const literal = jsString(s)
        expect(runInNewContext(literal)).toBe(s)
        expect(INVISIBLE.test(literal.replace(/\\u0000/g, ''))).toBe(false)
        expect(/[<>]/.test(literal)).toBe(false)
      }),
      { numRuns: 1000 },
    )
  })

  it('jsLiteral: the same value for objects of such strings, keys included (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(hostile, fc.oneof(hostile, fc.array(hostile, { maxLength: 3 }))), (value) => {
        const literal = jsLiteral(value)
        expect(runInNewContext(`(${literal})`)).toEqual(value)
        expect(INVISIBLE.test(literal.replace(/\\u0000/g, ''))).toBe(false)
      }),
      { numRuns: 500 },
    )
  })

  it('commentText and commentLines: nothing that ends the comment or hides text; the zero-width joiner kept (property)', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        const one = commentText(s)
        expect(one.includes('*/') || /[\n\r]/.test(one) || INVISIBLE.test(one)).toBe(false)
        const lines = commentLines(s)
        expect(lines.length).toBe(s.split(/\r\n|[\n\r\u2028\u2029]/).length)
        for (const line of lines) expect(line.includes('*/') || /[\n\r]/.test(line) || INVISIBLE.test(line)).toBe(false)
      }),
      { numRuns: 1000 },
    )
    expect(commentLines('left\u202eright')).toEqual(['left\\u{202e}right'])
    expect(jsString('a\u202eb')).toBe('"a\\u202eb"')
    expect(jsString('👨\u200d👩')).toBe('"👨\u200d👩"')
  })
})
