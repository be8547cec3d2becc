/**
 * Compiled results kept on disk between processes (a second build, a CI job that restores the
 * folder), beside the in-memory cache of `ContractCompiler`. An entry answers one question (the
 * claiming format, its resolved options, the import query, the code that compiled it, and the
 * contract's path relative to the project root, so that a cache restored into another checkout
 * still answers) and stands while every input it records still has its bytes: on each read the
 * entry's own digest is checked, every file the compile read is hashed again, and every path it
 * probed (a bundle lock looked for in each parent folder) must still hold what it held.
 *
 * Correct before fast: anything unexpected is a miss, never an error and never a guess. A truncated
 * or edited entry, one that does not parse, one written by another version of this package (or
 * other code of a checkout), one copied under another entry's name, one bound to another checkout
 * (its result names absolute paths), a link or a folder in an entry's place: all are misses, and the
 * compile that follows writes the entry again. A result that depends on a read that failed (a
 * file that could not be opened as it was read) or on a bug (`CONTRACTS_INTERNAL`) is not written
 * at all; one that found a file missing keeps that as a probe (the file appearing is a miss).
 *
 * Entries are written by the project's one safe writer (`safe-write.ts`), atomically: a temp file
 * beside the entry, created with O_EXCL | O_NOFOLLOW and renamed over it, so a reader sees a whole
 * entry or the previous one, and two processes writing at once leave one whole entry. Nothing is
 * written through a link, nor over a file without the generated-file marker. The folder is bounded
 * (`maxBytes`): after a write that takes it past the bound, the least recently used entries (by
 * modification time, which a hit refreshes) are removed until it holds three quarters of it; a
 * file there without an entry's header, whatever its name, is never removed (nor written over).
 *
 * Trust: an entry's digest proves it whole, not who wrote it. The folder and its entries must not be
 * writable by other users (a world-writable folder or entry is not read, nor a group-writable one
 * whose group holds another user: file-trust.ts), but whoever can write the
 * folder as this user could as well edit `node_modules`, where the compiler itself lives.
 */
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  futimesSync,
  lstatSync,
  mkdirSync,
  openSync,
  opendirSync,
  readFileSync,
  readSync,
  statSync,
  unlinkSync,
  type Stats,
} from 'node:fs'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import type { Diagnostic } from './diagnostics.js'
import { ageMs } from './file-age.js'
import { othersMayWrite } from './file-trust.js'
import type { Generated } from './format.js'
import type { PathKind } from './format.js'
import { pathKind, readRegularFileTransient, sha256 } from './input-host.js'
import { LIMITS } from './limits.js'
import { codeIdentity } from './package-info.js'
import { GENERATED_MARKER, writeOwnedFile } from './safe-write.js'

/** The layout of an entry; another layout is a miss. */
const SCHEMA = 2
/** 256 MiB: far more than the compiled results of a large monorepo's contracts. */
export const DEFAULT_CACHE_MAX_BYTES = 256 * 1024 * 1024
/** The first line of every entry: the generated-file marker (the safe writer replaces only files that carry it). */
const HEADER = `# ${GENERATED_MARKER}. Do not edit. Compile cache entry.`
const NEWLINE = 0x0a
const ENTRY_NAME = /^[0-9a-f]{64}\.entry$/
/**
 * The safe writer's temp files of entries (`.<name>.<12 hex>.tmp`). One left by a process killed
 * while writing counts toward the bound, and is removed once it has not changed for STALE_TEMP_MS:
 * a write in progress touches its file far more often than that (an entry is at most a quarter of
 * the bound, written in one go).
 */
const TEMP_NAME = /^\.[0-9a-f]{64}\.entry\.[0-9a-f]{12}\.tmp$/
const STALE_TEMP_MS = 10 * 60 * 1000
/** A hit refreshes an entry's time (for eviction) when it is older than this: not a write per hit. */
const TOUCH_AFTER_MS = 10 * 60 * 1000
/** Names looked at by one eviction pass: the work stays bounded whatever was put in the folder. */
const SCAN_LIMIT = 100_000
const KINDS: readonly PathKind[] = ['file', 'directory', 'symlink', 'missing', 'other']
const posix = process.platform !== 'win32'

export interface PersistentCacheOptions {
  /** The folder of the entries; created (with its parents) on the first write. */
  dir: string
  /** The project root: entries name files relative to it. */
  root: string
  /** The bound on the size of the folder's entries, in bytes. @default 256 MiB */
  maxBytes?: number
  /**
   * A compile that asks for declarations and does not read them at once: by default they are
   * written on the next turn of the event loop, so that its entry answers the next compile that asks
   * for them; with this, the entry is kept without them until they are read (a dev server writes
   * its sidecars once the saves pause, and an edit should not wait for declarations).
   * @default false
   */
  declarationsWhenRead?: boolean
}

/** What a compile asks: the entry's key, with the contract's path. */
export interface CacheQuestion {
  /** The claiming format's name. */
  format: string
  /** The import query, as given. */
  query: string
  /** The format's resolved options (JSON-serializable). */
  options: unknown
}

/** A compile's result as the compiler keeps it, paths absolute. */
export interface StoredCompile {
  code?: string
  /** The declarations, when the compile that wrote the entry had read them. */
  dts?: string
  exports?: readonly string[]
  identity?: string
  diagnostics: Diagnostic[]
  /** The lines the source map ties to the contract (it is made again from them and the contract's text). */
  mappings?: Generated['mappings']
  /** Every file read (the contract among them), with the SHA-256 of its bytes: the result's `dependencies`, in order. */
  inputs: ReadonlyMap<string, string>
  /** Every path whose kind was asked, with the answer. */
  probes: ReadonlyMap<string, PathKind>
}

/** A verified entry, and the contract's text (read to check it, and needed for the source map). */
export interface CacheHit {
  stored: StoredCompile
  text: string
}

/** An entry as written (JSON), paths relative to the root with `/`. */
interface EntryBody {
  schema: number
  /** `codeIdentity()`: the package version, and for a checkout a digest of its code. */
  compiler: string
  key: string
  file: string
  /** The absolute root when the result names it (then the entry answers only there), or null. */
  root: string | null
  result: {
    code?: string
    dts?: string
    exports?: string[]
    identity?: string
    diagnostics: Diagnostic[]
    mappings?: Generated['mappings']
  }
  inputs: Array<[string, string]>
  /** Paths whose kind was asked, relative to the root (none above it: see `above`). */
  probes: Array<[string, PathKind]>
  /**
   * Names looked for, and not found, in every folder above the root up to the file system's root (a
   * `bundle.lock.json` searched for in each parent folder). Kept as names, not paths, so that a
   * cache restored into a checkout at another depth checks every folder above that root: as paths
   * relative to the root, a deeper checkout would check only as many as the first had.
   */
  above: string[]
}

/**
 * A folder of compiled results (`ContractCompiler`'s `cache` option). `hits`, `misses` and `writes`
 * count what it did, for tests and benchmarks.
 */
export class PersistentCache {
  readonly dir: string
  readonly root: string
  readonly maxBytes: number
  readonly declarationsWhenRead: boolean
  hits = 0
  misses = 0
  writes = 0
  /** The folder's size as last scanned, plus what this process wrote since; undefined before the first write. */
  private size: number | undefined

  constructor(options: PersistentCacheOptions) {
    this.dir = resolve(options.dir)
    this.root = resolve(options.root)
    this.maxBytes = options.maxBytes ?? DEFAULT_CACHE_MAX_BYTES
    this.declarationsWhenRead = options.declarationsWhenRead === true
  }

  /** The file of the entry answering `question` for `file`. */
  entryPath(question: CacheQuestion, file: string): string {
    return join(this.dir, `${this.key(question, this.relative(file))}.entry`)
  }

  /**
   * The verified entry for `question` and `file`, or undefined (a miss, whatever was wrong). With
   * `declarations`, an entry of a module kept without its declarations is a miss too.
   */
  read(question: CacheQuestion, file: string, declarations = false): CacheHit | undefined {
    try {
      const hit = this.verified(question, resolve(file), declarations)
      if (hit) this.hits++
      else this.misses++
      return hit
    } catch {
      this.misses++
      return undefined
    }
  }

  /**
   * Writes the entry of a compile; false when it was not written (nothing to verify it by, a folder
   * that cannot be trusted or written, a refusal of the safe writer). Never throws.
   */
  write(question: CacheQuestion, file: string, stored: StoredCompile): boolean {
    try {
      return this.store(question, resolve(file), stored)
    } catch {
      return false
    }
  }

  private key(question: CacheQuestion, rel: string): string {
    return sha256(JSON.stringify([SCHEMA, codeIdentity(), rel, question.format, question.query.replace(/^\?/, ''), question.options ?? null]))
  }

  private relative(abs: string): string {
    return relative(this.root, abs).split(sep).join('/')
  }

  private absolute(rel: string): string {
    return resolve(this.root, ...rel.split('/'))
  }

  private verified(question: CacheQuestion, file: string, declarations: boolean): CacheHit | undefined {
    if (!this.trustedFolder()) return undefined
    const rel = this.relative(file)
    const key = this.key(question, rel)
    const bytes = readEntry(join(this.dir, `${key}.entry`), this.maxBytes)
    const body = bytes && decode(bytes)
    if (!body || body.schema !== SCHEMA || body.compiler !== codeIdentity() || body.key !== key || body.file !== rel) return undefined
    if (body.root !== null && body.root !== this.root) return undefined
    if (declarations && body.result.code !== undefined && body.result.dts === undefined) return undefined
    if (!body.inputs.some(([path]) => path === rel)) return undefined
    let text: string | undefined
    const inputs = new Map<string, string>()
    for (const [path, digest] of body.inputs) {
      const abs = this.absolute(path)
      // As the compile read it: a plain file (a link in its place is not what was read).
      if (pathKind(abs) !== 'file') return undefined
      // Into the buffer the next read reuses: digested and decoded before the next file is read.
      const read = readRegularFileTransient(abs, LIMITS.fileBytes)
      if (!Buffer.isBuffer(read) || sha256(read) !== digest) return undefined
      if (path === rel) text = withoutBom(read.toString('utf8'))
      inputs.set(abs, digest)
    }
    const probes = new Map<string, PathKind>()
    for (const [path, kind] of body.probes) {
      const abs = this.absolute(path)
      if (pathKind(abs) !== kind) return undefined
      probes.set(abs, kind)
    }
    for (const name of body.above)
      for (const folder of foldersAbove(this.root)) {
        const abs = join(folder, name)
        if (pathKind(abs) !== 'missing') return undefined
        probes.set(abs, 'missing')
      }
    const { result } = body
    const diagnostics = result.diagnostics.map((d) => ({ ...d, file: body.root === null ? this.absolute(d.file) : d.file }))
    return { stored: { ...result, diagnostics, inputs, probes }, text: text! }
  }

  private store(question: CacheQuestion, file: string, stored: StoredCompile): boolean {
    if (stored.inputs.size === 0) return false
    const rel = this.relative(file)
    const key = this.key(question, rel)
    const result: EntryBody['result'] = {
      ...(stored.code !== undefined ? { code: stored.code } : {}),
      ...(stored.dts !== undefined ? { dts: stored.dts } : {}),
      ...(stored.exports !== undefined ? { exports: [...stored.exports] } : {}),
      ...(stored.identity !== undefined ? { identity: stored.identity } : {}),
      diagnostics: stored.diagnostics,
      ...(stored.mappings !== undefined ? { mappings: stored.mappings } : {}),
    }
    // Relative to the root when nothing in the result names the root: then the entry answers in any
    // checkout. A root whose name would be written escaped somewhere (JSON, a URL) is never
    // searched for, only bound.
    const relocated = { ...result, diagnostics: result.diagnostics.map((d) => ({ ...d, file: this.relative(d.file) })) }
    // A probe above the root that is not one of a name's missing lookups in every folder there
    // (probesOf) binds the entry to this root too.
    const { probes, above } = this.probesOf(stored.probes)
    const portable =
      posix &&
      /^[A-Za-z0-9._\-/+@~]+$/.test(this.root) &&
      stored.diagnostics.every((d) => isAbsolute(d.file)) &&
      !JSON.stringify(relocated).includes(this.root) &&
      !probes.some(([path]) => outside(path))
    const body: EntryBody = {
      schema: SCHEMA,
      compiler: codeIdentity(),
      key,
      file: rel,
      root: portable ? null : this.root,
      result: portable ? relocated : result,
      inputs: [...stored.inputs].map(([path, digest]) => [this.relative(path), digest]),
      probes,
      above,
    }
    // The contract among the inputs (its text makes the source map); every path relative to the
    // root (on Windows, a file on another drive has no such path).
    if (!body.inputs.some(([path]) => path === rel) || [...body.inputs, ...body.probes].some(([path]) => isAbsolute(path))) return false
    const json = JSON.stringify(body)
    const text = `${HEADER}\n${sha256(json)}\n${json}`
    // One entry may not take over the folder (a bound of 1 MiB still keeps entries of 256 KiB).
    if (Buffer.byteLength(text) > this.maxBytes / 4) return false
    if (!this.trustedFolder(true)) return false
    const path = join(this.dir, `${key}.entry`)
    let written = writeOwnedFile(this.dir, path, text, { atomic: true })
    // A link planted in the entry's place is removed (unlinking a link never touches what it points
    // to), and so is an entry of this cache damaged at its start, where the marker is (empty, cut
    // short, zeroed: what a crash or a partial restore leaves), which the safe writer would refuse
    // as a file it did not write; the entry is then written as a new file. Anything else stays.
    if (
      !written.ok &&
      written.refused.some(
        (r) => r.path === path && ((r.reason === 'link' && lstatSync(path).isSymbolicLink()) || (r.reason === 'foreign' && startsAsEntry(path))),
      )
    ) {
      unlinkSync(path)
      written = writeOwnedFile(this.dir, path, text, { atomic: true })
    }
    if (!written.ok) return false
    this.writes++
    this.size = this.size === undefined ? this.scan().total : this.size + Buffer.byteLength(text)
    if (this.size > this.maxBytes) this.evict()
    return true
  }

  /**
   * The probes as an entry keeps them: relative to the root, except that a name found missing in
   * every folder above the root (and looked for nowhere else above it) is kept once, in `above`.
   */
  private probesOf(stored: ReadonlyMap<string, PathKind>): Pick<EntryBody, 'probes' | 'above'> {
    const probes: EntryBody['probes'] = []
    const aboveByName = new Map<string, Set<string>>()
    const folders = foldersAbove(this.root)
    for (const [path, kind] of stored) {
      const rel = this.relative(path)
      if (outside(rel) && kind === 'missing' && folders.includes(dirname(path))) {
        const name = basename(path)
        let seen = aboveByName.get(name)
        if (!seen) aboveByName.set(name, (seen = new Set()))
        seen.add(dirname(path))
      } else probes.push([rel, kind])
    }
    const above: string[] = []
    for (const [name, seen] of aboveByName) {
      // Every folder above the root, or the lookups stay paths (and bind the entry to this root).
      if (seen.size === folders.length) above.push(name)
      else for (const folder of seen) probes.push([this.relative(join(folder, name)), 'missing'])
    }
    return { probes, above }
  }

  /** The folder exists (made when `create`), is a folder, and no other user may write to it. */
  private trustedFolder(create = false): boolean {
    let stats: Stats | undefined
    try {
      stats = statSync(this.dir, { throwIfNoEntry: false })
      if (stats === undefined && create) {
        mkdirSync(this.dir, { recursive: true })
        stats = statSync(this.dir)
      }
    } catch {
      return false
    }
    return stats !== undefined && stats.isDirectory() && ours(stats)
  }

  /** The entries (regular files with an entry's name), with their sizes and times; stale temp files removed on the way, the others counted in `total`. */
  private scan(): { total: number; entries: Array<{ path: string; size: number; time: number }> } {
    const entries: Array<{ path: string; size: number; time: number }> = []
    let total = 0
    const dir = opendirSync(this.dir)
    try {
      for (let i = 0; i < SCAN_LIMIT; i++) {
        const dirent = dir.readSync()
        if (dirent === null) break
        const isEntry = ENTRY_NAME.test(dirent.name)
        if (!isEntry && !TEMP_NAME.test(dirent.name)) continue
        const path = join(this.dir, dirent.name)
        const stats = lstatSync(path, { throwIfNoEntry: false })
        if (!stats?.isFile()) continue
        if (isEntry) {
          entries.push({ path, size: stats.size, time: stats.mtimeMs })
          total += stats.size
        } else if (startsAsEntry(path) && !(ageMs(stats.mtimeMs) > STALE_TEMP_MS && removeQuietly(path))) total += stats.size
      }
    } finally {
      dir.closeSync()
    }
    return { total, entries }
  }

  /** Removes the least recently used entries until the folder holds at most three quarters of the bound. */
  private evict(): void {
    const { total, entries } = this.scan()
    let left = total
    // Least recently used first (a time in the future reads as the oldest: see ageMs).
    const now = Date.now()
    entries.sort((a, b) => ageMs(b.time, now) - ageMs(a.time, now) || a.time - b.time)
    for (const entry of entries) {
      if (left <= this.maxBytes * 0.75) break
      // A file with an entry's name that this cache did not write (no entry header) is not removed,
      // as the safe writer would not write over it; it is not the cache's to count either.
      if (!startsAsEntry(entry.path)) left -= entry.size
      else if (removeQuietly(entry.path)) left -= entry.size
    }
    this.size = left
  }
}

/**
 * Where compiled results go when no folder is named and the bundler has none of its own:
 * `node_modules/.cache/unplugin-contracts` of the nearest folder with a `package.json` (where other
 * tools keep theirs), else of the root.
 */
/**
 * Whether the environment turns the default cache off (`UNPLUGIN_CONTRACTS_CACHE=0`): `cache: true`
 * and the CLI without `--cache-dir` then keep nothing on disk; a folder named explicitly still
 * applies. For a CI job or a test suite that must compile every time without editing configs.
 */
export const defaultCacheOff = (env: Readonly<Record<string, string | undefined>> = process.env): boolean => env.UNPLUGIN_CONTRACTS_CACHE === '0'

/**
 * The default cache folder: `node_modules/.cache/unplugin-contracts` of the nearest folder with a
 * `package.json`, from `root` up, where other tools keep theirs. Undefined outside any package (a
 * contract checked from a home or downloads folder): no `node_modules` folder is made in a folder
 * that is no project, and nothing is kept unless a folder is named (`cache: '<dir>'`, `--cache-dir`).
 */
export function defaultCacheDir(root: string): string | undefined {
  for (let dir = resolve(root); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'node_modules', '.cache', 'unplugin-contracts')
    if (dirname(dir) === dir) return undefined
  }
}

/** Owned by this user (or root) and writable by no other user (file-trust.ts): POSIX only (Windows has no modes here). */
function ours(stats: Stats): boolean {
  if (!posix) return true
  return (stats.uid === process.getuid!() || stats.uid === 0) && !othersMayWrite(stats)
}

/**
 * An entry's bytes: a regular file of ours, not a link (O_NOFOLLOW, checked on the descriptor), no
 * larger than the bound allows an entry to be. A hit's time is refreshed through the same descriptor.
 */
function readEntry(path: string, maxBytes: number): Buffer | undefined {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0))
  } catch {
    return undefined
  }
  try {
    const stats = fstatSync(fd)
    if (!stats.isFile() || !ours(stats) || stats.size > maxBytes / 4) return undefined
    const bytes = readFileSync(fd)
    if (ageMs(stats.mtimeMs) > TOUCH_AFTER_MS) {
      try {
        const now = new Date()
        futimesSync(fd, now, now)
      } catch {
        // A read-only cache (restored, shared) is still read; its order of eviction is its owner's.
      }
    }
    return bytes
  } finally {
    closeSync(fd)
  }
}

/**
 * The body of an entry whose header is ours and whose digest matches its content, in the expected
 * shape; otherwise undefined. The digest is of the body's bytes as read (the header and the digest
 * are ASCII): a hit decodes its text once, for `JSON.parse`.
 */
function decode(bytes: Buffer): EntryBody | undefined {
  const first = bytes.indexOf(NEWLINE)
  const second = first === -1 ? -1 : bytes.indexOf(NEWLINE, first + 1)
  if (second === -1 || bytes.toString('latin1', 0, first) !== HEADER) return undefined
  const json = bytes.subarray(second + 1)
  if (bytes.toString('latin1', first + 1, second) !== sha256(json)) return undefined
  const body = JSON.parse(json.toString('utf8')) as unknown
  return isBody(body) ? body : undefined
}

const isString = (v: unknown): v is string => typeof v === 'string'
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const optional = (v: unknown, check: (v: unknown) => boolean) => v === undefined || check(v)
const isPosition = (v: unknown) => isObject(v) && Number.isInteger(v.line) && Number.isInteger(v.column)

/** The shape of an entry, member by member: a whole entry of another shape is not trusted to be a result. */
/** A path relative to the root that leads out of it. */
const outside = (rel: string): boolean => rel === '..' || rel.startsWith('../')

/** The folders above `root`, nearest first, up to the file system's root. */
function foldersAbove(root: string): string[] {
  const folders: string[] = []
  for (let dir = root; dirname(dir) !== dir;) folders.push((dir = dirname(dir)))
  return folders
}

function isBody(v: unknown): v is EntryBody {
  if (!isObject(v) || !isObject(v.result)) return false
  const r = v.result
  return (
    Number.isInteger(v.schema) &&
    isString(v.compiler) &&
    isString(v.key) &&
    isString(v.file) &&
    (v.root === null || isString(v.root)) &&
    optional(r.code, isString) &&
    optional(r.dts, isString) &&
    optional(r.identity, isString) &&
    optional(r.exports, (e) => Array.isArray(e) && e.every(isString)) &&
    Array.isArray(r.diagnostics) &&
    r.diagnostics.every(
      (d) =>
        isObject(d) &&
        isString(d.code) &&
        (d.severity === 'error' || d.severity === 'warning') &&
        isString(d.message) &&
        isString(d.file) &&
        isString(d.pointer) &&
        isPosition(d) &&
        optional(d.data, isObject),
    ) &&
    optional(r.mappings, (m) => Array.isArray(m) && m.every((x) => isObject(x) && Number.isInteger(x.line) && isPosition(x.position))) &&
    Array.isArray(v.inputs) &&
    v.inputs.every((i) => Array.isArray(i) && i.length === 2 && isString(i[0]) && isString(i[1]) && /^[0-9a-f]{64}$/.test(i[1])) &&
    Array.isArray(v.probes) &&
    v.probes.every((p) => Array.isArray(p) && p.length === 2 && isString(p[0]) && KINDS.includes(p[1] as PathKind)) &&
    Array.isArray(v.above) &&
    v.above.every((name) => isString(name) && name !== '' && name !== '.' && name !== '..' && !/[\\/\0]/.test(name))
  )
}

/** As a TextDecoder reads it (the host does the same): a leading byte order mark is not text. */
const withoutBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)

/**
 * Whether a file (not a link) is one this cache wrote: it starts with the entry header, or with what
 * a write cut short or a crash leaves of one (a part of the header, nothing, zeroed bytes). A file
 * that starts with anything else is someone else's, whatever its name.
 */
function startsAsEntry(path: string): boolean {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0))
  } catch {
    return false
  }
  try {
    if (!fstatSync(fd).isFile()) return false
    const head = Buffer.alloc(HEADER.length)
    const got = readSync(fd, head, 0, head.length, 0)
    const expected = Buffer.from(HEADER, 'latin1')
    return got === 0 || head[0] === 0 || head.subarray(0, got).equals(expected.subarray(0, got))
  } catch {
    return false
  } finally {
    closeSync(fd)
  }
}

function removeQuietly(path: string): boolean {
  try {
    unlinkSync(path)
    return true
  } catch {
    return false
  }
}
