/**
 * Witnesses: a value one version accepts and the other refuses, found where it is cheap and
 * certain. A comparer offers a few local candidates for the node it compared; each is placed, along
 * the node's path (properties and items), into a small value the accepting version's root accepts,
 * and kept only when the three-valued validator (`accepts.ts`) is sure of both answers.
 */
import { isObject } from '../../../runtime/shared/json-value.js'
import { setOwn } from '../../../runtime/shared/own-property.js'
import type { Candidates, Frame, PathStep, PendingChange, SchemaAt, SchemaDiffContext, SideName } from './context.js'
import { child } from './context.js'
import { MAX_CHECK_DEPTH, acceptsValue, keepVerdictsFor } from './accepts.js'
import { followAll, refOf } from './resolve.js'
import { readPointerOnce } from './values.js'
import { nodeBindsRoot } from './witness-path.js'
import { patternLanguage, shortestInside } from './regex-language.js'
import { OPENAPI_FORMAT_EXAMPLES } from '../../openapi-formats.js'

const MAX_CANDIDATES = 40
/**
 * Whether a candidate is checked against its node first, on either side (off only to compare
 * against the plain search, in tests): `skipped` counts candidates the accepting node refused,
 * `refusedAtNode` witnesses whose refusal the refusing node proved without the whole payload.
 */
export const witnessPrecheck = { enabled: true, skipped: 0, refusedAtNode: 0 }
/** Fill an array's entries before the step with the witness itself. */
const SAME = Symbol('same')
const FILLERS: readonly unknown[] = [SAME, '', 0, null, {}, [], true]

function root(ctx: SchemaDiffContext, side: SideName): SchemaAt {
  const s = ctx.side(side)
  return { file: s.file, document: s.document, pointer: s.pointer, value: readPointerOnce(s.document, s.pointer) }
}

export function findWitness(
  ctx: SchemaDiffContext,
  frame: Frame,
  wanted: string,
  candidates: readonly Candidates[],
  nodes?: { old: SchemaAt; new: SchemaAt },
): PendingChange['witness'] {
  // Each step of the path is a level of the check, which answers nothing past MAX_CHECK_DEPTH: a
  // candidate placed deeper can never be proven (a chain of references made the search, at every
  // component on the way, cubic in the chain's length: 3 minutes for 1,600 links).
  if (!frame.path || frame.path.length > MAX_CHECK_DEPTH) return undefined
  let tried = 0
  for (const group of candidates) {
    if (wanted !== 'both' && (wanted === 'widens') !== (group.acceptedBy === 'new')) continue
    const accepting = root(ctx, group.acceptedBy)
    const refusing = root(ctx, group.acceptedBy === 'new' ? 'old' : 'new')
    const base = minimalOf(ctx, group.acceptedBy, accepting)
    // Where the node's verdict binds the root (witness-path.ts), a candidate the node refuses is
    // one the root refuses too: it is counted as tried, as before, but not placed and validated.
    const node = nodes?.[group.acceptedBy]
    const local = witnessPrecheck.enabled && node && nodeBindsRoot(ctx, group.acceptedBy, accepting, frame.path, node) ? node : undefined
    // The same proof on the refusing side: where its node binds its root, a placed candidate that
    // node surely refuses is one the refusing root surely refuses, without validating the whole
    // payload again (a shared component's change is found in every payload that reaches it, and
    // each of its witnesses was validated twice against a whole payload).
    const other = group.acceptedBy === 'new' ? 'old' : 'new'
    const otherNode = nodes?.[other]
    let refusingNode: SchemaAt | null | undefined
    const refusedAtNode = (value: unknown): boolean => {
      refusingNode ??= witnessPrecheck.enabled && otherNode && nodeBindsRoot(ctx, other, refusing, frame.path!, otherNode) ? otherNode : null
      return refusingNode !== null && acceptsValue(ctx, other, refusingNode, clone(value)) === false
    }
    // Where the path goes through an array, the entries before the step need values too: try a few fillers.
    const fillers = frame.path.some((step) => 'item' in step) ? FILLERS : [SAME]
    for (const value of group.values) {
      const refused = local !== undefined && acceptsValue(ctx, group.acceptedBy, local, clone(value)) === false
      for (const filler of fillers) {
        if (++tried > MAX_CANDIDATES) return undefined
        if (refused) {
          witnessPrecheck.skipped++
          continue
        }
        const placed = place(ctx, group.acceptedBy, base, frame.path, value, filler)
        if (placed === undefined) continue
        if (acceptsValue(ctx, group.acceptedBy, accepting, placed) !== true) continue
        if (refusedAtNode(value)) witnessPrecheck.refusedAtNode++
        else if (acceptsValue(ctx, other, refusing, placed) !== false) continue
        // Its own copy: the tried values share the memoized minimal instances (and so would findings).
        return { value: clone(placed), acceptedBy: group.acceptedBy }
      }
    }
  }
  return undefined
}

/**
 * A node's minimal instance, made once: a payload's root (and each container on a path into it) is
 * the base of every witness searched in that payload, and a shared component (a `Money` every
 * payload names) is the container made for each payload whose minimal instance lacks it. Kept per
 * document and side, weakly, on the premise `provenEqual` (pair.ts) rests on: a `$ref` in a given
 * document resolves the same way in every call. `place` copies what it changes, so the value is
 * shared, never written.
 */
const minimalMemo = new WeakMap<object, Record<SideName, Map<string, Map<string, unknown>>>>()

function minimalOf(ctx: SchemaDiffContext, side: SideName, at: SchemaAt): unknown {
  if (typeof at.document !== 'object' || at.document === null) return minimalInstance(ctx, side, at, 0)
  // By side, file and pointer in maps of their own: no key text made per call (a call per witness searched).
  let sides = minimalMemo.get(at.document)
  if (!sides) minimalMemo.set(at.document, (sides = { old: new Map(), new: new Map() }))
  let memo = sides[side].get(at.file)
  if (!memo) sides[side].set(at.file, (memo = new Map()))
  if (memo.has(at.pointer)) return memo.get(at.pointer)
  const value = minimalInstance(ctx, side, at, 0)
  keepVerdictsFor(value)
  memo.set(at.pointer, value)
  return value
}

/** `base` with `local` put at `path` (containers made along the way); `undefined` when the path cannot be built. */
function place(ctx: SchemaDiffContext, side: SideName, base: unknown, path: readonly PathStep[], local: unknown, filler: unknown): unknown {
  if (path.length === 0) return clone(local)
  const [step, ...rest] = path
  // A container the base lacks is made from its schema: an object with its required members.
  const made = (): unknown => (step!.holder ? minimalOf(ctx, side, step!.holder[side]) : undefined)
  if ('property' in step!) {
    const start = isObject(base) ? base : made()
    const object: Record<string, unknown> = isObject(start) ? { ...start } : {}
    const inner = place(ctx, side, Object.hasOwn(object, step.property) ? object[step.property] : undefined, rest, local, filler)
    if (inner === undefined) return undefined
    assign(object, step.property, inner)
    return object
  }
  if (step!.item > 16) return undefined
  const start = Array.isArray(base) ? base : made()
  const array: unknown[] = Array.isArray(start) ? [...start] : []
  const inner = place(ctx, side, array[step!.item], rest, local, filler)
  if (inner === undefined) return undefined
  while (array.length <= step!.item) array.push(filler === SAME ? inner : clone(filler))
  array[step!.item] = inner
  return array
}

/**
 * A copy as a JSON round trip makes it (a non-finite number becomes null, -0 becomes 0, an absent
 * or function member is dropped, or null in an array), walked directly: a candidate is copied at
 * every try. Anything a round trip treats specially (a `toJSON`, a class instance, a bigint, a
 * `__proto__` key, a nesting past 64) goes through the round trip itself, so the answer is its.
 */
function clone(value: unknown): unknown {
  if (value === undefined) return undefined
  const copied = copyJson(value, 0)
  return copied === UNCOPIED ? JSON.parse(JSON.stringify(value)) : copied
}

const UNCOPIED = Symbol('uncopied')

function copyJson(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      return Number.isFinite(value) ? value + 0 : null
    case 'object':
      break
    default:
      return UNCOPIED
  }
  if (value === null) return null
  if (depth > 64) return UNCOPIED
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length)
    for (let i = 0; i < value.length; i++) {
      const item = value[i]
      const copied = item === undefined || typeof item === 'function' || typeof item === 'symbol' ? null : copyJson(item, depth + 1)
      if (copied === UNCOPIED) return UNCOPIED
      out[i] = copied
    }
    return out
  }
  const proto: unknown = Object.getPrototypeOf(value)
  if ((proto !== Object.prototype && proto !== null) || typeof (value as { toJSON?: unknown }).toJSON === 'function') return UNCOPIED
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    if (key === '__proto__') return UNCOPIED
    const member = (value as Record<string, unknown>)[key]
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue
    const copied = copyJson(member, depth + 1)
    if (copied === UNCOPIED) return UNCOPIED
    out[key] = copied
  }
  return out
}

/**
 * `object[key] = value` as an own data property: `setOwn` for `__proto__` (an assignment would set
 * the prototype), a plain assignment otherwise, which on a plain object does the same and is much
 * cheaper than defining the property (minimal instances are made for every payload of a document).
 */
function assign(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') setOwn(object, key, value)
  else object[key] = value
}

/** A small value the schema probably accepts (checked by the caller): required members, minimal counts and bounds. */
export function minimalInstance(ctx: SchemaDiffContext, side: SideName, at: SchemaAt, depth: number): unknown {
  if (depth > 8) return null
  let node: SchemaAt | undefined = at
  if (refOf(node.value) !== undefined) node = followAll(ctx, side, node)
  const schema = node?.value
  if (!node || !isObject(schema)) return null
  if (Object.hasOwn(schema, 'const')) return schema.const
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0]
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    if (!Object.hasOwn(schema, 'type') && Array.isArray(schema[key]) && (schema[key] as unknown[]).length)
      return minimalInstance(ctx, side, child(node, key, 0), depth + 1)
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
  const kind =
    type ??
    (schema.properties || schema.required
      ? 'object'
      : schema.items || schema.prefixItems
        ? 'array'
        : schema.minLength !== undefined || schema.pattern
          ? 'string'
          : schema.minimum !== undefined
            ? 'number'
            : undefined)
  switch (kind) {
    case 'object': {
      const out: Record<string, unknown> = {}
      const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string').slice(0, 16) : []
      for (const name of required) {
        const property =
          isObject(schema.properties) && Object.hasOwn(schema.properties, name) ? child(node, 'properties', name) : child(node, 'additionalProperties')
        assign(out, name, minimalInstance(ctx, side, property, depth + 1))
      }
      return out
    }
    case 'array': {
      const count = typeof schema.minItems === 'number' ? Math.min(schema.minItems, 8) : 0
      const out: unknown[] = []
      for (let i = 0; i < count; i++) {
        const item = Array.isArray(schema.prefixItems) && i < schema.prefixItems.length ? child(node, 'prefixItems', i) : child(node, 'items')
        out.push(minimalInstance(ctx, side, item, depth + 1))
      }
      return out
    }
    case 'string':
      return minimalString(ctx, schema)
    case 'integer':
    case 'number': {
      const low = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 0
      return kind === 'integer' ? Math.ceil(low) : low
    }
    case 'boolean':
      return false
    default:
      return null
  }
}

/** Patterns read for minimal strings in one diff, at most: a budget apart from the comparisons' own (`MAX_PATTERN_DECISIONS`). */
const MAX_PATTERN_MEMBERS = 64
const patternMembersRead = new WeakMap<SchemaDiffContext, number>()

/**
 * A short string the node takes: a checked format's example (OpenAPI 3.0, `type: string`), else the
 * shortest string in its `pattern` within its lengths, else as many `a`s as its `minLength`. A
 * payload's identifier written with a pattern (`^o-[0-9]+$`) or a `date-time` made every witness
 * in that payload unsure (the base refused), so a change anywhere inside it had none.
 */
function minimalString(ctx: SchemaDiffContext, schema: Record<string, unknown>): string {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity
  const fits = (text: string) => {
    const length = [...text].length
    return length >= min && length <= max
  }
  const format = schema.format
  if (ctx.dialect === 'openapi-3.0' && schema.type === 'string' && typeof format === 'string' && Object.hasOwn(OPENAPI_FORMAT_EXAMPLES, format)) {
    const example = OPENAPI_FORMAT_EXAMPLES[format]!
    if (fits(example)) return example
  }
  if (typeof schema.pattern === 'string') {
    const read = patternMembersRead.get(ctx) ?? 0
    if (read < MAX_PATTERN_MEMBERS) {
      patternMembersRead.set(ctx, read + 1)
      const language = patternLanguage(schema.pattern, ctx.dialect)
      const member = language.ok ? shortestInside(language) : undefined
      if (member !== undefined && fits(member)) return member
    }
  }
  return 'a'.repeat(Math.min(min, 64))
}
