import type { ResultError } from './result.js'

/** A validator generated at build time (ajv standalone code): returns validity, leaves errors on itself. */
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
  return (validator.errors ?? []).filter((error) => error.keyword !== 'if').map((error) => {
    // `required` and `additionalProperties` report on the parent; point at the member itself.
    const member = error.params?.missingProperty ?? error.params?.additionalProperty
    const path = typeof member === 'string' ? `${error.instancePath}/${member.replace(/~/g, '~0').replace(/\//g, '~1')}` : error.instancePath
    return { message: `${path || '(payload)'} ${error.message ?? 'is invalid'}`, path, code: error.keyword }
  })
}

/** Length in Unicode code points, as JSON Schema counts `minLength`/`maxLength`. */
function ucs2length(text: string): number {
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
function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a !== a && b !== b
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((v, i) => equal(v, (b as unknown[])[i]))
  const ka = Object.keys(a)
  if (ka.length !== Object.keys(b).length) return false
  return ka.every((k) => Object.hasOwn(b, k) && equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
}

const helpers: Record<string, { default: unknown }> = {
  'ajv/dist/runtime/ucs2length': { default: ucs2length },
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
