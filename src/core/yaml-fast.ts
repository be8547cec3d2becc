import type { Schema, State } from 'js-yaml'
import { findCredential } from './credential-scan.js'
import { lazyRequire } from './lazy-require.js'
import { LIMITS } from './limits.js'
import { readBlockYaml } from './yaml-block.js'
import { ClosedCollections } from './yaml-positions.js'
import type { YamlRegions } from './yaml-regions.js'

/**
 * The fast YAML path (bench/: a NATS compile must stay within 4x of a raw `js-yaml` load).
 *
 * `yaml` by eemeli builds a Document with a range on every node; on a 500-channel contract that
 * alone is ~17x `js-yaml`'s `load`. Generation only needs the positions of collections (channels,
 * operations, schemas: the source backlinks), so this path loads with `js-yaml` and records where
 * each mapping and sequence starts through its parse listener. Everything else stays with the exact
 * path in `yaml-source.ts`: a document that uses anchors, aliases, tags, explicit keys or
 * directives, that `js-yaml` rejects, or whose values YAML 1.2 core and JSON read differently is
 * handed back (`undefined`), and so is any position lookup that is not a collection's start.
 * `test/yaml-fast.test.ts` holds the two paths to the same values and positions.
 */
export interface FastYaml {
  value: unknown
  /**
   * Start offset of the mapping or sequence at a JSON Pointer; undefined when the pointer names
   * none or the fast path cannot say (then the exact path answers).
   */
  start(pointer: string): number | undefined
  /**
   * Whether some string of the value, a key or a value, holds what `findCredential` finds (each
   * string was scanned as the parser made it). False means a walk of the value for credentials
   * (`decodedCredential`) would find none, so it need not be made (bench/: a second walk of the
   * whole document on every compile).
   */
  mayHoldCredential: boolean
}

/** A string at least this long is scanned for credentials once however often it repeats (an nkey seed's length). */
const LONG_STRING = 58

/** The values the fast path read whose strings hold no credential (`FastYaml.mayHoldCredential` false). */
const credentialFree = new WeakSet<object>()

/** The values the fast path read from a text without the characters of any credential (`valuesMayHoldCredential` false). */
const credentialFreeText = new WeakSet<object>()

/**
 * Whether `value` is one the fast path parsed from a text in which neither a string nor the raw
 * text (comments included) can hold what `findCredential` finds: then no scan of either would find
 * one. False when unknown.
 */
export function parsedFromCredentialFreeText(value: unknown): boolean {
  return value !== null && typeof value === 'object' && credentialFreeText.has(value)
}

/**
 * Whether `value` is one the fast path parsed and found no credential in while it made its strings:
 * then `decodedCredential(value)` is undefined without a walk. False when unknown.
 */
export function parsedWithoutCredential(value: unknown): boolean {
  return value !== null && typeof value === 'object' && credentialFree.has(value)
}

// Anything the fast path does not reproduce exactly that the parse listener cannot see, found
// before parsing: a directive, a document marker after the first line, a byte order mark, and an
// escape that may produce an unpaired surrogate. (Anchors, aliases, tags and explicit keys are
// caught where a node begins, in the listener: a pattern over the whole text would also match
// `*bold*` in a Markdown description.) False positives only cost speed.
const NEEDS_EXACT: Array<[guard: string, pattern: RegExp]> = [
  ['%', /^%/m],
  ['\n---', /^---/m],
  ['\n...', /^\.\.\./m],
  ['\\', /\\[uU]0{0,4}[dD][89a-fA-F]/],
  // A merge key (`<<: *base`): the exact path merges it (yaml-source.ts); js-yaml's core schema
  // here, and the block reader, would read it as a member named `<<`.
  ['<<', /(?:^|[\s{,[])<<[ \t]*:(?:[\s]|$)/m],
]

function needsExact(text: string): boolean {
  if (text.charCodeAt(0) === 0xfeff) return true
  // One leading document marker is fine; any later one starts a second document.
  const body = text.startsWith('---') ? text.slice(3) : text
  // `includes` first: most documents have no `&`, `!`, `%` or backslash at all, and a native
  // substring search is far cheaper than a regular expression over a large text.
  return NEEDS_EXACT.some(([guard, pattern]) => body.includes(guard) && pattern.test(body))
}

/** Whether a node could begin at `at`: at the start of the text or after a blank or one of `-:,[{`. */
function mayStartNode(text: string, at: number): boolean {
  const before = at === 0 ? 32 : text.charCodeAt(at - 1)
  return isBlank(before) || NODE_OPENERS.has(before)
}

/** A space, tab, line break or the end of the text (NaN). */
const isBlank = (c: number) => c === 32 || c === 9 || c === 10 || c === 13 || Number.isNaN(c)

const GLUED_BEFORE_COMMENT = new Set([39 /* ' */, 34 /* " */, 93 /* ] */, 125 /* } */])

/** Whether anything but blanks follows the first line break between `at` and `end`. */
function spansLines(text: string, at: number, end: number): boolean {
  const lineEnd = text.indexOf('\n', at)
  return lineEnd !== -1 && lineEnd < end && text.slice(lineEnd, end).trim() !== ''
}

/** Could a plain scalar starting with this character be a number? (`[0-9+-.]`: most scalars are words.) */
const numeric = (s: string) => {
  const c = s.charCodeAt(0)
  return (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46
}

/**
 * YAML 1.2 core schema, resolved as `yaml` resolves it (js-yaml's own core types also accept `_`
 * in numbers and `0b` integers); `.inf`/`.nan` stop the fast path (JSON has no form for them).
 */
const isNull = (s: string | null) => s === null || s === '' || s === '~' || s === 'null' || s === 'Null' || s === 'NULL'
const isBool = (s: string | null) => s === 'true' || s === 'True' || s === 'TRUE' || s === 'false' || s === 'False' || s === 'FALSE'
const toBool = (s: string) => s[0] === 't' || s[0] === 'T'
const isInt = (s: string | null) => s !== null && numeric(s) && /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/.test(s)
const toInt = (s: string) => (s.startsWith('0o') ? parseInt(s.slice(2), 8) : s.startsWith('0x') ? parseInt(s.slice(2), 16) : parseInt(s, 10))
const isFloat = (s: string | null) =>
  s !== null &&
  numeric(s) &&
  /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+|[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/.test(s)
const toFloat = (s: string) => {
  if (/[iI][nN][fF]|[nN][aA][nN]/.test(s)) throw new Error('non-finite number')
  return parseFloat(s)
}

/**
 * `js-yaml`, loaded when the block reader first gives up: the contracts it reads (nearly all) never
 * need it, and its import was a twentieth of a fresh process's import and first NATS compile
 * (bench/cold-start.ts).
 */
const jsYaml = lazyRequire<typeof import('js-yaml')>('js-yaml')

let core: Schema | undefined
/** The YAML 1.2 core schema above as `js-yaml` takes it, made when `js-yaml` is first needed. */
function coreSchema(): Schema {
  if (core === undefined) {
    const { FAILSAFE_SCHEMA, Type } = jsYaml()
    core = FAILSAFE_SCHEMA.extend({
      implicit: [
        new Type('tag:yaml.org,2002:null', { kind: 'scalar', resolve: isNull, construct: () => null }),
        new Type('tag:yaml.org,2002:bool', { kind: 'scalar', resolve: isBool, construct: toBool }),
        new Type('tag:yaml.org,2002:int', { kind: 'scalar', resolve: isInt, construct: toInt }),
        new Type('tag:yaml.org,2002:float', { kind: 'scalar', resolve: isFloat, construct: toFloat }),
      ],
    })
  }
  return core
}

/** A plain scalar's value as `coreSchema()` resolves it (its implicit types in order): the block reader's scalars are exactly the `js-yaml` path's. */
export function plainScalar(s: string): unknown {
  if (isNull(s)) return null
  if (isBool(s)) return toBool(s)
  if (isInt(s)) return toInt(s)
  if (isFloat(s)) return toFloat(s)
  return s
}

class NotFast extends Error {}

/** Skips blanks, line breaks and comments from `offset`: where the node opened at `offset` begins. */
function nodeStart(text: string, offset: number): number {
  let i = offset
  for (;;) {
    const c = text.charCodeAt(i)
    if (c === 32 || c === 9 || c === 10 || c === 13) i++
    else if (c === 35 /* # */) {
      const end = text.indexOf('\n', i)
      if (end === -1) return text.length
      i = end + 1
    } else return i
  }
}

function previousNonBlank(text: string, offset: number): number {
  let i = offset - 1
  while (i >= 0 && /\s/.test(text[i]!)) i--
  return text.charCodeAt(i)
}

/**
 * Whether an `&`, `*`, `!` or `?` stands where a node could begin: at the start of the text or
 * after a blank or one of `-:,[{`. When none does, no node begins with one and the listener skips
 * that look at every node (bench/: a third of its cost); `*` inside a filter such as
 * `svc.*.>` or `?` inside a word does not count.
 */
function specialMayStartNode(text: string): boolean {
  for (const special of ['&', '*', '!', '?']) {
    for (let at = text.indexOf(special); at !== -1; at = text.indexOf(special, at + 1)) if (mayStartNode(text, at)) return true
  }
  return false
}

const NODE_OPENERS = new Set([45 /* - */, 58 /* : */, 44 /* , */, 91 /* [ */, 123 /* { */])

/**
 * Whether some string the parser makes of `text` could hold what `findCredential` finds. Without a
 * backslash (the only escape that makes a character the text does not show), each string is the
 * text's own characters with quotes doubled, indentation and line breaks changed: a credential in
 * it stands in the text with at most whitespace between its characters. Every marker holds five
 * dashes or `J0eXA` (the JWT header's base64url), and every nkey seed is `S`, its key type and 56 more
 * base32 characters (credential-scan.ts): a text with none of these, whitespace allowed between, yields no
 * string a scan would flag, and the raw text itself none either (its markers and seeds are the same
 * characters; a seed joined across a `\` line continuation needs the backslash). False positives
 * only cost the scans.
 */
export function valuesMayHoldCredential(text: string): boolean {
  if (text.includes('\\')) return true
  // Native searches for the first character, then a look at what follows (bench/: a regular
  // expression over a 1 MB text for each of the three was a few percent of the parse).
  for (let at = text.indexOf('-'); at !== -1; at = text.indexOf('-', at + 1)) if (spacedOut(text, at + 1, '----') !== -1) return true
  for (let at = text.indexOf('J'); at !== -1; at = text.indexOf('J', at + 1)) if (spacedOut(text, at + 1, '0eXA') !== -1) return true
  for (let at = text.indexOf('S'); at !== -1; at = text.indexOf('S', at + 1)) {
    const type = skipSpace(text, at + 1)
    if (!SEED_TYPES.includes(text[type] ?? '')) continue
    let next = type + 1
    let count = 0
    for (; count < 56; count++) {
      next = skipSpace(text, next)
      if (!isBase32(text.charCodeAt(next))) break
      next++
    }
    if (count === 56) return true
  }
  return false
}

/** The nkey seed key types (credential-scan.ts). */
const SEED_TYPES = 'UAONCX'
const isBase32 = (c: number) => (c >= 65 && c <= 90) /* A-Z */ || (c >= 50 && c <= 55) /* 2-7 */

/** Where `chars` ends when they follow `at` in order with only whitespace before each; -1 when they do not. */
function spacedOut(text: string, at: number, chars: string): number {
  let i = at
  for (let k = 0; k < chars.length; k++) {
    i = skipSpace(text, i)
    if (text.charCodeAt(i) !== chars.charCodeAt(k)) return -1
    i++
  }
  return i
}

/** The first offset at or after `at` that is not whitespace (as `\s` reads it, which the credential scan takes out). */
function skipSpace(text: string, at: number): number {
  let i = at
  for (;;) {
    const c = text.charCodeAt(i)
    if (c === 32 || (c >= 9 && c <= 13) || (c >= 0x80 && WHITESPACE.test(text[i]!))) i++
    else return i
  }
}

const WHITESPACE = /\s/

/**
 * The document's value and collection positions, or undefined when only the exact path can read it.
 * `regions`: the regions the last parse of the same file read (yaml-regions.ts), to take the
 * unchanged ones from.
 */
export function loadFastYaml(text: string, regions?: YamlRegions): FastYaml | undefined {
  if (needsExact(text)) return undefined
  // A document that uses no scalar containing a credential's characters is not scanned string by
  // string (bench/: a tenth of the parse).
  const scanStrings = valuesMayHoldCredential(text)
  return blockYaml(text, scanStrings, regions) ?? loadWithJsYaml(text, scanStrings)
}

/**
 * The document's value and collection positions read by `js-yaml` (what `loadFastYaml` does when
 * the block reader gives up; exported for the differential test of the two), or undefined.
 */
export function loadFastYamlWithJsYaml(text: string): FastYaml | undefined {
  return needsExact(text) ? undefined : loadWithJsYaml(text, valuesMayHoldCredential(text))
}

function loadWithJsYaml(text: string, scanStrings: boolean): FastYaml | undefined {
  const closed = new ClosedCollections()
  let last: unknown
  const opened: number[] = []
  // `? ` where a node could begin: an explicit key, whose key may be a mapping or a sequence (js-yaml
  // makes such a key a string, "[object Object]"), or the same characters inside a scalar ("Pourquoi
  // ? ..."). js-yaml reads the indicator itself, so no node begins with it; each one found inside a
  // scalar is struck off below, and one left over sends the document to the exact path.
  const explicitKeys = explicitKeyCandidates(text)
  // The newline after a position, remembered for the line it was found on: nodes close in
  // increasing order, and searching from each to the end of its line was quadratic on one long
  // line (a 5.9 MB flow mapping took 37 s).
  let lineFrom = Infinity
  let knownLineEnd = -1
  const lineEndAfter = (position: number): number => {
    if (position >= lineFrom && (knownLineEnd === -1 || position <= knownLineEnd)) return knownLineEnd
    lineFrom = position
    knownLineEnd = text.indexOf('\n', position)
    return knownLineEnd
  }
  const root = text.charCodeAt(nodeStart(text, 0))
  // In a document that is one flow collection (JSON written as YAML) indentation is free.
  const flowDocument = root === 123 /* { */ || root === 91 /* [ */
  /**
   * Whether the innermost flow collection around the closing node (which starts at `at`) is a
   * mapping. A node opened twice (nested calls) is still on the stack once: it starts at `at`.
   */
  const insideFlowMapping = (at: number) => {
    for (let i = opened.length - 1; i >= 0; i--) {
      const start = nodeStart(text, opened[i]!)
      if (start >= at) continue
      const c = text.charCodeAt(start)
      if (c === 123 /* { */) return true
      if (c === 91 /* [ */) return false
    }
    return false
  }
  // js-yaml calls the listener when a node opens and when it closes (sometimes twice for one node,
  // from nested calls); `state.position` is where the node ends on close.
  const mayBeSpecial = specialMayStartNode(text)
  // Every string of the value, keys included, is some node's result when it closes (no aliases or
  // merges on this path): scanned here, where the parser made it, instead of in a walk afterwards.
  let mayHoldCredential = false
  const holdsCredential = credentialScan()
  const listener = (event: 'open' | 'close', state: State) => {
    if (event === 'open') {
      if (!mayBeSpecial) {
        opened.push(state.position)
        return
      }
      // A node that begins with an anchor (&), an alias (*) or a tag (!) is the exact path's:
      // js-yaml resolves them differently or not at all.
      const first = text.charCodeAt(nodeStart(text, state.position))
      if (first === 38 || first === 42 || first === 33) throw new NotFast()
      opened.push(state.position)
      return
    }
    const open = opened.pop()!
    const end = state.position
    const result: unknown = state.result
    // A comment glued to a closing quote or bracket (`'a'#b`) is an error js-yaml lets through.
    if (text.charCodeAt(end) === 35 /* # */ && GLUED_BEFORE_COMMENT.has(text.charCodeAt(end - 1))) throw new NotFast()
    if (result !== null && typeof result === 'object') {
      // A node closed twice (nested calls) closes twice in a row.
      if (result === last) return
      last = result
      const at = nodeStart(text, open)
      const first = text.charCodeAt(at)
      if (first === 123 /* { */ || first === 91 /* [ */) {
        if (!flowDocument && spansLines(text, at, end)) throw new NotFast()
        // A flow collection followed by `:`, or in a flow mapping not after one (`{ [a] }`), is a
        // key: js-yaml turns it into a string ("[object Object]"); JSON has no such key, and the
        // exact path reports it. (Block collections are keys only after `? `: explicitKeys.)
        if (text.charCodeAt(nodeStart(text, end)) === 58 /* : */) throw new NotFast()
        if (previousNonBlank(text, at) !== 58 /* : */ && insideFlowMapping(at)) throw new NotFast()
      }
      closed.add(at, opened.length)
      return
    }
    if (scanStrings && !mayHoldCredential && typeof result === 'string' && holdsCredential(result)) mayHoldCredential = true
    if (explicitKeys.left > 0) explicitKeys.strike(nodeStart(text, open), end)
    const lineEnd = lineEndAfter(open)
    const multiline = lineEnd !== -1 && lineEnd < end
    if (!multiline && typeof result === 'string') return
    const at = nodeStart(text, open)
    const first = text.charCodeAt(at)
    if (multiline && !flowDocument && first !== 124 /* | */ && first !== 62 /* > */ && spansLines(text, at, end)) throw new NotFast()
    if (typeof result !== 'string') {
      // A plain scalar that is not a string followed by `:` is a key: JSON has no such key, and the
      // exact path reports it (js-yaml would silently turn it into a string).
      let i = end
      while (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9) i++
      if (text.charCodeAt(i) === 58 /* : */) throw new NotFast()
      // In a flow mapping, a scalar not right after `:` is a key with an implied null value (`{ 3 }`).
      if (previousNonBlank(text, at) !== 58 /* : */ && insideFlowMapping(at)) throw new NotFast()
    }
  }
  let value: unknown
  try {
    // Nesting near the limit is left to the exact path, which reports it precisely.
    const { load } = jsYaml()
    value = load(text, { schema: coreSchema(), listener, maxDepth: LIMITS.depth - 4 } as Parameters<typeof load>[1])
  } catch {
    // Duplicate keys, syntax errors, depth, non-finite numbers: all reported by the exact path.
    return undefined
  }
  if (value === null || typeof value !== 'object' || explicitKeys.left > 0) return undefined
  if (!mayHoldCredential) credentialFree.add(value)
  if (!scanStrings) credentialFreeText.add(value)
  return { value, start: (pointer) => closed.start(value, pointer), mayHoldCredential }
}

/**
 * Whether a string holds what `findCredential` finds. Long strings repeat (a description on every
 * channel): each distinct one is scanned once, as `decodedCredential` does.
 */
function credentialScan(): (value: string) => boolean {
  const scannedLong = new Set<string>()
  return (value) => {
    if (value.length < LONG_STRING) return findCredential(value) !== undefined
    if (scannedLong.has(value)) return false
    scannedLong.add(value)
    return findCredential(value) !== undefined
  }
}

/** The document read by the block reader (yaml-block.ts), or undefined when it is outside the reader's subset. */
function blockYaml(text: string, scanStrings: boolean, regions: YamlRegions | undefined): FastYaml | undefined {
  let mayHoldCredential = false
  const holdsCredential = credentialScan()
  const onString = (s: string) => {
    if (scanStrings && !mayHoldCredential && holdsCredential(s)) mayHoldCredential = true
  }
  // A region taken from the last parse passes none of its strings: taken only when none is scanned.
  const read = readBlockYaml(text, plainScalar, onString, scanStrings ? undefined : regions)
  if (!read) return undefined
  const { value, closed } = read
  if (!mayHoldCredential) credentialFree.add(value)
  if (!scanStrings) credentialFreeText.add(value)
  return { value, start: (pointer) => closed.start(value, pointer), mayHoldCredential }
}

/**
 * Offsets of each `?` that is followed by a blank and stands where a node could begin, in
 * increasing order; `strike` removes those inside a scalar by binary search, so each costs
 * O(log n) instead of a look at every candidate per scalar.
 */
function explicitKeyCandidates(text: string): { left: number; strike(from: number, to: number): void } {
  const found: number[] = []
  for (let at = text.indexOf('?'); at !== -1; at = text.indexOf('?', at + 1)) if (isBlank(text.charCodeAt(at + 1)) && mayStartNode(text, at)) found.push(at)
  const struck = new Uint8Array(found.length)
  const candidates = {
    left: found.length,
    strike(from: number, to: number) {
      let lo = 0
      let hi = found.length
      while (lo < hi) {
        const mid = (lo + hi) >>> 1
        if (found[mid]! < from) lo = mid + 1
        else hi = mid
      }
      for (let i = lo; i < found.length && found[i]! < to; i++) {
        if (struck[i]) continue
        struck[i] = 1
        candidates.left--
      }
    },
  }
  return candidates
}
