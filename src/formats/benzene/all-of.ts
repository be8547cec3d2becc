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
  return (parts ?? (schema.allOf as unknown[]).map(ownPart)).some((part) => part.closed || part.refs.some((ref) => mergedOf(facts, ref).closed))
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
 * The merge contribution of a named schema and, through `allOf`, of everything it extends: an
 * iterative depth-first walk that computes each name once (memoized in the document's facts), so a
 * 1,600-long `allOf` chain is neither a deep recursion nor walked again for each of its links.
 * A name met again while still being walked (a cycle) contributes nothing there, as before, and
 * the names whose result depended on such a cut are not memoized.
 */
export function mergedOf(facts: SchemaFacts, root: string): Merged {
  const memo = facts.merges
  const catalogue = facts.catalogue
  const known = memo.get(root)
  if (known) return known
  interface Frame {
    name: string
    own: { names: string[]; closed: boolean; refs: string[] }
    next: number
    names: Set<string>
    closed: boolean
    cut: boolean
  }
  const open = new Map<string, Frame>()
  const frame = (name: string): Frame => {
    const own = ownPart(Object.hasOwn(catalogue, name) ? catalogue[name] : undefined)
    return { name, own, next: 0, names: new Set(own.names), closed: own.closed, cut: false }
  }
  const stack: Frame[] = [frame(root)]
  open.set(root, stack[0]!)
  let result: Merged | undefined
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!
    if (top.next < top.own.refs.length) {
      const child = top.own.refs[top.next++]!
      const done = memo.get(child)
      if (done) {
        top.closed ||= done.closed
        for (const n of done.names) top.names.add(n)
      } else if (open.has(child)) {
        // A cycle: every name still being walked above `child` misses what `child` will add.
        for (let i = stack.length - 1; i >= 0 && stack[i]!.name !== child; i--) stack[i]!.cut = true
      } else {
        const f = frame(child)
        open.set(child, f)
        stack.push(f)
      }
      continue
    }
    stack.pop()
    open.delete(top.name)
    const merged: Merged = { names: top.names, closed: top.closed }
    if (!top.cut) memo.set(top.name, merged)
    const parent = stack[stack.length - 1]
    if (parent) {
      parent.closed ||= merged.closed
      for (const n of merged.names) parent.names.add(n)
    } else result = merged
  }
  return result!
}
