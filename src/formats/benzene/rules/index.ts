import { discriminatorShape } from './discriminator.js'
import { duplicateTopic } from './duplicate-topic.js'
import { emptyHttpMappings, emptyTransports } from './empty-arrays.js'
import { endpointForm } from './endpoint-form.js'
import { memberTypes } from './member-types.js'
import { patternEngineRule } from './pattern-engine.js'
import { emptyTopic, emptyVersion } from './non-empty-strings.js'
import { refForm, refTargetExists } from './refs.js'
import { requiredMembers } from './required-members.js'
import { reservedFlag } from './reserved-flag.js'
import type { Rule } from './rule.js'
import { schemaKeywords } from './schema-keywords.js'

/** Every Benzene validation rule (seed sections 1-4). Each has one code; see docs/diagnostics.md. */
export const benzeneRules: readonly Rule[] = [
  requiredMembers,
  memberTypes,
  emptyTopic,
  emptyVersion,
  reservedFlag,
  emptyTransports,
  emptyHttpMappings,
  duplicateTopic,
  refForm,
  refTargetExists,
  schemaKeywords,
  discriminatorShape,
  patternEngineRule,
  endpointForm,
]
