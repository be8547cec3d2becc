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
  for (const root of roots) for (const name of reachedFrom(root, catalogue)) reached.add(name)
  return [...reached].sort()
}

/**
 * The closure of each named schema, kept per catalogue: a thousand topics share Money, Address and
 * Audit, and the projection, the model and the declarations each ask (bench/: a 1,000-topic compile
 * walked the shared schemas some ten thousand times).
 */
const namedClosures = new WeakMap<object, Map<string, ReadonlySet<string>>>()

function reachedFrom(root: unknown, catalogue: Readonly<Record<string, Schema>>): ReadonlySet<string> {
  let closures = namedClosures.get(catalogue)
  if (!closures) namedClosures.set(catalogue, (closures = new Map()))
  const memo = closures
  const reached = new Set<string>()
  const walk = (schema: unknown): void => {
    if (!isObject(schema)) return
    const name = refTarget(schema.$ref)
    if (name !== undefined && !reached.has(name)) {
      const known = memo.get(name)
      if (known) for (const n of known) reached.add(n)
      else {
        reached.add(name)
        if (Object.hasOwn(catalogue, name)) walk(catalogue[name])
      }
    }
    if ('items' in schema) walk(schema.items)
    if (isObject(schema.additionalProperties)) walk(schema.additionalProperties)
    if (isObject(schema.properties)) for (const child of Object.values(schema.properties)) walk(child)
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      const list = schema[key]
      if (Array.isArray(list)) for (const child of list) walk(child)
    }
  }
  walk(root)
  // A root that is a bare reference has that name's closure: remember it (only then is the set
  // exactly the name's closure; a cycle through a memoized name is complete by construction).
  const name = isObject(root) && Object.keys(root).length === 1 ? refTarget(root.$ref) : undefined
  if (name !== undefined && !memo.has(name)) memo.set(name, reached)
  return reached
}
