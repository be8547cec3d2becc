import type { CodeInfo, DiagnosticCode } from './codes.js'

/**
 * Structured diagnostics: every problem the compiler finds is one of these, never a thrown error.
 * `line` and `column` are 1-based (column counts UTF-16 code units, as editors and bundlers do);
 * `pointer` is a JSON Pointer (RFC 6901) into the contract document.
 */
export type Severity = 'error' | 'warning'

export interface Diagnostic {
  /** Stable, documented code such as `BENZENE_REF_MISSING`: one of the declared codes (codes.ts). */
  code: DiagnosticCode
  severity: Severity
  message: string
  /** Absolute path of the file the pointer refers to. */
  file: string
  pointer: string
  line: number
  column: number
  /** Machine-readable details for codes that promise them (e.g. `BENZENE_UNKNOWN_TOPIC`). */
  data?: Record<string, unknown>
  /**
   * Other places the problem involves, when a rule names them: the first declaration a duplicate
   * repeats, the other document of a conflict. Editors show them beside the diagnostic (LSP
   * `relatedInformation`), SARIF as `relatedLocations`.
   */
  related?: RelatedLocation[]
}

/** A place a diagnostic refers to besides its own: positioned like the diagnostic, with what is there. */
export interface RelatedLocation {
  file: string
  pointer: string
  line: number
  column: number
  message: string
}

/** What makes two diagnostics the same report (one printed twice is a copy): code, place and message. */
export function diagnosticKey(d: Diagnostic): string {
  return `${d.code} ${d.file}:${d.line}:${d.column} ${d.message}`
}

/** The diagnostics whose key `seen` does not hold yet, each added to it: what is left to report once. */
export function unreported(diagnostics: readonly Diagnostic[], seen: Set<string>): Diagnostic[] {
  return diagnostics.filter((d) => {
    const key = diagnosticKey(d)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error')
}

/** Stable order for output: by file, then position, then code. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) => compare(a.file, b.file) || a.line - b.line || a.column - b.column || compare(a.code, b.code) || compare(a.pointer, b.pointer),
  )
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Diagnostics of one code kept per compile; the rest are counted in one summary. */
export const MAX_DIAGNOSTICS_PER_CODE = 100
/** Diagnostics kept per compile, whatever their codes. */
export const MAX_DIAGNOSTICS = 1000

/**
 * At most `MAX_DIAGNOSTICS_PER_CODE` of each code and `MAX_DIAGNOSTICS` in all, in the stable
 * order; what is left out is counted in a `CONTRACTS_DIAGNOSTICS_CAPPED` diagnostic per code, at
 * the first one left out (an error when any left out is one). A hostile contract can make a rule
 * fire once per member; a person reads the first hundred, and memory and output stay bounded.
 */
export function capDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const sorted = sortDiagnostics(diagnostics)
  if (sorted.length <= MAX_DIAGNOSTICS_PER_CODE) return sorted
  const kept: Diagnostic[] = []
  const counts = new Map<string, number>()
  const dropped = new Map<string, { first: Diagnostic; count: number; error: boolean }>()
  for (const d of sorted) {
    const n = (counts.get(d.code) ?? 0) + 1
    counts.set(d.code, n)
    if (n <= MAX_DIAGNOSTICS_PER_CODE && kept.length < MAX_DIAGNOSTICS) kept.push(d)
    else {
      const entry = dropped.get(d.code)
      if (entry) {
        entry.count++
        entry.error ||= d.severity === 'error'
      } else dropped.set(d.code, { first: d, count: 1, error: d.severity === 'error' })
    }
  }
  for (const [code, { first, count, error }] of dropped) {
    kept.push({
      code: 'CONTRACTS_DIAGNOSTICS_CAPPED',
      severity: error ? 'error' : 'warning',
      message: `${count} more ${code} diagnostic${count === 1 ? '' : 's'} not shown (at most ${MAX_DIAGNOSTICS_PER_CODE} per code and ${MAX_DIAGNOSTICS} per compile are).`,
      file: first.file,
      pointer: first.pointer,
      line: first.line,
      column: first.column,
      data: { code, count },
    })
  }
  return sortDiagnostics(kept)
}

/** Something diagnostics can point into: a file and a way to find a JSON Pointer's position in it. */
export interface Locatable {
  file: string
  locate?(pointer: string): { line: number; column: number }
}

/**
 * A diagnostic at `pointer` of `where` (line 1, column 1 when the source cannot locate it). The
 * one way every stage of every format positions what it reports. The severity is always given:
 * the rule runner passes the rule's, a stage outside the rules its code's declared one
 * (`declaredDiagnostics`), so no code is emitted at a severity other than the one it declares.
 */
export function diagnosticAt(
  where: Locatable,
  code: DiagnosticCode,
  pointer: string,
  message: string,
  data: Record<string, unknown> | undefined,
  severity: Severity,
): Diagnostic {
  const { line, column } = where.locate ? where.locate(pointer) : { line: 1, column: 1 }
  return { code, severity, message, file: where.file, pointer, line, column, ...(data ? { data } : {}) }
}

/** How a stage outside the rules (reading, options, the model) makes a diagnostic of one of the codes it declares. */
export type DeclaredDiagnostic<Code extends string> = (
  where: Locatable,
  code: Code,
  pointer: string,
  message: string,
  data?: Record<string, unknown>,
  /** Only where the declaration cannot say it (the severity depends on what is reported). */
  severity?: Severity,
) => Diagnostic

/**
 * `diagnosticAt` for the codes of a declaration table (`declareCodes`, a `codes.ts`; spread two
 * into one for a stage that emits both): each diagnostic takes its code's declared severity,
 * unless the caller overrides it.
 */
export function declaredDiagnostics<const T extends Readonly<Record<string, CodeInfo>>>(codes: T): DeclaredDiagnostic<keyof T & DiagnosticCode> {
  return (where, code, pointer, message, data, severity = codes[code]!.severity) => diagnosticAt(where, code, pointer, message, data, severity)
}
