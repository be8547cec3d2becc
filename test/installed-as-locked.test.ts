/** The fresh clone's check that an install is the lockfile's tree (test/helpers/installed-as-locked.ts). */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { installedAsLocked } from './helpers/installed-as-locked.js'

const dirs: string[] = []
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

const a = { version: '1.0.0', resolved: 'https://registry.npmjs.org/a/-/a-1.0.0.tgz', integrity: 'sha512-aaa' }
const b = { version: '2.0.0', resolved: 'https://registry.npmjs.org/b/-/b-2.0.0.tgz', integrity: 'sha512-bbb' }
const nativeOther = { version: '3.0.0', resolved: 'https://registry.npmjs.org/n/-/n-3.0.0.tgz', integrity: 'sha512-nnn', optional: true }
const LOCK = { '': { name: 'app' }, 'node_modules/a': a, 'node_modules/b': b, 'node_modules/native-other': nativeOther }

function project(lock: Record<string, unknown> | string, installed: Record<string, unknown> | string | undefined): string {
  const dir = mkdtempSync(join(tmpdir(), 'installed-as-locked-'))
  dirs.push(dir)
  writeFileSync(join(dir, 'package-lock.json'), typeof lock === 'string' ? lock : JSON.stringify({ lockfileVersion: 3, packages: lock }))
  if (installed !== undefined) {
    mkdirSync(join(dir, 'node_modules'))
    const text = typeof installed === 'string' ? installed : JSON.stringify({ lockfileVersion: 3, packages: installed })
    writeFileSync(join(dir, 'node_modules/.package-lock.json'), text)
  }
  return dir
}

const twice = (dir: string): [string, string] => [dir, dir]

describe('installedAsLocked', () => {
  it('holds when every installed package is pinned alike and only optional ones are missing', () => {
    const dir = project(LOCK, { 'node_modules/a': a, 'node_modules/b': b })
    expect(installedAsLocked(dir, dir)).toBe(true)
  })

  it.each([
    ['another version installed', { 'node_modules/a': { ...a, version: '1.0.1' }, 'node_modules/b': b }],
    ['another integrity', { 'node_modules/a': { ...a, integrity: 'sha512-zzz' }, 'node_modules/b': b }],
    ['another address', { 'node_modules/a': { ...a, resolved: 'https://example.test/a.tgz' }, 'node_modules/b': b }],
    ['a pinned, required package missing', { 'node_modules/a': a }],
    ['a package the lockfile does not pin', { 'node_modules/a': a, 'node_modules/b': b, 'node_modules/c': a }],
    ['a package at another path', { 'node_modules/a': a, 'node_modules/x/node_modules/b': b }],
    ['nothing installed', {}],
    ['a link where the lockfile pins a package', { 'node_modules/a': { ...a, link: true }, 'node_modules/b': b }],
  ])('refuses %s', (_name, installed) => {
    const dir = project(LOCK, installed)
    expect(installedAsLocked(dir, dir)).toBe(false)
  })

  it('reads a record without registry addresses (npm leaves the default registry’s out) by integrity', () => {
    const strip = ({ resolved: _resolved, ...rest }: typeof a) => rest
    expect(installedAsLocked(...twice(project(LOCK, { 'node_modules/a': strip(a), 'node_modules/b': strip(b) })))).toBe(true)
    expect(installedAsLocked(...twice(project(LOCK, { 'node_modules/a': { ...strip(a), integrity: 'sha512-zzz' }, 'node_modules/b': strip(b) })))).toBe(false)
  })

  it('is false, not a throw, without npm’s record or with unreadable files', () => {
    expect(installedAsLocked(project(LOCK, undefined), project(LOCK, undefined))).toBe(false)
    const broken = project(LOCK, '{ not json')
    expect(installedAsLocked(broken, broken)).toBe(false)
    const noPackages = project('{"lockfileVersion":3}', { 'node_modules/a': a })
    expect(installedAsLocked(noPackages, noPackages)).toBe(false)
  })

  it('compares an install with another folder’s lockfile (a checkout’s install for a clone’s lockfile)', () => {
    const checkout = project(LOCK, { 'node_modules/a': a, 'node_modules/b': b })
    const clone = project(LOCK, undefined)
    expect(installedAsLocked(checkout, clone)).toBe(true)
    const edited = project({ ...LOCK, 'node_modules/b': { ...b, version: '2.1.0' } }, undefined)
    expect(installedAsLocked(checkout, edited)).toBe(false)
  })
})
