import { escapeToken, joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject, refTarget } from '../../../runtime/benzene/document.js'
import type { BenzeneRule } from './rule.js'

/**
 * A schema that reaches itself by `$ref` without consuming any data on the way
 * (`A = oneOf[B, string]`, `B = oneOf[A, number]`, or `A = allOf[A]`) has no finite meaning: deciding
 * whether a value matches `A` needs the answer for the same value against `A` again. Recursion
 * through `properties`, `items` or `additionalProperties` is fine (each step goes one level into the
 * data); recursion through `$ref`, `allOf`, `anyOf`, `oneOf` and `not` alone is refused here, before
 * a validator would spin down to its depth limit and TypeScript would reject the alias as circular.
 *
 * Complexity: O(schema nodes + references): one walk per component collecting the references it
 * reaches without a data step, then one iterative depth-first search over those edges.
 */

const COMBINERS = ['allOf', 'anyOf', 'oneOf']
const MAX_NAMED = 8

interface Edge {
  target: string
  pointer: string
}

/** The components a schema refers to without going into its data, each with where the `$ref` is. */
function immediateRefs(schema: unknown, pointer: string, names: ReadonlySet<string>): Edge[] {
  const edges: Edge[] = []
  const stack: Array<[unknown, string]> = [[schema, pointer]]
  while (stack.length > 0) {
    const [node, at] = stack.pop()!
    if (!isObject(node)) continue
    if ('$ref' in node) {
      // OpenAPI 3.0: a Reference Object's siblings are ignored, so the reference is the whole edge.
      const target = refTarget(node.$ref)
      if (target !== undefined && names.has(target)) edges.push({ target, pointer: joinPointer(at, '$ref') })
      continue
    }
    for (const key of COMBINERS) {
      const list = node[key]
      if (Array.isArray(list)) for (let i = list.length - 1; i >= 0; i--) stack.push([list[i], joinPointer(at, key, i)])
    }
    if (isObject(node.not)) stack.push([node.not, joinPointer(at, 'not')])
  }
  return edges
}

export const refCycle: BenzeneRule = {
  code: 'BENZENE_SCHEMA_CYCLE',
  description:
    'A schema refers back to itself through `$ref`, `allOf`, `anyOf`, `oneOf` or `not` alone, never through a property or an item: no value can be decided against it.',
  check({ doc, report }) {
    const schemas = isObject(doc) && isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : undefined
    if (!schemas) return
    const names = new Set(Object.keys(schemas))
    const edges = new Map<string, Edge[]>()
    for (const name of names) edges.set(name, immediateRefs(schemas[name], `/components/schemas/${escapeToken(name)}`, names))
    // Iterative DFS: white (absent), grey (on the path), black (done). A grey target closes a cycle.
    const state = new Map<string, 'grey' | 'black'>()
    for (const root of names) {
      if (state.has(root)) continue
      const path: Array<{ name: string; next: number }> = [{ name: root, next: 0 }]
      const depthOf = new Map<string, number>([[root, 0]])
      state.set(root, 'grey')
      while (path.length > 0) {
        const top = path[path.length - 1]!
        const out = edges.get(top.name)!
        if (top.next >= out.length) {
          state.set(top.name, 'black')
          depthOf.delete(top.name)
          path.pop()
          continue
        }
        const edge = out[top.next++]!
        const seen = state.get(edge.target)
        if (seen === undefined) {
          state.set(edge.target, 'grey')
          depthOf.set(edge.target, path.length)
          path.push({ name: edge.target, next: 0 })
        } else if (seen === 'grey') {
          // The message names at most MAX_NAMED schemas of the cycle: O(1) per report, however long it is.
          const from = depthOf.get(edge.target)!
          const cycle = path.slice(from, from + MAX_NAMED).map((p) => p.name)
          const shown = [...cycle.map((n) => JSON.stringify(n)), ...(path.length - from > MAX_NAMED ? ['...'] : []), JSON.stringify(edge.target)]
          report(edge.pointer, `Schema ${shown.join(' -> ')} refers back to itself without a property or item in between.`, { cycle })
        }
      }
    }
  },
}
