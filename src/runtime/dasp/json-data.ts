/**
 * Reading an application's value as JSON data, never throwing: what the DASP runtime checks are
 * given (a saved record, an offered or confirmed selection, report results) comes from storage,
 * the network or a caller, and may be anything. The copy holds only JSON values, so the checks
 * that follow cannot meet a getter, a proxy trap, a cycle or a lone surrogate.
 *
 * Complexity: one visit per value, at most `maxValues` of them, recursion at most `maxDepth` deep;
 * an array's length is compared with what is left before it is walked (a sparse array of 2^32 - 1
 * slots is refused at once, not walked).
 */

export type JsonData = null | boolean | number | string | JsonData[] | { [key: string]: JsonData }

export type DataRead = { readonly ok: true; readonly value: JsonData } | { readonly ok: false; readonly reason: string }

/** Far above any selection, floor or report: a selection is a few kilobytes. */
export const DATA_LIMITS = { maxDepth: 64, maxValues: 1_000_000 } as const

class Unreadable extends Error {}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/**
 * A plain JSON copy of `value` (own enumerable data members; objects with an ordinary or null
 * prototype; `__proto__` kept as an ordinary member), or why it is not JSON data: a function,
 * symbol, bigint, `undefined`, a non-finite number, a lone surrogate, an accessor, a hole, a class
 * instance (a Date, a Map), a cycle, too deep, too many values, or a proxy that refused to be read.
 */
export function readData(value: unknown, limits: { maxDepth: number; maxValues: number } = DATA_LIMITS): DataRead {
  const budget = { left: limits.maxValues }
  const path = new Set<object>()
  try {
    return { ok: true, value: copy(value, 0, limits.maxDepth, path, budget) }
  } catch (error) {
    return { ok: false, reason: error instanceof Unreadable ? error.message : 'it could not be read (a proxy or an exotic object refused)' }
  }
}

function copy(value: unknown, depth: number, maxDepth: number, path: Set<object>, budget: { left: number }): JsonData {
  if (--budget.left < 0) throw new Unreadable('it holds too many values')
  switch (typeof value) {
    case 'string':
      if (LONE_SURROGATE.test(value)) throw new Unreadable('a string holds a lone surrogate')
      return value
    case 'boolean':
      return value
    case 'number':
      if (!Number.isFinite(value)) throw new Unreadable('a number is not finite')
      return value
    case 'object':
      if (value === null) return null
      break
    default:
      throw new Unreadable(`a ${typeof value} is not JSON data`)
  }
  if (depth >= maxDepth) throw new Unreadable(`it is nested more than ${maxDepth} levels deep`)
  if (path.has(value)) throw new Unreadable('it contains itself (a cycle)')
  path.add(value)
  try {
    if (Array.isArray(value)) {
      const length: unknown = Reflect.get(value, 'length')
      if (typeof length !== 'number' || length > budget.left) throw new Unreadable('it holds too many values')
      const out: JsonData[] = []
      for (let i = 0; i < length; i++) {
        const slot = Reflect.getOwnPropertyDescriptor(value, i)
        if (!slot) throw new Unreadable('an array has a hole')
        if (!('value' in slot)) throw new Unreadable('an array element is an accessor')
        out.push(copy(slot.value, depth + 1, maxDepth, path, budget))
      }
      return out
    }
    const prototype: unknown = Reflect.getPrototypeOf(value)
    // An ordinary object of any realm, or one without a prototype; a Date, a Map or a class instance is not data.
    if (prototype !== null && Reflect.getPrototypeOf(prototype as object) !== null) throw new Unreadable('an object is not a plain object')
    const out: { [key: string]: JsonData } = {}
    for (const key of Reflect.ownKeys(value)) {
      if (typeof key === 'symbol') continue
      const member = Reflect.getOwnPropertyDescriptor(value, key)
      if (!member || !member.enumerable) continue
      if (!('value' in member)) throw new Unreadable(`member ${JSON.stringify(key)} is an accessor`)
      if (LONE_SURROGATE.test(key)) throw new Unreadable('a member name holds a lone surrogate')
      // defineProperty: a `__proto__` member stays an ordinary member (an assignment would set the prototype).
      Object.defineProperty(out, key, { value: copy(member.value, depth + 1, maxDepth, path, budget), enumerable: true, writable: true, configurable: true })
    }
    return out
  } finally {
    path.delete(value)
  }
}

/** A JSON object (not null, not an array). */
export const isDataObject = (value: JsonData | undefined): value is { [key: string]: JsonData } =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** An own member of a data object (never one it inherits: `constructor`, `__proto__`). */
export const member = (object: { [key: string]: JsonData }, key: string): JsonData | undefined => (Object.hasOwn(object, key) ? object[key] : undefined)
