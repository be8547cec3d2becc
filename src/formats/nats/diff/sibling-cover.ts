/**
 * A change inside one message of a channel that has several, read for the channel as a whole. The
 * client takes a message when any message its operation carries takes it (its payload with its own
 * headers: docs/nats.md, "Messages"), so a payload or headers schema narrowed in one message breaks a
 * sender only where no message the receiver carries still takes what the old message took, and one
 * widened breaks a receiver only where the new message takes what no message it carried before did.
 * Compared message by message alone, an outside pass found two messages swapped, or a sibling that
 * takes any payload, reported as breaking with witnesses the channel still accepted on both sides
 * (and 5,000 such findings for a channel of 5,000 messages each shifted by one).
 *
 * So each party's level for a change is capped by the cover of the message (message-cover.ts) by
 * the messages that party's side carries: the new version's for a sender (its receivers now), the
 * old version's for a receiver (what it took before); info when they carry all of it, a warning
 * when that is not proven, and the change's own level when the cover proves a break, whose witness
 * then stands for the finding (the change's own may be one a sibling takes). A party's operation
 * that lists messages carries those; otherwise, and for parties outside the document, the whole
 * channel. A message alone in what a party carries is compared as before. Cost: one cover per
 * message and set of carried messages, within message-cover.ts's bounds.
 */
import { schemaAccepts } from '../../../core/diff/schema-diff.js'
import { levelFor, type SchemaChange, type SchemaEffect } from '../../../core/diff/schema-diff-types.js'
import type { DiffLevel } from '../../../core/diff/types.js'
import type { Findings, Version } from './context.js'
import { acceptsHeaders, asHeaderMap } from './header-maps.js'
import { headersSide } from './headers.js'
import { messageCover, type Cover } from './message-cover.js'
import type { Party } from './parties.js'
import { payloadSide } from './payloads.js'

const RANK: Record<DiffLevel, number> = { info: 0, warning: 1, breaking: 2 }
/** Past this many messages on a party's side, a change's own witness is not checked against each: the cover decides. */
const MAX_SIBLINGS = 64

type Member = 'payload' | 'headers'

/** The messages of `channel` in `v` that the operation of party `p` carries: those it lists, else all of them. */
function carried(v: Version, channel: string, p: Party): string[] {
  const all = v.channels.get(channel)?.messages.map((m) => m.name) ?? []
  const op = v.operations.get(p.operation)
  if (!op || op.channel !== channel || op.messages === undefined) return all
  return op.messages.filter((n) => all.includes(n))
}

/** A witness as a finding carries it: the value, the version that accepted it and, when the whole message's, which member it is. */
export type FindingWitness = NonNullable<SchemaChange['witness']> & { member?: 'payload' | 'headers' | 'message' }

export class SiblingCovers {
  private readonly covers = new Map<string, Cover>()
  /** Each party's cover (by role and operation), undefined where the message is alone in what it carries. */
  private readonly byParty = new Map<string, Cover | undefined>()

  constructor(
    private readonly f: Findings,
    /** The channel's id in the old version and in the new one, and the message's name (in both). */
    private readonly was: string,
    private readonly channel: string,
    private readonly name: string,
  ) {}

  /** The messages `p`'s side carries, with the version and channel id they are read in. */
  private sideOf(p: Party): { v: Version; channel: string; set: string[] } {
    const sends = p.role === 'sends'
    const v = sends ? this.f.next : this.f.old
    const channel = sends ? this.channel : this.was
    return { v, channel, set: carried(v, channel, p) }
  }

  /** The cover that decides a change's effect on `p`, or undefined where the message is alone in what `p`'s side carries. */
  private coverFor(p: Party): Cover | undefined {
    const party = `${p.role}\u0000${p.operation}`
    if (this.byParty.has(party)) return this.byParty.get(party)
    const { set } = this.sideOf(p)
    let cover: Cover | undefined
    if (set.length > 1 && set.includes(this.name)) {
      const key = `${p.role}\u0000${set.join('\u0000')}`
      cover = this.covers.get(key)
      if (cover === undefined) {
        cover = messageCover(this.f, p.role === 'sends' ? 'removed' : 'added', this.was, this.channel, this.name, set, set.indexOf(this.name))
        this.covers.set(key, cover)
      }
    }
    this.byParty.set(party, cover)
    return cover
  }

  /**
   * Whether the change's own witness proves it for `p` with no cover: a value of `p`'s role that
   * every other message `p`'s side carries refuses, so no sibling takes it (a validation each, at
   * most MAX_SIBLINGS of them; the cover's comparisons are what the diff's bound counts).
   */
  private ownProves(change: SchemaChange, member: Member, p: Party): boolean {
    const { witness } = change
    if (witness === undefined || (witness.acceptedBy === 'old' ? 'sends' : 'receives') !== p.role) return false
    const { v, channel, set } = this.sideOf(p)
    if (set.length > MAX_SIBLINGS) return false
    const value = member === 'headers' ? asHeaderMap(witness.value) : witness.value
    if (value === undefined) return false
    return set.every(
      (n) =>
        n === this.name ||
        (member === 'payload'
          ? schemaAccepts(payloadSide(v, channel, n), value)
          : acceptsHeaders(headersSide(v, channel, n), value as Record<string, string>)) === false,
    )
  }

  /** The level of `change` (of the message's `member`) for party `p`: its own (levelFor), capped by the message's cover by its siblings unless its own witness proves it. */
  level(change: SchemaChange, member: Member, p: Party): DiffLevel {
    const own = levelFor(change.effect, p.role)
    if (own === 'info' || this.ownProves(change, member, p)) return own
    const cover = this.coverFor(p)
    return cover !== undefined && RANK[cover.level] < RANK[own] ? cover.level : own
  }

  /** The level of changes of effect `effect` for `p` with no witness of their own (a headers schema added or removed), capped as `level` caps. */
  levelOf(effect: SchemaEffect, p: Party): DiffLevel {
    return this.level({ rule: '', effect, message: '' }, 'payload', p)
  }

  /**
   * The witness a finding of a change carries: the change's own where a party that meets it (a
   * sender for a value the old version took, a receiver for one the new version takes) has no
   * siblings; the cover's where every such party has and each cover proves the break; none
   * otherwise (a sibling may take it). A change both ways whose own witness is taken by a sibling carries the other way's
   * proof when that one holds.
   */
  witness(change: SchemaChange, member: Member, parties: readonly Party[]): FindingWitness | undefined {
    const { witness } = change
    if (witness === undefined) return undefined
    const own = witness.acceptedBy === 'old' ? 'sends' : 'receives'
    const meeting = parties.filter((p) => p.role === own)
    if (meeting.length > 0 && meeting.every((p) => this.ownProves(change, member, p))) return witness
    const mine = this.proof(own, parties)
    if (mine === 'alone') return witness
    if (mine !== undefined) return mine
    if (change.effect !== 'both') return undefined
    const other = this.proof(own === 'sends' ? 'receives' : 'sends', parties)
    return other === 'alone' ? undefined : other
  }

  /**
   * Every witness a finding of a change carries: `witness`'s, and for a change both ways with a
   * witness for each direction (SchemaChange.witnesses), the other direction's by the same reading,
   * where it differs (one breaks senders, the other receivers).
   */
  witnesses(change: SchemaChange, member: Member, parties: readonly Party[]): FindingWitness[] {
    const first = this.witness(change, member, parties)
    const out = first ? [first] : []
    for (const other of change.witnesses ?? []) {
      const found = this.witness({ ...change, witness: other, witnesses: undefined }, member, parties)
      if (found && !out.some((w) => w.acceptedBy === found.acceptedBy)) out.push(found)
    }
    return out
  }

  /** The cover's witness for `role` where every party of that role has siblings and each cover proves the break; 'alone' where one has none. */
  private proof(role: Party['role'], parties: readonly Party[]): FindingWitness | 'alone' | undefined {
    // A channel no operation uses has parties outside the document, which carry all of it.
    const meeting =
      parties.length > 0 ? parties.filter((p) => p.role === role) : [{ audience: { kind: 'unknown' }, role, local: false, operation: '' } as Party]
    const covers = meeting.map((p) => this.coverFor(p))
    // A party for whom the message is alone meets the change's own witness.
    if (covers.some((c) => c === undefined)) return 'alone'
    if (covers.some((c) => c!.level !== 'breaking' || c!.witness === undefined)) return undefined
    const proven = covers[0]!.witness!
    return { value: proven.value, acceptedBy: role === 'sends' ? 'old' : 'new', member: proven.member }
  }
}
