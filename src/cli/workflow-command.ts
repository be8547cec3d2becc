/**
 * GitHub Actions workflow commands (`::error file=...,line=...::message`): their own escaping first
 * (`%`, CR and LF in the message; also `:` and `,` in a property), so a CR or LF in a file's name
 * is the `%0D`/`%0A` GitHub decodes back to that name; then what the log would act on (ANSI
 * sequences, direction overrides) as for a terminal, which leaves the `%XX` forms alone.
 */
import { terminalSafe } from '../core/terminal-text.js'

/** A command's message. */
export const commandData = (s: string): string => terminalSafe(s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'))

/** A command's property value (`file=`, `title=`). */
export const commandProperty = (s: string): string => commandData(s).replace(/:/g, '%3A').replace(/,/g, '%2C')
