import { findCycles } from '../../../../core/graph.js'

/**
 * How deep rustc goes into the types the Rust target writes, and the bounds past which it refuses
 * them. Two limits, both its recursion limit (128), measured with rustc 1.95 and serde's derives
 * (test/rust-deep-chains.test.ts):
 *
 * - Its drop check (E0320) follows every struct a struct holds, boxed or not, and the `Option`,
 *   `Vec` and map around it. Chains of structs each holding the next: 158 build and 159 do not
 *   through required members (`Box<Next>`), 79 and 80 through optional ones (`Option<Box<Next>>`),
 *   63 and 64 through `Option<Vec<Next>>`, 42 and 43 through `Option<BTreeMap<String, Next>>`, 47
 *   and 48 through nullable objects with an optional member (`Option<Option<Box<Next>>>`, an
 *   outside pass); a struct holding maps of maps, 63 and 64 deep, nullable ones 42 and 43. In
 *   quarter levels (a struct 4, an `Option` 4, a `Vec` 2, a map 10, a `Box` or an alias nothing)
 *   rustc is not additive: the first chain refused measures 576 (the nullable objects) to 636. The
 *   target writes at most DROP_CHECK_BUDGET, a sixth under the least of them.
 * - Its trait solver (E0275) nests one obligation per generic type around another: a struct holding
 *   lists of lists builds 127 deep and not 128. The target writes at most GENERIC_NESTING generic
 *   types one inside another, through aliases (a struct's own impls start again).
 */
export const DROP_CHECK_BUDGET = 480
export const GENERIC_NESTING = 120

/** What each generic type around a member costs (quarter levels); one not listed costs as a map does. */
const WRAPPER_COST: Readonly<Record<string, number>> = {
  Option: 4,
  Box: 0,
  Vec: 2,
  'std::collections::BTreeMap': 10,
}
const UNKNOWN_WRAPPER = 10
const STRUCT_COST = 4

/** A type the target writes: a struct (or a newtype struct) holding `types`, or an alias of one type. */
export interface DropCheckNode {
  readonly id: string
  readonly struct: boolean
  /** Its members' types (a struct's), or the aliased type, as written (`Option<Vec<A1>>`). */
  readonly types: readonly string[]
}

interface Held {
  /** The named type held. */
  readonly to: string
  /** What the generic types around it cost (drop check). */
  readonly cost: number
  /** How many generic types are around it. */
  readonly levels: number
}

/**
 * The types of `known` a written type names, each with the generic types around it (`Option<Vec<A1>>`
 * holds `A1` at a cost of 4 + 2, two levels down), and the most generic types nested anywhere in it.
 * Linear in the text.
 */
export function heldTypes(type: string, known: ReadonlySet<string>): { held: Held[]; nesting: number } {
  const held: Held[] = []
  // The costs of the generic types open around the current token, and their sum.
  const open: number[] = []
  let total = 0
  let nesting = 0
  let last: string | undefined
  for (const token of type.match(/[A-Za-z_][\w:]*|[<>,]/g) ?? []) {
    if (token === '<') {
      const cost = last === undefined ? 0 : Object.hasOwn(WRAPPER_COST, last) ? WRAPPER_COST[last]! : UNKNOWN_WRAPPER
      open.push(cost)
      total += cost
      nesting = Math.max(nesting, open.length)
      last = undefined
    } else if (token === '>') {
      total -= open.pop() ?? 0
      last = undefined
    } else if (token === ',') last = undefined
    else {
      if (known.has(token)) held.push({ to: token, cost: total, levels: open.length })
      last = token
    }
  }
  return { held, nesting }
}

/**
 * For each node, the deepest drop check among the chains it starts (quarter levels) and the most
 * generic types nested in it through aliases; a member within a cycle is left out (rustc stops
 * where a type comes back to itself). Iterative: each node and each member once.
 */
export function typeDepths(nodes: readonly DropCheckNode[]): Map<string, { dropCheck: number; nesting: number }> {
  const byId = new Map(nodes.map((n) => [n.id, n]))
  const known = new Set(byId.keys())
  const read = new Map(
    nodes.map((n) => {
      const each = n.types.map((t) => heldTypes(t, known))
      return [n.id, { held: each.flatMap((e) => e.held), nesting: each.reduce((most, e) => Math.max(most, e.nesting), 0) }] as const
    }),
  )
  const cycles = findCycles(byId.keys(), { edges: (id: string) => read.get(id)!.held.map((h) => h.to), target: (to: string) => to })
  const inCycle = (from: string, to: string) => from === to || (cycles.componentOf(from)?.has(to) ?? false)
  const depths = new Map<string, { dropCheck: number; nesting: number }>()
  for (const start of byId.keys()) {
    if (depths.has(start)) continue
    const stack: Array<{ id: string; next: number; dropCheck: number; nesting: number }> = [
      { id: start, next: 0, dropCheck: 0, nesting: read.get(start)!.nesting },
    ]
    const open = new Set([start])
    const fold = (parent: (typeof stack)[number], member: Held, child: { dropCheck: number; nesting: number }) => {
      parent.dropCheck = Math.max(parent.dropCheck, member.cost + child.dropCheck)
      // A struct's own impls start again: only an alias's nesting adds to its holder's.
      if (!byId.get(member.to)!.struct) parent.nesting = Math.max(parent.nesting, member.levels + child.nesting)
    }
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!
      const members = read.get(top.id)!.held
      if (top.next < members.length) {
        const member = members[top.next++]!
        if (inCycle(top.id, member.to)) continue
        const done = depths.get(member.to)
        if (done !== undefined) fold(top, member, done)
        else if (!open.has(member.to)) {
          open.add(member.to)
          stack.push({ id: member.to, next: 0, dropCheck: 0, nesting: read.get(member.to)!.nesting })
        }
        continue
      }
      stack.pop()
      open.delete(top.id)
      const own = { dropCheck: (byId.get(top.id)!.struct ? STRUCT_COST : 0) + top.dropCheck, nesting: top.nesting }
      depths.set(top.id, own)
      const parent = stack[stack.length - 1]
      if (parent) fold(parent, read.get(parent.id)!.held[parent.next - 1]!, own)
    }
  }
  return depths
}
