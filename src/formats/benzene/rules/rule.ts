import type { SchemaFacts } from '../schema-facts.js'
import { ruleFor, type Report as CoreReport, type Rule } from '../../../core/rule.js'

/** Where a Benzene rule reports: the document only (positions come from its source). */
export type Report = CoreReport

/** What a Benzene rule reads: the document's value, and the facts derived from it once (schema-facts.ts). */
export interface BenzeneRuleContext {
  doc: unknown
  facts: SchemaFacts
}

export type BenzeneRule<Code extends string = string> = Rule<BenzeneRuleContext, Code>

/** A Benzene rule: `benzeneRule({ code, severity?, description, check({ doc }, report) })` (core/rule.ts). */
export const benzeneRule = ruleFor<BenzeneRuleContext>()
