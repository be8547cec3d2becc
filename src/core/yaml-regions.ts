/**
 * The block mappings one parse of a YAML document read, kept by their text for the next parse of
 * the same file (a dev server or a watch build recompiles a whole document on every save, and an
 * edit changes one region of it). A region is a mapping entry whose value is written on the lines
 * below its key: the text from the key's line up to the next line indented no further than the
 * key. The same text at the same nesting depth reads as the same value (the block reader reads a
 * region from its text alone), so the next parse takes the kept value, the same object, and the
 * start of every collection in it shifted to where the region now stands, instead of reading it.
 *
 * Only the last parse's regions are kept: each parse keeps the regions it read or took, and they
 * replace the ones before, so what is held is one document's values and positions (no more than
 * the result of a compile holds) and the substrings of its text that key them.
 */
export interface Region {
  /** The mapping or sequence the region's key names (never changed once read: values are shared). */
  value: object
  /** The start of each collection the region holds, from the region's start, in the order they closed. */
  offsets: Int32Array
  /** Their nesting depths (absolute: regions are kept by depth). */
  depths: Int32Array
  /** The regions inside it (by depth and text), kept again with it when it is taken. */
  inner: Array<[number, string, Region]>
}

/** A kept region, with the last parse that read or took it (it is dropped when a parse ends without it). */
interface Held extends Region {
  parse: number
  inner: Array<[number, string, Held]>
}

/** Regions are kept for mapping entries this shallow (the document's sections, their entries and those entries' members). */
export const REGION_DEPTH = 2

export class YamlRegions {
  /**
   * By the depth of the mapping holding the region's key, then by the region's text: the regions
   * the last whole parse read or took, and those the parse under way has read so far. One map per
   * depth for every parse: a taken region and the regions inside it are marked with the parse
   * (`Held.parse`), not copied into maps of their own, and `end` drops the ones no parse marked.
   */
  private byDepth: Array<Map<string, Held>> = []
  /** The parse under way (or the last one), counted from 1. */
  private parse = 0
  /** The regions the parse under way read (dropped again if it does not read the whole text). */
  private added: Array<[number, string]> = []
  /** Regions read again and regions taken, in the last parse (tests and benchmarks read them). */
  read = 0
  taken = 0

  /** Starts a parse: what it keeps replaces the last parse's when it ends (`end`). */
  begin(): void {
    this.parse++
    this.added = []
    this.open.length = 0
    this.read = 0
    this.taken = 0
  }

  /**
   * Ends a parse: `kept` when the parse read the whole text; then the regions it neither read nor
   * took are dropped. Otherwise the last whole parse's regions stay, and the ones read since go.
   */
  end(kept: boolean): void {
    if (kept) {
      for (const regions of this.byDepth) if (regions !== undefined) for (const [text, region] of regions) if (region.parse !== this.parse) regions.delete(text)
    } else for (const [depth, text] of this.added) this.byDepth[depth]!.delete(text)
    this.added = []
  }

  /** The inner regions of each region being read, innermost last. */
  private readonly open: Array<Array<[number, string, Held]>> = []

  /** The region kept for `text` at `depth` (then kept for the next parse too, with the regions inside it). */
  find(depth: number, text: string): Region | undefined {
    const region = this.byDepth[depth]?.get(text)
    if (region !== undefined) {
      this.taken++
      this.open.at(-1)?.push([depth, text, region])
      this.mark(region)
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
    const held: Held = { ...region, inner, parse: this.parse }
    this.open.at(-1)?.push([depth, text, held])
    // A region read while one of the same text was kept (never: `find` is asked first) replaces it.
    const regions = (this.byDepth[depth] ??= new Map())
    if (!regions.has(text)) this.added.push([depth, text])
    regions.set(text, held)
  }

  /** Marks a taken region and the regions inside it as this parse's. */
  private mark(region: Held): void {
    region.parse = this.parse
    for (const [, , inner] of region.inner) if (inner.parse !== this.parse) this.mark(inner)
  }

  clear(): void {
    this.byDepth = []
    this.added = []
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
