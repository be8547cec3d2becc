import { errorText } from './error-text.js'
import { escapeToken } from './json-pointer.js'
import type { ResultError } from './result.js'
import { codePoints, equal } from './schema-values.js'

/** A payload validator (generated code over `compiledValidator`, `schemaValidator`, or ajv standalone code): returns validity, leaves errors on itself. */
export type Validator = ((data: unknown) => boolean) & { errors?: ReadonlyArray<ValidatorError> | null }

interface ValidatorError {
  instancePath: string
  keyword: string
  message?: string
  params?: Record<string, unknown>
}

/**
 * Runs a validator; undefined when the data is valid, otherwise one error per violation with its
 * JSON Pointer. A violation is reported once, though the validator may meet it twice (a parent's
 * own required member, checked beside its choice and again in the chosen child). O(errors).
 * Never throws: data whose reading throws (a Proxy's trap, a getter: what an application may hand
 * any caller, the executor's inputs as a client's payloads) is one error, code `json`.
 */
export function check(validator: Validator | undefined, data: unknown): ResultError[] | undefined {
  try {
    if (!validator || validator(data)) return undefined
  } catch (error) {
    return [{ message: `(payload) cannot be read: ${errorText(error)}`, path: '', code: 'json' }]
  }
  const seen = new Set<string>()
  const out: ResultError[] = []
  for (const error of validator.errors ?? []) {
    // An `if` error only says its `then` failed; the `then` error itself says how.
    if (error.keyword === 'if') continue
    // `required` and `additionalProperties` report on the parent; point at the member itself.
    const member = error.params?.missingProperty ?? error.params?.additionalProperty
    const path = typeof member === 'string' ? `${error.instancePath}/${escapeToken(member)}` : error.instancePath
    const message = `${path || '(payload)'} ${error.message ?? 'is invalid'}`
    const key = `${error.keyword}\u0000${message}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push({ message, path, code: error.keyword })
  }
  return out
}

const helpers: Record<string, { default: unknown }> = {
  'ajv/dist/runtime/ucs2length': { default: codePoints },
  'ajv/dist/runtime/equal': { default: equal },
}

/**
 * What generated validators call where ajv's standalone code would `require` one of its two
 * runtime helpers: they get ours. Nothing is loaded, evaluated or fetched.
 */
export function ajvRuntime(id: string): { default: unknown } {
  const helper = Object.hasOwn(helpers, id) ? helpers[id] : undefined
  if (!helper) throw new Error(`unplugin-contracts: generated validator asked for unknown helper ${id}`)
  return helper
}
