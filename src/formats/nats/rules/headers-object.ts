import { isObject } from '../document.js'
import { readableSchemaFormat } from '../multi-format.js'
import { follow, type Where } from '../message-schemas.js'
import { eachMessage } from './each-message.js'
import { natsRule } from './rule.js'
import { standardParts } from './standard-reads.js'

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
  reads: (ctx) => standardParts(ctx),
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
