import type { DiagnosticCode } from './codes.js'
import { diagnosticAt, type Diagnostic, type Locatable } from './diagnostics.js'
import type { Report, Rule } from './rule.js'

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
  const report = (pointer: string, message: string, data?: Record<string, unknown>) => {
    into.push(diagnosticAt(target.main, code, pointer, message, data, severity))
  }
  return Object.assign(report, {
    in(file: File, pointer: string, message: string, data?: Record<string, unknown>) {
      if (!target.locate) throw new Error(`${code}: this format's rules report into the document only`)
      into.push(diagnosticAt(target.locate(file), code, pointer, message, data, severity))
    },
  })
}
