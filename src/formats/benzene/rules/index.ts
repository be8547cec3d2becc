import { diagnosticAt, type Diagnostic } from '../../../core/diagnostics.js'
import type { JsonSource } from '../../../core/json-source.js'
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
export const benzeneRules: readonly BenzeneRule[] = [
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
]

/** Runs every rule over the document; each problem positioned at its pointer. */
export function checkBenzene(source: JsonSource): Diagnostic[] {
  const diagnostics: Diagnostic[] = []
  for (const rule of benzeneRules) {
    rule.check({
      doc: source.value,
      report: (pointer, message, data) => diagnostics.push(diagnosticAt(source, rule.code, pointer, message, data, rule.severity)),
    })
  }
  return diagnostics
}
