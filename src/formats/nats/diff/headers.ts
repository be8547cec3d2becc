/**
 * Message headers, by direction, exactly as payloads are (payloads.ts): each message both versions
 * keep has its AsyncAPI `headers` schema compared with `diffSchemas`, and each change's effect
 * becomes a level per party with `levelFor` (a subscriber, a responder of a request and a requester
 * of a reply receive the headers; a publisher, a requester and a responder send them). The finding
 * carries the schema engine's rule id, located at the headers schema in both versions, with
 * `data.member: 'headers'`.
 *
 * Headers are maps of names to strings, and each side is compared in that domain (header-maps.ts):
 * a change only JSON values that are no such map could meet is none, and a change whose witness no
 * map stands for is unknown (a warning). A headers schema added or removed has no counterpart in
 * the other version: it is compared with no schema, which accepts any map of strings, so a schema
 * that now requires or constrains a header breaks senders (`message-headers-added`), and one dropped
 * breaks receivers that validated or typed them (`message-headers-removed`). The profile adds no header rules of
 * its own (header correlation is unsupported in v0.2 and refused by the checker).
 *
 * A headers schema that refers into another file is compared with that reference unresolved: the
 * engine reports what it cannot follow as unknown (a warning), never as no change.
 * Cost: the schema engine's, once per message that has headers in either version.
 */
import { existingPointer } from '../../../core/diff/enclosing.js'
import { diffSchemas } from '../../../core/diff/schema-diff.js'
import { levelFor, type SchemaChange, type SchemaEffect } from '../../../core/diff/schema-diff-types.js'
import type { DiffLevel } from '../../../core/diff/types.js'
import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../document.js'
import { readableSchemaFormat } from '../multi-format.js'
import type { ChannelModel } from '../model.js'
import { q, type Findings, type Version } from './context.js'
import { acceptsHeaders, asHeaderMap, headerMapSide, namedHeaders, type HeaderSide } from './header-maps.js'
import { dedupeParties, memberOfMessage, messageAt, partiesFor, siblingsNote, strongest, valueAt, type MessageAt } from './payloads.js'
import { SiblingCovers } from './sibling-cover.js'

/** The headers schema's pointer in a message (a readable Multi Format Schema Object's `schema`), or undefined when it has none. */
function headersPointer(doc: unknown, message: MessageAt): string | undefined {
  const at = joinPointer(message.pointer, 'headers')
  const node = memberOfMessage(doc, message, 'headers')
  if (node === undefined) return undefined
  if (isObject(node) && typeof node.schemaFormat === 'string' && Object.hasOwn(node, 'schema') && readableSchemaFormat(node.schemaFormat))
    return joinPointer(at, 'schema')
  return at
}

/** Message `name`'s headers schema on `channel` as the engine reads it (a schema of maps of strings: header-maps.ts); one that accepts any headers when it has none. */
export function headersSide(v: Version, channel: string, name: string, alsoNamed: Iterable<string> = []): HeaderSide {
  return headerMapSide(v, headersAt(v, channel, name), alsoNamed)
}

/** Message `name`'s headers schema's pointer on `channel`, or undefined when it has none. */
export function headersAt(v: Version, channel: string, name: string): string | undefined {
  return headersPointer(v.doc.value, messageAt(v, channel, name))
}

const RANK: Record<DiffLevel, number> = { info: 0, warning: 1, breaking: 2 }

function compare(f: Findings, old: HeaderSide, next: HeaderSide): SchemaChange[] {
  let changes: SchemaChange[]
  try {
    changes = f.compareSchemas(
      (options) => diffSchemas(old, next, options),
      { file: old.file, pointer: old.pointer },
      { file: next.file, pointer: next.pointer },
    )
  } catch {
    return [{ rule: 'schema-changed', effect: 'unknown', message: 'The headers schemas could not be compared.' }]
  }
  return changes.map((change) => asHeaders(change, old, next))
}

/**
 * A change whose witness is to stand for headers: the witness as a map of strings (header-maps.ts
 * `asHeaderMap`) when that map still shows the change (taken by the side that took the witness,
 * refused by the other), else the change unproven for headers: `unknown`, without a witness.
 */
function asHeaders(change: SchemaChange, old: HeaderSide, next: HeaderSide): SchemaChange {
  const { witness } = change
  if (witness === undefined) return unwitnessed(change, old, next)
  const shown = headerWitness(witness, old, next)
  if (shown !== undefined) {
    // A change both ways keeps the other direction's witness where it, too, stands for headers.
    const others = (change.witnesses ?? []).flatMap((w) => {
      const map = w === witness ? undefined : headerWitness(w, old, next)
      return map === undefined || map.acceptedBy === shown.acceptedBy ? [] : [map]
    })
    const { witnesses: _all, ...single } = change
    return { ...single, witness: shown, ...(others.length > 0 ? { witnesses: [shown, ...others] } : {}) }
  }
  const { witness: _dropped, witnesses: _others, ...rest } = change
  return {
    ...rest,
    effect: 'unknown',
    message: `${change.message} (for headers, maps of strings, not proven: the engine's witness ${JSON.stringify(witness.value)} stands for no headers a peer can send that show it)`,
  }
}

/**
 * The engine's witness as headers: the map of strings it stands for when that map is taken by the
 * side that took the witness and refused by the other, as each client reads it (the `Nats-` names
 * its schema does not name left out); else undefined.
 */
function headerWitness(witness: NonNullable<SchemaChange['witness']>, old: HeaderSide, next: HeaderSide): SchemaChange['witness'] {
  const map = asHeaderMap(witness.value)
  const [taker, other] = witness.acceptedBy === 'old' ? [old, next] : [next, old]
  if (map === undefined || acceptsHeaders(taker, map) !== true || acceptsHeaders(other, map) !== false) return undefined
  return map === witness.value ? witness : { ...witness, value: map }
}

/**
 * A change the engine found without a witness: a `propertyNames` one is tried on header names
 * (namesChange); any other that moves what is accepted stands where both schemas are read exactly as
 * maps of strings (the engine's reading there is the client's), and is unknown (a warning) where one
 * holds a `not`, a conditional or a reference the reading left as written: under `not: {x: integer}`
 * a widened type moves only JSON values no peer sends.
 */
function unwitnessed(change: SchemaChange, old: HeaderSide, next: HeaderSide): SchemaChange {
  const named = namesChange(change, old, next)
  if (named !== change || (old.exact && next.exact)) return named
  if (change.effect !== 'narrows' && change.effect !== 'widens' && change.effect !== 'both') return change
  return {
    ...change,
    effect: 'unknown',
    message: `${change.message} (for headers, maps of strings, not proven: the engine gave no witness, and the schema holds a \`not\`, a conditional or a reference the reading leaves as written)`,
  }
}

/** Header names a `propertyNames` change is tried on: short and long, letters, digits and the punctuation a name may hold. */
const NAME_PROBES = ['a', 'x', 'A', '0', 'a-b', 'a_b', 'a.b', 'X-Trace-Id', 'abcdefghijklmnopqrstuvwxyz', '-', '~', '!', '{}']

/**
 * A change to what header names a schema allows (`propertyNames`) that the engine found without a
 * witness: proven with a name a peer can send that one side allows and the other refuses (tried
 * over NAME_PROBES and the names either schema spells), else unknown (a warning): a pattern that
 * only refuses names no client can send, such as one with a colon, changes nothing.
 */
function namesChange(change: SchemaChange, old: HeaderSide, next: HeaderSide): SchemaChange {
  const at = change.new?.pointer ?? change.old?.pointer ?? ''
  if (!/\/propertyNames(?:\/|$)/.test(at) || (change.effect !== 'narrows' && change.effect !== 'widens' && change.effect !== 'both')) return change
  const spelled = [old, next].flatMap((side) => {
    const node = valueAt(side.document, side.pointer)
    return isObject(node) && isObject(node.properties) ? Object.keys(node.properties) : []
  })
  for (const name of [...NAME_PROBES, ...spelled]) {
    const map = asHeaderMap({ [name]: 'v' })
    if (map === undefined) continue
    const [before, after] = [acceptsHeaders(old, map), acceptsHeaders(next, map)]
    if (before === true && after === false && change.effect !== 'widens') return { ...change, witness: { value: map, acceptedBy: 'old' } }
    if (before === false && after === true && change.effect !== 'narrows') return { ...change, witness: { value: map, acceptedBy: 'new' } }
  }
  return {
    ...change,
    effect: 'unknown',
    message: `${change.message} (for header names a peer can send, not proven: no name tried is allowed by one version and refused by the other)`,
  }
}

/** The worst level the changes have for one party (`level`: a change's level for it). */
function worst(changes: readonly SchemaChange[], level: (effect: SchemaEffect) => DiffLevel): DiffLevel {
  let out: DiffLevel = 'info'
  for (const c of changes) if (RANK[level(c.effect)] > RANK[out]) out = level(c.effect)
  return out
}

function effects(changes: readonly SchemaChange[]): SchemaEffect[] {
  return [...new Set(changes.map((c) => c.effect))].sort()
}

export function diffHeaders(f: Findings): void {
  for (const oc of f.old.model.channels) {
    const renamed = f.renamed.get(oc.id)
    const nc = f.next.channels.get(oc.id) ?? (renamed === undefined ? undefined : f.next.channels.get(renamed))
    if (nc) compareChannel(f, oc, nc)
  }
}

function compareChannel(f: Findings, oc: ChannelModel, nc: ChannelModel): void {
  const kept = new Set(oc.messages.map((m) => m.name))
  for (const m of nc.messages) if (kept.has(m.name)) compareHeaders(f, oc.id, nc.id, m.name)
}

function compareHeaders(f: Findings, was: string, channel: string, name: string): void {
  const { old, next } = f
  const oldPlace = messageAt(old, was, name)
  const newPlace = messageAt(next, channel, name)
  const oldMessage = oldPlace.pointer
  const newMessage = newPlace.pointer
  const oldAt = headersPointer(old.doc.value, oldPlace)
  const newAt = headersPointer(next.doc.value, newPlace)
  if (oldAt === undefined && newAt === undefined) return
  const parties = dedupeParties([...partiesFor(old, was, name), ...partiesFor(next, channel, name)])
  // Read for the channel: its other messages may carry the pairs this one no longer does (sibling-cover.ts).
  const siblings = new SiblingCovers(f, was, channel, name)
  const data = { member: 'headers', channel, message: name }
  // Each side with the `Nats-` names the other checks: where one client checks a name the other leaves out, the engine compares just that.
  const oldSide = headerMapSide(old, oldAt, namedHeaders(next, newAt))
  const newSide = headerMapSide(next, newAt, namedHeaders(old, oldAt))
  if (oldAt === undefined || newAt === undefined) {
    const added = oldAt === undefined
    const changes = compare(f, oldSide, newSide)
    const hit = strongest(parties, (p) => worst(changes, (effect) => siblings.levelOf(effect, p)), channel)
    const alone = strongest(parties, (p) => worst(changes, (effect) => levelFor(effect, p.role)), channel).level
    f.add({
      rule: added ? 'message-headers-added' : 'message-headers-removed',
      level: hit.level,
      audiences: hit.audiences,
      old: oldAt ?? oldMessage,
      new: newAt ?? newMessage,
      message: added
        ? `Message ${q(name)} of channel ${q(channel)} now has a headers schema: ${hit.level === 'info' ? 'it accepts any headers, so no sender breaks' : 'senders whose headers it refuses break'}${siblingsNote(hit.level, alone)}.`
        : `Message ${q(name)} of channel ${q(channel)} no longer has a headers schema: ${hit.level === 'info' ? 'the old one accepted any headers, so no receiver breaks' : 'receivers that validated or typed its headers meet headers it refused'}${siblingsNote(hit.level, alone)}.`,
      data: { ...data, effects: effects(changes) },
      scope: { channel, in: 'new' },
    })
    return
  }
  const changes = compare(f, oldSide, newSide)
  for (const change of changes) {
    const hit = strongest(parties, (p) => siblings.level(change, 'headers', p), channel)
    const alone = strongest(parties, (p) => levelFor(change.effect, p.role), channel).level
    // A change both ways may carry a witness for each direction (one breaks senders, one receivers).
    const [witness, ...others] = siblings.witnesses(change, 'headers', parties)
    f.add({
      rule: change.rule,
      level: hit.level,
      audiences: hit.audiences,
      // A node the reading as maps of strings added (an open map's `additionalProperties`) is placed at the nearest one written.
      old: change.old && change.old.file === old.doc.file ? existingPointer(old.doc.value, change.old.pointer) : oldAt,
      new: change.new && change.new.file === next.doc.file ? existingPointer(next.doc.value, change.new.pointer) : newAt,
      message: `Headers of message ${q(name)} of channel ${q(channel)}: ${change.message}${siblingsNote(hit.level, alone)}`,
      data: { effect: change.effect, ...(witness ? { witness } : {}), ...(others.length > 0 ? { witnesses: [witness, ...others] } : {}), ...data },
      scope: { channel, in: 'new' },
    })
  }
}
