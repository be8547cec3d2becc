/**
 * GitHub Actions workflow commands (`::error file=...,line=...::message`): their own escaping first
 * (`%`, CR and LF in the message; also `:` and `,` in a property), so a CR or LF in a file's name
 * is the `%0D`/`%0A` GitHub decodes back to that name; then what the log would act on (ANSI
 * sequences, direction overrides) as for a terminal, which leaves the `%XX` forms alone.
 */
import { isAbsolute, relative, sep } from 'node:path'
import { terminalSafe } from '../core/terminal-text.js'

/** A command's message. */
export const commandData = (s: string): string => terminalSafe(s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'))

/** A command's property value (`file=`, `title=`). */
export const commandProperty = (s: string): string => commandData(s).replace(/:/g, '%3A').replace(/,/g, '%2C')

/**
 * The `file=` of an annotation: GitHub places an annotation by the file's path from the
 * repository's root, which a checkout puts at `GITHUB_WORKSPACE`; so the path from there when the
 * file is inside it, else from the working directory (a run outside Actions), with `/` separators.
 * Never absolute: a file outside both is the relative path from the working directory, which no
 * annotation can place but which names the file all the same.
 */
export function annotationFile(file: string, cwd: string = process.cwd(), workspace: string | undefined = process.env.GITHUB_WORKSPACE): string {
  const inside = (base: string) => {
    const rel = relative(base, file)
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : undefined
  }
  const rel = (workspace ? inside(workspace) : undefined) ?? inside(cwd) ?? relative(cwd, file)
  return rel.split(sep).join('/') || file
}
