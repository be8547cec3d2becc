import { escapeToken } from '../shared/json-pointer.js'
import { isObject, refTarget, type Schema } from './document.js'

/**
 * Seed 5.3: the component schemas a topic's request and response reach. `$ref` adds a name once and
 * walks its schema (the reached set is the cycle guard); `items`, schema-valued
 * `additionalProperties`, every `properties` value and the members of `allOf`/`anyOf`/`oneOf` are
 * walked recursively. Returns the names sorted (code unit order), as clients expose them.
 */
export function schemaClosure(roots: readonly unknown[], catalogue: Readonly<Record<string, Schema>>): string[] {
  const reached = new Set<string>()
  for (const root of roots) for (const name of reachedFrom(root, catalogue)) reached.add(name)
  return [...reached].sort()
}

/**
 * The closure of each named schema, kept per catalogue: a thousand topics share Money, Address and
 * Audit, and the projection, the model and the declarations each ask (bench/: a 1,000-topic compile
 * walked the shared schemas some ten thousand times).
 */
const namedClosures = new WeakMap<object, Map<string, ReadonlySet<string>>>()

/** A name and every component schema its schema reaches (memoized per catalogue). */
export function namedClosure(name: string, catalogue: Readonly<Record<string, Schema>>): ReadonlySet<string> {
  const ref = `#/components/schemas/${escapeToken(name)}`
  // A name no reference can spell (the empty name) is walked directly.
  if (refTarget(ref) !== name) return new Set([name, ...reachedFrom(catalogue[name], catalogue)])
  return reachedFrom({ $ref: ref }, catalogue)
}

function reachedFrom(root: unknown, catalogue: Readonly<Record<string, Schema>>): ReadonlySet<string> {
  let closures = namedClosures.get(catalogue)
  if (!closures) namedClosures.set(catalogue, (closures = new Map()))
  const memo = closures
  // A root that is a bare reference has exactly that name's closure: answered from, or kept in,
  // the memo. Names met along the way are walked inline unless already complete in the memo (a
  // name still being walked, on a cycle, is not complete, so only whole walks are remembered).
  const rootName = isObject(root) && Object.keys(root).length === 1 ? refTarget(root.$ref) : undefined
  if (rootName !== undefined) {
    const known = memo.get(rootName)
    if (known) return known
  }
  const reached = new Set<string>()
  // An explicit stack, not recursion: a 1,600-long chain of `$ref`s or `allOf`s overflowed the stack.
  // Each schema node is visited once per walk (names guard `$ref` cycles): linear in the catalogue.
  const stack: unknown[] = [root]
  while (stack.length > 0) {
    const schema = stack.pop()
    if (!isObject(schema)) continue
    const name = refTarget(schema.$ref)
    if (name !== undefined && !reached.has(name)) {
      const known = memo.get(name)
      if (known) for (const n of known) reached.add(n)
      else {
        reached.add(name)
        if (Object.hasOwn(catalogue, name)) stack.push(catalogue[name])
      }
    }
    pushChildren(schema, stack)
  }
  if (rootName !== undefined) memo.set(rootName, reached)
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
 * breadth-first search over the reversed reference graph, linear in the catalogue, where asking
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
  const out = new Set<string>()
  const queue = [...targets]
  while (queue.length > 0) {
    const name = queue.pop()!
    if (out.has(name)) continue
    out.add(name)
    for (const referrer of referrers.get(name) ?? []) if (!out.has(referrer)) queue.push(referrer)
  }
  return out
}
