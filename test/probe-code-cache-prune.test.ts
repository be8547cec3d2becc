/**
 * The code-cache pruner deletes files, so what it deletes must be what it checked. It decides from
 * a scan (the names and times it saw), then reads each file it chose to check its MAC, then removes
 * the name. Between those steps another process of the package may use a cache (which refreshes its
 * time) or write it anew (a rename over the name), and what then sits at the name is not what the
 * scan judged stale, nor, after the MAC check, what was checked. `wrote` is where the pruner hands
 * control back: the hooks below play the other process there, on real files in a temp folder.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { pruneCodeCaches } from '../src/core/code-cache-prune.js'

const work = join(import.meta.dirname, '.tmp/probe-code-cache-prune', String(process.pid))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const SEAL = 'sealed by the package\n'
const name = (n: number) => `${n.toString(16).padStart(64, '0')}-12.4.254.21_node.33-0badf1a9.v8-cache`
const daysAgo = (days: number) => new Date(Date.now() - days * 24 * 60 * 60 * 1000)
/** A folder of caches the package wrote (each verifies), unused for `days`. */
function folder(label: string, count: number, days = 40): string {
  const dir = join(work, label)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  for (let i = 0; i < count; i++) {
    writeFileSync(join(dir, name(i)), `${SEAL}${i}`, { mode: 0o600 })
    utimesSync(join(dir, name(i)), daysAgo(days), daysAgo(days))
  }
  return dir
}
const trusted = () => true
/** The package's MAC check, standing in: the bytes start with its seal. */
const sealed = (bytes: Buffer) => bytes.toString('utf8').startsWith(SEAL)

describe('the pruner removes the file it checked, not whatever holds the name by then', () => {
  it('a cache another process wrote anew (renamed over the name) after the scan, before its check: kept', () => {
    const dir = folder('rewritten', 2)
    const fresh = join(work, 'rewritten-fresh')
    const removed = pruneCodeCaches(dir, {
      keep: new Set(),
      trusted,
      wrote: (cache, bytes) => {
        // While the first is checked, another process writes the second cache again: new, used now.
        if (cache === name(0) || cache === name(1)) {
          const other = cache === name(0) ? name(1) : name(0)
          if (!existsSync(fresh) && existsSync(join(dir, other))) {
            writeFileSync(fresh, `${SEAL}written just now`, { mode: 0o600 })
            renameSync(fresh, join(dir, other))
          }
        }
        return sealed(bytes)
      },
    })
    const survivor = [name(0), name(1)].find((n) => existsSync(join(dir, n)))
    expect(removed).toHaveLength(1)
    expect(survivor && readFileSync(join(dir, survivor), 'utf8')).toBe(`${SEAL}written just now`)
  })

  it('a cache another process used (its time refreshed) after the scan, before its check: kept', () => {
    const dir = folder('used', 2)
    let touched: string | undefined
    pruneCodeCaches(dir, {
      keep: new Set(),
      trusted,
      wrote: (cache, bytes) => {
        if (touched === undefined) {
          touched = cache === name(0) ? name(1) : name(0)
          utimesSync(join(dir, touched), new Date(), new Date())
        }
        return sealed(bytes)
      },
    })
    expect(touched).toBeDefined()
    expect(existsSync(join(dir, touched!))).toBe(true)
  })

  it('a file put at the name between its check and the removal (a user’s file, not a cache): kept', () => {
    const dir = folder('swapped', 1)
    const mine = join(work, 'swapped-mine.txt')
    const removed = pruneCodeCaches(dir, {
      keep: new Set(),
      trusted,
      wrote: (_cache, bytes) => {
        const verdict = sealed(bytes)
        // After the bytes were read and judged: the name now holds a file the package never wrote.
        writeFileSync(mine, 'my own notes\n', { mode: 0o600 })
        renameSync(mine, join(dir, name(0)))
        return verdict
      },
    })
    // The checked cache went when the user's file was renamed over it; nothing else is removed.
    expect(removed).toEqual([])
    expect(readFileSync(join(dir, name(0)), 'utf8')).toBe('my own notes\n')
    expect(readdirSync(dir)).toEqual([name(0)])
  })

  it('nothing else changes: a stale cache nobody touches is removed, and the folder holds no file the pruner made', () => {
    const dir = folder('plain', 3)
    const removed = pruneCodeCaches(dir, { keep: new Set(), trusted, wrote: (_c, bytes) => sealed(bytes) })
    expect(removed.sort()).toEqual([name(0), name(1), name(2)])
    expect(existsSync(join(dir, name(0)))).toBe(false)
    expect(readdirSync(dir)).toEqual([])
  })
})

describe('times in the future', () => {
  it('a cache dated years ahead (a clock set back, a restored folder) is pruned as unused; one a few seconds ahead is kept', () => {
    const dir = folder('future', 3, 0)
    const ahead = (ms: number) => new Date(Date.now() + ms)
    utimesSync(join(dir, name(0)), ahead(3 * 365 * 24 * 60 * 60 * 1000), ahead(3 * 365 * 24 * 60 * 60 * 1000))
    utimesSync(join(dir, name(1)), ahead(5000), ahead(5000))
    const removed = pruneCodeCaches(dir, { keep: new Set(), trusted, wrote: (_c, bytes) => sealed(bytes) })
    expect(removed).toEqual([name(0)])
    expect(readdirSync(dir).sort()).toEqual([name(1), name(2)])
  })
})

describe('what the pruner leaves', () => {
  it('two pruners at once on one folder: each stale cache removed once, nothing else, no file of theirs left behind', () => {
    const dir = folder('twice', 4)
    writeFileSync(join(dir, 'notes.txt'), 'mine\n')
    const inner: string[] = []
    const outer = pruneCodeCaches(dir, {
      keep: new Set(),
      trusted,
      wrote: (_cache, bytes) => {
        // The other process prunes while this one checks its first file (which it holds under a temp name).
        if (inner.length === 0) inner.push(...pruneCodeCaches(dir, { keep: new Set(), trusted, wrote: (_c, b) => sealed(b) }), '')
        return sealed(bytes)
      },
    })
    const all = [...outer, ...inner.filter(Boolean)]
    expect(new Set(all.map((n) => n.replace(/\.\d+\.[0-9a-f]{12}\.tmp$/, ''))).size).toBe(4)
    expect(readdirSync(dir)).toEqual(['notes.txt'])
  })

  it('a folder, a FIFO, a link and a hard link to a file of the user’s, named as stale caches: all kept as they are', async () => {
    const { linkSync, lstatSync, symlinkSync } = await import('node:fs')
    const { execFileSync } = await import('node:child_process')
    const dir = folder('odd', 0)
    const user = join(work, 'odd-user.txt')
    writeFileSync(user, `${SEAL}looks sealed, but the user's`, { mode: 0o600 })
    mkdirSync(join(dir, name(1)))
    execFileSync('mkfifo', [join(dir, name(2))])
    symlinkSync(user, join(dir, name(3)))
    linkSync(user, join(dir, name(4)))
    for (const n of [1, 2, 3, 4]) utimesSync(join(dir, name(n)), daysAgo(40), daysAgo(40))
    // Only the hard link is a regular file; the stand-in MAC check here would accept it, so refuse by inode as the real MAC would.
    const userIno = lstatSync(user).ino
    const removed = pruneCodeCaches(dir, {
      keep: new Set(),
      trusted,
      wrote: (_c, bytes) => sealed(bytes) && !bytes.toString().includes("user's"),
    })
    expect(removed).toEqual([])
    expect(lstatSync(join(dir, name(1))).isDirectory()).toBe(true)
    expect(lstatSync(join(dir, name(2))).isFIFO()).toBe(true)
    expect(lstatSync(join(dir, name(3))).isSymbolicLink()).toBe(true)
    expect(lstatSync(join(dir, name(4))).ino).toBe(userIno)
    expect(readdirSync(dir).sort()).toEqual([1, 2, 3, 4].map(name).sort())
  })
})
