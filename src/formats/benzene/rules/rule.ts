import type { SchemaFacts } from '../schema-facts.js'
import type { Where } from '../schema-walk.js'
import type { Severity } from '../../../core/diagnostics.js'
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

/**
 * A Benzene rule over every schema of the document whose reports at a schema are decided by that
 * schema and the schemas nested in it alone (no `$ref` followed, no catalogue, no other part of the
 * document): `benzeneSchemaRule({ code, severity?, description, visit(schema, where, report) })`.
 * A recompile replays its reports at each top-level schema the edit left unchanged
 * (`SchemaFacts.forEachSchemaLocal`).
 */
export function benzeneSchemaRule<const Code extends string>(rule: {
  code: Code
  severity?: Severity
  description: string
  visit(schema: unknown, where: Where, report: Report): void
}): BenzeneRule<Code> {
  const { visit, ...declared } = rule
  return benzeneRule({
    ...declared,
    check({ facts }, report) {
      facts.forEachSchemaLocal(rule.code, report, visit)
    },
  })
}
