import { escapeToken } from './json-pointer.js'
import {
  MAX_VALIDATION_DEPTH,
  MESSAGES,
  additionalFail,
  boundFail,
  compiledValidator,
  depthFail,
  memoCheck,
  multipleOfFail,
  oneOfFail,
  patternFail,
  requiredFail,
  schemaFail as fail,
  sizeFail,
  typeFail,
  typeMatches,
  uniqueItemsFail,
  type SchemaCheck as Check,
  type SchemaError,
  type SizeKeyword,
} from './schema-errors.js'
import { codePoints, equal, isMultipleOf } from './schema-values.js'
import type { Validator } from './validation.js'

/**
 * The schema interpreter: payload validation over JSON Schema (draft-07) given as data, for the
 * modules whose validators are data (NATS by default, Benzene with `validators: 'data'`) and for
 * schemas an application holds at run time (`schemaValidator` is exported). Modules compiled with
 * `validators: 'code'` (Benzene's default) carry the same checks as JavaScript
 * (`src/core/schema-code.ts`), in the same order with the same errors.
 * Nothing here evaluates code (strict CSP). Errors have ajv's shape and meaning:
 * `test/schema-check.test.ts` holds this interpreter to the generated code exactly and both to ajv
 * (`allErrors`, `ownProperties`) on generated schemas and data.
 *
 * The keywords are the closed set `src/formats/benzene/json-schema.ts` produces: type, enum, const,
 * the numeric, string, array and object assertions, properties/patternProperties/required/additionalProperties,
 * items, allOf/anyOf/oneOf/not, if/then, and `$ref` to a definition passed in `definitions` (or,
 * in a generated module's data form, a function returning the definition: `data-validator.ts`).
 */
export type Schema = boolean | SchemaObject

export interface SchemaObject {
  readonly $ref?: string
  readonly type?: string | readonly string[]
  readonly enum?: readonly unknown[]
  readonly const?: unknown
  readonly minimum?: number
  readonly maximum?: number
  readonly exclusiveMinimum?: number
  readonly exclusiveMaximum?: number
  readonly multipleOf?: number
  readonly minLength?: number
  readonly maxLength?: number
  readonly pattern?: string
  readonly items?: Schema
  readonly minItems?: number
  readonly maxItems?: number
  readonly uniqueItems?: boolean
  readonly properties?: Readonly<Record<string, Schema>>
  readonly required?: readonly string[]
  readonly additionalProperties?: Schema
  /** The converter's one use: a property named `__proto__` (`^__proto__$`), which ajv cannot take as a property. */
  readonly patternProperties?: Readonly<Record<string, Schema>>
  readonly minProperties?: number
  readonly maxProperties?: number
  readonly allOf?: readonly Schema[]
  readonly anyOf?: readonly Schema[]
  readonly oneOf?: readonly Schema[]
  readonly not?: Schema
  readonly if?: Schema
  readonly then?: Schema
}

/** Keywords whose value is data (an assertion's argument), not a subschema. */
export const VALUE_KEYWORDS: readonly string[] = [
  'type',
  'enum',
  'const',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'required',
  'minProperties',
  'maxProperties',
]
/** Keywords whose value is one subschema, a list of them, or a map of them. */
export const SUBSCHEMA_KEYWORDS: readonly string[] = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'allOf',
  'anyOf',
  'oneOf',
  'properties',
  'patternProperties',
]
/** Every keyword the interpreter and the generated code implement. */
export const KNOWN_KEYWORDS: ReadonlySet<string> = /* @__PURE__ */ new Set(['$ref', ...VALUE_KEYWORDS, ...SUBSCHEMA_KEYWORDS])

/** Something that decides whether a string matches a pattern (a `RegExp`, or a matcher of `pattern-matchers.ts`). */
export interface PatternMatcher {
  test(text: string): boolean
  /** Whether the last `test` ran out of its budget: its `false` then means undecided, and the value fails with its own error. */
  readonly undecided?: boolean
}

/**
 * Patterns the compiler could not prove safe for one backtracking `RegExp`, by pattern text: the
 * generated module passes matchers for them (`patternMatchers`: split lookarounds, the linear-time
 * engine, the budgeted matcher), so data never freezes a validator. Every other pattern runs as a
 * native `RegExp`.
 */
export type PatternMatchers = Readonly<Record<string, PatternMatcher>>

interface Env {
  readonly definitions: Readonly<Record<string, Schema>>
  readonly matchers: PatternMatchers | undefined
  /** Nodes reached from more than one place (`assertKnown`): their checks are memoized. */
  readonly shared: ReadonlySet<Schema>
  /** What each reference function named (the data form's linked schemas): asked once per validator. */
  readonly links: Map<unknown, Schema>
}

/**
 * The schema a `$ref` names: a member of `definitions`, or, where the reference is a function (a
 * generated module's data form, `data-validator.ts`), what the function returns, asked once per
 * validator so that the node is one node however often it is named.
 */
function target(ref: unknown, env: Pick<Env, 'definitions' | 'links'>): Schema {
  if (typeof ref === 'function') {
    let linked = env.links.get(ref)
    if (linked === undefined) {
      const value: unknown = ref()
      if (typeof value !== 'boolean' && (typeof value !== 'object' || value === null))
        throw new Error('unplugin-contracts: a schema reference function returned no schema')
      env.links.set(ref, (linked = value as Schema))
    }
    return linked
  }
  if (typeof ref !== 'string' || !Object.hasOwn(env.definitions, ref)) throw new Error(`unplugin-contracts: schema reference ${String(ref)} is not defined`)
  return env.definitions[ref]!
}

/**
 * A validator for `schema`, whose `$ref`s name members of `definitions`. The schema is compiled on
 * the first call into a tree of closures, one per schema node, each holding only the checks its
 * keywords ask for (an interpreter probing every keyword of every node on every value was 15x
 * ajv's time, bench/validators.ts); nothing is evaluated as code. First call, not creation: a
 * module with a thousand topics creates a thousand validators when it is imported.
 */
export function schemaValidator(schema: Schema, definitions: Readonly<Record<string, Schema>> = {}, matchers?: PatternMatchers): Validator {
  const shared = new Set<Schema>()
  const links = new Map<unknown, Schema>()
  assertKnown(schema, { definitions, links }, new Set(), shared)
  const env: Env = { definitions, matchers, shared, links }
  let root: Check | undefined
  return compiledValidator((data, path, errors, depth) => (root ??= compile(schema, env, new Map()))(data, path, errors, depth))
}

/**
 * A schema this interpreter does not understand would be checked wrongly, silently: refuse it up
 * front. The same walk (each node once, each edge once) finds the nodes reached again: a `$ref`'s
 * target named twice, a cycle, an object shared in memory. Only through those can one node meet
 * one value twice (a tree of subschemas applies each node to each value once), so memoizing them
 * (`memoCheck`) bounds a validation by schema size x data size.
 */
function assertKnown(root: Schema, env: Pick<Env, 'definitions' | 'links'>, seen: Set<Schema>, shared: Set<Schema>): void {
  // A stack, not recursion: a chain of references is as long as a document makes it. The nodes are
  // taken in the order a recursive walk enters them (a `$ref`'s target, then the subschemas).
  const stack: Schema[] = [root]
  while (stack.length > 0) {
    const schema = stack.pop()!
    if (typeof schema === 'boolean') continue
    if (seen.has(schema)) {
      shared.add(schema)
      continue
    }
    seen.add(schema)
    for (const key of Object.keys(schema)) if (!KNOWN_KEYWORDS.has(key)) throw new Error(`unplugin-contracts: unsupported schema keyword ${key}`)
    const ref = schema.$ref !== undefined ? target(schema.$ref, env) : undefined
    const subs = subschemas(schema)
    for (let i = subs.length - 1; i >= 0; i--) stack.push(subs[i]!)
    if (ref !== undefined) stack.push(ref)
  }
}

/** A node's direct subschemas (not its `$ref`'s target). */
export function subschemas(schema: SchemaObject): Schema[] {
  const out: Schema[] = []
  if (schema.items !== undefined) out.push(schema.items)
  if (schema.additionalProperties !== undefined) out.push(schema.additionalProperties)
  if (schema.properties) for (const key of Object.keys(schema.properties)) out.push(schema.properties[key]!)
  if (schema.patternProperties) for (const key of Object.keys(schema.patternProperties)) out.push(schema.patternProperties[key]!)
  for (const list of [schema.allOf, schema.anyOf, schema.oneOf]) if (list) for (const sub of list) out.push(sub)
  for (const sub of [schema.not, schema.if, schema.then]) if (sub !== undefined) out.push(sub)
  return out
}

type Part<T> = (data: T, path: string, errors: SchemaError[], depth: number) => void

const PASS: Check = () => {}
const FALSE: Check = (_data, path, errors) => fail(errors, path, 'false schema', {}, MESSAGES['false schema'])

/**
 * Compiles a schema node (memoized per node, so a `$ref` cycle is compiled once: the cycle's first
 * node is entered through a forwarder until its closure exists; a node reached from more than one
 * place is always entered through `memoCheck`). The checks run in the order the
 * interpreter ran them, which is ajv's error order: `$ref`, `type`, the assertions of the value's
 * kind, `enum`, `const`, `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`.
 */
function compile(schema: Schema, env: Env, cache: Map<Schema, Check>): Check {
  if (schema === true) return PASS
  if (schema === false) return FALSE
  const known = cache.get(schema)
  if (known) return known
  const cycle: { built?: Check } = {}
  if (env.shared.has(schema)) {
    // Reached from more than one place: every call goes through the memo, keyed by the node's own check.
    const memoized: Check = (data, path, errors, depth) => memoCheck(cycle.built!, data, path, errors, depth)
    cache.set(schema, memoized)
    cycle.built = node(schema, env, cache)
    return memoized
  }
  cache.set(schema, (data, path, errors, depth) => cycle.built!(data, path, errors, depth))
  cycle.built = node(schema, env, cache)
  cache.set(schema, cycle.built)
  return cycle.built
}

function node(schema: SchemaObject, env: Env, cache: Map<Schema, Check>): Check {
  const sub = (s: Schema) => compile(s, env, cache)
  // A reference's target is compiled when it is first followed, not with this node: compiling them
  // all at once would recurse as deep as the longest chain of references, which no validation
  // follows past MAX_VALIDATION_DEPTH.
  const refTarget = schema.$ref !== undefined ? target(schema.$ref, env) : undefined
  let ref: Check | undefined
  const type = typeCheck(schema)
  const number = numberChecks(schema)
  const string = stringChecks(schema, env)
  const array = arrayChecks(schema, sub)
  const object = objectChecks(schema, env, sub)
  const rest = combinators(schema, sub)
  return (data, path, errors, depth) => {
    const next = depth + 1
    // The depth is checked where a reference is followed: between two, a schema's nesting is finite.
    if (refTarget !== undefined) {
      if (next >= MAX_VALIDATION_DEPTH) depthFail(errors, path)
      else (ref ??= sub(refTarget))(data, path, errors, next)
    }
    if (type !== undefined) type(data, path, errors)
    if (typeof data === 'number') {
      if (number !== undefined) number(data, path, errors)
    } else if (typeof data === 'string') {
      if (string !== undefined) string(data, path, errors)
    } else if (Array.isArray(data)) {
      if (array !== undefined) array(data, path, errors, next)
    } else if (data !== null && typeof data === 'object') {
      if (object !== undefined) object(data as Record<string, unknown>, path, errors, next)
    }
    if (rest !== undefined) rest(data, path, errors, next)
  }
}

function typeCheck(schema: SchemaObject): ((data: unknown, path: string, errors: SchemaError[]) => void) | undefined {
  if (schema.type === undefined) return undefined
  const types = typeof schema.type === 'string' ? [schema.type] : [...schema.type]
  const name = types.join(',')
  if (types.length === 1) {
    const type = types[0]!
    return (data, path, errors) => {
      if (!typeMatches(type, data)) typeFail(errors, path, name)
    }
  }
  return (data, path, errors) => {
    for (let i = 0; i < types.length; i++) if (typeMatches(types[i]!, data)) return
    typeFail(errors, path, name)
  }
}

/** One assertion of a node: a test of the value, and how it reports a value that fails it. */
type Assertion<T> = readonly [test: (data: T) => boolean, report: (errors: SchemaError[], path: string) => void]

/** Runs a node's assertions of one kind of value; undefined when it has none. */
function assertions<T>(list: ReadonlyArray<Assertion<T> | undefined>): ((data: T, path: string, errors: SchemaError[]) => void) | undefined {
  const present = list.filter((a) => a !== undefined)
  if (present.length === 0) return undefined
  return (data, path, errors) => {
    for (let i = 0; i < present.length; i++) if (!present[i]![0](data)) present[i]![1](errors, path)
  }
}

const bound = (keyword: keyof typeof BOUNDS_TESTS, limit: number | undefined): Assertion<number> | undefined =>
  limit === undefined ? undefined : [(data) => BOUNDS_TESTS[keyword](data, limit), (errors, path) => boundFail(errors, path, keyword, limit)]
const BOUNDS_TESTS = {
  maximum: (data: number, limit: number) => data <= limit,
  minimum: (data: number, limit: number) => data >= limit,
  exclusiveMaximum: (data: number, limit: number) => data < limit,
  exclusiveMinimum: (data: number, limit: number) => data > limit,
}
const size = <T>(keyword: SizeKeyword, limit: number | undefined, test: (data: T, limit: number) => boolean): Assertion<T> | undefined =>
  limit === undefined ? undefined : [(data) => test(data, limit), (errors, path) => sizeFail(errors, path, keyword, limit)]

function numberChecks(schema: SchemaObject): ((data: number, path: string, errors: SchemaError[]) => void) | undefined {
  const { multipleOf } = schema
  return assertions<number>([
    bound('maximum', schema.maximum),
    bound('minimum', schema.minimum),
    bound('exclusiveMaximum', schema.exclusiveMaximum),
    bound('exclusiveMinimum', schema.exclusiveMinimum),
    multipleOf === undefined ? undefined : [(data) => isMultipleOf(data, multipleOf), (errors, path) => multipleOfFail(errors, path, multipleOf)],
  ])
}

function stringChecks(schema: SchemaObject, env: Env): ((data: string, path: string, errors: SchemaError[]) => void) | undefined {
  const { pattern } = schema
  const matcher = pattern === undefined ? undefined : regex(pattern, env)
  return assertions<string>([
    // A string's UTF-16 length bounds its code points (at least half, at most all): counted only when that does not decide.
    size('maxLength', schema.maxLength, (data: string, limit) => data.length <= limit || codePoints(data) <= limit),
    size('minLength', schema.minLength, (data: string, limit) => data.length >= 2 * limit || codePoints(data) >= limit),
    matcher === undefined ? undefined : [(data) => matcher.test(data), (errors, path) => patternFail(errors, path, pattern!, matcher.undecided === true)],
  ])
}

function arrayChecks(schema: SchemaObject, sub: (s: Schema) => Check): Part<unknown[]> | undefined {
  const { maxItems, minItems } = schema
  const items = schema.items === undefined ? undefined : sub(schema.items)
  const unique = schema.uniqueItems === true ? itemTypes(schema) : undefined
  const sizes = assertions<unknown[]>([
    size('maxItems', maxItems, (data: unknown[], limit) => data.length <= limit),
    size('minItems', minItems, (data: unknown[], limit) => data.length >= limit),
  ])
  if (sizes === undefined && items === undefined && unique === undefined) return undefined
  return (data, path, errors, depth) => {
    if (sizes !== undefined) sizes(data, path, errors)
    if (items !== undefined) for (let i = 0; i < data.length; i++) items(data[i], `${path}/${i}`, errors, depth)
    if (unique !== undefined) uniqueItemsFail(data, path, errors, unique)
  }
}

/** The types `items` declares (what `uniqueItems` compares by, as ajv does). */
export function itemTypes(schema: SchemaObject): readonly string[] {
  const type = typeof schema.items === 'object' ? schema.items.type : undefined
  return type === undefined ? [] : typeof type === 'string' ? [type] : type
}

const NO_PROPERTIES: Readonly<Record<string, Schema>> = Object.freeze({})

function objectChecks(schema: SchemaObject, env: Env, sub: (s: Schema) => Check): Part<Record<string, unknown>> | undefined {
  const { maxProperties, minProperties, required } = schema
  const properties = schema.properties ?? NO_PROPERTIES
  const names = Object.keys(properties)
  // Per declared property, its pointer token is made once, here, not per value.
  const tokens = names.map((name) => `/${escapeToken(name)}`)
  const declared = new Set(names)
  const checks = names.map((name) => sub(properties[name]!))
  const patterned = schema.patternProperties
    ? Object.keys(schema.patternProperties).map((p) => [regex(p, env), sub(schema.patternProperties![p]!), p] as const)
    : []
  const extra = schema.additionalProperties
  const extraCheck = extra === undefined || extra === true || extra === false ? undefined : sub(extra)
  const closed = extra === false
  const sizes = assertions<string[]>([
    size('maxProperties', maxProperties, (keys: string[], limit) => keys.length <= limit),
    size('minProperties', minProperties, (keys: string[], limit) => keys.length >= limit),
  ])
  const needKeys = maxProperties !== undefined || minProperties !== undefined || extraCheck !== undefined || closed || patterned.length > 0
  if (!needKeys && required === undefined && names.length === 0) return undefined
  return (data, path, errors, depth) => {
    const keys = needKeys ? Object.keys(data) : undefined
    if (sizes !== undefined) sizes(keys!, path, errors)
    // Own members only: a payload is not judged by what every object inherits (`constructor`).
    if (required !== undefined) for (let i = 0; i < required.length; i++) if (!Object.hasOwn(data, required[i]!)) requiredFail(errors, path, required[i]!)
    if (closed || extraCheck !== undefined)
      for (let k = 0; k < keys!.length; k++) {
        const key = keys![k]!
        if (declared.has(key) || (patterned.length > 0 && patterned.some(([re]) => re.test(key)))) continue
        if (closed) additionalFail(errors, path, key)
        else extraCheck!(data[key], `${path}/${escapeToken(key)}`, errors, depth)
      }
    for (let i = 0; i < names.length; i++) {
      const value = data[names[i]!]
      // The value first: an absent member (the usual optional one) costs one read, no `hasOwn`.
      if (value !== undefined && Object.hasOwn(data, names[i]!)) checks[i]!(value, path + tokens[i], errors, depth)
    }
    for (const [re, check, pattern] of patterned)
      for (const key of keys!) {
        if (re.test(key)) check(data[key], `${path}/${escapeToken(key)}`, errors, depth)
        // A name the pattern could not be decided on is neither checked nor passed: it is refused, at the member.
        else if (re.undecided === true) patternFail(errors, `${path}/${escapeToken(key)}`, pattern, true)
      }
  }
}

/** enum, const, allOf, anyOf, oneOf, not, if/then: one closure, absent when the node has none of them. */
function combinators(schema: SchemaObject, sub: (s: Schema) => Check): Check | undefined {
  const { enum: values } = schema
  const hasConst = 'const' in schema
  const constant = schema.const
  const allOf = schema.allOf?.map(sub)
  const anyOf = schema.anyOf?.map(sub)
  const oneOf = schema.oneOf?.map(sub)
  const not = schema.not === undefined ? undefined : sub(schema.not)
  const condition = schema.if !== undefined && schema.then !== undefined ? [sub(schema.if), sub(schema.then)] : undefined
  if (values === undefined && !hasConst && !allOf && !anyOf && !oneOf && !not && !condition) return undefined
  return (data, path, errors, next) => {
    if (values !== undefined && !values.some((v) => equal(v, data))) fail(errors, path, 'enum', { allowedValues: values }, MESSAGES.enum)
    if (hasConst && !equal(constant, data)) fail(errors, path, 'const', { allowedValue: constant }, MESSAGES.const)
    if (allOf) for (const check of allOf) check(data, path, errors, next)
    if (anyOf) {
      const branch: SchemaError[] = []
      let passed = false
      for (const check of anyOf) {
        const before = branch.length
        check(data, path, branch, next)
        if (branch.length === before) {
          passed = true
          break
        }
      }
      if (!passed) {
        pushAll(errors, branch)
        fail(errors, path, 'anyOf', {}, MESSAGES.anyOf)
      }
    }
    if (oneOf) {
      const branch: SchemaError[] = []
      const passing: number[] = []
      for (let i = 0; i < oneOf.length && passing.length < 2; i++) {
        // A second passing branch settles it: like ajv, later branches are not looked at.
        const before = branch.length
        oneOf[i]!(data, path, branch, next)
        if (branch.length === before) passing.push(i)
      }
      if (passing.length !== 1) {
        pushAll(errors, branch)
        oneOfFail(errors, path, passing.length > 1 ? passing.slice(0, 2) : null)
      }
    }
    if (not !== undefined) {
      const inner: SchemaError[] = []
      not(data, path, inner, next)
      if (inner.length === 0) fail(errors, path, 'not', {}, MESSAGES.not)
    }
    if (condition !== undefined) {
      const inner: SchemaError[] = []
      condition[0]!(data, path, inner, next)
      if (inner.length === 0) {
        const before = errors.length
        condition[1]!(data, path, errors, next)
        if (errors.length > before) fail(errors, path, 'if', { failingKeyword: 'then' }, MESSAGES.if)
      }
    }
  }
}

/** Appends without spreading into a call: a branch may hold more errors than a call takes arguments. */
function pushAll(errors: SchemaError[], branch: readonly SchemaError[]): void {
  for (let i = 0; i < branch.length; i++) errors.push(branch[i]!)
}

const patterns = new Map<string, RegExp>()
/** Patterns compile once (Unicode mode, as ajv's `unicodeRegExp`); a RegExp is not code evaluation. */
function regex(pattern: string, env: Env): PatternMatcher {
  if (env.matchers !== undefined && Object.hasOwn(env.matchers, pattern)) return env.matchers[pattern]!
  let re = patterns.get(pattern)
  if (!re) patterns.set(pattern, (re = new RegExp(pattern, 'u')))
  return re
}
