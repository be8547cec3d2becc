import { CORE_CODES, type CoreCode } from './codes.js'
import { isUtf8 } from 'node:buffer'
import { createHash } from 'node:crypto'
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, readSync, realpathSync, statSync } from 'node:fs'
import { dirname, join, resolve, sep } from 'node:path'
import type { Diagnostic } from './diagnostics.js'
import type { InputHost } from './format.js'
import { LIMITS } from './limits.js'

export const sha256 = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex')

/** Thrown by the host when a file cannot be read; the pipeline turns it into its diagnostic. */
export class InputError extends Error {
  constructor(readonly diagnostic: Diagnostic) {
    super(diagnostic.message)
  }
}

/** A problem with a whole file (line 1, column 1), for core's codes; a format positions its own with `diagnosticAt`. */
export function fileProblem(code: CoreCode, file: string, message: string): Diagnostic {
  return { code, severity: CORE_CODES[code].severity, message, file, pointer: '', line: 1, column: 1 }
}

// Declared in format.ts, which names nothing of Node's: they are part of the package's public types.
export type { PathKind, SourceOverlay } from './format.js'
import type { PathKind, SourceOverlay } from './format.js'

/** `InputHost.kind` of a path: what a cache checks again to know a probe still has its answer. */
export function pathKind(path: string): PathKind {
  if (path.includes('\0')) return 'other'
  let stat: ReturnType<typeof lstatSync>
  try {
    stat = lstatSync(path, { throwIfNoEntry: false })
  } catch {
    // A name too long for the file system (ENAMETOOLONG), a component that is a file (ENOTDIR):
    // nothing can be there.
    return 'missing'
  }
  if (!stat) return 'missing'
  return stat.isSymbolicLink() ? 'symlink' : stat.isFile() ? 'file' : stat.isDirectory() ? 'directory' : 'other'
}

/**
 * A host that records the digest and text of every file a format reads, and reads only inside
 * `root`'s tree (the contract's folder, unless a format widens it with `allowTree`): a path that
 * leaves it (`../../etc/passwd`, or a folder that is a link to elsewhere), names a symlink, or
 * holds a NUL byte is refused with a diagnostic before anything is opened. With an `overlay`, a
 * path it has a text for reads that text (after the same checks) instead of the file.
 */
/**
 * Files one compiler has read, by path, with what identified the file then (device, inode, size,
 * and the modification and change times in nanoseconds, `stat` without opening it): a compile that
 * reads a file whose identity is unchanged gets the text and digest read before, without opening
 * it again. A bundle's documents each verify every file the lock lists; compiled one after another
 * (a topology, a build importing them all), each file was opened and hashed once per document,
 * n² in all. Any write changes the change time, so an edited file is read again. Bounded by the
 * characters it holds (all dropped when full).
 */
export class ReadCache {
  private readonly files = new Map<string, { identity: string; text: string; sha256: string }>()
  private size = 0
  /** With `snapshot`: each path's place (a link, or its real path) and kind, as first found. */
  private readonly located = new Map<string, Located>()
  private readonly kinds = new Map<string, PathKind>()

  /**
   * `snapshot`: the files do not change while this cache lives (one command's run over many
   * documents, `contracts topology`): a file read before is not looked at again, nor a path's
   * confinement or kind. A bundle's n documents each read its n files, and each read's
   * confinement and identity were n² file system calls, two thirds of a 400-application topology
   * (an outside pass). Never for a compiler that outlives an edit (a dev server, `check --watch`).
   */
  constructor(
    private readonly limit = 32 * 1024 * 1024,
    readonly snapshot = false,
  ) {}

  /** The text and digest read before for `abs`, when the file there is still the one read. */
  get(abs: string): { text: string; sha256: string; identity: string } | undefined {
    const known = this.files.get(abs)
    if (known === undefined) return undefined
    if (this.snapshot) return known
    const now = fileIdentity(abs)
    return now !== undefined && now === known.identity ? known : undefined
  }

  /** `confine` of `abs` to `trees`; in a snapshot, what the file system says of `abs` is asked once (the trees differ by document). */
  confine(abs: string, trees: readonly string[], overlaid: boolean): void {
    if (!this.snapshot || overlaid) return confine(abs, trees, overlaid)
    let found = this.located.get(abs)
    if (found === undefined) this.located.set(abs, (found = located(abs, false)))
    confinedTo(abs, found, trees)
  }

  /** `pathKind` of `path`, once per path in a snapshot (every time otherwise). */
  kind(path: string): PathKind {
    if (!this.snapshot) return pathKind(path)
    let kind = this.kinds.get(path)
    if (kind === undefined) this.kinds.set(path, (kind = pathKind(path)))
    return kind
  }

  set(abs: string, identity: string, text: string, sha256: string): void {
    if (this.size + text.length > this.limit) this.clear()
    if (text.length > this.limit) return
    const old = this.files.get(abs)
    if (old) this.size -= old.text.length
    this.files.set(abs, { identity, text, sha256 })
    this.size += text.length
  }

  clear(): void {
    this.files.clear()
    this.size = 0
  }
}

/** A regular file's identity for ReadCache (undefined for anything else, or when it cannot be read). */
export function fileIdentity(abs: string): string | undefined {
  try {
    const st = statSync(abs, { bigint: true, throwIfNoEntry: false })
    return st?.isFile() ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}` : undefined
  } catch {
    return undefined
  }
}

/** A file's text and the digest of its bytes, as one read found them. */
export interface ReadText {
  text: string
  sha256: string
}

/**
 * A file's bytes as text: UTF-8 without a leading byte order mark (as a TextDecoder reads it), or
 * undefined when they are not UTF-8. A YAML file (`path` ending `.yaml` or `.yml`) may also be
 * UTF-16 or UTF-32, told as YAML 1.2 (section 5.2) tells them, by a byte order mark or by the zero
 * bytes of its first character (a YAML stream holds no NUL): every reader must take UTF-16, and
 * UTF-32 "for JSON compatibility"; Windows PowerShell 5.1 writes UTF-16 by default (an outside pass
 * found it refused). A code unit that is no character (a lone surrogate, past U+10FFFF) is no text.
 * JSON stays UTF-8 only (RFC 8259, section 8.1).
 */
export function decodedText(bytes: Buffer, path?: string): string | undefined {
  const encoding = path !== undefined && /\.ya?ml$/i.test(path) ? yamlEncoding(bytes) : undefined
  if (encoding === 'utf-32le' || encoding === 'utf-32be') return utf32Text(bytes, encoding === 'utf-32le')
  if (encoding !== undefined) {
    try {
      // A byte order mark is left out (TextDecoder's default).
      return new TextDecoder(encoding, { fatal: true }).decode(bytes)
    } catch {
      return undefined
    }
  }
  // Validate, then decode: both native, and together faster than a fatal TextDecoder (bench/).
  if (!isUtf8(bytes)) return undefined
  const text = bytes.toString('utf8')
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

/** The encoding of a YAML stream by YAML 1.2's table (section 5.2), when it is not UTF-8. */
function yamlEncoding(b: Buffer): 'utf-32be' | 'utf-32le' | 'utf-16be' | 'utf-16le' | undefined {
  if (b.length >= 4) {
    if (b[0] === 0 && b[1] === 0 && ((b[2] === 0xfe && b[3] === 0xff) || (b[2] === 0 && b[3] !== 0))) return 'utf-32be'
    if (b[0] !== 0 && b[1] === 0 && b[2] === 0 && b[3] === 0) return 'utf-32le'
    if (b[0] === 0xff && b[1] === 0xfe && b[2] === 0 && b[3] === 0) return 'utf-32le'
  }
  if (b.length >= 2) {
    if ((b[0] === 0xfe && b[1] === 0xff) || (b[0] === 0 && b[1] !== 0)) return 'utf-16be'
    if ((b[0] === 0xff && b[1] === 0xfe) || (b[0] !== 0 && b[1] === 0)) return 'utf-16le'
  }
  return undefined
}

/** UTF-32 as text (a byte order mark left out), or undefined for a length or code point that is no UTF-32. Linear, in slices. */
function utf32Text(b: Buffer, little: boolean): string | undefined {
  if (b.length % 4 !== 0) return undefined
  const parts: string[] = []
  const points: number[] = []
  for (let i = 0; i < b.length; i += 4) {
    const point = little ? b.readUInt32LE(i) : b.readUInt32BE(i)
    if (point > 0x10ffff || (point >= 0xd800 && point <= 0xdfff)) return undefined
    if (i === 0 && point === 0xfeff) continue
    points.push(point)
    if (points.length === 8192) parts.push(String.fromCodePoint(...points.splice(0)))
  }
  parts.push(String.fromCodePoint(...points))
  return parts.join('')
}

/**
 * `changed`: files a cache check just read and found changed (`ReadText` by absolute path); the
 * first read of each takes what the check read instead of reading and digesting it again.
 */
export function recordingHost(
  root: string,
  overlay?: SourceOverlay,
  cache?: ReadCache,
  changed?: Map<string, ReadText>,
): InputHost & {
  digests: Map<string, string>
  texts: Map<string, string>
  probes: Map<string, PathKind>
  unreadable: Set<string>
} {
  const digests = new Map<string, string>()
  const texts = new Map<string, string>()
  // What `kind` answered, by path: a file that appears where there was none (a bundle lock put in
  // a parent folder) changes the compile as much as an edit of a file read does.
  const probes = new Map<string, PathKind>()
  // Reads that failed: nothing of such a file is recorded, so a result that depends on it is not
  // one a cache can tell is still right (a missing file may be created, a large one cut down).
  const unreadable = new Set<string>()
  const trees = [realOrSelf(resolve(root))]
  // The same trees as named (not resolved through links): the folders between one and a file read.
  const named = [resolve(root)]
  /**
   * Probes each folder between the tree a file was read in and the file (`directory`): a folder
   * later swapped for a link out of the tree changes that answer, so a cache entry made before is
   * not answered for it (a fresh compile refuses the file as outside the tree). The digests alone
   * held: the link led to a copy with the same bytes. Bounded by the path's depth below its tree.
   */
  const probeFolders = (abs: string) => {
    const tree = named.find((dir) => abs.startsWith(dir.endsWith(sep) ? dir : dir + sep))
    if (tree === undefined) return
    for (let folder = dirname(abs); folder.length > tree.length && folder.startsWith(tree); folder = dirname(folder))
      if (!probes.has(folder)) probes.set(folder, cache ? cache.kind(folder) : pathKind(folder))
  }
  const host = {
    digests,
    texts,
    probes,
    unreadable,
    allowTree(dir: string) {
      trees.push(realOrSelf(resolve(dir)))
      named.push(resolve(dir))
    },
    async read(path: string) {
      const text = await host.readText(path)
      return { text, sha256: digests.get(resolve(path))! }
    },
    // Synchronous file system calls, on purpose: contracts are small local files, and a compile
    // makes a handful of calls (the file, a lock looked for in each folder up to the root) whose
    // thread-pool round trips were a tenth of a 500-channel compile, mostly spent idle (bench/).
    async kind(path: string) {
      const kind = overlay === undefined && cache?.snapshot ? cache.kind(resolve(path)) : overlaidKind(path, overlay)
      probes.set(resolve(path), kind)
      return kind
    },
    async readText(path: string) {
      try {
        return readRecorded(path)
      } catch (error) {
        unreadable.add(resolve(path))
        throw error
      }
    },
  }
  const readRecorded = (path: string): string => {
    if (path.includes('\0'))
      throw new InputError(
        fileProblem('CONTRACTS_READ_FAILED', path.replace(/\0/g, '\\0'), `Cannot read ${JSON.stringify(path)}: a path never holds a NUL byte.`),
      )
    const abs = resolve(path)
    // The overlay's version may have something else at this path than the disk (a version read from git).
    const said = overlay?.kind?.(abs)
    if (said !== undefined && said !== 'file') throw new InputError(notAFile(abs, said))
    if (cache) cache.confine(abs, trees, said === 'file')
    else confine(abs, trees, said === 'file')
    probeFolders(abs)
    // Read before by this compiler, and the same file still: its text and digest, not opened again.
    const cached = cache !== undefined && overlay?.text(abs) === undefined ? cache.get(abs) : undefined
    if (cached !== undefined) {
      digests.set(abs, cached.sha256)
      texts.set(abs, cached.text)
      return cached.text
    }
    // Read and digested by the cache check this compile follows (`changed`): taken once, as read then.
    const checked = changed?.get(abs)
    if (checked !== undefined && overlay?.text(abs) === undefined) {
      changed!.delete(abs)
      digests.set(abs, checked.sha256)
      texts.set(abs, checked.text)
      return checked.text
    }
    const identity = cache !== undefined && overlay?.text(abs) === undefined ? fileIdentity(abs) : undefined
    let read: Buffer | { size: number }
    try {
      read = overlaid(abs, overlay) ?? readRegularFileTransient(abs, LIMITS.fileBytes)
    } catch (error) {
      throw new InputError(fileProblem('CONTRACTS_READ_FAILED', abs, cannotRead(abs, error)))
    }
    if (!Buffer.isBuffer(read)) {
      throw new InputError(fileProblem('CONTRACTS_TOO_LARGE', abs, `${abs} has ${read.size} bytes; contract files are limited to ${LIMITS.fileBytes} bytes.`))
    }
    const bytes = read
    digests.set(abs, sha256(bytes))
    const text = decodedText(bytes, abs)
    if (text === undefined)
      throw new InputError(fileProblem('CONTRACTS_NOT_UTF8', abs, `${abs} is not valid UTF-8${/\.ya?ml$/i.test(abs) ? ' (nor UTF-16 or UTF-32)' : ''}.`))
    texts.set(abs, text)
    // Kept only when the file read is the one identified before reading it (not swapped meanwhile).
    if (identity !== undefined && fileIdentity(abs) === identity) cache!.set(abs, identity, text, digests.get(abs)!)
    return text
  }
  return host
}

/** An overlay's text for `abs` as the bytes a file holding it would have (or its size, past `LIMITS.fileBytes`); undefined when it has none. */
export function overlaid(abs: string, overlay: SourceOverlay | undefined): Buffer | { size: number } | undefined {
  const given = overlay?.bytes?.(abs)
  if (given instanceof Uint8Array) return Buffer.isBuffer(given) ? given : Buffer.from(given.buffer, given.byteOffset, given.byteLength)
  if (given !== undefined) return given
  const text = overlay?.text(abs)
  if (text === undefined) return undefined
  // UTF-8 takes at least one byte per UTF-16 code unit: a longer text is over the limit unencoded.
  if (text.length > LIMITS.fileBytes) return { size: Buffer.byteLength(text, 'utf8') }
  const bytes = Buffer.from(text, 'utf8')
  return bytes.length > LIMITS.fileBytes ? { size: bytes.length } : bytes
}

/** `pathKind` seen through an overlay: an unsaved document with no file yet is a file to the compile; a link stays a link. */
export function overlaidKind(path: string, overlay: SourceOverlay | undefined): PathKind {
  const said = overlay?.kind?.(resolve(path))
  if (said !== undefined) return said
  const kind = pathKind(path)
  return kind === 'missing' && overlay?.text(resolve(path)) !== undefined ? 'file' : kind
}

/** Why a file could not be read, in a sentence (not an errno code). */
function cannotRead(abs: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code
  const why: Record<string, string> = {
    ENOENT: 'there is no such file',
    ENOTDIR: 'a part of its path is not a folder',
    EISDIR: 'it is a folder, not a file',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    ELOOP: 'its path has too many symbolic links',
    ENAMETOOLONG: 'its path is too long',
  }
  return `Cannot read ${abs}: ${(code !== undefined && why[code]) || code || (error as Error).message}.`
}

/** The real path of a path that may not exist: its nearest existing ancestor's real path, with the rest of the path after it. */
function realOfAbsent(abs: string): string {
  let folder = abs
  // Bounded by the path's depth: each step drops one component, and the root exists.
  for (;;) {
    const parent = dirname(folder)
    try {
      return join(realpathSync.native(parent), abs.slice(parent.length))
    } catch {
      if (parent === folder) return abs
      folder = parent
    }
  }
}

/**
 * The real path, by the system's `realpath` (one call: Node's own `realpathSync` looks up every
 * component of the path in JavaScript, and a bundle's documents each confine every locked file, so
 * those lookups were two fifths of an outside pass's 200-application topology).
 */
function realOrSelf(path: string): string {
  try {
    return realpathSync.native(path)
  } catch {
    return path
  }
}

const inside = (path: string, tree: string) => path === tree || path.startsWith(tree.endsWith(sep) ? tree : tree + sep)

const symlinkProblem = (abs: string) =>
  fileProblem('CONTRACTS_SYMLINK', abs, `${abs} is a symbolic link; contracts and the files they read are plain files, never read through a link.`)

/** The diagnostic for a path an overlay says holds no file (a version read from git that has none there, or a link). */
function notAFile(abs: string, kind: PathKind): Diagnostic {
  if (kind === 'symlink') return symlinkProblem(abs)
  const why = kind === 'missing' ? 'there is no such file' : kind === 'directory' ? 'it is a folder, not a file' : 'not a regular file'
  return fileProblem('CONTRACTS_READ_FAILED', abs, `Cannot read ${abs}: ${why}.`)
}

/**
 * Throws the diagnostic for a path that is a symlink or whose real location is outside every
 * allowed tree. `overlaid`: an overlay says the path holds a file in its version, so what the disk
 * has there is not looked at (only the folders on the way, which may be links out of the tree).
 */
function confine(abs: string, trees: readonly string[], overlaid = false): void {
  confinedTo(abs, located(abs, overlaid), trees)
}

/** Where a path is, as `confine` judges it: a link (or unreadable), or its real path. */
type Located = { problem: Diagnostic } | { real: string }

function located(abs: string, overlaid: boolean): Located {
  let stat: ReturnType<typeof lstatSync> | undefined
  try {
    stat = overlaid ? undefined : lstatSync(abs, { throwIfNoEntry: false })
  } catch (error) {
    return { problem: fileProblem('CONTRACTS_READ_FAILED', abs, cannotRead(abs, error)) }
  }
  if (stat?.isSymbolicLink()) return { problem: symlinkProblem(abs) }
  // The real path: a folder on the way may itself be a link out of the tree.
  // A path with no file on disk (an unsaved document the overlay holds) is placed by its nearest
  // folder that exists: a link on the way out of the tree is seen before the file is created.
  return { real: stat ? realOrSelf(abs) : realOfAbsent(abs) }
}

function confinedTo(abs: string, place: Located, trees: readonly string[]): void {
  if ('problem' in place) throw new InputError(place.problem)
  if (!trees.some((tree) => inside(place.real, tree))) {
    throw new InputError(
      fileProblem('CONTRACTS_OUTSIDE_TREE', abs, `${abs} is outside the contract's folder tree (${trees[0]}); a contract reads only files beside or below it.`),
    )
  }
}

/**
 * The bytes of a regular file, or its size when it has more than `maxBytes` (not read). Opened
 * without blocking and checked before reading: a FIFO or a device under a contract's name would
 * otherwise wait forever (for a writer, or for an end).
 */
export function readRegularFile(path: string, maxBytes: number): Buffer | { size: number } {
  return readRegular(path, maxBytes, false)
}

/** What `readRegularFile` throws for something other than a regular file (its `code` says so). */
const notRegular = () => Object.assign(new Error('not a regular file'), { code: 'not a regular file' })

/** Files up to this size are read into `scratch`, one buffer kept for the process. */
const SCRATCH_BYTES = 1024 * 1024
let scratch: Buffer | undefined

/**
 * `readRegularFile`, with the bytes of a file up to a megabyte in a buffer the next call reuses:
 * for a caller that is done with them before it reads again (it decodes and digests them). A new
 * buffer of a few hundred kilobytes is fresh memory each time, and touching fresh pages cost more
 * than reading the file into them (bench/: 0.8 ms against 0.1 ms for the 300 KB NATS bench document).
 */
export function readRegularFileTransient(path: string, maxBytes: number): Buffer | { size: number } {
  return readRegular(path, maxBytes, true)
}

function readRegular(path: string, maxBytes: number, transient: boolean): Buffer | { size: number } {
  // Looked at before it is opened: opening a FIFO, even without blocking, lets a writer waiting for a
  // reader go on (and feed what it holds), and opening a device can act (a tape rewinds). A path that
  // is missing is left to `open` and its error. The descriptor is checked again below, since something
  // else may be put in its place between the two.
  if (statSync(path, { throwIfNoEntry: false })?.isFile() === false) throw notRegular()
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) throw notRegular()
    if (stat.size > maxBytes) return { size: stat.size }
    if (!transient || stat.size >= SCRATCH_BYTES) return readFileSync(fd)
    // One byte more than the size: a file that grew since `fstat` is read to its end, as `readFileSync` reads it.
    const want = stat.size + 1
    if (scratch === undefined || scratch.length < want) scratch = Buffer.allocUnsafeSlow(Math.min(SCRATCH_BYTES, Math.max(want, 64 * 1024) * 2))
    let n = 0
    while (n < want) {
      const read = readSync(fd, scratch, n, want - n, null)
      if (read === 0) break
      n += read
    }
    return n < want ? scratch.subarray(0, n) : Buffer.concat([scratch.subarray(0, n), readFileSync(fd)])
  } finally {
    closeSync(fd)
  }
}
