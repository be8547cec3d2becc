/**
 * One schema object against another: `$ref` first (resolve.ts), then every keyword group. The
 * groups are independent because a schema object's keywords are a conjunction; the ones that are
 * not (`properties` with `additionalProperties`, `minimum` with `exclusiveMinimum`, the tuple forms,
 * OpenAPI's `nullable`) are read together by one group.
 */
import { isObject } from '../../../runtime/shared/json-value.js'
import type { Frame, SchemaAt, SchemaDiffContext } from './context.js'
import { deeper } from './context.js'
import { compareAnnotationsAndUnknown } from './annotations.js'
import { compareArrayKeywords } from './array.js'
import { compareMultipleOf, compareNumericBounds } from './bounds.js'
import { compareComposition } from './composition.js'
import { compareEnum } from './enum.js'
import { compareObjectKeywords, childOrAbsent } from './object.js'
import { compareNode } from './pair.js'
import { compareReferences, refOf } from './resolve.js'
import { compareStrings } from './strings.js'
import { compareNullable, compareType } from './type.js'
import { keywordsOfType, neitherAdmits } from './type-gate.js'
import { impliedCount } from './node-values.js'
import { jsonEqual } from './values.js'

export function compareSchemaObjects(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame, siblingsOnly = false): void {
  if (!isObject(o.value) || !isObject(n.value)) return
  if (!siblingsOnly && (refOf(o.value) !== undefined || refOf(n.value) !== undefined)) {
    compareReferences(ctx, o, n, frame)
    return
  }
  let at = frame
  const unevaluated = ['unevaluatedProperties', 'unevaluatedItems'].filter(
    (key) => Object.hasOwn(o.value as object, key) || Object.hasOwn(n.value as object, key),
  )
  if (unevaluated.length) {
    // What is unevaluated depends on every other keyword here, so no change here has a provable direction.
    at = { ...deeper(frame, 'same', 'mixed', 'unevaluatedProperties/unevaluatedItems depend on every other keyword'), depth: frame.depth, merged: frame.merged }
    for (const key of unevaluated)
      compareNode(ctx, childOrAbsent(o, key), childOrAbsent(n, key), deeper(at, null), {
        narrow: 'schema-constraint-added',
        widen: 'schema-constraint-removed',
        what: key,
      })
  }
  compareAnnotationsAndUnknown(ctx, o, n, at)
  compareType(ctx, o, n, at)
  compareNullable(ctx, o, n, at)
  compareEnum(ctx, o, n, at)
  compareNumericBounds(ctx, o, n, at)
  compareMultipleOf(ctx, o, n, at)
  compareStrings(ctx, o, n, at)
  // Array and object keywords on nodes that admit no array (no object) change no value: their
  // subschemas are not walked, since a change inside one would be read as a change of the node (an
  // outside pass: `items` added beside `type: string` was breaking; the scalar keywords were gated).
  // Likewise the keywords on items or members where both nodes admit only the empty array (object):
  // `items: false` against `maxItems: 0`, `propertyNames: false` against `maxProperties: 0` (the
  // same pass); the counts, `contains` and `required`, which refuse the empty value, still compare.
  if (neitherAdmits(o.value, n.value, 'array')) voidKeywords(ctx, o, n, at, keywordsOfType('array'), 'admits no array')
  else if (onlyEmpty(o.value, n.value, 'array')) {
    voidKeywords(ctx, o, n, at, ITEM_KEYWORDS, 'admits no array but the empty one')
    compareArrayKeywords(ctx, o, n, at, true)
  } else compareArrayKeywords(ctx, o, n, at)
  if (neitherAdmits(o.value, n.value, 'object')) voidKeywords(ctx, o, n, at, keywordsOfType('object'), 'admits no object')
  else if (onlyEmpty(o.value, n.value, 'object')) {
    voidKeywords(ctx, o, n, at, MEMBER_KEYWORDS, 'admits no object but the empty one')
    compareObjectKeywords(ctx, o, n, at, true)
  } else compareObjectKeywords(ctx, o, n, at)
  compareComposition(ctx, o, n, at)
}

/** The array keywords that constrain items alone (every one holds of the empty array). */
const ITEM_KEYWORDS = ['items', 'prefixItems', 'additionalItems', 'uniqueItems']
/** The object keywords that constrain members alone (every one holds of the empty object). */
const MEMBER_KEYWORDS = ['properties', 'patternProperties', 'additionalProperties', 'propertyNames', 'dependencies', 'dependentRequired', 'dependentSchemas']

/** The keywords one of which a node bounded to the empty array (object) has; read first, since this is asked of every node compared. */
const BOUNDING: Readonly<Record<'array' | 'object', readonly string[]>> = {
  array: ['maxItems', 'items', 'prefixItems'],
  object: ['maxProperties', 'propertyNames', 'additionalProperties'],
}

/** Whether both nodes admit, of `type`, the empty value at most (node-values.ts, `impliedCount`). */
const onlyEmpty = (a: unknown, b: unknown, type: 'array' | 'object'): boolean => {
  const bounded = (node: unknown): node is Record<string, unknown> =>
    isObject(node) && BOUNDING[type].some((key) => Object.hasOwn(node, key)) && impliedCount(node, type, 'max') === 0
  return bounded(a) && bounded(b)
}

/** Each of `keys` that differs between two nodes on which it constrains no value they admit: the same values, written differently. */
function voidKeywords(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame, keys: readonly string[], admits: string): void {
  const ov = o.value as Record<string, unknown>
  const nv = n.value as Record<string, unknown>
  for (const key of keys) {
    if (!Object.hasOwn(ov, key) && !Object.hasOwn(nv, key)) continue
    if (jsonEqual(ov[key], nv[key], ctx.budget) === true) continue
    ctx.emit('schema-keyword-rewritten', 'none', o, key, n, key, frame, `\`${key}\` changed on a node that ${admits}: it constrains no value the node admits`)
  }
}
