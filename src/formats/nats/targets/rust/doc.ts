/**
 * Text from a contract in Rust doc comments, as plain text. rustdoc renders `///` as Markdown with
 * inline HTML (a `<script>` runs in the `cargo doc` page), compiles fenced and indented code blocks
 * as doctests, and rustc refuses bidi controls (`text_direction_codepoint_in_comment`) and a bare
 * `\r` in a doc comment. So every character with a meaning is escaped: what a reader sees is the
 * contract's text, and nothing in it is markup, code or a direction change. Linear in the text.
 */

/**
 * Characters shown as a visible `\u{...}` rather than written: controls, format characters (bidi
 * overrides and isolates, zero-width, BOM), line and paragraph separators, private use, unassigned
 * and lone surrogates. Tab is the one control kept (nothing reads it inside a line).
 */
const INVISIBLE = /[\p{C}\p{Zl}\p{Zp}]/u

/** Markdown punctuation with a meaning wherever it stands (emphasis, code, links, HTML, entities, tables, smart quotes). */
const ALWAYS = new Set(['\\', '`', '*', '_', '[', ']', '<', '>', '&', '#', '|', '~', '$', '^', '"', "'"])

const visible = (c: string) => `\\\\u{${c.codePointAt(0)!.toString(16)}}`

/**
 * One line of plain text for a doc comment. Besides `ALWAYS`: a list, quote or setext marker at the
 * line start (`-`, `+`, `=`, `:`), an ordered-list marker (`1.`, `1)`), and the runs smart
 * punctuation turns into dashes and ellipses (`--`, `..`), and the `:` of `scheme://` (rustdoc's
 * `bare_urls` lint warns on a URL in text). Leading whitespace goes (four spaces
 * would start a code block, a doctest); trailing whitespace too (a hard break).
 */
function escapeLine(line: string): string {
  const chars = [...line.replace(/^[ \t]+|[ \t]+$/g, '')]
  let out = ''
  let digitsOnly = true
  chars.forEach((c, i) => {
    const prev = chars[i - 1]
    const next = chars[i + 1]
    const atStart = i === 0
    if (c !== '\t' && INVISIBLE.test(c)) out += visible(c)
    else if (ALWAYS.has(c)) out += `\\${c}`
    else if ((c === '-' || c === '.') && (prev === c || next === c)) out += `\\${c}`
    else if (atStart && (c === '-' || c === '+' || c === '=' || c === ':')) out += `\\${c}`
    else if (c === ':' && next === '/' && chars[i + 2] === '/') out += `\\${c}`
    else if ((c === '.' || c === ')') && digitsOnly && i > 0) out += `\\${c}`
    else out += c
    digitsOnly &&= c >= '0' && c <= '9'
  })
  return out
}

/**
 * A description as doc comment lines (without the `/// ` prefix): one per line of the text, blank
 * lines kept as paragraph breaks, never two blank lines in a row nor one at either end.
 */
export function docLines(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/).map(escapeLine)
  const out: string[] = []
  for (const l of lines) if (l !== '' || (out.length > 0 && out.at(-1) !== '')) out.push(l)
  while (out.at(-1) === '') out.pop()
  return out
}

/** A fragment inside a doc comment line: plain text, no line breaks. */
export function docInline(text: string): string {
  return escapeLine(text.replace(/\r\n|\r|\n/g, ' '))
}

/**
 * A code span holding `text` literally: printable ASCII as it is, the rest `\u{...}`, fenced by one
 * more backtick than the longest run inside (a backtick in the text cannot close it; HTML inside a
 * code span is text).
 */
export function codeSpan(text: string): string {
  let body = ''
  for (const c of text) {
    const code = c.codePointAt(0)!
    body += code >= 0x20 && code < 0x7f ? c : `\\u{${code.toString(16)}}`
  }
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((run) => run.length))
  const fence = '`'.repeat(longest + 1)
  // A space on each side when the body starts or ends with a backtick (CommonMark strips one of each).
  const pad = body.startsWith('`') || body.endsWith('`') || body === '' ? ' ' : ''
  return `${fence}${pad}${body}${pad}${fence}`
}
