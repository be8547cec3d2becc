/**
 * The code identity of a checkout (`treesDigest`), which keys its persistent cache entries: it
 * moves with every file of the running tree that may run, and only with those, so that a cache is
 * never read by code other than the code that wrote it, and a checkout's second build stats only
 * its modules.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { bundledRuns, installedDependencies, treesDigest } from '../src/core/package-info.js'

const root = mkdtempSync(join(tmpdir(), 'code-identity-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** A checkout with a built tree: modules, declarations, a source map, precompiled validators and a nested folder. */
function checkout(name: string): string {
  const dir = join(root, name)
  mkdirSync(join(dir, 'dist/chunks'), { recursive: true })
  mkdirSync(join(dir, 'src'), { recursive: true })
  writeFileSync(join(dir, 'dist/index.js'), 'export const a = 1\n')
  writeFileSync(join(dir, 'dist/index.d.ts'), 'export declare const a: number\n')
  writeFileSync(join(dir, 'dist/index.js.map'), '{}\n')
  writeFileSync(join(dir, 'dist/chunks/nats.js'), 'export const b = 2\n')
  writeFileSync(join(dir, 'dist/validator.cjs'), 'module.exports = 1\n')
  writeFileSync(join(dir, 'src/index.ts'), 'export const a = 1\n')
  return dir
}

describe('treesDigest', () => {
  it('moves with a module of the tree, a nested one, a precompiled validator, a module added or removed', () => {
    const dir = checkout('moves')
    const seen = new Set([treesDigest(dir, ['dist'])])
    const changes: Array<() => void> = [
      () => writeFileSync(join(dir, 'dist/index.js'), 'export const a = 10\n'),
      () => writeFileSync(join(dir, 'dist/chunks/nats.js'), 'export const b = 20\n'),
      () => writeFileSync(join(dir, 'dist/validator.cjs'), 'module.exports = 10\n'),
      () => writeFileSync(join(dir, 'dist/chunks/new.mjs'), 'export {}\n'),
      // The same size, another time: a rebuild that wrote the same number of bytes.
      () => utimesSync(join(dir, 'dist/index.js'), new Date(2001, 1, 1), new Date(2001, 1, 1)),
    ]
    for (const change of changes) {
      change()
      const digest = treesDigest(dir, ['dist'])
      expect(seen.has(digest), String(change)).toBe(false)
      seen.add(digest)
    }
    // Removed again: the digest is of the files there, not of their history.
    const withAdded = treesDigest(dir, ['dist'])
    writeFileSync(join(dir, 'dist/chunks/more.js'), 'export {}\n')
    expect(treesDigest(dir, ['dist'])).not.toBe(withAdded)
    rmSync(join(dir, 'dist/chunks/more.js'))
    expect(treesDigest(dir, ['dist'])).toBe(withAdded)
  })

  it('does not move with files that never run, nor with another tree than the one that runs', () => {
    const dir = checkout('stays')
    const before = treesDigest(dir, ['dist'])
    writeFileSync(join(dir, 'dist/index.d.ts'), 'export declare const a: 1\n')
    writeFileSync(join(dir, 'dist/chunks/nats.d.mts'), 'export {}\n')
    writeFileSync(join(dir, 'dist/index.js.map'), '{"version":3}\n')
    writeFileSync(join(dir, 'src/index.ts'), 'export const a = 2\n')
    expect(treesDigest(dir, ['dist'])).toBe(before)
    // Run from the sources, the sources are the code.
    const sources = treesDigest(dir, ['src'])
    writeFileSync(join(dir, 'src/index.ts'), 'export const a = 3\n')
    expect(treesDigest(dir, ['src'])).not.toBe(sources)
  })

  it('is the same for the same files in another checkout, and follows no link', () => {
    const one = checkout('one')
    const two = checkout('two')
    for (const dir of [one, two]) utimesSync(join(dir, 'dist/index.js'), new Date(2002, 1, 1), new Date(2002, 1, 1))
    for (const dir of [one, two])
      for (const file of ['dist/chunks/nats.js', 'dist/validator.cjs']) utimesSync(join(dir, file), new Date(2003, 1, 1), new Date(2003, 1, 1))
    expect(treesDigest(one, ['dist'])).toBe(treesDigest(two, ['dist']))
    const before = treesDigest(one, ['dist'])
    symlinkSync(join(two, 'dist'), join(one, 'dist/linked'))
    expect(treesDigest(one, ['dist'])).toBe(before)
  })

  it('of a bundled copy, moves with what the bundles load and not with the modules they were made from', () => {
    const dir = checkout('bundled')
    mkdirSync(join(dir, 'dist/plugins'), { recursive: true })
    mkdirSync(join(dir, 'dist/src/runtime/nats'), { recursive: true })
    mkdirSync(join(dir, 'dist/src/core'), { recursive: true })
    mkdirSync(join(dir, 'dist/src/formats/nats'), { recursive: true })
    writeFileSync(join(dir, 'dist/plugins/vite.js'), 'export {}\n')
    writeFileSync(join(dir, 'dist/src/index.js'), 'export {}\n')
    writeFileSync(join(dir, 'dist/src/runtime/nats/subjects.js'), 'export {}\n')
    writeFileSync(join(dir, 'dist/src/core/compile.js'), 'export {}\n')
    writeFileSync(join(dir, 'dist/src/formats/nats/profile-validator.cjs'), 'module.exports = 1\n')
    writeFileSync(join(dir, 'dist/src/formats/nats/load.js'), 'export {}\n')
    const seen = new Set([treesDigest(dir, ['dist'], bundledRuns)])
    const loaded = [
      'dist/chunks/nats.js',
      'dist/plugins/vite.js',
      'dist/src/index.js',
      'dist/src/runtime/nats/subjects.js',
      'dist/src/formats/nats/profile-validator.cjs',
    ]
    for (const file of loaded) {
      writeFileSync(join(dir, file), `// ${file} edited\n`)
      const digest = treesDigest(dir, ['dist'], bundledRuns)
      expect(seen.has(digest), file).toBe(false)
      seen.add(digest)
    }
    // tsc's file-per-module output beside the bundles: the bundles never import it.
    const before = treesDigest(dir, ['dist'], bundledRuns)
    const whole = treesDigest(dir, ['dist'])
    writeFileSync(join(dir, 'dist/src/core/compile.js'), 'export const edited = 1\n')
    writeFileSync(join(dir, 'dist/src/formats/nats/load.js'), 'export const edited = 1\n')
    expect(treesDigest(dir, ['dist'], bundledRuns)).toBe(before)
    // The whole tree, as a copy run from tsc's output counts it, does move.
    expect(treesDigest(dir, ['dist'])).not.toBe(whole)
  })
})

describe('installedDependencies', () => {
  /** An app with the package installed, one dependency nested under it and one hoisted beside it. */
  function installed(name: string): { app: string; pkg: string; version: (dep: string, at: string, v: string) => void } {
    const app = join(root, name)
    const pkg = join(app, 'node_modules/unplugin-contracts')
    mkdirSync(pkg, { recursive: true })
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'unplugin-contracts', version: '1.0.0', dependencies: { yaml: '^2.0.0', ajv: '8.20.0' } }))
    const version = (dep: string, at: string, v: string) => {
      mkdirSync(join(at, 'node_modules', dep), { recursive: true })
      writeFileSync(join(at, 'node_modules', dep, 'package.json'), JSON.stringify({ name: dep, version: v }))
    }
    version('yaml', app, '2.9.1')
    version('ajv', pkg, '8.20.0')
    return { app, pkg, version }
  }

  it('moves when a dependency installed beside the package changes version, hoisted or nested, and not otherwise', () => {
    const { app, pkg, version } = installed('deps-move')
    const first = installedDependencies(pkg)
    expect(installedDependencies(pkg)).toBe(first)
    version('yaml', app, '2.9.2') // `npm update` within the range, hoisted
    const second = installedDependencies(pkg)
    expect(second).not.toBe(first)
    version('ajv', pkg, '8.20.1') // an override of a nested copy
    expect(installedDependencies(pkg)).not.toBe(second)
    // A copy nested under the package answers before the hoisted one, as Node resolves it.
    version('yaml', pkg, '2.9.1')
    const nested = installedDependencies(pkg)
    version('yaml', app, '2.10.0')
    expect(installedDependencies(pkg)).toBe(nested)
  })

  it('answers for a missing dependency or an unreadable package.json instead of throwing', () => {
    const { app, pkg } = installed('deps-missing')
    rmSync(join(app, 'node_modules/yaml'), { recursive: true })
    const missing = installedDependencies(pkg)
    expect(missing).toMatch(/^[0-9a-f]{16}$/)
    writeFileSync(join(pkg, 'package.json'), '{ not json')
    expect(installedDependencies(pkg)).toMatch(/^[0-9a-f]{16}$/)
    expect(installedDependencies(join(root, 'no-such-folder'))).toMatch(/^[0-9a-f]{16}$/)
  })
})
