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
 * new file opened with O_EXCL | O_NOFOLLOW and renamed over the name. Any failure (a read-only
 * home, a full disk) leaves the text to be compiled as usual. `UNPLUGIN_CONTRACTS_CODE_CACHE=0`
 * turns the cache off; `UNPLUGIN_CONTRACTS_CACHE_DIR` moves it (default: `$XDG_CACHE_HOME` or
 * `~/.cache`, `%LOCALAPPDATA%` on Windows, then `unplugin-contracts/v8`).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync, type Stats } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { Script } from 'node:vm'

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

/** A cache's file name: the text's digest, V8's version and V8's flags (V8 refuses another version's or other flags' data anyway). */
export const codeCacheName = (digest: string): string => `${digest}-${process.versions.v8.replace(/[^0-9A-Za-z.]/g, '_')}-${currentFlagsWord()}.v8-cache`

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

/** Reads a regular file that is not a link, checked on the descriptor it was read from. */
function readTrusted(path: string, secret = false): Buffer | undefined {
  let fd: number | undefined
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))
    if (!trusted(fstatSync(fd), 'file', secret)) return undefined
    return readFileSync(fd)
  } catch {
    return undefined
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

const macOf = (secret: Buffer, digest: string, data: Buffer): Buffer =>
  createHmac('sha256', secret).update(digest).update('\0').update(process.versions.v8).update('\0').update(data).digest()

/** V8's data for the text of `digest`, when this user made it here; undefined otherwise. */
export function readCodeCache(digest: string, env: NodeJS.ProcessEnv = process.env): Buffer | undefined {
  const dir = codeCacheDir(env)
  if (dir === undefined || !folder(dir, false)) return undefined
  const secret = key(dir, false)
  const file = secret && readTrusted(join(dir, codeCacheName(digest)))
  if (!secret || !file || file.length <= MAC_LENGTH) return undefined
  const data = file.subarray(MAC_LENGTH)
  return timingSafeEqual(file.subarray(0, MAC_LENGTH), macOf(secret, digest, data)) ? data : undefined
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
  for (const [digest, script] of pending) writeCodeCache(digest, script.createCachedData())
  pending.clear()
}
