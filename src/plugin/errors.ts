import type { Diagnostic } from '../core/diagnostics.js'
import { codeFrame } from '../core/code-frame.js'
import { formatDiagnostic, formatDiagnostics, sourceReader } from '../core/report.js'

export const PLUGIN_NAME = 'unplugin-contracts'

/** What an error is made of: the file it is about, its diagnostics, and the files whose code frames it may show. */
export interface Failed {
  file: string
  diagnostics: readonly Diagnostic[]
  dependencies: readonly string[]
}

/**
 * An error every bundler shows once, with no stack and no virtual module id.
 *
 * - Its message carries every diagnostic's code, `file:line:column` (1-based, as editors count) and
 *   code frame: webpack, Rspack and esbuild show nothing else.
 * - In Vite it also carries `loc` (1-based: the overlay makes `file:line:column` a link that opens
 *   the editor there) and the first diagnostic's `frame`, which the overlay shows beside the message;
 *   the message then leaves that frame out, so that `vite build` does not print it twice. `loc` only
 *   for a file the compile read, and always with our frame: Vite, given a location without a frame,
 *   reads the file itself, and a refused file (a link to /proc/self/environ) must not be read.
 * - Rollup and Rolldown get no `loc` (they print it 0-based, beside our 1-based positions).
 * - `stack` is empty: what is wrong is in the contract, not in the plugin's call stack (webpack
 *   prints a stack as "details", a second copy of the message; Vite shows it in the overlay).
 * - `message` and `id` ignore later writes: Rollup prefixes a load error with `Could not load
 *   \0<virtual id>` and sets `id` to the virtual module id.
 */
export function contractError(result: Failed, framework: string, headline = `Contract ${result.file} is invalid`): Error {
  const errors = result.diagnostics.filter((d) => d.severity === 'error')
  const first = errors[0]
  const read = sourceReader(result.dependencies)
  const text = first ? read(first.file) : undefined
  const located = framework === 'vite' && first !== undefined && text !== undefined
  const shown = located ? (d: Diagnostic) => (d === first ? formatDiagnostic(d) : formatDiagnostic(d, read)) : (d: Diagnostic) => formatDiagnostic(d, read)
  const message = `${headline} (${errors.length} error${errors.length === 1 ? '' : 's'}):\n\n${formatDiagnostics(errors, read, 10, shown)}`
  const error = new Error(message)
  Object.defineProperties(error, {
    message: { get: () => message, set: () => {}, enumerable: false, configurable: true },
    id: { get: () => result.file, set: () => {}, enumerable: true, configurable: true },
    stack: { value: '', writable: true, configurable: true },
  })
  return Object.assign(error, {
    plugin: PLUGIN_NAME,
    diagnostics: errors,
    ...(first ? { code: first.code } : {}),
    ...(located ? { loc: { file: first.file, line: first.line, column: first.column }, frame: codeFrame(text, first.line, first.column) } : {}),
  })
}
