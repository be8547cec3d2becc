import { errorText } from './error-text.js'
import { schemaValidator, type PatternMatchers, type Schema } from './schema-check.js'
import type { Validator } from './validation.js'
import { frozenErrors, markSealed, sealErrors } from './sealed-validator.js'

/**
 * A schema of a generated module's data form (`validators: 'data'`): the interpreter's JSON Schema,
 * whose `$ref`s are functions returning the definition they name. A module declares each
 * definition once, as a constant, and a reference names that constant through a function (so two
 * definitions can name each other, and a bundler keeps only the constants an import reaches); no
 * validator carries a map of what it reaches.
 */
export type LinkedSchema = boolean | { readonly [keyword: string]: unknown }

/**
 * A validator over `root` (the runtime's schema interpreter, `schemaValidator`, which follows
 * reference functions): made on its first call, so evaluating a module builds no validator; later
 * calls only validate. The interpreter asks each reference function once and treats what it
 * returns as one node, so the work is linear in what the validator checks.
 */
export function dataValidator(root: LinkedSchema, matchers?: PatternMatchers): Validator {
  let inner: Validator | undefined
  const validate = ((data: unknown) => {
    inner ??= madeOrRefusing(root, matchers)
    const valid = inner(data)
    // The interpreter's errors, and the refusal's, are frozen already (`compiledValidator`, below).
    validate.errors = inner.errors ?? null
    return valid
  }) as Validator
  return markSealed(sealErrors(validate))
}

/**
 * The interpreter over `root`, or, for a schema it refuses (a keyword it does not know, a reference
 * function that returns no schema: a generated module never holds one, a hand-written schema may),
 * a validator that refuses every value with the reason, `keyword: "schema"`: a validation never throws.
 */
function madeOrRefusing(root: LinkedSchema, matchers: PatternMatchers | undefined): Validator {
  try {
    return schemaValidator(root as Schema, {}, matchers)
  } catch (error) {
    const message = `cannot be checked: ${errorText(error)}`
    const refuse = (() => {
      refuse.errors = frozenErrors([{ instancePath: '', keyword: 'schema', params: {}, message }])
      return false
    }) as Validator
    return refuse
  }
}
