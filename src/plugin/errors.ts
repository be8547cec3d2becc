import { diagnosticKey, type Diagnostic } from '../core/diagnostics.js'
import { diagnosticHeader, formatDiagnostics, shownLine, sourceReader } from '../core/report.js'
import { terminalLine } from '../core/terminal-text.js'

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
 * - Its text is every diagnostic in order, each its code, `file:line:column` (1-based, as editors
 *   count), then its own code frame: webpack, Rspack and esbuild show the message alone (webpack
 *   and Rspack under the contract's path: see `ContractProblems`).
 * - Vite shows an error's `frame` after its message, both in `vite build` and in the dev overlay
 *   (which also removes code-frame lines from the message when there is a `frame`). So in Vite the
 *   text is cut after the first diagnostic's `at file:line:column` line: the message is the headline
 *   and that first header, the `frame` is the rest (the first diagnostic's frame, then the next
 *   diagnostics, each with its frame); printed one after the other, it reads in order. `loc` is the
 *   first diagnostic's (the overlay makes it a link that opens the editor there). `loc` only for a
 *   file the compile read, and always with our frame: Vite, given a location without a frame, reads
 *   the file itself, and a refused file (a link to /proc/self/environ) must not be read.
 * - Rollup and Rolldown get no `loc` (they print it 0-based, beside our 1-based positions).
 * - `stack` is empty: what is wrong is in the contract, not in the plugin's call stack (webpack
 *   prints a stack as "details", a second copy of the message; Vite shows it in the overlay).
 * - `message` and `id` ignore later writes: Rollup prefixes a load error with `Could not load
 *   \0<virtual id>` and sets `id` to the virtual module id.
 */
export function contractError(
  result: Failed,
  framework: string,
  headline = `Contract ${shownLine(result.file)} is invalid`,
  shownBefore = false,
): ContractError {
  const errors = result.diagnostics.filter((d) => d.severity === 'error')
  const first = errors[0]
  const read = sourceReader(result.dependencies)
  const count = errorCount(errors)
  const title = `${headline} (${count} error${count === 1 ? '' : 's'}):`
  // The same contract's same errors, failing a second module of the build (`x.spec.json` and `x.spec.json?topics=a`): said once.
  if (shownBefore) return bareError(`${headline} (${count} error${count === 1 ? '' : 's'}, printed above for another import of it).`, result.file, errors)
  const listing = formatDiagnostics(errors, read)
  const text = framework === 'vite' && first !== undefined ? read(first.file) : undefined
  const head = first !== undefined && text !== undefined ? diagnosticHeader(first, true) + '\n' : undefined
  const located = first !== undefined && text !== undefined && head !== undefined && listing.startsWith(head)
  // esbuild writes ` [plugin unplugin-contracts]` right after the text: after a newline, not on the last frame line.
  const message = located ? `${title}\n\n${head.trimEnd()}` : `${title}\n\n${listing}${framework === 'esbuild' ? '\n' : ''}`
  return Object.assign(bareError(message, result.file, errors), {
    ...(located ? { loc: { file: terminalLine(first.file), line: first.line, column: first.column }, frame: listing.slice(head.length) } : {}),
  })
}

/**
 * An error with a message alone (no location, no frame, no stack), as `contractError` makes one.
 * The bundlers print `id` (and Vite `loc.file`) as they are: a name holding a line break or an
 * escape sequence is given escaped (a plain path as it is: the overlay opens the editor there).
 */
function bareError(message: string, file: string, errors: readonly Diagnostic[]): ContractError {
  const error = new Error(message)
  const id = terminalLine(file)
  Object.defineProperties(error, {
    message: { get: () => message, set: () => {}, enumerable: false, configurable: true },
    id: { get: () => id, set: () => {}, enumerable: true, configurable: true },
    stack: { value: '', writable: true, configurable: true },
  })
  return Object.assign(error, { plugin: PLUGIN_NAME, diagnostics: errors, ...(errors[0] ? { code: errors[0].code } : {}) })
}

/**
 * The errors of a contract a build reported already, by file (`errorsShown`): a second module of
 * the same contract with the same errors fails with a line that points at them, not a copy.
 */
export function errorsKey(diagnostics: readonly Diagnostic[]): string {
  return diagnostics
    .filter((d) => d.severity === 'error')
    .map(diagnosticKey)
    .join('\n')
}

/** How many errors a list reports: a `CONTRACTS_DIAGNOSTICS_CAPPED` notice counts the errors it stands for, not itself. */
function errorCount(errors: readonly Diagnostic[]): number {
  let count = 0
  for (const d of errors) {
    const left = d.code === 'CONTRACTS_DIAGNOSTICS_CAPPED' ? (d.data as { count?: unknown } | undefined)?.count : undefined
    count += typeof left === 'number' ? left : 1
  }
  return count
}

/** What `contractError` makes: an Error with the diagnostics it reports. */
export type ContractError = Error & { plugin: string; diagnostics: readonly Diagnostic[] }
