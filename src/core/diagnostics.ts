/**
 * Structured diagnostics: every problem the compiler finds is one of these, never a thrown error.
 * `line` and `column` are 1-based (column counts UTF-16 code units, as editors and bundlers do);
 * `pointer` is a JSON Pointer (RFC 6901) into the contract document.
 */
export type Severity = 'error' | 'warning'

export interface Diagnostic {
  /** Stable, documented code such as `BENZENE_REF_MISSING`. */
  code: string
  severity: Severity
  message: string
  /** Absolute path of the file the pointer refers to. */
  file: string
  pointer: string
  line: number
  column: number
  /** Machine-readable details for codes that promise them (e.g. `BENZENE_UNKNOWN_TOPIC`). */
  data?: Record<string, unknown>
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error')
}

/** Stable order for output: by file, then position, then code. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) =>
      compare(a.file, b.file) || a.line - b.line || a.column - b.column || compare(a.code, b.code) ||
      compare(a.pointer, b.pointer),
  )
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
