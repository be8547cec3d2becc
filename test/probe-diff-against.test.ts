/**
 * `contracts diff --against` where git itself refuses: every refusal was reported as "<folder> is
 * not in a git working tree", also when git could not be run at all and when git refused a
 * repository it found (a worktree whose repository moved; a repository owned by another user,
 * "detected dubious ownership", which CI containers meet). The usage error (exit 2) now says why.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { contractsInProcess as cli } from './helpers/cli.js'

const tmp = mkdtempSync(join(tmpdir(), 'contracts-probe-against-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

describe('contracts diff --against: why git refused', () => {
  it('git that cannot be run: exit 2, saying git could not be run rather than that the folder is no working tree', async () => {
    const r = await cli(['diff', '--against', 'HEAD'], tmp, { ...process.env, PATH: join(tmp, 'no-bin') })
    expect([r.status, r.stdout]).toEqual([2, ''])
    expect(r.stderr).toMatch(/^contracts: git could not be run \(is it installed and on the PATH\?\): --against reads the old version from git\./)
    expect(r.stderr).not.toContain('is not in a git working tree')
  })

  it("a repository git refuses: exit 2, with git's own first line", async () => {
    // A worktree whose repository is gone: `.git` names a folder that does not exist.
    const worktree = join(tmp, 'worktree')
    mkdirSync(worktree)
    writeFileSync(join(worktree, '.git'), `gitdir: ${join(tmp, 'gone/.git/worktrees/w')}\n`)
    const r = await cli(['diff', '--against', 'HEAD'], worktree)
    expect([r.status, r.stdout]).toEqual([2, ''])
    expect(r.stderr).toContain(
      `contracts: ${worktree} is not in a git working tree: --against reads the old version from git (git: fatal: not a git repository`,
    )
  })

  it('a folder in no repository: exit 2, and git says so', async () => {
    const r = await cli(['diff', '--against', 'HEAD'], '/', { ...process.env, GIT_CEILING_DIRECTORIES: '/' })
    expect([r.status, r.stdout]).toEqual([2, ''])
    expect(r.stderr).toMatch(/is not in a git working tree: --against reads the old version from git \(git: fatal: not a git repository/)
  })
})
