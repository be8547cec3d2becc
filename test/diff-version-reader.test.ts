/**
 * `contracts diff` reads each version's files through one reader (src/core/diff/runner.ts
 * `versionReader`): confined to the folders the compile read from, never through a link. Each read
 * made a host of its own and allowed every dependency's folder again, each through `realpath`: a
 * DASP selection of n definitions (a read each) cost n x n realpath calls, and an outside pass saw
 * the diff of a 1,000-definition chain take 177 s and one of 4,000 run out of memory. Counted here,
 * not timed: the realpath calls of a reader do not grow with the reads it makes.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'

const calls = vi.hoisted(() => ({ realpath: 0 }))
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>()
  const counted = Object.assign(
    (...args: Parameters<typeof fs.realpathSync>) => {
      calls.realpath++
      return fs.realpathSync(...args)
    },
    { native: fs.realpathSync.native },
  )
  return { ...fs, default: { ...fs, realpathSync: counted }, realpathSync: counted }
})

const { versionReader } = await import('../src/core/diff/runner.js')
const { freshDir } = await import('./helpers/bundlers.js')

describe('versionReader', () => {
  const dir = freshDir(join(import.meta.dirname, '.tmp/diff-version-reader'))
  const files = Array.from({ length: 200 }, (_, i) => join(dir, 'extensions', `e${i}.json`))
  mkdirSync(join(dir, 'extensions'))
  for (const [i, file] of files.entries()) writeFileSync(file, JSON.stringify({ i }))
  const contract = join(dir, 'sel.dasp.json')
  writeFileSync(contract, '{}')

  it('allows each folder once, whatever the number of reads and dependencies', async () => {
    calls.realpath = 0
    const read = versionReader(contract, [contract, ...files])
    const made = calls.realpath
    const texts: Array<string | undefined> = []
    for (const file of files) texts.push(await read(file))
    expect(texts.map((t) => JSON.parse(t!).i)).toEqual(files.map((_, i) => i))
    // Two folders (the contract's and extensions/), each resolved once; a read resolves its own path.
    expect(made).toBeLessThanOrEqual(4)
    expect(calls.realpath - made).toBeLessThanOrEqual(4 * files.length)
  })

  it('still refuses a file outside the folders the compile read from', async () => {
    const outside = join(dir, '..', 'diff-version-reader-outside.json')
    writeFileSync(outside, '{}')
    expect(await versionReader(contract, [contract])(outside)).toBeUndefined()
  })
})
