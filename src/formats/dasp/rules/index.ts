import type { Diagnostic, Locatable } from '../../../core/diagnostics.js'
import { runRules } from '../../../core/rule-runner.js'
import type { CodeOf } from '../../../core/rule.js'
import { DASP_LOAD_CODES } from '../codes.js'
import { DaspContext } from '../context.js'
import type { DaspInput, LoadedJson } from '../load.js'
import { attributeConflict, attributeName, attributeNameLength, attributePlacement, attributeType } from './attributes.js'
import { bundledCredential } from './credential.js'
import { definitionComplete } from './definitions.js'
import { dependencyCycle, dependencyDuplicate, dependencyMissing, dependencyUnsupported } from './dependencies.js'
import { carrierAttribute, draftIdentities } from './draft-identities.js'
import { duplicateUri, supportRule, unknownExtension } from './extensions.js'
import { identityRule, immutableVersion, versionRule } from './identity.js'
import { moduleLimits } from './module-limits.js'
import { pinRule } from './pins.js'
import { policyRule } from './policy.js'
import type { DaspRule } from './rule.js'
import { scopeRule } from './scopes.js'
import { patternDialect, settingDefinition } from './setting-definitions.js'
import { settingsConflict, settingsRule } from './settings.js'
import { definitionShape, shapeRule } from './shape.js'

/** Run first, whatever else is wrong: the closed shapes, and a secret that would ship in the module. */
export const shapeRules = [shapeRule, definitionShape, bundledCredential] as const satisfies readonly DaspRule[]

/** The rules, run after the shapes whatever the shapes found (each reads the readable view and skips what depends on a malformed part). */
export const daspRules = [
  versionRule,
  identityRule,
  immutableVersion,
  definitionComplete,
  pinRule,
  unknownExtension,
  supportRule,
  dependencyMissing,
  dependencyUnsupported,
  dependencyCycle,
  dependencyDuplicate,
  duplicateUri,
  scopeRule,
  settingDefinition,
  patternDialect,
  settingsRule,
  settingsConflict,
  attributeName,
  attributeNameLength,
  attributeType,
  attributePlacement,
  attributeConflict,
  carrierAttribute,
  draftIdentities,
  policyRule,
  moduleLimits,
] as const satisfies readonly DaspRule[]

/** The codes DASP's rules declare. */
export type DaspRuleCode = CodeOf<typeof shapeRules> | CodeOf<typeof daspRules>

/** Codes found while reading (load.ts). */
export const daspLoadCodes = Object.keys(DASP_LOAD_CODES) as Array<keyof typeof DASP_LOAD_CODES>

/** A file the selection reads, as the runner positions a report in it. */
const located = (file: LoadedJson): Locatable => ({ file: file.file, locate: file.source.locate })

/**
 * What reading found, then the closed shapes, then every rule (core/rule-runner.ts): a malformed
 * part is reported at its pointer and left out of what the rules read (context.ts), so no problem
 * hides another.
 */
export function checkDasp(input: DaspInput): { checked: DaspContext; diagnostics: Diagnostic[] } {
  const ctx = new DaspContext(input)
  const target = { main: located(input.selection), locate: located }
  const diagnostics = [...input.problems]
  runRules(shapeRules, ctx, target, diagnostics)
  runRules(daspRules, ctx, target, diagnostics)
  return { checked: ctx, diagnostics }
}
