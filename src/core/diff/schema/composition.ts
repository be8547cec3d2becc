/**
 * Composition: `allOf` (a conjunction: a member added narrows, removed widens), `anyOf` (a
 * disjunction: a branch added widens, removed narrows), `oneOf` (a disjunction only when its
 * branches provably exclude each other: distinct types, a required property with distinct
 * constants, or an OpenAPI 3.0 discriminator; otherwise a branch that widens can make a value match
 * twice, and its effect is `unknown`), `not` (reverses), `if`/`then`/`else`, and OpenAPI 3.0's
 * `discriminator` (its mapping, and a parent's children found through `allOf`, are part of what a
 * discriminated schema accepts: discriminator-children.ts).
 */
import { isObject } from '../../../runtime/shared/json-value.js'
import type { SchemaEffect } from '../schema-diff-types.js'
import type { Frame, SchemaAt, SchemaDiffContext, Site } from './context.js'
import { child, deeper, quote } from './context.js'
import { absent, childOrAbsent } from './object.js'
import { compareNode, compareSummarized, schemaKind } from './pair.js'
import { followAll } from './resolve.js'
import { selectedValues, type SelectedBy } from './discriminator-children.js'
import { typeAtoms } from './type.js'
import { disjointTypes } from './type-gate.js'
import { canonicalKey, jsonEqual } from './values.js'
import { fewValues } from './node-values.js'
import { minimalInstance } from './witness.js'
import { representativeValues } from './witness-values.js'

/**
 * Whether an OpenAPI 3.0 `allOf` merges property lists that could interact: two members or more, or
 * one beside the schema's own properties (a lone `allOf: [$ref]`, how producers wrap a nullable
 * reference, is just its member).
 */
export function mergesProperties(node: Record<string, unknown>): boolean {
  return Array.isArray(node.allOf) && (node.allOf.length > 1 || Object.hasOwn(node, 'properties') || Object.hasOwn(node, 'additionalProperties'))
}

/** Pairs members: equal ones first (by their text, `$ref` included), then the rest in order. */
function pairMembers(ctx: SchemaDiffContext, a: unknown[], b: unknown[]): Array<[number | undefined, number | undefined]> {
  const keysA = a.map((value) => canonicalKey(value, ctx.budget))
  const keysB = b.map((value) => canonicalKey(value, ctx.budget))
  const usedA = new Set<number>()
  const usedB = new Set<number>()
  const pairs: Array<[number | undefined, number | undefined]> = []
  const byKey = new Map<string, number[]>()
  keysB.forEach((key, j) => {
    if (key === undefined) return
    const list = byKey.get(key)
    if (list) list.push(j)
    else byKey.set(key, [j])
  })
  keysA.forEach((key, i) => {
    if (key === undefined) return
    const j = byKey.get(key)?.shift()
    if (j === undefined) return
    usedA.add(i)
    usedB.add(j)
    pairs.push([i, j])
  })
  const restA = a.map((_, i) => i).filter((i) => !usedA.has(i))
  const restB = b.map((_, j) => j).filter((j) => !usedB.has(j))
  for (let k = 0; k < Math.max(restA.length, restB.length); k++) pairs.push([restA[k], restB[k]])
  return pairs.sort((x, y) => (x[1] ?? Infinity) - (y[1] ?? Infinity) || (x[0] ?? Infinity) - (y[0] ?? Infinity))
}

const MAX_MEMBERS = 256

function compareMembers(
  ctx: SchemaDiffContext,
  o: SchemaAt,
  n: SchemaAt,
  frame: Frame,
  key: 'allOf' | 'anyOf' | 'oneOf',
  inner: Frame,
  site: { added: string; removed: string },
  newKey: 'allOf' | 'anyOf' | 'oneOf' = key,
): void {
  const ov = o.value as Record<string, unknown>
  const nv = n.value as Record<string, unknown>
  const a = ov[key]
  const b = nv[newKey]
  if (a === undefined && b === undefined) return
  if ((a !== undefined && !Array.isArray(a)) || (b !== undefined && !Array.isArray(b))) {
    ctx.emit('schema-keyword-changed', 'unknown', o, key, n, newKey, frame, `a malformed ${key} changed`)
    return
  }
  // A combinator whose members leave every value accepted (`allOf: [{}]`, `anyOf: [{}, X]`,
  // `oneOf: [{}]`) constrains nothing: appearing, going or changing inside, it moves no value (an
  // outside pass's ajv oracle found such edits called breaking).
  const acceptsAll = (members: unknown[] | undefined): boolean => {
    if (members === undefined || members.length === 0) return false
    const kinds = members.map((m) => schemaKind(m, ctx))
    return key === 'allOf' ? kinds.every((k) => k === 'true') : key === 'anyOf' ? kinds.includes('true') : kinds.length === 1 && kinds[0] === 'true'
  }
  if ((a === undefined || acceptsAll(a as unknown[])) && (b === undefined || acceptsAll(b as unknown[]))) {
    if (jsonEqual(a, b, ctx.budget) !== true)
      ctx.emit('schema-keyword-rewritten', 'none', o, key, n, newKey, frame, `\`${key}\` changed, but its members accept every value in both versions`)
    return
  }
  if (a === undefined || b === undefined) {
    // The keyword itself appeared or went: a conjunction or disjunction of its members constrains where nothing did.
    const added = a === undefined
    const members = (added ? b : a) as unknown[]
    const effect: SchemaEffect = members.length === 0 ? 'unknown' : added ? 'narrows' : 'widens'
    ctx.emit(
      added ? 'schema-constraint-added' : 'schema-constraint-removed',
      effect,
      o,
      key,
      n,
      newKey,
      frame,
      `\`${key}\` was ${added ? 'added' : 'removed'}`,
      () => [{ acceptedBy: added ? 'old' : 'new', values: representativeValues() }],
    )
    return
  }
  if (a.length > MAX_MEMBERS || b.length > MAX_MEMBERS) {
    ctx.emit('schema-not-compared', 'unknown', o, key, n, newKey, frame, `${key} with more than ${MAX_MEMBERS} members is not compared member by member`)
    return
  }
  // An absent allOf member is `true` (adds no constraint); an absent anyOf/oneOf branch is `false` (admits nothing).
  const missing = key === 'allOf' ? undefined : false
  const memberSite: Site =
    key === 'allOf' ? { narrow: site.added, widen: site.removed, what: `${key} member` } : { narrow: site.removed, widen: site.added, what: `${key} branch` }
  // A member added to an allOf or a branch added to an anyOf that repeats (written exactly as)
  // or is covered by a member of its version kept in both versions adds nothing to the conjunction
  // or disjunction, and so for one removed (an outside pass found a repeated allOf member and a
  // covered anyOf branch reported as changes). Within one version, so a `$ref` names the same schema
  // both times. The other member must be kept (paired), never one skipped itself: two equal
  // members added or removed together are still reported. Not for oneOf, where a repeated branch
  // makes the values it accepts match twice. Covering is decided by a comparison of its own
  // (ctx.subsumed), against at most 16 members.
  const pairs = pairMembers(ctx, a, b)
  const both = pairs.filter(([i, j]) => i !== undefined && j !== undefined)
  const kept = { old: both.map(([i]) => i!), new: both.map(([, j]) => j!) }
  let texts: { old: Set<string>; new: Set<string> } | undefined
  const repeated = (member: unknown, side: 'old' | 'new'): boolean => {
    if (key === 'oneOf') return false
    texts ??= {
      old: new Set(kept.old.map((k) => canonicalKey(a[k], ctx.budget)).filter((t): t is string => t !== undefined)),
      new: new Set(kept.new.map((k) => canonicalKey(b[k], ctx.budget)).filter((t): t is string => t !== undefined)),
    }
    const text = canonicalKey(member, ctx.budget)
    return text !== undefined && texts[side].has(text)
  }
  const covered = (list: unknown[], side: 'old' | 'new', at: SchemaAt, j: number): boolean => {
    if (key === 'oneOf' || list.length > 16 || !ctx.subsumed) return false
    const member = (k: number) => `${at.pointer}/${side === 'old' ? key : newKey}/${k}`
    return kept[side].some((k) => k !== j && (key === 'anyOf' ? ctx.subsumed!(side, at, member(j), member(k)) : ctx.subsumed!(side, at, member(k), member(j))))
  }
  // A branch whose types the node's own `type` refuses admits nothing there: where neither version's
  // branch admits a value (or is absent), a change in it, or its coming or going, moves nothing (an
  // outside pass: a `minLength` changed in the string branch of a `type: boolean` node was breaking).
  const idle = (members: unknown[], k: number | undefined, node: unknown) => k === undefined || disjointTypes(node, members[k])
  for (const [i, j] of pairs) {
    if (ctx.stopped) return
    if (key !== 'allOf' && idle(a, i, ov) && idle(b, j, nv)) {
      if (i === undefined || j === undefined || jsonEqual(a[i], b[j], ctx.budget) !== true)
        ctx.emit('schema-keyword-rewritten', 'none', o, key, n, newKey, frame, `a ${key} branch changed that admits no type its node admits`)
      continue
    }
    if (i === undefined && j !== undefined && (repeated(b[j], 'new') || covered(b, 'new', n, j))) continue
    if (j === undefined && i !== undefined && (repeated(a[i], 'old') || covered(a, 'old', o, i))) continue
    const oMember = i === undefined ? { ...absent(o, missing), pointer: `${o.pointer}/${key}` } : child(o, key, i)
    const nMember = j === undefined ? { ...absent(n, missing), pointer: `${n.pointer}/${newKey}` } : child(n, newKey, j)
    compareNode(ctx, oMember, nMember, inner, { ...memberSite, what: `${key} ${i === undefined ? 'new member' : `member ${i}`}` })
  }
}

/** The work a oneOf's exclusivity proof may take (pairs of branches, required names compared): past it, not proven. */
const MAX_DISJOINT_WORK = 200_000

interface BranchFacts {
  node: SchemaAt
  types: ReturnType<typeof typeAtoms>
  required: Set<string>
  /** Each required member's `const`/`enum` values (canonical keys), made on first use. */
  constants: Map<string, Set<string> | undefined>
  /** The branch's own listed values (node-values.ts `fewValues`, canonical keys; null when not few), made on first use. */
  values?: Set<string> | null
}

/**
 * Whether a oneOf's branches provably exclude each other, for every pair: distinct JSON types, or
 * objects that both require a member whose `const`/`enum` values are distinct. Up to MAX_MEMBERS
 * branches (each branch's facts read once, the pairs compared on them) within MAX_DISJOINT_WORK
 * steps; past it the branches are not proven to exclude each other. An outside pass found a cap of
 * 16 branches that made a discriminated union of 17 event types read as overlapping.
 */
function disjointBranches(ctx: SchemaDiffContext, side: 'old' | 'new', at: SchemaAt): boolean {
  const branches = (at.value as Record<string, unknown>).oneOf
  if (!Array.isArray(branches) || branches.length > MAX_MEMBERS) return false
  const facts: BranchFacts[] = []
  for (let i = 0; i < branches.length; i++) {
    const node = followAll(ctx, side, child(at, 'oneOf', i))
    if (!node || !isObject(node.value)) return false
    const required = Array.isArray(node.value.required) ? node.value.required.filter((s): s is string => typeof s === 'string') : []
    facts.push({ node, types: typeAtoms(node.value), required: new Set(required), constants: new Map() })
  }
  const work = { left: MAX_DISJOINT_WORK }
  for (let i = 0; i < facts.length; i++)
    for (let j = i + 1; j < facts.length; j++) {
      if (--work.left < 0) return false
      if (!exclusive(ctx, side, facts[i]!, facts[j]!, work)) return false
    }
  return true
}

function exclusive(ctx: SchemaDiffContext, side: 'old' | 'new', x: BranchFacts, y: BranchFacts, work: { left: number }): boolean {
  const tx = x.types
  const ty = y.types
  if (tx && ty && ![...tx].some((atom) => ty.has(atom))) return true
  // Branches that list their values (documented `const` branches), none listed by both.
  const vx = valuesOf(ctx, x)
  const vy = vx && valuesOf(ctx, y)
  if (vx && vy && ![...vx].some((key) => vy.has(key))) return true
  const objectOnly = (t: ReturnType<typeof typeAtoms>) => t !== undefined && t.size === 1 && t.has('object')
  if (!objectOnly(tx) || !objectOnly(ty)) return false
  const [fewer, more] = x.required.size <= y.required.size ? [x, y] : [y, x]
  for (const name of fewer.required) {
    if (--work.left < 0) return false
    if (!more.required.has(name)) continue
    const cx = constantsOf(ctx, side, x, name)
    const cy = constantsOf(ctx, side, y, name)
    if (cx && cy && ![...cx].some((key) => cy.has(key))) return true
  }
  return false
}

function valuesOf(ctx: SchemaDiffContext, branch: BranchFacts): Set<string> | null {
  if (branch.values !== undefined) return branch.values
  const listed = isObject(branch.node.value) ? fewValues(branch.node.value) : undefined
  const keys = listed?.map((value) => canonicalKey(value, ctx.budget))
  return (branch.values = keys && keys.every((key) => key !== undefined) ? new Set(keys as string[]) : null)
}

function constantsOf(ctx: SchemaDiffContext, side: 'old' | 'new', branch: BranchFacts, name: string): Set<string> | undefined {
  if (branch.constants.has(name)) return branch.constants.get(name)
  const found = constants(ctx, side, branch.node, name)
  branch.constants.set(name, found)
  return found
}

function constants(ctx: SchemaDiffContext, side: 'old' | 'new', at: SchemaAt, name: string): Set<string> | undefined {
  const props = (at.value as Record<string, unknown>).properties
  if (!isObject(props) || !Object.hasOwn(props, name)) return undefined
  const node = followAll(ctx, side, child(at, 'properties', name))
  if (!node || !isObject(node.value)) return undefined
  const v = node.value
  if (Object.hasOwn(v, 'const')) {
    const key = canonicalKey(v.const, ctx.budget)
    return key === undefined ? undefined : new Set([key])
  }
  if (Array.isArray(v.enum)) {
    const keys = v.enum.map((item) => canonicalKey(item, ctx.budget))
    return keys.every((key) => key !== undefined) ? new Set(keys as string[]) : undefined
  }
  return undefined
}

function discriminatorOf(value: unknown): string | undefined {
  if (!isObject(value) || !isObject(value.discriminator)) return undefined
  return typeof value.discriminator.propertyName === 'string' ? value.discriminator.propertyName : undefined
}

export function compareComposition(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame): void {
  const ov = o.value as Record<string, unknown>
  const nv = n.value as Record<string, unknown>
  const openapi = ctx.dialect === 'openapi-3.0'
  const allOfFrame = deeper(frame, 'same')
  allOfFrame.merged = openapi && (mergesProperties(ov) || mergesProperties(nv))
  compareMembers(ctx, o, n, frame, 'allOf', allOfFrame, { added: 'schema-all-of-member-added', removed: 'schema-all-of-member-removed' })
  const anyOfSite = { added: 'schema-any-of-branch-added', removed: 'schema-any-of-branch-removed' }
  // An `anyOf` written as a `oneOf` whose branches exclude each other (or back) is the same
  // disjunction: its branches are compared with each other, not each keyword with nothing (JSON
  // Schema Core, "oneOf": a value valid against exactly one branch, which is every value valid
  // against any where no value is valid against two).
  const swapped = disjunctionRewritten(ctx, o, n)
  if (swapped) {
    ctx.emit(
      'schema-keyword-rewritten',
      'none',
      o,
      swapped.old,
      n,
      swapped.new,
      frame,
      `\`${swapped.old}\` written as \`${swapped.new}\` over branches that exclude each other`,
    )
    compareMembers(ctx, o, n, frame, swapped.old, deeper(frame, 'same'), anyOfSite, swapped.new)
  } else compareMembers(ctx, o, n, frame, 'anyOf', deeper(frame, 'same'), anyOfSite)
  if (!swapped && (Object.hasOwn(ov, 'oneOf') || Object.hasOwn(nv, 'oneOf'))) {
    const discriminated = openapi && discriminatorOf(ov) !== undefined && discriminatorOf(ov) === discriminatorOf(nv)
    const disjoint = discriminated || (disjointBranches(ctx, 'old', o) && disjointBranches(ctx, 'new', n))
    const inner = disjoint
      ? deeper(frame, 'same')
      : deeper(frame, 'same', 'mixed', 'the oneOf branches are not proven to exclude each other, and a value matching two branches is refused')
    compareMembers(ctx, o, n, frame, 'oneOf', inner, { added: 'schema-one-of-branch-added', removed: 'schema-one-of-branch-removed' })
  }
  compareNot(ctx, o, n, frame)
  compareConditional(ctx, o, n, frame)
  compareDiscriminator(ctx, o, n, frame)
}

/**
 * Which disjunction each version writes, where one writes `anyOf` and the other `oneOf` (neither
 * both) and the `oneOf`'s branches provably exclude each other (`disjointBranches`).
 */
function disjunctionRewritten(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt): { old: 'anyOf' | 'oneOf'; new: 'anyOf' | 'oneOf' } | undefined {
  const ov = o.value as Record<string, unknown>
  const nv = n.value as Record<string, unknown>
  const only = (v: Record<string, unknown>): 'anyOf' | 'oneOf' | undefined =>
    Object.hasOwn(v, 'anyOf') && !Object.hasOwn(v, 'oneOf') ? 'anyOf' : Object.hasOwn(v, 'oneOf') && !Object.hasOwn(v, 'anyOf') ? 'oneOf' : undefined
  const [a, b] = [only(ov), only(nv)]
  if (a === undefined || b === undefined || a === b) return undefined
  if (!Array.isArray(ov[a]) || !Array.isArray(nv[b])) return undefined
  return disjointBranches(ctx, a === 'oneOf' ? 'old' : 'new', a === 'oneOf' ? o : n) ? { old: a, new: b } : undefined
}

function compareNot(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame): void {
  const ov = o.value as Record<string, unknown>
  const nv = n.value as Record<string, unknown>
  const inOld = Object.hasOwn(ov, 'not')
  const inNew = Object.hasOwn(nv, 'not')
  if (!inOld && !inNew) return
  if (inOld && inNew) {
    compareNode(ctx, child(o, 'not'), child(n, 'not'), deeper(frame, 'same', 'neg'), {
      narrow: 'schema-constraint-added',
      widen: 'schema-constraint-removed',
      what: 'inside not',
    })
    return
  }
  const node = inOld ? child(o, 'not') : child(n, 'not')
  const kind = schemaKind(node.value, ctx)
  // `not: false` refuses nothing; `not` of a junk value is not a schema.
  const effect: SchemaEffect = kind === 'false' ? 'none' : kind === 'junk' ? 'unknown' : inNew ? 'narrows' : 'widens'
  const side = inOld ? 'old' : 'new'
  ctx.emit(inNew ? 'schema-not-added' : 'schema-not-removed', effect, o, 'not', n, 'not', frame, `\`not\` was ${inNew ? 'added' : 'removed'}`, () => [
    { acceptedBy: inNew ? 'old' : 'new', values: [minimalInstance(ctx, side, node, 0), ...representativeValues()] },
  ])
}

function compareConditional(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame): void {
  const ov = o.value as Record<string, unknown>
  const nv = n.value as Record<string, unknown>
  const inOld = Object.hasOwn(ov, 'if')
  const inNew = Object.hasOwn(nv, 'if')
  // Without `if`, `then` and `else` do nothing; nor does an `if` without either (draft-07 6.6.1:
  // `if` alone has no effect on validation), added, removed or changed (an outside pass).
  if (!inOld && !inNew) return
  const branches = (v: Record<string, unknown>) => Object.hasOwn(v, 'then') || Object.hasOwn(v, 'else')
  if ((!inOld || !branches(ov)) && (!inNew || !branches(nv))) {
    if (jsonEqual(ov.if, nv.if, ctx.budget) !== true)
      ctx.emit('schema-keyword-rewritten', 'none', o, 'if', n, 'if', frame, '`if` changed without `then` or `else`: it constrains no value')
    return
  }
  if (inOld !== inNew) {
    ctx.emit('schema-keyword-changed', 'unknown', o, 'if', n, 'if', frame, `\`if\`/\`then\`/\`else\` was ${inNew ? 'added' : 'removed'}`)
    return
  }
  // An `if` that accepts nothing (anything) in both versions never applies `then` (`else`).
  const [oIf, nIf] = [schemaKind(ov.if, ctx), schemaKind(nv.if, ctx)]
  const never = oIf === 'false' && nIf === 'false' ? 'then' : oIf === 'true' && nIf === 'true' && ov.if !== undefined ? 'else' : undefined
  const why = 'a changed `if` moves values between `then` and `else`'
  compareNode(ctx, child(o, 'if'), child(n, 'if'), deeper(frame, 'same', 'mixed', why))
  for (const key of ['then', 'else']) {
    if (key === never) {
      if (jsonEqual(ov[key], nv[key], ctx.budget) !== true)
        ctx.emit('schema-keyword-rewritten', 'none', o, key, n, key, frame, `\`${key}\` changed where \`if\` never selects it: it constrains no value`)
      continue
    }
    compareNode(ctx, childOrAbsent(o, key), childOrAbsent(n, key), deeper(frame, 'same'), {
      narrow: 'schema-constraint-added',
      widen: 'schema-constraint-removed',
      what: key,
    })
  }
}

/** A discriminator's `mapping` entries alone (JSON Schema: no implicit children). */
function explicitValues(mappingAt: SchemaAt): Map<string, SelectedBy> {
  const mapping = isObject(mappingAt.value) ? mappingAt.value : {}
  return new Map(Object.keys(mapping).map((key) => [key, { ref: mapping[key], at: mappingAt, key }]))
}

/**
 * Whether the discriminator property of `schema`, as its own `properties` types it, may hold the
 * mapping value `key`: a string property any key, a number or integer one a key that is a number's
 * text. A property typed by a reference, by a combinator or not at all may hold anything.
 */
function mayHold(schema: Record<string, unknown>, key: string): boolean {
  const name = discriminatorOf(schema)
  const property = name !== undefined && isObject(schema.properties) ? schema.properties[name] : undefined
  if (!isObject(property) || property.type === undefined || '$ref' in property) return true
  const types = Array.isArray(property.type) ? property.type : [property.type]
  if (types.includes('string')) return true
  const number = key.trim() === '' ? Number.NaN : Number(key)
  if (types.includes('number') && Number.isFinite(number)) return true
  return types.includes('integer') && Number.isInteger(number)
}

function compareDiscriminator(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame): void {
  const ov = o.value as Record<string, unknown>
  const nv = n.value as Record<string, unknown>
  if (!Object.hasOwn(ov, 'discriminator') && !Object.hasOwn(nv, 'discriminator')) return
  const openapi = ctx.dialect === 'openapi-3.0'
  const a = discriminatorOf(ov)
  const b = discriminatorOf(nv)
  const oDisc = childOrAbsent(o, 'discriminator')
  const nDisc = childOrAbsent(n, 'discriminator')
  const aText = Object.hasOwn(ov, 'discriminator') ? (a === undefined && typeof ov.discriminator === 'string' ? ov.discriminator : a) : undefined
  const bText = Object.hasOwn(nv, 'discriminator') ? (b === undefined && typeof nv.discriminator === 'string' ? nv.discriminator : b) : undefined
  if (aText !== bText || Object.hasOwn(ov, 'discriminator') !== Object.hasOwn(nv, 'discriminator')) {
    const what =
      aText === undefined
        ? `the discriminator ${quote(bText)} was added`
        : bText === undefined
          ? `the discriminator ${quote(aText)} was removed`
          : `the discriminator property went from ${quote(aText)} to ${quote(bText)}`
    ctx.emit('schema-discriminator-property-changed', 'unknown', oDisc, 'propertyName', nDisc, 'propertyName', frame, what)
  }
  const oMapping = childOrAbsent(oDisc, 'mapping')
  const nMapping = childOrAbsent(nDisc, 'mapping')
  // OpenAPI 3.0 also selects a parent's children (allOf) by their names; JSON Schema ignores the discriminator.
  const oMap = openapi ? selectedValues(o, oMapping) : explicitValues(oMapping)
  const nMap = openapi ? selectedValues(n, nMapping) : explicitValues(nMapping)
  const keys = [...new Set([...oMap.keys(), ...nMap.keys()])].sort()
  for (const key of keys) {
    if (ctx.stopped) return
    const oEntry = oMap.get(key)
    const nEntry = nMap.get(key)
    if (!oEntry || !nEntry) {
      // A value the discriminator property cannot hold in the version that selects by it (a child's
      // name where the property is an integer) selects nothing there: gone or added, it moves nothing.
      if (openapi && !mayHold(nEntry ? nv : ov, key)) continue
      // In OpenAPI 3.0 a value that selects no schema fails; JSON Schema validators ignore the discriminator.
      const effect: SchemaEffect = openapi ? (nEntry ? 'widens' : 'narrows') : 'unknown'
      const by = (nEntry ?? oEntry)!.implicit
      const implicit = by === 'child' ? ' (a schema extending it by allOf)' : by === 'member' ? ` (its member's schema name)` : ''
      ctx.emit(
        nEntry ? 'schema-discriminator-mapping-added' : 'schema-discriminator-mapping-removed',
        effect,
        oEntry?.at ?? (isObject(oMapping.value) ? oMapping : oDisc),
        oEntry?.key,
        nEntry?.at ?? (isObject(nMapping.value) ? nMapping : nDisc),
        nEntry?.key,
        frame,
        `the discriminator value ${quote(key)} ${nEntry ? `now selects ${quote(nEntry.ref)}` : `no longer selects ${quote(oEntry!.ref)}`}${implicit}`,
      )
      continue
    }
    const oRef = oEntry.ref
    const nRef = nEntry.ref
    if (typeof oRef !== 'string' || typeof nRef !== 'string') {
      if (oRef !== nRef)
        ctx.emit(
          'schema-keyword-changed',
          'unknown',
          oEntry.at,
          oEntry.key,
          nEntry.at,
          nEntry.key,
          frame,
          `a malformed discriminator mapping for ${quote(key)} changed`,
        )
      continue
    }
    if (!openapi) {
      if (oRef !== nRef)
        ctx.emit(
          'schema-discriminator-mapping-changed',
          'unknown',
          oEntry.at,
          oEntry.key,
          nEntry.at,
          nEntry.key,
          frame,
          `the discriminator value ${quote(key)} now maps to ${quote(nRef)}`,
        )
      continue
    }
    // The selected schemas are part of what the discriminated schema accepts: compare them as references.
    const oTarget = followAll(ctx, 'old', { ...o, value: { $ref: oRef } })
    const nTarget = followAll(ctx, 'new', { ...n, value: { $ref: nRef } })
    if (!oTarget || !nTarget) {
      ctx.emit(
        'schema-not-compared',
        'unknown',
        oEntry.at,
        oEntry.key,
        nEntry.at,
        nEntry.key,
        frame,
        `the discriminator mapping for ${quote(key)} names no schema`,
      )
      continue
    }
    const inner = deeper(frame, 'same')
    if (oRef === nRef) compareNode(ctx, oTarget, nTarget, inner)
    else
      compareSummarized(
        ctx,
        oTarget,
        nTarget,
        inner,
        { narrow: 'schema-discriminator-mapping-changed', widen: 'schema-discriminator-mapping-changed', summary: 'schema-discriminator-mapping-changed' },
        {
          o: oEntry.at,
          ...(oEntry.key === undefined ? {} : { oKey: oEntry.key }),
          n: nEntry.at,
          ...(nEntry.key === undefined ? {} : { nKey: nEntry.key }),
          what: `the discriminator value ${quote(key)} now maps to ${quote(nRef)} instead of ${quote(oRef)}`,
        },
      )
  }
}
