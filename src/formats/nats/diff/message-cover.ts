/**
 * Whether a message one version of a channel has and the other lacks changes what the channel
 * carries. A channel (or an operation that lists its messages) carries the union of its messages'
 * payloads, each with its own message's headers (docs/nats.md, "Messages"): a message removed whose
 * payloads and headers another message still accepts refuses no sender, and one added that accepts
 * nothing the others refused shows receivers nothing new. An outside pass found a message key
 * renamed with an identical payload reported as two breaks.
 *
 * Each other message (nearest first) is compared with this one member by member, payload and
 * headers. One that takes both whole (the schema engine finds no change that hits that direction in
 * either) carries it: `info`. Otherwise a witness is sought among the values the engine found for
 * the pairwise comparisons (and one value of each JSON type): a payload, or headers, that the message
 * accepts and every other message refuses proves the break (`breaking`); so does a pair of them,
 * a payload and headers, such that no other message accepts both, since where the headers schemas
 * differ the client checks a message's headers with its payload (a payload carried by one message
 * and headers by another is refused together). Without either the messages may still carry it
 * together, which is not proven either way (`warning`). A channel left with no message at all
 * carries nothing, and the break needs no witness.
 *
 * Cost: at most MAX_PAIRS comparisons of each member (each bounded by the engine) and MAX_CHECKS
 * validations of each member for one message, MAX_PAIRED candidates of each member paired (a set
 * intersection each), and MAX_DIFF_PAIRS comparisons in one diff; past them the answer is `warning`.
 */
import { diffSchemas, schemaAccepts } from '../../../core/diff/schema-diff.js'
import type { SchemaChange, SchemaSide } from '../../../core/diff/schema-diff-types.js'
import type { Findings, Version } from './context.js'
import { acceptsHeaders, asHeaderMap, headerMapSide, namedHeaders } from './header-maps.js'
import { headersAt, headersSide } from './headers.js'
import { payloadSide } from './payloads.js'

const MAX_PAIRS = 64
const MAX_CHECKS = 256
const MAX_PAIRED = 32
const MAX_DIFF_PAIRS = 4_096

export interface Cover {
  level: 'info' | 'warning' | 'breaking'
  /** The other message that carries it, when one does. */
  by?: { payload?: string; headers?: string }
  /**
   * What the message accepts and no other message does: its payload or its headers (`value`), or
   * the two together (`member: 'message'`, `value: { payload, headers }`), which each other message
   * refuses at least one of.
   */
  witness?: { member: 'payload' | 'headers' | 'message'; value: unknown }
  /** Why a `warning`: the comparisons found no witness, or the bounds were reached. */
  unproven?: 'no-witness' | 'bounded'
}

type Member = 'payload' | 'headers'

const SEEDS: readonly unknown[] = [null, true, 0, 1, -1, 0.5, '', 'a', [], {}]

function compared(old: SchemaSide, next: SchemaSide): SchemaChange[] | undefined {
  try {
    return diffSchemas(old, next)
  } catch {
    return undefined
  }
}

/**
 * `removed`: message `name` of the old channel `was`, against the new channel's messages `others`
 * (whoever sends it must still be accepted). `added`: message `name` of the new channel `channel`,
 * against the old channel's messages `others` (whoever receives must have accepted it before).
 */
export function messageCover(
  f: Findings,
  direction: 'removed' | 'added',
  was: string,
  channel: string,
  name: string,
  listed: readonly string[],
  at = 0,
): Cover {
  if (listed.length === 0) return { level: 'breaking' }
  // Nearest first: a message renamed keeps its place, and the comparisons are bounded (MAX_PAIRS).
  const others = listed
    .map((n, i) => ({ n, d: Math.abs(i - at) }))
    .sort((a, b) => a.d - b.d)
    .map((o) => o.n)
  // This message's version and channel, and the others'.
  const [mineV, mineC, theirsV, theirsC] = direction === 'removed' ? [f.old, was, f.next, channel] : [f.next, channel, f.old, was]
  /** The two schemas of a member compared: each headers schema with the `Nats-` names the other checks (header-maps.ts). */
  const pairOf = (n: string, member: Member): [SchemaSide, SchemaSide] => {
    if (member === 'payload') return [payloadSide(mineV, mineC, name), payloadSide(theirsV, theirsC, n)]
    const mineAt = headersAt(mineV, mineC, name)
    const theirAt = headersAt(theirsV, theirsC, n)
    return [headerMapSide(mineV, mineAt, namedHeaders(theirsV, theirAt)), headerMapSide(theirsV, theirAt, namedHeaders(mineV, mineAt))]
  }
  /** Whether a message takes `value` as its member: a payload by the engine's validator, headers as its client reads them (header-maps.ts). */
  const takes = (v: Version, c: string, n: string, member: Member, value: unknown): boolean | undefined =>
    member === 'payload' ? schemaAccepts(payloadSide(v, c, n), value) : acceptsHeaders(headersSide(v, c, n), value as Record<string, string>)
  let bounded = others.length > MAX_PAIRS
  const candidates: Record<Member, unknown[]> = { payload: [], headers: [] }
  /** Whether `n`'s member takes every value this message's does (nothing the engine found hits this direction). */
  const covers = (n: string, member: Member): boolean => {
    if (++f.coverPairs > MAX_DIFF_PAIRS) {
      bounded = true
      return false
    }
    // This message's schema as the old side whichever the direction: what it accepts and `n`'s
    // refuses narrows, and the engine's witnesses of that are taken by this message. (Compared the
    // other way for an added message, the engine gave one witness for a change both ways, the
    // other message's: a const tag changed was a warning one way and a break the other.)
    const changes = compared(...pairOf(n, member))
    if (changes === undefined) return false
    for (const c of changes) if (c.witness && c.witness.acceptedBy === 'old') candidates[member].push(c.witness.value)
    return changes.every((c) => c.effect === 'none' || c.effect === 'widens')
  }
  for (const n of others.slice(0, MAX_PAIRS)) {
    // Both members of one message: the headers are compared even where the payload is not carried,
    // for the witnesses that pair them.
    const payload = covers(n, 'payload')
    const headers = covers(n, 'headers')
    if (payload && headers) return { level: 'info', by: { payload: n, headers: n } }
  }
  // The values this message accepts, each with the other messages that may accept it too.
  const accepted: Record<Member, Array<{ value: unknown; by: Set<string> }>> = { payload: [], headers: [] }
  for (const member of ['payload', 'headers'] as const) {
    // One value of each JSON type too: a message of another type has a witness the comparisons
    // made from one side's keywords may not name.
    let checks = 0
    const values = [...candidates[member], ...SEEDS]
    for (const value of member === 'headers'
      ? values.flatMap((v): unknown[] => {
          const map = asHeaderMap(v)
          return map === undefined ? [] : [map]
        })
      : values) {
      if (takes(mineV, mineC, name, member, value) !== true) continue
      // Every other message's verdict while values are still kept for pairing; after that, up to
      // the first that may accept it. An unknown verdict is read as accepting: a witness must be
      // refused for sure.
      const pairing = accepted[member].length < MAX_PAIRED
      const by = new Set<string>()
      for (const n of others) {
        if (++checks > MAX_CHECKS) break
        if (takes(theirsV, theirsC, n, member, value) !== false) {
          by.add(n)
          if (!pairing) break
        }
      }
      if (checks > MAX_CHECKS) {
        bounded = true
        break
      }
      if (by.size === 0) return { level: 'breaking', witness: { member, value } }
      if (pairing) accepted[member].push({ value, by })
    }
  }
  // A payload and headers the message takes that no other message takes together.
  for (const p of accepted.payload)
    for (const h of accepted.headers)
      if (![...p.by].some((n) => h.by.has(n))) return { level: 'breaking', witness: { member: 'message', value: { payload: p.value, headers: h.value } } }
  return { level: 'warning', unproven: bounded ? 'bounded' : 'no-witness' }
}
