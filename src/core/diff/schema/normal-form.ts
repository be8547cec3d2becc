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
 * differently, at most MAX_NORMAL_FORM_NODES in one diff and MAX_DOCUMENT_NORMAL_FORM_NODES in all
 * of one document's diffs.
 */
import { isObject } from '../../../runtime/shared/json-value.js'
import { setOwn } from '../../../runtime/shared/own-property.js'
import type { SchemaAt, SchemaDiffContext, SideName } from './context.js'
import { child } from './context.js'
import { CONTAINER_KEYWORDS, isAnnotation } from './keywords.js'
import { follow, hasConstraintsBesideRef, refOf } from './resolve.js'
import { canonicalKey, jsonEqual } from './values.js'

const MAX_NODES = 2_000
const MAX_REF_DEPTH = 16
/** Members of an `allOf` that does not merge whole given a partial normal form (`partlyMerged`: its parts merged pairwise, quadratic in them). */
const MAX_KEPT_MEMBERS = 32
/** Nodes all normal forms of one diff may walk: past it, edits are compared keyword by keyword (hostile pairs that differ at every node). */
export const MAX_NORMAL_FORM_NODES = 200_000
/**
 * Nodes the normal forms of all of one document's diffs may walk together (`SchemaDiffOptions.tally`):
 * a shared component's rewrite is compared once for every payload reaching it (the pair's result is
 * kept), but a document of many payloads each rewriting nodes of its own took each call's budget.
 */
export const MAX_DOCUMENT_NORMAL_FORM_NODES = 4_000_000
/** Nodes walked for normal forms in this process (read by tests to hold the budget). */
export const normalFormStats = { walked: 0 }

/**
 * Keywords whose verdict reads a sibling keyword of their own schema object (the readers), and what
 * each reads: merged, a reader and what it reads must come from one member. `properties` and
 * `patternProperties` read nothing of each other (each applies to the names it matches), so they may
 * come from different members where no `additionalProperties` reads them.
 */
const READERS: readonly (readonly [readers: readonly string[], read: readonly string[]])[] = [
  [['additionalProperties'], ['properties', 'patternProperties']],
  // draft 2020-12: `items` applies past `prefixItems`; draft-07: `additionalItems` past an `items` list.
  [['items'], ['prefixItems']],
  [['additionalItems'], ['items']],
  [['minContains', 'maxContains'], ['contains']],
  [['then', 'else'], ['if']],
  // The boolean `exclusiveMinimum` of OpenAPI 3.0 and draft-04 reads its schema's `minimum`.
  [['exclusiveMinimum'], ['minimum']],
  [['exclusiveMaximum'], ['maximum']],
]

/**
 * Bounds whose conjunction is the tighter of the two (`maximum: 3` and `maximum: 2` hold where
 * `maximum: 2` does). A numeric `exclusiveMinimum` is a bound of its own (draft-06 and later); the
 * boolean form reads its object's `minimum` and never merges across members (READERS).
 */
const TIGHTER: Readonly<Record<string, (a: number, b: number) => number>> = {
  minimum: Math.max,
  exclusiveMinimum: Math.max,
  minLength: Math.max,
  minItems: Math.max,
  minProperties: Math.max,
  maximum: Math.min,
  exclusiveMaximum: Math.min,
  maxLength: Math.min,
  maxItems: Math.min,
  maxProperties: Math.min,
}

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
  if (ctx.normalFormNodes >= MAX_NORMAL_FORM_NODES || ctx.priorNormalFormNodes + ctx.normalFormNodes >= MAX_DOCUMENT_NORMAL_FORM_NODES) return false
  const a = formOf(ctx, 'old', o)
  if (a === undefined) return false
  const b = formOf(ctx, 'new', n)
  if (b === undefined) return false
  return jsonEqual(a, b, { left: 4 * MAX_NODES * 8 }) === true
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

/**
 * Whether trying the normal forms may pay: the two nodes' combinators or types are written
 * differently, or both have an `allOf` of a different length (two of its members merged into one,
 * the rest kept: compared member by member, that reads as a member removed and constraints added).
 */
export function writtenDifferently(o: unknown, n: unknown): boolean {
  if (!isObject(o) || !isObject(n)) return false
  for (const key of ['allOf', 'anyOf', 'type']) if (Object.hasOwn(o, key) !== Object.hasOwn(n, key)) return true
  return Array.isArray(o.allOf) && Array.isArray(n.allOf) && o.allOf.length !== n.allOf.length
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
  if (members.length === 0) return tidy(out)
  const openapi = walk.ctx.dialect === 'openapi-3.0'
  const merged = merge([out, ...members], openapi)
  if (merged !== undefined) return tidy(merged)
  // OpenAPI 3.0 ties more keywords to one another (`required` to its properties' readOnly, `nullable`
  // to `type`): there, an allOf that does not merge whole has no normal form.
  return members.length > MAX_KEPT_MEMBERS || openapi ? undefined : partlyMerged(out, members)
}

/** The keywords of one schema object a reader relation ties together (READERS: a reader with what it reads, both of that object). */
const BOUNDS = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'])
const TIED = new Set(READERS.flatMap(([readers, read]) => [...readers, ...read]).filter((key) => !BOUNDS.has(key)))

/**
 * An `allOf` (with its node's own keywords, `own`) that does not merge whole: each object is split
 * into the keywords no reader relation ties (merged into one object, in order, where they merge)
 * and those it ties (kept whole, each merged with the first kept part it merges with, in an `allOf`
 * sorted by their text and without repeats). Each split is exact, since no keyword of one part
 * reads one of the other, and so is the conjunction; the form is the same whichever members a
 * reader and its keywords were written in, so two members merged into one beside a member that
 * cannot merge is the same form both ways.
 */
function partlyMerged(own: Record<string, unknown>, members: readonly unknown[]): unknown {
  let form: Record<string, unknown> = {}
  const kept: unknown[] = []
  for (const member of [own, ...members]) {
    if (member === true) continue
    if (member === false) return false
    if (!isObject(member)) return undefined
    const free: Record<string, unknown> = {}
    const tied: Record<string, unknown> = {}
    // A boolean exclusiveMinimum (exclusiveMaximum) reads its object's minimum (maximum): both tied.
    const bounds = (key: string) =>
      key === 'minimum' || key === 'exclusiveMinimum'
        ? typeof member.exclusiveMinimum === 'boolean'
        : (key === 'maximum' || key === 'exclusiveMaximum') && typeof member.exclusiveMaximum === 'boolean'
    for (const key of Object.keys(member)) {
      const value = member[key]
      if (key === 'allOf' && Array.isArray(value)) kept.push(...value)
      else if (TIED.has(key) || bounds(key)) setOwn(tied, key, value)
      else setOwn(free, key, value)
    }
    if (Object.keys(free).length > 0) {
      const next = merge([form, free], false)
      if (next === undefined) kept.push(free)
      else form = next
    }
    if (Object.keys(tied).length > 0) kept.push(tied)
  }
  if (kept.includes(false)) return false
  // Kept parts that merge with one another are merged (a property list split over two members is one):
  // each joins the first group it merges with.
  const groups: unknown[] = []
  for (const part of kept) {
    if (part === true) continue
    let joined = false
    for (let i = 0; i < groups.length && !joined; i++) {
      const both = merge([groups[i], part], false)
      if (both !== undefined) {
        groups[i] = both
        joined = true
      }
    }
    if (!joined) groups.push(part)
  }
  const budget = { left: 4 * MAX_NODES * 8 }
  const byText = new Map<string, unknown>()
  for (const part of groups) {
    if (part === true) continue
    const text = canonicalKey(part, budget)
    if (text === undefined) return undefined
    byText.set(text, part)
  }
  if (byText.size > 0)
    setOwn(
      form,
      'allOf',
      [...byText.keys()].sort().map((text) => byText.get(text)),
    )
  return tidy(form)
}

/** The conjunction of object forms as one object, when no keyword of it reads another from a different source. */
function merge(forms: readonly unknown[], openapi: boolean): Record<string, unknown> | undefined {
  if (forms.some((form) => form === false)) return undefined
  const objects = forms.filter((form): form is Record<string, unknown> => isObject(form))
  if (objects.length !== forms.filter((form) => form !== true).length) return undefined
  // A reader beside what it reads in another member, or written in two members where what it reads
  // is written at all, reads something else merged. A numeric `exclusiveMinimum` (draft-06 and
  // later) reads no `minimum`; only the boolean form counts.
  for (const [readers, read] of READERS) {
    let holder = -1
    for (let i = 0; i < objects.length; i++) {
      const form = objects[i]!
      if (!readers.some((key) => Object.hasOwn(form, key) && !(key.startsWith('exclusive') && typeof form[key] !== 'boolean'))) continue
      if (holder !== -1) holder = -2
      else holder = i
    }
    if (holder === -1) continue
    if (objects.some((form, i) => i !== holder && read.some((key) => Object.hasOwn(form, key)))) return undefined
  }
  const out: Record<string, unknown> = {}
  for (let i = 0; i < objects.length; i++) {
    for (const [key, value] of Object.entries(objects[i]!)) {
      if (!Object.hasOwn(out, key)) {
        // A property list is copied: a later member's names are added to it, never to a member's own.
        setOwn(out, key, key === 'properties' && isObject(value) ? ownCopy(value) : value)
        continue
      }
      if (key === 'required' && Array.isArray(out[key]) && Array.isArray(value)) out[key] = [...(out[key] as unknown[]), ...value]
      else if (key === 'type') {
        // Two type constraints admit the types both name (an integer is a number).
        const types = bothTypes(out[key], value)
        if (types === undefined) return undefined
        out[key] = types
      } else if (key === 'properties' && isObject(out[key]) && isObject(value)) {
        const names = out[key] as Record<string, unknown>
        for (const name of Object.keys(value)) {
          // A property both lists name is the conjunction of its two schemas: one, where they are
          // written the same or merge (a derived type tightening a base's property).
          if (Object.hasOwn(names, name)) {
            if (jsonEqual(names[name], value[name], { left: MAX_NODES }) === true) continue
            const both = merge([names[name], value[name]], openapi)
            const form = both === undefined ? undefined : tidy(both)
            if (form === undefined) return undefined
            setOwn(names, name, form)
          } else setOwn(names, name, value[name])
        }
      } else if (Number.isFinite(out[key]) && Number.isFinite(value) && Object.hasOwn(TIGHTER, key)) {
        // Two bounds of one kind: both hold where the tighter does.
        out[key] = TIGHTER[key]!(out[key] as number, value as number)
      } else if (key === 'uniqueItems' && typeof out[key] === 'boolean' && typeof value === 'boolean') out[key] = out[key] || value
      else if (key === 'enum' && Array.isArray(out[key]) && Array.isArray(value)) {
        // Two enums admit the values both list (none left: no normal form).
        const both = bothListed(out[key] as unknown[], value)
        if (both === undefined || both.length === 0) return undefined
        out[key] = both
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
function tidy(form: Record<string, unknown>): Record<string, unknown> | boolean | undefined {
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
  // A schema with no keyword left accepts anything, as `true` does (a property `{}` beside `true`);
  // one whose `not` accepts anything accepts nothing, as `false` does.
  if (form.not === true) return false
  return Object.keys(form).length === 0 ? true : form
}

/** The values of `a` that `b` lists too (compared as JSON), in `a`'s order; undefined past the budget (at most 256 values each). */
function bothListed(a: readonly unknown[], b: readonly unknown[]): unknown[] | undefined {
  if (a.length > 256 || b.length > 256) return undefined
  const budget = { left: 4 * MAX_NODES * 8 }
  const out: unknown[] = []
  for (const value of a) {
    let listed = false
    for (const other of b) {
      const equal = jsonEqual(value, other, budget)
      if (equal === undefined) return undefined
      if (equal) listed = true
    }
    if (listed) out.push(value)
  }
  return out
}

function ownCopy(value: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {}
  for (const name of Object.keys(value)) setOwn(copy, name, value[name])
  return copy
}

/** The types two `type` keywords both admit (`integer` where one names it and the other `number`); undefined when a value is no type name or none is left. */
function bothTypes(a: unknown, b: unknown): string[] | undefined {
  const left = Array.isArray(a) ? a : [a]
  const right = Array.isArray(b) ? b : [b]
  if (!left.every((t) => typeof t === 'string') || !right.every((t) => typeof t === 'string')) return undefined
  const admits = (list: unknown[], type: string) => list.includes(type) || (type === 'integer' && list.includes('number'))
  const both = [...new Set([...left, ...right] as string[])].filter((type) => admits(left, type) && admits(right, type))
  return both.length === 0 ? undefined : both
}

function sortedStrings(value: unknown): string[] | undefined {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return undefined
  return [...new Set(value as string[])].sort()
}
