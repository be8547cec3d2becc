import { joinPointer } from '../../runtime/shared/json-pointer.js'
import { isObject } from '../../runtime/benzene/document.js'

/** Where schema objects sit in a Benzene document. */
export function* documentSchemas(doc: unknown): Generator<{ schema: unknown; pointer: string }> {
  if (!isObject(doc)) return
  const entries = (list: unknown, name: string, keys: string[]) => {
    const found: Array<{ schema: unknown; pointer: string }> = []
    if (Array.isArray(list)) {
      list.forEach((entry, i) => {
        if (!isObject(entry)) return
        for (const key of keys) if (key in entry) found.push({ schema: entry[key], pointer: joinPointer('', name, i, key) })
      })
    }
    return found
  }
  yield* entries(doc.requests, 'requests', ['request', 'response'])
  yield* entries(doc.events, 'events', ['message'])
  const schemas = isObject(doc.components) ? doc.components.schemas : undefined
  if (isObject(schemas)) {
    for (const [name, schema] of Object.entries(schemas)) yield { schema, pointer: joinPointer('', 'components', 'schemas', name) }
  }
}

/** Keywords whose value is one schema, and those whose value is a list or map of schemas. */
const SINGLE = ['items', 'additionalProperties', 'not'] as const
const LISTS = ['allOf', 'anyOf', 'oneOf'] as const

/** A schema's pointer, spelled out only when asked (a rule that reports): most never are. */
export type Where = () => string

const below =
  (where: Where, ...tokens: Array<string | number>): Where =>
  () =>
    joinPointer(where(), ...tokens)

/**
 * Visits a schema and every schema nested in it (not following `$ref`), depth first, with its
 * pointer. Tolerates malformed schemas: it only descends where the shape allows.
 */
export function walkSchema(schema: unknown, where: Where, visit: (schema: unknown, where: Where) => void): void {
  visit(schema, where)
  if (!isObject(schema)) return
  for (const key of SINGLE) {
    if (isObject(schema[key])) walkSchema(schema[key], below(where, key), visit)
  }
  const properties = schema.properties
  if (isObject(properties)) for (const name of Object.keys(properties)) walkSchema(properties[name], below(where, 'properties', name), visit)
  for (const key of LISTS) {
    const list = schema[key]
    if (Array.isArray(list)) for (let i = 0; i < list.length; i++) walkSchema(list[i], below(where, key, i), visit)
  }
}
