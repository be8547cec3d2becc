import { joinPointer } from '../../core/json-pointer.js'
import { isObject } from './document.js'

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

/**
 * Visits a schema and every schema nested in it (not following `$ref`), depth first, with its
 * pointer. Tolerates malformed schemas: it only descends where the shape allows.
 */
export function walkSchema(schema: unknown, pointer: string, visit: (schema: unknown, pointer: string) => void): void {
  visit(schema, pointer)
  if (!isObject(schema)) return
  for (const key of SINGLE) {
    if (isObject(schema[key])) walkSchema(schema[key], joinPointer(pointer, key), visit)
  }
  if (isObject(schema.properties)) {
    for (const [name, child] of Object.entries(schema.properties)) walkSchema(child, joinPointer(pointer, 'properties', name), visit)
  }
  for (const key of LISTS) {
    const list = schema[key]
    if (Array.isArray(list)) list.forEach((child, i) => walkSchema(child, joinPointer(pointer, key, i), visit))
  }
}

const walked = new WeakMap<object, Array<[unknown, string]>>()

/**
 * Every schema in the document, nested ones included. The list is made once per document and
 * shared by the rules that walk it (four of them: walking once saves most of validation's time).
 */
export function forEachSchema(doc: unknown, visit: (schema: unknown, pointer: string) => void): void {
  if (typeof doc !== 'object' || doc === null) return
  let list = walked.get(doc)
  if (!list) {
    const collected: Array<[unknown, string]> = []
    for (const { schema, pointer } of documentSchemas(doc)) walkSchema(schema, pointer, (s, p) => collected.push([s, p]))
    walked.set(doc, (list = collected))
  }
  for (const [schema, pointer] of list) visit(schema, pointer)
}
