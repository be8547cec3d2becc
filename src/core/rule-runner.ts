import type { DiagnosticCode } from './codes.js'
import { diagnosticAt, type Diagnostic, type Locatable, type RelatedLocation } from './diagnostics.js'
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
): Diagnostic[] {
  for (const rule of rules) rule.check(context, reporter(rule.code, rule.severity ?? 'error', target, into))
  return into
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
