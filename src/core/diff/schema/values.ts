/**
 * Bounded comparisons of JSON values. Every function here spends from a shared work budget (one
 * unit per node visited) and answers `undefined` when the budget runs out, so a 10,000-deep or
 * 100,000-wide schema costs a bounded amount however often it is compared.
 */
import { isObject } from '../../../runtime/shared/json-value.js'

export interface Budget {
  /** Units left; each node visited spends one. */
  left: number
}

/** A canonical text of a JSON value (object keys sorted), or `undefined` when the budget runs out or the value is not JSON. */
export function canonicalKey(value: unknown, budget: Budget, depth = 0): string | undefined {
  if (--budget.left < 0 || depth > 256) return undefined
  if (value === null) return 'null'
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false'
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : undefined
    case 'string':
      return JSON.stringify(value)
    case 'object': {
      if (Array.isArray(value)) {
        let out = '['
        for (let i = 0; i < value.length; i++) {
          const item = canonicalKey(value[i], budget, depth + 1)
          if (item === undefined) return undefined
          out += (i ? ',' : '') + item
        }
        return out + ']'
      }
      const keys = Object.keys(value).sort()
      let out = '{'
      for (let i = 0; i < keys.length; i++) {
        const item = canonicalKey((value as Record<string, unknown>)[keys[i]!], budget, depth + 1)
        if (item === undefined) return undefined
        out += (i ? ',' : '') + JSON.stringify(keys[i]) + ':' + item
      }
      return out + '}'
    }
    default:
      return undefined
  }
}

/**
 * Whether two JSON values are equal: `undefined` when it cannot be told within the budget. An
 * explicit stack, not recursion: a 10,000-deep schema is compared without touching the call stack.
 */
export function jsonEqual(a: unknown, b: unknown, budget: Budget): boolean | undefined {
  // Two scalars (an enum value against a candidate, nearly every call from the validator): the
  // first step of the walk below, without its stacks.
  if (a === b || typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    if (--budget.left < 0) return undefined
    return a === b
  }
  // Two stacks side by side, not a stack of pairs: no array is made per node compared.
  const lefts: unknown[] = [a]
  const rights: unknown[] = [b]
  while (lefts.length) {
    if (--budget.left < 0) return undefined
    const x = lefts.pop()
    const y = rights.pop()
    if (x === y) continue
    if (typeof x !== typeof y || x === null || y === null || typeof x !== 'object') return false
    if (Array.isArray(x) !== Array.isArray(y)) return false
    if (Array.isArray(x)) {
      const other = y as unknown[]
      if (x.length !== other.length) return false
      for (let i = 0; i < x.length; i++) {
        lefts.push(x[i])
        rights.push(other[i])
      }
      continue
    }
    const left = x as Record<string, unknown>
    const right = y as Record<string, unknown>
    // Keys counted and walked with for...in (a parsed object's own keys, in Object.keys order): no key list per object.
    let count = 0
    for (const _key in right) count++
    for (const key in left) {
      if (!Object.hasOwn(right, key)) return false
      count--
      lefts.push(left[key])
      rights.push(right[key])
    }
    if (count !== 0) return false
  }
  return true
}

/**
 * Whether a value holds no reference (`$ref`, `$dynamicRef`, a `discriminator`, whose `mapping` and,
 * in OpenAPI 3.0, whose parent's children found through `allOf` name other schemas): only then
 * does equal text mean an equal schema, since a reference may name a target that changed.
 */
export function referenceFree(value: unknown, budget: Budget): boolean | undefined {
  return walkMembers(value, budget, (key) =>
    key === '$ref' || key === '$dynamicRef' || key === '$recursiveRef' || key === 'mapping' || key === 'discriminator' ? STOP : DESCEND,
  )
}

/** What `walkMembers`' visitor answers for a member: walk into it, pass over it, or end the walk. */
export const DESCEND = 0
export const SKIP = 1
export const STOP = 2

/**
 * Visits each member of every object in a JSON value (arrays walked through), depth first, a budget
 * step a node: true when the walk ended, false when the visitor stopped it, undefined past the
 * budget. The one walk of the schema engine's and the differs' checks over a value's members.
 */
export function walkMembers(
  value: unknown,
  budget: Budget,
  visit: (key: string, member: unknown) => typeof DESCEND | typeof SKIP | typeof STOP,
): boolean | undefined {
  // A scalar: the first step of the walk below, without its stack.
  if (value === null || typeof value !== 'object') return --budget.left < 0 ? undefined : true
  const stack: unknown[] = [value]
  while (stack.length) {
    if (--budget.left < 0) return undefined
    const node = stack.pop()
    if (node === null || typeof node !== 'object') continue
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item)
      continue
    }
    for (const key in node) {
      const member = (node as Record<string, unknown>)[key]
      const next = visit(key, member)
      if (next === STOP) return false
      if (next === DESCEND) stack.push(member)
    }
  }
  return true
}

const pointerMemo = new WeakMap<object, Map<string, unknown>>()
const MAX_MEMO_POINTERS = 100_000

/**
 * `readPointer`, memoized per document (weakly): the same references (a shared component every
 * payload names) are followed in every payload's comparison and witness search. On the premise the
 * engine's other memos rest on: a document is not written while it is diffed.
 */
export function readPointerOnce(document: unknown, pointer: string): unknown {
  if (typeof document !== 'object' || document === null) return readPointer(document, pointer)
  let memo = pointerMemo.get(document)
  if (!memo) pointerMemo.set(document, (memo = new Map()))
  const seen = memo.get(pointer)
  if (seen !== undefined || memo.has(pointer)) return seen
  const node = readPointer(document, pointer)
  if (memo.size < MAX_MEMO_POINTERS) memo.set(pointer, node)
  return node
}

/** Reads a JSON Pointer in a document; `undefined` when it names nothing. */
export function readPointer(document: unknown, pointer: string): unknown {
  if (pointer === '') return document
  if (!pointer.startsWith('/')) return undefined
  let node = document
  let start = 1
  // A loop over the text, not split(): a hostile pointer may be long.
  while (start <= pointer.length) {
    let end = pointer.indexOf('/', start)
    if (end < 0) end = pointer.length
    const raw = pointer.slice(start, end)
    const token = raw.includes('~') ? raw.replace(/~1/g, '/').replace(/~0/g, '~') : raw
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined
      node = node[Number(token)]
    } else if (isObject(node)) {
      if (!Object.hasOwn(node, token)) return undefined
      node = node[token]
    } else return undefined
    start = end + 1
  }
  return node
}
