/** `text` with each edit made, in order (each must find its text: a fixture that changed fails here, not later). */
export function withEdits(text: string, edits: ReadonlyArray<readonly [string, string]>): string {
  for (const [from, to] of edits) {
    if (!text.includes(from)) throw new Error(`fixture changed: ${from}`)
    text = text.replace(from, to)
  }
  return text
}
