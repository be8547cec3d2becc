/**
 * A package-lock.json for a new app that installs the packed tarball and some of this project's
 * dev dependencies, cut from the project's own lock: the packages those reach, at the versions and
 * places the project's lock gives them. `npm ci` then installs the app from the npm cache as the
 * project's `npm ci` filled it (an `npm install` of names would ask the registry for documents
 * `npm ci` never reads), and the app gets exactly the versions the project is tested with.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { basename, join } from 'node:path'

interface LockEntry {
  version?: string
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
  optional?: boolean
  dev?: boolean
  devOptional?: boolean
  peer?: boolean
  [key: string]: unknown
}

export interface AppLock {
  /** The app's package.json. */
  manifest: Record<string, unknown>
  /** Its package-lock.json. */
  lock: Record<string, unknown>
}

/**
 * `tarball`: the packed package (a path beside the app folder, named `../<file>` in the lock);
 * `packages`: names of the project's dependencies to install beside it, at the project's versions.
 */
export function appLock(projectRoot: string, tarball: string, packages: readonly string[]): AppLock {
  const project = JSON.parse(readFileSync(join(projectRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }
  const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as LockEntry & { name: string; version: string }
  const all = project.packages
  const picked = new Map<string, LockEntry>()

  /** Where Node finds `name` from the package at `from`: its own node_modules, then each parent's. */
  const locate = (name: string, from: string): string | undefined => {
    let dir = from
    for (;;) {
      const path = dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`
      if (all[path]) return path
      if (dir === '') return undefined
      const cut = dir.lastIndexOf('/node_modules/')
      dir = cut === -1 ? '' : dir.slice(0, cut)
    }
  }
  const visit = (entry: LockEntry, from: string, where: string) => {
    const wanted: [string, boolean][] = [
      ...Object.keys(entry.dependencies ?? {}).map((n): [string, boolean] => [n, false]),
      ...Object.keys(entry.optionalDependencies ?? {}).map((n): [string, boolean] => [n, true]),
      ...Object.keys(entry.peerDependencies ?? {})
        .filter((n) => !entry.peerDependenciesMeta?.[n]?.optional)
        .map((n): [string, boolean] => [n, false]),
    ]
    for (const [name, optional] of wanted) {
      const path = locate(name, from)
      if (path === undefined) {
        if (optional) continue
        throw new Error(`package-lock.json: ${name}, needed by ${where}, is not in the lock`)
      }
      if (picked.has(path)) continue
      const { dev: _dev, devOptional: _devOptional, peer: _peer, ...rest } = all[path]!
      picked.set(path, rest)
      visit(all[path]!, path, path)
    }
  }

  const file = `file:../${basename(tarball)}`
  const own: LockEntry = {
    version: manifest.version,
    resolved: file,
    integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`,
    license: manifest.license,
    dependencies: manifest.dependencies,
    bin: manifest.bin,
    engines: manifest.engines,
    peerDependencies: manifest.peerDependencies,
    peerDependenciesMeta: manifest.peerDependenciesMeta,
  }
  const rootDependencies: Record<string, string> = { [manifest.name]: file }
  for (const name of packages) {
    const entry = all[`node_modules/${name}`]
    if (!entry?.version) throw new Error(`package-lock.json: ${name} is not a top-level package`)
    rootDependencies[name] = entry.version
  }
  picked.set(`node_modules/${manifest.name}`, own)
  visit(own, `node_modules/${manifest.name}`, manifest.name)
  visit({ dependencies: Object.fromEntries(packages.map((n) => [n, rootDependencies[n]!])) }, '', 'the app')

  const app = { name: 'apps', version: '1.0.0', private: true, type: 'module', dependencies: rootDependencies }
  const sorted = [...picked.keys()].sort()
  return {
    manifest: app,
    lock: {
      name: app.name,
      version: app.version,
      lockfileVersion: 3,
      requires: true,
      packages: { '': { name: app.name, version: app.version, dependencies: rootDependencies }, ...Object.fromEntries(sorted.map((k) => [k, picked.get(k)])) },
    },
  }
}
