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
    const index = this.byLength.get(language.length)
    if (!index) return
    let best: IndexedChannel[][] | undefined
    let bestSize = Infinity
    language.forEach((type, p) => {
      const values = valuesAt(type)
      if (!values) return
      const lists = [index.open[p]!]
      let size = index.open[p]!.length
      for (const v of values) {
        const list = index.values[p]!.get(v)
        if (!list) continue
        lists.push(list)
        size += list.length
      }
      if (size < bestSize) {
        best = lists
        bestSize = size
      }
    })
    const seen = new Set<IndexedChannel>()
    for (const list of best ?? [index.all]) {
      for (const other of list) {
        if (seen.has(other)) continue
        seen.add(other)
        if (languagesIntersect(language, other.language)) yield other
      }
    }
  }
}
