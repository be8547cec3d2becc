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
  const index = typeof source === 'string' ? new LineIndex(source) : source
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
      out.push(`  ${' '.repeat(width)} | ${before.replace(/[^\t]/g, ' ')}^`)
    }
  }
  return out.join('\n')
}
