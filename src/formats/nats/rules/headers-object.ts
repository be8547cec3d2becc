import { escapeToken } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../document.js'
import type { LoadedFile } from '../load.js'
import { readableSchemaFormat } from '../multi-format.js'
import { follow, type Where } from '../message-schemas.js'
import type { NatsContext } from '../context.js'
import { natsRule } from './rule.js'

/**
 * Complexity: one pass over the channels' messages and components.messages of the document,
 * following each message reference and each headers reference (at most 32 hops each) once:
 * O(messages).
 */

/**
 * Whether a JSON Schema `type` lets an object through: absent (a schema that says nothing of the
 * type, `{ properties: ... }` as producers write it, still describes a map), `object`, or a list
 * naming `object` (headers are always a map, so its other types are never reached).
 */
const allowsObject = (type: unknown) => type === undefined || type === 'object' || (Array.isArray(type) && type.includes('object'))

/**
 * AsyncAPI 3 Message Object: the `headers` schema "MUST be a map of key-value pairs" (a message's
 * headers are names and values). A schema whose `type` excludes object, or that is no schema object
 * at all, describes no map: refused. One without `type`, or whose type list names object, is read
 * as the map it can only ever be given (the AsyncAPI 2 schema's own `type: const object` bound only
 * a `type` that is written); the client checks headers as a plain object of strings. Refused at the message's `headers` (in the file that holds the
 * message), after following its `$ref`s; a multi-format schema is its `schema` (an unreadable
 * format is NATS_SCHEMA_FORMAT's), an unresolvable reference the reference rules'.
 */
export const headersObject = natsRule({
  code: 'NATS_HEADERS_NOT_OBJECT',
  description:
    "A message's `headers` schema describes no map: its `type` excludes object, or it is no schema object (AsyncAPI 3: it MUST be a map of key-value pairs); write `type: object` with the headers as its properties.",
  check(ctx, report) {
    eachMessage(ctx, (file, message, at) => {
      if (!Object.hasOwn(message, 'headers')) return
      let schema: unknown = message.headers
      let where: Where = { file: file.file, doc: file.source.value }
      if (isObject(schema) && typeof schema.schemaFormat === 'string' && Object.hasOwn(schema, 'schema')) {
        if (!readableSchemaFormat(schema.schemaFormat)) return
        schema = schema.schema
      }
      try {
        for (let hops = 0; hops < 32 && isObject(schema) && typeof schema.$ref === 'string'; hops++) {
          const target = follow(schema.$ref, where, ctx)
          schema = target.value
          where = target.where
        }
      } catch {
        return // unresolved references are NATS_REF_UNRESOLVED's
      }
      if (isObject(schema) && typeof schema.$ref === 'string') return // a reference loop: the reference rules'
      if (isObject(schema) && allowsObject(schema.type)) return
      const type = isObject(schema) ? schema.type : undefined
      report.in(
        file,
        `${at}/headers`,
        `The headers schema of this message is ${isObject(schema) ? `of type ${JSON.stringify(type)}` : `${JSON.stringify(schema)}, not a schema object`}: a message's headers are a map of names to values, and AsyncAPI requires its headers schema to be a map. Write \`type: object\` with the headers as its properties.`,
        { type: type ?? null },
      )
    })
  },
})

/** Each message of the document once, where it is written: the channels' (references followed) and components.messages. */
function eachMessage(ctx: NatsContext, visit: (file: LoadedFile, message: Record<string, unknown>, at: string) => void): void {
  const seen = new Set<string>()
  const once = (file: LoadedFile, message: unknown, at: string) => {
    const key = `${file.file}#${at}`
    if (seen.has(key) || !isObject(message)) return
    seen.add(key)
    visit(file, message, at)
  }
  const start: Where = { file: ctx.main.file, doc: ctx.doc }
  const channels = ctx.standard('channels')
  for (const channelId of Object.keys(channels)) {
    const channel = channels[channelId]
    const messages = isObject(channel) && isObject(channel.messages) ? channel.messages : {}
    for (const name of Object.keys(messages)) {
      let message: unknown = messages[name]
      let where = start
      let at = `/channels/${escapeToken(channelId)}/messages/${escapeToken(name)}`
      try {
        for (let hops = 0; hops < 32 && isObject(message) && typeof message.$ref === 'string'; hops++) {
          const target = follow(message.$ref, where, ctx)
          message = target.value
          where = target.where
          at = target.fragment
        }
      } catch {
        continue // unresolved references are NATS_REF_UNRESOLVED's
      }
      const file = where.file === ctx.main.file ? ctx.main : (ctx.input.files.get(where.file) ?? ctx.input.documents.get(where.file))
      if (file) once(file, message, at)
    }
  }
  const components = isObject(ctx.doc.components) ? ctx.doc.components : {}
  const messages = isObject(components.messages) ? components.messages : {}
  for (const name of Object.keys(messages)) once(ctx.main, messages[name], `/components/messages/${escapeToken(name)}`)
}
