import { canonicalKey, typeOf } from './schema-values.js'
import type { Validator } from './validation.js'

/**
 * The errors of payload validation, one definition per keyword: its `params` and message, in ajv's
 * shape and words (`test/schema-check.test.ts` holds both validators to ajv). The schema
 * interpreter (`schema-check.ts`) and the code the compiler generates (`src/core/schema-code.ts`)
 * both take them from here, and the generated code calls the helpers below.
 */
export interface SchemaError {
  instancePath: string
  keyword: string
  params: Record<string, unknown>
  message: string
}

/**
 * How deep a validation may go, counting data levels and schema steps (`$ref`, `allOf`, ...)
 * together: past it the data is reported (`keyword: "depth"`) instead of overflowing the stack
 * on a hostile payload, or looping on a schema that refers to itself without consuming data.
 */
export const MAX_VALIDATION_DEPTH = 256

type Limit = (limit: number) => readonly [Record<string, unknown>, string]
const bound =
  (comparison: string): Limit =>
  (limit) => [{ comparison, limit }, `must be ${comparison} ${limit}`]
const most =
  (what: string): Limit =>
  (limit) => [{ limit }, `must NOT have more than ${limit} ${what}`]
const fewest =
  (what: string): Limit =>
  (limit) => [{ limit }, `must NOT have fewer than ${limit} ${what}`]

/** Keywords whose error depends only on the schema's value for them: `[params, message]`. */
export const ASSERTION_ERRORS = {
  maximum: bound('<='),
  minimum: bound('>='),
  exclusiveMaximum: bound('<'),
  exclusiveMinimum: bound('>'),
  multipleOf: (multipleOf: number) => [{ multipleOf }, `must be multiple of ${multipleOf}`] as const,
  maxLength: most('characters'),
  minLength: fewest('characters'),
  maxItems: most('items'),
  minItems: fewest('items'),
  maxProperties: most('properties'),
  minProperties: fewest('properties'),
  pattern: (pattern: string) => [{ pattern }, `must match pattern "${pattern}"`] as const,
  type: (type: string) => [{ type }, `must be ${type}`] as const,
  required: (missingProperty: string) => [{ missingProperty }, `must have required property '${missingProperty}'`] as const,
} satisfies Record<string, (value: never) => readonly [Record<string, unknown>, string]>

/** Messages of the keywords whose params are made while validating (or are empty). */
export const MESSAGES = {
  additionalProperties: 'must NOT have additional properties',
  enum: 'must be equal to one of the allowed values',
  const: 'must be equal to constant',
  anyOf: 'must match a schema in anyOf',
  oneOf: 'must match exactly one schema in oneOf',
  not: 'must NOT be valid',
  if: 'must match "then" schema',
  'false schema': 'boolean schema is false',
  depth: `is nested too deeply to validate (more than ${MAX_VALIDATION_DEPTH} levels)`,
} as const

export function schemaFail(errors: SchemaError[], instancePath: string, keyword: string, params: Record<string, unknown>, message: string): void {
  errors.push({ instancePath, keyword, params, message })
}

/** The error of a node reached past MAX_VALIDATION_DEPTH. */
export function depthFail(errors: SchemaError[], instancePath: string): void {
  errors.push({ instancePath, keyword: 'depth', params: { limit: MAX_VALIDATION_DEPTH }, message: MESSAGES.depth })
}

/** The `oneOf` error; `passing` holds the first two passing branches when more than one passed. */
export function oneOfFail(errors: SchemaError[], instancePath: string, passing: readonly number[] | null): void {
  errors.push({ instancePath, keyword: 'oneOf', params: { passingSchemas: passing }, message: MESSAGES.oneOf })
}

/**
 * `uniqueItems`: one error, for the pair ajv reports. When the items' declared types (`itemTypes`)
 * are all scalars it compares only items of those types, by value as an object key; otherwise
 * every pair, by deep equality, found in one pass over canonical keys (the last item equal to an
 * earlier one, and the last such earlier one): O(total size), where comparing pairs took seconds
 * on 20,000 objects.
 */
export function uniqueItemsFail(data: readonly unknown[], instancePath: string, errors: SchemaError[], itemTypes: readonly string[]): void {
  if (data.length < 2) return
  let pair: { i: number; j: number } | undefined
  if (itemTypes.length > 0 && !itemTypes.includes('object') && !itemTypes.includes('array')) {
    const indices = new Map<string, number>()
    for (let i = data.length - 1; i >= 0 && pair === undefined; i--) {
      const item = data[i]
      if (!itemTypes.some((type) => typeMatches(type, item))) continue
      const key = typeof item === 'string' && itemTypes.length > 1 ? `${item}_` : String(item)
      const j = indices.get(key)
      if (j !== undefined) pair = { i, j }
      indices.set(key, i)
    }
  } else {
    const last = new Map<string, number>()
    for (let i = 0; i < data.length; i++) {
      const key = canonicalKey(data[i])
      const j = last.get(key)
      if (j !== undefined) pair = { i, j }
      last.set(key, i)
    }
  }
  if (pair) errors.push({ instancePath, keyword: 'uniqueItems', params: pair, message: `must NOT have duplicate items (items ## ${pair.j} and ${pair.i} are identical)` })
}

/** JSON Schema's `type` test for one type name. */
export function typeMatches(type: string, data: unknown): boolean {
  switch (type) {
    case 'integer':
      return Number.isInteger(data)
    case 'number':
      return Number.isFinite(data)
    case 'object':
      return typeof data === 'object' && data !== null && !Array.isArray(data)
    default:
      return typeOf(data) === type
  }
}

/** A schema node as a function: checks `data` at `path`, appending errors; `depth` as in MAX_VALIDATION_DEPTH. */
export type SchemaCheck = (data: unknown, path: string, errors: SchemaError[], depth: number) => void

/** A validator over one root check: errors are left on it (`errors`, null when valid), as ajv's are. */
export function compiledValidator(check: SchemaCheck): Validator {
  const validate = ((data: unknown) => {
    const errors: SchemaError[] = []
    check(data, '', errors, 0)
    validate.errors = errors.length > 0 ? errors : null
    return errors.length === 0
  }) as Validator & { errors: SchemaError[] | null }
  validate.errors = null
  return validate
}
