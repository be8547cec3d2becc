import { frozenErrors, markSealed, sealErrors } from './sealed-validator.js'
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
 * together: a `$ref` followed at this depth is reported (`keyword: "depth"`) instead of
 * overflowing the stack on a hostile payload, or looping on a schema that refers to itself without
 * consuming data. References are the only way a validation goes on without end; between two of
 * them, a schema's own nesting (finite, and bounded by the document's nesting limit) is walked.
 */
export const MAX_VALIDATION_DEPTH = 256

/*
 * One function per assertion keyword, reporting its error: separate exports, so a bundle keeps only
 * the ones its generated validators call.
 */

export function typeFail(errors: SchemaError[], instancePath: string, type: string): void {
  errors.push({ instancePath, keyword: 'type', params: { type }, message: `must be ${type}` })
}

export function requiredFail(errors: SchemaError[], instancePath: string, missingProperty: string): void {
  errors.push({ instancePath, keyword: 'required', params: { missingProperty }, message: `must have required property '${missingProperty}'` })
}

export function additionalFail(errors: SchemaError[], instancePath: string, additionalProperty: string): void {
  errors.push({ instancePath, keyword: 'additionalProperties', params: { additionalProperty }, message: 'must NOT have additional properties' })
}

/** The comparison each numeric bound makes. */
export const BOUNDS = { maximum: '<=', minimum: '>=', exclusiveMaximum: '<', exclusiveMinimum: '>' } as const

export function boundFail(errors: SchemaError[], instancePath: string, keyword: keyof typeof BOUNDS, limit: number): void {
  const comparison = BOUNDS[keyword]
  errors.push({ instancePath, keyword, params: { comparison, limit }, message: `must be ${comparison} ${limit}` })
}

/** What each size keyword counts. */
const COUNTED = {
  maxLength: 'characters',
  minLength: 'characters',
  maxItems: 'items',
  minItems: 'items',
  maxProperties: 'properties',
  minProperties: 'properties',
} as const
export type SizeKeyword = keyof typeof COUNTED

export function sizeFail(errors: SchemaError[], instancePath: string, keyword: SizeKeyword, limit: number): void {
  const bound = keyword.startsWith('max') ? 'more' : 'fewer'
  errors.push({ instancePath, keyword, params: { limit }, message: `must NOT have ${bound} than ${limit} ${COUNTED[keyword]}` })
}

export function multipleOfFail(errors: SchemaError[], instancePath: string, multipleOf: number): void {
  errors.push({ instancePath, keyword: 'multipleOf', params: { multipleOf }, message: `must be multiple of ${multipleOf}` })
}

/**
 * The `pattern` error. `undecided`: the pattern's matcher ran out of its budget on this value
 * (`runtime/shared/budgeted-pattern.ts`, `linear-pattern.ts`), so the value is refused without a
 * verdict, and the error says so (`params.undecided`).
 */
export function patternFail(errors: SchemaError[], instancePath: string, pattern: string, undecided = false): void {
  if (undecided)
    errors.push({
      instancePath,
      keyword: 'pattern',
      params: { pattern, undecided: true },
      message: `must match pattern "${pattern}", which could not be evaluated on this value within its step budget (refused unmatched)`,
    })
  else errors.push({ instancePath, keyword: 'pattern', params: { pattern }, message: `must match pattern "${pattern}"` })
}

/** Messages of the other keywords, reported with `schemaFail`. */
export const MESSAGES = {
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

/**
 * Where the validation under way first reached MAX_VALIDATION_DEPTH, whatever enclosed that step:
 * `compiledValidator` fails the validation there even when an enclosing `not`, `oneOf`, `anyOf` or
 * `if` dropped the error, so the limit never decides that a value is valid (a `not` of a schema
 * that ran out of depth accepted a value 85 arrays deep that the schema refuses).
 */
let deepAt: string | undefined

/** The error of a node reached past MAX_VALIDATION_DEPTH. */
export function depthFail(errors: SchemaError[], instancePath: string): void {
  if (validating && deepAt === undefined) deepAt = instancePath
  errors.push({ instancePath, keyword: 'depth', params: { limit: MAX_VALIDATION_DEPTH }, message: MESSAGES.depth })
}

/**
 * The check of a definition no validation reaches before MAX_VALIDATION_DEPTH (each `$ref` adds at
 * least one level): its own function would return `depthFail` on entry, so generated code calls
 * this one instead (`validatorDeclarations` in src/core/schema-code.ts), not a chain of functions
 * that cannot run, which a bundler would walk to the end.
 */
export function beyondDepth(_data: unknown, instancePath: string, errors: SchemaError[]): void {
  depthFail(errors, instancePath)
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
  if (pair)
    errors.push({
      instancePath,
      keyword: 'uniqueItems',
      params: pair,
      message: `must NOT have duplicate items (items ## ${pair.j} and ${pair.i} are identical)`,
    })
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

/**
 * How many errors a validation reports at most: the first MAX_ERRORS of the list ajv (`allErrors`)
 * would give, in its order. The full list can be exponential in the data's depth (a `oneOf` whose
 * failing branches both recurse reports every branch's errors at every level: 393,213 errors for
 * 255 bytes), so no bounded-time validator can return it; its prefix is exact.
 */
export const MAX_ERRORS = 100

/** One memoized verdict: the errors of a check on a value at one depth, paths relative to the value. */
interface Verdict {
  readonly depth: number
  readonly errors: readonly SchemaError[]
  readonly next: Verdict | undefined
}

const NO_ERRORS: readonly SchemaError[] = Object.freeze([])

/**
 * The verdicts of the validation under way (check -> value -> verdicts), made on its first
 * memoized call and dropped when it ends; undefined outside a validation (a check called on its
 * own is not memoized). A validation runs no user code, so one table at a time is enough.
 */
let verdicts: Map<SchemaCheck, Map<unknown, Verdict>> | undefined
let validating = false

/**
 * Runs `check` on `data` once per validation and depth, and replays its errors (first MAX_ERRORS,
 * paths re-rooted at `path`) when the same check meets the same value again. The generated code
 * calls every `$ref`'s function through it, the interpreter every schema node reached from more
 * than one place (a `$ref`'s target, a cycle, a node shared in memory): the only ways a schema
 * node can meet a value twice. So each (schema node, value, depth) is computed once: a validation
 * costs O(schema size x data size) node visits (times the depths a node meets one value at, one
 * in practice and MAX_VALIDATION_DEPTH at most), plus at most MAX_ERRORS replayed errors per
 * memoized call on a failing value. Values are compared by identity (objects) or by value
 * (scalars: one string checked a thousand times is checked once).
 *
 * Replaying a prefix changes no verdict (a check fails exactly when it leaves an error) and no
 * reported error: a truncated list loses only entries at position MAX_ERRORS or later of the list
 * its caller builds, and the validator reports the first MAX_ERRORS.
 */
export function memoCheck(check: SchemaCheck, data: unknown, path: string, errors: SchemaError[], depth: number): void {
  if (!validating) return check(data, path, errors, depth)
  const table = (verdicts ??= new Map())
  let byValue = table.get(check)
  if (byValue === undefined) table.set(check, (byValue = new Map()))
  const known = byValue.get(data)
  for (let v = known; v !== undefined; v = v.next) {
    if (v.depth !== depth) continue
    for (let i = 0; i < v.errors.length; i++) {
      const r = v.errors[i]!
      errors.push({ instancePath: path + r.instancePath, keyword: r.keyword, params: r.params, message: r.message })
    }
    return
  }
  const start = errors.length
  check(data, path, errors, depth)
  let own = NO_ERRORS
  if (errors.length > start) {
    if (errors.length - start > MAX_ERRORS) errors.length = start + MAX_ERRORS
    const out: SchemaError[] = []
    for (let i = start; i < errors.length; i++) {
      const r = errors[i]!
      out.push({ instancePath: r.instancePath.slice(path.length), keyword: r.keyword, params: r.params, message: r.message })
    }
    own = out
  }
  byValue.set(data, { depth, errors: own, next: known })
}

/** A validator over one root check: errors are left on it (`errors`, null when valid), as ajv's are; at most MAX_ERRORS. */
export function compiledValidator(check: SchemaCheck): Validator {
  // One array per validator, emptied into `errors` when something failed: valid data (the usual
  // case) allocates nothing. A validation runs no user code, so it is never re-entered.
  const scratch: SchemaError[] = []
  const validate = ((data: unknown) => {
    const outer = validating
    const outerDeep = deepAt
    validating = true
    deepAt = undefined
    let deep: string | undefined
    try {
      check(data, '', scratch, 0)
    } finally {
      validating = outer
      deep = deepAt
      deepAt = outerDeep
      if (!outer) verdicts = undefined
    }
    // A depth failure an enclosing keyword dropped still fails the value, within the errors reported.
    if (deep !== undefined && !scratch.some((e) => e.keyword === 'depth'))
      scratch.splice(Math.min(scratch.length, MAX_ERRORS - 1), 0, {
        instancePath: deep,
        keyword: 'depth',
        params: { limit: MAX_VALIDATION_DEPTH },
        message: MESSAGES.depth,
      })
    if (scratch.length === 0) {
      validate.errors = null
      return true
    }
    if (scratch.length > MAX_ERRORS) scratch.length = MAX_ERRORS
    validate.errors = frozenErrors(scratch.splice(0)) as SchemaError[]
    return false
  }) as Validator & { errors: SchemaError[] | null }
  return markSealed(sealErrors(validate))
}
