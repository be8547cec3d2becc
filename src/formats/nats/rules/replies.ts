import { locationSites } from '../../../core/json-refs.js'
import { refId } from '../context.js'
import { isObject } from '../document.js'
import { natsRule } from './rule.js'
import { OP } from './operations.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over operations (and over the location expressions of the document): O(operations + document). */

export const requestReply = natsRule({
  code: 'NATS_REQUEST_REPLY',
  description: 'requestReply on anything but a core send whose standard reply channel has no address, or without a positive timeoutMs.',
  check(ctx, report) {
    const standard = ctx.standard('operations')
    for (const [id, op] of ctx.profileOperations) {
      if (!isObject(op.requestReply)) continue
      const at = () => ctx.pointer(...OP(id), 'requestReply')
      const std = isObject(standard[id]) ? (standard[id] as Record<string, unknown>) : {}
      const publish = isObject(op.publish) ? op.publish : undefined
      if (publish?.api !== 'core' || std.action !== 'send') {
        report(at(), 'requestReply is for a core send only (JetStream business results use explicit result operations).')
        continue
      }
      const reply = isObject(std.reply) ? std.reply : undefined
      const replyChannel = reply ? refId(reply.channel, '#/channels/') : undefined
      const channel = replyChannel === undefined ? undefined : ctx.channels.get(replyChannel)
      if (!reply || !channel) report(at(), `Operation ${JSON.stringify(id)} needs a standard reply with a channel for the native inbox.`)
      else if (channel.address !== undefined)
        report(at(), `The reply channel ${JSON.stringify(replyChannel)} has an address; a native-inbox reply has an unknown address.`)
      else if (reply.address !== undefined)
        report(
          at(),
          `Operation ${JSON.stringify(id)}'s reply has an address (where the reply is sent, as an Operation Reply Address Object); a native-inbox reply goes to the inbox nats.js makes for the request, so a reply of requestReply states none.`,
        )
      const timeout = op.requestReply.timeoutMs
      if (!(Number.isSafeInteger(timeout) && (timeout as number) > 0))
        report(ctx.pointer(...OP(id), 'requestReply', 'timeoutMs'), 'timeoutMs is a positive integer of milliseconds.')
    }
  },
})

/**
 * "JetStream business results use explicit result operations": a standard `reply` is the native
 * inbox of a requestReply core send (checked above) or a core responder's answer to one. On a
 * JetStream operation it would be a second, unchecked result path; on a send without requestReply
 * it is a request with no timeout or completion the generator could honour. O(operations).
 */
export const standardReply = natsRule({
  code: 'NATS_STANDARD_REPLY',
  description: 'A standard reply on a JetStream operation (results are explicit result operations) or on a send without requestReply.',
  check(ctx, report) {
    const standard = ctx.standard('operations')
    for (const [id, op] of ctx.profileOperations) {
      const std = isObject(standard[id]) ? (standard[id] as Record<string, unknown>) : {}
      if (std.reply === undefined) continue
      const api = (isObject(op.publish) ? op.publish.api : isObject(op.subscribe) ? op.subscribe.api : undefined) as unknown
      const at = ctx.pointer('operations', id, 'reply')
      if (api === 'jetstream')
        report(at, `Operation ${JSON.stringify(id)} is JetStream; its business results are explicit result operations, not a standard reply.`)
      else if (std.action === 'send' && !isObject(op.requestReply))
        report(at, `Operation ${JSON.stringify(id)} has a standard reply but no requestReply (routing, completion, timeoutMs) in its profile entry.`)
    }
  },
})

/**
 * Where an Operation Reply Address Object's `location` sits: an operation's reply (root or component
 * operation), a component reply, or a component reply address. Anchored at the document's root, so
 * a member named `reply` inside a schema or an example is not one.
 */
const REPLY_ADDRESS_LOCATION =
  /^\/(?:(?:components\/)?operations\/[^/]+\/reply\/address|components\/replies\/[^/]+\/address|components\/replyAddresses\/[^/]+)\/location$/

/**
 * A reply address read from the request's headers: NATS sends a reply to the request's reply
 * subject, a field of the protocol, and the client answers there; an address in a header is routing
 * the generated code cannot honour (profile v0.2 correlates and routes through payload expressions
 * and the native inbox), so it is refused as unsupported.
 *
 * A message's `correlationId` in the headers is not refused: it is AsyncAPI metadata the generated
 * code does not read (nor a payload one), and the profile's own correlation is an interaction's
 * `correlation`, payload expressions only, which the profile's shape holds to. Likewise a channel
 * parameter's `location` says where else the subject's value is found (AsyncAPI 3.1.0, Parameter
 * Object) and routes nothing.
 */
export const headerReplyAddress = natsRule({
  code: 'NATS_UNSUPPORTED',
  description:
    'A reply address located in the request headers (`$message.header#...`): NATS replies go to the protocol reply subject, and profile v0.2 routes no reply through a header.',
  check(ctx, report) {
    for (const { value, pointer } of locationSites(ctx.doc)) {
      if (!(value as string).startsWith('$message.header') || !REPLY_ADDRESS_LOCATION.test(pointer)) continue
      report(
        pointer,
        `${value as string} reads the reply address from a header; NATS replies go to the request's reply subject (the native inbox), and profile v0.2 routes no reply through a header.`,
      )
    }
  },
})
