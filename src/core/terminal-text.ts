/**
 * Text from a document as a terminal, a CI log, a bundler's overlay or the dev page shows it:
 * control characters (C0 but newline and tab, DEL, C1), direction overrides and isolates, line or
 * paragraph separators, and the characters that draw nothing between two others (zero-width space,
 * word joiner and invisible operators, zero-width no-break space) written as `\u{...}` escapes, so
 * that no hostile contract can colour, move the cursor, set a window title, reorder what a reader
 * sees, start a fake line or make two different names look the same. The zero-width joiners (ZWJ,
 * ZWNJ), which scripts and emoji need to be written at all, are kept. Everything else is kept as
 * written (one pass, linear in the text), but a backslash that starts `u{`, so that every `\u{...}`
 * shown is an escape.
 */
/**
 * The characters that draw nothing or reorder what a reader sees: direction marks, overrides and
 * isolates, zero-width characters and invisible operators, the byte order mark (a regular
 * expression class's body). The zero-width joiners are not among them. Generated code escapes the
 * same ones in its string literals (emit.ts).
 */
export const INVISIBLE_CLASS = '\\u061c\\u200b\\u200e\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff'
/**
 * A backslash that starts `u{` in the text itself is written `\u{5c}`: otherwise a name holding the
 * six characters `\u{a}` and one holding a newline would print the same, and no reader could tell
 * an escape this writes from text the document wrote. Other backslashes (a Windows path) stay.
 */
const UNSAFE = new RegExp(`[\\0-\\x08\\x0b-\\x1f\\x7f-\\x9f\\u2028\\u2029${INVISIBLE_CLASS}]|\\\\(?=u\\{)`, 'g')

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
