import { isObject, type Schema } from './document.js'
import { refTarget } from './rules/refs.js'

/**
 * Seed 5.3: the component schemas a topic's request and response reach. `$ref` adds a name once and
 * walks its schema (the reached set is the cycle guard); `items`, schema-valued
 * `additionalProperties`, every `properties` value and the members of `allOf`/`anyOf`/`oneOf` are
 * walked recursively. Returns the names sorted (code unit order), as clients expose them.
 */
export function schemaClosure(roots: readonly unknown[], catalogue: Readonly<Record<string, Schema>>): string[] {
  const reached = new Set<string>()
  const walk = (schema: unknown): void => {
    if (!isObject(schema)) return
    const name = refTarget(schema.$ref)
    if (name !== undefined && !reached.has(name)) {
      reached.add(name)
      if (Object.hasOwn(catalogue, name)) walk(catalogue[name])
    }
    if ('items' in schema) walk(schema.items)
    if (isObject(schema.additionalProperties)) walk(schema.additionalProperties)
    if (isObject(schema.properties)) for (const child of Object.values(schema.properties)) walk(child)
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      const list = schema[key]
      if (Array.isArray(list)) for (const child of list) walk(child)
    }
  }
  for (const root of roots) walk(root)
  return [...reached].sort()
}
