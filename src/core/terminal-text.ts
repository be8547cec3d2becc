/**
 * Text from a document as a terminal, a CI log, a bundler's overlay or the dev page shows it:
 * control characters (C0 but newline and tab, DEL, C1), direction overrides and isolates, line or
 * paragraph separators, and the characters that draw nothing between two others (zero-width space,
 * word joiner and invisible operators, zero-width no-break space) written as `\u{...}` escapes, so
 * that no hostile contract can colour, move the cursor, set a window title, reorder what a reader
 * sees, start a fake line or make two different names look the same. The zero-width joiners (ZWJ,
 * ZWNJ), which scripts and emoji need to be written at all, are kept. Everything else is kept as
 * written (one pass, linear in the text).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\0-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g

const ANY_UNSAFE = new RegExp(UNSAFE.source)

const escape = (c: string) => `\\u{${c.codePointAt(0)!.toString(16)}}`

export function terminalSafe(text: string): string {
  return ANY_UNSAFE.test(text) ? text.replace(UNSAFE, escape) : text
}

/**
 * `terminalSafe` for text that is one line of the output (a diagnostic's message and place, a diff
 * finding, a listed path): a newline in it, from a file's name or a document's key, is written as
 * `\u{a}` too, so no name can end the tool's line and start one of its own (`x\nerror FAKE: ...`).
 */
export function terminalLine(text: string): string {
  return terminalSafe(text).replace(/\n/g, '\\u{a}')
}
