/**
 * Saves a file the way an editor does, so that Vite's watcher sees every save. Its bundled chokidar
 * drops a change that comes within 50 ms of the previous event for the same file, and a change
 * whose mtime equals the last one (file systems stamp times at a coarse tick). A test that waits
 * for a fast compile can save faster than any person; these saves are spaced at least 80 ms after
 * the previous save *was seen* (`seen()`; the watcher's event came before that), and each gets its
 * own mtime, a second apart.
 *
 * Editors save in one of three ways (`SaveStyle`), each in two steps a watcher can see apart:
 * - `in-place` (VS Code, and `writeFile`): the file is truncated, then written;
 * - `atomic` (vim's default, JetBrains' "safe write", `sed -i`): a new file is written beside it,
 *   then renamed over it;
 * - `delete-create`: the file is deleted, then made again.
 * `between`, when given, runs between the two steps (a test holds the save there, as a slow disk
 * or a busy editor would).
 */
import { renameSync, truncateSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'

export type SaveStyle = 'in-place' | 'atomic' | 'delete-create'

export interface SaveOptions {
  style?: SaveStyle
  between?: () => Promise<void> | void
}

export class EditorFile {
  private last = 0
  private saves = 0

  constructor(readonly path: string) {}

  async save(text: string, { style = 'in-place', between }: SaveOptions = {}): Promise<void> {
    const since = Date.now() - this.last
    if (since < 80) await new Promise((resolve) => setTimeout(resolve, 80 - since))
    const at = Date.now() / 1000 + ++this.saves
    if (style === 'atomic') {
      const temp = join(dirname(this.path), `.${basename(this.path)}.${this.saves}.tmp`)
      writeFileSync(temp, text)
      utimesSync(temp, at, at)
      await between?.()
      renameSync(temp, this.path)
    } else {
      if (between) {
        if (style === 'delete-create') unlinkSync(this.path)
        else truncateSync(this.path)
        await between()
      } else if (style === 'delete-create') unlinkSync(this.path)
      writeFileSync(this.path, text)
      utimesSync(this.path, at, at)
    }
    this.last = Date.now()
  }

  /** The server has answered with this save's result: the next save waits from now. */
  seen(): void {
    this.last = Date.now()
  }
}
