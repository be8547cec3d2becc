/**
 * Bounds: `minimum`/`maximum` with `exclusiveMinimum`/`exclusiveMaximum` (OpenAPI 3.0's and
 * draft-04's boolean form and the numeric form of later drafts), `multipleOf`, and the counts
 * (`minLength`/`maxLength`, `minItems`/`maxItems`, `minProperties`/`maxProperties`). Each bound
 * only constrains values of its type, so a tighter bound narrows and a looser one widens.
 */
import type { SchemaEffect } from '../schema-diff-types.js'
import { isObject } from '../../../runtime/shared/json-value.js'
import type { Candidates, Frame, SchemaAt, SchemaDiffContext } from './context.js'
import { fewValues } from './node-values.js'

export interface Bound {
  value: number
  exclusive: boolean
  /** The keyword that sets it. */
  key: string
}

type Read = Bound | undefined | 'junk'

function numberAt(node: Record<string, unknown>, key: string): number | undefined | 'junk' {
  if (!Object.hasOwn(node, key)) return undefined
  const value = node[key]
  return typeof value === 'number' && Number.isFinite(value) ? value : 'junk'
}

/** The effective bound on one side: the stricter of the inclusive and exclusive forms. */
export function readBound(node: Record<string, unknown>, side: 'lower' | 'upper'): Read {
  const inclusiveKey = side === 'lower' ? 'minimum' : 'maximum'
  const exclusiveKey = side === 'lower' ? 'exclusiveMinimum' : 'exclusiveMaximum'
  const inclusive = numberAt(node, inclusiveKey)
  const flag = node[exclusiveKey]
  if (inclusive === 'junk') return 'junk'
  if (typeof flag === 'boolean' || flag === undefined) {
    // OpenAPI 3.0 and draft-04: a boolean makes `minimum`/`maximum` exclusive.
    return inclusive === undefined ? undefined : { value: inclusive, exclusive: flag === true, key: flag === true ? exclusiveKey : inclusiveKey }
  }
  if (typeof flag !== 'number' || !Number.isFinite(flag)) return 'junk'
  const exclusive: Bound = { value: flag, exclusive: true, key: exclusiveKey }
  if (inclusive === undefined) return exclusive
  const inc: Bound = { value: inclusive, exclusive: false, key: inclusiveKey }
  return tighter(exclusive, inc, side) ? exclusive : inc
}

/** Whether `a` admits fewer values than `b` (an absent bound admits all). */
function tighter(a: Bound | undefined, b: Bound | undefined, side: 'lower' | 'upper'): boolean {
  if (!a) return false
  if (!b) return true
  if (a.value !== b.value) return side === 'lower' ? a.value > b.value : a.value < b.value
  return a.exclusive && !b.exclusive
}

function describe(bound: Bound | undefined, side: 'lower' | 'upper'): string {
  if (!bound) return 'no bound'
  return `${side === 'lower' ? (bound.exclusive ? '>' : '>=') : bound.exclusive ? '<' : '<='} ${bound.value}`
}

function numberCandidates(a: Bound | undefined, b: Bound | undefined): number[] {
  const points = [a?.value, b?.value].filter((v): v is number => v !== undefined)
  const out = new Set<number>()
  for (const p of points) for (const d of [0, -1, 1, -0.5, 0.5]) out.add(p + d)
  for (const p of points) for (const q of [Math.floor(p), Math.ceil(p), Math.floor(p) - 1, Math.ceil(p) + 1]) out.add(q)
  if (points.length === 2) out.add((points[0]! + points[1]!) / 2)
  return [...out].filter(Number.isFinite)
}

/** Whether a node admits integers alone among numbers (`type: integer`, maybe with `null`). */
export function integersOnly(node: Record<string, unknown>): boolean {
  const types = Array.isArray(node.type) ? node.type : [node.type]
  return types.includes('integer') && types.every((t) => t === 'integer' || t === 'null')
}

/**
 * A bound on integers as the inclusive integer bound it means (`> 0` is `>= 1`, `<= 2.5` is `<= 2`),
 * so that two spellings of one set of integers compare equal; kept as written past 2^53.
 */
export function onIntegers(bound: Bound | undefined, side: 'lower' | 'upper'): Bound | undefined {
  if (!bound || !Number.isSafeInteger(Math.trunc(bound.value))) return bound
  const value =
    side === 'lower'
      ? bound.exclusive
        ? Math.floor(bound.value) + 1
        : Math.ceil(bound.value)
      : bound.exclusive
        ? Math.ceil(bound.value) - 1
        : Math.floor(bound.value)
  return { value, exclusive: false, key: bound.key }
}

/** Compares `minimum`/`exclusiveMinimum` and `maximum`/`exclusiveMaximum`. */
export function compareNumericBounds(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame): void {
  const ov = o.value as Record<string, unknown>
  const nv = n.value as Record<string, unknown>
  // A narrowing is a value the old node admits that the new bound refuses: when the old node admits
  // integers alone, the bounds are compared as the integers they admit; a widening the mirror, on
  // the new node's values.
  const oldIntegers = integersOnly(ov)
  const newIntegers = integersOnly(nv)
  for (const side of ['lower', 'upper'] as const) {
    const a = readBound(ov, side)
    const b = readBound(nv, side)
    const keys = side === 'lower' ? ['minimum', 'exclusiveMinimum'] : ['maximum', 'exclusiveMaximum']
    const word = side === 'lower' ? 'minimum' : 'maximum'
    if (a === 'junk' || b === 'junk') {
      if (keys.some((k) => !sameScalar(ov[k], nv[k])))
        ctx.emit('schema-keyword-changed', 'unknown', o, keys[0], n, keys[0], frame, `a malformed ${word} changed`)
      continue
    }
    const oKey = a?.key ?? keys[0]
    const nKey = b?.key ?? keys[0]
    const values = () => numberCandidates(a, b)
    const what = `the ${word} went from ${describe(a, side)} to ${describe(b, side)}`
    // The bounds as each side's own values see them (integers alone: `> 0` is `>= 1`). Both at once
    // cannot be: an integer bound lies inside the written one, so the two tests contradict.
    const onOld = (bound: Bound | undefined) => (oldIntegers ? onIntegers(bound, side) : bound)
    const onNew = (bound: Bound | undefined) => (newIntegers ? onIntegers(bound, side) : bound)
    if (tighter(onOld(b), onOld(a), side)) {
      const rule = side === 'lower' ? 'schema-minimum-increased' : 'schema-maximum-decreased'
      ctx.emit(rule, 'narrows', o, oKey, n, nKey, frame, what, () => [{ acceptedBy: 'old', values: values() }])
    } else if (tighter(onNew(a), onNew(b), side)) {
      const rule = side === 'lower' ? 'schema-minimum-decreased' : 'schema-maximum-increased'
      ctx.emit(rule, 'widens', o, oKey, n, nKey, frame, what, () => [{ acceptedBy: 'new', values: values() }])
    } else if (keys.some((k) => !sameScalar(ov[k], nv[k]))) {
      ctx.emit('schema-keyword-rewritten', 'none', o, oKey, n, nKey, frame, `the ${word} is written differently (${describe(b, side)})`)
    }
  }
}

function sameScalar(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'number' && typeof b === 'number' && a === b)
}

/** `multipleOf`: a multiple of the old step narrows, a divisor of it widens; anything else moves both ways. */
export function compareMultipleOf(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame): void {
  const a = (o.value as Record<string, unknown>).multipleOf
  const b = (n.value as Record<string, unknown>).multipleOf
  if (a === b) return
  const valid = (v: unknown): v is number | undefined => v === undefined || (typeof v === 'number' && Number.isFinite(v) && v > 0)
  if (!valid(a) || !valid(b)) {
    ctx.emit('schema-keyword-changed', 'unknown', o, 'multipleOf', n, 'multipleOf', frame, 'a malformed multipleOf changed')
    return
  }
  const what = `\`multipleOf\` went from ${a ?? 'none'} to ${b ?? 'none'}`
  const steps = [a, b].filter((v): v is number => v !== undefined)
  const candidates = (acceptedBy: 'old' | 'new'): Candidates => ({ acceptedBy, values: steps.flatMap((s) => [s, 2 * s, 3 * s, s / 2]).concat([1, 0.5]) })
  if (a === undefined) return void ctx.emit('schema-multiple-of-narrowed', 'narrows', o, 'multipleOf', n, 'multipleOf', frame, what, () => [candidates('old')])
  if (b === undefined) return void ctx.emit('schema-multiple-of-widened', 'widens', o, 'multipleOf', n, 'multipleOf', frame, what, () => [candidates('new')])
  // Exact only where floating point cannot blur the ratio: integer steps.
  const exact = Number.isSafeInteger(a) && Number.isSafeInteger(b)
  if (exact && b % a === 0)
    return void ctx.emit('schema-multiple-of-narrowed', 'narrows', o, 'multipleOf', n, 'multipleOf', frame, what, () => [candidates('old')])
  if (exact && a % b === 0)
    return void ctx.emit('schema-multiple-of-widened', 'widens', o, 'multipleOf', n, 'multipleOf', frame, what, () => [candidates('new')])
  const effect: SchemaEffect = exact ? 'both' : 'unknown'
  ctx.emit('schema-multiple-of-changed', effect, o, 'multipleOf', n, 'multipleOf', frame, what, () => [candidates('old'), candidates('new')])
}

/** A count bound pair such as minLength/maxLength, with the value a given count makes. */
export interface CountKeywords {
  min: string
  max: string
  noun: string
  rules: { minUp: string; minDown: string; maxDown: string; maxUp: string }
  /**
   * Values of `count` (characters, items, members), a few ways filled, the ones `node` (the
   * accepting version's node, of version `side`) more likely admits first: the search keeps one
   * both versions judge.
   */
  make(count: number, node: SchemaAt, side: 'old' | 'new'): unknown[]
  /**
   * The count of a value of the keywords' type: the values the accepting node lists (node-values.ts
   * `fewValues`: an enum, documented `const` branches) whose count the change moves are tried first
   * (a documented value longer than a new `maxLength` is the witness; a string of `a`s is not one
   * the node admits).
   */
  countOf(value: unknown): number | undefined
}

/** Listed values tried before the made ones. */
const MAX_LISTED_CANDIDATES = 8

function countAt(node: unknown, key: string): number | undefined | 'junk' {
  if (!isObject(node) || !Object.hasOwn(node, key)) return undefined
  const value = node[key]
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 'junk'
}

/** Compares a pair of count bounds; a witness is a value of a count between the two bounds. */
export function compareCounts(ctx: SchemaDiffContext, o: SchemaAt, n: SchemaAt, frame: Frame, k: CountKeywords): void {
  for (const [key, lower] of [
    [k.min, true],
    [k.max, false],
  ] as const) {
    const a = countAt(o.value, key)
    const b = countAt(n.value, key)
    if (a === b) continue
    if (a === 'junk' || b === 'junk') {
      ctx.emit('schema-keyword-changed', 'unknown', o, key, n, key, frame, `a malformed ${key} changed`)
      continue
    }
    // An absent minimum is 0; an absent maximum is unbounded.
    const oldValue = a ?? (lower ? 0 : Infinity)
    const newValue = b ?? (lower ? 0 : Infinity)
    const what = `${key} went from ${a ?? 'none'} to ${b ?? 'none'}`
    if (oldValue === newValue) {
      ctx.emit('schema-keyword-rewritten', 'none', o, key, n, key, frame, what)
      continue
    }
    const narrows = lower ? newValue > oldValue : newValue < oldValue
    // The counts between the bounds: the one side's edge and its neighbour, the smallest count that
    // moves first (a witness of 9 items, not 16, for maxItems lowered from 16 to 8).
    const smallest = lower ? (narrows ? oldValue : newValue) : narrows ? newValue + 1 : oldValue + 1
    const counts = [...new Set([smallest, oldValue, newValue, oldValue - 1, newValue - 1, oldValue + 1, newValue + 1])].filter(
      (c) => Number.isFinite(c) && c >= 0 && c <= 256,
    )
    const rule = lower ? (narrows ? k.rules.minUp : k.rules.minDown) : narrows ? k.rules.maxDown : k.rules.maxUp
    const [accepting, kept, refused] = narrows ? [o, oldValue, newValue] : [n, newValue, oldValue]
    const admits = (count: number, bound: number) => (lower ? count >= bound : count <= bound)
    ctx.emit(rule, narrows ? 'narrows' : 'widens', o, key, n, key, frame, `${k.noun}: ${what}`, () => {
      const own: unknown[] = []
      for (const value of (isObject(accepting.value) ? fewValues(accepting.value) : undefined) ?? []) {
        const count = k.countOf(value)
        if (count !== undefined && admits(count, kept) && !admits(count, refused)) own.push(value)
        if (own.length === MAX_LISTED_CANDIDATES) break
      }
      return [{ acceptedBy: narrows ? 'old' : 'new', values: [...own, ...counts.flatMap((c) => k.make(c, accepting, narrows ? 'old' : 'new'))] }]
    })
  }
}
