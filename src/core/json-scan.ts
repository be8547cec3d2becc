/**
 * Scanning JSON text without parsing it. `indexOf` jumps over string contents in native code: on a
 * 1.5 MB contract a character loop through the strings cost several milliseconds per scan (bench/).
 */

/** The offset of the quote that closes the string opened at `open` (the text's length if none does). */
export function stringEnd(text: string, open: number): number {
  let end = text.indexOf('"', open + 1)
  while (end !== -1 && escaped(text, end)) end = text.indexOf('"', end + 1)
  return end === -1 ? text.length : end
}

/** A quote is escaped when an odd run of backslashes precedes it. */
function escaped(text: string, quote: number): boolean {
  let backslashes = 0
  for (let k = quote - 1; text.charCodeAt(k) === 92; k--) backslashes++
  return backslashes % 2 === 1
}
