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
import { errorText } from './error-text.js'
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
 * MAX_DEPTH levels; then one `JSON.stringify` and one `JSON.parse`. Never throws.
 */
export function wireJson(value: unknown): WireJson {
  const problem = guarded(value, MAX_NODES)
  if (problem) return { ok: false, ...problem }
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch (error) {
    // A getter that throws or answers a bigint on the second read: still not JSON data.
    return { ok: false, path: '', message: `(payload) cannot be written as JSON: ${errorText(error)}` }
  }
  if (text === undefined) return { ok: false, path: '', message: '(payload) is not JSON data' }
  // The parsed text, not the caller's object, is what gets validated: they cannot differ.
  return { ok: true, text, value: JSON.parse(text) as unknown }
}

/**
 * Values a response may hold: sixteen times a message's bound, far past what a 4 MiB answer holds
 * (about two million), yet a bound: an in-process answer may share one member at every level of a
 * short chain, 2^40 paths through a few dozen objects, which a walk (and a validator) would follow
 * one by one.
 */
const MAX_RESPONSE_NODES = 16 * MAX_NODES

/**
 * The first place where `value` is not JSON data (as `wireJson` finds it, up to MAX_RESPONSE_NODES
 * values), or undefined: for a value that is not sent but must be JSON data before a validator walks
 * it (a response an in-process sender answers: an array of 2^32 - 1 holes would have the validator
 * visit each). A getter or a Proxy trap that throws is such a place too. Never throws.
 */
export function jsonDataProblem(value: unknown): { path: string; message: string } | undefined {
  return guarded(value, MAX_RESPONSE_NODES)
}

/**
 * What parsed text that is not JSON data shows: a number JSON.parse reads as ±Infinity has an
 * exponent of three digits or more, or 309 digits before it; a lone surrogate is written as an
 * escape (`\ud800`: text decoded strictly from UTF-8 holds none, utf8.ts).
 */
const MAY_NOT_BE_DATA = /[eE]\+?\d{3}|\d{309}|\\u[dD][89a-fA-F]/

/**
 * Where the value `text` parsed to is not JSON data: JSON.parse reads a number no double holds
 * (`1e400`) as Infinity, and an escaped lone surrogate (`"\ud800"`) as a string no UTF-8 text
 * carries (RFC 8259, section 8.2: its reading is unpredictable; the Rust target's serde_json
 * refuses it), the two ways parsed text can fail to be. The value is walked only when the text has
 * such a number's or escape's form, so a message pays a regular-expression scan, not a walk.
 */
export function parsedDataProblem(text: string, value: unknown): { path: string; message: string } | undefined {
  return MAY_NOT_BE_DATA.test(text) ? jsonDataProblem(value) : undefined
}

/** `JSON.parse`, which also throws (a SyntaxError, as for text that is no JSON) on a value JSON cannot carry: what a peer sends. */
export function parseJsonData(text: string): unknown {
  const value = JSON.parse(text) as unknown
  const problem = parsedDataProblem(text, value)
  if (problem) throw new SyntaxError(problem.message)
  return value
}

/** Where `value` is not JSON data within a message's bounds (MAX_NODES values: what `wireJson` checks), or undefined. Never throws. */
export function messageDataProblem(value: unknown): { path: string; message: string } | undefined {
  return guarded(value, MAX_NODES)
}

/** `notJsonData`, a throw (a getter, a Proxy's trap) made a problem at the top. */
function guarded(value: unknown, maxNodes: number): { path: string; message: string } | undefined {
  try {
    return notJsonData(value, maxNodes)
  } catch (error) {
    return { path: '', message: `(payload) cannot be read: ${errorText(error)}` }
  }
}

/** Levels whose open objects are kept in an array rather than a set. */
const SHALLOW = 16

/** Where a walk stopped: the reference tokens from the value it was given down to the problem, last first, and what is wrong there. */
interface Stop {
  tokens: string[]
  what: string
}

/** One walk's state: the objects open on the current path and the nodes seen so far. */
interface Walk {
  nodes: number
  /** Values walked at most. */
  readonly maxNodes: number
  /**
   * Objects on the current path only: a shared, acyclic member is fine (JSON writes it twice). The
   * first SHALLOW levels' objects are kept by depth and scanned (cheaper than hashing for the usual
   * payload, a few levels deep); deeper ones in a set, made only for a payload that deep, so a deep
   * path costs no more than a lookup.
   */
  readonly shallow: object[]
  deep: Set<object> | undefined
}

const stop = (what: string, token?: string): Stop => ({ tokens: token === undefined ? [] : [token], what })

const LONE_SURROGATE = 'holds a lone surrogate (an unpaired U+D800 to U+DFFF), which no UTF-8 text carries'
/** A surrogate without its pair, for engines without `isWellFormed` (ES2024). */
const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
const wellFormed = (text: string): boolean => {
  const native = (text as { isWellFormed?: () => boolean }).isWellFormed
  return typeof native === 'function' ? native.call(text) : !LONE.test(text)
}

const isOpen = (state: Walk, value: object, depth: number): boolean => {
  const shallow = state.shallow
  for (let i = 0, n = depth < SHALLOW ? depth : SHALLOW; i < n; i++) if (shallow[i] === value) return true
  return depth > SHALLOW && state.deep !== undefined && state.deep.has(value)
}

/**
 * The first place where `root` is not JSON data, in the order the values are written (an array's
 * holes are looked for, last first, before its elements are walked). Recursive, with nothing
 * allocated for a value that passes but the walk's state (module functions, not closures made per
 * call: this runs for every message a client sends): a path is made only for the problem, from
 * the tokens its callers add on the way back. The recursion is as deep as the value, at most
 * MAX_DEPTH levels.
 */
function notJsonData(root: unknown, maxNodes: number): { path: string; message: string } | undefined {
  // A state per call, not one shared: a getter run by the walk may send a message itself.
  const found = walk({ nodes: 0, maxNodes, shallow: [], deep: undefined }, root, 0, true)
  if (!found) return undefined
  let path = ''
  for (let i = found.tokens.length - 1; i >= 0; i--) path += `/${found.tokens[i]}`
  return { path, message: `${path || '(payload)'} ${found.what}` }
}

function walk(state: Walk, value: unknown, depth: number, inArray: boolean): Stop | undefined {
  if (++state.nodes > state.maxNodes) return stop(`is past ${state.maxNodes} values`)
  if (depth > MAX_DEPTH) return stop(`is nested deeper than ${MAX_DEPTH} levels`)
  switch (typeof value) {
    case 'string':
      return wellFormed(value) ? undefined : stop(LONE_SURROGATE)
    case 'boolean':
      return undefined
    case 'number':
      return Number.isFinite(value) ? undefined : stop(`is ${String(value)}, which JSON cannot carry`)
    case 'undefined':
      // Dropped from an object (an absent member); anywhere else JSON would write null.
      return inArray ? stop('is undefined, which JSON cannot carry') : undefined
    case 'object':
      break
    default:
      return stop(`is a ${typeof value}, which JSON cannot carry`)
  }
  if (value === null) return undefined
  if (isOpen(state, value, depth)) return stop('refers back to itself')
  const proto = Object.getPrototypeOf(value) as unknown
  const array = Array.isArray(value)
  if (array ? proto !== Array.prototype : proto !== Object.prototype && proto !== null) return stop('is not a plain object or array')
  if ('toJSON' in value) return stop('has a toJSON method: it would be sent as something else')
  if (depth < SHALLOW) state.shallow[depth] = value
  else (state.deep ??= new Set()).add(value)
  let found: Stop | undefined
  if (array) {
    const items = value as unknown[]
    for (let i = items.length - 1; i >= 0; i--) if (!Object.hasOwn(items, i)) return stop('is an array hole, which JSON would write as null', String(i))
    for (let i = 0; i < items.length && !found; i++) if ((found = walk(state, items[i], depth + 1, true))) found.tokens.push(String(i))
  } else {
    const record = value as Record<string, unknown>
    const keys = Object.keys(record)
    for (let i = 0; i < keys.length && !found; i++) {
      if (!wellFormed(keys[i]!)) found = stop(`names a member with ${LONE_SURROGATE.replace('holds ', '')}`, escapeToken(keys[i]!))
      else if ((found = walk(state, record[keys[i]!], depth + 1, false))) found.tokens.push(escapeToken(keys[i]!))
    }
  }
  if (depth >= SHALLOW) state.deep!.delete(value)
  return found
}
