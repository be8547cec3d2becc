import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, statSync, type Dirent } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { packageVersion } from './package-version.js'

export { packageVersion }

// Nothing here reads the disk when the module loads: the package root is imported by apps that
// bundle it (a server bundle of a dashboard that draws `toMermaid` pictures), where this file is
// no longer inside the package and the walk below finds no package.json. Only a caller that needs
// the package's own files (the plugin, the CLI, the built validators, the persistent cache) asks.

let root: string | null | undefined

/** Root folder of this package, found from this file whether it runs from `src/` or `dist/`; undefined when this file was bundled into an app. */
export function findPackageRoot(): string | undefined {
  if (root === undefined) {
    root = null
    let dir = dirname(fileURLToPath(import.meta.url))
    for (;;) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }
        if (pkg.name === 'unplugin-contracts') {
          root = dir
          break
        }
      } catch {
        // no package.json here; keep walking up
      }
      const parent = dirname(dir)
      if (parent === dir) break
      dir = parent
    }
  }
  return root ?? undefined
}

/** Root folder of this package, for callers that cannot work without its files (the plugin's runtime, the CLI's docs). */
export function packageRoot(): string {
  const found = findPackageRoot()
  if (found === undefined) throw new Error('unplugin-contracts: cannot find its own package.json')
  return found
}

/**
 * A file the build writes beside the compiled modules (`dist/<path>`: the precompiled validators),
 * found from the package root rather than from the calling module, because the CLI runs the
 * modules bundled into one file. Undefined when the caller runs from the sources (`src/`, as the
 * tests do): then nothing built is used, and a stale build cannot answer for edited sources.
 * Undefined too when the package was bundled into an app: the caller then does without it.
 */
export function builtFile(callerUrl: string, path: string): string | undefined {
  const found = findPackageRoot()
  if (found === undefined) return undefined
  return fileURLToPath(callerUrl).startsWith(join(found, 'src') + sep) ? undefined : join(found, 'dist', path)
}

let identity: string | undefined

/** The files of a tree that may run: modules and the data they read (the precompiled validators are `.cjs`, the version a `.json`). */
const RUNS = /\.(?:[cm]?[jt]s|json)$/
/** Declarations: read by type checkers, never run. */
const NEVER_RUNS = /\.d\.[cm]?ts$/

/**
 * What a persistent cache keys compiled results by, beside their inputs: which code compiled them:
 * the package's version, a digest of the path, size and modification time of every module of the
 * tree this code runs from (`dist/` when it runs from the build, `src/` when from the sources: the
 * one never loads the other), once per process, and the versions of the dependencies installed
 * beside it (`installedDependencies`). A checkout or a workspace package linked into an app
 * changes its code without changing its version; so does an installed copy (a path inside
 * `node_modules`): `patch-package` or `pnpm patch` edit its files in place, and a re-packed
 * tarball of the same version installs other files (an outside pass found a patched install still
 * served the modules its unpatched code made). An installed copy's digest leaves the modification
 * times out: `npm ci` gives every file the time it was written, and a CI job that restores its cache
 * folder beside a fresh install of the same published files must find its entries; so an edit of an
 * installed file that keeps its size is the one change this does not see. Files
 * that never run (declarations, source maps) are left out, and a bundled copy (the package's
 * entries as published) counts only what its bundles load (`bundledRuns`): a second build of a
 * linked package stats about 120 files rather than 490. A copy bundled into an app is
 * identified by the bundle file it runs from, the same way.
 */
export function codeIdentity(): string {
  if (identity !== undefined) return identity
  const found = findPackageRoot()
  if (found === undefined) {
    const self = fileURLToPath(import.meta.url)
    const stat = statSync(self, { throwIfNoEntry: false })
    const digest = createHash('sha256').update(`${self}\0${stat?.size}\0${stat?.mtimeMs}`).digest('hex').slice(0, 16)
    return (identity = `${packageVersion}+${digest}`)
  }
  const installed = `${found}${sep}`.includes(`${sep}node_modules${sep}`)
  const [tree, folder] = relative(found, fileURLToPath(import.meta.url)).split(sep)
  // Bundled (dist/chunks/, dist/cli-chunks/, dist/cli.js): the bundles load one another, the runtime
  // and the precompiled validators, never tsc's file-per-module output beside them.
  const digest =
    tree === 'dist' && folder !== 'src'
      ? treesDigest(found, ['dist'], bundledRuns, !installed)
      : treesDigest(found, tree === 'src' || tree === 'dist' ? [tree] : ['src', 'dist'], undefined, !installed)
  // The dependencies it runs change with an install as they do for an installed copy (a workspace's
  // hoisted `node_modules`, a checkout's own), without changing this tree: they count here too.
  return (identity = `${packageVersion}+${digest}+${installedDependencies(found)}`)
}

/**
 * A digest of `name@version` of each of the package's own dependencies (its package.json's
 * `dependencies`) as Node would resolve them from `found`: the nearest `node_modules/<name>` up the
 * folders. An installed package's files never change, but the packages it runs do: an `npm update`
 * within a range, an override or a dedupe changes the YAML reader or a validator's library without
 * changing this package's version, and an entry compiled by the earlier set is then not this code's
 * answer. About twenty small reads, once per process; a dependency not found counts as absent.
 */
export function installedDependencies(found: string): string {
  let names: string[] = []
  try {
    const pkg = JSON.parse(readFileSync(join(found, 'package.json'), 'utf8')) as { dependencies?: unknown }
    if (pkg.dependencies !== null && typeof pkg.dependencies === 'object') names = Object.keys(pkg.dependencies).sort()
  } catch {
    // no readable package.json: nothing to add
  }
  const versions = names.map((name) => `${name}@${installedVersion(found, name) ?? '-'}`)
  return createHash('sha256').update(versions.join('\n')).digest('hex').slice(0, 16)
}

/** The version in the nearest `node_modules/<name>/package.json` from `from` up (at most 64 folders). */
function installedVersion(from: string, name: string): string | undefined {
  let dir = from
  for (let depth = 0; depth < 64; depth++) {
    try {
      const version = (JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version?: unknown }).version
      if (typeof version === 'string') return version
    } catch {
      // not installed here; look further up
    }
    const parent = dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
  return undefined
}

/**
 * What a bundled copy may run, by its path under `dist/` (with `/`): everything outside `dist/src/`
 * (the bundles and their chunks), the entries directly in `dist/src/`, the runtime the bundles
 * import (`dist/src/runtime/`), and the data they read from tsc's tree (the precompiled validators,
 * `.cjs`, and any `.json`). The rest of `dist/src/` is tsc's output of the modules the bundles
 * were made from: tools and tests import it file by file, and their copy walks the whole tree.
 */
export function bundledRuns(path: string): boolean {
  if (!path.startsWith('src/')) return true
  const rest = path.slice('src/'.length)
  return !rest.includes('/') || rest.startsWith('runtime/') || rest.endsWith('.cjs') || rest.endsWith('.json')
}

/**
 * A digest of the path (relative to `root`), size and modification time of every file under the
 * `trees` of `root` that may run (`RUNS`, not `NEVER_RUNS`, and `runs` of its path inside its tree,
 * with `/`, when given): the code identity of a copy. Without `times`, path and size only (an
 * installed copy, whose files an install writes afresh). Only the files kept are stat'ed.
 * Links are not followed; at most 50,000 files, 16 folders deep.
 */
export function treesDigest(root: string, trees: readonly string[], runs?: (path: string) => boolean, times = true): string {
  const stats: string[] = []
  // Paths made by concatenation, relative ones alongside: `join` and `relative` normalize every
  // path again, which cost more than the stat calls themselves (about 900 names in a built tree).
  const walk = (dir: string, fromRoot: string, inTree: string, depth: number) => {
    let entries: Dirent[]
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      if (stats.length >= 50_000) return
      const rel = inTree === '' ? entry.name : `${inTree}/${entry.name}`
      if (entry.isDirectory()) {
        if (depth < 16) walk(dir + sep + entry.name, fromRoot + sep + entry.name, rel, depth + 1)
      } else if (entry.isFile() && RUNS.test(entry.name) && !NEVER_RUNS.test(entry.name) && (runs === undefined || runs(rel))) {
        const stat = statSync(dir + sep + entry.name, { throwIfNoEntry: false })
        if (stat) stats.push(times ? `${fromRoot}${sep}${entry.name}\0${stat.size}\0${stat.mtimeMs}` : `${fromRoot}${sep}${entry.name}\0${stat.size}`)
      }
    }
  }
  for (const tree of trees) walk(join(root, tree), tree, '', 0)
  return createHash('sha256').update(stats.sort().join('\n')).digest('hex').slice(0, 16)
}
