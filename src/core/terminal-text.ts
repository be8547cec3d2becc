/**
 * Text from a document as a terminal, a CI log or a bundler's overlay shows it: control characters
 * (C0 but newline and tab, DEL, C1), direction overrides and isolates, and line or paragraph
 * separators written as `\u{...}` escapes, so that no hostile contract can colour, move the cursor,
 * set a window title, reorder what a reader sees or start a fake line. Everything else is kept as
 * written (one pass, linear in the text).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\0-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

const ANY_UNSAFE = new RegExp(UNSAFE.source)

const escape = (c: string) => `\\u{${c.codePointAt(0)!.toString(16)}}`

export function terminalSafe(text: string): string {
  return ANY_UNSAFE.test(text) ? text.replace(UNSAFE, escape) : text
}
