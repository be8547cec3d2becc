import type { Diagnostic } from '../../../core/diagnostics.js'
import type { SchemaFacts } from '../schema-facts.js'
import type { JsonSource } from '../../../core/json-source.js'
import { runRules } from '../../../core/rule-runner.js'
import type { CodeOf } from '../../../core/rule.js'
import { bundledCredential } from './bundled-credential.js'
import { discriminatorInlineMember, discriminatorShape, discriminatorSize } from './discriminator.js'
import { duplicateTopic } from './duplicate-topic.js'
import { emptyHttpMappings, emptyTransports } from './empty-arrays.js'
import { endpointForm } from './endpoint-form.js'
import { memberTypes } from './member-types.js'
import { patternDialect } from './pattern-dialect.js'
import { patternEngineRule } from './pattern-engine.js'
import { emptyTopic, emptyVersion } from './non-empty-strings.js'
import { openapiValue } from './openapi-value.js'
import { refCycle } from './ref-cycle.js'
import { refForm, refTargetExists } from './refs.js'
import { requiredMembers } from './required-members.js'
import { eventReservedFlag, reservedFlag } from './reserved-flag.js'
import { dialectKeywords } from './dialect-keywords.js'
import type { BenzeneRule } from './rule.js'
import { schemaKeywords } from './schema-keywords.js'
import { defaultType, readWriteOnly, requiredNonEmpty } from './schema-musts.js'
import { enumDuplicate, enumEmpty } from './schema-shoulds.js'

/** Every Benzene validation rule (Benzene Contract Document §1-4). Each has one code; see docs/diagnostics.md. */
export const benzeneRules = [
  requiredMembers,
  memberTypes,
  openapiValue,
  emptyTopic,
  emptyVersion,
  reservedFlag,
  eventReservedFlag,
  emptyTransports,
  emptyHttpMappings,
  duplicateTopic,
  refForm,
  refTargetExists,
  refCycle,
  schemaKeywords,
  dialectKeywords,
  discriminatorShape,
  discriminatorInlineMember,
  discriminatorSize,
  patternEngineRule,
  patternDialect,
  endpointForm,
  requiredNonEmpty,
  readWriteOnly,
  defaultType,
  enumEmpty,
  enumDuplicate,
  bundledCredential,
] as const satisfies readonly BenzeneRule[]

/** The codes Benzene's rules declare. */
export type BenzeneRuleCode = CodeOf<typeof benzeneRules>

/** Runs every rule over the document, in order; each problem positioned at its pointer (core/rule-runner.ts). */
export function checkBenzene(source: JsonSource, facts: SchemaFacts): Diagnostic[] {
  return runRules(benzeneRules, { doc: source.value, facts }, { main: source })
}
