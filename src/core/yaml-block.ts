import { ClosedCollections, type InnerRun } from './yaml-positions.js'
import { REGION_DEPTH, type YamlRegions } from './yaml-regions.js'

/**
 * A reader of the block-style YAML contracts are written in, building values and the start of
 * every mapping and sequence in one pass (bench/: `js-yaml`'s readers of mappings, with the parse
 * listener that records positions, were a third of a NATS compile).
 *
 * It reads a strict subset: block mappings and sequences indented with spaces, keys and values
 * that are plain or quoted scalars on one line, and flow collections written on one line
 * (`{ $ref: '#/...' }`, `[a, b]`, `{}`), with comments anywhere. Anything else (a flow collection
 * over several lines or written loosely, block scalars, anchors, aliases, tags, explicit keys,
 * multi-line scalars, escapes, tabs, carriage returns, duplicate keys, keys that are not strings, a
 * document that is not a mapping) gives up with `undefined`, and the caller reads the document
 * with `js-yaml` as before: this reader never has to be right about what it does not read.
 * `test/yaml-block.test.ts` holds it to `js-yaml` and the exact path (values and positions) over
 * generated documents.
 */
export interface BlockYaml {
  value: Record<string, unknown>
  /** Each mapping and sequence's start, recorded as the parse listener of the `js-yaml` path records them. */
  closed: ClosedCollections
}

/** Thrown to give up: the caller reads the document with `js-yaml`. */
class NotBlock extends Error {}

/** Deeper than this is left to `js-yaml`, which applies the depth limit and reports it. */
const MAX_DEPTH = 48

/** A key longer than this is left to `js-yaml` (YAML bounds implicit keys at 1,024 characters). */
const MAX_KEY = 1000

/** Characters that may not begin a plain scalar here (YAML's indicators; `-`, `?`, `:` only when a blank follows, checked apart). */
const INDICATOR = new Uint8Array(128)
for (const c of ',[]{}#&*!|>\'"%@`') INDICATOR[c.charCodeAt(0)] = 1

/** `{` or `[`. */
const isFlowStart = (c: number) => c === 123 || c === 91

/** What `js-yaml` refuses in any scalar (its own pattern): such a document is left to it. */
// eslint-disable-next-line no-control-regex -- js-yaml's own pattern of what it refuses
const NON_PRINTABLE = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:[^\uD800-\uDBFF]|^)[\uDC00-\uDFFF]/
/**
 * Every character any branch of `NON_PRINTABLE` starts from, in one class (with U+0085 and paired
 * surrogates): a text without any is decided by one plain scan, about twice as fast as the
 * alternation over a whole document (bench/); only a text with one is tested by `NON_PRINTABLE`.
 */
// eslint-disable-next-line no-control-regex -- the same characters as NON_PRINTABLE's
const MAY_BE_NON_PRINTABLE = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F\uD800-\uDFFF\uFFFE\uFFFF]/

/**
 * Reads `text`, resolving plain scalars with `plain` (the same function the `js-yaml` path's
 * schema uses, so both make the same value of every scalar) and passing every string to `onString`.
 * Undefined when the text is outside the subset. With `regions` (the regions the last parse of the
 * same file read, yaml-regions.ts), a region whose text is unchanged is taken from there instead of
 * read; `regions` is only given when `onString` does nothing (a taken region's strings are not passed).
 */
export function readBlockYaml(text: string, plain: (s: string) => unknown, onString: (s: string) => void, regions?: YamlRegions): BlockYaml | undefined {
  if (text.includes('\t') || text.includes('\r') || text.startsWith('---') || (MAY_BE_NON_PRINTABLE.test(text) && NON_PRINTABLE.test(text))) return undefined
  regions?.begin()
  let read: BlockYaml | undefined
  try {
    read = new Reader(text, plain, onString, regions).document()
  } catch {
    // NotBlock, or a scalar `plain` refuses (`.inf`): js-yaml reads it, or refuses it, as before.
    read = undefined
  }
  regions?.end(read !== undefined)
  return read
}

class Reader {
  /** Start of the current line's content (after its indentation); -1 at the end of the text. */
  private at = 0
  /** Indentation of the current line. */
  private indent = 0
  /** End of the current line (its `\n` or the text's end). */
  private lineEnd = 0
  /** Start of the current line. */
  private lineStart = 0
  readonly closed = new ClosedCollections()
  /** For each region being read (innermost last), the runs of the regions read or taken inside it so far. */
  private readonly runs: InnerRun[][] = []

  constructor(
    private readonly text: string,
    private readonly plain: (s: string) => unknown,
    private readonly onString: (s: string) => void,
    private readonly regions?: YamlRegions,
  ) {}

  document(): BlockYaml | undefined {
    this.seekLine(0)
    if (this.at === -1 || this.indent !== 0) return undefined
    if (this.isEntry(this.at)) return undefined
    const value = this.mapping(0, this.at, 0)
    if (this.at !== -1) throw new NotBlock()
    return { value, closed: this.closed }
  }

  /** Moves to the first line at or after `from` that holds more than blanks and a comment. */
  private seekLine(from: number): void {
    const text = this.text
    let i = from
    for (;;) {
      if (i >= text.length) {
        this.at = -1
        this.indent = -1
        return
      }
      let j = i
      while (text.charCodeAt(j) === 32) j++
      let end = text.indexOf('\n', j)
      if (end === -1) end = text.length
      const c = text.charCodeAt(j)
      if (j < end && c !== 35 /* # */) {
        this.at = j
        this.indent = j - i
        this.lineEnd = end
        this.lineStart = i
        return
      }
      i = end + 1
    }
  }

  /** `-` followed by a blank or the line's end: a sequence entry. */
  private isEntry(at: number): boolean {
    if (this.text.charCodeAt(at) !== 45) return false
    const next = this.text.charCodeAt(at + 1)
    return next === 32 || next === 10 || Number.isNaN(next)
  }

  /** The block mapping whose keys stand at column `indent`, the first at `start` on the current line. */
  private mapping(indent: number, start: number, depth: number): Record<string, unknown> {
    if (depth > MAX_DEPTH) throw new NotBlock()
    const out: Record<string, unknown> = {}
    for (;;) {
      const keyEnd = this.key(this.at)
      const key = this.lastKey
      if (key === '__proto__' || key === '<<' || Object.hasOwn(out, key)) throw new NotBlock()
      this.onString(key)
      out[key] = this.regions !== undefined && depth <= REGION_DEPTH ? this.regionValue(keyEnd + 1, indent, depth) : this.valueAfter(keyEnd + 1, indent, depth)
      if (this.at === -1 || this.indent < indent) break
      if (this.indent !== indent || this.isEntry(this.at)) throw new NotBlock()
    }
    this.closed.add(start, depth)
    return out
  }

  /**
   * `valueAfter` for a key of a mapping at `depth`, through the kept regions: when the value is
   * written on the lines below the key, indented further, the region from the key's line to the
   * next line indented no further than the key is taken from the last parse if it read the same
   * text at the same depth, and kept for the next one otherwise.
   */
  private regionValue(from: number, indent: number, depth: number): unknown {
    const text = this.text
    let i = from
    while (text.charCodeAt(i) === 32) i++
    // The value on the key's line (a scalar or a flow collection): read as usual.
    if (i < this.lineEnd && text.charCodeAt(i) !== 35) return this.valueAfter(from, indent, depth)
    const start = this.lineStart
    const regions = this.regions!
    // With nothing to take at this depth (a file's first recompile), the region is not scanned for
    // its end first: it ends where its read does (the region's text is then its key for later parses).
    if (!regions.mayTake(depth)) return this.indentedBelow(indent) ? this.readRegion(from, indent, depth, start, -1) : this.valueAfter(from, indent, depth)
    const end = this.regionEnd(indent)
    if (end === -1) return this.valueAfter(from, indent, depth)
    const key = text.slice(start, end)
    const kept = regions.find(depth, key)
    if (kept !== undefined) {
      this.runs.at(-1)?.push({ index: this.closed.size, start, run: kept.run })
      this.closed.addAll(kept.run, start)
      this.seekLine(end)
      return kept.value
    }
    return this.readRegion(from, indent, depth, start, end)
  }

  /**
   * Reads a region's value and keeps it for the next parse. `end`: where the region ends, scanned
   * for before (its text was looked up), or -1: where the read ends.
   */
  private readRegion(from: number, indent: number, depth: number, start: number, end: number): unknown {
    const regions = this.regions!
    const before = this.closed.size
    regions.enter()
    this.runs.push([])
    const value = this.valueAfter(from, indent, depth)
    const inner = this.runs.pop()!
    const readTo = this.at === -1 ? this.text.length : this.lineStart
    // Kept only when the read ended where the region does (it always should: a line indented no
    // further than the key ends its value) and made a collection.
    const ended = end === -1 || readTo === end
    if (ended && value !== null && typeof value === 'object') {
      const run = this.closed.since(before, start, inner)
      this.runs.at(-1)?.push({ index: before, start, run })
      regions.keep(depth, this.text.slice(start, readTo), { value, run })
    } else {
      // Not kept: the runs inside it are the enclosing region's to splice.
      this.runs.at(-1)?.push(...inner)
      regions.keep(depth, '', undefined)
    }
    return value
  }

  /**
   * Whether the first line after the current one that holds more than blanks and a comment is
   * indented further than `indent` (the value of the key on the current line is written below it):
   * what `regionEnd` answers -1 for when not.
   */
  private indentedBelow(indent: number): boolean {
    const text = this.text
    for (let i = this.lineEnd + 1; i < text.length;) {
      let j = i
      while (text.charCodeAt(j) === 32) j++
      let end = text.indexOf('\n', j)
      if (end === -1) end = text.length
      if (j < end && text.charCodeAt(j) !== 35 /* # */) return j - i > indent
      i = end + 1
    }
    return false
  }

  /**
   * Where the region of the key on the current line (at column `indent`) ends: the start of the
   * next line that holds more than blanks and a comment and is indented no further than the key,
   * or the text's end. -1 when the value below the key is not indented further (a sequence at the
   * key's column, or no value).
   */
  private regionEnd(indent: number): number {
    const text = this.text
    let first = true
    for (let i = this.lineEnd + 1; ;) {
      if (i >= text.length) return first ? -1 : text.length
      let j = i
      while (text.charCodeAt(j) === 32) j++
      let end = text.indexOf('\n', j)
      if (end === -1) end = text.length
      if (j < end && text.charCodeAt(j) !== 35 /* # */) {
        if (j - i <= indent) return first ? -1 : i
        first = false
      }
      i = end + 1
    }
  }

  /** The block sequence whose entries' `-` stand at column `indent`, the first at the current line. */
  private sequence(indent: number, depth: number): unknown[] {
    if (depth > MAX_DEPTH) throw new NotBlock()
    const start = this.at
    const out: unknown[] = []
    for (;;) {
      const dash = this.at
      // The entry's content: on the same line after `- `, or on the lines below.
      let i = dash + 1
      while (this.text.charCodeAt(i) === 32) i++
      if (i >= this.lineEnd || this.text.charCodeAt(i) === 35 /* # */) {
        if (i < this.lineEnd && this.text.charCodeAt(i - 1) !== 32) throw new NotBlock()
        this.seekLine(this.lineEnd + 1)
        out.push(this.nested(indent, depth, true))
      } else if (this.isEntry(i)) {
        throw new NotBlock()
      } else if (!isFlowStart(this.text.charCodeAt(i)) && this.startsKey(i)) {
        // A mapping written on the entry's line (`- name: a`): its keys stand at that column.
        this.at = i
        out.push(this.mapping(i - this.lineStart, i, depth + 1))
      } else {
        out.push(this.scalarOrEmpty(i, indent, depth + 1))
      }
      // A line at the same column that is not an entry ends a sequence written at its key's column.
      if (this.at === -1 || this.indent < indent || (this.indent === indent && !this.isEntry(this.at))) break
      if (this.indent !== indent) throw new NotBlock()
    }
    this.closed.add(start, depth)
    return out
  }

  /** The key read by the last `key` call. */
  private lastKey = ''

  /** Reads the key at `at` (plain or quoted) into `lastKey`; returns the offset of its `:`. */
  private key(at: number): number {
    const text = this.text
    const c = text.charCodeAt(at)
    if (c === 39 /* ' */ || c === 34 /* " */) {
      const close = this.quotedEnd(at)
      let i = close + 1
      while (text.charCodeAt(i) === 32) i++
      if (text.charCodeAt(i) !== 58 /* : */ || !this.blankAfter(i)) throw new NotBlock()
      this.lastKey = this.quoted(at, close)
      if (this.lastKey.length > MAX_KEY) throw new NotBlock()
      return i
    }
    const colon = this.keyColon(at)
    if (colon === -1) throw new NotBlock()
    let end = colon
    while (text.charCodeAt(end - 1) === 32) end--
    const raw = text.slice(at, end)
    if (raw.length > MAX_KEY || raw.includes(' #') || !this.plainStart(at)) throw new NotBlock()
    // A key that would not be a string (`1:`, `true:`, `null:`): js-yaml would make it one, JSON has none.
    if (typeof this.plain(raw) !== 'string') throw new NotBlock()
    this.lastKey = raw
    return colon
  }

  /** Whether the content at `at` (on the current line) is a key: a quoted scalar followed by `:`, or a plain one holding `: ` or ending in `:`. */
  private startsKey(at: number): boolean {
    const text = this.text
    const c = text.charCodeAt(at)
    if (c === 39 || c === 34) {
      const close = this.quotedEnd(at)
      let i = close + 1
      while (text.charCodeAt(i) === 32) i++
      return text.charCodeAt(i) === 58
    }
    return this.keyColon(at) !== -1
  }

  /** The `:` that ends a plain key starting at `at` on the current line (followed by a blank or the line's end), or -1. */
  private keyColon(at: number): number {
    const text = this.text
    // Within the line only: a search on into the text would make a long list of scalars quadratic.
    for (let i = at; i < this.lineEnd; i++) {
      const c = text.charCodeAt(i)
      // A comment before it: not a key (js-yaml would read a scalar and then a comment).
      if (c === 35 /* # */ && text.charCodeAt(i - 1) === 32) return -1
      if (c === 58 /* : */ && this.blankAfter(i)) return i
    }
    return -1
  }

  /** Whether a blank or the line's end follows `at`. */
  private blankAfter(at: number): boolean {
    const next = this.text.charCodeAt(at + 1)
    return next === 32 || next === 10 || Number.isNaN(next)
  }

  /** Where a comment (` #`) begins on the current line after `at`, else the line's end. */
  private commentOn(at: number): number {
    const text = this.text
    for (let i = at + 1; i < this.lineEnd; i++) if (text.charCodeAt(i) === 35 && text.charCodeAt(i - 1) === 32) return i - 1
    return this.lineEnd
  }

  /** Whether a plain scalar may begin at `at` (not an indicator; `-`, `?`, `:` only before a non-blank). */
  private plainStart(at: number): boolean {
    const c = this.text.charCodeAt(at)
    if (c < 128 && INDICATOR[c]) return false
    if (c === 45 || c === 63 || c === 58) {
      const next = this.text.charCodeAt(at + 1)
      return !(next === 32 || next === 10 || Number.isNaN(next))
    }
    return true
  }

  /** The value after a key whose `:` is at `from - 1`, the key at column `indent`. */
  private valueAfter(from: number, indent: number, depth: number): unknown {
    const text = this.text
    let i = from
    while (text.charCodeAt(i) === 32) i++
    if (i >= this.lineEnd || text.charCodeAt(i) === 35 /* # */) {
      if (i < this.lineEnd && text.charCodeAt(i - 1) !== 32) throw new NotBlock()
      this.seekLine(this.lineEnd + 1)
      return this.nested(indent, depth, false)
    }
    // A mapping or sequence may not begin on the key's line (`a: b: c`, `a: - b`).
    if (this.isEntry(i) || (!isFlowStart(text.charCodeAt(i)) && this.startsKey(i))) throw new NotBlock()
    return this.scalarOrEmpty(i, indent, depth + 1)
  }

  /**
   * The node below a key or an entry whose content is not on its line: a mapping or sequence
   * indented further (a sequence may also stand at a key's own column), else null.
   */
  private nested(indent: number, depth: number, entry: boolean): unknown {
    if (this.at === -1 || this.indent < indent) return null
    if (this.indent === indent) {
      if (!entry && this.isEntry(this.at)) return this.sequence(indent, depth + 1)
      return null
    }
    if (this.isEntry(this.at)) return this.sequence(this.indent, depth + 1)
    return this.mapping(this.indent, this.at, depth + 1)
  }

  /**
   * A scalar or `{}`/`[]` on one line from `at` (`depth`: the collections around it); moves to the
   * next line, which must not continue it.
   */
  private scalarOrEmpty(at: number, indent: number, depth: number): unknown {
    const text = this.text
    const c = text.charCodeAt(at)
    let value: unknown
    let end: number
    if (c === 39 || c === 34) {
      const close = this.quotedEnd(at)
      value = this.quoted(at, close)
      this.onString(value as string)
      end = close + 1
    } else if (isFlowStart(c)) {
      value = this.flow(at, depth)
      end = this.flowEnd
    } else {
      if (!this.plainStart(at)) throw new NotBlock()
      end = this.commentOn(at)
      let last = end
      while (text.charCodeAt(last - 1) === 32) last--
      const raw = text.slice(at, last)
      value = this.plain(raw)
      if (typeof value === 'string') this.onString(value)
      end = last
    }
    // After the scalar: blanks, then a comment (after a blank) or the line's end.
    let i = end
    while (text.charCodeAt(i) === 32) i++
    if (i < this.lineEnd && !(text.charCodeAt(i) === 35 && i > end)) throw new NotBlock()
    this.seekLine(this.lineEnd + 1)
    // A line indented further goes on with the scalar (a multi-line plain scalar) or is an error.
    if (this.at !== -1 && this.indent > indent) throw new NotBlock()
    return value
  }

  /** Where the last flow collection read ended (after its closing bracket). */
  private flowEnd = 0

  /**
   * The flow collection at `at` (`{` or `[`), written on the current line: entries separated by
   * `, `, mapping entries as `key: value`, each a quoted or plain scalar or a flow collection.
   * Gives up on what YAML reads more freely (a key without a value, a trailing comma, `:` or `#`
   * in a plain scalar, a collection going on to the next line). Sets `flowEnd`.
   */
  private flow(at: number, depth: number): unknown {
    if (depth > MAX_DEPTH) throw new NotBlock()
    const text = this.text
    const mapping = text.charCodeAt(at) === 123
    const closer = mapping ? 125 : 93
    const out: Record<string, unknown> | unknown[] = mapping ? {} : []
    let i = this.spaces(at + 1)
    if (text.charCodeAt(i) !== closer) {
      for (;;) {
        if (mapping) {
          const key = this.flowScalar(i, true)
          if (typeof key !== 'string' || key === '__proto__' || key === '<<' || key.length > MAX_KEY || Object.hasOwn(out, key)) throw new NotBlock()
          i = this.spaces(this.flowEnd)
          if (text.charCodeAt(i) !== 58 /* : */ || text.charCodeAt(i + 1) !== 32) throw new NotBlock()
          const value = this.flowValue(this.spaces(i + 1), depth)
          ;(out as Record<string, unknown>)[key] = value
        } else (out as unknown[]).push(this.flowValue(i, depth))
        i = this.spaces(this.flowEnd)
        const c = text.charCodeAt(i)
        if (c === closer) break
        if (c !== 44 /* , */) throw new NotBlock()
        i = this.spaces(i + 1)
        if (text.charCodeAt(i) === closer) throw new NotBlock()
      }
    }
    if (i >= this.lineEnd) throw new NotBlock()
    this.closed.add(at, depth)
    this.flowEnd = i + 1
    return out
  }

  /** An entry's value in a flow collection at `depth` (the collections around that collection's members). Sets `flowEnd`. */
  private flowValue(at: number, depth: number): unknown {
    return isFlowStart(this.text.charCodeAt(at)) ? this.flow(at, depth + 1) : this.flowScalar(at, false)
  }

  /** A quoted or plain scalar inside a flow collection (`key`: it ends at `:`); passes strings to `onString`. Sets `flowEnd`. */
  private flowScalar(at: number, key: boolean): unknown {
    const text = this.text
    const c = text.charCodeAt(at)
    if (c === 39 || c === 34) {
      const close = this.quotedEnd(at)
      const value = this.quoted(at, close)
      this.onString(value)
      this.flowEnd = close + 1
      return value
    }
    if (!this.plainStart(at)) throw new NotBlock()
    let j = at
    for (; j < this.lineEnd; j++) {
      const d = text.charCodeAt(j)
      if (d === 44 || d === 91 || d === 93 || d === 123 || d === 125) break
      if (d === 58 /* : */ && key) break
      if (d === 58 || d === 35 /* # */) throw new NotBlock()
    }
    this.flowEnd = j
    while (text.charCodeAt(j - 1) === 32) j--
    const value = this.plain(text.slice(at, j))
    if (typeof value === 'string') this.onString(value)
    return value
  }

  /** The first offset at or after `at` that is not a space. */
  private spaces(at: number): number {
    let i = at
    while (this.text.charCodeAt(i) === 32) i++
    return i
  }

  /** The closing quote of the quoted scalar at `at`, on the same line; gives up on escapes and on a scalar that goes on to the next line. */
  private quotedEnd(at: number): number {
    const text = this.text
    const quote = text.charCodeAt(at)
    for (let i = at + 1; i < this.lineEnd; i++) {
      const c = text.charCodeAt(i)
      if (c === 92 /* \ */ && quote === 34) throw new NotBlock()
      if (c === quote) {
        if (quote === 39 && text.charCodeAt(i + 1) === 39) {
          i++
          continue
        }
        return i
      }
    }
    throw new NotBlock()
  }

  /** The string of the quoted scalar from `at` to its closing quote `close`. */
  private quoted(at: number, close: number): string {
    const raw = this.text.slice(at + 1, close)
    return this.text.charCodeAt(at) === 39 && raw.includes("''") ? raw.replaceAll("''", "'") : raw
  }
}
