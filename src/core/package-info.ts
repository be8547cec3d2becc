import { readFileSync } from 'node:fs'
import { dirname, join, sep } from 'node:path'
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
