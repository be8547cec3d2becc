/**
 * Text from a contract written into a hover's Markdown (CommonMark, as editors render it, HTML
 * allowed): shown as the characters it is, never read as Markdown or HTML. A description holding
 * `<img src=x onerror=...>`, a `[link](javascript:...)` or a backtick that closes the code span
 * around a property name renders as those characters. Invisible characters (direction overrides,
 * zero-width characters, controls) are written as `\u{...}` escapes, as in every other output
 * (`terminalLine`), and so is a line break: a hover's line from a document stays one line.
 */
import { terminalLine } from '../../core/terminal-text.js'

/** ASCII punctuation, each of which CommonMark lets a backslash make literal (and only those). */
const PUNCTUATION = /[!-/:-@[-`{-~]/g

/**
 * Contract text as plain Markdown text: every ASCII punctuation character backslash-escaped, and
 * white space at its start written as character references (four spaces or a tab there would
 * start a code block where the text begins a line).
 */
export function markdownText(text: string): string {
  return terminalLine(text)
    .replace(PUNCTUATION, '\\$&')
    .replace(/^[ \t]+/, (space) => space.replace(/ /g, '&#32;').replace(/\t/g, '&#9;'))
}

/**
 * Contract text as a code span: delimited by one more backtick than its longest run of backticks
 * (backslashes do not escape inside a code span), padded with a space where it begins or ends with
 * a backtick, or begins and ends with a space around other characters (CommonMark strips one space
 * from each end of such a span).
 */
export function markdownCode(text: string): string {
  const content = terminalLine(text)
  // An empty span would be two backticks, which CommonMark reads as text: one space is shown instead.
  if (content === '') return '` `'
  const fence = '`'.repeat(longestRun(content) + 1)
  const pad = /^`|`$/.test(content) || /^ .*[^ ].* $/s.test(content) ? ' ' : ''
  return `${fence}${pad}${content}${pad}${fence}`
}

/**
 * Lines (already safe as code: `JSON.stringify` output) as a fenced code block whose fence is
 * longer than any run of backticks in them, so that no line can close it.
 */
export function markdownFence(language: string, lines: readonly string[]): string {
  const body = lines.map((line) => terminalLine(line)).join('\n')
  const fence = '`'.repeat(Math.max(2, longestRun(body)) + 1)
  return `${fence}${language}\n${body}\n${fence}`
}

/** The longest run of backticks in `text` (0 for none). */
function longestRun(text: string): number {
  let longest = 0
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length)
  return longest
}
