/**
 * The code-cache folder kept bounded (src/core/code-cache.ts). Each validator text, V8 version and
 * set of V8 flags has a cache of its own, so a folder gains files with every package upgrade, every
 * Node upgrade and every new `NODE_OPTIONS`, and nothing else removes them. After a process writes
 * its caches, it removes those that no process used for `UNUSED_DAYS` days (a use refreshes a
 * cache's time, at most once a day) and, beyond the `MAX_CACHES` used last, the older ones; and
 * the temp files of writes a process did not finish (killed between the write and the rename).
 * Not removed at once for being named otherwise than this process names them: another installed
 * version of the package, another Node or other flags may be using them, and each would replace
 * the other's caches on every alternation.
 *
 * Only files this package wrote: a regular file (not a link), of this user's, with a cache's name,
 * whose HMAC under the folder's key verifies (`wrote`); anything else there is left as it is. The
 * work is bounded: the names looked at, and the files read to check their MAC.
 *
 * Another process may use a cache (refreshing its time) or write it anew (a rename over its name)
 * between the scan and the removal: what is removed is the very file the scan saw, its time
 * unchanged, whose MAC was checked, taken from its name by a rename before it is removed; anything
 * else found at the name is left there or put back.
 */
import { randomBytes } from 'node:crypto'
import { closeSync, constants, fstatSync, linkSync, lstatSync, opendirSync, openSync, readFileSync, renameSync, unlinkSync, type Stats } from 'node:fs'
import { join } from 'node:path'
import { ageMs } from './file-age.js'

/** A cache's name: the text's digest, V8's version (`_` for what a name may not hold) and, since names carry them, V8's flags. */
export const CACHE_NAME = /^([0-9a-f]{64})-([0-9A-Za-z._]+?)(?:-([0-9a-f]{8}|none))?\.v8-cache$/
/** The temp file of a cache being written: `<cache name>.<pid>.<12 hex>.tmp`. */
const TEMP_NAME = /^(.+\.v8-cache)\.\d+\.[0-9a-f]{12}\.tmp$/
const DAY_MS = 24 * 60 * 60 * 1000
export const UNUSED_DAYS = 30
/** Caches kept at most: the validators (a handful) for many V8 versions and flags. */
export const MAX_CACHES = 64
/** A temp file older than this is a write that will not finish. */
const STALE_TEMP_MS = 60 * 60 * 1000
/** A use refreshes a cache's time when it is older than this (not a write per use). */
export const TOUCH_AFTER_MS = DAY_MS
/** Names looked at in one pass, and files read to check them. */
const SCAN_LIMIT = 10_000
const CHECK_LIMIT = 256
/** Larger than any cache of the package's validators (about 0.3 MB each): not one of them. */
const MAX_CACHE_BYTES = 64 * 1024 * 1024

export interface PruneOptions {
  /** Whether `bytes`, found under the cache name `name`, is a cache this package wrote (its MAC verifies). */
  wrote(name: string, bytes: Buffer): boolean
  /** Owned by this user and writable by no other (as the reader requires of a cache). */
  trusted(stats: Stats): boolean
  /** Names just written: kept whatever their time. */
  keep: ReadonlySet<string>
  now?: number
}

interface Found {
  name: string
  /** The cache name its MAC is checked under (a temp file's, the cache it was to become). */
  cache: string
  time: number
  temp: boolean
  /** The file the scan saw (a file written anew since is another). */
  dev: number
  ino: number
}

/** Removes what the folder's rules say (see above); returns the names removed. */
export function pruneCodeCaches(dir: string, { wrote, trusted, keep, now = Date.now() }: PruneOptions): string[] {
  const caches: Found[] = []
  const temps: Found[] = []
  let handle
  try {
    handle = opendirSync(dir)
  } catch {
    return []
  }
  try {
    for (let i = 0; i < SCAN_LIMIT; i++) {
      const entry = handle.readSync()
      if (entry === null) break
      const temp = TEMP_NAME.exec(entry.name)
      const cache = temp ? temp[1]! : entry.name
      if (!CACHE_NAME.test(cache) || (!temp && keep.has(cache))) continue
      const stats = lstat(join(dir, entry.name))
      if (!stats?.isFile() || !trusted(stats)) continue
      ;(temp ? temps : caches).push({ name: entry.name, cache, time: stats.mtimeMs, temp: temp !== null, dev: stats.dev, ino: stats.ino })
    }
  } finally {
    handle.closeSync()
  }
  // Youngest first (a time in the future reads as the oldest: see ageMs).
  caches.sort((a, b) => ageMs(a.time, now) - ageMs(b.time, now) || b.time - a.time)
  const stale = [
    ...temps.filter((t) => ageMs(t.time, now) > STALE_TEMP_MS),
    // The ones used last are kept (the caches just written among them); past the bound, or unused too long, removed.
    ...caches.filter((c, i) => i + keep.size >= MAX_CACHES || ageMs(c.time, now) > UNUSED_DAYS * DAY_MS),
  ]
  const removed: string[] = []
  for (const found of stale.slice(0, CHECK_LIMIT)) if (removeChecked(dir, found, wrote, trusted)) removed.push(found.name)
  return removed
}

/**
 * Removes `found` when the name still holds the file the scan saw, unchanged since, and its MAC
 * verifies. Checked, the file is then taken from its name (a rename, atomic, to a temp file's name
 * of this process's) and removed only if what was taken is the file checked (its inode and time):
 * another file put at the name meanwhile is given its name back, never removed. A file that is not
 * the package's is never moved at all.
 */
function removeChecked(dir: string, found: Found, wrote: PruneOptions['wrote'], trusted: PruneOptions['trusted']): boolean {
  const path = join(dir, found.name)
  const bytes = readRegular(path, trusted, found)
  if (bytes === undefined || !wrote(found.cache, bytes)) return false
  const taken = join(dir, `${found.cache}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
  try {
    renameSync(path, taken)
  } catch {
    return false // Gone already (another process pruned it), or the folder is read-only.
  }
  const now = lstat(taken)
  if (now?.isFile() && sameFile(now, found)) {
    try {
      unlinkSync(taken)
      return true
    } catch {
      // Not removed (the folder turned read-only): given its name back below.
    }
  }
  putBack(taken, path)
  return false
}

/** The file the scan saw, its time unchanged (a cache written anew is another file; a use changes the time). */
const sameFile = (stats: Stats, seen: Found): boolean => stats.dev === seen.dev && stats.ino === seen.ino && stats.mtimeMs === seen.time

/** Gives a taken entry its name back without replacing what another process wrote there since. */
function putBack(taken: string, path: string): void {
  try {
    // A hard link fails when the name is taken again (EEXIST): then both are kept.
    linkSync(taken, path)
    unlinkSync(taken)
  } catch (error) {
    // A folder cannot be linked; renamed back, it replaces nothing but an empty folder.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      try {
        renameSync(taken, path)
      } catch {
        // Kept under the temp name: never removed unless its MAC verifies.
      }
    }
  }
}

function lstat(path: string): Stats | undefined {
  try {
    return lstatSync(path)
  } catch {
    return undefined
  }
}

/**
 * A regular file's bytes (not through a link: O_NOFOLLOW, checked on the descriptor), when it is the
 * file the scan saw, its time unchanged, and no larger than a cache.
 */
function readRegular(path: string, trusted: (stats: Stats) => boolean, seen: Found): Buffer | undefined {
  let fd: number | undefined
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0))
    const stats = fstatSync(fd)
    if (!stats.isFile() || !trusted(stats) || stats.size > MAX_CACHE_BYTES) return undefined
    if (!sameFile(stats, seen)) return undefined
    return readFileSync(fd)
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}
