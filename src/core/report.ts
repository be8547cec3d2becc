import { readFileSync } from 'node:fs'
import { codeFrame } from './code-frame.js'
import type { Diagnostic } from './diagnostics.js'

/**
 * One diagnostic as people read it: severity, code, message, `file:line:column` with the pointer,
 * and a code frame of the contract source. Bundlers that drop error locations (webpack, Rspack)
 * still show everything, because it is all in this text.
 */
export function formatDiagnostic(diagnostic: Diagnostic, readText: (file: string) => string | undefined = readQuietly): string {
  const { severity, code, message, file, line, column, pointer } = diagnostic
  const where = `  at ${file}:${line}:${column}${pointer ? ` (${pointer})` : ''}`
  const text = readText(file)
  const frame = text === undefined ? '' : '\n' + codeFrame(text, line, column)
  return `${severity} ${code}: ${message}\n${where}${frame}`
}

/** Several diagnostics, errors first, at most `limit` of them. */
export function formatDiagnostics(diagnostics: readonly Diagnostic[], limit = 10): string {
  const ordered = [...diagnostics.filter((d) => d.severity === 'error'), ...diagnostics.filter((d) => d.severity !== 'error')]
  const shown = ordered.slice(0, limit).map((d) => formatDiagnostic(d))
  if (ordered.length > limit) shown.push(`... and ${ordered.length - limit} more (run \`contracts check\` to see them all)`)
  return shown.join('\n\n')
}

function readQuietly(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}
