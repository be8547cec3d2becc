import { SCHEMA_HELPERS, validatorDeclarations } from '../../src/core/schema-code.js'
import * as helpers from '../../src/runtime/shared/validator-helpers.js'
import { linearMatcher } from '../../src/runtime/shared/linear-pattern.js'
import { runtimePatternsIn } from '../../src/core/pattern-safety.js'
import { patternMatchers, type PatternSpec } from '../../src/runtime/shared/pattern-matchers.js'
import { schemaValidator, type Schema } from '../../src/runtime/shared/schema-check.js'
import { ajvRuntime, type Validator } from '../../src/runtime/shared/validation.js'

/**
 * Runs generated validator declarations (`const` name -> expression, as a module emits them) with
 * the runtime helpers they import, and returns the value of `result` (an expression over them).
 */
export function evaluateDeclarations<T = Validator>(declarations: ReadonlyMap<string, string>, result: string): T {
  const body = [...declarations].map(([name, expression]) => `const ${name} = ${expression};`).join('\n')
  const names = [...Object.keys(SCHEMA_HELPERS), '$linearMatcher', '$ajvRuntime']
  const values = [...Object.values(SCHEMA_HELPERS).map((h) => (helpers as Record<string, unknown>)[h]), linearMatcher, ajvRuntime]
  return new Function(...names, `${body}\nreturn ${result};`)(...values) as T
}

/** The generated validator of `root`, whose `$ref`s name members of `definitions` (as the interpreter takes them). */
export function generatedValidator(root: Schema, definitions: Readonly<Record<string, Schema>> = {}): Validator {
  const defs = new Map(Object.entries(definitions).map(([ref, schema], i) => [ref, { name: `$d${i}`, schema }]))
  return evaluateDeclarations(validatorDeclarations([{ name: '$root', schema: root }], defs, '$v$').declarations, '$root')
}

/** The interpreter with the pattern matchers a module passes it (`runtimePatternsIn`, `patternMatchers`), as `validators: 'data'` builds it. */
export function interpretedValidator(root: Schema, definitions: Readonly<Record<string, Schema>> = {}): Validator {
  const specs = new Map<string, PatternSpec>()
  runtimePatternsIn([root, definitions], specs)
  return schemaValidator(root, definitions, patternMatchers(Object.fromEntries(specs), linearMatcher))
}
