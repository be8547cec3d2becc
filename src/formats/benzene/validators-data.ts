import { jsLiteral } from '../../core/emit.js'
import type { SchemaFacts } from './schema-facts.js'
import { runtimePatternsIn } from '../../core/pattern-safety.js'
import type { PatternSpec } from '../../runtime/shared/pattern-matchers.js'
import type { ValidatorDeclarations } from '../../core/schema-code.js'
import {
  PATTERNS_CONSTANT,
  PATTERN_MATCHERS_HELPER,
  definitionsLiteral,
  needsLinearEngine,
  patternsConstant,
  reachedDefinitions,
  validatorPatterns,
  type EmittedDefinition,
} from '../../core/schema-definitions.js'
import { DIRECTIONS, convert, definitionsDocument, type ConvertContext, type Direction } from './json-schema.js'
import type { ValidatorRequest } from './validators.js'

/**
 * Payload validators as data (option `validators: 'data'`): each
 * payload schema (converted to JSON Schema for its direction) and each definition it reaches become
 * `const`s, and a validator is the runtime's `schemaValidator` over them (the interpreter in
 * `src/runtime/shared/schema-check.ts`, held to the generated code and to ajv by
 * `test/schema-check.test.ts`). The module is about 2.3x smaller than with validator code, which
 * bundlers walk faster; validation takes 3.5-4.5x as long. Same verdicts and errors.
 *
 * Returns `const` declarations (name -> expression) in the order they must be emitted:
 * definitions first, then one validator per request under the request's name.
 */
export function dataValidators(requests: readonly ValidatorRequest[], facts: SchemaFacts, int64: 'number' | 'string'): ValidatorDeclarations {
  const contexts: Record<Direction, ConvertContext> = {
    request: { facts, direction: 'request', int64, documentId: 'req', keys: new Map(), pending: [], asked: new Set() },
    response: { facts, direction: 'response', int64, documentId: 'res', keys: new Map(), pending: [], asked: new Set() },
  }
  const roots = requests.map((r) => {
    const refs = new Set<string>()
    return { ...r, refs, json: convert(r.schema, { ...contexts[r.direction], refs }) }
  })
  const out = new Map<string, string>()
  const result: ValidatorDeclarations = { declarations: out, imports: ['schemaValidator as $schemaValidator'], linearPatterns: false }
  if (roots.length === 0) return { ...result, imports: [] }
  // `req#/definitions/d3` -> its constant and the definitions it names directly.
  const definitions = new Map<string, EmittedDefinition>()
  for (const direction of DIRECTIONS) {
    const made = new Map<string, ReadonlySet<string>>()
    const document = definitionsDocument(contexts[direction], made)
    for (const [key, schema] of Object.entries(document.definitions as Record<string, unknown>)) {
      const constant = `$${document.$id as string}$${key}`
      const patterns = new Map<string, PatternSpec>()
      runtimePatternsIn(schema, patterns)
      definitions.set(`${document.$id as string}#/definitions/${key}`, { constant, refs: made.get(key)!, ...(patterns.size > 0 ? { patterns } : {}) })
      out.set(constant, jsLiteral(schema))
    }
  }
  // Each validator names the definitions it reaches, so a bundler keeps only those. When that
  // costs more than SHARED_DEFINITIONS_FACTOR entries per definition and validator (a long `$ref`
  // chain that every topic enters at another point: 1,400 topics gave a 45 MB module), the
  // validators of a direction share one object of all its definitions instead: output linear in
  // the document, at the price of keeping every definition of a direction once any is used.
  // Each root's reached definitions, found once (the sharing decision, its patterns and its literal read them).
  const reachedOf = roots.map((root) => reachedDefinitions(root.refs, definitions))
  let entries = 0
  for (const reached of reachedOf) entries += reached.size
  const shared = entries > SHARED_DEFINITIONS_FACTOR * (definitions.size + roots.length)
  if (shared) {
    for (const direction of DIRECTIONS) {
      const prefix = `${contexts[direction].documentId}#`
      const members = [...definitions].filter(([ref]) => ref.startsWith(prefix)).map(([ref, d]) => `${jsLiteral(ref)}: ${d.constant}`)
      out.set(sharedConstant(direction), `{ ${members.join(', ')} }`)
    }
  }
  // Most payloads are one `$ref`: the definitions object for a single reference is written once.
  const single = new Map<string, string>()
  const definitionsObject = (refs: ReadonlySet<string>, direction: Direction): string => {
    if (shared) return sharedConstant(direction)
    const only = refs.size === 1 ? refs.values().next().value! : undefined
    const known = only === undefined ? undefined : single.get(only)
    if (known !== undefined) return known
    const text = definitionsLiteral(refs, definitions)
    if (only !== undefined) single.set(only, text)
    return text
  }
  // Patterns that do not run as one native RegExp get runtime matchers (src/core/pattern-safety.ts):
  // one module constant, passed only to the validators that reach such a pattern.
  const all = new Map<string, PatternSpec>()
  const calls = roots.map((root, i) => {
    const patterns = validatorPatterns(root.json, reachedOf[i]!, definitions)
    for (const [pattern, source] of patterns) all.set(pattern, source)
    return [
      root.name,
      `/* @__PURE__ */ $schemaValidator(${jsLiteral(root.json)}, ${definitionsObject(root.refs, root.direction)}${patterns.size > 0 ? `, ${PATTERNS_CONSTANT}` : ''})`,
    ] as const
  })
  if (all.size > 0) out.set(PATTERNS_CONSTANT, patternsConstant(all))
  for (const [name, code] of calls) out.set(name, code)
  return { ...result, imports: all.size > 0 ? [...result.imports, PATTERN_MATCHERS_HELPER] : result.imports, linearPatterns: needsLinearEngine(all) }
}

const SHARED_DEFINITIONS_FACTOR = 8
const sharedConstant = (direction: Direction) => `$${direction === 'request' ? 'req' : 'res'}$definitions`
