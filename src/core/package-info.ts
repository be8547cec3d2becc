import { createHash } from 'node:crypto'
import { lstatSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Root folder of this package, found from this file whether it runs from `src/` or `dist/`. */
export const packageRoot: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }
      if (pkg.name === 'unplugin-contracts') return dir
    } catch {
      // no package.json here; keep walking up
    }
    const parent = dirname(dir)
    if (parent === dir) throw new Error('unplugin-contracts: cannot find its own package.json')
    dir = parent
  }
})()

export const packageVersion: string = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version

/**
 * A file the build writes beside the compiled modules (`dist/<path>`: the precompiled validators),
 * found from the package root rather than from the calling module, because the CLI runs the
 * modules bundled into one file. Undefined when the caller runs from the sources (`src/`, as the
 * tests do): then nothing built is used, and a stale build cannot answer for edited sources.
 */
export function builtFile(callerUrl: string, path: string): string | undefined {
  return fileURLToPath(callerUrl).startsWith(join(packageRoot, 'src') + sep) ? undefined : join(packageRoot, 'dist', path)
}

let identity: string | undefined

/**
 * What a persistent cache keys compiled results by, beside their inputs: which code compiled them.
 * An installed package (a path inside `node_modules`) is its version, whose files do not change.
 * Any other copy (a checkout of this repository, a workspace package linked into an app) changes
 * its code without changing its version, so its identity adds a digest of the path, size and
 * modification time of every file under its `src/` and `dist/` (once per process, a few ms).
 */
export function codeIdentity(): string {
  if (identity !== undefined) return identity
  if (`${packageRoot}${sep}`.includes(`${sep}node_modules${sep}`)) return (identity = packageVersion)
  const stats: string[] = []
  const walk = (dir: string, depth: number) => {
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch {
      return
    }
    for (const name of names) {
      if (stats.length >= 50_000) return
      const path = join(dir, name)
      const stat = lstatSync(path, { throwIfNoEntry: false })
      if (stat?.isDirectory() && depth < 16) walk(path, depth + 1)
      else if (stat?.isFile()) stats.push(`${relative(packageRoot, path)}\0${stat.size}\0${stat.mtimeMs}`)
    }
  }
  walk(join(packageRoot, 'src'), 0)
  walk(join(packageRoot, 'dist'), 0)
  const digest = createHash('sha256').update(stats.sort().join('\n')).digest('hex').slice(0, 16)
  return (identity = `${packageVersion}+${digest}`)
}
