import { languagesIntersect, type Language } from './languages.js'

/** Enums up to this many values are indexed by value; larger ones, and token types, are "open". */
const INDEXED_ENUM = 16

export interface IndexedChannel {
  id: string
  language: Language
}

interface LengthIndex {
  all: IndexedChannel[]
  /** Per position: value -> channels with that value there (literal or small enum). */
  values: Array<Map<string, IndexedChannel[]>>
  /** Per position: channels with a large enum or a token type there. */
  open: IndexedChannel[][]
}

const valuesAt = (type: Language[number]): readonly string[] | undefined =>
  type.kind === 'enum' && type.values.length <= INDEXED_ENUM ? type.values : undefined

/**
 * Channel languages indexed for overlap questions. Two channels can only share a subject with the
 * same number of tokens and, at every position, a token in common; so each channel is indexed,
 * per length and position, under each value of a position that is a literal or a small enum
 * ("open" otherwise), and a question looks only at the channels of its most selective position
 * (a literal few channels share). Exact: every candidate is decided by `languagesIntersect`.
 *
 * Complexity of `overlapping`: O(L * c) for a language of L positions, c the smallest candidate
 * list; c is every indexed channel of the length only when the language has no literal or
 * small-enum position at all (every placeholder a token type).
 */
export class ChannelIndex {
  private readonly byLength = new Map<number, LengthIndex>()

  add(entry: IndexedChannel): void {
    let index = this.byLength.get(entry.language.length)
    if (!index) {
      const length = entry.language.length
      this.byLength.set(length, (index = { all: [], values: Array.from({ length }, () => new Map()), open: Array.from({ length }, () => []) }))
    }
    index.all.push(entry)
    entry.language.forEach((type, p) => {
      const values = valuesAt(type)
      if (!values) return void index.open[p]!.push(entry)
      for (const v of values) {
        let list = index.values[p]!.get(v)
        if (!list) index.values[p]!.set(v, (list = []))
        list.push(entry)
      }
    })
  }

  /** The indexed channels whose language meets `language`, each once, in the order they were added. */
  *overlapping(language: Language): Generator<IndexedChannel> {
    const lists = this.candidates(language)
    if (lists === undefined) return
    const seen = new Set<IndexedChannel>()
    for (const list of lists) {
      for (const other of list) {
        if (seen.has(other)) continue
        seen.add(other)
        if (languagesIntersect(language, other.language)) yield other
      }
    }
  }

  /**
   * The first of `overlapping(language)`, without a generator or a set of the candidates seen: the
   * channel rule asks this once per channel of the document (bench/: the generator, its set and
   * its lists were a twentieth of a 500-channel compile's allocation).
   */
  first(language: Language): IndexedChannel | undefined {
    const lists = this.candidates(language)
    if (lists === undefined) return undefined
    // The channel `overlapping` yields first: a channel met twice did not meet the first time.
    for (const list of lists) for (const other of list) if (languagesIntersect(language, other.language)) return other
    return undefined
  }

  /** The non-empty candidate lists of `language`'s most selective position (every channel of its length when none has a literal or small enum), or undefined when no channel has its length. */
  private candidates(language: Language): IndexedChannel[][] | undefined {
    const index = this.byLength.get(language.length)
    if (!index) return undefined
    let best: IndexedChannel[][] | undefined
    let bestSize = Infinity
    for (let p = 0; p < language.length; p++) {
      const values = valuesAt(language[p]!)
      if (!values) continue
      const open = index.open[p]!
      let size = open.length
      for (const v of values) size += index.values[p]!.get(v)?.length ?? 0
      if (size >= bestSize) continue
      const lists: IndexedChannel[][] = []
      if (open.length > 0) lists.push(open)
      for (const v of values) {
        const list = index.values[p]!.get(v)
        if (list !== undefined && list.length > 0) lists.push(list)
      }
      best = lists
      bestSize = size
    }
    return best ?? [index.all]
  }
}
