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

/** Whether two JSON values are equal: `undefined` when it cannot be told within the budget. */
export function jsonEqual(a: unknown, b: unknown, budget: Budget, depth = 0): boolean | undefined {
  if (--budget.left < 0 || depth > 256) return undefined
  if (a === b) return true
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) {
    const other = b as unknown[]
    if (a.length !== other.length) return false
    for (let i = 0; i < a.length; i++) {
      const same = jsonEqual(a[i], other[i], budget, depth + 1)
      if (same !== true) return same
    }
    return true
  }
  const left = a as Record<string, unknown>
  const right = b as Record<string, unknown>
  const keys = Object.keys(left)
  if (keys.length !== Object.keys(right).length) return false
  for (const key of keys) {
    if (!Object.hasOwn(right, key)) return false
    const same = jsonEqual(left[key], right[key], budget, depth + 1)
    if (same !== true) return same
  }
  return true
}

/**
 * Whether a value holds no reference (`$ref`, `$dynamicRef`, a discriminator `mapping`): only then
 * does equal text mean an equal schema, since a reference may name a target that changed.
 */
export function referenceFree(value: unknown, budget: Budget, depth = 0): boolean | undefined {
  if (--budget.left < 0 || depth > 256) return undefined
  if (value === null || typeof value !== 'object') return true
  if (Array.isArray(value)) {
    for (const item of value) {
      const free = referenceFree(item, budget, depth + 1)
      if (free !== true) return free
    }
    return true
  }
  for (const key of Object.keys(value)) {
    if (key === '$ref' || key === '$dynamicRef' || key === '$recursiveRef' || key === 'mapping') return false
    const free = referenceFree((value as Record<string, unknown>)[key], budget, depth + 1)
    if (free !== true) return free
  }
  return true
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
