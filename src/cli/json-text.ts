/**
 * The CLI's `--json` (and SARIF) text: `JSON.stringify` with two spaces, and the characters a
 * terminal acts on that it leaves as they are (DEL, the C1 controls, direction overrides and
 * isolates, line and paragraph separators, the characters that draw nothing: zero-width space, word
 * joiner, invisible operators, zero-width no-break space) written as `\u` escapes, so a value from a document or
 * a server shows as written when the output is read on a terminal, and parses back the same.
 */
const RAW = /[\x7f-\x9f\u061c\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g

export function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(RAW, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
