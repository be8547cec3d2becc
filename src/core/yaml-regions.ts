/**
 * The block mappings one parse of a YAML document read, kept by their text for the next parse of
 * the same file (a dev server or a watch build recompiles a whole document on every save, and an
 * edit changes one region of it). A region is a mapping entry whose value is written on the lines
 * below its key: the text from the key's line up to the next line indented no further than the
 * key. The same text at the same nesting depth reads as the same value (the block reader reads a
 * region from its text alone), so the next parse takes the kept value, the same object, and the
 * start of every collection in it shifted to where the region now stands, instead of reading it.
 *
 * What is held is the last parse's regions (one document's values and positions: no more than the
 * result of a compile holds, and the substrings of its text that key them), and, at each depth, at
 * most half as many again of earlier parses', dropped together once they could be that many.
 *
 * Why by depth: a Map hashes a string longer than 16,383 characters by its length alone (V8), so a
 * section edited in place (a digit changed) leaves a stale text of the same length at its depth
 * each time, and every lookup of that section compared its text with each of them, most of the way
 * through. Counted over all depths (thousands of regions at depth 2) the few sections at depth 0
 * gathered hundreds of such texts before the maps were made again: about 2.5 ms of a 20 ms
 * recompile of a 500-channel document after a hundred saves of one stream's number.
 */
import type { ClosedRun } from './yaml-positions.js'

export interface Region {
  /** The mapping or sequence the region's key names (never changed once read: values are shared). */
  value: object
  /** The start of each collection the region holds and its nesting depth (absolute: regions are kept by depth), in the order they closed. */
  run: ClosedRun
  /** The regions inside it (by depth and text), kept again with it when it is taken. */
  inner: Array<[number, string, Region]>
}

/** Regions are kept for mapping entries this shallow (the document's sections, their entries and those entries' members). */
export const REGION_DEPTH = 2

export class YamlRegions {
  /**
   * By the depth of the mapping holding the region's key, then by the region's text: the regions
   * the last whole parse read or took, those the parse under way has read so far, and regions of
   * earlier parses no parse has taken since (stale). One map per depth for every parse (a taken
   * region and the ones inside it stay where they are, nothing is copied); the stale ones are
   * dropped when they could be as many as half the live ones (`end`), so what is held is at most
   * half again the regions of one parse.
   */
  private byDepth: Array<Map<string, Region>> = []
  /** The regions the parse under way read or took outside any other (what a rebuild starts from). */
  private roots: Array<[number, string, Region]> = []
  /** The regions the parse under way read (dropped again if it does not read the whole text). */
  private added: Array<[number, string]> = []
  /** By depth: regions held, and regions read since that depth's map was last made of one parse's alone (at most as many stale). */
  private size: number[] = []
  private readSince: number[] = []
  /** Regions read again and regions taken, in the last parse (tests and benchmarks read them). */
  read = 0
  taken = 0

  /** By depth: whether regions were held there when the parse under way began. */
  private heldBefore: boolean[] = []

  /** Starts a parse: what it keeps replaces the last parse's when it ends (`end`). */
  begin(): void {
    this.heldBefore = this.size.map((held) => held > 0)
    this.roots = []
    this.added = []
    this.open.length = 0
    this.read = 0
    this.taken = 0
  }

  /**
   * Ends a parse: `kept` when the parse read the whole text; then its regions are held for the
   * next, and when the regions read since the maps were last made of one parse's could be half
   * the regions held, the maps are made again of this parse's alone. Otherwise the regions read
   * since it began are dropped (the last whole parse's stay).
   */
  end(kept: boolean): void {
    if (!kept) {
      for (const [depth, text] of this.added) {
        this.byDepth[depth]!.delete(text)
        this.size[depth]!--
      }
    } else {
      for (const [depth] of this.added) this.readSince[depth] = (this.readSince[depth] ?? 0) + 1
      // A depth where nothing was held before holds this parse's regions alone: nothing there is
      // stale, and making its map again would only make the same map (the first recompile of a
      // file reads every region and took about a tenth of its parse doing so, bench/).
      for (let depth = 0; depth < this.readSince.length; depth++) if (this.heldBefore[depth] !== true) this.readSince[depth] = 0
      const stale = this.readSince.flatMap((read, depth) => (read > 0 && 2 * read > this.size[depth]! - read ? [depth] : []))
      if (stale.length > 0) this.rebuild(new Set(stale))
    }
    this.roots = []
    this.added = []
  }

  /**
   * The maps of `depths`, made of the regions of the parse that just ended at those depths (those it
   * read or took, and the ones inside them). The walk goes no deeper than the deepest depth asked
   * for: making depth 0's map again reads only the parse's few sections.
   */
  private rebuild(depths: ReadonlySet<number>): void {
    const deepest = Math.max(...depths)
    for (const depth of depths) {
      this.byDepth[depth] = new Map()
      this.size[depth] = 0
      this.readSince[depth] = 0
    }
    const hold = (depth: number, text: string, region: Region) => {
      if (depth > deepest) return
      if (depths.has(depth)) {
        const regions = this.byDepth[depth]!
        if (!regions.has(text)) this.size[depth]!++
        regions.set(text, region)
      }
      for (const [innerDepth, innerText, inner] of region.inner) hold(innerDepth, innerText, inner)
    }
    for (const [depth, text, region] of this.roots) hold(depth, text, region)
  }

  /** The inner regions of each region being read, innermost last. */
  private readonly open: Array<Array<[number, string, Region]>> = []

  /**
   * Whether `find` can take anything at `depth` from an earlier parse: false when nothing was held
   * there as this parse began (a file's first recompile), when a reader need not look.
   */
  mayTake(depth: number): boolean {
    return this.heldBefore[depth] === true
  }

  /** The region kept for `text` at `depth` (then kept for the next parse too, with the regions inside it). */
  find(depth: number, text: string): Region | undefined {
    const region = this.byDepth[depth]?.get(text)
    if (region !== undefined) {
      this.taken++
      ;(this.open.at(-1) ?? this.roots).push([depth, text, region])
    }
    return region
  }

  /** Starts reading a region: the regions read or taken inside it until `keep` are its inner ones. */
  enter(): void {
    this.open.push([])
  }

  /** Ends reading a region, and keeps it for the next parse when `region` is given (`inner` filled here). */
  keep(depth: number, text: string, region: Omit<Region, 'inner'> | undefined): void {
    const inner = this.open.pop() ?? []
    if (region === undefined) return
    this.read++
    const held: Region = { value: region.value, run: region.run, inner }
    ;(this.open.at(-1) ?? this.roots).push([depth, text, held])
    // `find` found none, or was not asked (`mayTake`): counted only when the map grew.
    const regions = (this.byDepth[depth] ??= new Map())
    const before = regions.size
    regions.set(text, held)
    if (regions.size === before) return
    this.added.push([depth, text])
    this.size[depth] = (this.size[depth] ?? 0) + 1
  }

  /** The regions held at `depth`, the last parse's and stale ones (tests read it). */
  held(depth: number): number {
    return this.byDepth[depth]?.size ?? 0
  }

  /** The bytes of the collection records the held regions keep, each record counted once (tests read it). */
  heldRecordBytes(): number {
    const buffers = new Set<ArrayBufferLike>()
    const runs = new Set<ClosedRun>()
    const visit = (run: ClosedRun) => {
      if (runs.has(run)) return
      runs.add(run)
      buffers.add(run.offsets.buffer)
      buffers.add(run.depths.buffer)
      for (const { run: inner } of run.inner) visit(inner)
    }
    for (const regions of this.byDepth) for (const region of regions?.values() ?? []) visit(region.run)
    let bytes = 0
    for (const buffer of buffers) bytes += buffer.byteLength
    return bytes
  }

  clear(): void {
    this.byDepth = []
    this.roots = []
    this.added = []
    this.size = []
    this.readSince = []
  }
}

/** Each file's `YamlRegions`, for the files parsed last (at most `limit`: the oldest is dropped first). */
export class YamlRegionsByFile {
  private readonly files = new Map<string, YamlRegions>()

  constructor(private readonly limit = 16) {}

  of(file: string): YamlRegions {
    let regions = this.files.get(file)
    if (regions === undefined) regions = new YamlRegions()
    else this.files.delete(file)
    this.files.set(file, regions)
    if (this.files.size > this.limit) this.files.delete(this.files.keys().next().value!)
    return regions
  }

  clear(): void {
    this.files.clear()
  }
}
