import type { Severity } from './diagnostics.js'

/**
 * How a rule reports a problem: a JSON Pointer into the document, a message, and the data its code
 * promises. The rule never names its code or severity: the runner (rule-runner.ts) attaches the
 * ones the rule declares, the file, and the pointer's line and column in that file.
 */
export interface Report<File = never> {
  (pointer: string, message: string, data?: Record<string, unknown>, related?: readonly Related<File>[]): void
  /** The same, in another file the input read (a locked file, a definition): positioned in that file. */
  in(file: File, pointer: string, message: string, data?: Record<string, unknown>, related?: readonly Related<File>[]): void
}

/**
 * Another place the problem involves (`Diagnostic.related`): a pointer into the document, or into
 * another file of the input (`in`), and what is there. The runner positions it as it positions
 * the report.
 */
export interface Related<File = never> {
  pointer: string
  message: string
  in?: File
}

/**
 * A rule: one check, and the one stable diagnostic code it reports, declared once with its
 * severity and the line `docs/diagnostics.md` shows for it. Every format's rules have this shape;
 * the context is the format's own (the document, or the facts a format derived once), `File` the
 * kind of the other files its rules may report into.
 */
export interface Rule<Context, Code extends string = string, File = never> {
  readonly code: Code
  /** `error` (the default) where the specification says MUST or the generator cannot do what is asked; `warning` where it says SHOULD. */
  readonly severity?: Severity
  /** What the rule rejects, in one line. */
  readonly description: string
  check(context: Context, report: Report<File>): void
  /**
   * The parts of the input whose values decide everything this rule reports (compared by identity:
   * parsed values, never changed once parsed). A recompile whose parts are all the last check's
   * replays the reports of that check (core/kept-reports.ts). Only for a rule whose reports are a
   * function of these alone; a rule without it always runs.
   */
  reads?(context: Context): readonly unknown[]
}

/**
 * A format's rule constructor: the format makes one (`const rule = ruleFor<Context, File>()`) and
 * declares each rule with it (`rule({ code, severity?, description, check(context, report) })`).
 * It keeps the code's literal type, so the union of a format's codes is read off its list of rules
 * (no second list of them).
 */
export const ruleFor =
  <Context, File = never>() =>
  <const Code extends string>(rule: Rule<Context, Code, File>): Rule<Context, Code, File> =>
    rule

/** The codes of a list of rules, as a union type. */
export type CodeOf<Rules extends readonly Rule<any, string, any>[]> = Rules[number]['code']
