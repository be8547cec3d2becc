import { eastAsianWidth } from 'get-east-asian-width'
import { LineIndex } from './source-text.js'
import { terminalSafe } from './terminal-text.js'

const WINDOW = 100

/**
 * A code frame like the ones bundlers print: two lines of context either side and a caret under the
 * column. Written here rather than taken from a dependency because it is a few lines and must come
 * out the same in every bundler (webpack and Rspack drop the frames they are given). Long lines
 * (minified documents) are cut to a window around the column.
 */
export function codeFrame(source: string | LineIndex, line: number, column: number, context = 2): string {
  // Columns count the text without a leading byte order mark, as the compiler reads it.
  const index = typeof source === 'string' ? new LineIndex(source.charCodeAt(0) === 0xfeff ? source.slice(1) : source) : source
  const first = Math.max(1, line - context)
  const last = Math.min(index.lineCount, line + context)
  const width = String(last).length
  const start = Math.max(0, column - 1 - WINDOW / 2)
  const out: string[] = []
  for (let n = first; n <= last; n++) {
    const full = index.lineText(n)
    // Shown as a terminal may show it (control and direction characters escaped), the caret placed
    // under the escaped text.
    const text = (start > 0 ? '…' : '') + terminalSafe(full.slice(start, start + WINDOW)) + (full.length > start + WINDOW ? '…' : '')
    out.push(`${n === line ? '>' : ' '} ${String(n).padStart(width)} | ${text}`.trimEnd())
    if (n === line) {
      const before = (start > 0 ? '…' : '') + terminalSafe(full.slice(start, Math.max(start, column - 1)))
      out.push(`  ${' '.repeat(width)} | ${caretPadding(before)}^`)
    }
  }
  return out.join('\n')
}

/** Marks drawn on the character before them, and format characters drawn as nothing. */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]$/u

/**
 * Blanks as wide as `text` is drawn on a terminal, so the caret stands under its character: a tab
 * stays a tab, a wide or fullwidth character (CJK, most emoji: Unicode's East Asian Width, UAX #11)
 * takes two cells, a combining mark none, anything else one. Linear in the text.
 */
function caretPadding(text: string): string {
  let out = ''
  for (const c of text) {
    if (c === '\t') out += '\t'
    else if (!ZERO_WIDTH.test(c)) out += eastAsianWidth(c.codePointAt(0)!, { ambiguousAsWide: false }) === 2 ? '  ' : ' '
  }
  return out
}
