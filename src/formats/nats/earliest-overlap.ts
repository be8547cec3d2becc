/**
 * "Which earlier subject pattern overlaps this one, if any?" for rules that compare a list of NATS
 * subject patterns (`*` one token, `>` the rest) among themselves or against another list: the
 * workqueue-consumer rule and the consumer-within-stream rule. Comparing every pair was quadratic
 * (4,000 workqueue consumers: 11.8 s). Same answers as `subjectsOverlap` (wildcards.ts), including
 * its reading of a `>` that is not last (it matches the rest of the subject wherever it stands).
 *
 * A trie over tokens. Patterns are added in order, numbered 0, 1, 2, ...; each node keeps the
 * first pattern that ends there, the first whose next token is `>`, and the first that passes
 * through it at all (`below`). Since numbers only grow, "first" is "earliest", nothing is ever
 * replaced, and a node's children iterate (Map insertion order) in increasing `below`. A query walks
 * the branches its tokens allow (a literal: its own child and the `*` child; a `*`: every child; a
 * `>`: the earliest `below` of the children, one step each), skipping any branch whose `below`
 * cannot beat the best match found, and stopping a fan-out at the first child that matched.
 *
 * Cost: a query is O(its tokens) when its wildcards meet few branches, O(1) more per match; the
 * worst case (a `*` meeting many branches that all fail later: `c<i>.a` against `*.b`) costs one
 * step per branch. Every step is counted against a budget shared by the caller's whole rule; past it
 * `earliest` answers UNDECIDED, so a rule costs at most O(budget + its input) whatever the input.
 */

interface TrieNode {
  readonly children: Map<string, TrieNode>
  /** The first pattern with exactly this many tokens ending here. */
  end?: number
  /** The first pattern whose next token here is `>`. */
  rest?: number
  /** The first pattern that reaches this node at all (ending here, resting here, or going deeper); 0 at the root. */
  readonly below: number
}

/** The answer when the shared budget ran out before the question was decided. */
export const UNDECIDED = Symbol('undecided')

/** Steps a rule may spend on its queries, shared by every index it builds. */
export class StepBudget {
  private spent = 0
  constructor(readonly limit: number) {}
  /** Spends one step; false once the limit is passed. */
  step(): boolean {
    return ++this.spent <= this.limit
  }
}

export class EarliestOverlapIndex {
  private readonly root: TrieNode = { children: new Map(), below: 0 }
  private count = 0

  constructor(private readonly budget: StepBudget) {}

  /** Adds the next pattern; returns its number (0, 1, 2, ... in the order added). */
  add(subject: string): number {
    const order = this.count++
    let at = this.root
    for (const token of subject.split('.')) {
      if (token === '>') {
        at.rest ??= order
        return order
      }
      let next = at.children.get(token)
      if (!next) at.children.set(token, (next = { children: new Map(), below: order }))
      at = next
    }
    at.end ??= order
    return order
  }

  /** The number of the earliest added pattern that shares a subject with `subject`, undefined when none does. */
  earliest(subject: string): number | undefined | typeof UNDECIDED {
    if (this.count === 0) return undefined
    const tokens = subject.split('.')
    let best = Number.POSITIVE_INFINITY
    const take = (order: number | undefined) => {
      if (order !== undefined && order < best) best = order
    }
    // Iterative (a subject may have many tokens). A frame is a node reached after `i` tokens, or the
    // children still to visit under a `*` of the query (walked lazily, earliest first).
    type Frame = { node: TrieNode; i: number } | { children: Iterator<TrieNode>; i: number }
    const stack: Frame[] = [{ node: this.root, i: 0 }]
    while (stack.length > 0) {
      if (!this.budget.step()) return UNDECIDED
      const frame = stack.pop()!
      if ('children' in frame) {
        const next = frame.children.next()
        // Later children start later still: once one cannot beat the best, none can.
        if (next.done || next.value.below >= best) continue
        stack.push(frame, { node: next.value, i: frame.i })
        continue
      }
      const { node: at, i } = frame
      if (at.below >= best) continue
      const token = tokens[i]
      if (token === undefined) {
        take(at.end)
        continue
      }
      // A stored `>` here matches the query's token i and everything after it.
      take(at.rest)
      if (token === '>') {
        // The query's `>` matches every stored pattern with a token here; the first child starts earliest.
        const first = at.children.values().next()
        if (!first.done) take(first.value.below)
      } else if (token === '*') {
        stack.push({ children: at.children.values(), i: i + 1 })
      } else {
        const star = at.children.get('*')
        if (star) stack.push({ node: star, i: i + 1 })
        const own = at.children.get(token)
        if (own) stack.push({ node: own, i: i + 1 })
      }
    }
    return best === Number.POSITIVE_INFINITY ? undefined : best
  }
}
