import { namesReaching } from '../../runtime/benzene/closure.js'
import { hasFlag, isObject } from '../../runtime/benzene/document.js'
import { generationReferences } from './inheritance.js'
import type { SchemaFacts } from './schema-facts.js'

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
    const { objects } = facts
    const directional = new Set(
      names.filter((name) =>
        objects === undefined ? hasDirectionalMember(facts.catalogue[name]) : objects.directionalMember(facts.catalogue[name], hasDirectionalMember),
      ),
    )
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

/**
 * True when a schema (not following `$ref`) has a property marked readOnly or writeOnly: the
 * positions `walkSchema` visits, walked with a stack and stopped at the first found (it runs over
 * every schema of the catalogue on each compile).
 */
export function hasDirectionalMember(schema: unknown): boolean {
  const stack: unknown[] = [schema]
  while (stack.length > 0) {
    const s = stack.pop()
    if (!isObject(s)) continue
    for (const key of SINGLE) if (isObject(s[key])) stack.push(s[key])
    const properties = s.properties
    if (isObject(properties))
      for (const name of Object.keys(properties)) {
        const child = properties[name]
        if (hasFlag(child, 'readOnly') || hasFlag(child, 'writeOnly')) return true
        stack.push(child)
      }
    for (const key of LISTS) {
      const list = s[key]
      if (Array.isArray(list)) for (const member of list) stack.push(member)
    }
  }
  return false
}

/** The positions `walkSchema` (schema-walk.ts) descends into. */
const SINGLE = ['items', 'additionalProperties', 'not'] as const
const LISTS = ['allOf', 'anyOf', 'oneOf'] as const
