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
import { requiredClosure } from './node-values.js'
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

/** `countsOnly`: the members' keywords constrain nothing here (node.ts): only `required` and the counts are compared. */
export function compareObjectKeywords(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame, countsOnly = false): void {
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
    make: (count) => [Object.fromEntries(Array.from({ length: Math.min(count, 26) }, (_, i) => [String.fromCharCode(97 + i), null]))],
    countOf: (value) => (isObject(value) ? Object.keys(value).length : undefined),
  })
  if (countsOnly) return
  compareProperties(ctx, o, n, frame)
  if (Object.hasOwn(ov, 'propertyNames') || Object.hasOwn(nv, 'propertyNames')) {
    compareNode(ctx, childOrAbsent(o, 'propertyNames'), childOrAbsent(n, 'propertyNames'), deeper(frame, null), {
      narrow: 'schema-constraint-added',
      widen: 'schema-constraint-removed',
      what: 'propertyNames',
    })
  }
  compareDependentSchemas(ctx, o, n, frame)
  for (const key of ['dependentRequired', 'dependencies'] as const) compareDependencies(ctx, o, n, frame, key)
}

/**
 * `dependentRequired`, and draft-07's `dependencies` (a member's entry is the names it requires, or
 * a schema): a name required when a member is present is a `required` under that condition, so one
 * added narrows and one removed widens, each with a witness made from the old (new) node's minimal
 * instance holding the member and not the name; a schema entry is compared as `dependentSchemas`'.
 * An entry that changes between the two forms, or a malformed one, is unknown (an outside pass: the
 * whole keyword was compared only as text, a warning where the effect is provable).
 */
function compareDependencies(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame, key: 'dependentRequired' | 'dependencies'): void {
  const ov = o.value as Record<string, unknown>
  const nv = n.value as Record<string, unknown>
  if (!Object.hasOwn(ov, key) && !Object.hasOwn(nv, key)) return
  const a = ov[key] ?? {}
  const b = nv[key] ?? {}
  const unknown = (why: string) => ctx.emit('schema-keyword-changed', 'unknown', o, key, n, key, frame, why)
  if (!isObject(a) || !isObject(b)) {
    if (jsonEqual(a, b, ctx.budget) !== true) unknown(`a malformed ${quote(key)} changed`)
    return
  }
  const list = (v: unknown): string[] | undefined => (v === undefined ? [] : Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : undefined)
  for (const member of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    const [av, bv] = [Object.hasOwn(a, member) ? a[member] : undefined, Object.hasOwn(b, member) ? b[member] : undefined]
    const [x, y] = [list(av), list(bv)]
    if (x !== undefined && y !== undefined) {
      for (const [names, other, added] of [
        [y, x, true],
        [x, y, false],
      ] as const)
        for (const name of names) {
          if (other.includes(name)) continue
          const side = added ? 'old' : 'new'
          // A name the side without the dependency requires anyway where the member is present moves
          // no value (an outside pass): listed in `required`, or required through its other
          // dependencies (the member's own remaining list, or a chain from a required name).
          const anyway = requiredClosure(side === 'old' ? ov : nv, [member]).has(name)
          ctx.emit(
            added ? 'schema-required-added' : 'schema-required-removed',
            anyway ? 'none' : added ? 'narrows' : 'widens',
            o,
            key,
            n,
            key,
            frame,
            `when ${quote(member)} is present, ${quote(name)} is ${added ? 'now' : 'no longer'} required (${quote(key)})`,
            () => [{ acceptedBy: side, values: dependencyWitnesses(ctx, side, side === 'old' ? o : n, member, name, added ? x : y) }],
          )
        }
      continue
    }
    if (key === 'dependencies' && (av === undefined || x === undefined) && (bv === undefined || y === undefined)) {
      // Schema entries (an absent one accepts anything): compared as schemas where the member is present.
      compareNode(ctx, av === undefined ? absent(o) : child(o, key, member), bv === undefined ? absent(n) : child(n, key, member), deeper(frame, 'same'), {
        narrow: 'schema-constraint-added',
        widen: 'schema-constraint-removed',
        what: `dependencies ${quote(member)}`,
      })
      continue
    }
    if (jsonEqual(av, bv, ctx.budget) !== true || referenceFree(av, ctx.budget) !== true)
      unknown(`${quote(key)} ${quote(member)} changed between a list of names and a schema, or is malformed`)
  }
}

/**
 * Objects the node takes, holding `member` and what that side requires with it (`kept`), not `name`:
 * its minimal instance so changed, those members each of a few values.
 */
function dependencyWitnesses(ctx: SchemaDiffContext, side: 'old' | 'new', at: SchemaAt, member: string, name: string, kept: readonly string[]): unknown[] {
  const base = minimalInstance(ctx, side, at, 0)
  const start: Record<string, unknown> = isObject(base) ? { ...base } : {}
  delete start[name]
  return [null, '', 0, true, {}, []].map((value) => {
    const out: Record<string, unknown> = { ...start, [member]: value }
    for (const other of kept) if (other !== name && !Object.hasOwn(out, other)) out[other] = value
    return out
  })
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
