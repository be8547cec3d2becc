/**
 * Contracts outside a Vite dev server's root, kept watched through every way an editor saves them.
 * Vite's watcher (chokidar 3) watches its root's tree, and a file outside it on its own, and loses
 * such a file when it is deleted and made again (an editor that saves that way):
 * - made again at once, the new file often gets the deleted one's inode number (ext4 reuses it), and
 *   chokidar, which compares those numbers to decide whether to watch the new file, goes on watching
 *   the deleted one: no later save is seen;
 * - made again after chokidar reported the deletion, it stopped watching the path and watches no
 *   folder that would show the new file.
 * So after a change to such a file that made it a new file (its inode number or birth time
 * differs), its watch is set up again; and after its deletion, its folder is watched (not its
 * subfolders) until the file is there again, which is then watched and reported as added. Files in
 * the root need none of this: their folder is watched.
 */
import { existsSync, statSync, watch, type FSWatcher } from 'node:fs'
import { basename, dirname, sep } from 'node:path'

/** What this needs of Vite's watcher. */
export interface DevWatcher {
  add(path: string): unknown
  unwatch(path: string): unknown
  emit(event: 'add' | 'change', path: string): boolean
  getWatched(): Record<string, string[]>
}

/** Which file is at a path: its inode number and birth time (a file deleted and made again differs in one). */
function identityOf(file: string): string | undefined {
  try {
    const stats = statSync(file, { bigint: true })
    return `${stats.ino}:${stats.birthtimeNs}`
  } catch {
    return undefined
  }
}

const mtimeOf = (file: string): number | undefined => {
  try {
    return statSync(file).mtimeMs
  } catch {
    return undefined
  }
}

/** How long a watch set up again may take to be in place (chokidar sets it up asynchronously). */
const REARM_WAIT_MS = 2_000

export class OutsideRootFiles {
  /** Each outside file's identity when last seen. */
  private readonly identities = new Map<string, string | undefined>()
  /** Deleted outside files: their folder's watch, until they are there again. */
  private readonly awaiting = new Map<string, FSWatcher>()
  private closed = false

  constructor(
    private readonly watcher: DevWatcher,
    private readonly root: string,
  ) {}

  private outside(file: string): boolean {
    return !file.startsWith(this.root.endsWith(sep) ? this.root : this.root + sep)
  }

  /** A dependency the server compiled from: which file it is now (the next change is compared with it). */
  seen(file: string): void {
    if (this.outside(file) && !this.identities.has(file)) this.identities.set(file, identityOf(file))
  }

  /** Vite's watcher reported `type` for the dependency `file`. */
  changed(type: 'create' | 'update' | 'delete', file: string): void {
    if (this.closed || !this.outside(file)) return
    if (type === 'delete') return this.awaitCreation(file)
    const now = identityOf(file)
    const before = this.identities.get(file)
    this.identities.set(file, now)
    if (before !== undefined && now !== undefined && before !== now) this.rearm(file)
  }

  /** Its watch set up again; a save made before the new watch was in place is reported as a change. */
  private rearm(file: string): void {
    const mtime = mtimeOf(file)
    this.watcher.unwatch(file)
    this.watcher.add(file)
    const watching = () => this.watcher.getWatched()[dirname(file)]?.includes(basename(file)) === true
    const end = Date.now() + REARM_WAIT_MS
    const check = () => {
      if (this.closed) return
      if (!watching() && Date.now() < end) return void setTimeout(check, 10).unref()
      if (mtimeOf(file) !== mtime) this.watcher.emit('change', file)
    }
    check()
  }

  /** Its folder watched until the file is there again; then it is watched and reported as added. */
  private awaitCreation(file: string): void {
    if (this.awaiting.has(file)) return
    let folder: FSWatcher
    const found = () => {
      if (!existsSync(file) || this.awaiting.get(file) !== folder) return
      this.stop(file)
      this.identities.set(file, identityOf(file))
      this.watcher.add(file)
      this.watcher.emit('add', file)
    }
    try {
      folder = watch(dirname(file), { persistent: false }, (_event, name) => {
        if (name === null || name === basename(file)) found()
      })
    } catch {
      return // The folder is gone too: a new file there is not followed.
    }
    folder.on('error', () => this.stop(file))
    this.awaiting.set(file, folder)
    found() // Made again before the folder was watched.
  }

  private stop(file: string): void {
    this.awaiting.get(file)?.close()
    this.awaiting.delete(file)
  }

  /** The server closes: no folder stays watched. */
  close(): void {
    this.closed = true
    for (const file of [...this.awaiting.keys()]) this.stop(file)
  }
}
