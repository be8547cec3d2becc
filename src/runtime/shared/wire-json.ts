/**
 * The one JSON text a value goes on the wire as, and the value that text means.
 *
 * `JSON.stringify` quietly changes what it cannot write: `NaN` and `Infinity` become `null`, array
 * holes and `undefined` elements become `null`, a `Date` becomes a string through `toJSON`, a `Map`
 * becomes `{}`, and a getter may answer differently on a second read. A sender that validates the
 * value and then serializes it can therefore send JSON nobody validated. Senders here serialize
 * once, validate the value parsed back from that text, and send exactly that text; values that
 * JSON cannot carry as they are refuse before anything is written.
 */
import { escapeToken } from './json-pointer.js'

export type WireJson =
  { readonly ok: true; readonly text: string; readonly value: unknown } | { readonly ok: false; readonly path: string; readonly message: string }

/** Nodes walked at most: a payload past this is refused rather than walked without end. */
const MAX_NODES = 1_000_000
/** Nesting walked at most (JSON.parse itself has no limit, but a deeper payload is no contract's). */
const MAX_DEPTH = 1_000

/**
 * `value` as wire JSON, or the first place where it is not JSON data: a non-finite number, a
 * bigint, function or symbol, `undefined` in an array or as the whole value, an array hole, an
 * object that is not a plain object or array (its prototype is another: `Date`, `Map`, a class
 * instance), a `toJSON` method, a cycle. An object member that is `undefined` is an absent member,
 * as TypeScript's optional properties have it. Worst case O(nodes) with at most MAX_NODES nodes and
 * MAX_DEPTH levels, iterative; then one `JSON.stringify` and one `JSON.parse`. Never throws.
 */
export function wireJson(value: unknown): WireJson {
  const problem = notJsonData(value)
  if (problem) return { ok: false, ...problem }
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch (error) {
    // A getter that throws or answers a bigint on the second read: still not JSON data.
    return { ok: false, path: '', message: `(payload) cannot be written as JSON: ${error instanceof Error ? error.message : String(error)}` }
  }
  if (text === undefined) return { ok: false, path: '', message: '(payload) is not JSON data' }
  // The parsed text, not the caller's object, is what gets validated: they cannot differ.
  return { ok: true, text, value: JSON.parse(text) as unknown }
}

function notJsonData(root: unknown): { path: string; message: string } | undefined {
  // `close` entries mark where an object's members end: the object leaves the open path there.
  type Entry = { value: unknown; path: string; depth: number; inArray: boolean } | { close: object }
  const stack: Entry[] = [{ value: root, path: '', depth: 0, inArray: true }]
  const open = new Set<object>()
  let nodes = 0
  const at = (path: string, what: string) => ({ path, message: `${path || '(payload)'} ${what}` })
  while (stack.length > 0) {
    const entry = stack.pop()!
    if ('close' in entry) {
      open.delete(entry.close)
      continue
    }
    const { value, path, depth, inArray } = entry
    if (++nodes > MAX_NODES) return at(path, `is past ${MAX_NODES} values`)
    if (depth > MAX_DEPTH) return at(path, `is nested deeper than ${MAX_DEPTH} levels`)
    switch (typeof value) {
      case 'string':
      case 'boolean':
        continue
      case 'number':
        if (!Number.isFinite(value)) return at(path, `is ${String(value)}, which JSON cannot carry`)
        continue
      case 'undefined':
        // Dropped from an object (an absent member); anywhere else JSON would write null.
        if (inArray) return at(path, 'is undefined, which JSON cannot carry')
        continue
      case 'object':
        break
      default:
        return at(path, `is a ${typeof value}, which JSON cannot carry`)
    }
    if (value === null) continue
    // Objects on the current path only: a shared, acyclic member is fine (JSON writes it twice).
    if (open.has(value)) return at(path, 'refers back to itself')
    const proto = Object.getPrototypeOf(value) as unknown
    const array = Array.isArray(value)
    if (array ? proto !== Array.prototype : proto !== Object.prototype && proto !== null) return at(path, 'is not a plain object or array')
    if ('toJSON' in value) return at(path, 'has a toJSON method: it would be sent as something else')
    open.add(value)
    stack.push({ close: value })
    if (array) {
      const items = value as unknown[]
      for (let i = items.length - 1; i >= 0; i--) {
        if (!Object.hasOwn(items, i)) return at(`${path}/${i}`, 'is an array hole, which JSON would write as null')
        stack.push({ value: items[i], path: `${path}/${i}`, depth: depth + 1, inArray: true })
      }
    } else {
      const record = value as Record<string, unknown>
      const keys = Object.keys(record)
      for (let i = keys.length - 1; i >= 0; i--)
        stack.push({ value: record[keys[i]!], path: `${path}/${escapeToken(keys[i]!)}`, depth: depth + 1, inArray: false })
    }
  }
  return undefined
}
