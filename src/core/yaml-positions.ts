import { unescapeToken } from '../runtime/shared/json-pointer.js'

/**
 * A region's record (yaml-regions.ts): the start and depth of each collection it holds, in the order
 * they closed, each entry kept once. Its own entries are copied; the entries of each region read or
 * taken inside it are that region's run, spliced in where they closed (a region's collections close
 * one after the other, so each inner run is one stretch of its parent's). A region kept at each of
 * three depths then holds its entries once, not three times, and no region holds its parse's whole
 * record (a region edited again and again leaves stale copies of itself behind, each of which would
 * keep a whole document's record).
 */
export interface ClosedRun {
  /** The region's own entries (none of an inner run's), offsets as recorded. */
  readonly offsets: Int32Array
  readonly depths: Int32Array
  /** Where the region started in the text its entries were recorded from. */
  readonly origin: number
  /** The inner runs, in order: each after `at` of the own entries, its region `rel` characters after this one's start. */
  readonly inner: ReadonlyArray<{ readonly at: number; readonly rel: number; readonly run: ClosedRun }>
  /** Every entry, the inner runs' included. */
  readonly count: number
}

/** A run recorded inside the region being read: where its entries begin in the record, and where its region starts in the text. */
export interface InnerRun {
  readonly index: number
  readonly start: number
  readonly run: ClosedRun
}

/**
 * Where the mappings and sequences of a parsed YAML value start, recorded as the parser closes them
 * (children before their parent, siblings in document order) with their nesting depth, and found
 * again from a JSON Pointer by walking that record and the value side by side.
 *
 * Design note (bench/: a NATS compile within 4x of a raw `js-yaml` load): a Map from each
 * collection to its offset, filled while parsing, cost a sixth of the parse, because the parser's
 * young objects were stored into a structure the GC had already promoted. This keeps numbers only;
 * a lookup reads the entries under each collection on its path once (cached), which for the source
 * backlinks of a contract is a few parents (`/channels`, `/operations`, ...), not every collection.
 */
export class ClosedCollections {
  // Typed arrays grown by doubling: off the GC heap, and a 5,000-channel contract closes some
  // 70,000 collections (pushing onto plain arrays that large showed in the profile, bench/).
  private offsets = new Int32Array(1024)
  private depths = new Int32Array(1024)
  private count = 0
  /** Entry -> its children's entries, in document order. */
  private readonly children = new Map<number, Int32Array>()
  /** Entry -> member name -> ordinal among the members that are collections. */
  private readonly ordinals = new Map<number, Map<string, number> | null>()

  add(offset: number, depth: number): void {
    if (this.count === this.offsets.length) this.reserve(this.count + 1)
    this.offsets[this.count] = offset
    this.depths[this.count] = depth
    this.count++
  }

  /** How many collections have been recorded. */
  get size(): number {
    return this.count
  }

  /**
   * The run of the entries recorded from `from` on, for a region that starts at `origin`: its own
   * entries copied, and `inner` (the runs recorded inside it, in order) spliced in where they are.
   */
  since(from: number, origin: number, inner: readonly InnerRun[]): ClosedRun {
    const count = this.count
    let own = count - from
    for (const { run } of inner) own -= run.count
    const offsets = new Int32Array(own)
    const depths = new Int32Array(own)
    const splices: Array<{ at: number; rel: number; run: ClosedRun }> = []
    // Copied entry by entry: the stretches between inner runs are a few entries each, and a typed
    // array view made for each stretch cost more than the copy.
    let copied = 0
    const copy = (to: number) => {
      for (; at < to; at++, copied++) {
        offsets[copied] = this.offsets[at]!
        depths[copied] = this.depths[at]!
      }
    }
    let at = from
    for (const { index, start, run } of inner) {
      copy(index)
      splices.push({ at: copied, rel: start - origin, run })
      at = index + run.count
    }
    copy(count)
    return { offsets, depths, origin, inner: splices, count: count - from }
  }

  /** Records the entries of `run` again, for its region now standing at `origin` (inner runs at theirs). */
  addAll(run: ClosedRun, origin: number): void {
    this.reserve(this.count + run.count)
    this.fill(run, origin)
  }

  /** `addAll` once the arrays hold room for the run: its own entries and, where they closed, its inner runs'. */
  private fill(run: ClosedRun, origin: number): void {
    const shift = origin - run.origin
    const { offsets, depths, inner } = run
    let next = 0
    for (let i = 0; i < offsets.length; i++) {
      while (next < inner.length && inner[next]!.at === i) {
        const splice = inner[next++]!
        this.fill(splice.run, origin + splice.rel)
      }
      this.offsets[this.count] = offsets[i]! + shift
      this.depths[this.count] = depths[i]!
      this.count++
    }
    while (next < inner.length) {
      const splice = inner[next++]!
      this.fill(splice.run, origin + splice.rel)
    }
  }

  /** Grows the arrays (by doubling) to hold at least `size` entries. */
  private reserve(size: number): void {
    if (size <= this.offsets.length) return
    let length = this.offsets.length * 2
    while (length < size) length *= 2
    const offsets = new Int32Array(length)
    offsets.set(this.offsets.subarray(0, this.count))
    this.offsets = offsets
    const depths = new Int32Array(length)
    depths.set(this.depths.subarray(0, this.count))
    this.depths = depths
  }

  /**
   * Start offset of the mapping or sequence at `pointer` in `root` (the value these entries were
   * recorded for), or undefined when the pointer names none, or when the record cannot answer
   * exactly (an object with an integer-like key, which JavaScript lists first whatever the
   * document's order; a parser that nested its calls for one node).
   */
  start(root: unknown, pointer: string): number | undefined {
    let entry = this.count - 1
    if (entry < 0 || this.depths[entry] !== 0 || root === null || typeof root !== 'object') return undefined
    let node: object = root
    let at = 1
    // Backlinks come in runs of siblings (`/channels/a`, `/channels/b`, ...): the walk to the last
    // parent is kept, and a pointer one token below it starts there.
    const parent = this.lastParent
    const sibling =
      parent !== undefined &&
      pointer.length > parent.pointer.length + 1 &&
      pointer.startsWith(parent.pointer) &&
      pointer.charCodeAt(parent.pointer.length) === 47 &&
      pointer.indexOf('/', parent.pointer.length + 1) === -1
    if (sibling) {
      entry = parent.entry
      node = parent.node
      at = parent.pointer.length + 1
    }
    // Token by token without splitting the pointer first: every source backlink asks (bench/).
    for (; at <= pointer.length && pointer !== '';) {
      let end = pointer.indexOf('/', at)
      if (end === -1) end = pointer.length
      const raw = pointer.slice(at, end)
      const token = raw.includes('~') ? unescapeToken(raw) : raw
      at = end + 1
      // The ordinals hold exactly the members that are collections (array items by index).
      const ordinal = this.ordinalsOf(entry, node)?.get(token)
      const children = this.childrenOf(entry)
      if (ordinal === undefined || ordinal >= children.length) return undefined
      const last = end === pointer.length
      if (last && !sibling) this.lastParent = { pointer: pointer.slice(0, at - 1 - raw.length - 1), entry, node }
      entry = children[ordinal]!
      if (!last) node = (Array.isArray(node) ? node[Number(token)] : (node as Record<string, unknown>)[token]) as object
    }
    return this.offsets[entry]
  }

  /** Where the last lookup's parent was found (its pointer, entry and value). */
  private lastParent: { pointer: string; entry: number; node: object } | undefined

  /** The entries of the collections directly inside `entry`, in document order. */
  private childrenOf(entry: number): Int32Array {
    let found = this.children.get(entry)
    if (found === undefined) {
      const depth = this.depths[entry]!
      const out: number[] = []
      for (let i = entry - 1; i >= 0 && this.depths[i]! > depth; i--) if (this.depths[i] === depth + 1) out.push(i)
      found = Int32Array.from(out.reverse())
      this.children.set(entry, found)
    }
    return found
  }

  /** For the collection `node` recorded at `entry`: each member that is a collection, by name, with its ordinal. */
  private ordinalsOf(entry: number, node: object): Map<string, number> | null {
    let found = this.ordinals.get(entry)
    if (found === undefined) {
      found = new Map()
      const keys = Array.isArray(node) ? node.map((_, i) => String(i)) : Object.keys(node)
      for (const key of keys) {
        const c = key.charCodeAt(0)
        // JavaScript lists integer-like keys first: their document order is lost.
        if (!Array.isArray(node) && c >= 48 && c <= 57 && /^(?:0|[1-9][0-9]*)$/.test(key) && Number(key) < 4294967295) {
          found = null
          break
        }
        const value = (node as Record<string, unknown>)[key]
        if (value !== null && typeof value === 'object') found.set(key, found.size)
      }
      // The record must hold exactly as many collections directly inside: otherwise it is not this node's.
      if (found && found.size !== this.childrenOf(entry).length) found = null
      this.ordinals.set(entry, found)
    }
    return found
  }
}
