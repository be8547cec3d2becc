/**
 * Saves a file the way an editor does, so that Vite's watcher sees every save. Its bundled chokidar
 * drops a change that comes within 50 ms of the previous event for the same file, and a change
 * whose mtime equals the last one (file systems stamp times at a coarse tick). A test that waits
 * for a fast compile can save faster than any person; these saves are spaced at least 80 ms after
 * the previous save *was seen* (`seen()`; the watcher's event came before that), and each gets its
 * own mtime, a second apart.
 */
import { utimesSync, writeFileSync } from 'node:fs'

export class EditorFile {
  private last = 0
  private saves = 0

  constructor(readonly path: string) {}

  async save(text: string): Promise<void> {
    const since = Date.now() - this.last
    if (since < 80) await new Promise((resolve) => setTimeout(resolve, 80 - since))
    writeFileSync(this.path, text)
    const at = Date.now() / 1000 + ++this.saves
    utimesSync(this.path, at, at)
    this.last = Date.now()
  }

  /** The server has answered with this save's result: the next save waits from now. */
  seen(): void {
    this.last = Date.now()
  }
}
