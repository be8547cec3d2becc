import { isObject, refTarget, type Schema } from '../../runtime/benzene/document.js'
import type { SchemaFacts } from './schema-facts.js'

/**
 * OpenAPI 3.0 `allOf` is a merge: one member with `additionalProperties: false` closes the merged
 * object to the properties of all members, followed through `$ref` and nested `allOf` at any depth.
 * Types (typescript.ts) and validators (json-schema.ts) read the merge from here, so they agree.
 */

/**
 * True when an allOf merge is closed: the schema or some member, followed through `$ref` and
 * nested `allOf`, says `additionalProperties: false`. Types and validators decide it the same way.
 */
export function closedMerge(schema: Schema, facts: SchemaFacts, parts?: ReadonlyArray<ReturnType<typeof ownPart>>): boolean {
  if (schema.additionalProperties === false) return true
  if (!Array.isArray(schema.allOf)) return false
  // `parts`: the members' own parts when the caller has them already (the validators' merge reads them too).
  return (parts ?? (schema.allOf as unknown[]).map(ownPart)).some((part) => part.closed || part.refs.some((ref) => closedOf(facts, ref)))
}

/**
 * Whether a named schema's merge is closed (it or anything it extends through `allOf` says
 * `additionalProperties: false`): `mergedOf(...).closed` without its names, which a merge needs only
 * when it is closed. The names of a chain of n schemas are n sets of up to n names (a chain of
 * 8,000 open ones took 6 s and 1.5 GB to tell that none was closed); this is a boolean a name.
 * Iterative, each name once; a name met again while still open (a cycle) contributes nothing there.
 */
export function closedOf(facts: SchemaFacts, root: string): boolean {
  const memo = facts.closedMerges
  const known = memo.get(root)
  if (known !== undefined) return known
  const catalogue = facts.catalogue
  const open = new Set<string>([root])
  const part = (name: string) => ownPart(Object.hasOwn(catalogue, name) ? catalogue[name] : undefined)
  const stack: Array<{ name: string; refs: string[]; next: number; closed: boolean; cut: boolean }> = []
  const push = (name: string) => {
    const own = part(name)
    stack.push({ name, refs: own.refs, next: 0, closed: own.closed, cut: false })
  }
  push(root)
  let result = false
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!
    if (!top.closed && top.next < top.refs.length) {
      const child = top.refs[top.next++]!
      const done = memo.get(child)
      if (done !== undefined) top.closed ||= done
      else if (open.has(child)) for (let i = stack.length - 1; i >= 0 && stack[i]!.name !== child; i--) stack[i]!.cut = true
      else {
        open.add(child)
        push(child)
      }
      continue
    }
    stack.pop()
    open.delete(top.name)
    // Closed is final whatever a cycle cut; open is final only when nothing was cut.
    if (top.closed || !top.cut) memo.set(top.name, top.closed)
    const parent = stack[stack.length - 1]
    if (parent) parent.closed ||= top.closed
    else result = top.closed
  }
  return result
}

/** What an `allOf` member contributes to the closed merge: its property names, and whether it is closed. */
export interface Merged {
  names: ReadonlySet<string>
  closed: boolean
}

/**
 * A schema's own part of the merge, through its inline `allOf` members: property names, whether
 * any is closed, and the component names it refers to (not followed). Iterative.
 */
export function ownPart(root: unknown): { names: string[]; closed: boolean; refs: string[] } {
  const out = { names: [] as string[], closed: false, refs: [] as string[] }
  const stack: unknown[] = [root]
  while (stack.length > 0) {
    const member = stack.pop()
    if (!isObject(member)) continue
    const ref = refTarget(member.$ref)
    if (ref !== undefined) {
      out.refs.push(ref)
      continue
    }
    if (member.additionalProperties === false) out.closed = true
    if (isObject(member.properties)) for (const name of Object.keys(member.properties)) out.names.push(name)
    if (Array.isArray(member.allOf)) for (const sub of member.allOf) stack.push(sub)
  }
  return out
}

/**
 * The merge contribution of a named schema and, through `allOf`, of everything it extends: the
 * property names of every schema it reaches through `allOf` member references (itself included),
 * and whether any is closed. A breadth-first walk, each name once, memoized for the name asked
 * only: the contributions of the names on the way are not made (a chain of n links whose top is
 * closed made n sets of up to n names, 6.9 s and 1.5 GB at 8,000 links, when only the top's was
 * read). A name met again (a cycle) adds nothing new.
 */
export function mergedOf(facts: SchemaFacts, root: string): Merged {
  const known = facts.merges.get(root)
  if (known) return known
  const catalogue = facts.catalogue
  const names = new Set<string>()
  let closed = false
  const seen = new Set<string>([root])
  const queue = [root]
  for (let i = 0; i < queue.length; i++) {
    const own = ownPart(Object.hasOwn(catalogue, queue[i]!) ? catalogue[queue[i]!] : undefined)
    closed ||= own.closed
    for (const name of own.names) names.add(name)
    for (const ref of own.refs)
      if (!seen.has(ref)) {
        seen.add(ref)
        queue.push(ref)
      }
  }
  const merged: Merged = { names, closed }
  facts.merges.set(root, merged)
  return merged
}
