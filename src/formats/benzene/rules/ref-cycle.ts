import { findCycles, type Digraph } from '../../../core/graph.js'
import { escapeToken, joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject, refTarget } from '../../../runtime/benzene/document.js'
import type { SchemaFacts } from '../schema-facts.js'
import { extendsSelector, isParent, namedDiscriminator } from '../inheritance.js'
import { benzeneRule } from './rule.js'

/**
 * A schema that reaches itself by `$ref` without consuming any data on the way
 * (`A = oneOf[B, string]`, `B = oneOf[A, number]`, or `A = allOf[A]`) has no finite meaning: deciding
 * whether a value matches `A` needs the answer for the same value against `A` again. Recursion
 * through `properties`, `items` or `additionalProperties` is fine (each step goes one level into the
 * data); recursion through `$ref`, `allOf`, `anyOf`, `oneOf` and `not` alone is refused here, before
 * a validator would spin down to its depth limit and TypeScript would reject the alias as circular.
 * A discriminator's choice is an edge too, read as the validators build it (see immediateRefs).
 *
 * Complexity: O(schema nodes + references + discriminator values): one walk per definition (a
 * component, or its own shape) collecting the references it reaches without a data step, then core's
 * cycle finder (src/core/graph.ts: one iterative depth-first walk) over those edges.
 */

const COMBINERS = ['allOf', 'anyOf', 'oneOf']
const MAX_NAMED = 8

/** A definition the validators check: a component schema, or its own shape (inheritance.ts), which leaves its choice out. */
interface Node {
  name: string
  own: boolean
}

interface Edge {
  target: Node
  pointer: string
}

const nodeId = (node: Node, index: ReadonlyMap<string, number>) => index.get(node.name)! * 2 + (node.own ? 1 : 0)

/**
 * The definitions a component schema's definition refers to without going into its data, each with
 * where the reference is: as the validators build them (json-schema.ts), a parent is its choice
 * alone, a choice selects a parent's own shape, and an `allOf` `$ref` from a schema to the
 * discriminated schema selecting it means that schema's own shape.
 */
function immediateRefs(from: Node, pointer: string, facts: SchemaFacts): Edge[] {
  const catalogue = facts.catalogue
  const edges: Edge[] = []
  const schema = catalogue[from.name]
  const choice = from.own ? undefined : namedDiscriminator(from.name, facts)
  if (choice) {
    for (const [, target] of choice.values) {
      if (Object.hasOwn(catalogue, target))
        edges.push({ target: { name: target, own: isParent(target, facts) }, pointer: joinPointer(pointer, 'discriminator') })
    }
    if (choice.rest !== undefined) edges.push({ target: { name: choice.rest, own: false }, pointer: joinPointer(pointer, choice.mode) })
    if (choice.mode === 'allOf') return edges
  }
  const stack: Array<[unknown, string, boolean]> = [[schema, pointer, true]]
  while (stack.length > 0) {
    const [node, at, root] = stack.pop()!
    if (!isObject(node)) continue
    if ('$ref' in node) {
      // OpenAPI 3.0: a Reference Object's siblings are ignored, so the reference is the whole edge.
      const target = refTarget(node.$ref)
      if (target !== undefined && Object.hasOwn(catalogue, target)) edges.push({ target: { name: target, own: false }, pointer: joinPointer(at, '$ref') })
      continue
    }
    for (const key of COMBINERS) {
      const list = node[key]
      if (!Array.isArray(list)) continue
      // The root's own shape, and its choice (above), leave its members out.
      if (root && key !== 'allOf' && (from.own || choice)) {
        if (choice)
          list.forEach((member, i) => isObject(member) && refTarget(member.$ref) === undefined && stack.push([member, joinPointer(at, key, i), false]))
        continue
      }
      for (let i = list.length - 1; i >= 0; i--) {
        const member = list[i]
        const target = root && key === 'allOf' && isObject(member) ? refTarget(member.$ref) : undefined
        if (target !== undefined && extendsSelector(from.name, target, facts)) {
          edges.push({ target: { name: target, own: true }, pointer: joinPointer(at, key, i, '$ref') })
        } else stack.push([member, joinPointer(at, key, i), false])
      }
    }
    if (isObject(node.not)) stack.push([node.not, joinPointer(at, 'not'), false])
  }
  return edges
}

export const refCycle = benzeneRule({
  code: 'BENZENE_SCHEMA_CYCLE',
  description:
    'A schema refers back to itself through `$ref`, `allOf`, `anyOf`, `oneOf`, `not` or a discriminator alone, never through a property or an item: no value can be decided against it.',
  check({ doc, facts }, report) {
    if (!(isObject(doc) && isObject(doc.components) && isObject(doc.components.schemas))) return
    const schemas = facts.catalogue
    const names = Object.keys(schemas)
    const index = new Map(names.map((name, i) => [name, i]))
    const nodes: Node[] = names.flatMap((name) => [
      { name, own: false },
      { name, own: true },
    ])
    const graph: Digraph<number, Edge> = {
      // Asked once per node entered. A schema without an own shape has no own definition: its own node is never entered.
      edges: (id) => {
        const node = nodes[id]!
        return immediateRefs(node, `/components/schemas/${escapeToken(node.name)}`, facts)
      },
      target: (edge) => nodeId(edge.target, index),
    }
    // Every edge back to a definition on the walk's path closes a cycle, from each component schema in order.
    const roots = nodes.flatMap((node, id) => (node.own ? [] : [id]))
    findCycles(roots, graph, (edge, path, from) => {
      // The message names at most MAX_NAMED schemas of the cycle: O(1) per report, however long it is.
      const cycle = path.nodes.slice(from, from + MAX_NAMED).map((id) => nodes[id]!.name)
      const shown = [...cycle.map((n) => JSON.stringify(n)), ...(path.nodes.length - from > MAX_NAMED ? ['...'] : []), JSON.stringify(edge.target.name)]
      report(edge.pointer, `Schema ${shown.join(' -> ')} refers back to itself without a property or item in between.`, { cycle })
    })
  },
})
