/**
 * Object keywords: `required`, `properties` with `additionalProperties` (a property's schema is
 * `properties[name]` when listed, else `additionalProperties`: so adding a property narrows an open
 * object and widens a closed one, and both are found by comparing the two effective schemas),
 * `patternProperties`, `propertyNames`, `minProperties`/`maxProperties`, the dependencies.
 */
import { isObject } from '../../../runtime/shared/json-value.js'
import type { Polarity } from './effect.js'
import type { Frame, SchemaAt, SchemaDiffContext } from './context.js'
import { child, deeper, quote } from './context.js'
import { compareCounts } from './bounds.js'
import { compareNode, compareSummarized, equalMember } from './pair.js'
import { mergesProperties } from './composition.js'
import { jsonEqual, referenceFree } from './values.js'
import { minimalInstance } from './witness.js'

/** Where a node lacks `key`: its own location, accepting anything. */
export function absent(at: SchemaAt, value: unknown = undefined): SchemaAt {
  return { file: at.file, document: at.document, pointer: at.pointer, value }
}

/** The node's `key` child, or the node itself with value `undefined` when it has none (so locations name what exists). */
export function childOrAbsent(at: SchemaAt, key: string, missing: unknown = undefined): SchemaAt {
  return isObject(at.value) && Object.hasOwn(at.value, key) ? child(at, key) : absent(at, missing)
}

function names(value: unknown): string[] | undefined {
  if (value === undefined) return []
  if (!Array.isArray(value) || !value.every((name) => typeof name === 'string')) return undefined
  return value as string[]
}

function list(items: string[]): string {
  const shown = items.slice(0, 5).map(quote).join(', ')
  return items.length > 5 ? `${shown} and ${items.length - 5} more` : shown
}

export function compareObjectKeywords(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame): void {
  const ov = o.value as Record<string, unknown>
  const nv = n.value as Record<string, unknown>
  compareRequired(ctx, o, n, frame)
  compareCounts(ctx, o, n, frame, {
    min: 'minProperties',
    max: 'maxProperties',
    noun: 'property count',
    rules: {
      minUp: 'schema-min-properties-increased',
      minDown: 'schema-min-properties-decreased',
      maxDown: 'schema-max-properties-decreased',
      maxUp: 'schema-max-properties-increased',
    },
    make: (count) => Object.fromEntries(Array.from({ length: Math.min(count, 26) }, (_, i) => [String.fromCharCode(97 + i), null])),
  })
  compareProperties(ctx, o, n, frame)
  if (Object.hasOwn(ov, 'propertyNames') || Object.hasOwn(nv, 'propertyNames')) {
    compareNode(ctx, childOrAbsent(o, 'propertyNames'), childOrAbsent(n, 'propertyNames'), deeper(frame, null), {
      narrow: 'schema-constraint-added',
      widen: 'schema-constraint-removed',
      what: 'propertyNames',
    })
  }
  compareDependentSchemas(ctx, o, n, frame)
  for (const key of ['dependentRequired', 'dependencies']) {
    if (!Object.hasOwn(ov, key) && !Object.hasOwn(nv, key)) continue
    const same = jsonEqual(ov[key], nv[key], ctx.budget) === true && referenceFree(ov[key], ctx.budget) === true
    if (!same) ctx.emit('schema-keyword-changed', 'unknown', o, key, n, key, frame, `${quote(key)} changed, which this diff compares only as text`)
  }
}

function compareRequired(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame): void {
  const ov = o.value as Record<string, unknown>
  const nv = n.value as Record<string, unknown>
  const a = names(ov.required)
  const b = names(nv.required)
  if (!a || !b) {
    if (jsonEqual(ov.required, nv.required, ctx.budget) !== true)
      ctx.emit('schema-keyword-changed', 'unknown', o, 'required', n, 'required', frame, 'a malformed required changed')
    return
  }
  const oldSet = new Set(a)
  const newSet = new Set(b)
  const added = [...newSet].filter((name) => !oldSet.has(name)).sort()
  const removed = [...oldSet].filter((name) => !newSet.has(name)).sort()
  if (added.length) {
    ctx.emit(
      'schema-required-added',
      'narrows',
      o,
      'required',
      n,
      'required',
      frame,
      `${list(added)} ${added.length === 1 ? 'is' : 'are'} now required`,
      () => [{ acceptedBy: 'old', values: [minimalInstance(ctx, 'old', o, 0), {}] }],
    )
  }
  if (removed.length) {
    ctx.emit(
      'schema-required-removed',
      'widens',
      o,
      'required',
      n,
      'required',
      frame,
      `${list(removed)} ${removed.length === 1 ? 'is' : 'are'} no longer required`,
      () => [{ acceptedBy: 'new', values: [minimalInstance(ctx, 'new', n, 0), {}] }],
    )
  }
  if (!added.length && !removed.length && jsonEqual(ov.required, nv.required, ctx.budget) !== true) {
    ctx.emit('schema-keyword-rewritten', 'none', o, 'required', n, 'required', frame, '`required` lists the same names differently')
  }
}

function compareProperties(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame): void {
  const ov = o.value as Record<string, unknown>
  const nv = n.value as Record<string, unknown>
  for (const key of ['properties', 'patternProperties']) {
    if ((Object.hasOwn(ov, key) && !isObject(ov[key])) || (Object.hasOwn(nv, key) && !isObject(nv[key]))) {
      if (jsonEqual(ov[key], nv[key], ctx.budget) !== true) ctx.emit('schema-keyword-changed', 'unknown', o, key, n, key, frame, `a malformed ${key} changed`)
      return
    }
  }
  const oProps = (ov.properties ?? {}) as Record<string, unknown>
  const nProps = (nv.properties ?? {}) as Record<string, unknown>
  const oPatterns = (ov.patternProperties ?? {}) as Record<string, unknown>
  const nPatterns = (nv.patternProperties ?? {}) as Record<string, unknown>
  const patterned = Object.keys(oPatterns).length > 0 || Object.keys(nPatterns).length > 0
  const merged = frame.merged || (ctx.dialect === 'openapi-3.0' && (mergesProperties(ov) || mergesProperties(nv)))
  // Whether a name is governed by additionalProperties depends on the patterns and, in OpenAPI 3.0, on the allOf siblings.
  const movedPolarity: Polarity = patterned || merged ? 'mixed' : 'pos'
  const why = patterned
    ? 'patternProperties also decide which schema a member has'
    : merged
      ? 'OpenAPI 3.0 merges the property lists of allOf members'
      : undefined
  const oAdditional = childOrAbsent(o, 'additionalProperties')
  const nAdditional = childOrAbsent(n, 'additionalProperties')
  const all = [...new Set([...Object.keys(oProps), ...Object.keys(nProps)])].sort()
  for (const name of all) {
    if (ctx.stopped) return
    const inOld = Object.hasOwn(oProps, name)
    const inNew = Object.hasOwn(nProps, name)
    // A member equal in both versions, with no reference in it, is settled without its locations and frame.
    if (inOld && inNew && equalMember(ctx, oProps[name], nProps[name], frame.depth + 1)) continue
    const what = `property ${quote(name)}`
    if (inOld && inNew) {
      compareNode(ctx, child(o, 'properties', name), child(n, 'properties', name), deeper(frame, { property: name, holder: { old: o, new: n } }), {
        narrow: 'schema-constraint-added',
        widen: 'schema-constraint-removed',
        what,
      })
      continue
    }
    const rule = inNew ? 'schema-property-added' : 'schema-property-removed'
    const oEffective = inOld ? child(o, 'properties', name) : oAdditional
    const nEffective = inNew ? child(n, 'properties', name) : nAdditional
    compareSummarized(
      ctx,
      oEffective,
      nEffective,
      deeper(frame, { property: name, holder: { old: o, new: n } }, movedPolarity, why),
      { narrow: rule, widen: rule, summary: rule, what },
      { o: oEffective, n: nEffective, what: `${what} was ${inNew ? 'added' : 'removed'}` },
    )
  }
  // Members no property names: additionalProperties against additionalProperties.
  let fresh = 'additional'
  for (let i = 0; Object.hasOwn(oProps, fresh) || Object.hasOwn(nProps, fresh); i++) fresh = `additional${i}`
  compareNode(ctx, oAdditional, nAdditional, deeper(frame, { property: fresh, holder: { old: o, new: n } }, movedPolarity, why), {
    narrow: 'schema-additional-properties-closed',
    widen: 'schema-additional-properties-opened',
    what: '`additionalProperties`',
  })
  const patterns = [...new Set([...Object.keys(oPatterns), ...Object.keys(nPatterns)])].sort()
  for (const pattern of patterns) {
    const inOld = Object.hasOwn(oPatterns, pattern)
    const inNew = Object.hasOwn(nPatterns, pattern)
    if (inOld && inNew) {
      compareNode(ctx, child(o, 'patternProperties', pattern), child(n, 'patternProperties', pattern), deeper(frame, null), {
        narrow: 'schema-constraint-added',
        widen: 'schema-constraint-removed',
        what: `patternProperties ${quote(pattern)}`,
      })
    } else {
      ctx.emit(
        'schema-keyword-changed',
        'unknown',
        o,
        'patternProperties',
        n,
        'patternProperties',
        frame,
        `the patternProperties entry ${quote(pattern)} was ${inNew ? 'added' : 'removed'}`,
      )
    }
  }
}

/** `dependentSchemas`: each applies when its member is present, a conjunction, so a shared entry passes its direction through. */
function compareDependentSchemas(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame): void {
  const ov = o.value as Record<string, unknown>
  const nv = n.value as Record<string, unknown>
  if (!Object.hasOwn(ov, 'dependentSchemas') && !Object.hasOwn(nv, 'dependentSchemas')) return
  const a = ov.dependentSchemas ?? {}
  const b = nv.dependentSchemas ?? {}
  if (!isObject(a) || !isObject(b)) {
    if (jsonEqual(a, b, ctx.budget) !== true)
      ctx.emit('schema-keyword-changed', 'unknown', o, 'dependentSchemas', n, 'dependentSchemas', frame, 'a malformed dependentSchemas changed')
    return
  }
  for (const name of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    const what = `dependentSchemas ${quote(name)}`
    if (Object.hasOwn(a, name) && Object.hasOwn(b, name)) {
      compareNode(ctx, child(o, 'dependentSchemas', name), child(n, 'dependentSchemas', name), deeper(frame, 'same'), {
        narrow: 'schema-constraint-added',
        widen: 'schema-constraint-removed',
        what,
      })
    } else {
      const added = Object.hasOwn(b, name)
      const other = added ? child(n, 'dependentSchemas', name) : child(o, 'dependentSchemas', name)
      compareNode(ctx, added ? absent(o) : other, added ? other : absent(n), deeper(frame, 'same'), {
        narrow: 'schema-constraint-added',
        widen: 'schema-constraint-removed',
        text: `${what} was ${added ? 'added' : 'removed'}`,
      })
    }
  }
}
