import { jsLiteral, sortKeys } from './emit.js'
import { linearPatternsIn } from './pattern-safety.js'

/** A schema definition emitted as a `const`, with the references it makes itself. */
export interface EmittedDefinition {
  constant: string
  refs: ReadonlySet<string>
  /** Patterns in the definition's own schema that run on the linear-time engine (pattern -> RE2 form). */
  patterns?: ReadonlyMap<string, string>
}

/** The module constant holding every linear-time pattern matcher its validators use. */
export const PATTERNS_CONSTANT = '$patterns'
/** The import that constant needs, for the module's header. */
export const LINEAR_PATTERNS_IMPORT = 'import { linearPatterns as $linearPatterns } from "unplugin-contracts/runtime/linear-pattern";'

/** The linear-time patterns a validator over `root` and the definitions it reaches (`reachedDefinitions`) runs. */
export function validatorPatterns(root: unknown, reached: ReadonlySet<string>, definitions: ReadonlyMap<string, EmittedDefinition>): Map<string, string> {
  const out = new Map<string, string>()
  linearPatternsIn(root, out)
  for (const ref of reached) for (const [pattern, source] of definitions.get(ref)!.patterns ?? []) out.set(pattern, source)
  return out
}

/** The `$patterns` constant's expression: one matcher per pattern, in code-unit order (deterministic). */
export function patternsConstant(patterns: ReadonlyMap<string, string>): string {
  const record: Record<string, string> = {}
  for (const pattern of sortKeys([...patterns.keys()])) Object.defineProperty(record, pattern, { value: patterns.get(pattern)!, enumerable: true })
  return `/* @__PURE__ */ $linearPatterns(${jsLiteral(record)})`
}

/**
 * The definitions object a generated `$schemaValidator(schema, definitions)` call takes: every
 * definition reachable from `refs` (through the definitions themselves), by reference, as its
 * constant. Throws `schema is invalid: ...` when a reference names nothing.
 */
export function definitionsLiteral(refs: ReadonlySet<string>, definitions: ReadonlyMap<string, EmittedDefinition>): string {
  const reached = reachedDefinitions(refs, definitions)
  return `{ ${[...reached].map((ref) => `${jsLiteral(ref)}: ${definitions.get(ref)!.constant}`).join(', ')} }`
}

/** Every definition reachable from `refs`, through the definitions' own references. */
export function reachedDefinitions(refs: ReadonlySet<string>, definitions: ReadonlyMap<string, EmittedDefinition>): Set<string> {
  const reached = new Set<string>()
  const queue = [...refs]
  while (queue.length > 0) {
    const ref = queue.pop()!
    if (reached.has(ref)) continue
    const target = definitions.get(ref)
    if (!target) throw new Error(`schema is invalid: reference ${ref} names no definition`)
    reached.add(ref)
    for (const next of target.refs) queue.push(next)
  }
  return reached
}
