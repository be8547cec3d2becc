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

/** A validator for `schema`, whose `$ref`s name members of `definitions`. */
export function schemaValidator(schema: Schema, definitions: Readonly<Record<string, Schema>> = {}, matchers?: PatternMatchers): Validator {
  assertKnown(schema, definitions, new Set())
  const env: Env = { definitions, matchers }
  const validate = ((data: unknown) => {
    const errors: SchemaError[] = []
    check(schema, data, '', errors, env, 0)
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

const pointerToken = (key: string | number) => (typeof key === 'number' ? String(key) : escapeToken(key))

function typeOf(data: unknown): string {
  if (data === null) return 'null'
  if (Array.isArray(data)) return 'array'
  return typeof data
}

function hasType(data: unknown, type: string): boolean {
  switch (type) {
    case 'integer':
      return typeof data === 'number' && Number.isFinite(data) && data % 1 === 0
    case 'number':
      return typeof data === 'number' && Number.isFinite(data)
    case 'object':
      return typeOf(data) === 'object'
    default:
      return typeOf(data) === type
  }
}

function check(schema: Schema, data: unknown, path: string, errors: SchemaError[], env: Env, depth: number): void {
  if (schema === true) return
  if (schema === false) return fail(errors, path, 'false schema', {}, 'boolean schema is false')
  if (depth >= MAX_VALIDATION_DEPTH)
    return fail(errors, path, 'depth', { limit: MAX_VALIDATION_DEPTH }, `is nested too deeply to validate (more than ${MAX_VALIDATION_DEPTH} levels)`)
  const next = depth + 1
  if (schema.$ref !== undefined) check(env.definitions[schema.$ref]!, data, path, errors, env, next)
  if (schema.type !== undefined) {
    // One type (the usual case) without an array and a closure per check (bench/: the NATS client validates every message).
    const single = typeof schema.type === 'string'
    if (single ? !hasType(data, schema.type as string) : !(schema.type as string[]).some((t) => hasType(data, t))) {
      const types = single ? (schema.type as string) : (schema.type as string[]).join(',')
      fail(errors, path, 'type', { type: types }, `must be ${types}`)
    }
  }
  if (typeof data === 'number') checkNumber(schema, data, path, errors)
  else if (typeof data === 'string') checkString(schema, data, path, errors, env)
  else if (Array.isArray(data)) checkArray(schema, data, path, errors, env, next)
  else if (data !== null && typeof data === 'object') checkObject(schema, data as Record<string, unknown>, path, errors, env, next)
  if (schema.enum !== undefined && !schema.enum.some((v) => equal(v, data)))
    fail(errors, path, 'enum', { allowedValues: schema.enum }, 'must be equal to one of the allowed values')
  if ('const' in schema && !equal(schema.const, data)) fail(errors, path, 'const', { allowedValue: schema.const }, 'must be equal to constant')
  if (schema.allOf) for (const sub of schema.allOf) check(sub, data, path, errors, env, next)
  if (schema.anyOf) {
    const branch: SchemaError[] = []
    let passed = false
    for (const sub of schema.anyOf) {
      const before = branch.length
      check(sub, data, path, branch, env, next)
      if (branch.length === before) {
        passed = true
        break
      }
    }
    if (!passed) pushAll(errors, branch, { instancePath: path, keyword: 'anyOf', params: {}, message: 'must match a schema in anyOf' })
  }
  if (schema.oneOf) {
    const branch: SchemaError[] = []
    const passing: number[] = []
    for (let i = 0; i < schema.oneOf.length && passing.length < 2; i++) {
      // A second passing branch settles it: like ajv, later branches are not looked at.
      const before = branch.length
      check(schema.oneOf[i]!, data, path, branch, env, next)
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
  if (schema.not !== undefined) {
    const inner: SchemaError[] = []
    check(schema.not, data, path, inner, env, next)
    if (inner.length === 0) fail(errors, path, 'not', {}, 'must NOT be valid')
  }
  if (schema.if !== undefined && schema.then !== undefined) {
    const condition: SchemaError[] = []
    check(schema.if, data, path, condition, env, next)
    if (condition.length === 0) {
      const before = errors.length
      check(schema.then, data, path, errors, env, next)
      if (errors.length > before) fail(errors, path, 'if', { failingKeyword: 'then' }, 'must match "then" schema')
    }
  }
}

/** Appends without spreading into a call: a branch may hold more errors than a call takes arguments. */
function pushAll(errors: SchemaError[], branch: readonly SchemaError[], last: SchemaError): void {
  for (let i = 0; i < branch.length; i++) errors.push(branch[i]!)
  errors.push(last)
}

function checkNumber(schema: SchemaObject, data: number, path: string, errors: SchemaError[]): void {
  if (schema.maximum !== undefined && !(data <= schema.maximum))
    fail(errors, path, 'maximum', { comparison: '<=', limit: schema.maximum }, `must be <= ${schema.maximum}`)
  if (schema.minimum !== undefined && !(data >= schema.minimum))
    fail(errors, path, 'minimum', { comparison: '>=', limit: schema.minimum }, `must be >= ${schema.minimum}`)
  if (schema.exclusiveMaximum !== undefined && !(data < schema.exclusiveMaximum))
    fail(errors, path, 'exclusiveMaximum', { comparison: '<', limit: schema.exclusiveMaximum }, `must be < ${schema.exclusiveMaximum}`)
  if (schema.exclusiveMinimum !== undefined && !(data > schema.exclusiveMinimum))
    fail(errors, path, 'exclusiveMinimum', { comparison: '>', limit: schema.exclusiveMinimum }, `must be > ${schema.exclusiveMinimum}`)
  if (schema.multipleOf !== undefined && !isMultipleOf(data, schema.multipleOf))
    fail(errors, path, 'multipleOf', { multipleOf: schema.multipleOf }, `must be multiple of ${schema.multipleOf}`)
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

function checkString(schema: SchemaObject, data: string, path: string, errors: SchemaError[], env: Env): void {
  if (schema.maxLength !== undefined || schema.minLength !== undefined) {
    const length = codePoints(data)
    if (schema.maxLength !== undefined && length > schema.maxLength)
      fail(errors, path, 'maxLength', { limit: schema.maxLength }, `must NOT have more than ${schema.maxLength} characters`)
    if (schema.minLength !== undefined && length < schema.minLength)
      fail(errors, path, 'minLength', { limit: schema.minLength }, `must NOT have fewer than ${schema.minLength} characters`)
  }
  if (schema.pattern !== undefined) {
    if (!regex(schema.pattern, env).test(data)) fail(errors, path, 'pattern', { pattern: schema.pattern }, `must match pattern "${schema.pattern}"`)
  }
}

function checkArray(schema: SchemaObject, data: unknown[], path: string, errors: SchemaError[], env: Env, depth: number): void {
  if (schema.maxItems !== undefined && data.length > schema.maxItems)
    fail(errors, path, 'maxItems', { limit: schema.maxItems }, `must NOT have more than ${schema.maxItems} items`)
  if (schema.minItems !== undefined && data.length < schema.minItems)
    fail(errors, path, 'minItems', { limit: schema.minItems }, `must NOT have fewer than ${schema.minItems} items`)
  if (schema.items !== undefined) for (let i = 0; i < data.length; i++) check(schema.items, data[i], `${path}/${i}`, errors, env, depth)
  if (schema.uniqueItems === true && data.length > 1) {
    // One error, for the pair ajv reports: when the items' types are all scalars it compares only
    // items of those types, by value as an object key; otherwise every pair, by deep equality.
    const itemTypes =
      typeof schema.items === 'object' && schema.items.type !== undefined
        ? typeof schema.items.type === 'string'
          ? [schema.items.type]
          : schema.items.type
        : []
    if (itemTypes.length > 0 && !itemTypes.some((t) => t === 'object' || t === 'array')) {
      const indices = new Map<string, number>()
      for (let i = data.length - 1; i >= 0; i--) {
        const item = data[i]
        if (!itemTypes.some((t) => hasType(item, t))) continue
        const key = typeof item === 'string' && itemTypes.length > 1 ? `${item}_` : String(item)
        const j = indices.get(key)
        if (j !== undefined) {
          fail(errors, path, 'uniqueItems', { i, j }, `must NOT have duplicate items (items ## ${j} and ${i} are identical)`)
          break
        }
        indices.set(key, i)
      }
    } else {
      // The pair ajv's pairwise loop reports (the last item equal to an earlier one, and the last
      // such earlier one), found in one pass over canonical keys: O(total size), where comparing
      // pairs took seconds on 20,000 objects.
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
}

const NO_PROPERTIES: Readonly<Record<string, Schema>> = Object.freeze({})
const NO_PATTERNS: ReadonlyArray<readonly [PatternMatcher, Schema]> = []

function checkObject(schema: SchemaObject, data: Record<string, unknown>, path: string, errors: SchemaError[], env: Env, depth: number): void {
  const keys = Object.keys(data)
  if (schema.maxProperties !== undefined && keys.length > schema.maxProperties)
    fail(errors, path, 'maxProperties', { limit: schema.maxProperties }, `must NOT have more than ${schema.maxProperties} properties`)
  if (schema.minProperties !== undefined && keys.length < schema.minProperties)
    fail(errors, path, 'minProperties', { limit: schema.minProperties }, `must NOT have fewer than ${schema.minProperties} properties`)
  if (schema.required) {
    // Own members only: a payload is not judged by what every object inherits (`constructor`).
    for (const name of schema.required)
      if (!Object.hasOwn(data, name)) fail(errors, path, 'required', { missingProperty: name }, `must have required property '${name}'`)
  }
  const properties = schema.properties ?? NO_PROPERTIES
  const patterned = schema.patternProperties
    ? Object.keys(schema.patternProperties).map((p) => [regex(p, env), schema.patternProperties![p]!] as const)
    : NO_PATTERNS
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== true) {
    for (const key of keys) {
      if (Object.hasOwn(properties, key) || patterned.some(([re]) => re.test(key))) continue
      if (schema.additionalProperties === false) fail(errors, path, 'additionalProperties', { additionalProperty: key }, 'must NOT have additional properties')
      else check(schema.additionalProperties, data[key], `${path}/${pointerToken(key)}`, errors, env, depth)
    }
  }
  for (const key of Object.keys(properties)) {
    if (Object.hasOwn(data, key) && data[key] !== undefined) check(properties[key]!, data[key], `${path}/${pointerToken(key)}`, errors, env, depth)
  }
  for (const [re, sub] of patterned) for (const key of keys) if (re.test(key)) check(sub, data[key], `${path}/${pointerToken(key)}`, errors, env, depth)
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
