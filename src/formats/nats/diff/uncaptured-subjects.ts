/**
 * Which subjects of a channel a stream no longer captures: a subject of the channel that one of the
 * stream's old patterns matches, none of its new patterns does, and every `required` pattern does
 * (the filter of the consumer a subscriber reads). Such a subject proves the party using the channel
 * loses what the stream stored for it: a publisher's message is no longer stored (a stream-ack
 * publisher's acknowledgment never comes), a subscriber's consumer is no longer handed it.
 *
 * Patterns tell tokens apart only by the literals they name, so at each position the candidates are
 * those literals (where the channel's token language has them) and one token of the language that is
 * none of them: a depth-first search over the channel's positions, a placeholder written twice
 * (`a.{x}.{x}`) taking one token on all its positions. Exact within its budget: a call takes at most
 * `budget.steps` steps, O(patterns) each, and is charged its setup (patterns and positions); the
 * budget is shared by the calls of one question over many channels, so n channels cost at most the
 * budget in all. Past it the answer is `decided: false`.
 */
import { inDomain } from '../../../runtime/nats/tokens.js'
import { sampleToken, tokenOutside, type SubjectShape } from './subject-inclusion.js'

/** Steps the searches of one question over a version's channels (one stream's) may take in all before the rest are undecided. */
export const UNCAPTURED_STEP_BUDGET = 100_000

export type Uncaptured = { found: true; subject: string } | { found: false; decided: boolean }

/** What a search may still spend (one object per stream comparison). */
export interface SearchBudget {
  steps: number
}

/** A pattern's state over the tokens chosen so far: still matching with positions left, matched whatever follows (a `>` took the rest), or not matching. */
const ALIVE = 0
const MATCHED = 1
const DEAD = 2

export function uncapturedSubject(
  shape: SubjectShape,
  captured: readonly string[],
  released: readonly string[],
  required: readonly string[],
  budget: SearchBudget,
): Uncaptured {
  // Its setup is charged too, so a budget spent makes every later call cheap.
  budget.steps -= captured.length + released.length + required.length + shape.length
  if (budget.steps < 0) return { found: false, decided: false }
  const groups = [captured, released, required].map((list) => list.map((p) => p.split('.')))
  const [was, now, must] = groups as [string[][], string[][], string[][]]
  const patterns = [...was, ...now, ...must]
  const length = shape.length
  const [a, b] = [was.length, was.length + now.length]
  // Each class's candidates (a class: one literal position, or all positions of one placeholder):
  // the literals patterns name on its positions that its language has, then one token of the
  // language that is none of them (it matches only wildcards there).
  const candidates = shape.classes.map((c) => {
    const literals = [...new Set(c.positions.flatMap((i) => patterns.map((p) => p[i]).filter((t): t is string => t !== undefined && t !== '*' && t !== '>')))]
    const other = literals.length === 0 ? sampleToken(c.domain) : tokenOutside(c.domain, { kind: 'enum', values: literals })
    const own = literals.filter((t) => inDomain(c.domain, t))
    return other === undefined ? own : [other, ...own]
  })
  const chosen: string[] = []
  const classToken = new Map<number, string>()
  let exhausted = false
  const ends = (pattern: readonly string[], state: number) => state === MATCHED || (state === ALIVE && pattern.length === length)
  const search = (at: number, states: readonly number[]): boolean => {
    if (--budget.steps < 0) {
      exhausted = true
      return false
    }
    if (at === length)
      return was.some((p, i) => ends(p, states[i]!)) && !now.some((p, i) => ends(p, states[a + i]!)) && must.every((p, i) => ends(p, states[b + i]!))
    // No old pattern can still match, a required one cannot, or a new one already matches whatever follows.
    if (!states.slice(0, a).some((s) => s !== DEAD) || states.slice(b).some((s) => s === DEAD) || states.slice(a, b).some((s) => s === MATCHED)) return false
    const cls = shape.classAt[at]!
    const tied = classToken.get(cls)
    for (const token of tied === undefined ? candidates[cls]! : [tied]) {
      chosen[at] = token
      if (tied === undefined) classToken.set(cls, token)
      const found = search(
        at + 1,
        states.map((state, i) => advance(patterns[i]!, state, at, token)),
      )
      if (tied === undefined) classToken.delete(cls)
      if (found) return true
      if (exhausted) return false
    }
    return false
  }
  if (
    search(
      0,
      patterns.map(() => ALIVE),
    )
  )
    return { found: true, subject: chosen.join('.') }
  return { found: false, decided: !exhausted }
}

/** A pattern's state once the token at position `at` is chosen. */
function advance(pattern: readonly string[], state: number, at: number, token: string): number {
  if (state !== ALIVE) return state
  const p = pattern[at]
  if (p === undefined) return DEAD
  if (p === '>') return MATCHED
  return p === '*' || p === token ? ALIVE : DEAD
}
