/**
 * Message payloads, by direction. Each message a channel keeps is compared with `diffSchemas`
 * (core/diff/schema-diff.ts) on the documents as written, `$ref`s resolved within each document;
 * each change's effect becomes a level per party with `levelFor`: a subscriber, a responder (of a
 * request) and a requester (of a reply) receive, a publisher sends. A message added to a channel is
 * new to its receivers; one removed is refused for its senders. The same holds for the messages an
 * operation lists. Cost: the schema engine's (bounded by the payloads' sizes), once per message.
 */
import type { DiffAudience, DiffLevel } from '../../../core/diff/types.js'
import { diffSchemas } from '../../../core/diff/schema-diff.js'
import { levelFor, type SchemaSide } from '../../../core/diff/schema-diff-types.js'
import { joinPointer, splitPointer, unescapeToken } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../document.js'
import { readableSchemaFormat } from '../multi-format.js'
import type { ChannelModel, OperationModel } from '../model.js'
import { dedupe } from './channels.js'
import { q, type Findings, type Version } from './context.js'
import { partiesOf, type Party } from './parties.js'
import { ptr } from './source.js'
import { unchangedPayload } from './unchanged-schema.js'
import { messageCover, type Cover } from './message-cover.js'
import { SiblingCovers } from './sibling-cover.js'

const RANK: Record<DiffLevel, number> = { info: 0, warning: 1, breaking: 2 }

export function valueAt(doc: unknown, pointer: string): unknown {
  let node = doc
  for (const token of splitPointer(pointer)) {
    if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(token)) node = node[Number(token)]
    else if (isObject(node) && Object.hasOwn(node, token)) node = node[token]
    else return undefined
  }
  return node
}

/** One step of `valueAt`: the member named by a pointer token, as `valueAt` reads it. */
function memberAt(node: unknown, token: string): unknown {
  if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(token)) return node[Number(token)]
  return isObject(node) && Object.hasOwn(node, token) ? node[token] : undefined
}

/** A local `$ref`'s pointer (`#/a/b` to `/a/b`), or undefined for a reference into another file. */
export function localPointer(ref: string): string | undefined {
  if (!ref.startsWith('#')) return undefined
  try {
    return decodeURIComponent(ref.slice(1))
  } catch {
    return undefined
  }
}

/** A message's place: its pointer, its local references followed, and the value there when the walk read it (undefined past the hops). */
export interface MessageAt {
  pointer: string
  node?: unknown
}

/** Where a channel's message object is in the version's document (`MessageAt`), each placed once per diff (`Version.messages`): its payload and its headers start there. */
export function messageAt(v: Version, channel: string, name: string): MessageAt {
  let names = v.messages.get(channel)
  const seen = names?.get(name)
  if (seen) return seen
  const at = placeMessage(v.doc.value, channel, name)
  if (!names) v.messages.set(channel, (names = new Map()))
  names.set(name, at)
  return at
}

/** Where a channel's message object is, its local references followed (bounded hops). */
function placeMessage(doc: unknown, channel: string, name: string): MessageAt {
  let pointer = joinPointer('', 'channels', channel, 'messages', name)
  // The first node is read by its tokens, not by splitting the pointer just joined (once per message of a large document).
  let node = memberAt(memberAt(memberAt(memberAt(doc, 'channels'), channel), 'messages'), name)
  for (let hops = 0; hops < 32; hops++) {
    if (hops > 0) node = valueAt(doc, pointer)
    const next = isObject(node) && typeof node.$ref === 'string' ? localPointer(node.$ref) : undefined
    if (next === undefined) return { pointer, node }
    pointer = next
  }
  // Past the hops the pointer is the last reference's, not yet read.
  return { pointer }
}

/** The member `token` of the value at `at` (read again by its pointer when the walk did not keep it), as `valueAt` reads it. */
export function memberOfMessage(doc: unknown, at: MessageAt, token: string): unknown {
  return 'node' in at ? memberAt(at.node, token) : valueAt(doc, joinPointer(at.pointer, token))
}

/** Past this many pointers a version's memo stops growing (a hostile document's references stay bounded). */
const MAX_MEMO_POINTERS = 100_000

/** `valueAt` in the version's document, each pointer walked once per diff (`Version.nodes`). */
function nodeIn(v: Version, pointer: string): unknown {
  const seen = v.nodes.get(pointer)
  if (seen !== undefined || v.nodes.has(pointer)) return seen
  const node = valueAt(v.doc.value, pointer)
  if (v.nodes.size < MAX_MEMO_POINTERS) v.nodes.set(pointer, node)
  return node
}

/** `localPointer`, each reference decoded once per diff (`Version.refs`). */
function refIn(v: Version, ref: string): string | undefined {
  const known = v.refs.get(ref)
  if (known !== undefined) return known === null ? undefined : known
  const pointer = localPointer(ref)
  if (v.refs.size < MAX_MEMO_POINTERS) v.refs.set(ref, pointer ?? null)
  return pointer
}

/** The payload schema's pointer (a readable Multi Format Schema Object's `schema`). */
function payloadPointer(doc: unknown, message: MessageAt): string {
  const payload = joinPointer(message.pointer, 'payload')
  const node = memberOfMessage(doc, message, 'payload')
  if (isObject(node) && typeof node.schemaFormat === 'string' && Object.hasOwn(node, 'schema') && readableSchemaFormat(node.schemaFormat))
    return joinPointer(payload, 'schema')
  return payload
}

export function schemaSide(v: Version, pointer: string): SchemaSide {
  const file = v.doc.file
  const document = v.doc.value
  return {
    file,
    document,
    pointer,
    resolve(ref) {
      const local = refIn(v, ref)
      return local === undefined || nodeIn(v, local) === undefined ? undefined : { file, document, pointer: local }
    },
  }
}

/** Does the operation carry the message (its channel's messages, or those it lists)? */
function carries(op: OperationModel | undefined, channel: string, message: string): boolean {
  return op === undefined || op.channel !== channel || op.messages === undefined || op.messages.includes(message)
}

export function partiesFor(v: Version, channel: string, message: string): Party[] {
  return partiesOf(v, channel).filter((p) => carries(v.operations.get(p.operation), channel, message))
}

/** The parties the level hits hardest, with that level (every party's own level from the effect). */
export function strongest(parties: readonly Party[], level: (p: Party) => DiffLevel, channel: string): { level: DiffLevel; audiences: DiffAudience[] } {
  if (parties.length === 0) {
    const unknown: Party[] = [
      { audience: { kind: 'publisher', name: `${channel} (outside the document)` }, role: 'sends', local: false, operation: '' },
      { audience: { kind: 'subscriber', name: `${channel} (outside the document)` }, role: 'receives', local: false, operation: '' },
    ]
    return strongest(unknown, level, channel)
  }
  let best: DiffLevel = 'info'
  for (const p of parties) if (RANK[level(p)] > RANK[best]) best = level(p)
  return { level: best, audiences: best === 'info' ? [] : dedupe(parties.filter((p) => level(p) === best).map((p) => p.audience)) }
}

export function diffPayloads(f: Findings): void {
  const { old, next } = f
  for (const oc of old.model.channels) {
    const nc = next.channels.get(oc.id)
    const renamed = f.renamed.get(oc.id)
    const pair = nc ?? (renamed === undefined ? undefined : next.channels.get(renamed))
    if (pair) compareMessages(f, oc, pair)
  }
  for (const op of old.model.operations) {
    const now = next.operations.get(op.id)
    if (now && now.channel === op.channel && JSON.stringify(op.messages) !== JSON.stringify(now.messages)) compareListed(f, op, now)
  }
}

function compareMessages(f: Findings, oc: ChannelModel, nc: ChannelModel): void {
  const { old, next } = f
  const id = nc.id
  const was = oc.id
  const names = new Set(nc.messages.map((m) => m.name))
  const oldNames = new Set(oc.messages.map((m) => m.name))
  for (const [index, m] of oc.messages.entries()) {
    if (names.has(m.name)) continue
    const parties = dedupeParties([...partiesFor(old, was, m.name), ...partiesFor(next, id, m.name)])
    const cover = messageCover(f, 'removed', was, id, m.name, [...names], index)
    const hit = strongest(parties, (p) => (p.role === 'sends' ? cover.level : 'info'), id)
    f.add({
      rule: 'message-removed',
      level: hit.level,
      audiences: hit.audiences,
      old: ptr.of('channels', was, 'messages', m.name),
      new: ptr.of('channels', id, 'messages'),
      message: `Message ${q(m.name)} was removed from channel ${q(id)}: ${coverText(cover, 'removed')}`,
      ...coverData(cover),
      scope: { channel: id, in: 'new' },
    })
  }
  for (const [index, m] of nc.messages.entries()) {
    if (oldNames.has(m.name)) {
      compareMessage(f, was, id, m.name)
      continue
    }
    const parties = dedupeParties([...partiesFor(old, was, m.name), ...partiesFor(next, id, m.name)])
    const cover = messageCover(f, 'added', was, id, m.name, [...oldNames], index)
    const hit = strongest(parties, (p) => (p.role === 'receives' ? cover.level : 'info'), id)
    f.add({
      rule: 'message-added',
      level: hit.level,
      audiences: hit.audiences,
      old: ptr.of('channels', was, 'messages'),
      new: ptr.of('channels', id, 'messages', m.name),
      message: `Message ${q(m.name)} was added to channel ${q(id)}: ${coverText(cover, 'added')}`,
      ...coverData(cover),
      scope: { channel: id, in: 'new' },
    })
  }
}

/** How far `reachesOtherFile` walks before it answers yes (a hostile document's references stay bounded). */
const REACH_BUDGET = 100_000

/**
 * What one pointer's own subtree holds for `reachesOtherFile`: its values counted as the walk
 * counts them (the node, each array item, each object-valued member; saturated past the budget),
 * the local pointers its `$ref`s name, and whether one names another file.
 */
export interface RefSummary {
  size: number
  refs: string[]
  other: boolean
}

/** `pointer`'s summary, its subtree walked once per diff (`Version.refSummaries`). */
function summaryOf(v: Version, pointer: string): RefSummary {
  const known = v.refSummaries.get(pointer)
  if (known) return known
  const summary: RefSummary = { size: 0, refs: [], other: false }
  const stack: unknown[] = [nodeIn(v, pointer)]
  while (stack.length > 0 && summary.size <= REACH_BUDGET && !summary.other) {
    summary.size++
    const node = stack.pop()
    if (Array.isArray(node)) for (const item of node) stack.push(item)
    else if (isObject(node)) {
      if (typeof node.$ref === 'string') {
        const local = refIn(v, node.$ref)
        if (local === undefined) summary.other = true
        else summary.refs.push(local)
      }
      for (const key in node) {
        const value = node[key]
        if (value !== null && typeof value === 'object') stack.push(value)
      }
    }
  }
  if (v.refSummaries.size < MAX_MEMO_POINTERS) v.refSummaries.set(pointer, summary)
  return summary
}

/**
 * Does the schema at `pointer` reach a `$ref` into another file (following the document's own
 * references, each pointer once)? Such a payload is compared as the model holds it: with the
 * locked files' schemas brought in as components (message-schemas.ts), so the engine resolves
 * every reference without reading a file. More than REACH_BUDGET values reached answers yes too.
 *
 * Each pointer's own subtree is summarized once per diff (`summaryOf`): the payloads of a document
 * name the same components (a shared `Money`), which each payload's walk walked again. The answer
 * is the one walking every reached subtree gives: yes when one of them names another file or their
 * values add up past the budget. O(the pointers reached), each subtree walked once per diff.
 *
 * A document none of whose references names another file (`Version.namesOtherFile`, from the one
 * walk of the document its compile made) answers no for every payload without a walk: its payloads
 * are compared as written, whatever their size (the engine's own caps bound that comparison). The
 * walks of every payload were about a tenth of a 5,000-channel comparison (bench/diff.ts).
 */
export function reachesOtherFile(v: Version, pointer: string): boolean {
  if (!v.namesOtherFile) return false
  const seen = new Set<string>()
  const pending = [pointer]
  let total = 0
  while (pending.length > 0) {
    const at = pending.pop()!
    if (seen.has(at)) continue
    seen.add(at)
    const summary = summaryOf(v, at)
    total += summary.size
    if (summary.other || total > REACH_BUDGET) return true
    for (const ref of summary.refs) pending.push(ref)
  }
  return false
}

/**
 * The payload as the model holds it (references into locked files made local as components),
 * with each reference that is alone in its object replaced by the schema it names, except on a
 * cycle (a recursive schema keeps its reference) or past INLINE_BUDGET nodes: the engine sees the
 * locked files' content whether or not it resolves references itself.
 */
function modelSide(v: Version, channel: string, name: string): SchemaSide {
  const payload = v.channels.get(channel)?.messages.find((m) => m.name === name)?.payload ?? {}
  const components = v.model.schemas
  let budget = INLINE_BUDGET
  const inline = (node: unknown, path: ReadonlySet<string>): unknown => {
    if (--budget < 0) return node
    if (Array.isArray(node)) return node.map((item) => inline(item, path))
    if (!isObject(node)) return node
    const ref = typeof node.$ref === 'string' && Object.keys(node).length === 1 ? node.$ref : undefined
    const target = ref?.startsWith(COMPONENT) ? unescapeToken(ref.slice(COMPONENT.length)) : undefined
    if (target !== undefined && !target.includes('/') && Object.hasOwn(components, target) && !path.has(target))
      return inline(components[target], new Set([...path, target]))
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(node)) out[key] = inline(value, path)
    return out
  }
  const document = { components: { schemas: components }, payload: inline(payload, new Set()) }
  return {
    file: v.doc.file,
    document,
    pointer: '/payload',
    resolve(ref) {
      const local = localPointer(ref)
      return local === undefined || valueAt(document, local) === undefined ? undefined : { file: v.doc.file, document, pointer: local }
    },
  }
}

/** Message `name`'s payload on `channel` as the engine reads it (the model's copy when it reaches another file, as compareMessage does). */
export function payloadSide(v: Version, channel: string, name: string): SchemaSide {
  const at = payloadPointer(v.doc.value, messageAt(v, channel, name))
  return reachesOtherFile(v, at) ? modelSide(v, channel, name) : schemaSide(v, at)
}

const COMPONENT = '#/components/schemas/'
const INLINE_BUDGET = 50_000

/** A message both versions have, on channel `was` (old) and `channel` (new: the same id, or its rename). */
function compareMessage(f: Findings, was: string, channel: string, name: string): void {
  const { old, next } = f
  const oldAt = payloadPointer(old.doc.value, messageAt(old, was, name))
  const newAt = payloadPointer(next.doc.value, messageAt(next, channel, name))
  const fromModel = reachesOtherFile(old, oldAt) || reachesOtherFile(next, newAt)
  // The same schema in both versions (unchanged-schema.ts): nothing to report, and no walk to say so.
  if (!fromModel && unchangedPayload(old, oldAt, next, newAt)) return
  let changes: ReturnType<typeof diffSchemas>
  try {
    changes = f.compareSchemas(
      (options) =>
        fromModel
          ? diffSchemas(modelSide(old, was, name), modelSide(next, channel, name), options)
          : diffSchemas(schemaSide(old, oldAt), schemaSide(next, newAt), options),
      { file: old.doc.file, pointer: oldAt },
      { file: next.doc.file, pointer: newAt },
    )
  } catch {
    changes = [
      {
        rule: 'schema-changed',
        effect: 'unknown',
        old: { file: old.doc.file, pointer: oldAt },
        new: { file: next.doc.file, pointer: newAt },
        message: 'The schemas could not be compared.',
      },
    ]
  }
  if (changes.length === 0) return
  const parties = dedupeParties([...partiesFor(old, was, name), ...partiesFor(next, channel, name)])
  // Read for the channel: its other messages may carry what this one no longer does (sibling-cover.ts).
  const siblings = new SiblingCovers(f, was, channel, name)
  for (const change of changes) {
    const hit = strongest(parties, (p) => siblings.level(change, 'payload', p), channel)
    const alone = strongest(parties, (p) => levelFor(change.effect, p.role), channel).level
    // A change both ways may carry a witness for each direction (one breaks senders, one receivers).
    const [witness, ...others] = siblings.witnesses(change, 'payload', parties)
    f.add({
      rule: change.rule,
      level: hit.level,
      audiences: hit.audiences,
      // A change found in the model's copy is located at the payload in the document.
      old: !fromModel && change.old && change.old.file === old.doc.file ? change.old.pointer : oldAt,
      new: !fromModel && change.new && change.new.file === next.doc.file ? change.new.pointer : newAt,
      message: `Message ${q(name)} of channel ${q(channel)}: ${change.message}${siblingsNote(hit.level, alone)}`,
      data: {
        effect: change.effect,
        ...(witness ? { witness } : {}),
        ...(others.length > 0 ? { witnesses: [witness, ...others] } : {}),
        channel,
        message: name,
      },
      scope: { channel, in: 'new' },
    })
  }
}

function compareListed(f: Findings, op: OperationModel, now: OperationModel): void {
  const { old, next } = f
  const oc = old.channels.get(op.channel)
  const nc = next.channels.get(now.channel)
  if (!oc || !nc) return
  const before = new Set(op.messages ?? oc.messages.map((m) => m.name))
  const after = new Set(now.messages ?? nc.messages.map((m) => m.name))
  const self = now.action === 'send' ? 'sends' : 'receives'
  for (const name of before) {
    if (after.has(name) || !nc.messages.some((m) => m.name === name)) continue
    // No longer carried: a receiver's peers that send it are refused, unless the messages it still
    // lists accept what it did (message-cover.ts); a sender simply stops.
    const cover = self === 'receives' ? messageCover(f, 'removed', op.channel, now.channel, name, [...after]) : undefined
    const level = cover?.level ?? 'info'
    f.add({
      rule: 'operation-message-removed',
      level,
      audiences: level !== 'info' ? [{ kind: 'publisher', name: `${now.channel}:${now.id} (peers)` }] : [],
      old: ptr.of('operations', op.id, 'messages'),
      new: ptr.of('operations', now.id, 'messages'),
      message: `Operation ${q(now.id)} no longer carries message ${q(name)} of channel ${q(now.channel)}${cover ? `: ${coverText(cover, 'removed', 'peers that send it to this receiver are refused')}` : '.'}`,
      ...(cover ? coverData(cover) : {}),
      scope: { operation: now.id, channel: now.channel, in: 'new' },
    })
  }
  for (const name of after) {
    if (before.has(name) || !oc.messages.some((m) => m.name === name)) continue
    // Now carried by a sender: its subscribers meet it, unless the messages it listed before accepted it all.
    const cover = self === 'sends' ? messageCover(f, 'added', op.channel, now.channel, name, [...before]) : undefined
    const level = cover?.level ?? 'info'
    f.add({
      rule: 'operation-message-added',
      level,
      audiences: level !== 'info' ? [{ kind: 'subscriber', name: `${now.channel}:${now.id} (peers)` }] : [],
      old: ptr.of('operations', op.id),
      new: ptr.of('operations', now.id, 'messages'),
      message: `Operation ${q(now.id)} now carries message ${q(name)} of channel ${q(now.channel)}${cover ? `: ${coverText(cover, 'added', undefined, 'its subscribers meet a message they did not receive before')}` : '.'}`,
      ...(cover ? coverData(cover) : {}),
      scope: { operation: now.id, channel: now.channel, in: 'new' },
    })
  }
}

/** Said of a change whose level the channel's other messages lowered from `alone` (its level compared message by message) to `level` (sibling-cover.ts). */
export function siblingsNote(level: DiffLevel, alone: DiffLevel): string {
  if (level === alone) return ''
  return level === 'info'
    ? " (the channel's other messages still take what it took: nobody breaks)"
    : " (whether the channel's other messages still take what it took could not be proven)"
}

/** A message removed from (or added to) a channel or an operation, in words: what its cover (message-cover.ts) proved. */
function coverText(
  cover: Cover,
  direction: 'removed' | 'added',
  refused = 'whoever sends it is refused',
  meets = 'receivers that know only the old messages meet one they cannot read',
): string {
  const named = [...new Set([cover.by?.payload, cover.by?.headers].filter((n): n is string => n !== undefined))]
  const carriers = `${named.length === 1 ? 'message' : 'messages'} ${named.map(q).join(' and ')}`
  if (direction === 'removed')
    switch (cover.level) {
      case 'info':
        return `its payloads and headers are still accepted by ${carriers}, so nothing sent is refused.`
      case 'warning':
        return `whether the remaining messages together still accept every payload and headers it accepted could not be proven${cover.unproven === 'bounded' ? ' (a bound of the comparison was reached)' : ''}: ${refused.replace(/ (?:is|are) refused/, ' may be refused')}.`
      default:
        return cover.witness ? `${refused} (${witnessText(cover.witness.member)} is accepted by no message now).` : `${refused}.`
    }
  switch (cover.level) {
    case 'info':
      return `its payloads and headers were already accepted by ${carriers}, so receivers meet nothing new.`
    case 'warning':
      return `whether the old messages together accepted every payload and headers it accepts could not be proven${cover.unproven === 'bounded' ? ' (a bound of the comparison was reached)' : ''}: ${meets.replace(' meet ', ' may meet ')}.`
    default:
      return cover.witness ? `${meets} (${witnessText(cover.witness.member)} was accepted by no old message).` : `${meets}.`
  }
}

/** The value a cover's witness is, in words: a payload, headers, or the two together (which no other message takes both of). */
function witnessText(member: NonNullable<Cover['witness']>['member']): string {
  return member === 'message' ? 'its payload and headers together in data.witness' : `its ${member} in data.witness`
}

function coverData(cover: Cover): { data?: Record<string, unknown> } {
  if (cover.witness) return { data: { witness: cover.witness.value, member: cover.witness.member } }
  if (cover.by) return { data: { carriedBy: cover.by } }
  return {}
}

export function dedupeParties(parties: readonly Party[]): Party[] {
  const seen = new Set<string>()
  return parties.filter((p) => {
    const key = `${p.role}\u0000${p.audience.kind}\u0000${p.audience.name ?? ''}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
