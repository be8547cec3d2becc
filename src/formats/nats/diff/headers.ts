/**
 * Message headers, by direction, exactly as payloads are (payloads.ts): each message both versions
 * keep has its AsyncAPI `headers` schema compared with `diffSchemas`, and each change's effect
 * becomes a level per party with `levelFor` (a subscriber, a responder of a request and a requester
 * of a reply receive the headers; a publisher, a requester and a responder send them). The finding
 * carries the schema engine's rule id, located at the headers schema in both versions, with
 * `data.member: 'headers'`.
 *
 * A headers schema added or removed has no counterpart in the other version: it is compared with
 * `{type: object}` (no headers schema: any headers are accepted, and headers are always a map), so
 * a schema that now requires or
 * constrains a header breaks senders (`message-headers-added`), and one dropped breaks receivers
 * that validated or typed them (`message-headers-removed`). The profile adds no header rules of
 * its own (header correlation is unsupported in v0.2 and refused by the checker).
 *
 * A headers schema that refers into another file is compared with that reference unresolved: the
 * engine reports what it cannot follow as unknown (a warning), never as no change.
 * Cost: the schema engine's, once per message that has headers in either version.
 */
import { diffSchemas } from '../../../core/diff/schema-diff.js'
import { levelFor, type SchemaChange, type SchemaEffect, type SchemaSide } from '../../../core/diff/schema-diff-types.js'
import type { DiffLevel } from '../../../core/diff/types.js'
import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../document.js'
import { readableSchemaFormat } from '../multi-format.js'
import type { ChannelModel } from '../model.js'
import { q, type Findings, type Version } from './context.js'
import type { Party } from './parties.js'
import { dedupeParties, memberOfMessage, messageAt, partiesFor, schemaSide, strongest, type MessageAt } from './payloads.js'

/** The headers schema's pointer in a message (a readable Multi Format Schema Object's `schema`), or undefined when it has none. */
function headersPointer(doc: unknown, message: MessageAt): string | undefined {
  const at = joinPointer(message.pointer, 'headers')
  const node = memberOfMessage(doc, message, 'headers')
  if (node === undefined) return undefined
  if (isObject(node) && typeof node.schemaFormat === 'string' && Object.hasOwn(node, 'schema') && readableSchemaFormat(node.schemaFormat))
    return joinPointer(at, 'schema')
  return at
}

/** No headers schema: a side whose schema accepts any headers (NATS headers are always a map, so any object). */
function absent(v: Version): SchemaSide {
  const document = { headers: { type: 'object' } }
  return { file: v.doc.file, document, pointer: '/headers', resolve: () => undefined }
}

/** Message `name`'s headers schema on `channel` as the engine reads it; one that accepts any headers when it has none. */
export function headersSide(v: Version, channel: string, name: string): SchemaSide {
  const at = headersPointer(v.doc.value, messageAt(v, channel, name))
  return at === undefined ? absent(v) : schemaSide(v, at)
}

const RANK: Record<DiffLevel, number> = { info: 0, warning: 1, breaking: 2 }

function compare(f: Findings, old: SchemaSide, next: SchemaSide): SchemaChange[] {
  try {
    return f.compareSchemas((options) => diffSchemas(old, next, options), { file: old.file, pointer: old.pointer }, { file: next.file, pointer: next.pointer })
  } catch {
    return [{ rule: 'schema-changed', effect: 'unknown', message: 'The headers schemas could not be compared.' }]
  }
}

/** The worst level the changes have for one party. */
function worst(changes: readonly SchemaChange[], role: Party['role']): DiffLevel {
  let level: DiffLevel = 'info'
  for (const c of changes) if (RANK[levelFor(c.effect, role)] > RANK[level]) level = levelFor(c.effect, role)
  return level
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
  const data = { member: 'headers', channel, message: name }
  if (oldAt === undefined || newAt === undefined) {
    const added = oldAt === undefined
    const changes = added ? compare(f, absent(old), schemaSide(next, newAt!)) : compare(f, schemaSide(old, oldAt), absent(next))
    const hit = strongest(parties, (p) => worst(changes, p.role), channel)
    f.add({
      rule: added ? 'message-headers-added' : 'message-headers-removed',
      level: hit.level,
      audiences: hit.audiences,
      old: oldAt ?? oldMessage,
      new: newAt ?? newMessage,
      message: added
        ? `Message ${q(name)} of channel ${q(channel)} now has a headers schema: ${hit.level === 'info' ? 'it accepts any headers, so no sender breaks' : 'senders whose headers it refuses break'}.`
        : `Message ${q(name)} of channel ${q(channel)} no longer has a headers schema: ${hit.level === 'info' ? 'the old one accepted any headers, so no receiver breaks' : 'receivers that validated or typed its headers meet headers it refused'}.`,
      data: { ...data, effects: effects(changes) },
      scope: { channel, in: 'new' },
    })
    return
  }
  const changes = compare(f, schemaSide(old, oldAt), schemaSide(next, newAt))
  for (const change of changes) {
    const hit = strongest(parties, (p) => levelFor(change.effect, p.role), channel)
    f.add({
      rule: change.rule,
      level: hit.level,
      audiences: hit.audiences,
      old: change.old && change.old.file === old.doc.file ? change.old.pointer : oldAt,
      new: change.new && change.new.file === next.doc.file ? change.new.pointer : newAt,
      message: `Headers of message ${q(name)} of channel ${q(channel)}: ${change.message}`,
      data: { effect: change.effect, ...(change.witness ? { witness: change.witness } : {}), ...data },
      scope: { channel, in: 'new' },
    })
  }
}
