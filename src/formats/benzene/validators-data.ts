import { runtimePatternsIn } from '../../core/pattern-safety.js'
import type { PatternSpec } from '../../runtime/shared/pattern-matchers.js'
import { PATTERNS_CONSTANT, PATTERN_MATCHERS_HELPER, linkedLiteral, needsLinearEngine, patternsConstant } from '../../core/schema-definitions.js'
import { enterableDefinitions } from '../../core/schema-code.js'
import { shareShapes } from './code-shapes.js'
import type { BenzeneValidators, ConvertedValidators } from './validators.js'

/**
 * Payload validators as data (option `validators: 'data'`): each definition the payload schemas
 * reach (converted to JSON Schema, one per class: `definition-classes.ts`) becomes a constant, and
 * a validator is the runtime's `dataValidator` over its payload schema (the interpreter in
 * `src/runtime/shared/schema-check.ts`, held to the generated code and to ajv by
 * `test/schema-check.test.ts`). A `$ref` is written as a function returning the constant it names,
 * so a validator names only its own schema (the runtime finds what it reaches on its first call)
 * and a bundler keeps only the constants an import reaches; a definition one payload alone names
 * is written inside that payload's schema, and definitions whose literals differ only in their
 * values are one factory (`code-shapes.ts`). The module is smaller than with validator code, which
 * bundlers walk faster; validation takes 3.5-4.5x as long. Same verdicts and errors.
 */
export function dataValidators(converted: ConvertedValidators): BenzeneValidators {
  const { roots, refs } = converted
  // A definition no validation can enter (`enterableDefinitions`) is not written: a reference to it
  // returns `true`, which the interpreter never reaches (the reference fails on depth first).
  const rootRefs = roots.map((root) => referencesOf(root.json))
  const enterable = enterableDefinitions(rootRefs.flat(), (ref) => refs.get(ref) ?? [])
  const definitions = new Map([...converted.definitions].filter(([ref]) => enterable.has(ref)))
  // Who names each definition: other definitions and payload schemas, by site.
  const named = new Map<string, number>()
  const count = (targets: Iterable<string>) => {
    for (const target of targets) named.set(target, (named.get(target) ?? 0) + 1)
  }
  for (const ref of definitions.keys()) count(refs.get(ref) ?? [])
  for (const targets of rootRefs) count(new Set(targets))
  // A definition named by one payload schema only, once, is written where it is named (so no
  // other definition names it: each definition's own text names constants only).
  const inline = new Set<string>()
  for (const targets of rootRefs) {
    const sites = new Map<string, number>()
    for (const target of targets) sites.set(target, (sites.get(target) ?? 0) + 1)
    for (const [target, count] of sites) if (count === 1 && named.get(target) === 1) inline.add(target)
  }
  const constants = new Map<string, string>()
  let index = 0
  for (const ref of definitions.keys()) if (!inline.has(ref)) constants.set(ref, `$d${index++}`)
  const toConstant = (ref: string) => `() => ${constants.get(ref) ?? 'true'}`
  // Definitions whose literals differ only in their values are one factory (`code-shapes.ts`, as for code).
  const texts = new Map<string, string>()
  for (const [ref, schema] of definitions) texts.set(ref, linkedLiteral(schema, toConstant))
  const shapes = shareShapes(texts)
  const textOf = (ref: string) => shapes.members.get(ref) ?? texts.get(ref)!
  const write = (schema: unknown): string => linkedLiteral(schema, (ref) => (inline.has(ref) ? `() => (${textOf(ref)})` : toConstant(ref)))
  const declarations = new Map<string, string>(shapes.factories)
  for (const [ref, constant] of constants) declarations.set(constant, textOf(ref))
  // Patterns that do not run as one native RegExp get runtime matchers (src/core/pattern-safety.ts):
  // one module constant, passed only to the validators that reach such a pattern.
  const patternsOf = new Map<string, Map<string, PatternSpec>>()
  for (const [ref, schema] of definitions) {
    const found = new Map<string, PatternSpec>()
    runtimePatternsIn(schema, found)
    patternsOf.set(ref, found)
  }
  const all = new Map<string, PatternSpec>()
  const validators = new Map<string, string>()
  for (const root of roots) {
    const patterns = new Map<string, PatternSpec>()
    runtimePatternsIn(root.json, patterns)
    for (const ref of reached(root.json, refs, enterable)) for (const [pattern, spec] of patternsOf.get(ref)!) patterns.set(pattern, spec)
    for (const [pattern, spec] of patterns) all.set(pattern, spec)
    validators.set(root.name, `/* @__PURE__ */ $dataValidator(${write(root.json)}${patterns.size > 0 ? `, ${PATTERNS_CONSTANT}` : ''})`)
  }
  if (all.size > 0) declarations.set(PATTERNS_CONSTANT, patternsConstant(all))
  const imports = ['dataValidator as $dataValidator', ...(all.size > 0 ? [PATTERN_MATCHERS_HELPER] : [])]
  return { declarations, validators, imports, linearPatterns: needsLinearEngine(all) }
}

/** The references a payload schema makes itself, one entry per site, in the order written. */
function referencesOf(schema: unknown): string[] {
  const out: string[] = []
  linkedLiteral(schema, (ref) => {
    out.push(ref)
    return ''
  })
  return out
}

/** Every definition of `enterable` reachable from `schema`'s own references through them. */
function reached(schema: unknown, refs: ReadonlyMap<string, ReadonlySet<string>>, enterable: ReadonlySet<string>): Set<string> {
  const out = new Set<string>()
  const queue = referencesOf(schema)
  while (queue.length > 0) {
    const ref = queue.pop()!
    if (out.has(ref) || !enterable.has(ref)) continue
    out.add(ref)
    for (const next of refs.get(ref) ?? []) queue.push(next)
  }
  return out
}
