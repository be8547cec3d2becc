import { escapeToken } from '../../../runtime/shared/json-pointer.js'
import type { DaspContext } from '../context.js'
import { isObject } from '../load.js'
import { daspRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over each definition's settings; each array setting's element schema is compiled once (DaspContext.itemValidator). */

/** The setting types of the DASP layout, and the members each gives a meaning to (besides type, persistence, unit, description). */
const SETTING_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  integer: ['minimum', 'maximum'],
  string: [],
  boolean: [],
  enum: ['values'],
  array: ['items', 'minItems', 'maxItems', 'uniqueBy'],
}
const TYPE_MEMBERS = ['minimum', 'maximum', 'values', 'items', 'minItems', 'maxItems', 'uniqueBy']

/**
 * Why a setting's definition cannot check a value (DASP-EXT-002: closed settings "with value, unit,
 * limit, and validation rules"), each with the member it is about: a type the layout does not
 * have, a member that means nothing for the type (it would be ignored in silence), an enum without
 * values, an array without items or with items that are not a JSON Schema, bounds that exclude
 * every value.
 */
export function settingDefinitionProblems(spec: Record<string, any>, ctx: DaspContext): Array<{ member?: string; message: string }> {
  if (typeof spec.type !== 'string') return []
  const members = SETTING_MEMBERS[spec.type]
  if (!Object.hasOwn(SETTING_MEMBERS, spec.type) || !members)
    return [{ member: 'type', message: `Setting type ${JSON.stringify(spec.type)} is not integer, string, boolean, enum or array.` }]
  const out: Array<{ member?: string; message: string }> = []
  for (const m of TYPE_MEMBERS)
    if (m in spec && !members.includes(m))
      out.push({
        member: m,
        message: `${m} means nothing for a${spec.type === 'integer' || spec.type === 'enum' || spec.type === 'array' ? 'n' : ''} ${spec.type} setting; it would be ignored.`,
      })
  if (spec.type === 'enum' && !('values' in spec)) out.push({ message: 'An enum setting lists its values.' })
  if (spec.type === 'array') {
    if (!('items' in spec)) out.push({ message: 'An array setting has items, a JSON Schema for one element.' })
    else {
      const validate = ctx.itemValidator(spec.items)
      if (typeof validate === 'string') out.push({ member: 'items', message: `items is not a JSON Schema that can be checked: ${validate}.` })
    }
    if (typeof spec.minItems === 'number' && typeof spec.maxItems === 'number' && spec.minItems > spec.maxItems)
      out.push({ member: 'minItems', message: `minItems ${spec.minItems} is above maxItems ${spec.maxItems}: no value fits.` })
  }
  if (spec.type === 'integer' && typeof spec.minimum === 'number' && typeof spec.maximum === 'number' && spec.minimum > spec.maximum)
    out.push({ member: 'minimum', message: `minimum ${spec.minimum} is above maximum ${spec.maximum}: no value fits.` })
  return out
}

export const settingDefinition = daspRule({
  code: 'DASP_SETTING_DEFINITION',
  description:
    'A setting definition that cannot check a value: a type other than integer, string, boolean, enum or array, a member meaningless for its type, an enum without values, an array without items or with items that are not a JSON Schema, or bounds no value fits.',
  check(ctx, report) {
    for (const d of ctx.definitions) {
      if (!isObject(d.value.settings)) continue
      for (const [name, spec] of Object.entries(d.value.settings)) {
        if (!isObject(spec)) continue
        for (const problem of settingDefinitionProblems(spec, ctx))
          report.in(d.file, `/settings/${escapeToken(name)}${problem.member ? `/${escapeToken(problem.member)}` : ''}`, problem.message, {
            setting: name,
          })
      }
    }
  },
})
