import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { findCycles, reach, shortestCycle, type Digraph } from '../src/core/graph.js'

/** A small graph as adjacency lists over 0..n-1, with roots; edges may repeat and loop. */
const graphs = fc.integer({ min: 1, max: 8 }).chain((n) =>
  fc.record({
    adj: fc.array(fc.array(fc.integer({ min: 0, max: n - 1 }), { maxLength: 4 }), { minLength: n, maxLength: n }),
    roots: fc.array(fc.integer({ min: 0, max: n - 1 }), { minLength: 1, maxLength: n }),
  }),
)

interface Edge {
  from: number
  to: number
}

const digraph = (adj: number[][]): Digraph<number, Edge> => ({
  edges: (node) => adj[node]!.map((to) => ({ from: node, to })),
  target: (edge) => edge.to,
})

/** The oracle: `paths[a][b]` when b can be reached from a by one edge or more, by a naive fixpoint over the edge relation. */
function pathsOf(adj: number[][]): boolean[][] {
  const n = adj.length
  const paths = adj.map((out) => Array.from({ length: n }, (_, b) => out.includes(b)))
  for (let changed = true, rounds = 0; changed && rounds <= n; rounds++) {
    changed = false
    for (let a = 0; a < n; a++)
      for (let b = 0; b < n; b++)
        if (!paths[a]![b]) {
          if (adj[a]!.some((m) => paths[m]![b])) {
            paths[a]![b] = true
            changed = true
          }
        }
  }
  return paths
}

/** Nodes reachable from the roots, roots included (zero edges or more). */
const reachedFrom = (roots: number[], paths: boolean[][]) =>
  new Set(Array.from({ length: paths.length }, (_, b) => b).filter((b) => roots.some((r) => r === b || paths[r]![b])))

describe('findCycles', () => {
  test('every back edge closes a real cycle, and a graph with a cycle among what the roots reach reports one', () => {
    fc.assert(
      fc.property(graphs, ({ adj, roots }) => {
        const reported: number[][] = []
        findCycles(roots, digraph(adj), (edge, path, depth) => {
          const nodes = path.nodes.slice(depth)
          // The path's edges really are edges, and the back edge leads to where the cycle starts.
          for (let i = 0; i + 1 < nodes.length; i++) expect(adj[nodes[i]!]).toContain(nodes[i + 1])
          expect(path.edges.slice(depth).map((e) => e.to)).toEqual(nodes.slice(1))
          expect(edge.from).toBe(nodes.at(-1))
          expect(edge.to).toBe(nodes[0])
          reported.push([...nodes, edge.to])
        })
        const paths = pathsOf(adj)
        const cyclic = [...reachedFrom(roots, paths)].some((a) => paths[a]![a])
        expect(reported.length > 0).toBe(cyclic)
      }),
      { numRuns: 3000 },
    )
  })

  test('components are the mutually reachable nodes, and onCycle is "reaches itself"', () => {
    fc.assert(
      fc.property(graphs, ({ adj, roots }) => {
        const found = findCycles(roots, digraph(adj))
        const paths = pathsOf(adj)
        const entered = reachedFrom(roots, paths)
        for (let a = 0; a < adj.length; a++) {
          if (!entered.has(a)) {
            expect(found.componentOf(a)).toBeUndefined()
            expect(found.onCycle(a)).toBe(false)
            continue
          }
          const members = found.componentOf(a)!
          for (let b = 0; b < adj.length; b++) expect(members.has(b)).toBe(a === b || (paths[a]![b]! && paths[b]![a]!))
          expect(found.onCycle(a)).toBe(paths[a]![a])
        }
      }),
      { numRuns: 3000 },
    )
  })

  test('an edge out of the graph (target undefined) is not followed', () => {
    const adj = [[1], [0]]
    const graph: Digraph<number, number> = { edges: (node) => adj[node]!, target: (to) => (to === 0 ? undefined : to) }
    const backs: number[] = []
    const found = findCycles([0], graph, (edge) => backs.push(edge))
    expect(backs).toEqual([])
    expect(found.onCycle(0)).toBe(false)
    expect(found.componentOf(1)).toEqual(new Set([1]))
  })

  test('asks each node for its edges once, however many edges lead to it', () => {
    const adj = [
      [1, 2, 3],
      [2, 3, 0],
      [3, 0, 1],
      [0, 1, 2],
    ]
    const asked: number[] = []
    findCycles([0, 1, 2, 3], { edges: (node: number) => (asked.push(node), adj[node]!), target: (to: number) => to })
    expect(asked.sort()).toEqual([0, 1, 2, 3])
  })
})

describe('shortestCycle', () => {
  test('a real cycle through the start of the fewest edges, or none exactly when the start reaches no cycle back', () => {
    fc.assert(
      fc.property(graphs, ({ adj, roots }) => {
        const graph = digraph(adj)
        const start = roots[0]!
        const cycle = shortestCycle(start, graph)
        const paths = pathsOf(adj)
        if (!paths[start]![start]) {
          expect(cycle).toBeUndefined()
          return
        }
        expect(cycle).toBeDefined()
        expect(cycle![0]).toBe(start)
        expect(cycle!.at(-1)).toBe(start)
        for (let i = 0; i + 1 < cycle!.length; i++) expect(adj[cycle![i]!]).toContain(cycle![i + 1])
        // The oracle's shortest: breadth-first distances from the start, then the closing edge.
        const dist = new Map<number, number>([[start, 0]])
        const queue = [start]
        for (let i = 0; i < queue.length; i++)
          for (const to of adj[queue[i]!]!)
            if (!dist.has(to)) {
              dist.set(to, dist.get(queue[i]!)! + 1)
              queue.push(to)
            }
        const shortest = Math.min(...[...dist].filter(([node]) => adj[node]!.includes(start)).map(([, d]) => d + 1))
        expect(cycle!.length - 1).toBe(shortest)
      }),
      { numRuns: 3000 },
    )
  })

  test('stays inside `within`', () => {
    // 0 -> 1 -> 0 is the short way, 0 -> 2 -> 3 -> 0 the one inside {0, 2, 3}.
    const adj = [[1, 2], [0], [3], [0]]
    expect(shortestCycle(0, digraph(adj))).toEqual([0, 1, 0])
    expect(shortestCycle(0, digraph(adj), (node) => node !== 1)).toEqual([0, 2, 3, 0])
    expect(shortestCycle(0, digraph(adj), (node) => node === 0)).toBeUndefined()
  })
})

describe('reach', () => {
  test('equals the naive fixpoint', () => {
    fc.assert(
      fc.property(graphs, ({ adj, roots }) => {
        expect(reach(roots, (node) => adj[node]!)).toEqual(reachedFrom(roots, pathsOf(adj)))
      }),
      { numRuns: 3000 },
    )
  })

  test('undefined when a reached node cannot be followed; each node asked once', () => {
    fc.assert(
      fc.property(graphs, fc.integer({ min: 0, max: 7 }), ({ adj, roots }, stop) => {
        const asked: number[] = []
        const got = reach(roots, (node) => (asked.push(node), node === stop ? undefined : adj[node]!))
        const reachable = reachedFrom(roots, pathsOf(adj))
        if (reachable.has(stop)) expect(got).toBeUndefined()
        else expect(got).toEqual(reachable)
        expect(new Set(asked).size).toBe(asked.length)
      }),
      { numRuns: 3000 },
    )
  })
})

describe('hostile depth: a chain of 100,000 nodes, which a recursive walk would overflow', () => {
  const n = 100_000
  // i -> i + 1, and the last back to the first: one cycle through every node.
  const ring = (node: number) => [(node + 1) % n]
  const graph: Digraph<number, number> = { edges: ring, target: (to) => to }

  test('findCycles: the one back edge, at depth 0, with the whole chain on the path', () => {
    const backs: Array<{ edge: number; depth: number; length: number }> = []
    const found = findCycles([0], graph, (edge, path, depth) => backs.push({ edge, depth, length: path.nodes.length }))
    expect(backs).toEqual([{ edge: 0, depth: 0, length: n }])
    expect(found.componentOf(n - 1)!.size).toBe(n)
    expect(found.onCycle(n / 2)).toBe(true)
  })

  test('findCycles on the chain without its closing edge: none, every node its own component', () => {
    const chain: Digraph<number, number> = { edges: (node) => (node + 1 < n ? [node + 1] : []), target: (to) => to }
    const backs: number[] = []
    const found = findCycles([0], chain, (edge) => backs.push(edge))
    expect(backs).toEqual([])
    expect(found.onCycle(0)).toBe(false)
    expect(found.componentOf(n - 1)).toEqual(new Set([n - 1]))
  })

  test('shortestCycle and reach', () => {
    const cycle = shortestCycle(0, graph)!
    expect(cycle.length).toBe(n + 1)
    expect(cycle.slice(0, 3)).toEqual([0, 1, 2])
    expect(reach([0], ring).size).toBe(n)
  })
})
