/** Maps character offsets of a source text to 1-based line and column. */
export class LineIndex {
  private readonly starts: number[] = [0]

  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i)
      if (ch === 10) this.starts.push(i + 1)
      else if (ch === 13 && text.charCodeAt(i + 1) !== 10) this.starts.push(i + 1)
    }
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
