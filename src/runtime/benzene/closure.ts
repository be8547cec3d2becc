import { escapeToken } from '../shared/json-pointer.js'
import { reach } from '../shared/reach.js'
import { isObject, refTarget, type Schema } from './document.js'

/**
 * Seed 5.3: the component schemas a topic's request and response reach. `$ref` adds a name once and
 * walks its schema (the reached set is the cycle guard); `items`, schema-valued
 * `additionalProperties`, every `properties` value and the members of `allOf`/`anyOf`/`oneOf` are
 * walked recursively. Returns the names sorted (code unit order), as clients expose them.
 */
export function schemaClosure(
  roots: readonly unknown[],
  catalogue: Readonly<Record<string, Schema>>,
  references: (schema: unknown) => readonly string[] = directReferences,
): string[] {
  const reached = new Set<string>()
  for (const root of roots) for (const name of reachedFrom(root, catalogue, references)) reached.add(name)
  return [...reached].sort()
}

/**
 * What is kept per catalogue: the names each schema refers to, and the closure of each name a
 * root referred to alone. A thousand topics share Money, Address and Audit, and the projection,
 * the model and the declarations each ask (bench/: a 1,000-topic compile walked the shared
 * schemas some ten thousand times). Keyed by the catalogue object, so it lives as long as the
 * document does and answers only for it.
 */
const memos = new WeakMap<object, { references: Map<string, readonly string[]>; closures: Map<string, ReadonlySet<string>> }>()

/** A name and every component schema its schema reaches (memoized per catalogue). */
export function namedClosure(name: string, catalogue: Readonly<Record<string, Schema>>): ReadonlySet<string> {
  const ref = `#/components/schemas/${escapeToken(name)}`
  // A name no reference can spell (the empty name) is walked directly.
  if (refTarget(ref) !== name) return new Set([name, ...reachedFrom(catalogue[name], catalogue)])
  return reachedFrom({ $ref: ref }, catalogue)
}

/**
 * The names `root` reaches: the ones it refers to (`references`, by default directReferences) and,
 * through the schemas of those the catalogue has, theirs (`reach`, the one reachability walk). Each
 * schema's references are read once per catalogue, so a walk is linear in the names and references
 * it reaches. A caller may pass `directReferences` kept longer (the compiler keeps it by schema
 * object across its compiles): the same answer for the same schema.
 */
function reachedFrom(
  root: unknown,
  catalogue: Readonly<Record<string, Schema>>,
  direct: (schema: unknown) => readonly string[] = directReferences,
): ReadonlySet<string> {
  let memo = memos.get(catalogue)
  if (!memo) memos.set(catalogue, (memo = { references: new Map(), closures: new Map() }))
  const { references, closures } = memo
  // A root that is a bare reference has exactly that name's closure: answered from, or kept in, the memo.
  const rootName = isObject(root) && Object.keys(root).length === 1 ? refTarget(root.$ref) : undefined
  const known = rootName === undefined ? undefined : closures.get(rootName)
  if (known) return known
  const referencesOf = (name: string): readonly string[] => {
    if (!Object.hasOwn(catalogue, name)) return []
    let out = references.get(name)
    if (!out) references.set(name, (out = direct(catalogue[name])))
    return out
  }
  const reached = reach(direct(root), referencesOf)
  if (rootName !== undefined) closures.set(rootName, reached)
  return reached
}

const COMBINERS = ['allOf', 'anyOf', 'oneOf'] as const

/** The subschemas the closure walks into: `items`, schema-valued `additionalProperties`, every `properties` value, `allOf`/`anyOf`/`oneOf` members. */
export function pushChildren(schema: Record<string, unknown>, stack: unknown[]): void {
  if ('items' in schema) stack.push(schema.items)
  if (isObject(schema.additionalProperties)) stack.push(schema.additionalProperties)
  if (isObject(schema.properties)) for (const child of Object.values(schema.properties)) stack.push(child)
  for (const key of COMBINERS) {
    const list = schema[key]
    if (Array.isArray(list)) for (const child of list) stack.push(child)
  }
}

/**
 * The component names a schema names itself, in the positions `schemaClosure` walks, without
 * walking into them: the edges of the closure graph (`componentGraph` in the runtime rebuilds a
 * closure from them). Iterative.
 */
export function directReferences(root: unknown): string[] {
  const out = new Set<string>()
  const stack: unknown[] = [root]
  while (stack.length > 0) {
    const schema = stack.pop()
    if (!isObject(schema)) continue
    const name = refTarget(schema.$ref)
    if (name !== undefined) out.add(name)
    pushChildren(schema, stack)
  }
  return [...out]
}

/**
 * The names of the catalogue whose closure holds one of `targets` (each target included), the
 * closure's edges being `references` (by default those of §5.3): one
 * walk (`reach`) over the reversed reference graph, linear in the catalogue, where asking
 * each name for its closure was quadratic on a long chain.
 */
export function namesReaching(
  targets: ReadonlySet<string>,
  catalogue: Readonly<Record<string, Schema>>,
  references: (schema: unknown, name: string) => readonly string[] = directReferences,
): Set<string> {
  const referrers = new Map<string, string[]>()
  for (const name of Object.keys(catalogue)) {
    for (const target of references(catalogue[name], name)) {
      let list = referrers.get(target)
      if (!list) referrers.set(target, (list = []))
      list.push(name)
    }
  }
  return reach(targets, (name) => referrers.get(name) ?? [])
}
