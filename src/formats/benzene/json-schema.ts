import { sortedCopy, sortKeys } from '../../core/emit.js'
import { hasFlag, isObject, refTarget, type Schema } from '../../runtime/benzene/document.js'
import { unicodeModeSource } from '../../core/pattern-dialect.js'
import { INT32_RANGE, INT64_RANGE, OPENAPI_FORMAT_PATTERNS } from '../../core/openapi-formats.js'
import { closedMerge, mergedOf, ownPart } from './all-of.js'
import type { SchemaFacts } from './schema-facts.js'
import type { ConvertedMemo, TracedReference } from './converted-memo.js'
import { discriminatorLiterals, discriminatorOf, extendsSelector, hasOwnShape, isParent, namedDiscriminator, type Discriminator } from './inheritance.js'

/**
 * OpenAPI 3.0 Schema Objects -> JSON Schema draft-07 for the generated validators, for one
 * direction of travel:
 * - `nullable` becomes a `null` type (and enum member); the boolean `exclusiveMinimum/Maximum`
 *   of 3.0 becomes the numeric form;
 * - `readOnly` properties are not required in requests, `writeOnly` ones not in responses;
 * - `allOf` is merged as OpenAPI means it: `additionalProperties: false` on a member admits the
 *   properties of every other member (plain JSON Schema would reject them);
 * - a `discriminator` selects the one schema its property names (a member, or for a parent one of
 *   the schemas extending it: inheritance.ts), so errors come from that schema;
 * - `pattern` is read as ECMA-262 without the Unicode flag, as OpenAPI 3.0 writes it, and handed on
 *   in Unicode-mode syntax (core/pattern-dialect.ts);
 * - the formats a service can rely on are checked (int32 range, int64 as decimal strings when
 *   asked, date-time, date, uuid, byte); others are documentation only;
 * - descriptions, examples and vendor keywords are dropped: nothing from them reaches the code.
 * Component schemas become `definitions/d<N>`, so no schema name ever becomes part of a URI.
 */
export type Direction = 'request' | 'response'
/** Both directions, in the order modules emit their definitions. */
export const DIRECTIONS: readonly Direction[] = ['request', 'response']

const sortedData = (value: unknown) => (value !== null && typeof value === 'object' ? sortedCopy(value) : value)
const ALTERNATIVES = ['oneOf', 'anyOf'] as const
/** Keywords whose members hold beside `type`: a member that refuses null refuses it for the whole schema. */
const COMPOSED = ['oneOf', 'anyOf', 'allOf', 'not']
/** int64 as a decimal string (`int64: 'string'`): an optional minus and digits, within -2^63 ... 2^63 - 1 exactly. */
const INT64_TEXT = `^(?:${[...decimalsUpTo('9223372036854775807'), ...decimalsUpTo('9223372036854775808').map((branch) => `-${branch}`)].join('|')})$`
const COPIED = 'minimum maximum multipleOf minLength maxLength pattern minItems maxItems uniqueItems minProperties maxProperties'.split(' ')

export interface ConvertContext {
  /** The document's facts (schema-facts.ts): its catalogue, hierarchy and merges. */
  facts: SchemaFacts
  direction: Direction
  int64: 'number' | 'string'
  /** The id of the document holding the definitions, e.g. `req`. */
  documentId: string
  /** Schema name -> definition key; filled as references are met. */
  keys: Map<string, string>
  /** The definitions asked for, in the order first asked (that order fixes the output's bytes). */
  pending: Array<[name: string, variant: Variant, key: string]>
  /** The definition keys in `pending`. */
  asked: Set<string>
  /** When set, every definition reference the converter writes is added here. */
  refs?: Set<string>
  /** When set, every reference the converter makes is recorded here, in order (`ConvertedMemo`). */
  trace?: TracedReference[]
  /**
   * The other direction's context and the schemas that read alike in both (`directionFree`): a
   * reference to one of those names that context's definition, so it is converted once.
   */
  shared?: { ctx: ConvertContext; free: (name: string) => boolean }
}

/**
 * What a definition of a component schema checks: the schema itself (`whole`); as an `allOf`
 * member, open to the other members' properties (`open`); or, for a schema with a choice that
 * others extend (inheritance.ts), its own fields without the choice (`own`, `ownOpen`).
 */
export type Variant = 'whole' | 'open' | 'own' | 'ownOpen'
const SUFFIX: Record<Variant, string> = { whole: '', open: 'open', own: 'own', ownOpen: 'ownopen' }

export function definitionKey(ctx: ConvertContext, name: string, variant: Variant = 'whole'): string {
  if ((variant === 'own' || variant === 'ownOpen') && !hasOwnShape(name, ctx.facts)) variant = variant === 'own' ? 'whole' : 'open'
  let base = ctx.keys.get(name)
  if (base === undefined) ctx.keys.set(name, (base = `d${ctx.keys.size}`))
  const key = base + SUFFIX[variant]
  if (!ctx.asked.has(key)) {
    ctx.asked.add(key)
    ctx.pending.push([name, variant, key])
  }
  return key
}

export function reference(ctx: ConvertContext, name: string, variant: Variant = 'whole'): { $ref: string } {
  const owner = ctx.shared !== undefined && ctx.shared.free(name) ? ctx.shared.ctx : ctx
  const target = `${owner.documentId}#/definitions/${definitionKey(owner, name, variant)}`
  ctx.refs?.add(target)
  ctx.trace?.push([name, variant, target])
  return { $ref: target }
}

function bareReference(schema: unknown): boolean {
  if (!isObject(schema) || typeof schema.$ref !== 'string') return false
  for (const key in schema) if (key !== '$ref') return false
  return true
}

/**
 * `convert`, answered from `memo` when it holds this conversion (`ConvertedMemo`): the same object
 * as the last compile's, after its references are made again in order.
 */
export function convertKept(
  memo: ConvertedMemo | undefined,
  schema: unknown,
  ctx: ConvertContext,
  open = false,
  named?: Named,
): Record<string, unknown> | boolean {
  // A payload that is one reference is converted at once (nothing to keep but the reference).
  if (memo === undefined || (named === undefined && bareReference(schema))) return convert(schema, ctx, open, named)
  const variant = `${ctx.direction} ${open ? 'open' : 'closed'}${named?.own ? ' own' : ''}`
  return memo.converted(
    schema,
    named?.name,
    variant,
    (name, asked) => reference(ctx, name, asked as Variant).$ref,
    (trace) => {
      const outer = ctx.trace
      ctx.trace = trace
      try {
        return convert(schema, ctx, open, named)
      } finally {
        ctx.trace = outer
      }
    },
  ) as Record<string, unknown> | boolean
}

/** A component schema being converted as a definition: its name (for its choice and what extends it) and whether only its own shape is meant. */
interface Named {
  name: string
  own: boolean
}

/**
 * Key order means nothing in a contract: every map the output depends on (properties, discriminator
 * mappings, object values in enum/const) is read in sorted key order, so the same contract with its
 * members reordered gives the same bytes. (The document is not copied with sorted keys first: on a
 * 1,000-topic contract that copy was a tenth of the compile, bench/.)
 */
export function convert(schema: unknown, ctx: ConvertContext, open = false, named?: Named): Record<string, unknown> | boolean {
  if (!isObject(schema)) return true
  const ref = refTarget(schema.$ref)
  if (ref !== undefined) return reference(ctx, ref, open ? 'open' : 'whole')
  const nullable = schema.nullable === true
  const discriminator = named?.own ? undefined : named ? namedDiscriminator(named.name, ctx.facts) : discriminatorOf(schema, ctx.facts)
  // A parent is the choice among the schemas extending it, each of which carries its own fields.
  if (discriminator?.mode === 'allOf') return nullable ? { anyOf: [{ type: 'null' }, choose(discriminator, ctx)] } : choose(discriminator, ctx)
  const out: Record<string, unknown> = {}

  if (typeof schema.type === 'string') {
    let type = schema.type
    if (type === 'integer' && schema.format === 'int64' && ctx.int64 === 'string') {
      type = 'string'
      out.pattern = INT64_TEXT
    }
    out.type = nullable ? [type, 'null'] : type
  }
  // Values are data: object values get their keys sorted, like every map below (see convert's note).
  if (Array.isArray(schema.enum)) out.enum = nullable && !schema.enum.includes(null) ? [...schema.enum.map(sortedData), null] : schema.enum.map(sortedData)
  if ('const' in schema) out.const = sortedData(schema.const)
  for (const key of COPIED) if (key in schema) out[key] = schema[key]
  // The rules have checked that it reads (core/pattern-dialect.ts): Unicode-mode syntax from here on.
  if (typeof schema.pattern === 'string') {
    const read = unicodeModeSource(schema.pattern)
    if (read.ok) out.pattern = read.source
  }
  if (schema.exclusiveMinimum === true && typeof schema.minimum === 'number') {
    out.exclusiveMinimum = schema.minimum
    delete out.minimum
  }
  if (schema.exclusiveMaximum === true && typeof schema.maximum === 'number') {
    out.exclusiveMaximum = schema.maximum
    delete out.maximum
  }
  if (typeof schema.format === 'string') {
    const range = schema.format === 'int32' ? INT32_RANGE : schema.format === 'int64' && ctx.int64 === 'number' ? INT64_RANGE : undefined
    if (range && (schema.type === 'integer' || schema.type === 'number'))
      Object.assign(out, {
        minimum: Math.max(range.minimum, (out.minimum as number) ?? -Infinity),
        maximum: Math.min(range.maximum, (out.maximum as number) ?? Infinity),
      })
    // A format's pattern holds beside the schema's own `pattern`, not instead of it.
    const pattern = Object.hasOwn(OPENAPI_FORMAT_PATTERNS, schema.format) ? OPENAPI_FORMAT_PATTERNS[schema.format] : undefined
    if (pattern && schema.type === 'string') {
      if (out.pattern === undefined) out.pattern = pattern
      else out.allOf = [{ pattern }]
    }
  }
  if ('items' in schema) out.items = convert(schema.items, ctx)

  if (isObject(schema.properties)) {
    const properties = schema.properties
    const converted: Record<string, unknown> = {}
    let proto: unknown
    let hasProto = false
    // ajv skips a property named `__proto__`, so it is checked as the one key matching a pattern
    // instead; every other name is assigned as it is (no entry list per object: bench/).
    for (const name of sortKeys(Object.keys(properties))) {
      const member = convert(properties[name], ctx)
      if (name !== '__proto__') converted[name] = member
      else {
        proto = member
        hasProto = true
      }
    }
    out.properties = converted
    if (hasProto) out.patternProperties = { '^__proto__$': proto }
  }
  if (Array.isArray(schema.required)) {
    const properties = isObject(schema.properties) ? schema.properties : {}
    const hidden = ctx.direction === 'request' ? 'readOnly' : 'writeOnly'
    const required = (schema.required as string[]).filter((name) => !hasFlag(properties[name], hidden))
    if (required.length > 0) out.required = required
  }
  if (schema.additionalProperties === false && !open) out.additionalProperties = false
  else if (isObject(schema.additionalProperties)) out.additionalProperties = convert(schema.additionalProperties, ctx)

  if (Array.isArray(schema.allOf)) mergeAllOf(schema, out, ctx, open, named?.name)
  if (discriminator) out.allOf = [...((out.allOf as unknown[] | undefined) ?? []), choose(discriminator, ctx)]
  else if (!named?.own) {
    for (const key of ALTERNATIVES) if (Array.isArray(schema[key])) out[key] = (schema[key] as unknown[]).map((member) => convert(member, ctx))
  }
  if ('not' in schema) out.not = convert(schema.not, ctx)
  if (nullable && (out.type === undefined || discriminator || COMPOSED.some((key) => key in out)) && Object.keys(out).length > 0) {
    // A choice or a composition requires its members' types: null is admitted beside it, not inside
    // it. `{type: object, oneOf: [{$ref: X}], nullable: true}` is how ASP.NET Core writes a nullable
    // X (a Reference Object takes no `nullable`), and the types say `X | null`.
    if (Array.isArray(out.type)) out.type = out.type[0]
    return { anyOf: [{ type: 'null' }, out] }
  }
  return out
}

/**
 * allOf with OpenAPI's meaning: members are checked open, the merged object is checked closed
 * (unless this is itself an open member of another merge). A member `$ref` to a schema whose
 * choice selects `self` stands for that schema's own fields.
 */
function mergeAllOf(schema: Schema, out: Record<string, unknown>, ctx: ConvertContext, open: boolean, self: string | undefined): void {
  const members = schema.allOf as unknown[]
  const before = (out.allOf as unknown[] | undefined) ?? []
  out.allOf = [
    ...before,
    ...members.map((member) => {
      const ref = isObject(member) ? refTarget(member.$ref) : undefined
      return ref !== undefined && extendsSelector(self, ref, ctx.facts) ? reference(ctx, ref, 'ownOpen') : convert(member, ctx, true)
    }),
  ]
  if (open) return
  // One walk of each member's own part decides both whether the merge is closed and its names.
  const parts = members.map(ownPart)
  if (!closedMerge(schema, ctx.facts, parts)) return
  const names = new Set<string>(Object.keys(isObject(schema.properties) ? schema.properties : {}))
  for (const part of parts) {
    for (const name of part.names) names.add(name)
    for (const ref of part.refs) for (const name of mergedOf(ctx.facts, ref).names) names.add(name)
  }
  const properties = (out.properties ?? {}) as Record<string, unknown>
  out.properties = Object.fromEntries([
    ...sortKeys([...names])
      .filter((name) => !Object.hasOwn(properties, name))
      .map((name) => [name, true]),
    ...Object.entries(properties),
  ])
  out.additionalProperties = false
}

/**
 * A discriminator's choice: the value of its property selects one schema (a parent's own shape
 * when the selected schema is a parent), checked alone so errors come from it. With inline
 * members, which no value selects, a payload without a selecting value must match those instead.
 */
function choose(d: Discriminator, ctx: ConvertContext): Record<string, unknown> {
  const property = { [d.propertyName]: { enum: d.values.flatMap(([value]) => discriminatorLiterals(value)) } }
  const branches = d.values.map(([value, name]) => ({
    if: { required: [d.propertyName], properties: { [d.propertyName]: selecting(value) } },
    then: reference(ctx, name, isParent(name, ctx.facts) ? 'own' : 'whole'),
  }))
  if (d.rest !== undefined) {
    // Nothing named beside the parent (its discriminator selects itself already): the choice is the parent's.
    if (d.values.length === 0) return reference(ctx, d.rest)
    // The parent's own choice decides the values this choice does not name (and refuses those it does not know).
    const named = { type: 'object', required: [d.propertyName], properties: property }
    return { type: 'object', required: [d.propertyName], allOf: [...branches, { if: { not: named }, then: reference(ctx, d.rest) }] }
  }
  if (d.inline.length === 0) return { type: 'object', required: [d.propertyName], properties: property, allOf: branches }
  const rest = { if: { not: { type: 'object', required: [d.propertyName], properties: property } }, then: { [d.mode]: d.inline.map((m) => convert(m, ctx)) } }
  return { allOf: [...branches, rest] }
}

/** The condition a discriminator value puts on its property: the literal, or the string and the number for an integer key. */
function selecting(value: string): Record<string, unknown> {
  const literals = discriminatorLiterals(value)
  return literals.length === 1 ? { const: value } : { enum: literals }
}

/**
 * Regular-expression branches for the decimal integers 0 ... `bound` (digits, no sign), each a
 * fixed-width run, so that their alternation is cheap for a backtracking engine: up to 18 digits
 * (leading zeros allowed), or 19 digits compared digit by digit with `bound`'s. Only for 19-digit bounds.
 */
function decimalsUpTo(bound: string): string[] {
  const width = bound.length
  const branches = [`\\d{1,${width - 1}}`]
  for (let i = 0; i < width; i++) {
    const digit = Number(bound[i])
    const low = i === 0 ? 1 : 0
    const rest = width - i - 1
    if (digit > low) branches.push(`${bound.slice(0, i)}[${low}-${digit - 1}]${rest > 0 ? `\\d{${rest}}` : ''}`)
  }
  branches.push(bound)
  return branches
}

/**
 * The definitions of several contexts that can ask each other for definitions (`shared`), each
 * converted once, by `<documentId>#/definitions/<key>`: every context's in the order first asked,
 * the contexts in the order given. Converting one can ask for more, in either context, which are
 * converted in turn. Linear in the definitions.
 */
export function definitionsOf(contexts: readonly ConvertContext[], memo?: ConvertedMemo): Map<string, unknown> {
  const made = contexts.map(() => new Map<string, unknown>())
  const done = contexts.map(() => 0)
  for (let progress = true; progress;) {
    progress = false
    contexts.forEach((ctx, c) => {
      for (; done[c]! < ctx.pending.length; done[c]!++) {
        const [name, variant, key] = ctx.pending[done[c]!]!
        const own = variant === 'own' || variant === 'ownOpen'
        made[c]!.set(
          `${ctx.documentId}#/definitions/${key}`,
          convertKept(memo, ctx.facts.catalogue[name], ctx, variant === 'open' || variant === 'ownOpen', { name, own }),
        )
        progress = true
      }
    })
  }
  const out = new Map<string, unknown>()
  for (const definitions of made) for (const [ref, schema] of definitions) out.set(ref, schema)
  return out
}

/**
 * The definitions document for one direction: every definition asked for, in the order first
 * asked; converting one can ask for more, which are converted in turn. Linear in the definitions.
 * `refs`, when given, receives the references each definition makes, by key.
 */
export function definitionsDocument(ctx: ConvertContext, refs?: Map<string, ReadonlySet<string>>): Record<string, unknown> {
  const definitions: Record<string, unknown> = {}
  for (let i = 0; i < ctx.pending.length; i++) {
    const [name, variant, key] = ctx.pending[i]!
    const made = new Set<string>()
    const own = variant === 'own' || variant === 'ownOpen'
    definitions[key] = convert(ctx.facts.catalogue[name], refs ? { ...ctx, refs: made } : ctx, variant === 'open' || variant === 'ownOpen', { name, own })
    refs?.set(key, made)
  }
  return { $id: ctx.documentId, definitions }
}
