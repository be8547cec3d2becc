import canonicalize from 'canonicalize'
import { escapeToken } from '../../../runtime/shared/json-pointer.js'
import { identityKey, type DaspContext } from '../context.js'
import { isObject } from '../load.js'
import { settingDefinitionProblems } from './setting-definitions.js'
import { daspRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over the requested extensions' settings, each definition looked up in a map. */

/** An own member (never `constructor` or `__proto__` from the prototype). */
const own = (object: Record<string, unknown>, key: string): any => (Object.hasOwn(object, key) ? object[key] : undefined)

/** The members of a setting's definition that `settingProblem` and `settingDefinitionProblems` read to judge a value. */
const CHECKED_MEMBERS = ['type', 'minimum', 'maximum', 'values', 'minItems', 'maxItems', 'items', 'uniqueBy'] as const

/** Why a setting value breaks its closed definition, or undefined (a definition with problems of its own checks nothing: see settingDefinitionProblems). */
export function settingProblem(spec: Record<string, any>, value: unknown, ctx: DaspContext): string | undefined {
  switch (spec.type) {
    case 'integer':
      if (!Number.isSafeInteger(value))
        return Number.isInteger(value)
          ? 'must be an integer of at most 2^53 - 1 in magnitude (past that, JavaScript cannot tell a number from its neighbours)'
          : 'must be an integer'
      if (typeof spec.minimum === 'number' && (value as number) < spec.minimum) return `must be at least ${spec.minimum}${spec.unit ? ` ${spec.unit}` : ''}`
      if (typeof spec.maximum === 'number' && (value as number) > spec.maximum) return `must be at most ${spec.maximum}${spec.unit ? ` ${spec.unit}` : ''}`
      return undefined
    case 'string':
      return typeof value === 'string' ? undefined : 'must be a string'
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be a boolean'
    case 'enum':
      return Array.isArray(spec.values) && spec.values.some((v: unknown) => canonicalize(v) === canonicalize(value))
        ? undefined
        : `must be one of ${JSON.stringify(spec.values)}`
    case 'array': {
      if (!Array.isArray(value)) return 'must be an array'
      if (typeof spec.minItems === 'number' && value.length < spec.minItems) return `needs at least ${spec.minItems} items`
      if (typeof spec.maxItems === 'number' && value.length > spec.maxItems) return `takes at most ${spec.maxItems} items`
      if ('items' in spec) {
        const validate = ctx.itemValidator(spec.items)
        let bad: number
        try {
          bad = typeof validate === 'string' ? -1 : value.findIndex((item) => !validate(item))
        } catch (error) {
          // ajv's code for a very wide or deep schema (an anyOf of thousands) can exhaust the stack
          // on a value: the value cannot be checked, so it is refused, never a crash.
          return `cannot be checked against its items schema (${error instanceof RangeError ? 'the schema is too wide or deep to evaluate' : (error as Error).message})`
        }
        if (bad !== -1 && typeof validate !== 'string') return `item ${bad} ${validate.errors?.[0]?.message ?? 'breaks the item schema'}`
      }
      if (typeof spec.uniqueBy === 'string') {
        const keys = value.map((item) => canonicalize(isObject(item) ? own(item, spec.uniqueBy) : undefined))
        if (new Set(keys).size !== keys.length) return `items must have distinct ${spec.uniqueBy}`
      }
      return undefined
    }
    default:
      return `has an unknown setting type ${JSON.stringify(spec.type)}`
  }
}

export const settingsRule = daspRule({
  code: 'DASP_SETTINGS',
  description:
    'A setting the definition does not define, a defined setting missing (settings are complete), or a value out of its type, range, items or uniqueness rules.',
  check(ctx, report) {
    for (const e of ctx.requested) {
      const d = ctx.definitionOf(e.uri, e.version)
      if (!d || !isObject(d.value.settings) || !isObject(e.settings)) continue
      const defined = d.value.settings as Record<string, Record<string, any>>
      for (const [name, value] of Object.entries(e.settings)) {
        const spec = own(defined, name)
        const at = `/extensions/${e.index}/settings/${escapeToken(name)}`
        // A setting whose definition is malformed where a value is checked, or cannot check a value,
        // is the definition's problem. A malformed or unknown member the check does not read (a
        // `description`, a `default`) hides no verdict.
        const definedAt = `/settings/${escapeToken(name)}`
        if (ctx.unreadable(d.file, definedAt) || CHECKED_MEMBERS.some((member) => ctx.unreadableWithin(d.file, `${definedAt}/${member}`))) continue
        if (isObject(spec) && typeof spec.type !== 'string') continue
        if (!isObject(spec)) report(at, `${e.uri} ${e.version} defines no setting ${JSON.stringify(name)}; settings are closed.`)
        else if (settingDefinitionProblems(spec, ctx).length === 0) {
          const problem = settingProblem(spec, value, ctx)
          if (problem) report(at, `Setting ${name} ${problem}.`, { setting: name })
        }
      }
      for (const name of Object.keys(defined))
        if (!Object.hasOwn(e.settings, name))
          report(`/extensions/${e.index}/settings`, `Setting ${name} is missing: a selection carries the complete settings.`, { setting: name })
    }
  },
})

export const settingsConflict = daspRule({
  code: 'DASP_SETTINGS_CONFLICT',
  description:
    'One extension selected twice in one scope with different settings, or in several scopes with different values for a setting that persists with the session.',
  check(ctx, report) {
    const seen = new Map<string, { index: number; scope: unknown; settings: Record<string, unknown> }>()
    for (const e of ctx.requested) {
      const key = identityKey(e.uri, e.version)
      const d = ctx.definitionOf(e.uri, e.version)
      const other = seen.get(key)
      if (!other || !d || !isObject(e.settings)) {
        if (isObject(e.settings)) seen.set(key, { index: e.index, scope: e.scope, settings: e.settings })
        continue
      }
      // In one scope the two selections are one selection: every setting must agree. Across scopes,
      // the settings that persist with the session must.
      const sameScope = other.scope === e.scope
      for (const [name, spec] of Object.entries(isObject(d.value.settings) ? d.value.settings : {})) {
        if (
          isObject(spec) &&
          (sameScope || spec.persistence === 'session') &&
          canonicalize(own(other.settings, name)) !== canonicalize(own(e.settings as Record<string, unknown>, name))
        ) {
          report(
            `/extensions/${e.index}/settings/${escapeToken(name)}`,
            sameScope
              ? `${e.uri} is selected twice in scope ${String(e.scope)} (extensions/${other.index}) with different ${name}; one selection has one value.`
              : `${e.uri} is selected in two scopes with different ${name}; session settings cannot conflict across scopes.`,
          )
        }
      }
    }
  },
})
