/**
 * Who uses a channel, per operation: the document's own operations (its publishers, subscribers,
 * requesters and responders) and, across the wire, the peers each of them talks to (the subscribers
 * of what a publisher sends, the publishers of what a subscriber receives). A change to what a
 * channel carries breaks one side of that wire or the other; the bundle part names the peers when
 * the bundle links them. O(operations on the channel).
 */
import type { DiffAudience } from '../../../core/diff/types.js'
import { isResponder, type Version } from './context.js'

export interface Party {
  audience: DiffAudience
  /** What the party does with the channel's messages and subjects. */
  role: 'sends' | 'receives'
  /** The document's own operation, or the peers on the other end of one. */
  local: boolean
  operation: string
}

/**
 * The parties of one channel in one version, made once per diff (`Version.parties`): every message
 * and header of the channel asks. Shared: callers copy or filter, never change it.
 */
export function partiesOf(v: Version, channel: string): readonly Party[] {
  let known = v.parties.get(channel)
  if (!known) v.parties.set(channel, (known = channelParties(v, channel)))
  return known
}

function channelParties(v: Version, channel: string): Party[] {
  const out: Party[] = []
  for (const op of v.byChannel.get(channel) ?? []) {
    const name = `${channel}:${op.id}`
    if (op.requestReply?.replyChannel === channel && op.channel !== channel) {
      // The reply channel: the requester receives what the responders send back.
      out.push({ audience: { kind: 'requester', name }, role: 'receives', local: true, operation: op.id })
      out.push({ audience: { kind: 'responder', name: `${name} (peers)` }, role: 'sends', local: false, operation: op.id })
      continue
    }
    if (op.action === 'receive' && op.channel !== channel && v.responders.get(op.id) === channel) {
      // A responder's reply channel: it sends the reply, its requesters receive it.
      out.push({ audience: { kind: 'responder', name }, role: 'sends', local: true, operation: op.id })
      out.push({ audience: { kind: 'requester', name: `${name} (peers)` }, role: 'receives', local: false, operation: op.id })
      continue
    }
    if (op.action === 'send') {
      const rr = op.requestReply !== undefined
      out.push({ audience: { kind: rr ? 'requester' : 'publisher', name }, role: 'sends', local: true, operation: op.id })
      out.push({ audience: { kind: rr ? 'responder' : 'subscriber', name: `${name} (peers)` }, role: 'receives', local: false, operation: op.id })
    } else {
      const rr = isResponder(v, op)
      out.push({ audience: { kind: rr ? 'responder' : 'subscriber', name }, role: 'receives', local: true, operation: op.id })
      out.push({ audience: { kind: rr ? 'requester' : 'publisher', name: `${name} (peers)` }, role: 'sends', local: false, operation: op.id })
    }
  }
  return out
}

/** Audiences of the parties with a role, deduplicated; a channel nobody in the document uses still has unknown parties of that role. */
export function audiencesOf(parties: readonly Party[], role: 'sends' | 'receives', channel: string): DiffAudience[] {
  const out = parties.filter((p) => p.role === role).map((p) => p.audience)
  if (out.length === 0) out.push({ kind: role === 'sends' ? 'publisher' : 'subscriber', name: `${channel} (outside the document)` })
  return out
}
