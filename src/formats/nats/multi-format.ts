import { isObject } from './document.js'

/**
 * Schema formats this project reads: AsyncAPI Schema objects (a superset of JSON Schema draft-07)
 * and JSON Schema draft-07, in JSON or YAML. Media types compare without case, without spaces
 * around parameters and with a quoted parameter value unquoted; the AsyncAPI schema format names the
 * AsyncAPI version, any 3.x.
 */
const READABLE = [/^application\/vnd\.aai\.asyncapi(\+json|\+yaml)?;version=3\.\d+\.\d+$/, /^application\/schema(\+json|\+yaml)?;version=draft-07$/]

export function readableSchemaFormat(format: string): boolean {
  // A parameter's value may be a token or a quoted-string, and the two are the same value (RFC 9110,
  // section 5.6.6): `version="draft-07"` is `version=draft-07`.
  const normalized = format
    .toLowerCase()
    .replace(/\s*;\s*/g, ';')
    .replace(/=\s*"((?:[^"\\]|\\.)*)"/g, (_, value: string) => `=${value.replace(/\\(.)/g, '$1')}`)
  return READABLE.some((pattern) => pattern.test(normalized))
}

/**
 * The schema a payload, headers or component schema stands for: a Multi Format Schema Object
 * (`{schemaFormat, schema}`, AsyncAPI 3.1.0 section "Multi Format Schema Object") in a format this
 * project reads (an AsyncAPI schema or JSON Schema draft-07) is its `schema`, typed and validated
 * like a plain payload schema; anything else is returned as written (an unreadable format is
 * refused by NATS_SCHEMA_FORMAT, so it never reaches generated code). O(1).
 */
export function schemaOfPayload(value: unknown): unknown {
  if (!isObject(value) || typeof value.schemaFormat !== 'string' || !Object.hasOwn(value, 'schema')) return value
  return readableSchemaFormat(value.schemaFormat) ? value.schema : value
}
