import { isObject } from './document.js'

const PREFIX = 'Nats-'
const COMPONENTS = '#/components/schemas/'
/** References followed and members entered, at most (a document's own nesting is bounded when read). */
const MAX_VISITS = 4096

/**
 * The `Nats-` header names a message's headers schema names: its `properties` keys and `required`
 * entries, through `$ref`s into `components.schemas` (where the model's references point) and the
 * members of `allOf`, `anyOf` and `oneOf`. The client checks those (reserved-headers.ts in the
 * runtime) and leaves every other `Nats-` name out of what it checks. Sorted, each once. O(schema
 * objects reached), each visited once, at most MAX_VISITS.
 */
export function reservedHeaderNames(schema: unknown, components: Readonly<Record<string, unknown>>): string[] {
  const names = new Set<string>()
  const seen = new Set<unknown>()
  const stack = [schema]
  while (stack.length > 0 && seen.size < MAX_VISITS) {
    const node = stack.pop()
    if (isObject(node) && typeof node.$ref === 'string') {
      if (!node.$ref.startsWith(COMPONENTS)) continue
      const name = node.$ref.slice(COMPONENTS.length).replace(/~1/g, '/').replace(/~0/g, '~')
      if (Object.hasOwn(components, name)) stack.push(components[name])
      // Members written beside `$ref` are read too: a `required` there names a header as much as one inside.
      const { $ref: _ref, ...siblings } = node
      if (Object.keys(siblings).length > 0) stack.push(siblings)
      continue
    }
    if (!isObject(node) || seen.has(node)) continue
    seen.add(node)
    if (isObject(node.properties)) for (const key of Object.keys(node.properties)) if (key.startsWith(PREFIX)) names.add(key)
    if (Array.isArray(node.required)) for (const key of node.required) if (typeof key === 'string' && key.startsWith(PREFIX)) names.add(key)
    for (const keyword of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(node[keyword])) for (const member of node[keyword] as unknown[]) stack.push(member)
  }
  return [...names].sort()
}
