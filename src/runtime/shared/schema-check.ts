import { escapeToken } from './json-pointer.js'
import type { Validator } from './validation.js'

/**
 * Payload validators for Benzene contracts: the JSON Schema (draft-07) the compiler derives from a
 * contract's OpenAPI 3.0 schemas, checked by this small interpreter. The compiler emits schemas as
 * data, so a build pays nothing per schema (bench/: 2,000 payload schemas compiled by ajv took
 * seconds), a bundler drops the schemas no import reaches, and nothing here evaluates code
 * (strict CSP). Errors have ajv's shape and meaning: `test/schema-check.test.ts` holds this
 * interpreter to ajv (`allErrors`, `ownProperties`) on generated schemas and data.
 *
 * The keywords are the closed set `src/formats/benzene/json-schema.ts` produces: type, enum, const,
 * the numeric, string, array and object assertions, properties/patternProperties/required/additionalProperties,
 * items, allOf/anyOf/oneOf/not, if/then, and `$ref` to a definition passed in `definitions`.
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

export interface SchemaError {
  instancePath: string
  keyword: string
  params: Record<string, unknown>
  message: string
}

/** Keywords whose value is data (an assertion's argument), not a subschema. */
export const VALUE_KEYWORDS: readonly string[] = (
  'type enum const minimum maximum exclusiveMinimum exclusiveMaximum multipleOf minLength maxLength pattern ' +
  'minItems maxItems uniqueItems required minProperties maxProperties'
).split(' ')
/** Keywords whose value is one subschema, a list of them, or a map of them. */
export const SUBSCHEMA_KEYWORDS: readonly string[] = 'items additionalProperties not if then allOf anyOf oneOf properties patternProperties'.split(' ')
const KNOWN = new Set(['$ref', ...VALUE_KEYWORDS, ...SUBSCHEMA_KEYWORDS])

/** Something that decides whether a string matches a pattern (a `RegExp`, or a linear-time matcher). */
export interface PatternMatcher {
  test(text: string): boolean
}

/**
 * Patterns the compiler could not prove safe for the backtracking `RegExp` engine, by pattern text:
 * the generated module passes linear-time matchers for them (`runtime/linear-pattern`), so data
 * never freezes a validator. Every other pattern runs as a native `RegExp`.
 */
export type PatternMatchers = Readonly<Record<string, PatternMatcher>>

/**
 * How deep a validation may go, counting data levels and schema steps (`$ref`, `allOf`, ...)
 * together: past it the data is reported (`keyword: "depth"`) instead of overflowing the stack
 * on a hostile payload, or looping on a schema that refers to itself without consuming data.
 */
export const MAX_VALIDATION_DEPTH = 256

interface Env {
  readonly definitions: Readonly<Record<string, Schema>>
  readonly matchers: PatternMatchers | undefined
}

/**
 * A validator for `schema`, whose `$ref`s name members of `definitions`. The schema is compiled on
 * the first call into a tree of closures, one per schema node, each holding only the checks its
 * keywords ask for (an interpreter probing every keyword of every node on every value was 15x
 * ajv's time, bench/validators.ts); nothing is evaluated as code. First call, not creation: a
 * module with a thousand topics creates a thousand validators when it is imported.
 */
export function schemaValidator(schema: Schema, definitions: Readonly<Record<string, Schema>> = {}, matchers?: PatternMatchers): Validator {
  assertKnown(schema, definitions, new Set())
  const env: Env = { definitions, matchers }
  let root: Check | undefined
  const validate = ((data: unknown) => {
    root ??= compile(schema, env, new Map())
    const errors: SchemaError[] = []
    root(data, '', errors, 0)
    validate.errors = errors.length > 0 ? errors : null
    return errors.length === 0
  }) as Validator & { errors: SchemaError[] | null }
  validate.errors = null
  return validate
}

/** A schema this interpreter does not understand would be checked wrongly, silently: refuse it up front. */
function assertKnown(schema: Schema, definitions: Readonly<Record<string, Schema>>, seen: Set<Schema>): void {
  if (typeof schema === 'boolean' || seen.has(schema)) return
  seen.add(schema)
  for (const key of Object.keys(schema)) if (!KNOWN.has(key)) throw new Error(`unplugin-contracts: unsupported schema keyword ${key}`)
  if (schema.$ref !== undefined) {
    if (!Object.hasOwn(definitions, schema.$ref)) throw new Error(`unplugin-contracts: schema reference ${schema.$ref} is not defined`)
    assertKnown(definitions[schema.$ref]!, definitions, seen)
  }
  for (const sub of subschemas(schema)) assertKnown(sub, definitions, seen)
}

function subschemas(schema: SchemaObject): Schema[] {
  const out: Schema[] = []
  if (schema.items !== undefined) out.push(schema.items)
  if (schema.additionalProperties !== undefined) out.push(schema.additionalProperties)
  if (schema.properties) for (const key of Object.keys(schema.properties)) out.push(schema.properties[key]!)
  if (schema.patternProperties) for (const key of Object.keys(schema.patternProperties)) out.push(schema.patternProperties[key]!)
  for (const list of [schema.allOf, schema.anyOf, schema.oneOf]) if (list) for (const sub of list) out.push(sub)
  for (const sub of [schema.not, schema.if, schema.then]) if (sub !== undefined) out.push(sub)
  return out
}

function fail(errors: SchemaError[], instancePath: string, keyword: string, params: Record<string, unknown>, message: string): void {
  errors.push({ instancePath, keyword, params, message })
}

function typeOf(data: unknown): string {
  if (data === null) return 'null'
  if (Array.isArray(data)) return 'array'
  return typeof data
}

/** One compiled schema node: checks `data` at `path`, appending errors; `depth` as in MAX_VALIDATION_DEPTH. */
type Check = (data: unknown, path: string, errors: SchemaError[], depth: number) => void
type Part<T> = (data: T, path: string, errors: SchemaError[], depth: number) => void

const PASS: Check = () => {}
const FALSE: Check = (_data, path, errors) => fail(errors, path, 'false schema', {}, 'boolean schema is false')

/**
 * Compiles a schema node (memoized per node, so a `$ref` cycle is compiled once: the cycle's first
 * node is entered through a forwarder until its closure exists). The checks run in the order the
 * interpreter ran them, which is ajv's error order: `$ref`, `type`, the assertions of the value's
 * kind, `enum`, `const`, `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`.
 */
function compile(schema: Schema, env: Env, cache: Map<Schema, Check>): Check {
  if (schema === true) return PASS
  if (schema === false) return FALSE
  const known = cache.get(schema)
  if (known) return known
  const cycle: { built?: Check } = {}
  cache.set(schema, (data, path, errors, depth) => cycle.built!(data, path, errors, depth))
  cycle.built = node(schema, env, cache)
  cache.set(schema, cycle.built)
  return cycle.built
}

function node(schema: SchemaObject, env: Env, cache: Map<Schema, Check>): Check {
  const sub = (s: Schema) => compile(s, env, cache)
  const ref = schema.$ref !== undefined ? sub(env.definitions[schema.$ref]!) : undefined
  const type = typeCheck(schema)
  const number = numberChecks(schema)
  const string = stringChecks(schema, env)
  const array = arrayChecks(schema, sub)
  const object = objectChecks(schema, env, sub)
  const rest = combinators(schema, sub)
  return (data, path, errors, depth) => {
    if (depth >= MAX_VALIDATION_DEPTH)
      return fail(errors, path, 'depth', { limit: MAX_VALIDATION_DEPTH }, `is nested too deeply to validate (more than ${MAX_VALIDATION_DEPTH} levels)`)
    const next = depth + 1
    if (ref !== undefined) ref(data, path, errors, next)
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

const TYPE_TESTS: Readonly<Record<string, (data: unknown) => boolean>> = {
  integer: (data) => typeof data === 'number' && Number.isFinite(data) && data % 1 === 0,
  number: (data) => typeof data === 'number' && Number.isFinite(data),
  string: (data) => typeof data === 'string',
  boolean: (data) => typeof data === 'boolean',
  null: (data) => data === null,
  array: (data) => Array.isArray(data),
  object: (data) => typeof data === 'object' && data !== null && !Array.isArray(data),
}

const typeTest = (type: string): ((data: unknown) => boolean) => TYPE_TESTS[type] ?? ((data) => typeOf(data) === type)

function typeCheck(schema: SchemaObject): ((data: unknown, path: string, errors: SchemaError[]) => void) | undefined {
  if (schema.type === undefined) return undefined
  const types = typeof schema.type === 'string' ? [schema.type] : [...schema.type]
  const name = types.join(',')
  const tests = types.map(typeTest)
  const message = `must be ${name}`
  if (tests.length === 1) {
    const test = tests[0]!
    return (data, path, errors) => {
      if (!test(data)) fail(errors, path, 'type', { type: name }, message)
    }
  }
  return (data, path, errors) => {
    for (let i = 0; i < tests.length; i++) if (tests[i]!(data)) return
    fail(errors, path, 'type', { type: name }, message)
  }
}

function numberChecks(schema: SchemaObject): ((data: number, path: string, errors: SchemaError[]) => void) | undefined {
  const { maximum, minimum, exclusiveMaximum, exclusiveMinimum, multipleOf } = schema
  if (maximum === undefined && minimum === undefined && exclusiveMaximum === undefined && exclusiveMinimum === undefined && multipleOf === undefined)
    return undefined
  return (data, path, errors) => {
    if (maximum !== undefined && !(data <= maximum)) fail(errors, path, 'maximum', { comparison: '<=', limit: maximum }, `must be <= ${maximum}`)
    if (minimum !== undefined && !(data >= minimum)) fail(errors, path, 'minimum', { comparison: '>=', limit: minimum }, `must be >= ${minimum}`)
    if (exclusiveMaximum !== undefined && !(data < exclusiveMaximum))
      fail(errors, path, 'exclusiveMaximum', { comparison: '<', limit: exclusiveMaximum }, `must be < ${exclusiveMaximum}`)
    if (exclusiveMinimum !== undefined && !(data > exclusiveMinimum))
      fail(errors, path, 'exclusiveMinimum', { comparison: '>', limit: exclusiveMinimum }, `must be > ${exclusiveMinimum}`)
    if (multipleOf !== undefined && !isMultipleOf(data, multipleOf)) fail(errors, path, 'multipleOf', { multipleOf }, `must be multiple of ${multipleOf}`)
  }
}

function stringChecks(schema: SchemaObject, env: Env): ((data: string, path: string, errors: SchemaError[]) => void) | undefined {
  const { maxLength, minLength, pattern } = schema
  if (maxLength === undefined && minLength === undefined && pattern === undefined) return undefined
  const matcher = pattern === undefined ? undefined : regex(pattern, env)
  return (data, path, errors) => {
    if (maxLength !== undefined || minLength !== undefined) {
      const length = codePoints(data)
      if (maxLength !== undefined && length > maxLength)
        fail(errors, path, 'maxLength', { limit: maxLength }, `must NOT have more than ${maxLength} characters`)
      if (minLength !== undefined && length < minLength)
        fail(errors, path, 'minLength', { limit: minLength }, `must NOT have fewer than ${minLength} characters`)
    }
    if (matcher !== undefined && !matcher.test(data)) fail(errors, path, 'pattern', { pattern }, `must match pattern "${pattern}"`)
  }
}

function arrayChecks(schema: SchemaObject, sub: (s: Schema) => Check): Part<unknown[]> | undefined {
  const { maxItems, minItems } = schema
  const items = schema.items === undefined ? undefined : sub(schema.items)
  const unique = schema.uniqueItems === true ? uniqueCheck(schema) : undefined
  if (maxItems === undefined && minItems === undefined && items === undefined && unique === undefined) return undefined
  return (data, path, errors, depth) => {
    if (maxItems !== undefined && data.length > maxItems) fail(errors, path, 'maxItems', { limit: maxItems }, `must NOT have more than ${maxItems} items`)
    if (minItems !== undefined && data.length < minItems) fail(errors, path, 'minItems', { limit: minItems }, `must NOT have fewer than ${minItems} items`)
    if (items !== undefined) for (let i = 0; i < data.length; i++) items(data[i], `${path}/${i}`, errors, depth)
    if (unique !== undefined && data.length > 1) unique(data, path, errors)
  }
}

function uniqueCheck(schema: SchemaObject): (data: unknown[], path: string, errors: SchemaError[]) => void {
  // One error, for the pair ajv reports: when the items' types are all scalars it compares only
  // items of those types, by value as an object key; otherwise every pair, by deep equality.
  const itemTypes =
    typeof schema.items === 'object' && schema.items.type !== undefined ? (typeof schema.items.type === 'string' ? [schema.items.type] : schema.items.type) : []
  const itemTests = itemTypes.map(typeTest)
  if (itemTypes.length > 0 && !itemTypes.some((t) => t === 'object' || t === 'array'))
    return (data, path, errors) => {
      const indices = new Map<string, number>()
      for (let i = data.length - 1; i >= 0; i--) {
        const item = data[i]
        if (!itemTests.some((test) => test(item))) continue
        const key = typeof item === 'string' && itemTypes.length > 1 ? `${item}_` : String(item)
        const j = indices.get(key)
        if (j !== undefined) {
          fail(errors, path, 'uniqueItems', { i, j }, `must NOT have duplicate items (items ## ${j} and ${i} are identical)`)
          break
        }
        indices.set(key, i)
      }
    }
  // The pair ajv's pairwise loop reports (the last item equal to an earlier one, and the last
  // such earlier one), found in one pass over canonical keys: O(total size), where comparing
  // pairs took seconds on 20,000 objects.
  return (data, path, errors) => {
    const last = new Map<string, number>()
    let pair: { i: number; j: number } | undefined
    for (let i = 0; i < data.length; i++) {
      const key = canonicalKey(data[i])
      const j = last.get(key)
      if (j !== undefined) pair = { i, j }
      last.set(key, i)
    }
    if (pair) fail(errors, path, 'uniqueItems', pair, `must NOT have duplicate items (items ## ${pair.j} and ${pair.i} are identical)`)
  }
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
    ? Object.keys(schema.patternProperties).map((p) => [regex(p, env), sub(schema.patternProperties![p]!)] as const)
    : []
  const extra = schema.additionalProperties
  const extraCheck = extra === undefined || extra === true || extra === false ? undefined : sub(extra)
  const closed = extra === false
  const needKeys = maxProperties !== undefined || minProperties !== undefined || extraCheck !== undefined || closed || patterned.length > 0
  if (!needKeys && required === undefined && names.length === 0) return undefined
  return (data, path, errors, depth) => {
    const keys = needKeys ? Object.keys(data) : undefined
    if (maxProperties !== undefined && keys!.length > maxProperties)
      fail(errors, path, 'maxProperties', { limit: maxProperties }, `must NOT have more than ${maxProperties} properties`)
    if (minProperties !== undefined && keys!.length < minProperties)
      fail(errors, path, 'minProperties', { limit: minProperties }, `must NOT have fewer than ${minProperties} properties`)
    // Own members only: a payload is not judged by what every object inherits (`constructor`).
    if (required !== undefined)
      for (let i = 0; i < required.length; i++)
        if (!Object.hasOwn(data, required[i]!)) fail(errors, path, 'required', { missingProperty: required[i] }, `must have required property '${required[i]}'`)
    if (closed || extraCheck !== undefined)
      for (let k = 0; k < keys!.length; k++) {
        const key = keys![k]!
        if (declared.has(key) || (patterned.length > 0 && patterned.some(([re]) => re.test(key)))) continue
        if (closed) fail(errors, path, 'additionalProperties', { additionalProperty: key }, 'must NOT have additional properties')
        else extraCheck!(data[key], `${path}/${escapeToken(key)}`, errors, depth)
      }
    for (let i = 0; i < names.length; i++) {
      const value = data[names[i]!]
      // The value first: an absent member (the usual optional one) costs one read, no `hasOwn`.
      if (value !== undefined && Object.hasOwn(data, names[i]!)) checks[i]!(value, path + tokens[i], errors, depth)
    }
    for (const [re, check] of patterned) for (const key of keys!) if (re.test(key)) check(data[key], `${path}/${escapeToken(key)}`, errors, depth)
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
    if (values !== undefined && !values.some((v) => equal(v, data)))
      fail(errors, path, 'enum', { allowedValues: values }, 'must be equal to one of the allowed values')
    if (hasConst && !equal(constant, data)) fail(errors, path, 'const', { allowedValue: constant }, 'must be equal to constant')
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
      if (!passed) pushAll(errors, branch, { instancePath: path, keyword: 'anyOf', params: {}, message: 'must match a schema in anyOf' })
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
      if (passing.length !== 1)
        pushAll(errors, branch, {
          instancePath: path,
          keyword: 'oneOf',
          params: { passingSchemas: passing.length > 1 ? passing.slice(0, 2) : null },
          message: 'must match exactly one schema in oneOf',
        })
    }
    if (not !== undefined) {
      const inner: SchemaError[] = []
      not(data, path, inner, next)
      if (inner.length === 0) fail(errors, path, 'not', {}, 'must NOT be valid')
    }
    if (condition !== undefined) {
      const inner: SchemaError[] = []
      condition[0]!(data, path, inner, next)
      if (inner.length === 0) {
        const before = errors.length
        condition[1]!(data, path, errors, next)
        if (errors.length > before) fail(errors, path, 'if', { failingKeyword: 'then' }, 'must match "then" schema')
      }
    }
  }
}

/** Appends without spreading into a call: a branch may hold more errors than a call takes arguments. */
function pushAll(errors: SchemaError[], branch: readonly SchemaError[], last: SchemaError): void {
  for (let i = 0; i < branch.length; i++) errors.push(branch[i]!)
  errors.push(last)
}

/**
 * Whether `data` is an integer multiple of `divisor`, decided on the decimal numbers the JSON text
 * wrote (a number's shortest round-trip form), not on a float quotient: `19.99 / 0.01` is
 * 1998.9999999999998 in binary floating point, yet 19.99 is a multiple of 0.01 as the document
 * means it. Exact with BigInt; exponents of finite doubles are within ±400, so the scaled integers
 * stay under ~1,400 digits: O(digits²) at worst, a few microseconds.
 */
export function isMultipleOf(data: number, divisor: number): boolean {
  if (!Number.isFinite(data) || !Number.isFinite(divisor) || divisor <= 0) return false
  if (Number.isInteger(data) && Number.isInteger(divisor) && Number.isSafeInteger(data) && Number.isSafeInteger(divisor)) return data % divisor === 0
  const [a, ea] = decimal(data)
  const [b, eb] = decimal(divisor)
  const e = Math.min(ea, eb)
  // data = a·10^ea, divisor = b·10^eb; scale both to 10^e and compare as integers.
  return (a * 10n ** BigInt(ea - e)) % (b * 10n ** BigInt(eb - e)) === 0n
}

/** A finite number as `[digits, exponent]` with value digits·10^exponent, read from its shortest decimal form. */
function decimal(value: number): [bigint, number] {
  const [mantissa = '0', exponent = '0'] = Math.abs(value).toString().split('e')
  const [whole = '0', fraction = ''] = mantissa.split('.')
  return [BigInt(whole + fraction), Number(exponent) - fraction.length]
}

const patterns = new Map<string, RegExp>()
/** Patterns compile once (Unicode mode, as ajv's `unicodeRegExp`); a RegExp is not code evaluation. */
function regex(pattern: string, env: Env): PatternMatcher {
  if (env.matchers !== undefined && Object.hasOwn(env.matchers, pattern)) return env.matchers[pattern]!
  let re = patterns.get(pattern)
  if (!re) patterns.set(pattern, (re = new RegExp(pattern, 'u')))
  return re
}

/** Length in Unicode code points, as JSON Schema counts `minLength`/`maxLength`. */
export function codePoints(text: string): number {
  let length = 0
  for (let i = 0; i < text.length; i++, length++) {
    const code = text.charCodeAt(i)
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) i++
    }
  }
  return length
}

/** Deep equality of JSON values, as JSON Schema compares `enum`, `const` and `uniqueItems`. */
export function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a !== a && b !== b
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((v, i) => equal(v, (b as unknown[])[i]))
  const ka = Object.keys(a)
  if (ka.length !== Object.keys(b).length) return false
  return ka.every((k) => Object.hasOwn(b, k) && equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
}

/** Punctuation pushed between values while `canonicalKey` walks; never confused with data. */
class Raw {
  constructor(readonly text: string) {}
}
const CLOSE_ARRAY = new Raw(']')
const CLOSE_OBJECT = new Raw('}')

/**
 * A string that two JSON values share exactly when they are deeply equal (object keys sorted;
 * numbers by value, so `0` and `-0` are one key, as `equal` has it). Iterative: any depth.
 */
export function canonicalKey(value: unknown): string {
  let out = ''
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (v instanceof Raw) out += v.text
    else if (typeof v === 'string') out += JSON.stringify(v)
    else if (typeof v === 'number') out += v === 0 ? '0' : String(v)
    else if (v === null || typeof v !== 'object') out += String(v)
    else if (Array.isArray(v)) {
      stack.push(CLOSE_ARRAY)
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i], new Raw(i === 0 ? '[' : ','))
      if (v.length === 0) out += '['
    } else {
      const keys = Object.keys(v).sort()
      stack.push(CLOSE_OBJECT)
      for (let i = keys.length - 1; i >= 0; i--)
        stack.push((v as Record<string, unknown>)[keys[i]!], new Raw((i === 0 ? '{' : ',') + JSON.stringify(keys[i]) + ':'))
      if (keys.length === 0) out += '{'
    }
  }
  return out
}
