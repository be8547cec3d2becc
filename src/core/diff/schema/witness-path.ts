/**
 * Whether a node's verdict on the value at a path is one the whole schema cannot overrule: the
 * proof behind checking a witness candidate against the node alone before the whole payload.
 *
 * The validator (`accepts.ts`) answers `true` for a schema only when each keyword it applies
 * answers `true`. Some keywords apply a subschema to the value, or to a member or item of it,
 * conjunctively: `properties`, `items` (and a tuple's entry), `allOf`, a `$ref` (its target, and
 * its siblings where they apply). Others could accept the value another way (`anyOf`, `oneOf`,
 * `not`, `if`/`then`/`else`, `dependentSchemas`) or apply only to some values. When a chain of the
 * first kind alone leads from the root, along the witness's path, to the node, a root that accepts
 * the placed value has a node that accepts it too: a candidate the node refuses is one the root
 * cannot accept, and the search may skip it without validating the whole payload. The answers are
 * the same either way (a smaller budget or a deeper start only ever makes the validator less sure,
 * never of another mind), so the witnesses found are the ones the plain search finds.
 *
 * Cost: the nodes met along the path (each closed under `$ref` and `allOf`, at most MAX_NODES per
 * step), once per witness search.
 */
import { isObject } from '../../../runtime/shared/json-value.js'
import type { PathStep, SchemaAt, SchemaDiffContext, SideName } from './context.js'
import { child } from './context.js'
import { follow, refOf } from './resolve.js'

const MAX_NODES = 64

/** Does every value the root accepts have, at `path`, a value `node` accepts? (`false`: not proven.) */
export function nodeBindsRoot(ctx: SchemaDiffContext, side: SideName, root: SchemaAt, path: readonly PathStep[], node: SchemaAt): boolean {
  let level = closure(ctx, side, [root])
  for (const step of path) {
    if (level === undefined) return false
    const next: SchemaAt[] = []
    for (const at of level) {
      const schema = at.value
      if (!isObject(schema) || !applies(ctx, schema)) continue
      if ('property' in step) {
        if (isObject(schema.properties) && Object.hasOwn(schema.properties, step.property)) next.push(child(at, 'properties', step.property))
      } else if (Object.hasOwn(schema, 'prefixItems')) {
        if (Array.isArray(schema.prefixItems) && !Array.isArray(schema.items))
          next.push(step.item < schema.prefixItems.length ? child(at, 'prefixItems', step.item) : child(at, 'items'))
      } else if (Object.hasOwn(schema, 'items') && !Array.isArray(schema.items)) next.push(child(at, 'items'))
    }
    level = closure(ctx, side, next)
  }
  return level !== undefined && level.some((at) => at.document === node.document && at.file === node.file && at.pointer === node.pointer)
}

/** Keywords beside a `$ref` apply (2019-09 and later), or the node has no `$ref`. */
function applies(ctx: SchemaDiffContext, schema: Record<string, unknown>): boolean {
  return refOf(schema) === undefined || ctx.refSiblings === 'apply'
}

/** The nodes that apply conjunctively to the same value: `$ref` targets and `allOf` members, transitively (undefined past the cap). */
function closure(ctx: SchemaDiffContext, side: SideName, start: readonly SchemaAt[]): SchemaAt[] | undefined {
  const out: SchemaAt[] = []
  const pending = [...start]
  while (pending.length > 0) {
    if (out.length >= MAX_NODES) return undefined
    const at = pending.pop()!
    out.push(at)
    const schema = at.value
    if (!isObject(schema)) continue
    if (refOf(schema) !== undefined) {
      const target = follow(ctx, side, at)
      if (target) pending.push(target)
    }
    if (applies(ctx, schema) && Array.isArray(schema.allOf)) {
      // Past the cap before any member is made (an allOf of a hundred thousand members made each one's pointer).
      if (out.length + pending.length + schema.allOf.length > MAX_NODES) return undefined
      for (let i = 0; i < schema.allOf.length; i++) pending.push(child(at, 'allOf', i))
    }
  }
  return out
}
