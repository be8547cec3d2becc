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
  if (neitherAdmits(o.value, n.value, 'array')) voidKeywords(ctx, o, n, at, 'array')
  else compareArrayKeywords(ctx, o, n, at)
  if (neitherAdmits(o.value, n.value, 'object')) voidKeywords(ctx, o, n, at, 'object')
  else compareObjectKeywords(ctx, o, n, at)
  compareComposition(ctx, o, n, at)
}

/** Each keyword of `type` that differs between two nodes admitting no value of it: the same values, written differently. */
function voidKeywords(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame, type: 'array' | 'object'): void {
  const ov = o.value as Record<string, unknown>
  const nv = n.value as Record<string, unknown>
  for (const key of keywordsOfType(type)) {
    if (!Object.hasOwn(ov, key) && !Object.hasOwn(nv, key)) continue
    if (jsonEqual(ov[key], nv[key], ctx.budget) === true) continue
    ctx.emit(
      'schema-keyword-rewritten',
      'none',
      o,
      key,
      n,
      key,
      frame,
      `\`${key}\` changed on a node that admits no ${type}: it constrains no value the node admits`,
    )
  }
}
