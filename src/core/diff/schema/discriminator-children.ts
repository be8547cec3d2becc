/**
 * The values an OpenAPI 3.0 discriminator selects by, with where each is written. Beside its
 * `mapping`, a discriminated `oneOf` or `anyOf` selects each member that is a `$ref` to a component
 * schema by that schema's name, unless `mapping` names it or takes that value (Discriminator Object:
 * a mapping entry is used "rather than the default (implicit) value"; the generated validators read
 * it so: adding `mapping: {dog: Dog}` makes `"Dog"` select nothing). A discriminated component
 * schema without `oneOf`/`anyOf` is a parent: the component
 * schemas extending it with `allOf: [{$ref: Parent}, ...]`, and those extending them, are what it
 * chooses among, each selected by its own component name unless `mapping` names it or takes that
 * value (Schema Object, "Composition and Inheritance"; the generated Benzene validators read it so).
 * Such a child's location is the `allOf` member that names its parent.
 *
 * Cost: one pass over a document's component schemas (memoized per document object), then each
 * parent's descendants breadth-first, each once.
 */
import { escapeToken, unescapeToken } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../../../runtime/shared/json-value.js'
import type { SchemaAt } from './context.js'
import { child } from './context.js'

const PREFIX = '#/components/schemas/'

/** One value a discriminator selects by: the reference it selects, and where the selection is written. */
export interface SelectedBy {
  ref: unknown
  at: SchemaAt
  /** The key within `at` (a `mapping` entry); absent for an implicit selection (a child's `allOf` member, a `oneOf`/`anyOf` member). */
  key?: string
  /** An implicit selection by a schema's name: a child extending the parent, or a member of the `oneOf`/`anyOf`. */
  implicit?: 'child' | 'member'
}

type Children = Map<string, Array<{ name: string; index: number }>>
const childrenByDocument = new WeakMap<object, Children>()

function schemasOf(document: unknown): Record<string, unknown> | undefined {
  if (!isObject(document) || !isObject(document.components) || !isObject(document.components.schemas)) return undefined
  return document.components.schemas
}

/** The component name a `#/components/schemas/...` reference names (one token), or undefined. */
function componentName(ref: unknown): string | undefined {
  if (typeof ref !== 'string' || !ref.startsWith(PREFIX)) return undefined
  const token = ref.slice(PREFIX.length)
  if (token.includes('/')) return undefined
  try {
    return unescapeToken(decodeURIComponent(token))
  } catch {
    return undefined
  }
}

function childrenOf(document: object, schemas: Record<string, unknown>): Children {
  const known = childrenByDocument.get(document)
  if (known) return known
  const children: Children = new Map()
  for (const name of Object.keys(schemas).sort()) {
    const schema = schemas[name]
    if (!isObject(schema) || !Array.isArray(schema.allOf)) continue
    schema.allOf.forEach((member, index) => {
      const parent = isObject(member) ? componentName(member.$ref) : undefined
      if (parent === undefined || parent === name) return
      const list = children.get(parent) ?? []
      list.push({ name, index })
      children.set(parent, list)
    })
  }
  childrenByDocument.set(document, children)
  return children
}

/**
 * The values `at` (a schema object with a `discriminator`) selects by: its `mapping` entries, and,
 * for a parent component schema, the implicit names of its descendants.
 */
export function selectedValues(at: SchemaAt, mappingAt: SchemaAt): Map<string, SelectedBy> {
  const out = new Map<string, SelectedBy>()
  const mapping = isObject(mappingAt.value) ? mappingAt.value : {}
  const mapped = new Set<string>()
  for (const key of Object.keys(mapping)) {
    out.set(key, { ref: mapping[key], at: mappingAt, key })
    const target = componentName(mapping[key])
    if (target !== undefined) mapped.add(target)
  }
  const node = at.value
  if (!isObject(node)) return out
  // A `oneOf` or `anyOf` selects among its members, each a `$ref` to a component schema by that
  // schema's name unless the mapping names it or takes that value (as for a parent's children).
  const members = Array.isArray(node.oneOf) ? ['oneOf', node.oneOf] : Array.isArray(node.anyOf) ? ['anyOf', node.anyOf] : undefined
  if (members) {
    const [keyword, list] = members as [string, unknown[]]
    list.forEach((member, index) => {
      const name = isObject(member) ? componentName(member.$ref) : undefined
      if (name === undefined || mapped.has(name) || out.has(name)) return
      out.set(name, { ref: `${PREFIX}${escapeToken(name)}`, at: child(at, keyword, index), implicit: 'member' })
    })
    return out
  }
  const match = /^\/components\/schemas\/([^/]+)$/.exec(at.pointer)
  const schemas = schemasOf(at.document)
  if (!match || !schemas || typeof at.document !== 'object' || at.document === null) return out
  const parent = unescapeToken(match[1]!)
  const children = childrenOf(at.document, schemas)
  const seen = new Set([parent])
  const queue = [parent]
  // Bounded: each component schema is queued once.
  for (let i = 0; i < queue.length; i++) {
    for (const { name, index } of children.get(queue[i]!) ?? []) {
      if (seen.has(name)) continue
      seen.add(name)
      queue.push(name)
      if (mapped.has(name) || out.has(name)) continue
      const member = child({ file: at.file, document: at.document, pointer: '/components/schemas', value: schemas }, name, 'allOf', index)
      out.set(name, { ref: `${PREFIX}${escapeToken(name)}`, at: member, implicit: 'child' })
    }
  }
  return out
}
