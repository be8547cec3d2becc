import { escapeToken } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../document.js'
import type { LoadedFile } from '../load.js'
import { readableSchemaFormat } from '../multi-format.js'
import { eachMessage } from './each-message.js'
import { natsRule, type NatsReport } from './rule.js'
import { standardParts } from './standard-reads.js'

/**
 * Complexity: one pass over the channels' messages, components.messages and components.schemas of
 * the document, following each message reference (at most 32 hops) once: O(messages + schemas).
 */

/** A Multi Format Schema Object: `{schemaFormat, schema}` (AsyncAPI 3, where a payload, header or schema may be one). */
const multiFormat = (value: unknown): value is { schemaFormat: string; schema: unknown } =>
  isObject(value) && typeof value.schemaFormat === 'string' && Object.hasOwn(value, 'schema')

/**
 * "Unsupported capabilities fail explicitly": a message payload or headers schema (or a component
 * schema) written in a schema format the project cannot read (Avro, Protobuf, RAML, OpenAPI, another
 * JSON Schema draft) would compile to a module that types the payload `unknown` and validates nothing.
 * It is refused, naming the format, at the `schemaFormat` of the object in the file that holds it
 * (a message in a locked file is reported there).
 */
export const schemaFormat = natsRule({
  code: 'NATS_SCHEMA_FORMAT',
  description:
    'A message payload or headers, or a component schema, in a schema format other than an AsyncAPI schema or JSON Schema draft-07 (Avro, Protobuf, RAML, OpenAPI, ...): unsupported, so nothing would type or validate it.',
  reads: (ctx) => standardParts(ctx),
  check(ctx, report) {
    eachMessage(ctx, (file, message, at) => {
      for (const member of ['payload', 'headers'])
        if (multiFormat(message[member])) reportFormat(report, file, `${at}/${member}`, (message[member] as { schemaFormat: string }).schemaFormat)
    })
    const components = isObject(ctx.doc.components) ? ctx.doc.components : {}
    const schemas = isObject(components.schemas) ? components.schemas : {}
    for (const name of Object.keys(schemas))
      if (multiFormat(schemas[name]))
        reportFormat(report, ctx.main, `/components/schemas/${escapeToken(name)}`, (schemas[name] as { schemaFormat: string }).schemaFormat)
  },
})

function reportFormat(report: NatsReport, file: LoadedFile, at: string, format: string): void {
  if (readableSchemaFormat(format)) return
  report.in(
    file,
    `${at}/schemaFormat`,
    `Schema format ${JSON.stringify(format)} is not supported: this project reads AsyncAPI schemas and JSON Schema draft-07 only, so nothing would type or validate this schema (unsupported capabilities fail explicitly). Write it as a JSON Schema.`,
    { schemaFormat: format },
  )
}
