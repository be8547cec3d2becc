/**
 * The same schema written another way: an `allOf` whose members are merged into one object (the
 * "inheritance" a team flattens, or introduces), a list of types written as `anyOf` branches of one
 * type each. Keyword by keyword such an edit reads as a constraint removed and others added, each
 * breaking with no witness; here both versions are brought to one written form and compared whole.
 *
 * Only rewrites that keep every value's verdict are made (JSON Schema Core, "allOf": an instance is
 * valid against all the subschemas; "Keywords for Applying Subschemas to Objects"): a member's
 * keywords are merged only where no keyword of the merged object reads another from a different
 * source (`additionalProperties` reads its own schema's `properties`, `then` its `if`, `minContains`
 * its `contains`, a boolean `exclusiveMinimum` its `minimum`, OpenAPI 3.0's `nullable` and a
 * checked `format` their `type` (and `nullable` an `enum`), a `required` name the `readOnly` or
 * `writeOnly` of its property), the same keyword from two sources only when
 * written the same (a conjunction of one constraint twice) or as property lists with distinct names
 * and `required` lists (their union). Anything else (an identifier that moves base URIs, a
 * reference beside keywords where the dialect leaves it open, a cycle, a node past the budget) is
 * no normal form, and the edit is compared keyword by keyword as before.
 *
 * Cost: at most MAX_NODES schema nodes walked per version (references followed inline, each at
 * most MAX_REF_DEPTH deep), tried only where the two nodes' combinators or types are written
 * differently, and at most MAX_NORMAL_FORM_NODES in one diff.
 */
import { isObject } from '../../../runtime/shared/json-value.js'
import { setOwn } from '../../../runtime/shared/own-property.js'
import type { SchemaAt, SchemaDiffContext, SideName } from './context.js'
import { child } from './context.js'
import { CONTAINER_KEYWORDS, isAnnotation } from './keywords.js'
import { follow, hasConstraintsBesideRef, refOf } from './resolve.js'
import { jsonEqual } from './values.js'

const MAX_NODES = 2_000
const MAX_REF_DEPTH = 16
/** Nodes all normal forms of one diff may walk: past it, edits are compared keyword by keyword (hostile pairs that differ at every node). */
export const MAX_NORMAL_FORM_NODES = 200_000
/** Nodes walked for normal forms in this process (read by tests to hold the budget). */
export const normalFormStats = { walked: 0 }

/** Keywords whose verdicts read one another: each group's keywords must come from one source when merged. */
const GROUPS: readonly (readonly string[])[] = [
  ['properties', 'patternProperties', 'additionalProperties'],
  ['items', 'prefixItems', 'additionalItems'],
  ['contains', 'minContains', 'maxContains'],
  ['if', 'then', 'else'],
  // The boolean `exclusiveMinimum` of OpenAPI 3.0 and draft-04 reads its schema's `minimum`.
  ['minimum', 'exclusiveMinimum'],
  ['maximum', 'exclusiveMaximum'],
]

/** Keywords no normal form is made of (base URIs, dynamic scopes, what depends on every sibling). */
const REFUSED = new Set([
  '$id',
  '$anchor',
  '$dynamicAnchor',
  '$dynamicRef',
  '$recursiveRef',
  '$recursiveAnchor',
  'discriminator',
  'unevaluatedProperties',
  'unevaluatedItems',
])

/** Keywords whose value is a schema, and those whose value is a list or a map of schemas. */
const ONE = new Set(['additionalProperties', 'additionalItems', 'contains', 'propertyNames', 'not', 'if', 'then', 'else'])
const LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems'])
const MAP = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'])

interface Walk {
  ctx: SchemaDiffContext
  side: SideName
  left: number
}

/** Whether the two nodes admit the same values by their normal forms (false when either has none). */
export function sameNormalForm(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt): boolean {
  if (ctx.normalFormNodes >= MAX_NORMAL_FORM_NODES) return false
  const a = formOf(ctx, 'old', o)
  if (a === undefined) return false
  const b = formOf(ctx, 'new', n)
  if (b === undefined) return false
  // A form with no keyword left accepts anything, as `true` does.
  const plain = (form: unknown) => (isObject(form) && Object.keys(form).length === 0 ? true : form)
  return jsonEqual(plain(a), plain(b), { left: 4 * MAX_NODES * 8 }) === true
}

/** One version's normal form, its walk counted against the diff's budget. */
function formOf(ctx: SchemaDiffContext, side: SideName, at: SchemaAt): unknown {
  const walk: Walk = { ctx, side, left: MAX_NODES }
  const form = normalForm(walk, at, 0)
  const walked = MAX_NODES - Math.max(walk.left, 0)
  ctx.normalFormNodes += walked
  normalFormStats.walked += walked
  return form
}

/** Whether trying the normal forms may pay: the two nodes' combinators or types are written differently. */
export function writtenDifferently(o: unknown, n: unknown): boolean {
  if (!isObject(o) || !isObject(n)) return false
  for (const key of ['allOf', 'anyOf', 'type']) if (Object.hasOwn(o, key) !== Object.hasOwn(n, key)) return true
  return false
}

function normalForm(walk: Walk, at: SchemaAt, refDepth: number): unknown {
  if (--walk.left < 0) return undefined
  const schema = at.value
  if (typeof schema === 'boolean') return schema
  if (!isObject(schema)) return undefined
  const ref = refOf(schema)
  if (ref !== undefined) {
    if (refDepth >= MAX_REF_DEPTH) return undefined
    const target = follow(walk.ctx, walk.side, at)
    if (!target) return undefined
    const siblings = hasConstraintsBesideRef(schema, walk.ctx.dialect)
    if (siblings && walk.ctx.refSiblings !== 'apply' && walk.ctx.refSiblings !== 'ignore') return undefined
    const resolved = normalForm(walk, target, refDepth + 1)
    if (!siblings || walk.ctx.refSiblings === 'ignore' || resolved === undefined) return resolved
    const own = ownForm(walk, at, refDepth, schema, ['$ref'])
    const merged = own === undefined ? undefined : merge([own, resolved], walk.ctx.dialect === 'openapi-3.0')
    return merged === undefined ? undefined : tidy(merged)
  }
  return ownForm(walk, at, refDepth, schema, [])
}

/** The node without `skip`, its subschemas in normal form, its `allOf` merged in, `anyOf` of types as a type list. */
function ownForm(walk: Walk, at: SchemaAt, refDepth: number, schema: Record<string, unknown>, skip: readonly string[]): unknown {
  const out: Record<string, unknown> = {}
  let members: unknown[] = []
  for (const key of Object.keys(schema)) {
    if (skip.includes(key) || isAnnotation(key, walk.ctx.dialect) || CONTAINER_KEYWORDS.has(key) || key === '$schema') continue
    if (REFUSED.has(key)) return undefined
    const value = schema[key]
    if (ONE.has(key) || (key === 'items' && !Array.isArray(value))) {
      const form = normalForm(walk, child(at, key), refDepth)
      if (form === undefined) return undefined
      setOwn(out, key, form)
    } else if (LIST.has(key) || key === 'items') {
      if (!Array.isArray(value)) return undefined
      const forms = value.map((_, i) => normalForm(walk, child(at, key, i), refDepth))
      if (forms.some((form) => form === undefined)) return undefined
      if (key === 'allOf') members = forms
      else setOwn(out, key, forms)
    } else if (MAP.has(key) || (key === 'dependencies' && isObject(value))) {
      if (!isObject(value)) return undefined
      const forms: Record<string, unknown> = {}
      for (const name of Object.keys(value)) {
        const entry = value[name]
        const form = key === 'dependencies' && Array.isArray(entry) ? sortedStrings(entry) : normalForm(walk, child(at, key, name), refDepth)
        if (form === undefined) return undefined
        setOwn(forms, name, form)
      }
      setOwn(out, key, forms)
    } else setOwn(out, key, value)
  }
  const merged = members.length === 0 ? out : merge([out, ...members], walk.ctx.dialect === 'openapi-3.0')
  return merged === undefined ? undefined : tidy(merged)
}

/** The conjunction of object forms as one object, when no keyword of it reads another from a different source. */
function merge(forms: readonly unknown[], openapi: boolean): Record<string, unknown> | undefined {
  if (forms.some((form) => form === false)) return undefined
  const objects = forms.filter((form): form is Record<string, unknown> => isObject(form))
  if (objects.length !== forms.filter((form) => form !== true).length) return undefined
  // A group's keywords read one another only where two of them are written: then all from one
  // source. One keyword of a group in several sources is merged as any other (the same value twice,
  // property lists with distinct names). A numeric `exclusiveMinimum` (draft-06 and later) reads no
  // `minimum`; only the boolean form counts.
  for (const group of GROUPS) {
    const present = new Set<string>()
    const sources = new Set<number>()
    objects.forEach((form, i) => {
      for (const key of group)
        if (Object.hasOwn(form, key) && !(key.startsWith('exclusive') && typeof form[key] !== 'boolean')) {
          present.add(key)
          sources.add(i)
        }
    })
    if (present.size > 1 && sources.size > 1) return undefined
  }
  const out: Record<string, unknown> = {}
  for (let i = 0; i < objects.length; i++) {
    for (const [key, value] of Object.entries(objects[i]!)) {
      if (!Object.hasOwn(out, key)) {
        setOwn(out, key, value)
        continue
      }
      if (key === 'required' && Array.isArray(out[key]) && Array.isArray(value)) out[key] = [...(out[key] as unknown[]), ...value]
      else if (key === 'properties' && isObject(out[key]) && isObject(value)) {
        const names = out[key] as Record<string, unknown>
        for (const name of Object.keys(value)) {
          // A property both lists name is the conjunction of its two schemas: one, where they are written the same.
          if (Object.hasOwn(names, name)) {
            if (jsonEqual(names[name], value[name], { left: MAX_NODES }) !== true) return undefined
          } else setOwn(names, name, value[name])
        }
      } else if (jsonEqual(out[key], value, { left: MAX_NODES }) !== true) return undefined
    }
  }
  // OpenAPI 3.0's `nullable` reads its own schema's `type`, and so does a checked `format` (int32's
  // range on an integer, a string format's pattern on a string): with either, all three from one source.
  // `nullable` also adds null to an `enum` or `const` beside it.
  const reads = (form: Record<string, unknown>) =>
    ['type', 'nullable', 'format', ...(nullable ? ['enum', 'const'] : [])].some((key) => Object.hasOwn(form, key))
  const nullable = Object.hasOwn(out, 'nullable')
  if ((nullable || Object.hasOwn(out, 'format')) && objects.filter(reads).length > 1) return undefined
  // OpenAPI 3.0's `readOnly`/`writeOnly` on a property decide where its schema's `required` applies.
  if (openapi && objects.filter((form) => Object.hasOwn(form, 'properties') || Object.hasOwn(form, 'required')).length > 1) {
    const properties = isObject(out.properties) ? Object.values(out.properties) : []
    if (properties.some((p) => isObject(p) && (Object.hasOwn(p, 'readOnly') || Object.hasOwn(p, 'writeOnly')))) return undefined
  }
  return out
}

/** One written form of what the order of lists does not change: `type` and `required` as sorted sets, an `anyOf` of lone types as a type list. */
function tidy(form: Record<string, unknown>): Record<string, unknown> | undefined {
  if (Object.hasOwn(form, 'type')) {
    const types = Array.isArray(form.type) ? form.type : [form.type]
    if (!types.every((t) => typeof t === 'string')) return undefined
    // Every integer is a number: `integer` beside `number` admits nothing more.
    form.type = [...new Set(types as string[])].filter((t, _, all) => t !== 'integer' || !all.includes('number')).sort()
  }
  if (Object.hasOwn(form, 'required')) {
    const names = sortedStrings(form.required)
    if (names === undefined) return undefined
    form.required = names
  }
  const branches = form.anyOf
  if (!Object.hasOwn(form, 'type') && !Object.hasOwn(form, 'nullable') && Array.isArray(branches) && branches.length > 0) {
    const lone = branches.every((b) => isObject(b) && Object.keys(b).length === 1 && Array.isArray(b.type))
    if (lone) {
      form.type = [...new Set(branches.flatMap((b) => (b as { type: string[] }).type))].filter((t, _, all) => t !== 'integer' || !all.includes('number')).sort()
      delete form.anyOf
    }
  }
  return form
}

function sortedStrings(value: unknown): string[] | undefined {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return undefined
  return [...new Set(value as string[])].sort()
}
