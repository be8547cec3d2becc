import { jsLiteral } from './emit.js'

/** A schema definition emitted as a `const`, with the references it makes itself. */
export interface EmittedDefinition {
  constant: string
  refs: ReadonlySet<string>
}

/**
 * The definitions object a generated `$schemaValidator(schema, definitions)` call takes: every
 * definition reachable from `refs` (through the definitions themselves), by reference, as its
 * constant. Throws `schema is invalid: ...` when a reference names nothing.
 */
export function definitionsLiteral(refs: ReadonlySet<string>, definitions: ReadonlyMap<string, EmittedDefinition>): string {
  const reached = new Set<string>()
  const queue = [...refs]
  while (queue.length > 0) {
    const ref = queue.pop()!
    if (reached.has(ref)) continue
    const target = definitions.get(ref)
    if (!target) throw new Error(`schema is invalid: reference ${ref} names no definition`)
    reached.add(ref)
    queue.push(...target.refs)
  }
  return `{ ${[...reached].map((ref) => `${jsLiteral(ref)}: ${definitions.get(ref)!.constant}`).join(', ')} }`
}
