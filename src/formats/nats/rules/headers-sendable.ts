import { HEADER_NAME } from '../../../runtime/nats/header-text.js'
import { escapeToken } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../document.js'
import { readableSchemaFormat } from '../multi-format.js'
import { eachMessage, reachSchema } from './each-message.js'
import { natsRule } from './rule.js'
import { standardParts } from './standard-reads.js'

/**
 * Complexity: one pass over the document's messages (each-message.ts); for each headers schema, its
 * `required` list and the schemas of the members it names, each reference followed at most 32 hops:
 * O(messages + required names).
 */

/** Whether a JSON Schema `type` admits a string (absent: any type). */
const allowsString = (type: unknown) => type === undefined || type === 'string' || (Array.isArray(type) && type.includes('string'))

/** Why no header value (a string) can satisfy `schema`, or `undefined` when one may. */
function unsatisfiable(schema: unknown): string | undefined {
  if (schema === false) return 'its schema is `false`'
  if (!isObject(schema)) return undefined
  if (!allowsString(schema.type)) return `its type is ${JSON.stringify(schema.type)}`
  if (Object.hasOwn(schema, 'const') && typeof schema.const !== 'string') return `its const is ${JSON.stringify(schema.const)}`
  if (Array.isArray(schema.enum) && !schema.enum.some((value) => typeof value === 'string')) return 'its enum lists no string'
  return undefined
}

/**
 * A message's headers are text: NATS carries each header as a `Name: value` line of its header block,
 * so every value a peer receives is a string and every name printable ASCII without a colon. A headers
 * schema that REQUIRES a header NATS cannot carry (its name), or whose schema no string satisfies
 * (`type: integer`, a `const` or `enum` of no string, `false`), refuses every message of its channel:
 * the generated client could send none (its `options.headers` type would hold `never`) and would
 * refuse every one it receives. Refused where the header is named in `required`, or at the member's
 * schema that no string satisfies (references followed, reported in the file that holds it). Headers
 * the schema only allows are the client's to refuse at run time (`INVALID_HEADERS`).
 */
export const headersSendable = natsRule({
  code: 'NATS_HEADERS_UNSENDABLE',
  description:
    'A headers schema requires a header no NATS message can carry: its name is not printable ASCII without a colon, or no string (what every header value is) satisfies its schema.',
  reads: (ctx) => standardParts(ctx),
  check(ctx, report) {
    eachMessage(ctx, (file, message, at) => {
      if (!Object.hasOwn(message, 'headers')) return
      let written: unknown = message.headers
      let writtenAt = `${at}/headers`
      if (isObject(written) && typeof written.schemaFormat === 'string' && Object.hasOwn(written, 'schema')) {
        if (!readableSchemaFormat(written.schemaFormat)) return
        written = written.schema
        writtenAt += '/schema'
      }
      const headers = reachSchema(ctx, file, written, writtenAt)
      if (!headers || !isObject(headers.value) || !Array.isArray(headers.value.required)) return
      const properties = isObject(headers.value.properties) ? headers.value.properties : {}
      headers.value.required.forEach((name, index) => {
        if (typeof name !== 'string') return // the AsyncAPI schema validation's
        if (!HEADER_NAME.test(name)) {
          report.in(
            headers.file,
            `${headers.at}/required/${index}`,
            `The headers schema requires the header ${JSON.stringify(name)}, which NATS cannot carry (a header name is printable ASCII without a colon or a space): no message of this channel could be sent or accepted. Rename the header.`,
            { header: name },
          )
          return
        }
        if (!Object.hasOwn(properties, name)) return
        const member = reachSchema(ctx, headers.file, properties[name], `${headers.at}/properties/${escapeToken(name)}`)
        const why = member && unsatisfiable(member.value)
        if (!member || !why) return
        report.in(
          member.file,
          member.at,
          `The headers schema requires the header ${JSON.stringify(name)}, but ${why}: a NATS header value is always a string, so no message of this channel could be sent or accepted. Describe the value as a string (a \`pattern\` or \`enum\` of strings for a number's digits).`,
          { header: name },
        )
      })
    })
  },
})
