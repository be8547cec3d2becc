/**
 * V8's code cache of the package's large built validators, made on the user's machine and never
 * shipped: the package holds only their JavaScript text, which anyone can read.
 *
 * What V8 itself checks of a cache is the length of the source and its own version and flags, not
 * the source's bytes: handed data made from another script of the same length, it runs that
 * script's functions. So a cache here is trusted only when this machine's user made it from this
 * very text:
 * - its name is the SHA-256 of the text, V8's version and the hash of V8's flags (another text,
 *   another file; another V8 configuration, another file: see `v8FlagsWord`);
 * - its first 32 bytes are an HMAC-SHA256, under a random key kept beside the caches (mode 0600),
 *   of that digest, V8's version and the data: data planted from elsewhere (a copied folder, a
 *   repository, a package) does not carry a valid MAC and is dropped;
 * - the folder, the key and the cache are regular files and folders, not links, owned by the
 *   current user and writable by nobody else; anything else is ignored, never followed or fixed.
 * Anyone who can read the key can already run code as this user.
 *
 * Caches are written when the process exits (so the functions that ran are compiled in them), to a
 * new file opened with O_EXCL | O_NOFOLLOW and renamed over the name; the folder is then pruned of
 * the caches no process used for a month, and of the oldest beyond a bound (src/core/code-cache-prune.ts).
 * Any failure (a read-only home, a full disk) leaves the text to be compiled as usual. `UNPLUGIN_CONTRACTS_CODE_CACHE=0`
 * turns the cache off; `UNPLUGIN_CONTRACTS_CACHE_DIR` moves it (default: `$XDG_CACHE_HOME` or
 * `~/.cache`, `%LOCALAPPDATA%` on Windows, then `unplugin-contracts/v8`).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import {
  closeSync,
  constants,
  fstatSync,
  futimesSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { Script } from 'node:vm'
import { CACHE_NAME, pruneCodeCaches, TOUCH_AFTER_MS } from './code-cache-prune.js'
import { ageMs } from './file-age.js'

const MAC_LENGTH = 32
const KEY_LENGTH = 32
const posix = process.platform !== 'win32'

/** The folder of this user's code caches, or undefined when caching is off. */
export function codeCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.UNPLUGIN_CONTRACTS_CODE_CACHE === '0') return undefined
  if (env.UNPLUGIN_CONTRACTS_CACHE_DIR) return join(env.UNPLUGIN_CONTRACTS_CACHE_DIR, 'v8')
  const base = env.XDG_CACHE_HOME || (process.platform === 'win32' ? env.LOCALAPPDATA : undefined) || join(homedir(), '.cache')
  return join(base, 'unplugin-contracts', 'v8')
}

/** SHA-256 of a text's UTF-8 (given as the text, or as those bytes), in hex. */
export const sourceDigest = (source: string | Uint8Array): string => createHash('sha256').update(source).digest('hex')

/**
 * The hash of the flags V8 runs under, in hex, as V8 writes it into the header of every cache it
 * makes (the fourth 32-bit word), read from the data of a one-character script. V8 refuses data
 * made under other flags (`--max-old-space-size`, `--stack-size`, `--expose-gc`, ... given on the
 * command line or in NODE_OPTIONS), so when processes started with other flags shared one name,
 * each replaced the other's cache whenever they alternated (a build under NODE_OPTIONS and a
 * `contracts check` without), and each compiled the validators from their text again: a first
 * compile took about 1.2x its CPU time. With the flags in the name, each configuration keeps its
 * own. Should a V8 version lay its header out otherwise, this reads another word of it and names
 * are one per V8 version, as they were: never wrong, since V8 still checks what it is handed.
 */
const v8FlagsWord = (data: Uint8Array): string =>
  data.length >= 16 ? Buffer.from(data.buffer, data.byteOffset, data.byteLength).readUInt32LE(12).toString(16).padStart(8, '0') : 'none'
let flagsWord: string | undefined
const currentFlagsWord = (): string => (flagsWord ??= v8FlagsWord(new Script('0').createCachedData()))

/** V8's version as a file name holds it. */
const versionInName = (version: string): string => version.replace(/[^0-9A-Za-z.]/g, '_')

/** A cache's file name: the text's digest, V8's version and V8's flags (V8 refuses another version's or other flags' data anyway). */
export const codeCacheName = (digest: string): string => `${digest}-${versionInName(process.versions.v8)}-${currentFlagsWord()}.v8-cache`

/** Owned by this user, a regular file or folder as asked, and writable by nobody else (POSIX; Windows has no modes here). */
function trusted(stats: Stats, kind: 'file' | 'folder', secret = false): boolean {
  if (stats.isSymbolicLink() || (kind === 'file' ? !stats.isFile() : !stats.isDirectory())) return false
  if (!posix) return true
  if (stats.uid !== process.getuid!()) return false
  return (stats.mode & (secret ? 0o077 : 0o022)) === 0
}

const lstatOrUndefined = (path: string): Stats | undefined => {
  try {
    return lstatSync(path)
  } catch {
    return undefined
  }
}

/**
 * Opens a cache file for reading: never through a link, and never waiting (a FIFO under a cache
 * file's name would otherwise hold the build until a writer came; the descriptor is checked next).
 */
const openCacheFile = (path: string): number => openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0))

/** Reads a regular file that is not a link, checked on the descriptor it was read from. */
function readTrusted(path: string, secret = false): Buffer | undefined {
  let fd: number | undefined
  try {
    fd = openCacheFile(path)
    if (!trusted(fstatSync(fd), 'file', secret)) return undefined
    return readFileSync(fd)
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** Marks a cache as used now (pruning removes the ones unused for long), at most once a day; never through a link. */
function touch(path: string): void {
  let fd: number | undefined
  try {
    fd = openCacheFile(path)
    const stats = fstatSync(fd)
    if (!trusted(stats, 'file') || ageMs(stats.mtimeMs) < TOUCH_AFTER_MS) return
    const now = new Date()
    futimesSync(fd, now, now)
  } catch {
    // A read-only folder: the cache is still used; pruning goes by the time it was written.
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** Writes `data` as a new file beside `path` (never through a link) and renames it over `path`. */
function writeNew(path: string, data: Buffer): void {
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600)
  try {
    writeSync(fd, data)
  } finally {
    closeSync(fd)
  }
  try {
    renameSync(temp, path)
  } catch (error) {
    unlinkSync(temp)
    throw error
  }
}

/** The folder, made if missing (mode 0700), when it is one this user alone controls. */
function folder(dir: string, create: boolean): boolean {
  const stats = lstatOrUndefined(dir)
  if (stats) return trusted(stats, 'folder')
  if (!create) return false
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
  } catch {
    return false
  }
  const made = lstatOrUndefined(dir)
  return made !== undefined && trusted(made, 'folder')
}

/** The MAC key, made on first use when `create`. */
function key(dir: string, create: boolean): Buffer | undefined {
  const path = join(dir, 'key')
  const existing = readTrusted(path, true)
  if (existing?.length === KEY_LENGTH) return existing
  if (!create || lstatOrUndefined(path)) return undefined
  try {
    writeNew(path, randomBytes(KEY_LENGTH))
  } catch {
    return undefined
  }
  const made = readTrusted(path, true)
  return made?.length === KEY_LENGTH ? made : undefined
}

const macOf = (secret: Buffer, digest: string, data: Buffer, version = process.versions.v8): Buffer =>
  createHmac('sha256', secret).update(digest).update('\0').update(version).update('\0').update(data).digest()

/**
 * Whether `file`, found under the cache name `name`, is one this package wrote with this key: its
 * MAC verifies for the digest and V8 version the name holds (this V8's, or another's as Node
 * spells them, `12.4.254.21-node.33` named `12.4.254.21_node.33`).
 */
function wroteCache(secret: Buffer, name: string, file: Buffer): boolean {
  const parts = CACHE_NAME.exec(name)
  if (!parts || file.length <= MAC_LENGTH) return false
  const [, digest, named] = parts as unknown as [string, string, string]
  const versions = new Set([process.versions.v8, named.replace(/_/g, '-'), named].filter((v) => versionInName(v) === named))
  const mac = file.subarray(0, MAC_LENGTH)
  const data = file.subarray(MAC_LENGTH)
  for (const version of versions) if (timingSafeEqual(mac, macOf(secret, digest, data, version))) return true
  return false
}

/** V8's data for the text of `digest`, when this user made it here; undefined otherwise. */
export function readCodeCache(digest: string, env: NodeJS.ProcessEnv = process.env): Buffer | undefined {
  const dir = codeCacheDir(env)
  if (dir === undefined || !folder(dir, false)) return undefined
  const secret = key(dir, false)
  const path = join(dir, codeCacheName(digest))
  const file = secret && readTrusted(path)
  if (!secret || !file || file.length <= MAC_LENGTH) return undefined
  const data = file.subarray(MAC_LENGTH)
  if (!timingSafeEqual(file.subarray(0, MAC_LENGTH), macOf(secret, digest, data))) return undefined
  touch(path)
  return data
}

/** Writes the cache of a script compiled from the text of `digest`. Returns whether it did. */
export function writeCodeCache(digest: string, data: Buffer, env: NodeJS.ProcessEnv = process.env): boolean {
  const dir = codeCacheDir(env)
  if (dir === undefined || !folder(dir, true)) return false
  const secret = key(dir, true)
  if (!secret) return false
  const path = join(dir, codeCacheName(digest))
  const at = lstatOrUndefined(path)
  // Replace only what this cache could have written: a regular file of this user's.
  if (at && !trusted(at, 'file')) return false
  try {
    writeNew(path, Buffer.concat([macOf(secret, digest, data), data]))
    return true
  } catch {
    return false
  }
}

const pending = new Map<string, Script>()

/**
 * Makes the cache of `script` (compiled from the text of `digest` without one) when the process
 * exits, after the functions that ran were compiled. Synchronous work in an `exit` listener, once.
 */
export function cacheOnExit(digest: string, script: Script): void {
  if (codeCacheDir() === undefined) return
  if (pending.size === 0) process.once('exit', writePending)
  pending.set(digest, script)
}

function writePending(): void {
  const written = new Set<string>()
  for (const [digest, script] of pending) if (writeCodeCache(digest, script.createCachedData())) written.add(codeCacheName(digest))
  pending.clear()
  if (written.size > 0) pruneFolder(written)
}

/** Prunes this user's cache folder (src/core/code-cache-prune.ts), keeping the caches just written. */
export function pruneFolder(keep: ReadonlySet<string>, env: NodeJS.ProcessEnv = process.env): string[] {
  const dir = codeCacheDir(env)
  if (dir === undefined || !folder(dir, false)) return []
  const secret = key(dir, false)
  if (!secret) return []
  return pruneCodeCaches(dir, { wrote: (name, bytes) => wroteCache(secret, name, bytes), trusted: (stats) => trusted(stats, 'file'), keep })
}
