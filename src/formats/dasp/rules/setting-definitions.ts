import { escapeToken } from '../../../runtime/shared/json-pointer.js'
import { optionsReading } from '../../../core/pattern-safety.js'
import { schemaDialect } from '../../../core/standalone-validators.js'
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
export function settingDefinitionProblems(spec: Record<string, any>, ctx: DaspContext): Array<{ member?: string; at?: string; message: string }> {
  if (typeof spec.type !== 'string') return []
  const members = SETTING_MEMBERS[spec.type]
  if (!Object.hasOwn(SETTING_MEMBERS, spec.type) || !members)
    return [{ member: 'type', message: `Setting type ${JSON.stringify(spec.type)} is not integer, string, boolean, enum or array.` }]
  const out: Array<{ member?: string; at?: string; message: string }> = []
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
      // A dialect the checker does not support is said at the `$schema` that names it.
      const dialect = isObject(spec.items) && Object.hasOwn(spec.items, '$schema') && schemaDialect(spec.items) === undefined
      if (typeof validate === 'string')
        out.push({ member: 'items', ...(dialect ? { at: '$schema' } : {}), message: `items is not a JSON Schema that can be checked: ${validate}.` })
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
          report.in(
            d.file,
            `/settings/${escapeToken(name)}${problem.member ? `/${escapeToken(problem.member)}` : ''}${problem.at ? `/${escapeToken(problem.at)}` : ''}`,
            problem.message,
            {
              setting: name,
            },
          )
      }
    }
  },
})

/** The members of a JSON Schema (draft-06 to 2020-12) that hold one schema, a list of schemas, or a map of them. */
const SUBSCHEMA = [
  'items',
  'additionalItems',
  'additionalProperties',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
]
const SUBSCHEMA_LISTS = ['items', 'prefixItems', 'allOf', 'anyOf', 'oneOf']
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas']

/** Bound on the schema values one items walk visits (a definition is at most LIMITS.fileBytes; this keeps the walk's cost stated). */
const MAX_ITEMS_NODES = 100_000

/**
 * A `pattern` (or `patternProperties` name) inside an array setting's items schema led by an
 * inline options group, `(?i)` and the like, as .NET, PCRE and Java write them: JSON Schema says a
 * pattern SHOULD be ECMA-262, which has no such group; the check reads it as those options on the
 * rest of the pattern (core/pattern-dialect.ts). Worst case: one iterative walk of each items
 * schema, at most MAX_ITEMS_NODES values.
 */
export const patternDialect = daspRule({
  code: 'DASP_PATTERN_DIALECT',
  severity: 'warning',
  description:
    "A `pattern` or `patternProperties` name in an array setting's items schema led by an inline options group such as `(?i)`: not ECMA-262, which JSON Schema says a pattern SHOULD be; it is read as those options on the rest of the pattern.",
  check(ctx, report) {
    for (const d of ctx.definitions) {
      if (!isObject(d.value.settings)) continue
      for (const [name, spec] of Object.entries(d.value.settings)) {
        if (!isObject(spec) || spec.type !== 'array' || !isObject(spec.items)) continue
        const stack: Array<[unknown, string]> = [[spec.items, `/settings/${escapeToken(name)}/items`]]
        for (let visited = 0; stack.length > 0 && visited < MAX_ITEMS_NODES; visited++) {
          const [value, pointer] = stack.pop()!
          if (value === null || typeof value !== 'object') continue
          const warn = (pattern: string, at: string) => {
            const read = pattern.startsWith('(?') ? optionsReading(pattern) : undefined
            if (read && 'source' in read)
              report.in(
                d.file,
                at,
                `Pattern ${JSON.stringify(pattern)} starts with the inline options ${read.group}, which ECMA-262 does not have; it is read as those options on the rest of the pattern (${read.source}).`,
                { setting: name, pattern, inlineOptions: read.group },
              )
          }
          const node = value as Record<string, unknown>
          if (!Array.isArray(node) && typeof node.pattern === 'string') warn(node.pattern, `${pointer}/pattern`)
          if (!Array.isArray(node) && isObject(node.patternProperties))
            for (const key of Object.keys(node.patternProperties)) warn(key, `${pointer}/patternProperties/${escapeToken(key)}`)
          if (Array.isArray(node)) continue
          // Only where a schema is (a `const` or an `enum` value holding a "pattern" member is data).
          for (const key of SUBSCHEMA) if (Object.hasOwn(node, key)) stack.push([node[key], `${pointer}/${key}`])
          for (const key of SUBSCHEMA_LISTS)
            if (Array.isArray(node[key])) (node[key] as unknown[]).forEach((member, i) => stack.push([member, `${pointer}/${key}/${i}`]))
          for (const key of SUBSCHEMA_MAPS)
            if (isObject(node[key])) for (const [member, schema] of Object.entries(node[key])) stack.push([schema, `${pointer}/${key}/${escapeToken(member)}`])
        }
      }
    }
  },
})
