import { jsLiteral, jsString, sortKeys } from './emit.js'
import { reach } from './graph.js'
import { runtimePatternsIn, usesLinear } from './pattern-safety.js'
import type { PatternSpec } from '../runtime/shared/pattern-matchers.js'

/** A schema definition emitted as a `const`, with the references it makes itself. */
export interface EmittedDefinition {
  constant: string
  refs: ReadonlySet<string>
  /** Patterns in the definition's own schema that do not run as one native `RegExp` (pattern -> runtime form). */
  patterns?: ReadonlyMap<string, PatternSpec>
}

/**
 * The module constant holding the matchers of every pattern its validators do not run as one
 * native `RegExp` (`patternMatchers`, imported with the validators' other helpers as
 * `PATTERN_MATCHERS_HELPER`).
 */
export const PATTERNS_CONSTANT = '$patterns'
/** The runtime helper that builds the constant, as the module imports it. */
export const PATTERN_MATCHERS_HELPER = 'patternMatchers as $patternMatchers'
/** The import of the linear-time engine, for the header of a module with a pattern that needs it (`usesLinear`). */
export const LINEAR_PATTERNS_IMPORT = 'import { linearMatcher as $linearMatcher } from "unplugin-contracts/runtime/linear-pattern";'

/** The patterns needing runtime matchers that a validator over `root` and the definitions it reaches (`reachedDefinitions`) runs. */
export function validatorPatterns(root: unknown, reached: ReadonlySet<string>, definitions: ReadonlyMap<string, EmittedDefinition>): Map<string, PatternSpec> {
  const out = new Map<string, PatternSpec>()
  runtimePatternsIn(root, out)
  for (const ref of reached) for (const [pattern, spec] of definitions.get(ref)!.patterns ?? []) out.set(pattern, spec)
  return out
}

/** Whether any of the patterns needs the linear-time engine (then the module imports it: `LINEAR_PATTERNS_IMPORT`). */
export function needsLinearEngine(patterns: ReadonlyMap<string, PatternSpec>): boolean {
  for (const spec of patterns.values()) if (usesLinear(spec)) return true
  return false
}

/**
 * The `$patterns` constant's expression: one matcher per pattern, in code-unit order
 * (deterministic), with the linear-time engine passed only when a pattern needs it. `helper`: the
 * runtime builder called (`$patternMatchers`, or `$ajvPatterns` for ajv's standalone code).
 */
export function patternsConstant(patterns: ReadonlyMap<string, PatternSpec>, helper = '$patternMatchers'): string {
  const record: Record<string, PatternSpec> = {}
  for (const pattern of sortKeys([...patterns.keys()])) Object.defineProperty(record, pattern, { value: patterns.get(pattern)!, enumerable: true })
  return `/* @__PURE__ */ ${helper}(${jsLiteral(record)}${needsLinearEngine(patterns) ? ', $linearMatcher' : ''})`
}

/** Every definition reachable from `refs`, through the definitions' own references (`reach`: the order is the walk's, which the literal keeps). */
export function reachedDefinitions(refs: ReadonlySet<string>, definitions: ReadonlyMap<string, EmittedDefinition>): Set<string> {
  return reach(refs, (ref) => {
    const target = definitions.get(ref)
    if (!target) throw new Error(`schema is invalid: reference ${ref} names no definition`)
    return target.refs
  })
}

const ONE = new Set(['items', 'additionalProperties', 'not', 'if', 'then'])
const LISTS = new Set(['allOf', 'anyOf', 'oneOf'])
const MAPS = new Set(['properties', 'patternProperties'])

/**
 * A converted schema as a JavaScript expression: JSON literals (`jsLiteral`) for its values, each
 * `$ref` in a schema position as the expression `link` gives for it. Keys are written with
 * `jsString`, computed (`["__proto__"]: ...` stays a member). The data forms write a `$ref` as a
 * function returning the constant it names (`() => $d3`): the runtime's interpreter follows it on
 * first use, and a validator names only what its own schema names, so the module is linear in
 * the schemas however many validators reach one definition.
 */
export function linkedLiteral(schema: unknown, link: (ref: string) => string): string {
  if (schema === null || typeof schema !== 'object') return jsLiteral(schema)
  // Loops and one string, not `map` and `join` with closures: every schema node of every payload
  // validator is written here (bench/: a closure context and two arrays per node).
  const node = schema as Record<string, unknown>
  let out = '{'
  let first = true
  for (const keyword of Object.keys(node)) {
    out += (first ? '' : ', ') + memberKey(keyword) + ': ' + linkedMember(keyword, node[keyword], link)
    first = false
  }
  return out + '}'
}

/** A member's key as `linkedLiteral` writes it: computed for `__proto__`, so it stays a member. */
function memberKey(name: string): string {
  return name === '__proto__' ? `[${jsString(name)}]` : jsString(name)
}

/** The value of the member `keyword` of a schema, as `linkedLiteral` writes it. */
function linkedMember(keyword: string, value: unknown, link: (ref: string) => string): string {
  if (keyword === '$ref' && typeof value === 'string') return link(value)
  if (ONE.has(keyword)) return linkedLiteral(value, link)
  if (LISTS.has(keyword) && Array.isArray(value)) {
    let out = '['
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ', ') + linkedLiteral(value[i], link)
    return out + ']'
  }
  if (MAPS.has(keyword) && value !== null && typeof value === 'object') {
    const map = value as Record<string, unknown>
    let out = '{'
    let first = true
    for (const name of Object.keys(map)) {
      out += (first ? '' : ', ') + memberKey(name) + ': ' + linkedLiteral(map[name], link)
      first = false
    }
    return out + '}'
  }
  return jsLiteral(value)
}
