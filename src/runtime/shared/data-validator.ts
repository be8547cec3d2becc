import { schemaValidator, type PatternMatchers, type Schema } from './schema-check.js'
import type { Validator } from './validation.js'

/**
 * A schema of a generated module's data form (`validators: 'data'`): the interpreter's JSON Schema,
 * whose `$ref`s are functions returning the definition they name. A module declares each
 * definition once, as a constant, and a reference names that constant through a function (so two
 * definitions can name each other, and a bundler keeps only the constants an import reaches); no
 * validator carries a map of what it reaches.
 */
export type LinkedSchema = boolean | { readonly [keyword: string]: unknown }

/** The interpreter's keywords whose values are subschemas: one, a list of them, a map of them. */
const ONE = ['items', 'additionalProperties', 'not', 'if', 'then']
const LISTS = ['allOf', 'anyOf', 'oneOf']
const MAPS = ['properties', 'patternProperties']

/**
 * A validator over `root` (the runtime's schema interpreter, `schemaValidator`): on its first call
 * the definitions `root` reaches are found through their reference functions, numbered, and handed
 * to the interpreter, once; later calls only validate. Module evaluation builds nothing. The walk
 * visits each reached schema node once (a definition named twice is one node, as it was one
 * constant), so it is linear in what the validator checks.
 */
export function dataValidator(root: LinkedSchema, matchers?: PatternMatchers): Validator {
  let inner: Validator | undefined
  const validate = ((data: unknown) => {
    inner ??= resolvedOrRefusing(root, matchers)
    const valid = inner(data)
    validate.errors = inner.errors
    return valid
  }) as Validator
  validate.errors = null
  return validate
}

/**
 * The resolved validator, or, for a schema the interpreter refuses (a keyword it does not know: a
 * generated module never holds one, a hand-written schema may), one that refuses every value with
 * the reason, `keyword: "schema"`: a validation never throws.
 */
function resolvedOrRefusing(root: LinkedSchema, matchers: PatternMatchers | undefined): Validator {
  try {
    return resolved(root, matchers)
  } catch (error) {
    const message = `cannot be checked: ${error instanceof Error ? error.message : String(error)}`
    const refuse = (() => {
      refuse.errors = [{ instancePath: '', keyword: 'schema', params: {}, message }]
      return false
    }) as Validator
    return refuse
  }
}

/** The interpreter over `root` with its reference functions replaced by numbered references. */
function resolved(root: LinkedSchema, matchers: PatternMatchers | undefined): Validator {
  const keys = new Map<object, string>()
  const definitions: Record<string, Schema> = {}
  const pending: Array<readonly [object, string]> = []
  const keyOf = (target: () => unknown): string => {
    const definition = target() as object
    let key = keys.get(definition)
    if (key === undefined) {
      keys.set(definition, (key = String(keys.size)))
      pending.push([definition, key])
    }
    return key
  }
  const schema = linked(root, keyOf)
  for (let i = 0; i < pending.length; i++) {
    const [definition, key] = pending[i]!
    Object.defineProperty(definitions, key, { value: linked(definition as LinkedSchema, keyOf), enumerable: true })
  }
  return schemaValidator(schema, definitions, matchers)
}

/**
 * A copy of one schema with each reference function replaced by its definition's key (`keyOf`),
 * not following references. Iterative; every other value is kept as it is (the interpreter reads,
 * never writes).
 */
function linked(root: LinkedSchema, keyOf: (target: () => unknown) => string): Schema {
  const top: { value?: unknown } = {}
  const stack: Array<readonly [source: unknown, into: Record<string, unknown> | unknown[], at: string | number]> = [
    [root, top as Record<string, unknown>, 'value'],
  ]
  while (stack.length > 0) {
    const [source, into, at] = stack.pop()!
    if (typeof source !== 'object' || source === null) {
      ;(into as Record<string | number, unknown>)[at] = source
      continue
    }
    const node = source as Record<string, unknown>
    const copy: Record<string, unknown> = {}
    for (const keyword of Object.keys(node)) {
      const value = node[keyword]
      if (keyword === '$ref' && typeof value === 'function') copy.$ref = keyOf(value as () => unknown)
      else if (ONE.includes(keyword)) stack.push([value, copy, keyword])
      else if (LISTS.includes(keyword) && Array.isArray(value)) {
        const list: unknown[] = (copy[keyword] = new Array(value.length))
        value.forEach((member, i) => stack.push([member, list, i]))
      } else if (MAPS.includes(keyword) && typeof value === 'object' && value !== null) {
        const map: Record<string, unknown> = {}
        Object.defineProperty(copy, keyword, { value: map, enumerable: true, writable: true })
        for (const name of Object.keys(value)) {
          // defineProperty: a member named `__proto__` stays a member.
          Object.defineProperty(map, name, { value: undefined, enumerable: true, writable: true })
          stack.push([(value as Record<string, unknown>)[name], map, name])
        }
      } else Object.defineProperty(copy, keyword, { value, enumerable: true, writable: true })
    }
    ;(into as Record<string | number, unknown>)[at] = copy
  }
  return top.value as Schema
}
