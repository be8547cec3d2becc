/**
 * The schema half of the diff oracle, written apart from the schema diff's rules: random small JSON
 * Schemas, random single edits (each labelled by kind), a finite universe of values enumerated
 * exhaustively, and acceptance judged by ajv. A witness is a value of the universe that one version
 * accepts and the other refuses; the property is that the engine never lets a witness through
 * unflagged for the party it breaks.
 *
 * The universe is finite, so a missing witness proves nothing (an edit may only differ on values
 * outside it); a witness found proves a break. That is the direction the property needs: the oracle
 * never calls a classification wrong without a concrete value that shows it.
 */
import { Ajv, type ValidateFunction } from 'ajv'
import type { DiffSchemas, SchemaChange, SchemaEffect, SchemaSide } from '../../src/core/diff/schema-diff-types.js'
import type { Random } from './diff-oracle-random.js'

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
export type Schema = { [keyword: string]: Json }

export const KEYS = ['a', 'b', 'c'] as const
const TYPES = ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object'] as const
/** Bounds around the universe's numbers, so a bound moved by one changes which values pass. */
const NUMBER_BOUNDS = [-1, 0, 1, 2, 3] as const
const LENGTH_BOUNDS = [0, 1, 2, 3] as const
const ITEM_BOUNDS = [0, 1, 2] as const
/** Divisors that split the universe's numbers differently (all of them are multiples of 0.5). */
const MULTIPLES = [0.5, 1, 2] as const
/** A tiny set of patterns with different languages over the universe's strings. */
export const PATTERNS = ['^a', 'b$', '^[a-z]*$', '^[0-9]+$', '^.$'] as const
/** Values `enum` and `const` draw from (all in the universe). */
const ATOMS: readonly Json[] = [null, true, false, -1, 0, 1, 2.5, 'a', 'ab', '', [], {}]

/**
 * Scalars of the universe: null, booleans, numbers (negatives, non-integers, one beyond each end of
 * NUMBER_BOUNDS), short strings (the empty one, one longer than every length bound).
 */
const SCALARS: readonly Json[] = [null, true, false, -2, -1, -0.5, 0, 0.5, 1, 2, 2.5, 3, 4, '', 'a', 'b', 'ab', 'ba', 'abc', 'abcd', '1', '12', 'B']
/** What arrays and objects of the universe hold: scalars, and a nested array and object. */
const MEMBERS: readonly Json[] = [null, 0, 2.5, 'a', '', [0], { a: 0 }]
const ELEMENTS: readonly Json[] = [null, 0, 2.5, 'a', [], {}]

/**
 * Every value of the universe, once: the scalars, arrays of up to two elements, and objects whose
 * keys are a subset of {a, b, c} with each value from MEMBERS (so nested schemas see nested values).
 */
export function valueUniverse(): Json[] {
  const arrays: Json[] = [[]]
  for (const x of ELEMENTS) arrays.push([x])
  for (const x of ELEMENTS) for (const y of ELEMENTS) arrays.push([x, y])
  // One longer than every item bound.
  arrays.push([0, 'a', null])
  let objects: Array<{ [key: string]: Json }> = [{}]
  for (const key of KEYS) {
    const grown: Array<{ [key: string]: Json }> = []
    for (const o of objects) {
      grown.push(o)
      for (const v of MEMBERS) grown.push({ ...o, [key]: v })
    }
    objects = grown
  }
  return [...SCALARS, ...arrays, ...objects]
}

// ---------------------------------------------------------------------------------------------
// Random schemas

function clone<T extends Json>(value: T): T {
  return structuredClone(value)
}

/** A `$ref` to a component schema of the same document. */
export const refTo = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` })

/**
 * A random schema; `depth` bounds nesting (0: no subschemas). With `refs`, some subschemas are a
 * `$ref` to one of those component schemas.
 */
export function randomSchema(random: Random, depth: number, refs: readonly string[] = []): Schema {
  if (refs.length > 0 && random.chance(0.15)) return refTo(random.pick(refs))
  const roll = random.next()
  const two = () => [randomSchema(random, depth - 1, refs), randomSchema(random, depth - 1, refs)]
  // Composition: anyOf most, and the keywords whose effect is less direct (allOf intersects, oneOf
  // excludes the overlap, not turns a widening into a narrowing).
  if (depth > 0 && roll < 0.08) return { anyOf: two() }
  if (depth > 0 && roll < 0.1) return { oneOf: two() }
  if (depth > 0 && roll < 0.12) return { allOf: two() }
  if (depth > 0 && roll < 0.14) return { not: randomSchema(random, depth - 1, refs) }
  if (roll < 0.21) return { enum: random.sample(ATOMS, random.int(1, 3)) }
  if (roll < 0.25) return { const: clone(random.pick(ATOMS)) }
  if (roll < 0.3) return {}
  if (roll < 0.36) return { type: random.sample(TYPES, 2) }
  const type = depth > 0 ? random.pick(TYPES) : random.pick(TYPES.filter((t) => t !== 'array' && t !== 'object'))
  const schema: Schema = { type }
  if (type === 'integer' || type === 'number') {
    if (random.chance(0.4)) schema.minimum = random.pick(NUMBER_BOUNDS)
    if (random.chance(0.4)) schema.maximum = random.pick(NUMBER_BOUNDS)
    if (random.chance(0.15)) schema.exclusiveMinimum = random.pick(NUMBER_BOUNDS)
    if (random.chance(0.15)) schema.exclusiveMaximum = random.pick(NUMBER_BOUNDS)
    if (random.chance(0.1)) schema.multipleOf = random.pick(MULTIPLES)
  } else if (type === 'string') {
    if (random.chance(0.35)) schema.minLength = random.pick(LENGTH_BOUNDS)
    if (random.chance(0.35)) schema.maxLength = random.pick(LENGTH_BOUNDS)
    if (random.chance(0.3)) schema.pattern = random.pick(PATTERNS)
  } else if (type === 'array') {
    if (random.chance(0.7)) schema.items = randomSchema(random, depth - 1, refs)
    if (random.chance(0.25)) schema.minItems = random.pick(ITEM_BOUNDS)
    if (random.chance(0.25)) schema.maxItems = random.pick(ITEM_BOUNDS)
    if (random.chance(0.1)) schema.uniqueItems = random.chance(0.8)
  } else if (type === 'object') {
    const properties: Schema = {}
    for (const key of random.sample(KEYS, random.int(0, 3))) properties[key] = randomSchema(random, depth - 1, refs)
    schema.properties = properties
    const required = random.sample(KEYS, random.int(0, 2))
    if (required.length > 0) schema.required = required
    const extra = random.int(0, 2)
    if (extra === 1) schema.additionalProperties = false
    if (extra === 2) schema.additionalProperties = true
    if (random.chance(0.1)) schema.minProperties = random.pick(ITEM_BOUNDS)
    if (random.chance(0.1)) schema.maxProperties = random.pick(ITEM_BOUNDS)
  }
  if (random.chance(0.1)) schema.description = 'a payload'
  return schema
}

// ---------------------------------------------------------------------------------------------
// Random single edits

/** Where a subschema is within the root: the keys and indexes leading to it. */
export type SchemaPath = Array<string | number>

/** Every subschema of `schema` (itself first), with its path. */
export function subschemas(schema: Schema, path: SchemaPath = []): Array<{ path: SchemaPath; schema: Schema }> {
  const out = [{ path, schema }]
  const properties = schema.properties
  if (isSchema(properties))
    for (const key of Object.keys(properties).sort()) if (isSchema(properties[key])) out.push(...subschemas(properties[key], [...path, 'properties', key]))
  if (isSchema(schema.items)) out.push(...subschemas(schema.items, [...path, 'items']))
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
    const branches = schema[keyword]
    if (Array.isArray(branches)) branches.forEach((s, i) => isSchema(s) && out.push(...subschemas(s, [...path, keyword, i])))
  }
  if (isSchema(schema.not)) out.push(...subschemas(schema.not, [...path, 'not']))
  return out
}

function isSchema(value: Json | undefined): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The JSON Pointer of a path below `base`. */
export function pointerOf(path: SchemaPath, base = ''): string {
  return base + path.map((p) => '/' + String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('')
}

/** A random value for a keyword the generic edits set or change. */
const KEYWORD_VALUES: Record<string, (random: Random) => Json> = {
  type: (random) => random.pick(TYPES),
  minimum: (random) => random.pick(NUMBER_BOUNDS),
  maximum: (random) => random.pick(NUMBER_BOUNDS),
  exclusiveMinimum: (random) => random.pick(NUMBER_BOUNDS),
  exclusiveMaximum: (random) => random.pick(NUMBER_BOUNDS),
  minLength: (random) => random.pick(LENGTH_BOUNDS),
  maxLength: (random) => random.pick(LENGTH_BOUNDS),
  pattern: (random) => random.pick(PATTERNS),
  minItems: (random) => random.pick(ITEM_BOUNDS),
  maxItems: (random) => random.pick(ITEM_BOUNDS),
  items: (random) => randomSchema(random, 1),
  additionalProperties: (random) => random.chance(0.5),
  enum: (random) => random.sample(ATOMS, random.int(1, 3)),
  const: (random) => clone(random.pick(ATOMS)),
  required: (random) => random.sample(KEYS, random.int(1, 2)),
  description: (random) => random.pick(['a payload', 'the payload', 'what is sent']),
  multipleOf: (random) => random.pick(MULTIPLES),
  uniqueItems: (random) => random.chance(0.5),
  minProperties: (random) => random.pick(ITEM_BOUNDS),
  maxProperties: (random) => random.pick(ITEM_BOUNDS),
  oneOf: (random) => [randomSchema(random, 0), randomSchema(random, 0)],
  allOf: (random) => [randomSchema(random, 0), randomSchema(random, 0)],
  not: (random) => randomSchema(random, 0),
}

/** An edit kind: its label, whether it applies to a subschema, and what it makes of it (a new object). */
interface EditKind {
  label: string
  /** The keyword it edits, for the generic edits (to prefer those that constrain the subschema's type). */
  keyword?: string
  applies(schema: Schema): boolean
  apply(schema: Schema, random: Random): Schema
}

/** The types each type-specific keyword constrains (a keyword for another type is a no-op edit). */
const KEYWORD_TYPES: Record<string, readonly string[]> = {
  minimum: ['integer', 'number'],
  maximum: ['integer', 'number'],
  exclusiveMinimum: ['integer', 'number'],
  exclusiveMaximum: ['integer', 'number'],
  minLength: ['string'],
  maxLength: ['string'],
  pattern: ['string'],
  minItems: ['array'],
  maxItems: ['array'],
  items: ['array'],
  additionalProperties: ['object'],
  required: ['object'],
  properties: ['object'],
  minProperties: ['object'],
  maxProperties: ['object'],
  multipleOf: ['integer', 'number'],
  uniqueItems: ['array'],
  description: [],
}

/** Whether an edit changes a keyword that matters for the subschema's declared type (an untyped one: every keyword matters). */
function relevant(edit: EditKind, schema: Schema): boolean {
  const types = edit.keyword === undefined ? undefined : KEYWORD_TYPES[edit.keyword]
  if (types === undefined) return true
  if (schema.type === undefined) return types.length > 0
  const declared = Array.isArray(schema.type) ? schema.type : [schema.type]
  return declared.some((t) => types.includes(t as string))
}

const EDITS: EditKind[] = [
  // Generic: a keyword added, removed or given another value.
  ...Object.keys(KEYWORD_VALUES).flatMap((keyword): EditKind[] => [
    {
      label: `${keyword}-added`,
      keyword,
      applies: (s) => !(keyword in s),
      apply: (s, random) => ({ ...s, [keyword]: KEYWORD_VALUES[keyword]!(random) }),
    },
    {
      label: `${keyword}-removed`,
      keyword,
      applies: (s) => keyword in s,
      apply: (s) => {
        const { [keyword]: _removed, ...rest } = s
        return rest
      },
    },
    {
      label: `${keyword}-changed`,
      keyword,
      applies: (s) => keyword in s,
      apply: (s, random) => ({ ...s, [keyword]: KEYWORD_VALUES[keyword]!(random) }),
    },
  ]),
  // Specific: one member of a list or map.
  {
    label: 'type-widened-to-union',
    applies: (s) => typeof s.type === 'string',
    apply: (s, random) => ({ ...s, type: [s.type as string, random.pick(TYPES.filter((t) => t !== s.type))] }),
  },
  {
    label: 'required-entry-added',
    keyword: 'required',
    applies: (s) => !Array.isArray(s.required) || s.required.length < KEYS.length,
    apply: (s, random) => {
      const required = Array.isArray(s.required) ? (s.required as string[]) : []
      return { ...s, required: [...required, random.pick(KEYS.filter((k) => !required.includes(k)))] }
    },
  },
  {
    label: 'required-entry-removed',
    keyword: 'required',
    applies: (s) => Array.isArray(s.required) && s.required.length > 0,
    apply: (s, random) => {
      const required = s.required as string[]
      const drop = random.pick(required)
      const rest = required.filter((k) => k !== drop)
      const { required: _old, ...others } = s
      return rest.length > 0 ? { ...others, required: rest } : others
    },
  },
  {
    label: 'property-added',
    keyword: 'properties',
    applies: (s) => !isSchema(s.properties) || Object.keys(s.properties).length < KEYS.length,
    apply: (s, random) => {
      const properties = isSchema(s.properties) ? s.properties : {}
      const key = random.pick(KEYS.filter((k) => !(k in properties)))
      return { ...s, properties: { ...properties, [key]: randomSchema(random, 1) } }
    },
  },
  {
    label: 'property-removed',
    keyword: 'properties',
    applies: (s) => isSchema(s.properties) && Object.keys(s.properties).length > 0,
    apply: (s, random) => {
      const properties = { ...(s.properties as Schema) }
      delete properties[random.pick(Object.keys(properties))]
      return { ...s, properties }
    },
  },
  {
    label: 'enum-value-added',
    applies: (s) => Array.isArray(s.enum) && s.enum.length < ATOMS.length,
    apply: (s, random) => {
      const values = s.enum as Json[]
      const fresh = ATOMS.filter((a) => !values.some((v) => JSON.stringify(v) === JSON.stringify(a)))
      return { ...s, enum: [...values, clone(random.pick(fresh))] }
    },
  },
  {
    label: 'enum-value-removed',
    applies: (s) => Array.isArray(s.enum) && s.enum.length > 1,
    apply: (s, random) => {
      const values = [...(s.enum as Json[])]
      values.splice(random.int(0, values.length - 1), 1)
      return { ...s, enum: values }
    },
  },
  {
    label: 'any-of-branch-added',
    applies: (s) => Array.isArray(s.anyOf),
    apply: (s, random) => ({ ...s, anyOf: [...(s.anyOf as Json[]), randomSchema(random, 0)] }),
  },
  {
    label: 'any-of-branch-removed',
    applies: (s) => Array.isArray(s.anyOf) && s.anyOf.length > 1,
    apply: (s, random) => {
      const branches = [...(s.anyOf as Json[])]
      branches.splice(random.int(0, branches.length - 1), 1)
      return { ...s, anyOf: branches }
    },
  },
  {
    label: 'any-of-wrapped',
    applies: (s) => !('anyOf' in s),
    apply: (s, random) => ({ anyOf: [s, randomSchema(random, 0)] }),
  },
  {
    label: 'ref-retargeted',
    applies: (s) => typeof s.$ref === 'string',
    apply: (s) => refTo(s.$ref === refTo('A').$ref ? 'B' : 'A'),
  },
  {
    label: 'subschema-replaced',
    applies: () => true,
    apply: (_s, random) => randomSchema(random, 1),
  },
]

export interface SchemaEdit {
  label: string
  /** Where the edited subschema is, as a pointer from the schema's root. */
  at: string
}

/** Component schemas beside the payload, by name (what its `$ref`s name). */
export type Definitions = Record<string, Schema>

export interface SchemaPair {
  old: Schema
  new: Schema
  edit: SchemaEdit
  /** The component schemas of each version, when the payload has `$ref`s. */
  definitions?: { old: Definitions; new: Definitions }
}

function replaceAt(root: Schema, path: SchemaPath, replacement: Schema): Schema {
  if (path.length === 0) return replacement
  const copy = clone(root)
  let parent: Json = copy
  for (const step of path.slice(0, -1)) parent = (parent as Record<string, Json>)[step as string] as Json
  ;(parent as Record<string, Json>)[path[path.length - 1] as string] = replacement
  return copy
}

/**
 * One random edit of `schema` that changes its text. Mostly a subschema first and then an edit kind
 * that applies to it; sometimes an edit kind first and then a subschema it applies to, so that the
 * kinds that need a keyword present (a pattern changed, an enum value removed) occur too. Either way
 * mostly an edit whose keyword constrains the subschema's type, sometimes one that does not (its
 * effect is none). A bounded number of tries, then a description edit (always a change).
 */
export function randomEdit(random: Random, schema: Schema): SchemaPair {
  const text = JSON.stringify(schema)
  const all = subschemas(schema)
  for (let attempt = 0; attempt < 40; attempt++) {
    const choice = random.chance(0.7) ? targetFirst(random, all) : kindFirst(random, all)
    if (!choice) continue
    const edited = replaceAt(schema, choice.target.path, choice.kind.apply(clone(choice.target.schema), random))
    if (JSON.stringify(edited) !== text) return { old: schema, new: edited, edit: { label: choice.kind.label, at: pointerOf(choice.target.path) } }
  }
  return { old: schema, new: { ...schema, description: `${String(schema.description)} (edited)` }, edit: { label: 'description-changed', at: '' } }
}

type Target = { path: SchemaPath; schema: Schema }

/** Whether an edit kind applies to a subschema: a `$ref` is only retargeted or replaced (a keyword beside it reads differently by draft). */
function allowed(kind: EditKind, schema: Schema): boolean {
  if ('$ref' in schema) return kind.label === 'ref-retargeted' || kind.label === 'subschema-replaced'
  return kind.applies(schema)
}

function targetFirst(random: Random, all: Target[]): { target: Target; kind: EditKind } | undefined {
  const target = random.pick(all)
  const applicable = EDITS.filter((e) => allowed(e, target.schema))
  const preferred = applicable.filter((e) => relevant(e, target.schema))
  const kinds = preferred.length > 0 && random.chance(0.85) ? preferred : applicable
  return kinds.length > 0 ? { target, kind: random.pick(kinds) } : undefined
}

function kindFirst(random: Random, all: Target[]): { target: Target; kind: EditKind } | undefined {
  const kind = random.pick(EDITS)
  const applicable = all.filter((t) => allowed(kind, t.schema))
  const preferred = applicable.filter((t) => relevant(kind, t.schema))
  const targets = preferred.length > 0 && random.chance(0.85) ? preferred : applicable
  return targets.length > 0 ? { target: random.pick(targets), kind } : undefined
}

function refsIn(schema: Json): string[] {
  if (Array.isArray(schema)) return schema.flatMap(refsIn)
  if (typeof schema !== 'object' || schema === null) return []
  const own = typeof schema.$ref === 'string' ? [schema.$ref.slice(schema.$ref.lastIndexOf('/') + 1)] : []
  return [...own, ...Object.values(schema).flatMap(refsIn)]
}

/**
 * A payload with `$ref`s to two component schemas (A, B; themselves without `$ref`s), and one edit:
 * of the payload (a `$ref` retargeted among them), or of a component it names, so that the
 * payload's own text is unchanged and only following the `$ref` shows the difference
 * (labelled `ref-target-<edit>`).
 */
export function randomRefPair(random: Random, depth: number): SchemaPair {
  const definitions: Definitions = { A: randomSchema(random, 1), B: randomSchema(random, 1) }
  let payload = randomSchema(random, depth, ['A', 'B'])
  if (refsIn(payload).length === 0) {
    const all = subschemas(payload)
    payload = replaceAt(payload, random.pick(all.length > 1 ? all.slice(1) : all).path, refTo(random.pick(['A', 'B'])))
  }
  if (random.chance(0.4)) {
    const name = random.pick(refsIn(payload))
    const edited = randomEdit(random, definitions[name]!)
    return {
      old: payload,
      new: payload,
      definitions: { old: definitions, new: { ...definitions, [name]: edited.new } },
      edit: { label: `ref-target-${edited.edit.label}`, at: `/components/schemas/${name}${edited.edit.at}` },
    }
  }
  return { ...randomEdit(random, payload), definitions: { old: definitions, new: definitions } }
}

/** All the edit labels the generator can produce (for the report and the self-test). */
export const EDIT_LABELS: readonly string[] = EDITS.map((e) => e.label)

// ---------------------------------------------------------------------------------------------
// Acceptance and witnesses

/** Validators by schema text: a generated schema recurs (the old side of several edits, the empty schema). */
export class Acceptance {
  private readonly ajv = new Ajv({ strict: false, allErrors: false, code: { optimize: false } })
  private readonly compiled = new Map<string, ValidateFunction>()

  /** The validator of `schema`, its `$ref`s resolved among `definitions` (its document's component schemas). */
  validator(schema: Schema, definitions: Definitions = {}): ValidateFunction {
    const root: Schema = Object.keys(definitions).length === 0 ? schema : { ...refTo(PAYLOAD), components: { schemas: { ...definitions, [PAYLOAD]: schema } } }
    const key = JSON.stringify(root)
    let fn = this.compiled.get(key)
    if (!fn) {
      fn = this.ajv.compile(clone(root))
      this.compiled.set(key, fn)
    }
    return fn
  }

  accepts(schema: Schema, value: Json, definitions?: Definitions): boolean {
    return this.validator(schema, definitions)(value) === true
  }
}

export interface Witnesses {
  /** Values the new schema accepts and the old refused: they break whoever receives the payload. */
  widening: Json[]
  /** Values the old schema accepted and the new refuses: they break whoever sends the payload. */
  narrowing: Json[]
}

/** Every witness of the universe for a pair, both ways. */
export function findWitnesses(acceptance: Acceptance, pair: Pick<SchemaPair, 'old' | 'new' | 'definitions'>, universe: readonly Json[]): Witnesses {
  const oldFn = acceptance.validator(pair.old, pair.definitions?.old)
  const newFn = acceptance.validator(pair.new, pair.definitions?.new)
  const widening: Json[] = []
  const narrowing: Json[] = []
  for (const value of universe) {
    const before = oldFn(value) === true
    const after = newFn(value) === true
    if (after && !before) widening.push(value)
    if (before && !after) narrowing.push(value)
  }
  return { widening, narrowing }
}

// ---------------------------------------------------------------------------------------------
// The property

/** Effects that flag a change for a party that receives the payload (a validator or type on the receiving side). */
export const FLAGS_RECEIVERS: readonly SchemaEffect[] = ['widens', 'both', 'unknown']
/** Effects that flag a change for a party that sends the payload. */
export const FLAGS_SENDERS: readonly SchemaEffect[] = ['narrows', 'both', 'unknown']

/** Where the oracle puts each schema in its document, as a format would (a component schema). */
const PAYLOAD = 'Payload'
export const SCHEMA_POINTER = `/components/schemas/${PAYLOAD}`

/** A `SchemaSide` holding `schema` at SCHEMA_POINTER in a document of its own, beside `definitions`; local `$ref`s resolve within it. */
export function schemaSide(file: string, schema: Schema, definitions: Definitions = {}): SchemaSide {
  const document = { components: { schemas: { ...clone(definitions), [PAYLOAD]: clone(schema) } } }
  return {
    file,
    document,
    pointer: SCHEMA_POINTER,
    resolve(ref) {
      if (!ref.startsWith('#')) return undefined
      let node: unknown = document
      for (const raw of ref.slice(1).split('/').slice(1)) {
        const step = raw.replace(/~1/g, '/').replace(/~0/g, '~')
        if (typeof node !== 'object' || node === null || !(step in node)) return undefined
        node = (node as Record<string, unknown>)[step]
      }
      return { file, document, pointer: ref.slice(1) }
    },
  }
}

function show(value: unknown): string {
  return JSON.stringify(value)
}

function describePair(pair: SchemaPair, changes: readonly SchemaChange[]): string {
  const found = changes.length === 0 ? 'no changes' : changes.map((c) => `${c.rule} (${c.effect})`).join(', ')
  const definitions = pair.definitions ? ` (components old ${show(pair.definitions.old)} -> new ${show(pair.definitions.new)})` : ''
  return `edit ${pair.edit.label} at "${pair.edit.at}" of old ${show(pair.old)} -> new ${show(pair.new)}${definitions}; the engine reported ${found}`
}

/**
 * What is wrong with the engine's answer for a pair, judged by the witnesses: a witness one way
 * that no change flags for the party it breaks, or a witness the engine claims that ajv contradicts.
 * Empty when the answer stands.
 */
export function schemaViolations(acceptance: Acceptance, pair: SchemaPair, changes: readonly SchemaChange[], witnesses: Witnesses): string[] {
  const out: string[] = []
  const flags = (effects: readonly SchemaEffect[]) => changes.some((c) => effects.includes(c.effect))
  const widened = witnesses.widening[0]
  if (widened !== undefined && !flags(FLAGS_RECEIVERS))
    out.push(`receivers break unflagged: ${show(widened)} is accepted by the new schema and refused by the old; ${describePair(pair, changes)}`)
  const narrowed = witnesses.narrowing[0]
  if (narrowed !== undefined && !flags(FLAGS_SENDERS))
    out.push(`senders break unflagged: ${show(narrowed)} is accepted by the old schema and refused by the new; ${describePair(pair, changes)}`)
  for (const change of changes) {
    if (!change.witness) continue
    const { value, acceptedBy } = change.witness
    const byOld = acceptance.accepts(pair.old, value as Json, pair.definitions?.old)
    const byNew = acceptance.accepts(pair.new, value as Json, pair.definitions?.new)
    const holds = acceptedBy === 'new' ? byNew && !byOld : byOld && !byNew
    if (!holds)
      out.push(
        `${change.rule} claims the witness ${show(value)} is accepted by the ${acceptedBy} schema only, but old ${byOld ? 'accepts' : 'refuses'} and new ${byNew ? 'accepts' : 'refuses'} it; ${describePair(pair, changes)}`,
      )
  }
  return out
}

/** What one run of the schema property saw: for the report line and the self-test. */
export interface SchemaRunStats {
  pairs: number
  /** Pairs with a witness one way or the other, and those the engine flagged for every party a witness breaks. */
  witnessed: number
  caught: number
  /** Of the caught ones, those caught by a proven effect (`widens`/`narrows`/`both`) for each broken party, not by `unknown` alone. */
  caughtProven: number
  receiverWitnessed: number
  senderWitnessed: number
  /** Pairs the universe shows no difference for (a no-op edit or one outside the universe). */
  unwitnessed: number
  /** Pairs where the engine used `unknown` (a warning). */
  unknownUsed: number
  /** Pairs where the engine reported no change, or only changes with effect `none`. */
  reportedNone: number
  /** Witnesses the engine itself attached to a change. */
  engineWitnesses: number
  byLabel: Map<string, number>
  violations: string[]
}

export interface SchemaRunOptions {
  random: Random
  pairs: number
  depth: number
  engine: DiffSchemas
  /** Payloads with `$ref`s to component schemas, and edits of those too (`randomRefPair`). */
  refs?: boolean
}

/** Generates `pairs` (old, edited) schemas, asks the engine about each and judges its answer against the universe. */
export function runSchemaProperty({ random, pairs, depth, engine, refs = false }: SchemaRunOptions): SchemaRunStats {
  const acceptance = new Acceptance()
  const universe = valueUniverse()
  const stats: SchemaRunStats = {
    pairs: 0,
    witnessed: 0,
    caught: 0,
    caughtProven: 0,
    receiverWitnessed: 0,
    senderWitnessed: 0,
    unwitnessed: 0,
    unknownUsed: 0,
    reportedNone: 0,
    engineWitnesses: 0,
    byLabel: new Map(),
    violations: [],
  }
  for (let i = 0; i < pairs; i++) {
    const pair = refs ? randomRefPair(random, depth) : randomEdit(random, randomSchema(random, depth))
    stats.pairs++
    stats.byLabel.set(pair.edit.label, (stats.byLabel.get(pair.edit.label) ?? 0) + 1)
    let changes: SchemaChange[]
    try {
      changes = engine(schemaSide('/oracle/old.json', pair.old, pair.definitions?.old), schemaSide('/oracle/new.json', pair.new, pair.definitions?.new), {
        dialect: 'json-schema',
      })
    } catch (error) {
      // The engine never throws on what a schema holds: a throw is a violation, reported with its pair.
      stats.violations.push(`the engine threw ${String(error)}; ${describePair(pair, [])}`)
      continue
    }
    const witnesses = findWitnesses(acceptance, pair, universe)
    const violations = schemaViolations(acceptance, pair, changes, witnesses)
    stats.violations.push(...violations)
    if (changes.some((c) => c.effect === 'unknown')) stats.unknownUsed++
    if (changes.every((c) => c.effect === 'none')) stats.reportedNone++
    stats.engineWitnesses += changes.filter((c) => c.witness).length
    const receivers = witnesses.widening.length > 0
    const senders = witnesses.narrowing.length > 0
    if (receivers) stats.receiverWitnessed++
    if (senders) stats.senderWitnessed++
    if (!receivers && !senders) {
      stats.unwitnessed++
      continue
    }
    stats.witnessed++
    const flagged = (effects: readonly SchemaEffect[]) => changes.some((c) => effects.includes(c.effect))
    if ((!receivers || flagged(FLAGS_RECEIVERS)) && (!senders || flagged(FLAGS_SENDERS))) stats.caught++
    if ((!receivers || flagged(['widens', 'both'])) && (!senders || flagged(['narrows', 'both']))) stats.caughtProven++
  }
  return stats
}

/** The one report line of a run. */
export function schemaReport(seed: number, stats: SchemaRunStats): string {
  const percent = (n: number) => `${stats.pairs === 0 ? 0 : Math.round((100 * n) / stats.pairs)}%`
  return (
    `diff-oracle schemas seed=${seed}: ${stats.pairs} pairs (${stats.byLabel.size} edit kinds); ` +
    `witnessed ${stats.witnessed} (receivers ${stats.receiverWitnessed}, senders ${stats.senderWitnessed}), caught ${stats.caught}, ` +
    `${stats.caughtProven} by a proven effect; unknown (warning) in ${stats.unknownUsed} pairs (${percent(stats.unknownUsed)}); ` +
    `no difference in the universe ${stats.unwitnessed}; engine reported none ${stats.reportedNone}; engine witnesses ${stats.engineWitnesses}; ` +
    `violations ${stats.violations.length}`
  )
}
