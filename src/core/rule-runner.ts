import type { DiagnosticCode } from './codes.js'
import { diagnosticAt, type Diagnostic, type Locatable, type RelatedLocation } from './diagnostics.js'
import type { KeptReports, ReportCall } from './kept-reports.js'
import type { Related, Report, Rule } from './rule.js'

/** Where a format's rules report: the document compiled, and how to position a report in another file of its input. */
export interface RuleTarget<File = never> {
  readonly main: Locatable
  readonly locate?: (file: File) => Locatable
}

/**
 * Runs rules in order over one context. Each rule reports through its own `Report`, which makes
 * the diagnostic: the rule's declared code and severity (error unless it says warning), the file,
 * the pointer and its line and column. Appended to `into` in the order reported; returns it.
 */
export function runRules<Context, Code extends DiagnosticCode, File = never>(
  rules: readonly Rule<Context, Code, File>[],
  context: Context,
  target: RuleTarget<File>,
  into: Diagnostic[] = [],
  kept?: KeptReports<File>,
): Diagnostic[] {
  for (const rule of rules) {
    const report = reporter(rule.code, rule.severity ?? 'error', target, into)
    if (kept === undefined || rule.reads === undefined) {
      rule.check(context, report)
      continue
    }
    const reads = rule.reads(context)
    const calls = kept.find(rule, reads)
    if (calls !== undefined) {
      for (const call of calls) replay(report, call)
      continue
    }
    const made: ReportCall<File>[] = []
    rule.check(context, recording(report, made))
    kept.keep(rule, reads, made)
  }
  return into
}

/** `report`, with each call also written to `calls` (its data and related copied: the diagnostics made from them share nothing). */
export function recording<File>(report: Report<File>, calls: ReportCall<File>[]): Report<File> {
  const record = (file: File | undefined, pointer: string, message: string, data?: Record<string, unknown>, related?: readonly Related<File>[]) =>
    void calls.push({ in: file, pointer, message, data: data && structuredClone(data), related: related?.map((r) => ({ ...r })) })
  return Object.assign(
    (pointer: string, message: string, data?: Record<string, unknown>, related?: readonly Related<File>[]) => {
      record(undefined, pointer, message, data, related)
      report(pointer, message, data, related)
    },
    {
      in(file: File, pointer: string, message: string, data?: Record<string, unknown>, related?: readonly Related<File>[]) {
        record(file, pointer, message, data, related)
        report.in(file, pointer, message, data, related)
      },
    },
  )
}

/** Makes a kept call again through `report` (its data and related copied again). */
export function replay<File>(report: Report<File>, call: ReportCall<File>): void {
  const data = call.data && structuredClone(call.data)
  const related = (call.related as readonly Related<File>[] | undefined)?.map((r) => ({ ...r }))
  if (call.in === undefined) report(call.pointer, call.message, data, related)
  else report.in(call.in, call.pointer, call.message, data, related)
}

function reporter<File>(code: DiagnosticCode, severity: Diagnostic['severity'], target: RuleTarget<File>, into: Diagnostic[]): Report<File> {
  const where = (file: File | undefined): Locatable => {
    if (file === undefined) return target.main
    if (!target.locate) throw new Error(`${code}: this format's rules report into the document only`)
    return target.locate(file)
  }
  const push = (at: Locatable, pointer: string, message: string, data?: Record<string, unknown>, related?: readonly Related<File>[]) => {
    const diagnostic = diagnosticAt(at, code, pointer, message, data, severity)
    if (related?.length) diagnostic.related = related.map((r) => relatedAt(where(r.in), r))
    into.push(diagnostic)
  }
  const report = (pointer: string, message: string, data?: Record<string, unknown>, related?: readonly Related<File>[]) =>
    push(target.main, pointer, message, data, related)
  return Object.assign(report, {
    in(file: File, pointer: string, message: string, data?: Record<string, unknown>, related?: readonly Related<File>[]) {
      push(where(file), pointer, message, data, related)
    },
  })
}

function relatedAt(at: Locatable, { pointer, message }: { pointer: string; message: string }): RelatedLocation {
  const { line, column } = at.locate ? at.locate(pointer) : { line: 1, column: 1 }
  return { file: at.file, pointer, line, column, message }
}
