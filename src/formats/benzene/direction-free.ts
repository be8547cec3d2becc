import { namesReaching } from '../../runtime/benzene/closure.js'
import { hasFlag, isObject } from '../../runtime/benzene/document.js'
import { generationReferences } from './inheritance.js'
import type { SchemaFacts } from './schema-facts.js'
import { walkSchema } from './schema-walk.js'

/**
 * The component schemas that read alike in requests and in responses: neither they nor anything
 * they reach (references, a choice's schemas, what extends them) has a `readOnly` or `writeOnly`
 * member, the one thing that makes a schema's two directions differ (OpenAPI 3.0.3, Schema Object).
 * Such a schema is converted, checked and typed once for both. Computed once per document's facts.
 */
export function directionFree(facts: SchemaFacts): (name: string) => boolean {
  let free = FREE.get(facts)
  if (free === undefined) {
    const names = Object.keys(facts.catalogue)
    const directional = new Set(names.filter((name) => hasDirectionalMember(facts.catalogue[name])))
    // Most documents have no such member at all: then no schema's closure needs walking.
    if (directional.size === 0) free = () => true
    else {
      const reaching = namesReaching(directional, facts.catalogue, (schema, name) => generationReferences(schema, facts, name))
      free = (name) => !reaching.has(name)
    }
    FREE.set(facts, free)
  }
  return free
}

const FREE = new WeakMap<SchemaFacts, (name: string) => boolean>()

/** True when a schema (not following `$ref`) has a property marked readOnly or writeOnly. */
export function hasDirectionalMember(schema: unknown): boolean {
  let found = false
  walkSchema(
    schema,
    () => '',
    (s) => {
      if (found) return
      if (isObject(s) && isObject(s.properties)) {
        for (const child of Object.values(s.properties)) if (hasFlag(child, 'readOnly') || hasFlag(child, 'writeOnly')) found = true
      }
    },
  )
  return found
}
