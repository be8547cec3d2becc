/**
 * What `check --watch` watches: the folders of the paths a run read or looked for, each folder
 * watched (not each file) so that an editor's save by rename is seen. A path whose folder does not
 * exist (yet, or any more: deleted, or replaced by a new folder of the same name) is watched from
 * its nearest folder that does, for the name that leads to it: making the folder is a change, and
 * the run it starts watches the folder itself. A folder made again under the same name is another
 * folder (the old watch saw its last event); it is watched anew, and a change is reported once it
 * is, since what was written into it before the watch began was seen by no one.
 */
import { statSync, watch, type FSWatcher } from 'node:fs'
import { basename, dirname, relative, sep } from 'node:path'

interface Watched {
  watcher: FSWatcher
  /** The names in the folder whose events matter. */
  names: Set<string>
  /** The folder's identity when the watch began (device and inode). */
  identity: string
}

export interface PathWatch {
  /** Watches exactly these paths from now on (absolute); says whether a folder watched anew may have changed unseen. */
  update(paths: Iterable<string>): boolean
  close(): void
}

/** The folder's identity, or undefined when it is not a folder (or not there). */
function folderIdentity(path: string): string | undefined {
  try {
    const stat = statSync(path)
    return stat.isDirectory() ? `${stat.dev}:${stat.ino}` : undefined
  } catch {
    return undefined
  }
}

/** The folder to watch for `path` and the name in it that leads to `path`: its own folder, or its nearest existing ancestor. */
function watchPoint(path: string): { folder: string; name: string } {
  let folder = dirname(path)
  let name = basename(path)
  // Bounded by the path's depth: each step goes one folder up, and the root is a folder.
  while (folderIdentity(folder) === undefined && dirname(folder) !== folder) {
    name = relative(dirname(folder), folder).split(sep)[0]!
    folder = dirname(folder)
  }
  return { folder, name }
}

/** Calls `changed` on any event for a watched name (and on a watch that fails); never throws. */
export function watchPaths(changed: () => void): PathWatch {
  const watched = new Map<string, Watched>()
  const unwatch = (folder: string) => {
    watched.get(folder)?.watcher.close()
    watched.delete(folder)
  }
  return {
    update(paths) {
      const wanted = new Map<string, Set<string>>()
      for (const path of paths) {
        const { folder, name } = watchPoint(path)
        const names = wanted.get(folder) ?? new Set<string>()
        wanted.set(folder, names.add(name))
      }
      for (const folder of [...watched.keys()]) if (!wanted.has(folder) || folderIdentity(folder) !== watched.get(folder)!.identity) unwatch(folder)
      let anew = false
      for (const [folder, names] of wanted) {
        const known = watched.get(folder)
        if (known) {
          known.names = names
          continue
        }
        const identity = folderIdentity(folder)
        if (identity === undefined) continue
        try {
          const entry: Watched = { names, identity, watcher: undefined as unknown as FSWatcher }
          entry.watcher = watch(folder, (_event, name) => {
            if (name === null || entry.names.has(name.toString())) changed()
          })
          // A watch the system ends (the folder removed, on some systems an error): a change, looked at by the next run.
          entry.watcher.on('error', () => {
            unwatch(folder)
            changed()
          })
          watched.set(folder, entry)
          anew = true
        } catch {
          // A folder that vanished between the look and the watch, or one this process may not
          // watch: no run for it (a folder that cannot be watched would start one after each run).
        }
      }
      return anew
    },
    close() {
      for (const folder of [...watched.keys()]) unwatch(folder)
    },
  }
}
