import { escapeToken } from '../../../runtime/shared/json-pointer.js'
import type { NatsContext, WrittenMessage } from '../context.js'
import { isObject } from '../document.js'
import type { LoadedFile } from '../load.js'
import { follow, type Where } from '../message-schemas.js'

/**
 * Each message of the document once, where it is written: the channels' (references followed, into
 * locked files) and components.messages; for the rules that judge a message in the file that holds
 * it (NATS_SCHEMA_FORMAT, NATS_HEADERS_NOT_OBJECT). O(messages), each reference followed at most 32
 * hops.
 */
export function eachMessage(ctx: NatsContext, visit: (file: LoadedFile, message: Record<string, unknown>, at: string) => void): void {
  // Found once per check (two rules walk them: the references followed and the pointers made once).
  const found = (ctx.ruleFacts.messagesWritten ??= messagesWritten(ctx))
  for (const { file, message, at } of found) visit(file, message, at)
}

/** The messages `eachMessage` visits, in its order. */
function messagesWritten(ctx: NatsContext): WrittenMessage[] {
  const found: WrittenMessage[] = []
  const seen = new Set<string>()
  const once = (file: LoadedFile, message: unknown, at: string) => {
    const key = `${file.file}#${at}`
    if (seen.has(key) || !isObject(message)) return
    seen.add(key)
    found.push({ file, message, at })
  }
  const channels = ctx.standard('channels')
  for (const channelId of Object.keys(channels)) {
    const channel = channels[channelId]
    const messages = isObject(channel) && isObject(channel.messages) ? channel.messages : {}
    for (const name of Object.keys(messages)) {
      const reached = reachSchema(ctx, ctx.main, messages[name], `/channels/${escapeToken(channelId)}/messages/${escapeToken(name)}`)
      if (reached) once(reached.file, reached.value, reached.at) // unresolved references are NATS_REF_UNRESOLVED's
    }
  }
  const components = isObject(ctx.doc.components) ? ctx.doc.components : {}
  const messages = isObject(components.messages) ? components.messages : {}
  for (const name of Object.keys(messages)) once(ctx.main, messages[name], `/components/messages/${escapeToken(name)}`)
  return found
}

/** A schema reached from where it is written: the value, the file that holds it and its pointer there. */
export interface Reached {
  readonly value: unknown
  readonly file: LoadedFile
  readonly at: string
}

/**
 * A schema written at `at` in `file`, its `$ref`s followed (at most 32 hops, into the bundle's
 * files) so that a rule judges the schema itself and reports where it is written. `undefined` when a
 * reference does not resolve (NATS_REF_UNRESOLVED's) or loops (the reference rules').
 */
export function reachSchema(ctx: NatsContext, file: LoadedFile, value: unknown, at: string): Reached | undefined {
  let where: Where = { file: file.file, doc: file.source.value }
  let holder = file
  try {
    for (let hops = 0; hops < 32 && isObject(value) && typeof value.$ref === 'string'; hops++) {
      const target = follow(value.$ref, where, ctx)
      value = target.value
      where = target.where
      at = target.fragment
      const next = where.file === ctx.main.file ? ctx.main : (ctx.input.files.get(where.file) ?? ctx.input.documents.get(where.file))
      if (!next) return undefined
      holder = next
    }
  } catch {
    return undefined
  }
  if (isObject(value) && typeof value.$ref === 'string') return undefined
  return { value, file: holder, at }
}
