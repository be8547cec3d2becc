import type { Rule } from '../../../core/rule.js'

export type Report = (pointer: string, message: string, data?: Record<string, unknown>) => void

/** What a Benzene rule reads: the document's value, and where it reports (positions come from the source). */
export interface BenzeneRuleContext {
  doc: unknown
  report: Report
}

export type BenzeneRule = Rule<BenzeneRuleContext>
