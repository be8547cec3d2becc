import { compiledValidator, type SchemaCheck } from './schema-errors.js'
import type { Validator } from './validation.js'

/**
 * The validator of a payload schema that is one `$ref` (the commonest payload schema): the
 * referenced definition's check, entered one level down as a reference is entered, the depth the
 * root function `function (d, p, e, n) { def(d, p, e, n + 1); }` would pass it, so every verdict
 * at the depth limit is the same. One call in the generated module instead of that function.
 */
export function refValidator(check: SchemaCheck): Validator {
  return compiledValidator((data, path, errors, depth) => check(data, path, errors, depth + 1))
}
