import { lstatSync } from 'node:fs'
import { codeFrame } from './code-frame.js'
import { terminalLine } from './terminal-text.js'
import type { Diagnostic } from './diagnostics.js'
import { decodedText, readRegularFile } from './input-host.js'
import { LIMITS } from './limits.js'

/** Reads a file's text for a code frame, or undefined (no frame). */
export type SourceReader = (file: string) => string | undefined

/**
 * A reader for the code frames of one compile: only the files the compiler itself read (its
 * `dependencies`), re-read as regular files, never through a link. A frame never shows bytes of
 * a file that is not the contract's (`/etc/passwd` named by a hostile definitions entry).
 */
export function sourceReader(files: Iterable<string>): SourceReader {
  const allowed = new Set(files)
  return (file) => {
    if (!allowed.has(file)) return undefined
    try {
      if (lstatSync(file).isSymbolicLink()) return undefined
      const bytes = readRegularFile(file, LIMITS.fileBytes)
      // Read as the compile read it (positions are in that text); bytes it could not read, as UTF-8 with replacements.
      return Buffer.isBuffer(bytes) ? (decodedText(bytes, file) ?? bytes.toString('utf8')) : undefined
    } catch {
      return undefined
    }
  }
}

/**
 * One diagnostic as people read it: severity, code, message, `file:line:column` with the pointer,
 * and a code frame of the contract source when `readText` gives it (`sourceReader` of the
 * compile's dependencies). Bundlers that drop error locations (webpack, Rspack) still show
 * everything, because it is all in this text.
 */
export function formatDiagnostic(diagnostic: Diagnostic, readText: SourceReader = () => undefined): string {
  const { file, line, column } = diagnostic
  const text = readText(file)
  const frame = text === undefined ? '' : '\n' + codeFrame(text, line, column)
  // The other places it involves, one line each after the frame (which shows the diagnostic's own).
  const related = (diagnostic.related ?? [])
    .map((r) => `\n  see ${shownLine(`${r.file}:${r.line}:${r.column}${r.pointer ? ` (${r.pointer})` : ''}: ${r.message}`)}`)
    .join('')
  return `${diagnosticHeader(diagnostic, text !== undefined)}${frame}${related}`
}

/**
 * The first two lines of `formatDiagnostic`: severity, code and message, then `at file:line:column`
 * (just `at file` for a file that could not be read, `readable` false, where `:1:1` would point into nothing).
 */
export function diagnosticHeader(diagnostic: Diagnostic, readable: boolean): string {
  const { severity, code, message, file, line, column, pointer } = diagnostic
  const wholeFile = !readable && pointer === '' && line === 1 && column === 1
  const where = wholeFile ? `  at ${file}` : `  at ${file}:${line}:${column}${pointer ? ` (${pointer})` : ''}`
  // Messages, paths and pointers quote the document: escaped for the terminal, the log or the overlay,
  // and each a line of its own (a newline in a file's name or a key is an escape too).
  return `${severity} ${code}: ${shownLine(message)}\n${shownLine(where)}`
}

/** The most characters of a message or a place shown on one line (a code frame shows 100 around its column). */
export const SHOWN_LINE_CHARS = 1000

/**
 * One line of text as `terminalLine` writes it, cut after `SHOWN_LINE_CHARS` characters of the
 * text: a message quotes the document (a key, a `$ref`), and a name of a million characters made
 * a line of a million characters in every bundler's error and in `check`'s text (`--json` and
 * SARIF keep the whole message).
 */
export function shownLine(text: string): string {
  if (text.length <= SHOWN_LINE_CHARS) return terminalLine(text)
  const kept = Array.from(text.slice(0, SHOWN_LINE_CHARS + 1))
    .slice(0, -1)
    .join('')
  return `${terminalLine(kept)}... (${text.length - kept.length} more characters; \`contracts check --json\` shows them all)`
}

/** Several diagnostics, errors first, at most `limit` of them. */
export function formatDiagnostics(
  diagnostics: readonly Diagnostic[],
  readText?: SourceReader,
  limit = 10,
  format: (d: Diagnostic) => string = (d) => formatDiagnostic(d, readText),
): string {
  const ordered = [...diagnostics.filter((d) => d.severity === 'error'), ...diagnostics.filter((d) => d.severity !== 'error')]
  const shown = ordered.slice(0, limit).map(format)
  if (ordered.length > limit) shown.push(`... and ${ordered.length - limit} more (run \`contracts check\` to see them all)`)
  return shown.join('\n\n')
}
