/**
 * The compiler's diagnostics as LSP diagnostics. Positions: the compiler's `line` and `column` are
 * 1-based and the column counts UTF-16 code units (src/core/source-text.ts: an offset into the
 * JavaScript string minus the line's start; lines end at \n, \r\n or a lone \r). LSP positions are
 * 0-based and, in the encoding every client supports and this server keeps (it announces no
 * other `positionEncoding`), count UTF-16 code units too, with the same three line ends: so a
 * position is (line - 1, column - 1), and nothing is re-measured (one exception: a byte order mark
 * the editor's text keeps, which the compiler does not count; see `rangeAt`).
 */
import type { Diagnostic as LspDiagnostic, Range } from 'vscode-languageserver/node.js'
import type { Diagnostic } from '../../core/diagnostics.js'
import type { LineIndex } from '../../core/source-text.js'
import { codeDocsUrl } from '../docs-links.js'

/** LSP's DiagnosticSeverity values (the protocol's numbers; the enum itself is in a module loaded lazily). */
const SEVERITY = { error: 1, warning: 2 } as const

export type UriOf = (file: string) => string
/** The lines of a file's text as compiled, when the editor has it (one index per file and publish). */
export type LinesOf = (file: string) => LineIndex | undefined

/**
 * One diagnostic for the client. When the file's text is known the range spans the token at the
 * position (a quoted string, a word); otherwise it is empty, at the position.
 */
export function toLspDiagnostic(d: Diagnostic, linesOf: LinesOf, uriOf: UriOf): LspDiagnostic {
  const href = codeDocsUrl(d.code)
  return {
    range: rangeAt(linesOf(d.file), d.line, d.column),
    severity: SEVERITY[d.severity],
    code: d.code,
    ...(href ? { codeDescription: { href } } : {}),
    source: 'contracts',
    message: d.pointer ? `${d.message} (${d.pointer})` : d.message,
    ...(d.related?.length
      ? {
          relatedInformation: d.related.map((r) => ({
            location: { uri: uriOf(r.file), range: rangeAt(linesOf(r.file), r.line, r.column) },
            message: r.message,
          })),
        }
      : {}),
  }
}

/**
 * A range from a 1-based line and UTF-16 column: to the end of the token there when the lines are
 * known. The compiler reads a text without its leading byte order mark (as a file is decoded), so
 * its columns on line 1 do not count it; an editor that keeps the mark in the document's text
 * counts it in its positions, so there the column is one further.
 */
export function rangeAt(lines: LineIndex | undefined, line: number, column: number): Range {
  const bom = line <= 1 && lines !== undefined && lines.text.charCodeAt(0) === 0xfeff ? 1 : 0
  const start = { line: Math.max(0, line - 1), character: Math.max(0, column - 1) + bom }
  const end = lines === undefined || line > lines.lineCount ? start.character : tokenEnd(lines.lineText(line), start.character)
  return { start, end: { line: start.line, character: end } }
}

const MAX_TOKEN = 1024

/** Where the token starting at `at` ends: a quoted string through its closing quote, else a run of non-separators; at least one character when there is one. */
function tokenEnd(line: string, at: number): number {
  if (at >= line.length) return at
  // A token longer than this is shown by its start: a hostile one-line document stays cheap.
  const limit = Math.min(line.length, at + MAX_TOKEN)
  const quote = line[at]
  if (quote === '"' || quote === "'") {
    for (let i = at + 1; i < limit; i++) {
      if (quote === '"' && line[i] === '\\') i++
      else if (line[i] === quote) {
        // YAML doubles a single quote inside a single-quoted scalar.
        if (quote === "'" && line[i + 1] === "'") i++
        else return i + 1
      }
    }
    return limit
  }
  let i = at
  while (i < limit && !/[\s,{}[\]]/.test(line[i]!) && !(line[i] === ':' && /\s|$/.test(line[i + 1] ?? ''))) i++
  return Math.max(i, at + 1)
}
