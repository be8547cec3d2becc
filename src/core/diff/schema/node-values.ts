/**
 * What a node's own keywords say about the values it admits, read without validating anything: the
 * few values it admits when they can be listed (`enum`, `const`, a boolean, a pinned or short
 * integer range, the one empty value of a type bounded to no members), and the counts (items,
 * members, code points) its values can have, where other keywords imply a bound (a closed object
 * has at most its properties, `required` at least its names). The type gate (type-gate.ts) judges a
 * keyword change on these, so that a bound the node already implied moves nothing. Each reading is
 * an over-approximation of what the node admits (never fewer values, never a tighter count) and
 * answers "unknown" on a `$ref` node, whose siblings a dialect may ignore. O(the node's own
 * keywords, its enum and its properties).
 */
import { isObject } from '../../../runtime/shared/json-value.js'
import { codePoints } from '../../../runtime/shared/schema-values.js'
import { integersOnly, onIntegers, readBound, type Bound } from './bounds.js'

/** The most listed values judged one by one (each one small validation). */
export const MAX_LISTED = 256

/**
 * The node's effective lower and upper numeric bounds (bounds.ts `readBound`), each as the integer
 * bound it means when the node admits integers alone (`onIntegers`); undefined when either is
 * absent or unreadable.
 */
export function numberRange(node: Record<string, unknown>): [Bound, Bound] | undefined {
  const low = readBound(node, 'lower')
  const high = readBound(node, 'upper')
  if (low === undefined || high === undefined || low === 'junk' || high === 'junk') return undefined
  return integersOnly(node) ? [onIntegers(low, 'lower')!, onIntegers(high, 'upper')!] : [low, high]
}

/** The types a node's `type` names (null when absent or unreadable). */
function writtenTypes(node: Record<string, unknown>): string[] | null {
  if (!Object.hasOwn(node, 'type')) return null
  const types = Array.isArray(node.type) ? node.type : [node.type]
  return types.every((t) => typeof t === 'string') ? types : null
}

/** The empty value of each type whose values a count bounds. */
const EMPTY: Readonly<Record<CountedType, () => unknown>> = { string: () => '', array: () => [], object: () => ({}) }

/**
 * The values a node admits when they are few and known from its own keywords: its listed values
 * (`enum`, `const`), the integers of an integer-only node's bounded range, `true` and `false` for a
 * boolean, `null` for `type: null`, the empty value of the one type a node admits whose count it
 * bounds to zero (`maxLength: 0`, `items: false`, `propertyNames: false`); with `null` where
 * `nullable: true` or the type list adds it; else those its combinators list (`branchValues`).
 * Undefined when unknown or more than MAX_LISTED.
 */
export function fewValues(node: Record<string, unknown>, depth = 0): unknown[] | undefined {
  if (Object.hasOwn(node, '$ref')) return undefined
  return ownValues(node) ?? (depth < MAX_BRANCH_DEPTH ? branchValues(node, depth) : undefined)
}

/** `fewValues` from the node's own keywords alone. */
function ownValues(node: Record<string, unknown>): unknown[] | undefined {
  const listed = Object.hasOwn(node, 'const') ? [node.const] : Array.isArray(node.enum) ? node.enum : undefined
  if (listed !== undefined) return listed.length <= MAX_LISTED ? [...listed, ...(node.nullable === true ? [null] : [])] : undefined
  const types = writtenTypes(node)
  if (types === null) return undefined
  const withNull = (values: unknown[]) => (node.nullable === true || types.includes('null') ? [...values, null] : values)
  const others = types.filter((t) => t !== 'null')
  if (others.length === 0) return [null]
  if (others.length > 1) return undefined
  const [type] = others
  if (type === 'boolean') return withNull([true, false])
  if (type === 'string' || type === 'array' || type === 'object') return impliedCount(node, type, 'max') === 0 ? withNull([EMPTY[type]()]) : undefined
  // A number pinned by equal inclusive bounds (`minimum: 2, maximum: 2`).
  if (
    type === 'number' &&
    typeof node.minimum === 'number' &&
    node.minimum === node.maximum &&
    (node.exclusiveMinimum === undefined || node.exclusiveMinimum === false) &&
    (node.exclusiveMaximum === undefined || node.exclusiveMaximum === false)
  )
    return withNull([node.minimum])
  const range = integersOnly(node) ? numberRange(node) : undefined
  if (range && Number.isSafeInteger(range[0].value) && Number.isSafeInteger(range[1].value) && range[1].value - range[0].value < MAX_LISTED) {
    const values: number[] = []
    for (let i = range[0].value; i <= range[1].value; i++) values.push(i)
    return withNull(values)
  }
  return undefined
}

/** How deep `fewValues` reads combinators inside combinators. */
const MAX_BRANCH_DEPTH = 4

/**
 * The values of a node whose own keywords do not list them, read from its combinators: every value an
 * `anyOf`/`oneOf` admits is one some branch admits, so the branches' values together hold them all
 * (the common `oneOf: [{const: "a", title: ...}, ...]` of documented values); every value an `allOf`
 * admits is one each member admits, so one member's values hold them. A list that holds values the
 * node refuses is fine: each is judged against the whole node. Undefined when a branch's are unknown.
 */
function branchValues(node: Record<string, unknown>, depth: number): unknown[] | undefined {
  if (Array.isArray(node.allOf))
    for (const member of node.allOf) {
      const values = isObject(member) ? fewValues(member, depth + 1) : member === false ? [] : undefined
      if (values !== undefined) return values
    }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = node[key]
    if (!Array.isArray(branches) || branches.length === 0) continue
    const union: unknown[] = []
    for (const branch of branches) {
      const values = isObject(branch) ? fewValues(branch, depth + 1) : branch === false ? [] : undefined
      if (values === undefined || union.length + values.length > MAX_LISTED) return undefined
      union.push(...values)
    }
    return node.nullable === true ? [...union, null] : union
  }
  return undefined
}

export type CountedType = 'string' | 'array' | 'object'

/** The fewest and most characters of the strings a pattern admits, when decided (the diff's pattern engine). */
export type PatternLengths = (pattern: string) => { min: number; max: number } | undefined

/** Whether a subschema admits no value: `false`, or a schema with `not` of one that admits anything. */
function admitsNothing(schema: unknown): boolean {
  if (schema === false) return true
  if (!isObject(schema) || Object.hasOwn(schema, '$ref')) return false
  const not = schema.not
  return not === true || (isObject(not) && Object.keys(not).length === 0)
}

const COUNT_KEYWORDS: Readonly<Record<CountedType, { min: string; max: string }>> = {
  string: { min: 'minLength', max: 'maxLength' },
  array: { min: 'minItems', max: 'maxItems' },
  object: { min: 'minProperties', max: 'maxProperties' },
}

const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined)

/**
 * The least (`min`) or most (`max`) count (code points, items, members) a value of `type` the node
 * admits can have, from its own keywords: its `min*`/`max*` bound and what the others imply. `max`
 * is Infinity and `min` 0 where nothing bounds it. Over-approximates what the node admits: a count
 * outside the answer is certainly refused, one inside may or may not be.
 */
export function impliedCount(node: Record<string, unknown>, type: CountedType, side: 'min' | 'max', patternLengths?: PatternLengths): number {
  if (Object.hasOwn(node, '$ref')) return side === 'min' ? 0 : Infinity
  const keywords = COUNT_KEYWORDS[type]
  const bounds: number[] = []
  const own = count(node[side === 'min' ? keywords.min : keywords.max])
  if (own !== undefined) bounds.push(own)
  if (type === 'string') {
    // The strings a const or an enum lists bound the length (none listed: no string is admitted).
    const listed = Object.hasOwn(node, 'const') ? [node.const] : Array.isArray(node.enum) ? node.enum : undefined
    if (listed !== undefined) {
      const lengths = listed.filter((v): v is string => typeof v === 'string').map(codePoints)
      bounds.push(lengths.length === 0 ? (side === 'min' ? Infinity : 0) : side === 'min' ? Math.min(...lengths) : Math.max(...lengths))
    }
    // An anchored pattern bounds the length too (`^[a-z]{2}$`: exactly 2), where its language is decided.
    const range = typeof node.pattern === 'string' && patternLengths ? patternLengths(node.pattern) : undefined
    if (range) bounds.push(side === 'min' ? range.min : range.max)
  } else if (type === 'array') {
    if (side === 'min') {
      // An array valid against `contains` has an item (draft-07 6.4.6); minContains may lower that to 0.
      if (Object.hasOwn(node, 'contains') && !Object.hasOwn(node, 'minContains')) bounds.push(1)
    } else bounds.push(maxItemsImplied(node))
  } else if (side === 'min') {
    // Each name `required` lists is a member of every object the node admits, and so is each name a
    // present member requires by `dependencies` or `dependentRequired` (their closure).
    if (Array.isArray(node.required)) bounds.push(requiredClosure(node).size)
  } else bounds.push(maxPropertiesImplied(node))
  if (bounds.length === 0) return side === 'min' ? 0 : Infinity
  return side === 'min' ? Math.max(...bounds) : Math.min(...bounds)
}

/**
 * Items: a tuple whose rest admits nothing (draft-07 `items: [...]` with `additionalItems: false`,
 * `prefixItems` with `items: false`) holds at most its entries, and none past an entry that admits
 * nothing; unique items of an item schema with few values, at most that many.
 */
function maxItemsImplied(node: Record<string, unknown>): number {
  const tupleKey = Object.hasOwn(node, 'prefixItems') ? 'prefixItems' : Array.isArray(node.items) ? 'items' : undefined
  if (tupleKey === 'prefixItems' && (!Array.isArray(node.prefixItems) || Array.isArray(node.items))) return Infinity
  const tuple = tupleKey === undefined ? [] : (node[tupleKey] as unknown[])
  const restKey = tupleKey === 'items' ? 'additionalItems' : 'items'
  const stop = tuple.findIndex(admitsNothing)
  if (stop >= 0) return stop
  if (Object.hasOwn(node, restKey) && admitsNothing(node[restKey])) return tuple.length
  if (tupleKey === undefined && node.uniqueItems === true && isObject(node.items)) {
    const values = fewValues(node.items)
    if (values !== undefined) return values.length
  }
  return Infinity
}

/**
 * Members: none where `propertyNames` admits no name, at most the names it lists where it lists
 * them, and at most the properties that admit a value where no other name is admitted
 * (`additionalProperties` admitting nothing, no `patternProperties`).
 */
function maxPropertiesImplied(node: Record<string, unknown>): number {
  let most = Infinity
  if (Object.hasOwn(node, 'propertyNames')) {
    const names = node.propertyNames
    if (admitsNothing(names)) return 0
    if (isObject(names)) {
      // Names are strings: the ones it lists, or the empty name alone where no name may be longer.
      const listed = fewValues(names)
      if (listed !== undefined) most = new Set(listed.filter((v) => typeof v === 'string')).size
      else if (impliedCount(names, 'string', 'max') === 0) most = 1
    }
  }
  if (Object.hasOwn(node, 'additionalProperties') && admitsNothing(node.additionalProperties) && !Object.hasOwn(node, 'patternProperties')) {
    const properties = isObject(node.properties) ? Object.values(node.properties) : []
    most = Math.min(most, properties.filter((schema) => !admitsNothing(schema)).length)
  }
  return most
}

/**
 * The names every admitted object holds: `required`'s (and `present`'s, for the objects that hold
 * those), and those a held name requires through the array form of draft-07's `dependencies` or
 * 2019-09's `dependentRequired`, to a fixed point (each name added once: O(names x the entries' lists)).
 */
export function requiredClosure(node: Record<string, unknown>, present: readonly string[] = []): Set<string> {
  const listed = Array.isArray(node.required) ? (node.required as unknown[]) : []
  const held = new Set([...listed.filter((n): n is string => typeof n === 'string'), ...present])
  const tables = [node.dependencies, node.dependentRequired].filter(isObject)
  const queue = [...held]
  while (queue.length) {
    const name = queue.pop()!
    for (const table of tables) {
      const needs = Object.hasOwn(table, name) ? table[name] : undefined
      if (!Array.isArray(needs)) continue
      for (const needed of needs) {
        if (typeof needed !== 'string' || held.has(needed)) continue
        held.add(needed)
        queue.push(needed)
      }
    }
  }
  return held
}
