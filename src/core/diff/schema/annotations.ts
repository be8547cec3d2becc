/**
 * Annotations (`title`, `description`, `examples`, `deprecated`, `x-` extensions, ...): they
 * constrain nothing, so a change is effect `none`. Keywords no comparer knows are compared as
 * values: a difference is `unknown`, since some validator may enforce them.
 */
import type { Frame, SchemaAt, SchemaDiffContext } from './context.js'
import { quote } from './context.js'
import { COMPARED_KEYWORDS, CONTAINER_KEYWORDS, isAnnotation } from './keywords.js'
import { jsonEqual } from './values.js'

export function compareAnnotationsAndUnknown(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame): void {
  const ov = o.value as Record<string, unknown>
  const nv = n.value as Record<string, unknown>
  // Only the keywords no comparer reads, each once, sorted: the list is made for every pair of schema objects compared.
  let keys: string[] | undefined
  for (const key in ov) if (!COMPARED_KEYWORDS.has(key) && !CONTAINER_KEYWORDS.has(key)) (keys ??= []).push(key)
  for (const key in nv) if (!COMPARED_KEYWORDS.has(key) && !CONTAINER_KEYWORDS.has(key) && !Object.hasOwn(ov, key)) (keys ??= []).push(key)
  if (keys === undefined) return
  keys.sort()
  for (const key of keys) {
    const inOld = Object.hasOwn(ov, key)
    const inNew = Object.hasOwn(nv, key)
    if (inOld && inNew && jsonEqual(ov[key], nv[key], ctx.budget) === true) continue
    const change = !inOld ? 'was added' : !inNew ? 'was removed' : 'changed'
    if (isAnnotation(key, ctx.dialect)) ctx.emit('schema-annotation-changed', 'none', o, key, n, key, frame, `the annotation ${quote(key)} ${change}`)
    else if (key === 'readOnly' || key === 'writeOnly')
      ctx.emit(
        'schema-keyword-changed',
        'unknown',
        o,
        key,
        n,
        key,
        frame,
        `${quote(key)} ${change}, which decides whether OpenAPI 3.0 requires the member in requests or responses`,
      )
    else if (key === '$schema' || key === '$id' || key === '$anchor' || key === '$dynamicAnchor')
      ctx.emit('schema-keyword-changed', 'unknown', o, key, n, key, frame, `${quote(key)} ${change}, which can change how the schema reads`)
    else ctx.emit('schema-keyword-changed', 'unknown', o, key, n, key, frame, `the keyword ${quote(key)}, which this diff does not interpret, ${change}`)
  }
}
