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

/** Regions are kept for mapping entries this shallow (the document's sections, their entries and those entries' members). */
export const REGION_DEPTH = 2

export class YamlRegions {
  /** By the depth of the mapping holding the region's key, then by the region's text. */
  private previous: Array<Map<string, Region>> = []
  private current: Array<Map<string, Region>> = []
  /** Regions read again and regions taken, in the last parse (tests and benchmarks read them). */
  read = 0
  taken = 0

  /** Starts a parse: what it keeps replaces the last parse's when it ends (`end`). */
  begin(): void {
    this.current = []
    this.open.length = 0
    this.read = 0
    this.taken = 0
  }

  /** Ends a parse: `kept` when the parse read the whole text (otherwise the last parse's regions stay). */
  end(kept: boolean): void {
    if (kept) this.previous = this.current
    this.current = []
  }

  /** The inner regions of each region being read, innermost last. */
  private readonly open: Array<Array<[number, string, Region]>> = []

  /** The region the last parse kept for `text` at `depth` (then kept for the next parse too, with the regions inside it). */
  find(depth: number, text: string): Region | undefined {
    const region = this.previous[depth]?.get(text)
    if (region !== undefined) {
      this.taken++
      this.hold(depth, text, region)
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
    this.hold(depth, text, { ...region, inner })
  }

  private hold(depth: number, text: string, region: Region): void {
    this.open.at(-1)?.push([depth, text, region])
    const nested = (d: number, t: string, r: Region) => {
      ;(this.current[d] ??= new Map()).set(t, r)
      for (const [innerDepth, innerText, innerRegion] of r.inner) nested(innerDepth, innerText, innerRegion)
    }
    nested(depth, text, region)
  }

  clear(): void {
    this.previous = []
    this.current = []
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
