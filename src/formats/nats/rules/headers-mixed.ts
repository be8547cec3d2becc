import { refId } from '../context.js'
import { isObject } from '../document.js'
import type { MessageModel } from '../message-schemas.js'
import { carriedMessages, channelMessages } from './carried-messages.js'
import { natsRule } from './rule.js'
import { standardParts } from './standard-reads.js'

/** Complexity: one pass over the profiled operations, each reading its channel's messages (and its reply channel's): O(operations x messages per channel). */

/** The names of `messages` with and without a `headers` schema, when there are both (else undefined). */
function mixed(messages: readonly MessageModel[]): { with: string[]; without: string[] } | undefined {
  // Most operations' messages agree: told by one look at each, before any list is made (bench/).
  let some = false
  let none = false
  for (const m of messages) {
    if (m.headers !== undefined) some = true
    else none = true
  }
  if (!some || !none) return undefined
  const withHeaders = messages.filter((m) => m.headers !== undefined).map((m) => m.name)
  const without = messages.filter((m) => m.headers === undefined).map((m) => m.name)
  return withHeaders.length > 0 && without.length > 0 ? { with: withHeaders, without } : undefined
}

/**
 * A message's headers are checked against the headers schemas of the messages that could carry
 * them; one message of those with no headers schema takes any headers, so a validator of the set
 * would have to know which message a payload is (headers and payload are checked apart): the
 * client would check nothing, silently. So an operation carrying messages of which some have a
 * headers schema and some none (its channel's, or those it lists in `operation.messages`), or a
 * request whose reply channel's messages are so, is refused as unsupported. Reported at the
 * operation's `messages` when it lists fewer than all of its channel's, else at its `channel` (or its
 * `reply`'s `channel`).
 */
export const headersMixed = natsRule({
  code: 'NATS_HEADERS_MIXED',
  description:
    "An operation carries messages of which some have a `headers` schema and some have none (or its reply channel's messages are so): a headers check cannot tell which message a payload is, so it is unsupported; give each message a headers schema (`type: object` takes any headers), or list in `operation.messages` only messages that agree.",
  // The operations (standard and profiled) and the messages of their channels and reply channels.
  reads: (ctx) => standardParts(ctx, 'operations', 'channels'),
  check(ctx, report) {
    const standard = ctx.standard('operations')
    for (const id of Object.keys(ctx.section('operations'))) {
      const std = standard[id]
      if (!isObject(std)) continue
      const { messages, listed } = carriedMessages(ctx, id)
      const carried = mixed(messages)
      if (carried)
        report(
          ctx.pointer('operations', id, listed ? 'messages' : 'channel'),
          `Operation ${JSON.stringify(id)} carries messages with a headers schema (${carried.with.join(', ')}) and without one (${carried.without.join(', ')}): a message without one takes any headers, and headers are checked apart from the payload, so nothing would be checked. Give each a headers schema, or list only messages that agree.`,
          { with: carried.with, without: carried.without },
        )
      const replyId = isObject(std.reply) ? refId(std.reply.channel, '#/channels/') : undefined
      const reply = replyId === undefined ? undefined : mixed(channelMessages(ctx, replyId))
      if (reply)
        report(
          ctx.pointer('operations', id, 'reply', 'channel'),
          `The reply channel ${JSON.stringify(replyId)} of operation ${JSON.stringify(id)} has messages with a headers schema (${reply.with.join(', ')}) and without one (${reply.without.join(', ')}): a reply's headers would go unchecked. Give each a headers schema.`,
          { with: reply.with, without: reply.without },
        )
    }
  },
})
