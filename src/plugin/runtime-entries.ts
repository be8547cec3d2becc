import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { packageRoot } from '../core/package-info.js'

/**
 * Generated modules (and apps) import the runtime of this very plugin, wherever the app resolves
 * packages from: `unplugin-contracts/runtime` and its subpaths map to this package's build.
 */
export const RUNTIME_ENTRIES: ReadonlyMap<string, string> = new Map(
  Object.entries({
    '': 'index',
    '/http': 'benzene/http',
    '/drift': 'benzene/drift',
    '/nats': 'nats/index',
    '/dasp': 'dasp/index',
    '/linear-pattern': 'shared/linear-pattern',
  }).map(([sub, file]) => [`unplugin-contracts/runtime${sub}`, join(packageRoot(), 'dist/src/runtime', `${file}.js`)]),
)

/**
 * The packages the runtime imports, mapped to their ES module builds: the plugin resolves them
 * itself, so a bundle of generated code is complete without a node-resolve plugin (Rollup).
 */
export const RUNTIME_DEPENDENCIES: ReadonlyMap<string, string> = new Map(['canonicalize', 're2js'].map((name) => [name, esmEntry(name)]))
/** Every file the two maps above resolve to (esbuild asks this plugin to load them). */
export const RUNTIME_FILES: ReadonlySet<string> = new Set([...RUNTIME_ENTRIES.values(), ...RUNTIME_DEPENDENCIES.values()])
/** The runtime's folder: an import from there of a runtime dependency is resolved to its ES module build. */
export const RUNTIME_DIR = join(packageRoot(), 'dist/src/runtime')

function esmEntry(name: string): string {
  // Not `resolve(name + '/package.json')`: a package's `exports` need not list its manifest.
  const folders = createRequire(join(packageRoot(), 'package.json')).resolve.paths(name) ?? []
  const manifest = folders.map((folder) => join(folder, name, 'package.json')).find((file) => existsSync(file))
  if (manifest === undefined) throw new Error(`unplugin-contracts: cannot find the package ${name}`)
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: Record<string, unknown>; module?: string }
  const root = pkg.exports?.['.'] as { import?: string | { default?: string } } | undefined
  const file = typeof root?.import === 'string' ? root.import : (root?.import?.default ?? pkg.module)
  if (typeof file !== 'string') throw new Error(`unplugin-contracts: ${name} has no ES module build`)
  return join(dirname(manifest), file)
}
