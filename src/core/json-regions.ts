/**
 * The containers one parse of a JSON document read, kept with their offsets for the next parse of
 * the same file (a dev server or a watch build recompiles a whole document on every save, and an
 * edit changes one part of it). `JSON.parse` makes every object afresh; after it, each object or
 * array at depth 1 to `JSON_REGION_DEPTH` whose text lies wholly before or wholly after the part of
 * the text the edit changed is replaced by the value the last parse read from that same text: the
 * same object, so that what a later stage keeps by identity (a schema's JSON text, its references,
 * a rule's verdict) is found again without being made again. The same text is the same JSON value,
 * so the document is the one `JSON.parse` read, only its unchanged parts shared with the last one.
 *
 * Values are shared, so nothing may change them once parsed (every stage reads them only).
 *
 * An edit inside one kept container is read from that container's text alone (`reread`): the rest
 * of the document is the last parse's value, the containers enclosing it copied around the new one.
 *
 * Cost: the common prefix and suffix of the two texts compared in blocks, then either the edited
 * container's text scanned and parsed and the kept containers listed again (`reread`), or one scan
 * of the whole text (strings jumped over by `indexOf`) and a lookup per container at the kept depths
 * (`share`): linear in the text. What is held is the last parse's value and a record per kept
 * container (at most `MAX_SPANS`).
 */
import { mayOverflowNumber } from './limits.js'
import { stringEnd } from './json-scan.js'
import { LastPerFile } from './memo.js'

/** Containers are shared this deep (the document's sections, their entries and those entries' members). */
export const JSON_REGION_DEPTH = 3

/**
 * At most this many containers are recorded by a scan (a 5,000-topic contract has about 30,000 at
 * the kept depths): a hostile text of millions of tiny arrays would otherwise keep a record and a
 * path for each. Past it the rest of the text is scanned as before, its containers read afresh.
 */
export const MAX_SPANS = 200_000

/**
 * A container of the text: its offsets (the opening and one past the closing bracket), its path of
 * keys and indexes, and, once a parse has read it, its value.
 */
interface Span {
  start: number
  end: number
  path: Array<string | number>
  value?: object
}

/** What the last parse read: its text, its value and its containers (with their values). */
interface Last {
  text: string
  root: object
  spans: Span[]
  byStart?: Map<number, Span>
}

export class JsonRegions {
  private last: Last | undefined
  /** Containers shared with the last parse, in the last call (tests and benchmarks read it). */
  taken = 0
  /** Texts read by `reread` (one container's text, not the whole), over this object's life (tests read it). */
  rereads = 0

  /**
   * `value` is what `JSON.parse` read from `text` (a valid document with no duplicate key), `spans`
   * its containers (`scanJson`): those whose text is unchanged since the last parse become the
   * values read then, in place.
   * Returns `value`, changed so; keeps what this parse read for the next one.
   */
  share(text: string, value: unknown, spans: readonly Span[]): unknown {
    this.taken = 0
    if (typeof value !== 'object' || value === null) {
      this.last = undefined
      return value
    }
    const last = this.last
    const byStart =
      last === undefined ? undefined : (last.byStart ??= new Map(last.spans.flatMap((s) => (s.value === undefined ? [] : [[s.start, s] as const]))))
    const prefix = last === undefined ? 0 : commonPrefix(last.text, text)
    const suffix = last === undefined ? 0 : commonSuffix(last.text, text, prefix)
    const shift = last === undefined ? 0 : text.length - last.text.length
    // Spans come in the order they open, so an outer one is seen before those inside it; the
    // containers enclosing the one at hand are on `enclosing`, with their values (no walk from the root).
    let sharedUntil = -1
    const enclosing: Array<{ end: number; depth: number; value: object }> = []
    for (const span of spans) {
      while (enclosing.length > 0 && enclosing[enclosing.length - 1]!.end <= span.start) enclosing.pop()
      const depth = span.path.length
      const outer = enclosing[enclosing.length - 1]
      const parent = depth === 1 ? value : outer !== undefined && outer.depth === depth - 1 ? outer.value : at(value, span.path, depth - 1)
      const key = span.path[depth - 1]!
      if (parent === undefined || key === '__proto__') continue
      if (last !== undefined && span.start >= sharedUntil) {
        // Unchanged text: wholly in the common prefix (same offsets) or in the common suffix (shifted).
        const before = span.end <= prefix ? 0 : span.start >= text.length - suffix ? shift : undefined
        const kept = before === undefined ? undefined : byStart!.get(span.start - before)
        if (kept?.value !== undefined && kept.end === span.end - before!) {
          ;(parent as Record<string | number, unknown>)[key] = kept.value
          sharedUntil = span.end
          this.taken++
        }
      }
      const current = (parent as Record<string | number, unknown>)[key]
      if (typeof current === 'object' && current !== null) {
        span.value = current
        enclosing.push({ end: span.end, depth, value: current })
      }
    }
    this.last = { text, root: value, spans: spans as Span[] }
    return value
  }

  /**
   * The value of `text` read from the last parse's, when the edit since lies inside one container
   * that parse read (its brackets unchanged): only that container's text is scanned and parsed, and
   * the containers enclosing it are copied with it in their place; everything else is the last
   * parse's value. Undefined (read the whole text) when no kept container encloses the edit, or when
   * the container's new text is not plain valid JSON (a syntax error, a duplicate key, a lone
   * surrogate escape, a number out of range, nesting past `limit`): the whole text's reading then
   * reports it. The same value `JSON.parse` reads from `text`: one JSON value replaced by another in
   * a valid document leaves a valid document, the rest of it the same text.
   */
  reread(text: string, limit: number): object | undefined {
    const last = this.last
    if (last === undefined) return undefined
    const prefix = commonPrefix(last.text, text)
    if (prefix === text.length && prefix === last.text.length) return undefined
    const suffix = commonSuffix(last.text, text, prefix)
    const changedEnd = last.text.length - suffix
    // The innermost kept container whose opening bracket is before the change and whose closing one after it.
    let inner = -1
    for (let i = 0; i < last.spans.length; i++) {
      const span = last.spans[i]!
      if (span.start >= prefix) break
      if (span.value !== undefined && span.end - 1 >= changedEnd) inner = i
    }
    if (inner === -1) return undefined
    const enclosing = last.spans[inner]!
    const { path } = enclosing
    if (path.includes('__proto__')) return undefined
    const shift = text.length - last.text.length
    const start = enclosing.start
    const end = enclosing.end + shift
    const scan = scanRange(text, limit, start, end, path)
    if (scan.deep !== -1) return undefined
    const slice = text.slice(start, end)
    if (/\\u[dD][89a-fA-F]/.test(slice) || mayOverflowNumber(slice)) return undefined
    let value: unknown
    try {
      value = JSON.parse(slice)
    } catch {
      return undefined
    }
    if (typeof value !== 'object' || value === null || countKeys(value) !== scan.keys) return undefined
    // The containers on the path copied, each with the next in its place.
    const root = copied(last.root)
    const copies: object[] = []
    let parent = root as Record<string | number, unknown>
    for (let i = 0; i < path.length - 1; i++) {
      const child = copied(parent[path[i]!] as object)
      parent[path[i]!] = child
      copies.push(child)
      parent = child as Record<string | number, unknown>
    }
    parent[path[path.length - 1]!] = value
    // The containers: those before it as they were, those enclosing it (copied, ending later), the
    // ones it holds as just read, those after it shifted.
    const spans: Span[] = []
    let i = 0
    for (; i < inner; i++) {
      const span = last.spans[i]!
      spans.push(span.end <= start ? span : { start: span.start, end: span.end + shift, path: span.path, value: copies[span.path.length - 1] })
    }
    for (const span of scan.spans) {
      const held = at(value, span.path.slice(path.length), span.path.length - path.length)
      if (held !== undefined) span.value = held
      spans.push(span)
    }
    for (i = inner + 1; i < last.spans.length && last.spans[i]!.start < enclosing.end; i++);
    for (; i < last.spans.length; i++) {
      const span = last.spans[i]!
      spans.push({ start: span.start + shift, end: span.end + shift, path: span.path, value: span.value })
    }
    this.taken = spans.length - scan.spans.length
    this.rereads++
    this.last = { text, root, spans }
    return root
  }

  clear(): void {
    this.last = undefined
  }
}

/** Each file's `JsonRegions`, for the files parsed last. */
export class JsonRegionsByFile {
  private readonly files = new LastPerFile<JsonRegions>()

  of(file: string): JsonRegions {
    let regions = this.files.get(file)
    if (regions === undefined) regions = new JsonRegions()
    this.files.set(file, regions)
    return regions
  }

  clear(): void {
    this.files.clear()
  }
}

/** A container's shallow copy: its members in their order (a member named `__proto__` stays an own member). */
function copied(value: object): object {
  return Array.isArray(value) ? value.slice() : { ...value }
}

/** Every own key of every object in a parsed JSON value. */
export function countKeys(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0
  let n = 0
  if (Array.isArray(value)) for (const item of value) n += countKeys(item)
  else for (const key in value) n += 1 + countKeys((value as Record<string, unknown>)[key])
  return n
}

/** The value at the first `length` steps of `path` in `value`, when each step names a container's member. */
function at(value: unknown, path: ReadonlyArray<string | number>, length: number): object | undefined {
  let current = value
  for (let i = 0; i < length; i++) {
    if (typeof current !== 'object' || current === null) return undefined
    const step = path[i]!
    if (!Object.hasOwn(current, step)) return undefined
    current = (current as Record<string | number, unknown>)[step]
  }
  return typeof current === 'object' && current !== null ? current : undefined
}

/** What one scan of a JSON text finds (`scanJson`). */
export interface JsonScan {
  /** The offset of the first container nested deeper than the limit, or -1. */
  deep: number
  /** The key tokens (strings where an object's key stands); for a valid text, its keys. */
  keys: number
  /** The containers at depths 1 to `JSON_REGION_DEPTH`, in the order they open, with their paths (only when `deep` is -1). */
  spans: Span[]
}

/**
 * One scan of a JSON text for what reading it needs: the depth limit (the scan stops at the first
 * container past it, as `tooDeepJson` does), the key count that proves a parse dropped no duplicate
 * key (as `countKeyTokens`), and the containers `JsonRegions.share` may share. What it finds is
 * meaningful only for a text `JSON.parse` accepts. Keys are read only where a container at a kept
 * depth opens under them.
 */
export function scanJson(text: string, limit: number): JsonScan {
  return scanRange(text, limit, 0, text.length, [])
}

/**
 * `scanJson` over `text` from `from` to `to`, where a container at `path` (its depth the path's
 * length) opens at `from`: offsets are the whole text's, depths and paths the document's.
 */
function scanRange(text: string, limit: number, from: number, to: number, path0: Array<string | number>): JsonScan {
  const spans: Span[] = []
  // The open containers down to the kept depths: whether each is an array, its current member
  // index, its current key's offsets, and the span it records (if kept). Deeper ones only count.
  const arrays: boolean[] = []
  const indexes: number[] = []
  const keyStart: number[] = []
  const keyEnd: number[] = []
  const open: Array<Span | undefined> = []
  let depth = path0.length
  let keys = 0
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i)
    // Whitespace first: most of a formatted document's characters outside its strings.
    if (c <= 32) continue
    if (c === 34 /* " */) {
      const j = stringEnd(text, i)
      // A key is a string followed by a colon (as `countKeyTokens` counts them).
      let k = j + 1
      let after = text.charCodeAt(k)
      while (after === 32 || after === 9 || after === 10 || after === 13) after = text.charCodeAt(++k)
      if (after === 58 /* : */) {
        keys++
        if (depth >= 1 && depth <= JSON_REGION_DEPTH) {
          keyStart[depth - 1] = i
          keyEnd[depth - 1] = j
        }
        i = k
      } else i = j
    } else if (c === 44 /* , */) {
      if (depth >= 1 && depth <= JSON_REGION_DEPTH && arrays[depth - 1]) indexes[depth - 1]!++
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (depth >= limit) return { deep: i, keys, spans: [] }
      if (depth >= 0 && depth <= JSON_REGION_DEPTH) {
        let span: Span | undefined
        if (depth >= 1 && spans.length < MAX_SPANS) {
          // The enclosing container's path (its span's, when it has one) and this one's step.
          const step = (d: number) => (arrays[d] ? indexes[d]! : keyText(text, keyStart[d]!, keyEnd[d]!))
          const outer = open[depth - 1]
          let path: Array<string | number> | undefined
          if (i === from && path0.length > 0) path = path0
          else if (outer !== undefined) path = [...outer.path, step(depth - 1)]
          else if (path0.length === 0) {
            path = []
            for (let d = 0; d < depth; d++) path.push(step(d))
          }
          if (path !== undefined) {
            span = { start: i, end: -1, path }
            spans.push(span)
          }
        }
        open[depth] = span
        arrays[depth] = c === 91
        indexes[depth] = 0
      }
      depth++
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      // As `tooDeepJson` counts (below zero on a text that closes more than it opened: not JSON).
      depth--
      if (depth >= 0 && depth <= JSON_REGION_DEPTH) {
        const span = open[depth]
        if (span !== undefined) span.end = i + 1
      }
    }
  }
  return { deep: -1, keys, spans }
}

/** A key's value from its quotes' offsets: the text between them unless it holds an escape. */
function keyText(text: string, open: number, close: number): string {
  const raw = text.slice(open + 1, close)
  return raw.includes('\\') ? (JSON.parse(text.slice(open, close + 1)) as string) : raw
}

/** Characters compared at once by the block comparisons (native string equality on slices). */
const BLOCK = 4096

/** The length of the longest common prefix of `a` and `b`. */
export function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i + BLOCK <= n && a.slice(i, i + BLOCK) === b.slice(i, i + BLOCK)) i += BLOCK
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}

/** The length of the longest common suffix of `a` and `b` that does not overlap a common prefix of `prefix` characters. */
export function commonSuffix(a: string, b: string, prefix: number): number {
  const n = Math.min(a.length, b.length) - prefix
  let i = 0
  while (i + BLOCK <= n && a.slice(a.length - i - BLOCK, a.length - i) === b.slice(b.length - i - BLOCK, b.length - i)) i += BLOCK
  while (i < n && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i)) i++
  return i
}
