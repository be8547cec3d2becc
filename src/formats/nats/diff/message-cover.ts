/**
 * Whether a message one version of a channel has and the other lacks changes what the channel
 * carries. A channel (or an operation that lists its messages) carries the union of its messages'
 * payloads, each with its own message's headers (docs/nats.md, "Messages"): a message removed whose
 * payloads and headers another message still accepts refuses no sender, and one added that accepts
 * nothing the others refused shows receivers nothing new. An outside pass found a message key
 * renamed with an identical payload reported as two breaks.
 *
 * Covered (payload and headers accepted by one of the other messages: the schema engine finds no
 * change that hits that direction) is `info`; payload and headers each accepted, but by two
 * different messages, is a `warning`: where the headers schemas differ the client checks a message's
 * headers with its payload, so only a message that takes both carries it. Otherwise a witness is
 * sought among the values the engine found for each pairwise comparison: one the message accepts and every other
 * message refuses, by the engine's validator, proves the break (`breaking`); without one the
 * messages may still carry it together, which is not proven either way (`warning`). A channel left
 * with no message at all carries nothing, and the break needs no witness.
 *
 * Cost: at most MAX_PAIRS schema comparisons (each bounded by the engine) and MAX_CHECKS witness
 * validations for one message, and MAX_DIFF_PAIRS comparisons in one diff; past them the answer is
 * `warning`.
 */
import { diffSchemas, schemaAccepts } from '../../../core/diff/schema-diff.js'
import type { SchemaChange, SchemaEffect, SchemaSide } from '../../../core/diff/schema-diff-types.js'
import type { Findings, Version } from './context.js'
import { headersSide } from './headers.js'
import { payloadSide } from './payloads.js'

const MAX_PAIRS = 64
const MAX_CHECKS = 256
const MAX_DIFF_PAIRS = 4_096

export interface Cover {
  level: 'info' | 'warning' | 'breaking'
  /** The other message that carries it, when one does (payload and headers, possibly two). */
  by?: { payload?: string; headers?: string }
  /** A value the message accepts that every other message refuses. */
  witness?: { member: 'payload' | 'headers'; value: unknown }
  /** Why a `warning`: the comparisons found no witness, or the bounds were reached. */
  unproven?: 'no-witness' | 'bounded'
}

type Member = 'payload' | 'headers'

const SEEDS: readonly unknown[] = [null, true, 0, 1, -1, 0.5, '', 'a', [], {}]

function sideOf(v: Version, channel: string, name: string, member: Member): SchemaSide {
  return member === 'payload' ? payloadSide(v, channel, name) : headersSide(v, channel, name)
}

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
  let others = listed
    .map((n, i) => ({ n, d: Math.abs(i - at) }))
    .sort((a, b) => a.d - b.d)
    .map((o) => o.n)
  const hits: SchemaEffect = direction === 'removed' ? 'narrows' : 'widens'
  const by: NonNullable<Cover['by']> = {}
  let bounded = false
  let unproven = false
  for (const member of ['payload', 'headers'] as const) {
    const own = direction === 'removed' ? sideOf(f.old, was, name, member) : sideOf(f.next, channel, name, member)
    const other = (n: string) => (direction === 'removed' ? sideOf(f.next, channel, n, member) : sideOf(f.old, was, n, member))
    const candidates: unknown[] = []
    let covered: string | undefined
    for (const n of others.slice(0, MAX_PAIRS)) {
      if (++f.coverPairs > MAX_DIFF_PAIRS) {
        bounded = true
        break
      }
      const changes = direction === 'removed' ? compared(own, other(n)) : compared(other(n), own)
      if (changes === undefined) continue
      if (changes.every((c) => c.effect === 'none' || (c.effect !== hits && c.effect !== 'both' && c.effect !== 'unknown'))) {
        covered = n
        break
      }
      const mine = direction === 'removed' ? 'old' : 'new'
      for (const c of changes) if (c.witness && c.witness.acceptedBy === mine) candidates.push(c.witness.value)
    }
    if (covered !== undefined) {
      by[member] = covered
      // The headers tried on the payload's carrier first: one message that carries both is named once.
      others = [covered, ...others.filter((n) => n !== covered)]
      continue
    }
    if (others.length > MAX_PAIRS) bounded = true
    // One value of each JSON type too: a message of another type has a witness the comparisons
    // made from one side's keywords may not name.
    candidates.push(...SEEDS)
    // A value this message accepts that every other one refuses: the channel no longer (or did not) carry it.
    let checks = 0
    for (const value of candidates) {
      if (schemaAccepts(own, value) !== true) continue
      let refused = true
      for (const n of others) {
        if (++checks > MAX_CHECKS) {
          bounded = true
          refused = false
          break
        }
        if (schemaAccepts(other(n), value) !== false) {
          refused = false
          break
        }
      }
      if (refused) return { level: 'breaking', witness: { member, value } }
      if (checks > MAX_CHECKS) break
    }
    // Neither carried nor refused for sure: the other member may still prove a break.
    unproven = true
  }
  if (unproven) return { level: 'warning', unproven: bounded ? 'bounded' : 'no-witness' }
  // Payload and headers carried by two different messages: the client checks a message's headers
  // with its payload where the messages' headers schemas differ (docs/nats.md, "Messages"), so a
  // value pair neither message takes whole may be refused. Not proven either way: a warning.
  if (by.payload !== undefined && by.headers !== undefined && by.payload !== by.headers) return { level: 'warning', unproven: 'no-witness' }
  return { level: 'info', by }
}
