import { escapeToken } from './json-pointer.js'
import type { ResultError } from './result.js'
import { codePoints, equal } from './schema-check.js'

/** A payload validator (Benzene: `schemaValidator`; NATS: ajv standalone code): returns validity, leaves errors on itself. */
export type Validator = ((data: unknown) => boolean) & { errors?: ReadonlyArray<ValidatorError> | null }

interface ValidatorError {
  instancePath: string
  keyword: string
  message?: string
  params?: Record<string, unknown>
}

/** Runs a validator; undefined when the data is valid, otherwise one error per violation with its JSON Pointer. */
export function check(validator: Validator | undefined, data: unknown): ResultError[] | undefined {
  if (!validator || validator(data)) return undefined
  // An `if` error only says its `then` failed; the `then` error itself says how.
  return (validator.errors ?? [])
    .filter((error) => error.keyword !== 'if')
    .map((error) => {
      // `required` and `additionalProperties` report on the parent; point at the member itself.
      const member = error.params?.missingProperty ?? error.params?.additionalProperty
      const path = typeof member === 'string' ? `${error.instancePath}/${escapeToken(member)}` : error.instancePath
      return { message: `${path || '(payload)'} ${error.message ?? 'is invalid'}`, path, code: error.keyword }
    })
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
