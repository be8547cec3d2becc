import { FAILSAFE_SCHEMA, load, Type, type State } from 'js-yaml'
import { LIMITS } from './limits.js'

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
  /** Start offset of every mapping and sequence, by identity. */
  starts: WeakMap<object, number>
}

// Anything the fast path does not reproduce exactly, found before parsing: an anchor, alias, tag or
// explicit key indicator where a node may begin, a directive or document marker after the first
// line, a byte order mark, and an escape that may produce an unpaired surrogate. False positives
// only cost speed.
const NEEDS_EXACT = /(?:^|[\s[{,])[&*!]|(?:^|[\s[{,])\?(?=\s|$)|\n(?:%|---|\.\.\.)|^%|\\[uU]0{0,4}[dD][89a-fA-F]|^\uFEFF|(?:^|[\s[{,-])[ \t]*:(?=[\s]|$)/m

/** YAML 1.2 core schema, resolved as `yaml` resolves it; `.inf`/`.nan` stop the fast path (JSON has no form for them). */
const CORE = FAILSAFE_SCHEMA.extend({
  implicit: [
    new Type('tag:yaml.org,2002:null', { kind: 'scalar', resolve: (s: string | null) => s === null || /^(?:~|[Nn]ull|NULL)?$/.test(s), construct: () => null }),
    new Type('tag:yaml.org,2002:bool', { kind: 'scalar', resolve: (s: string | null) => s !== null && /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/.test(s), construct: (s: string) => s[0] === 't' || s[0] === 'T' }),
    new Type('tag:yaml.org,2002:int', {
      kind: 'scalar',
      resolve: (s: string | null) => s !== null && /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/.test(s),
      construct: (s: string) => (s.startsWith('0o') ? parseInt(s.slice(2), 8) : s.startsWith('0x') ? parseInt(s.slice(2), 16) : parseInt(s, 10)),
    }),
    new Type('tag:yaml.org,2002:float', {
      kind: 'scalar',
      resolve: (s: string | null) => s !== null && /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+|[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/.test(s),
      construct: (s: string) => {
        if (/[iI][nN][fF]|[nN][aA][nN]/.test(s)) throw new Error('non-finite number')
        return parseFloat(s)
      },
    }),
  ],
})

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

function reachableCollections(root: object): number {
  let count = 0
  const stack: object[] = [root]
  while (stack.length > 0) {
    const node = stack.pop()!
    count++
    const children = Array.isArray(node) ? node : Object.values(node)
    for (const child of children) if (child !== null && typeof child === 'object') stack.push(child)
  }
  return count
}

function previousNonBlank(text: string, offset: number): number {
  let i = offset - 1
  while (i >= 0 && /\s/.test(text[i]!)) i--
  return text.charCodeAt(i)
}

/** The document's value and collection positions, or undefined when only the exact path can read it. */
export function loadFastYaml(text: string): FastYaml | undefined {
  if (NEEDS_EXACT.test(text)) return undefined
  const starts = new WeakMap<object, number>()
  const opened: number[] = []
  let collections = 0
  const root = text.charCodeAt(nodeStart(text, 0))
  const flowDocument = root === 123 /* { */ || root === 91 /* [ */
  /** Whether the innermost flow collection around the closing node is a mapping. */
  const insideFlowMapping = () => {
    for (let i = opened.length - 1; i >= 0; i--) {
      const c = text.charCodeAt(nodeStart(text, opened[i]!))
      if (c === 123 /* { */) return true
      if (c === 91 /* [ */) return false
    }
    return false
  }
  const listener = (event: 'open' | 'close', state: State) => {
    if (event === 'open') {
      opened.push(state.position)
      return
    }
    const at = nodeStart(text, opened.pop()!)
    const result: unknown = state.result
    // A flow node (quoted or plain scalar, `{...}`, `[...]`) continued on another line must be
    // indented past its block parent; js-yaml does not check, so such nodes go to the exact path
    // (unless the whole document is one flow collection, where indentation is free).
    if (!flowDocument && state.position > at) {
      const first = text.charCodeAt(at)
      if (first !== 124 /* | */ && first !== 62 /* > */ && (result === null || typeof result !== 'object' || first === 123 /* { */ || first === 91) /* [ */) {
        const lineEnd = text.indexOf('\n', at)
        if (lineEnd !== -1 && lineEnd < state.position && text.slice(lineEnd, state.position).trim() !== '') throw new NotFast()
      }
    }
    // A comment glued to a closing quote or bracket (`'a'#b`) is an error js-yaml lets through.
    if (text.charCodeAt(state.position) === 35 /* # */) throw new NotFast()
    if (result !== null && typeof result === 'object') {
      if (!starts.has(result)) {
        starts.set(result, at)
        collections++
      }
    } else if (typeof result !== 'string') {
      // A plain scalar that is not a string followed by `:` is a key: JSON has no such key, and the
      // exact path reports it (js-yaml would silently turn it into a string).
      let i = state.position
      while (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9) i++
      if (text.charCodeAt(i) === 58 /* : */) throw new NotFast()
      // In a flow mapping, a scalar not right after `:` is a key with an implied null value (`{ 3 }`).
      if (insideFlowMapping() && previousNonBlank(text, at) !== 58 /* : */) throw new NotFast()
    }
  }
  let value: unknown
  try {
    // Nesting near the limit is left to the exact path, which reports it precisely.
    value = load(text, { schema: CORE, listener, maxDepth: LIMITS.depth - 4 } as Parameters<typeof load>[1])
  } catch {
    // Duplicate keys, syntax errors, depth, non-finite numbers: all reported by the exact path.
    return undefined
  }
  if (value === null || typeof value !== 'object') return undefined
  // A mapping or sequence used as a key becomes a string in js-yaml ("[object Object]"): it was
  // parsed but is not in the value. JSON has no such key; the exact path reports it.
  if (reachableCollections(value) !== collections) return undefined
  return { value, starts }
}
