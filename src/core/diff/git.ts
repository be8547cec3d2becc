/**
 * Reading a version of the working tree's repository from git objects, for `contracts diff
 * --against <ref>`: the ref checked and resolved to a commit once, then the commit's tree listed once
 * (`git ls-tree`) and each file's text read on demand (`git cat-file`). Git runs with argument arrays
 * (no shell), with every transport refused (`protocol.allow=never`: a partial clone's lazy fetch is
 * refused too), no hook or file-system monitor run and no colour (a user's `color.ui=always` would colour
 * the names it lists): it reads local objects, nothing else.
 */
import { execFileSync } from 'node:child_process'
import { realpathSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import type { PathKind, SourceOverlay } from '../format.js'
import { LIMITS } from '../limits.js'
import { decodedText } from '../input-host.js'

/** A ref git refuses, or one that names no commit here: a usage error. */
export class GitRefError extends Error {}

const GIT_CONFIG = ['-c', 'protocol.allow=never', '-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', '-c', 'color.ui=false']

/** Runs git with arguments (never a shell line); its stdout as bytes. Throws on a non-zero exit. */
export function git(args: readonly string[], cwd: string, maxBuffer = 256 * 1024 * 1024): Buffer {
  return execFileSync('git', [...GIT_CONFIG, ...args], {
    cwd,
    maxBuffer,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_NO_LAZY_FETCH: '1', GIT_OPTIONAL_LOCKS: '0', GIT_PAGER: 'cat' },
  })
}

/**
 * Whether a ref is one `--against` takes: a branch, tag, commit id or `HEAD~2` style revision. Never
 * an option (`--upload-pack=x`), a path in a tree (`HEAD:../x`), a range (`a..b`), or text with
 * spaces or control characters.
 */
export function checkRef(ref: string): void {
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (ref === '' || ref.length > 256 || ref.startsWith('-') || /[\s\0-\x1f\x7f:\\]|\.\.|^@$/.test(ref))
    throw new GitRefError(`--against ${JSON.stringify(ref)} is not a git ref (a branch, tag, commit or HEAD~n; no options, paths, ranges or spaces).`)
}

/** What a path holds in a commit's tree. */
interface TreeEntry {
  kind: PathKind
  /** The blob's id, for a file. */
  object?: string
  size?: number
}

/** A commit of the working tree's repository, as a version `contracts diff` compiles. */
export interface GitVersion {
  /** The ref as given, and the commit it names. */
  ref: string
  commit: string
  /** The working tree's root (real path). */
  root: string
  /** The version's files standing in for the working tree's: a file the commit lacks is missing. */
  overlay: SourceOverlay
  /** What a working-tree path holds in the commit (undefined: outside the repository). */
  kind(path: string): PathKind | undefined
  /** A working-tree path as the repository names it (`a/b.yaml`), or undefined outside it. */
  relative(path: string): string | undefined
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

/** The working tree's root for a folder in it; a usage error outside any repository. */
export function gitRoot(cwd: string): string {
  try {
    return realOrSelf(git(['rev-parse', '--show-toplevel'], cwd).toString('utf8').trim())
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT')
      throw new GitRefError('git could not be run (is it installed and on the PATH?): --against reads the old version from git.')
    throw new GitRefError(`${cwd} is not in a git working tree: --against reads the old version from git${gitReason(error)}.`)
  }
}

/**
 * Why git refused, for the message: the first line it wrote (a repository owned by another user is
 * refused with "detected dubious ownership", which a CI container meets; "not a git repository"
 * otherwise). Empty when git said nothing.
 */
function gitReason(error: unknown): string {
  const { stderr } = error as { stderr?: unknown }
  const said = Buffer.isBuffer(stderr) ? stderr.toString('utf8') : typeof stderr === 'string' ? stderr : ''
  const first = said.split('\n').find((line) => line.trim() !== '')
  return first === undefined ? '' : ` (git: ${first.trim().slice(0, 200)})`
}

/** Resolves `ref` in the repository of `cwd` to its commit, and lists that commit's tree. */
export function gitVersion(ref: string, cwd: string): GitVersion {
  checkRef(ref)
  const root = gitRoot(cwd)
  let commit: string
  try {
    commit = git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], root)
      .toString('utf8')
      .trim()
  } catch {
    throw new GitRefError(`--against ${JSON.stringify(ref)} names no commit in ${root}.`)
  }
  const tree = new Map<string, TreeEntry>([['', { kind: 'directory' }]])
  // `-z`: paths as they are (no quoting); `-t`: the folders too; `-l`: blob sizes.
  for (const record of git(['ls-tree', '-r', '-t', '-l', '-z', '--full-tree', commit], root).toString('utf8').split('\0')) {
    const tab = record.indexOf('\t')
    if (tab < 0) continue
    const [mode, type, object, size] = record.slice(0, tab).split(/ +/)
    const path = record.slice(tab + 1)
    const kind: PathKind = type === 'tree' || type === 'commit' ? 'directory' : mode === '120000' ? 'symlink' : type === 'blob' ? 'file' : 'other'
    tree.set(path, { kind, ...(kind === 'file' ? { object, size: Number(size) } : {}) })
  }
  const rel = (path: string): string | undefined => {
    const abs = resolve(path)
    for (const candidate of [abs, join(realOrSelf(dirname(abs)), basename(abs))]) {
      const r = relative(root, candidate)
      if (r === '') return ''
      if (r !== '..' && !r.startsWith('..' + sep) && !isAbsolute(r)) return r.split(sep).join('/')
    }
    return undefined
  }
  const kind = (path: string): PathKind | undefined => {
    const r = rel(path)
    if (r === undefined) return undefined
    // The repository's own folder is not part of any version.
    if (r === '.git' || r.startsWith('.git/')) return 'missing'
    return tree.get(r)?.kind ?? 'missing'
  }
  const blobs = new Map<string, Buffer | { size: number }>()
  const texts = new Map<string, string>()
  const bytes = (path: string): Buffer | { size: number } | undefined => {
    const r = rel(path)
    const entry = r === undefined ? undefined : tree.get(r)
    if (entry?.kind !== 'file' || entry.object === undefined) return undefined
    let cached = blobs.get(entry.object)
    if (cached === undefined) {
      // Past the limit the compile refuses the file by its length alone: not read into memory.
      cached =
        entry.size !== undefined && entry.size > LIMITS.fileBytes
          ? { size: entry.size }
          : git(['cat-file', 'blob', entry.object], root, LIMITS.fileBytes + 1024)
      blobs.set(entry.object, cached)
    }
    return cached
  }
  const text = (path: string): string | undefined => {
    const blob = bytes(path)
    if (blob === undefined) return undefined
    if (!Buffer.isBuffer(blob)) return ' '.repeat(LIMITS.fileBytes + 1)
    let cached = texts.get(path)
    if (cached === undefined) texts.set(path, (cached = readBlob(blob, path)))
    return cached
  }
  return { ref, commit, root, overlay: { text, bytes, kind }, kind, relative: rel }
}

/** What differs between a commit and the working tree, as working-tree paths (absolute), each sorted. */
export interface TreeChanges {
  /** In both, with other bytes (or another kind). */
  changed: string[]
  /** In the working tree only (tracked since, or untracked and not ignored). */
  added: string[]
  /** In the commit only. */
  deleted: string[]
}

/** The files that differ between the version and the working tree (`git diff --name-status`, renames as a deletion and an addition). */
export function treeChanges(version: GitVersion): TreeChanges {
  const { root, commit } = version
  const changes: TreeChanges = { changed: [], added: [], deleted: [] }
  const fields = git(['diff', '--name-status', '--no-renames', '--no-ext-diff', '--no-textconv', '-z', commit, '--'], root).toString('utf8').split('\0')
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const status = fields[i]!
    const path = join(root, fields[i + 1]!)
    if (status.startsWith('A')) changes.added.push(path)
    else if (status.startsWith('D')) changes.deleted.push(path)
    else changes.changed.push(path)
  }
  for (const path of git(['ls-files', '--others', '--exclude-standard', '-z'], root).toString('utf8').split('\0'))
    if (path !== '') changes.added.push(join(root, path))
  for (const list of Object.values(changes)) list.sort()
  return changes
}

/** Every file of the commit and of the working tree (tracked or untracked, not ignored), absolute. */
export function allFiles(version: GitVersion): string[] {
  const { root, commit } = version
  const files = new Set<string>()
  for (const path of git(['ls-tree', '-r', '-z', '--name-only', '--full-tree', commit], root).toString('utf8').split('\0'))
    if (path !== '') files.add(join(root, path))
  for (const path of git(['ls-files', '--cached', '--others', '--exclude-standard', '-z'], root).toString('utf8').split('\0'))
    if (path !== '') files.add(join(root, path))
  return [...files].sort()
}

/**
 * A blob's text as the compile reads a file (a YAML file's UTF-16 and UTF-32 included,
 * `decodedText`); bytes that are not text are shown with replacements (code frames): the compile
 * reads the bytes themselves (`overlay.bytes`) and refuses them.
 */
function readBlob(bytes: Buffer, path: string): string {
  return decodedText(bytes, path) ?? bytes.toString('utf8')
}
