/**
 * The hover's Markdown writers (src/cli/lsp/markdown.ts) against a CommonMark renderer written
 * apart from them (markdown-it, HTML allowed, as an editor renders a hover): for any text, what
 * renders is the text itself (its invisible characters and line breaks as `\u{...}`, as every
 * output writes them), in a paragraph or a code element, and never an element or a link of its own.
 */
import fc from 'fast-check'
import MarkdownIt from 'markdown-it'
import { describe, expect, it } from 'vitest'
import { markdownCode, markdownFence, markdownText } from '../src/cli/lsp/markdown.js'
import { terminalLine } from '../src/core/terminal-text.js'

const renderer = new MarkdownIt({ html: true, linkify: true })

/** The characters that make Markdown and HTML, and the ones every output escapes. */
const HOSTILE = [...'`\\*_[]()<>!#&|~-+=.:;"\'{}^$%@/?,', ' ', '\t', '\n', '\r', 'a', 'Z', '0', 'é', '😀', '\u202e', '\u200b', '\u2028', '\0']
const hostile = fc.string({
  unit: fc.oneof(
    fc.constantFrom(...HOSTILE),
    fc.constantFrom('<img src=x onerror=alert(1)>', '```', '[x](javascript:alert(1))', '&lt;', 'http://evil.example', '<b>'),
  ),
  maxLength: 40,
})

/** The HTML's text (entities decoded), and the names of the elements it has. */
function read(html: string): { text: string; elements: string[] } {
  const elements = [...html.matchAll(/<([a-z][a-z0-9]*)\b/gi)].map((m) => m[1]!.toLowerCase())
  const text = html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
  return { text, elements }
}

describe('hover Markdown: contract text renders as itself', () => {
  it('markdownText: one paragraph whose text is the input, no element of its own (property)', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        const { text, elements } = read(renderer.renderInline(`x ${markdownText(s)} y`))
        expect(elements).toEqual([])
        expect(text).toBe(`x ${terminalLine(s)} y`)
      }),
      { numRuns: 2000 },
    )
  })

  it('markdownCode: one code element whose text is the input, however many backticks it holds (property)', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        const { text, elements } = read(renderer.renderInline(`x ${markdownCode(s)} y`))
        expect(elements).toEqual(['code'])
        const shown = terminalLine(s)
        // CommonMark shows a span's line ending as a space; none is left after terminalLine. An empty text shows one space.
        expect(text).toBe(`x ${shown === '' ? ' ' : shown} y`)
      }),
      { numRuns: 2000 },
    )
  })

  it('markdownText and markdownCode at the start of a line: no heading, list, quote, HTML block or code block (property)', () => {
    fc.assert(
      fc.property(hostile, hostile, (a, b) => {
        const html = renderer.render(`${markdownText(a)}\n\n${markdownCode(b)}; ${markdownText(b)}`)
        const { elements } = read(html)
        expect(elements.filter((e) => e !== 'p' && e !== 'code')).toEqual([])
      }),
      { numRuns: 1000 },
    )
  })

  it('markdownFence: one code block holding the lines as given, whatever backtick runs they hold (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          hostile.map((s) => s.replace(/[\r\n]/g, ' ')),
          { minLength: 1, maxLength: 6 },
        ),
        (lines) => {
          const html = renderer.render(markdownFence('json', lines))
          expect(read(html).elements).toEqual(['pre', 'code'])
          expect(read(/<code[^>]*>([\s\S]*)<\/code>/.exec(html)![1]!).text).toBe(lines.map((line) => terminalLine(line)).join('\n') + '\n')
        },
      ),
      { numRuns: 1000 },
    )
  })

  it('examples: HTML, a javascript: link and a closing backtick stay text', () => {
    expect(markdownText('<img src=x onerror=alert(1)>')).toBe('\\<img src\\=x onerror\\=alert\\(1\\)\\>')
    expect(markdownText('[x](javascript:alert(1))')).toBe('\\[x\\]\\(javascript\\:alert\\(1\\)\\)')
    expect(markdownCode('a` <b>x</b> `b')).toBe('``a` <b>x</b> `b``')
    expect(markdownCode('`a')).toBe('`` `a ``')
    expect(markdownCode('')).toBe('` `')
    expect(markdownText('left\u202eright\nnext')).toBe('left\\\\u\\{202e\\}right\\\\u\\{a\\}next')
  })
})
