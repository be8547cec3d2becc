import { findCycles, type Digraph } from '../../../core/graph.js'
import { joinPointer, unescapeToken } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../document.js'
import { natsRule } from './rule.js'
import { standardParts } from './standard-reads.js'

/**
 * A payload schema that comes back to itself without a data step (`A: {$ref: B}`, `B: {$ref: A}`,
 * or `A: {anyOf: [{$ref: A}, ...]}`) has no meaning a validator can decide: whether a value matches
 * `A` needs the answer for the same value against `A` again. JSON Schema (2020-12, "Guarding Against
 * Infinite Recursion") says schemas SHOULD NOT do this and leaves the behaviour undefined: a warning.
 * The validators answer no for such a value (they stop at the cycle), and so does the diff. Recursion through `properties`, `items` and the other keywords that apply to a
 * part of the value is fine (each step goes one level into the data).
 *
 * The message schemas are read as the compile makes them local (message-schemas.ts: every schema a
 * payload reaches, in this document or a locked file, is one component): edges are the references a
 * component reaches without a data step, then core's cycle finder. A cycle among the document's own
 * components is reported at the reference that closes it; one among schemas brought in from locked
 * files at each message whose payload or headers reach it.
 *
 * Complexity: O(components' nodes + references), plus one reach per message over the components.
 */

/** Keywords that apply a subschema to the same value, not to a part of it. */
const SAME_VALUE_LISTS = ['allOf', 'anyOf', 'oneOf']
const SAME_VALUE_ONE = ['not', 'if', 'then', 'else']
const SAME_VALUE_MAPS = ['dependentSchemas', 'dependencies']
const PREFIX = '#/components/schemas/'
/** Names a report shows of a cycle: O(1) per report, however long the cycle. */
const MAX_NAMED = 8

interface Edge {
  target: string
  /** Within the component's schema. */
  pointer: string
}

const componentOf = (ref: unknown): string | undefined =>
  typeof ref === 'string' && ref.startsWith(PREFIX) && !ref.slice(PREFIX.length).includes('/') ? unescapeToken(ref.slice(PREFIX.length)) : undefined

/** The components `schema` refers to without going into its value (iterative: schemas nest deep). */
function sameValueRefs(schema: unknown, at: string): Edge[] {
  const edges: Edge[] = []
  const stack: Array<[unknown, string]> = [[schema, at]]
  while (stack.length > 0) {
    const [node, pointer] = stack.pop()!
    if (!isObject(node)) continue
    const target = componentOf(node.$ref)
    if (target !== undefined) edges.push({ target, pointer: joinPointer(pointer, '$ref') })
    for (const key of SAME_VALUE_LISTS) {
      const list = node[key]
      if (Array.isArray(list)) for (let i = list.length - 1; i >= 0; i--) stack.push([list[i], joinPointer(pointer, key, i)])
    }
    for (const key of SAME_VALUE_ONE) if (isObject(node[key])) stack.push([node[key], joinPointer(pointer, key)])
    for (const key of SAME_VALUE_MAPS) {
      const map = node[key]
      if (isObject(map)) for (const name of Object.keys(map)) if (isObject(map[name])) stack.push([map[name], joinPointer(pointer, key, name)])
    }
  }
  return edges
}

/** Every component `schema` refers to, anywhere in it (data steps included). */
function allRefs(schema: unknown, into: Set<string>): void {
  const stack: unknown[] = [schema]
  while (stack.length > 0) {
    const node = stack.pop()
    if (Array.isArray(node)) for (const item of node) stack.push(item)
    else if (isObject(node)) {
      const target = componentOf(node.$ref)
      if (target !== undefined) into.add(target)
      for (const key of Object.keys(node)) if (key !== 'enum' && key !== 'const' && key !== 'examples' && key !== 'default') stack.push(node[key])
    }
  }
}

export const schemaCycle = natsRule({
  code: 'NATS_SCHEMA_CYCLE',
  // JSON Schema says such schemas SHOULD NOT be written and leaves them undefined: a warning. The
  // module is still made: its validators, and the diff, read the cycle as accepting no value.
  severity: 'warning',
  description:
    'A payload or headers schema that refers back to itself through `$ref`, `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else` or `dependentSchemas` alone, never through a property or an item: no value can be decided against it.',
  reads: (ctx) => standardParts(ctx),
  check(ctx, report) {
    const own = isObject(ctx.doc.components) && isObject(ctx.doc.components.schemas) ? ctx.doc.components.schemas : {}
    const { byChannel, extra, own: ownLocal } = ctx.messages
    const schemas: Record<string, unknown> = { ...ownLocal, ...extra }
    const names = Object.keys(schemas)
    const graph: Digraph<string, Edge> = {
      edges: (name) => sameValueRefs(schemas[name], ''),
      target: (edge) => (Object.hasOwn(schemas, edge.target) ? edge.target : undefined),
    }
    const cyclic = new Set<string>()
    findCycles(names, graph, (edge, path, from) => {
      const cycle = path.nodes.slice(from)
      for (const name of cycle) cyclic.add(name)
      const shown = [...cycle.slice(0, MAX_NAMED).map((n) => JSON.stringify(n)), ...(cycle.length > MAX_NAMED ? ['...'] : []), JSON.stringify(edge.target)]
      const closing = path.nodes[path.nodes.length - 1]!
      // A cycle closed in the document's own components is reported where it is written.
      if (Object.hasOwn(own, closing) && !Object.hasOwn(extra, closing))
        report(
          ctx.pointer('components', 'schemas', closing) + edge.pointer,
          `Schema ${shown.join(' -> ')} refers back to itself without a property or item in between: a validation that follows it comes back to it without reading the value, so it fails at the depth limit: the validators accept only what another branch decides first.`,
          { cycle: cycle.slice(0, MAX_NAMED) },
        )
    })
    // A cycle among schemas brought in from locked files: reported at each message that reaches one.
    const brought = [...cyclic].filter((name) => Object.hasOwn(extra, name) && !Object.hasOwn(own, name))
    if (brought.length === 0) return
    const bad = new Set(brought)
    /** Whether the components `start` names reach one of the cycle: each component's references read once per message at most. */
    const reachesCycle = (start: Set<string>): boolean => {
      const seen = new Set<string>()
      const queue = [...start]
      while (queue.length > 0) {
        const name = queue.pop()!
        if (seen.has(name) || !Object.hasOwn(schemas, name)) continue
        if (bad.has(name)) return true
        seen.add(name)
        const next = new Set<string>()
        allRefs(schemas[name], next)
        queue.push(...next)
      }
      return false
    }
    for (const channel of ctx.channelList)
      for (const message of byChannel.get(channel.id) ?? []) {
        const refs = new Set<string>()
        allRefs(message.payload, refs)
        allRefs(message.headers, refs)
        if (refs.size > 0 && reachesCycle(refs))
          report(
            ctx.pointer('channels', channel.id, 'messages', message.name),
            `This message's schemas reach ${brought
              .slice(0, MAX_NAMED)
              .map((n) => JSON.stringify(n))
              .join(
                ', ',
              )} (brought in from a locked file), which refer back to themselves without a property or item in between: a validation that follows them comes back to them without reading the value, so it fails at the depth limit: the validators accept only what another branch decides first.`,
            { cycle: brought.slice(0, MAX_NAMED) },
          )
      }
  },
})
