import type { Severity } from './diagnostics.js'

/**
 * A rule: one check, one stable diagnostic code declared beside it, with the one line
 * `docs/diagnostics.md` shows for it. Every format's rules have this shape; the context is the
 * format's own (the document and a reporter, or the facts a format derived once).
 */
export interface Rule<Context> {
  code: string
  /** `error` (the default) where the specification says MUST or the generator cannot do what is asked; `warning` where it says SHOULD. */
  severity?: Severity
  /** What the rule rejects, in one line. */
  description: string
  check(context: Context): void
}
