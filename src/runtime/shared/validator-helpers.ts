/** What generated validator code calls (`SCHEMA_HELPERS` in `src/core/schema-code.ts`), for each runtime entry that generated modules import. */
export {
  additionalFail,
  beyondDepth,
  boundFail,
  compiledValidator,
  depthFail,
  memoCheck,
  multipleOfFail,
  oneOfFail,
  patternFail,
  requiredFail,
  schemaFail,
  sizeFail,
  typeFail,
  typeMatches,
  uniqueItemsFail,
} from './schema-errors.js'
export { codePoints, equal, isMultipleOf } from './schema-values.js'
export { escapeToken } from './json-pointer.js'
export { refValidator } from './ref-validator.js'
export { isObject } from './json-value.js'
export { ajvPatterns, patternMatchers } from './pattern-matchers.js'
