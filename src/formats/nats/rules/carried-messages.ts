import type { NatsContext } from '../context.js'
import { isObject } from '../document.js'
import { listedMessages } from '../build-model.js'
import type { MessageModel } from '../message-schemas.js'

/**
 * The messages a standard operation carries, as the model reads them: those it lists
 * (`operation.messages`) when they are fewer than its channel's, else its channel's; with `listed`,
 * whether it lists them. Messages whose references cannot be followed are left out (the reference
 * rules report them). O(listed + channel messages).
 */
export function carriedMessages(ctx: NatsContext, operationId: string): { messages: MessageModel[]; listed: boolean } {
  const std = ctx.standard('operations')[operationId]
  if (!isObject(std)) return { messages: [], listed: false }
  const channelId = ctx.channelOf(std)
  const all = (channelId === undefined ? undefined : ctx.messages.byChannel.get(channelId)) ?? []
  const listed = channelId === undefined ? undefined : listedMessages(ctx, std, channelId)
  const messages = (listed ? all.filter((m) => listed.includes(m.name)) : all).filter((m) => !m.external)
  return { messages, listed: listed !== undefined }
}

/** The messages of a channel (by id), references followed, unresolvable ones left out. */
export function channelMessages(ctx: NatsContext, channelId: string): MessageModel[] {
  return (ctx.messages.byChannel.get(channelId) ?? []).filter((m) => !m.external)
}
