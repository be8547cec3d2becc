/** Maps character offsets of a source text to 1-based line and column. */
export class LineIndex {
  private readonly starts: Uint32Array

  constructor(readonly text: string) {
    // indexOf runs in native code: far faster than a charCodeAt loop on megabyte contracts; and
    // counting first, then filling a typed array, beats growing an array by push (bench/: 10x on a
    // 1.5 MB document). Offsets fit: contracts are limited to 16 MiB.
    const crs = text.includes('\r')
    let count = 1
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++
    // Old Mac line ends (a lone \r) also end lines.
    if (crs) for (let i = text.indexOf('\r'); i !== -1; i = text.indexOf('\r', i + 1)) if (text.charCodeAt(i + 1) !== 10) count++
    const starts = new Uint32Array(count)
    let n = 1
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts[n++] = i + 1
    if (crs) {
      for (let i = text.indexOf('\r'); i !== -1; i = text.indexOf('\r', i + 1)) if (text.charCodeAt(i + 1) !== 10) starts[n++] = i + 1
      starts.sort()
    }
    this.starts = starts
  }

  position(offset: number): { line: number; column: number } {
    let lo = 0
    let hi = this.starts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (this.starts[mid]! <= offset) lo = mid
      else hi = mid - 1
    }
    return { line: lo + 1, column: offset - this.starts[lo]! + 1 }
  }

  /** The text of a 1-based line without its line break. */
  lineText(line: number): string {
    const start = this.starts[line - 1]
    if (start === undefined) return ''
    const end = this.starts[line] ?? this.text.length
    return this.text.slice(start, end).replace(/\r?\n$|\r$/, '')
  }

  get lineCount(): number {
    return this.starts.length
  }
}

/**
 * A YAML text with each lone CR made the LF it stands for: YAML 1.2 (5.4, line break characters)
 * ends a line at CR LF, at LF and at a CR alone, and normalizes each to LF in content, but the `yaml`
 * parser ends lines only at LF (it read a file with old Mac line ends as one line; js-yaml, the
 * fast path, reads all three). The same length, so every offset it reports is the text's own.
 */
export const loneCrsAsLineFeeds = (text: string): string => (text.includes('\r') ? text.replace(/\r(?!\n)/g, '\n') : text)
