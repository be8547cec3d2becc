/**
 * The one reachability walk: every node reachable from `roots` (the roots included) through `next`.
 * Generated code rebuilds schema closures with it at run time (`componentGraph`) and the compiler
 * follows schema references with it (src/core/graph.ts re-exports it), so it lives in the runtime.
 *
 * `next(node)` gives the node's successors, or undefined for a node that cannot be followed: the
 * walk then stops and answers undefined (a caller's "one of them is not usable"; a caller that
 * must throw throws from `next`). Each node is asked once, and only once it is reached.
 *
 * Order (callers print the set in it, so it is part of their output): depth-first with an explicit
 * stack, the last root first and a node's last successor first. Iterative: a chain of 100,000
 * references does not touch the call stack. O(nodes + edges).
 */
export function reach<N>(roots: Iterable<N>, next: (node: N) => Iterable<N>): Set<N>
export function reach<N>(roots: Iterable<N>, next: (node: N) => Iterable<N> | undefined): Set<N> | undefined
export function reach<N>(roots: Iterable<N>, next: (node: N) => Iterable<N> | undefined): Set<N> | undefined {
  const reached = new Set<N>()
  const stack = [...roots]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (reached.has(node)) continue
    const successors = next(node)
    if (successors === undefined) return undefined
    reached.add(node)
    // A successor already reached would be skipped when popped: it is not pushed at all.
    for (const to of successors) if (!reached.has(to)) stack.push(to)
  }
  return reached
}
