/**
 * Operations, paired by id (or as a rename: the same on the wire under another id): removed (breaking for the peers on the other end and the document's own
 * code that used it), action flipped, moved to a channel with other subjects, reply added or
 * removed, and the delivery they promise changed (Core or JetStream, the stream a publication is
 * confirmed by, the consumer a subscription reads, the request timeout, the queue group).
 * O(operations).
 */
import type { DiffAudience } from '../../../core/diff/types.js'
import type { OperationModel } from '../model.js'
import { dedupe, sameLanguage } from './channels.js'
import { isResponder, q, type Findings, type Version } from './context.js'
import { ptr } from './source.js'

/** The operation itself and the peers on the other end of it. */
export function operationAudiences(op: OperationModel, v: Version): DiffAudience[] {
  const name = `${op.channel}:${op.id}`
  const self: DiffAudience =
    op.action === 'send' ? { kind: op.requestReply ? 'requester' : 'publisher', name } : { kind: isResponder(v, op) ? 'responder' : 'subscriber', name }
  const peer: DiffAudience =
    op.action === 'send'
      ? { kind: op.requestReply ? 'responder' : 'subscriber', name: `${name} (peers)` }
      : { kind: isResponder(v, op) ? 'requester' : 'publisher', name: `${name} (peers)` }
  return [self, peer]
}

/** Candidate pairs a rename pairing may compare in one diff (past it, the rest are removals and additions). */
const RENAME_BUDGET = 10_000

/** What an operation does on the wire, apart from its id and channel: two operations alike here and on channels of one subject language are one operation renamed. */
function wireKey(v: Version, op: OperationModel): string {
  const { id: _id, channel: _channel, source: _source, ...rest } = op
  return JSON.stringify([
    rest.action,
    rest.api,
    rest.kind,
    rest.confirmation,
    rest.stream,
    rest.consumer,
    rest.queue,
    rest.requestReply,
    rest.messages,
    v.responders.get(op.id),
  ])
}

/**
 * An operation only in the old version and one only in the new one that do the same on the wire
 * (wireKey) on channels with the same subjects: a rename, which no peer sees (an outside pass: a
 * rename with the link updated in the same change told the linked subscriber it broke). Paired in
 * document order, each at most once; at most RENAME_BUDGET candidate pairs are compared.
 */
function pairRenames(f: Findings): Map<string, OperationModel> {
  const { old, next } = f
  const out = new Map<string, OperationModel>()
  const added = new Map<string, OperationModel[]>()
  for (const op of next.model.operations) {
    if (old.operations.has(op.id)) continue
    const key = wireKey(next, op)
    const list = added.get(key)
    if (list) list.push(op)
    else added.set(key, [op])
  }
  if (added.size === 0) return out
  let budget = RENAME_BUDGET
  const taken = new Set<OperationModel>()
  for (const op of old.model.operations) {
    if (next.operations.has(op.id)) continue
    for (const candidate of added.get(wireKey(old, op)) ?? []) {
      if (--budget < 0) return out
      if (taken.has(candidate)) continue
      const oc = old.channels.get(op.channel)
      const nc = next.channels.get(candidate.channel)
      if (oc === undefined || nc === undefined || !sameLanguage(old, oc, next, nc)) continue
      out.set(op.id, candidate)
      taken.add(candidate)
      break
    }
  }
  return out
}

export function diffOperations(f: Findings): void {
  const { old, next } = f
  const renamed = pairRenames(f)
  const renamedTo = new Set([...renamed.values()].map((op) => op.id))
  for (const op of old.model.operations) {
    const to = renamed.get(op.id)
    if (to) {
      f.add({
        rule: 'operation-renamed',
        level: 'info',
        audiences: [],
        old: ptr.operation(op.id),
        new: ptr.operation(to.id),
        message: `Operation ${q(op.id)} is now ${q(to.id)}, doing the same on channels with the same subjects: no peer sees a difference; code and links that name it by id use the new one.`,
      })
      compareOperation(f, op, to)
      continue
    }
    const now = next.operations.get(op.id)
    if (!now) {
      f.add({
        rule: 'operation-removed',
        level: 'breaking',
        audiences: operationAudiences(op, old),
        old: ptr.operation(op.id),
        message: `Operation ${q(op.id)} (${op.action} on ${q(op.channel)}) was removed: the peers that ${op.action === 'send' ? 'receive' : 'send'} through it break.`,
        scope: { operation: op.id, channel: op.channel, in: 'old' },
      })
      continue
    }
    compareOperation(f, op, now)
  }
  for (const op of next.model.operations) {
    if (old.operations.has(op.id) || renamedTo.has(op.id)) continue
    f.add({
      rule: 'operation-added',
      level: 'info',
      audiences: [],
      new: ptr.operation(op.id),
      message: `Operation ${q(op.id)} (${op.action} on ${q(op.channel)}) was added.`,
    })
  }
}

function compareOperation(f: Findings, op: OperationModel, now: OperationModel): void {
  const { old, next } = f
  const audiences = operationAudiences(now, next)
  const scope = { operation: now.id, channel: now.channel, in: 'new' as const }
  const id = q(now.id)
  if (op.action !== now.action) {
    f.add({
      rule: 'operation-action-changed',
      level: 'breaking',
      audiences: [...operationAudiences(op, old), ...audiences],
      old: ptr.of('operations', op.id, 'action'),
      new: ptr.of('operations', now.id, 'action'),
      message: `Operation ${id} now ${now.action === 'send' ? 'sends' : 'receives'} on ${q(now.channel)} instead of ${op.action === 'send' ? 'sending' : 'receiving'}: its peers on both ends break.`,
      scope,
    })
  }
  if (op.channel !== now.channel) {
    const oc = old.channels.get(op.channel)
    const nc = next.channels.get(now.channel)
    const same = oc !== undefined && nc !== undefined && sameLanguage(old, oc, next, nc)
    f.add({
      rule: 'operation-channel-changed',
      level: same ? 'info' : 'breaking',
      audiences: same ? [] : audiences,
      old: ptr.of('operations', op.id, 'channel'),
      new: ptr.of('operations', now.id, 'channel'),
      message: same
        ? `Operation ${id} moved from channel ${q(op.channel)} to ${q(now.channel)}, which has the same subjects.`
        : `Operation ${id} moved from channel ${q(op.channel)} to ${q(now.channel)}, which has other subjects: its peers break.`,
      scope,
    })
  }
  const oldReply = op.requestReply !== undefined
  const newReply = now.requestReply !== undefined
  if (oldReply !== newReply) {
    f.add({
      rule: newReply ? 'operation-reply-added' : 'operation-reply-removed',
      level: 'breaking',
      audiences: dedupe([...operationAudiences(op, old), ...audiences]),
      old: ptr.operation(op.id),
      new: ptr.operation(now.id),
      message: newReply
        ? `Operation ${id} now expects a reply (request/reply, ${now.requestReply!.timeoutMs} ms): its receivers must respond, and the publisher waits for one.`
        : `Operation ${id} no longer expects a reply: requesters waiting for one and responders sending one break.`,
      scope,
    })
  } else if (op.requestReply && now.requestReply) {
    if (op.requestReply.timeoutMs !== now.requestReply.timeoutMs) {
      const shorter = now.requestReply.timeoutMs < op.requestReply.timeoutMs
      f.add({
        rule: 'operation-reply-timeout-changed',
        level: shorter ? 'warning' : 'info',
        audiences: shorter ? audiences.filter((a) => a.kind === 'responder') : [],
        old: ptr.profile('operations', op.id, 'requestReply', 'timeoutMs'),
        new: ptr.profile('operations', now.id, 'requestReply', 'timeoutMs'),
        message: `Operation ${id} waits ${now.requestReply.timeoutMs} ms for a reply instead of ${op.requestReply.timeoutMs} ms${shorter ? ': a responder that answered in time may now be too late' : ''}.`,
        scope,
      })
    }
    if (op.requestReply.replyChannel !== now.requestReply.replyChannel) {
      const oc = op.requestReply.replyChannel === undefined ? undefined : old.channels.get(op.requestReply.replyChannel)
      const nc = now.requestReply.replyChannel === undefined ? undefined : next.channels.get(now.requestReply.replyChannel)
      // Reply channels have no address (a native inbox): what tells them apart is what they carry.
      const same =
        oc !== undefined &&
        nc !== undefined &&
        sameLanguage(old, oc, next, nc) &&
        JSON.stringify(oc.messages.map((m) => [m.name, m.payload])) === JSON.stringify(nc.messages.map((m) => [m.name, m.payload]))
      if (!same)
        f.add({
          rule: 'operation-reply-channel-changed',
          level: 'warning',
          audiences,
          old: ptr.of('operations', op.id, 'reply'),
          new: ptr.of('operations', now.id, 'reply'),
          message: `Operation ${id} takes its reply on channel ${q(now.requestReply.replyChannel ?? '')} instead of ${q(op.requestReply.replyChannel ?? '')}, which carries other messages: responders answering with the old ones may no longer be understood.`,
          scope,
        })
    }
  }
  // A flipped action flips publish and subscribe with it: reported once, above.
  const sameAction = op.action === now.action
  if (sameAction && (op.kind !== now.kind || op.api !== now.api)) {
    f.add({
      rule: 'operation-delivery-changed',
      level: 'breaking',
      audiences: [...audiences, { kind: 'deployment', name: now.id }],
      old: ptr.profileOperation(op.id),
      new: ptr.profileOperation(now.id),
      message: `Operation ${id} now ${now.kind === 'publish' ? 'publishes' : 'subscribes'} with ${now.api === 'core' ? 'Core NATS' : 'JetStream'} instead of ${op.api === 'core' ? 'Core NATS' : 'JetStream'}${now.api === 'jetstream' ? ' (a stream or consumer must exist, and confirmation or acknowledgment is required)' : ' (no storage confirmation or redelivery any more)'}.`,
      scope,
    })
  } else if (sameAction) {
    if (op.stream !== now.stream) {
      f.add({
        rule: 'operation-stream-changed',
        level: 'breaking',
        audiences: [audiences[0]!, { kind: 'deployment', name: now.stream ?? now.id }],
        old: ptr.profile('operations', op.id, 'publish', 'stream'),
        new: ptr.profile('operations', now.id, 'publish', 'stream'),
        message: `Operation ${id} is confirmed by stream ${q(now.stream ?? '')} instead of ${q(op.stream ?? '')}: publications wait for another stream's acknowledgment.`,
        scope,
      })
    }
    if (op.consumer !== now.consumer) {
      f.add({
        rule: 'operation-consumer-changed',
        level: 'breaking',
        audiences: [audiences[0]!, { kind: 'deployment', name: now.consumer ?? now.id }],
        old: ptr.profile('operations', op.id, 'subscribe', 'consumer'),
        new: ptr.profile('operations', now.id, 'subscribe', 'consumer'),
        message: `Operation ${id} reads consumer ${q(now.consumer ?? '')} instead of ${q(op.consumer ?? '')}: the old consumer's delivery position and pending acknowledgments do not carry over.`,
        scope,
      })
    }
  }
  if (op.queue !== now.queue) {
    f.add({
      rule: 'operation-queue-changed',
      level: 'warning',
      audiences: [audiences[0]!],
      old: ptr.operation(op.id),
      new: ptr.operation(now.id),
      message: `Operation ${id} is in queue group ${q(now.queue ?? '(none)')} instead of ${q(op.queue ?? '(none)')}: while old and new instances run together, each message may be processed by both.`,
      scope,
    })
  }
}
