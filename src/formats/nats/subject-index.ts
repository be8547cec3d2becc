/**
 * An index of NATS subject patterns (`*` one token, a final `>` one or more) that answers "which
 * patterns already added overlap this one?" without comparing against every pattern: a trie over
 * tokens, walked along the query's tokens. A literal query token follows its own branch and the
 * `*` branch; a `*` follows every branch; a final `>` collects the subtree. So a document whose
 * subjects share a first token and a few last tokens (`acme.*.*.thing42.created`) costs what its
 * overlaps cost, not the square of its subjects (bench/: 5,000 such subjects went past 5,000,000
 * pair comparisons).
 *
 * Cost: O(tokens of the query x branches a `*` or `>` in it fans out to, + matches). Every visit is
 * counted against the caller's budget; past it `overlapping` returns undefined (undecided), so the
 * worst case stays bounded.
 */
interface TrieNode<T> {
  readonly children: Map<string, TrieNode<T>>
  /** Patterns ending here (exactly this many tokens). */
  readonly ends: T[]
  /** Patterns whose next (and last) token is `>`. */
  readonly rest: T[]
}

const node = <T>(): TrieNode<T> => ({ children: new Map(), ends: [], rest: [] })

export class SubjectIndex<T> {
  private readonly root: TrieNode<T> = node()
  private visits = 0

  constructor(private readonly budget: number) {}

  add(subject: string, value: T): void {
    const tokens = subject.split('.')
    let at = this.root
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i]!
      if (token === '>' && i === tokens.length - 1) {
        at.rest.push(value)
        return
      }
      let next = at.children.get(token)
      if (!next) at.children.set(token, (next = node()))
      at = next
    }
    at.ends.push(value)
  }

  /** The values of every added pattern that shares a subject with `subject`; undefined past the budget. */
  overlapping(subject: string): T[] | undefined {
    const tokens = subject.split('.')
    const out: T[] = []
    const walk = (at: TrieNode<T>, i: number): boolean => {
      if (++this.visits > this.budget) return false
      const token = tokens[i]
      if (token === undefined) {
        for (const v of at.ends) out.push(v)
        return true
      }
      // A pattern ending in `>` here matches one or more further tokens, which the query has.
      for (const v of at.rest) out.push(v)
      if (token === '>' && i === tokens.length - 1) return this.collect(at, out)
      if (token === '*') {
        for (const child of at.children.values()) if (!walk(child, i + 1)) return false
        return true
      }
      const own = at.children.get(token)
      if (own && !walk(own, i + 1)) return false
      const star = token === '*' ? undefined : at.children.get('*')
      return star === undefined || walk(star, i + 1)
    }
    return walk(this.root, 0) ? out : undefined
  }

  /** Everything below `at` that is at least one token longer (what a final `>` of the query meets); `rest` of `at` is taken already. */
  private collect(at: TrieNode<T>, out: T[]): boolean {
    const stack = [...at.children.values()]
    while (stack.length > 0) {
      if (++this.visits > this.budget) return false
      const n = stack.pop()!
      for (const v of n.ends) out.push(v)
      for (const v of n.rest) out.push(v)
      for (const child of n.children.values()) stack.push(child)
    }
    return true
  }
}
