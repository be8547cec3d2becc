/** A validation rule: one check, one stable diagnostic code. */
export interface Rule {
  code: string
  /** One line for the docs: what the rule rejects. */
  description: string
  check(doc: unknown, report: Report): void
}

export type Report = (pointer: string, message: string, data?: Record<string, unknown>) => void
