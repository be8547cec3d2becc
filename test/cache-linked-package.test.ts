/**
 * A persistent cache entry answers only the code and the dependencies that wrote it, also for a
 * package that is not installed into `node_modules` but linked there (npm, yarn or pnpm workspaces,
 * `npm link`) or run from a checkout: an outside pass found a workspace's entries still answering
 * after `npm update` moved ajv, whose standalone code the NATS validators embed (stale modules).
 *
 * The workspace is built here as npm lays one out: the package's built copy under
 * `packages/unplugin-contracts`, linked from the root `node_modules`, its dependencies hoisted there
 * (links to this checkout's), and ajv a folder of its own whose `package.json` an update rewrites.
 * The built CLI runs in child processes, as a user runs it.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { testFolder } from './helpers/temp-folder.js'

const repo = join(import.meta.dirname, '..')

/** The `compiler` member of every entry in `cache` (the code identity each was written by). */
function compilers(cache: string): string[] {
  return readdirSync(cache)
    .filter((name) => name.endsWith('.entry'))
    .map((name) => /"compiler":"([^"]+)"/.exec(readFileSync(join(cache, name), 'utf8'))?.[1] ?? '?')
    .sort()
}

describe('the persistent cache of a linked package', () => {
  it('an update of a dependency installed beside it is another compiler: its entries are not read', () => {
    const mono = testFolder('cache-linked-')
    const pkg = join(mono, 'packages/unplugin-contracts')
    mkdirSync(pkg, { recursive: true })
    cpSync(join(repo, 'dist'), join(pkg, 'dist'), { recursive: true })
    copyFileSync(join(repo, 'package.json'), join(pkg, 'package.json'))
    mkdirSync(join(mono, 'node_modules'))
    for (const name of readdirSync(join(repo, 'node_modules')))
      if (name !== 'ajv' && name !== '.bin' && name !== '.cache') symlinkSync(join(repo, 'node_modules', name), join(mono, 'node_modules', name))
    symlinkSync(pkg, join(mono, 'node_modules/unplugin-contracts'))
    // ajv: its files linked, its package.json a copy an update rewrites.
    const ajv = join(mono, 'node_modules/ajv')
    mkdirSync(ajv)
    for (const name of readdirSync(join(repo, 'node_modules/ajv')))
      if (name === 'package.json') copyFileSync(join(repo, 'node_modules/ajv/package.json'), join(ajv, name))
      else symlinkSync(join(repo, 'node_modules/ajv', name), join(ajv, name))
    writeFileSync(join(mono, 'package.json'), JSON.stringify({ name: 'mono', private: true, workspaces: ['packages/*'] }))
    const doc = join(mono, 'ledger.asyncapi.yaml')
    copyFileSync(join(repo, 'fixtures/nats/valid/ledger.asyncapi.yaml'), doc)
    const cache = join(mono, 'cache')
    const check = () => {
      const r = spawnSync(process.execPath, [join(mono, 'node_modules/unplugin-contracts/dist/cli.js'), 'check', '--cache-dir', cache, doc], {
        cwd: mono,
        encoding: 'utf8',
        timeout: 60_000,
      })
      expect(r.status, r.stderr).toBe(0)
    }
    check()
    const before = compilers(cache)
    expect(before).toHaveLength(1)
    check()
    expect(compilers(cache)).toEqual(before)
    // `npm update` moves ajv within its range: the code that compiles is not the code that wrote the entry.
    const manifest = JSON.parse(readFileSync(join(ajv, 'package.json'), 'utf8')) as { version: string }
    writeFileSync(join(ajv, 'package.json'), JSON.stringify({ ...manifest, version: `${manifest.version}-updated` }))
    check()
    const after = compilers(cache)
    expect(after).toHaveLength(2)
    expect(after.filter((id) => !before.includes(id))).toHaveLength(1)
  })

  it('an installed copy patched in place is another compiler; the same files installed afresh are the same one', () => {
    // An outside pass: a copy installed into node_modules was keyed by its version alone, so
    // `patch-package` (or a re-packed tarball of the same version) kept serving modules its
    // unpatched code made. A fresh install of the same files (new modification times, as `npm ci`
    // writes them) must still read the entries, or a CI job's restored cache would never answer.
    const app = testFolder('cache-installed-')
    const pkg = join(app, 'node_modules/unplugin-contracts')
    const install = () => {
      mkdirSync(pkg, { recursive: true })
      cpSync(join(repo, 'dist'), join(pkg, 'dist'), { recursive: true, preserveTimestamps: false })
      copyFileSync(join(repo, 'package.json'), join(pkg, 'package.json'))
    }
    install()
    for (const name of readdirSync(join(repo, 'node_modules')))
      if (name !== '.bin' && name !== '.cache' && name !== 'unplugin-contracts') symlinkSync(join(repo, 'node_modules', name), join(app, 'node_modules', name))
    const doc = join(app, 'ledger.asyncapi.yaml')
    copyFileSync(join(repo, 'fixtures/nats/valid/ledger.asyncapi.yaml'), doc)
    const cache = join(app, 'cache')
    const check = () => {
      const r = spawnSync(process.execPath, [join(pkg, 'dist/cli.js'), 'check', '--cache-dir', cache, doc], { cwd: app, encoding: 'utf8', timeout: 60_000 })
      expect(r.status, r.stderr).toBe(0)
    }
    check()
    const first = compilers(cache)
    expect(first).toHaveLength(1)
    // Installed again: the same files, written anew.
    install()
    check()
    expect(compilers(cache)).toEqual(first)
    // A patch of the installed code (patch-package edits the built file in place).
    const bundled = join(pkg, 'dist/cli.js')
    writeFileSync(bundled, `${readFileSync(bundled, 'utf8')}\n// patched\n`)
    check()
    const after = compilers(cache)
    expect(after).toHaveLength(2)
    expect(after.filter((id) => !first.includes(id))).toHaveLength(1)
  })
})
