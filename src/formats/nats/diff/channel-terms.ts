/**
 * What a paired channel promises beside its subjects and payloads: who may publish on it
 * (`publisherIdentity`: the profile's subject-permission binding of a parameter to the publishing
 * peer), the values its AsyncAPI parameters declare (`enum`, which tools that read the standard
 * document check), and each message's content type (`contentType`, else the document's
 * `defaultContentType`). An outside pass found all three changed with no finding at all.
 *
 * Cost: O(parameters + messages) per paired channel.
 */
import { escapeToken } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../document.js'
import type { ChannelModel } from '../model.js'
import { q, type Findings, type Version } from './context.js'
import { audiencesOf, partiesOf } from './parties.js'
import { dedupeParties, memberOfMessage, messageAt } from './payloads.js'
import { ptr } from './source.js'

export function compareChannelTerms(f: Findings, oc: ChannelModel, nc: ChannelModel): void {
  publisherIdentity(f, oc, nc)
  parameterEnums(f, oc, nc)
  contentTypes(f, oc, nc)
}

const identityText = (identity: ChannelModel['publisherIdentity']) => (identity ? `${identity.kind} on ${q(identity.peerParameter)}` : 'none')

function publisherIdentity(f: Findings, oc: ChannelModel, nc: ChannelModel): void {
  const a = oc.publisherIdentity
  const b = nc.publisherIdentity
  if (a?.kind === b?.kind && a?.peerParameter === b?.peerParameter) return
  const id = nc.id
  const parties = dedupeParties([...partiesOf(f.old, oc.id), ...partiesOf(f.next, id)])
  const at = (c: ChannelModel, identity: unknown) => (identity ? `${ptr.profileChannel(c.id)}/publisherIdentity` : ptr.profileChannel(c.id))
  const where = { old: at(oc, a), new: at(nc, b) }
  if (!a)
    f.add({
      rule: 'channel-publisher-identity-added',
      level: 'breaking',
      audiences: audiencesOf(parties, 'sends', id),
      ...where,
      message: `Channel ${q(id)} now binds parameter ${q(b!.peerParameter)} to the publishing peer (${b!.kind}): a publisher may publish only subjects whose ${q(b!.peerParameter)} is its own peer id, and one that publishes another's is refused.`,
      data: { old: null, new: b },
      scope: { channel: id, in: 'new' },
    })
  else if (!b)
    f.add({
      rule: 'channel-publisher-identity-removed',
      level: 'warning',
      audiences: audiencesOf(parties, 'receives', id),
      ...where,
      message: `Channel ${q(id)} no longer binds parameter ${q(a.peerParameter)} to the publishing peer: subscribers that read it as the publisher's identity can no longer trust it.`,
      data: { old: a, new: null },
      scope: { channel: id, in: 'new' },
    })
  else
    f.add({
      rule: 'channel-publisher-identity-changed',
      level: 'breaking',
      audiences: [...audiencesOf(parties, 'sends', id), ...audiencesOf(parties, 'receives', id)],
      ...where,
      message: `Channel ${q(id)} binds another parameter to the publishing peer (${identityText(a)} to ${identityText(b)}): publishers are held to the new one, and what subscribers may trust moved.`,
      data: { old: a, new: b },
      scope: { channel: id, in: 'new' },
    })
}

/** The standard channel's parameter objects (through the version's view of the document). */
function standardParameters(v: Version, channel: string): Record<string, unknown> {
  const channels = isObject(v.doc.value) ? (v.doc.value as Record<string, unknown>).channels : undefined
  const c = isObject(channels) ? channels[channel] : undefined
  const params = isObject(c) ? c.parameters : undefined
  return isObject(params) ? params : {}
}

/** An `enum` as a set of JSON texts, sorted (order is not meaning); undefined when absent. */
function enumOf(parameter: unknown): string[] | undefined {
  if (!isObject(parameter) || !Array.isArray(parameter.enum)) return undefined
  return [...new Set(parameter.enum.map((value) => JSON.stringify(value)))].sort()
}

function parameterEnums(f: Findings, oc: ChannelModel, nc: ChannelModel): void {
  const before = standardParameters(f.old, oc.id)
  const after = standardParameters(f.next, nc.id)
  const parties = dedupeParties([...partiesOf(f.old, oc.id), ...partiesOf(f.next, nc.id)])
  for (const name of Object.keys(after)) {
    if (!Object.hasOwn(before, name)) continue
    const a = enumOf(before[name])
    const b = enumOf(after[name])
    if (JSON.stringify(a) === JSON.stringify(b)) continue
    const shown = (values: string[] | undefined) => (values ? `[${values.join(', ')}]` : 'none')
    f.add({
      rule: 'channel-parameter-enum-changed',
      level: 'warning',
      audiences: [...audiencesOf(parties, 'sends', nc.id), ...audiencesOf(parties, 'receives', nc.id)],
      old: `${ptr.channel(oc.id)}/parameters/${escapeToken(name)}${a ? '/enum' : ''}`,
      new: `${ptr.channel(nc.id)}/parameters/${escapeToken(name)}${b ? '/enum' : ''}`,
      message: `Channel ${q(nc.id)}'s AsyncAPI parameter ${q(name)} declares other values (${shown(a)} to ${shown(b)}): this project's subjects follow the profile's token type, but tools that read the standard parameter accept other subjects now.`,
      data: { parameter: name, old: a?.map((t) => JSON.parse(t) as unknown) ?? null, new: b?.map((t) => JSON.parse(t) as unknown) ?? null },
      scope: { channel: nc.id, in: 'new' },
    })
  }
}

/** A message's content type: its own `contentType`, else the document's `defaultContentType`, else none. */
function contentTypeOf(v: Version, channel: string, name: string): { type: string | undefined; own: boolean; pointer: string } {
  const at = messageAt(v, channel, name)
  const own = memberOfMessage(v.doc.value, at, 'contentType')
  if (typeof own === 'string') return { type: own, own: true, pointer: `${at.pointer}/contentType` }
  const fallback = isObject(v.doc.value) ? (v.doc.value as Record<string, unknown>).defaultContentType : undefined
  return { type: typeof fallback === 'string' ? fallback : undefined, own: false, pointer: typeof fallback === 'string' ? '/defaultContentType' : at.pointer }
}

function contentTypes(f: Findings, oc: ChannelModel, nc: ChannelModel): void {
  const names = new Set(oc.messages.map((m) => m.name))
  const parties = dedupeParties([...partiesOf(f.old, oc.id), ...partiesOf(f.next, nc.id)])
  for (const message of nc.messages) {
    if (!names.has(message.name)) continue
    const a = contentTypeOf(f.old, oc.id, message.name)
    const b = contentTypeOf(f.next, nc.id, message.name)
    // Media types compare without case (RFC 6838), parameters as written.
    if ((a.type ?? '').toLowerCase() === (b.type ?? '').toLowerCase()) continue
    f.add({
      rule: 'message-content-type-changed',
      level: 'warning',
      audiences: [...audiencesOf(parties, 'sends', nc.id), ...audiencesOf(parties, 'receives', nc.id)],
      old: a.pointer,
      new: b.pointer,
      message: `Message ${q(message.name)} of channel ${q(nc.id)} is now ${b.type === undefined ? 'of no declared content type' : q(b.type)} instead of ${a.type === undefined ? 'no declared content type' : q(a.type)}: publishers and subscribers must agree on the encoding (this project's clients send and read JSON either way), and whether they still do is not known.`,
      data: { message: message.name, old: a.type ?? null, new: b.type ?? null },
      scope: { channel: nc.id, in: 'new' },
    })
  }
}
