/**
 * The cycle finder every format uses: one depth-first walk that reports each edge closing a cycle
 * as it meets it (the walk's back edges) and groups the nodes into strongly connected components
 * (Tarjan's algorithm), and a shortest cycle through a node inside its component. Reachability
 * without cycles lives in the runtime (`reach`, src/runtime/shared/reach.ts), which generated code
 * calls too; it is re-exported here so compile-time code finds both graph helpers in one place.
 *
 * Nothing here recurses: the graphs come from documents, and a chain of 100,000 references would
 * overflow the call stack of a recursive walk. Each node is entered once and each edge followed
 * once: O(nodes + edges), plus what the callers do per back edge.
 */

export { reach } from '../runtime/shared/reach.js'

/**
 * The nodes at most `levels` steps from `starts` (the starts are the first step), breadth-first:
 * each node entered once, each edge of a node nearer than `levels` followed once.
 */
export function reachWithin<N>(starts: Iterable<N>, edges: (node: N) => Iterable<N>, levels: number): Set<N> {
  const out = new Set<N>()
  let level: N[] = []
  for (const node of starts)
    if (!out.has(node)) {
      out.add(node)
      level.push(node)
    }
  for (let step = 1; step < levels && level.length > 0; step++) {
    const next: N[] = []
    for (const node of level)
      for (const target of edges(node))
        if (!out.has(target)) {
          out.add(target)
          next.push(target)
        }
    level = next
  }
  return out
}

/** A directed graph as the walk reads it: each node's out-edges in order, and where an edge leads. */
export interface Digraph<N, E> {
  /** The node's out-edges, in the order they are followed (asked once per node entered). */
  edges(node: N): readonly E[]
  /** The node an edge leads to, or undefined when it leads out of the graph (it is not followed). */
  target(edge: E): N | undefined
}

/** The walk's current path: `nodes[0]` is the root, `edges[i]` the edge from `nodes[i]` to `nodes[i + 1]`. Live: copy what you keep. */
export interface WalkPath<N, E> {
  readonly nodes: readonly N[]
  readonly edges: readonly E[]
}

/**
 * An edge from the node at the top of the path back to the node at `depth` of it: the path from
 * `depth` on, and this edge, are a cycle (a self-loop when `depth` is the top).
 */
export type BackEdgeVisitor<N, E> = (edge: E, path: WalkPath<N, E>, depth: number) => void

/** What the walk found: each entered node's strongly connected component. */
export interface Components<N> {
  /** The members of `node`'s component (undefined for a node the walk never entered). */
  componentOf(node: N): ReadonlySet<N> | undefined
  /** Whether `node` is on a cycle: its component has another member, or it has an edge to itself. */
  onCycle(node: N): boolean
}

/**
 * One depth-first walk from each root not yet entered, in order, following each node's edges in
 * their order. `onBackEdge` hears each edge back to a node on the current path, in the order the
 * walk meets them: the cycles a depth-first search reports, the same as a recursive search in the
 * same order would. Returns the strongly connected components of everything entered.
 */
export function findCycles<N, E>(roots: Iterable<N>, graph: Digraph<N, E>, onBackEdge?: BackEdgeVisitor<N, E>): Components<N> {
  /** Tarjan's numbering: the order entered, and the lowest number reachable within the component. */
  const index = new Map<N, number>()
  const low: number[] = []
  /** Nodes entered whose component is not closed yet. */
  const open: N[] = []
  const isOpen = new Set<N>()
  const component = new Map<N, Set<N>>()
  const selfLoop = new Set<N>()
  /** The walk's path, with each node's depth on it (present while the node is on the path). */
  const nodes: N[] = []
  const entered: E[] = []
  const depthOf = new Map<N, number>()
  const frames: Array<{ at: number; edges: readonly E[]; next: number }> = []
  const path: WalkPath<N, E> = { nodes, edges: entered }

  const enter = (node: N) => {
    const at = low.length
    index.set(node, at)
    low.push(at)
    open.push(node)
    isOpen.add(node)
    depthOf.set(node, nodes.length)
    nodes.push(node)
    frames.push({ at, edges: graph.edges(node), next: 0 })
  }

  for (const root of roots) {
    if (index.has(root)) continue
    enter(root)
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!
      const node = nodes[nodes.length - 1]!
      const at = frame.at
      if (frame.next < frame.edges.length) {
        const edge = frame.edges[frame.next++]!
        const to = graph.target(edge)
        if (to === undefined) continue
        const seen = index.get(to)
        if (seen === undefined) {
          entered.push(edge)
          enter(to)
          continue
        }
        const depth = depthOf.get(to)
        if (depth !== undefined) {
          if (to === node) selfLoop.add(node)
          onBackEdge?.(edge, path, depth)
        }
        if (isOpen.has(to)) low[at] = Math.min(low[at]!, seen)
        continue
      }
      // Every edge followed: leave the node, and close its component if it is the component's first.
      frames.pop()
      nodes.pop()
      entered.pop()
      depthOf.delete(node)
      const parent = frames[frames.length - 1]
      if (parent !== undefined) low[parent.at] = Math.min(low[parent.at]!, low[at]!)
      if (low[at] === at) {
        const members = new Set<N>()
        for (let member = open.pop()!; ; member = open.pop()!) {
          isOpen.delete(member)
          members.add(member)
          component.set(member, members)
          if (member === node) break
        }
      }
    }
  }
  return {
    componentOf: (node) => component.get(node),
    onCycle: (node) => {
      const members = component.get(node)
      return members !== undefined && (members.size > 1 || selfLoop.has(node))
    },
  }
}

/**
 * A shortest cycle through `start` (fewest edges), staying inside `within` (its component, say):
 * the nodes along it from `start` back to `start`, or undefined when there is none. Breadth-first,
 * edges in their order, so among cycles of one length the first met is given. O(nodes + edges).
 */
export function shortestCycle<N, E>(start: N, graph: Digraph<N, E>, within: (node: N) => boolean = () => true): N[] | undefined {
  const parent = new Map<N, N>()
  const queue = [start]
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!
    for (const edge of graph.edges(node)) {
      const to = graph.target(edge)
      if (to === undefined) continue
      if (to === start) {
        // The nodes between, collected from the last back to the first.
        const between: N[] = []
        for (let at = node; at !== start; at = parent.get(at)!) between.push(at)
        return [start, ...between.reverse(), start]
      }
      if (within(to) && !parent.has(to)) {
        parent.set(to, node)
        queue.push(to)
      }
    }
  }
  return undefined
}

/**
 * For each node reached from `nodes`, the number of edges on the longest path from it that never
 * comes back to a node on the way (an edge back to a node still being walked adds nothing: a cycle
 * has no longest path of its own). One depth-first walk with an explicit stack: each node entered
 * once, each edge followed once.
 */
export function longestPaths<N>(nodes: Iterable<N>, edges: (node: N) => readonly N[]): Map<N, number> {
  const height = new Map<N, number>()
  const onStack = new Set<N>()
  for (const start of nodes) {
    if (height.has(start)) continue
    const stack: Array<{ node: N; out: readonly N[]; next: number; best: number }> = [{ node: start, out: edges(start), next: 0, best: 0 }]
    onStack.add(start)
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!
      if (top.next < top.out.length) {
        const to = top.out[top.next++]!
        const known = height.get(to)
        if (known !== undefined) top.best = Math.max(top.best, known + 1)
        else if (!onStack.has(to)) {
          onStack.add(to)
          stack.push({ node: to, out: edges(to), next: 0, best: 0 })
        }
        continue
      }
      stack.pop()
      onStack.delete(top.node)
      height.set(top.node, top.best)
      const parent = stack[stack.length - 1]
      if (parent) parent.best = Math.max(parent.best, top.best + 1)
    }
  }
  return height
}
