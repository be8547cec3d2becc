/**
 * `contracts inputs`, probed as a monorepo tool uses it: the contract named on the command line is
 * one of its own inputs whatever is at its path. A contract that is a symbolic link (refused:
 * contracts are plain files), a folder or no file at all was listed with nothing, so the task's
 * inputs left out the one path whose replacement by a plain file changes the compile. It is listed
 * now, as an absent input (in `inputs` and in `absent`), as docs/cli.md says of a link the compile
 * refuses.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { contracts } from './helpers/cli.js'

const fixture = join(import.meta.dirname, '../fixtures/benzene/valid/payments.spec.json')
const root = mkdtempSync(join(tmpdir(), 'contracts-probe-inputs-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

interface Listed {
  inputs: string[]
  absent: string[]
  contracts: Array<{ file: string; inputs: string[]; absent: string[] }>
}

describe('contracts inputs: the contract itself', () => {
  it('a contract that is a symbolic link is listed (absent: refused until a plain file is there); a plain file there is then read, at the same path', () => {
    const project = join(root, 'link')
    mkdirSync(join(project, 'contracts'), { recursive: true })
    copyFileSync(fixture, join(project, 'elsewhere.json'))
    symlinkSync('../elsewhere.json', join(project, 'contracts/payments.spec.json'))
    const linked = contracts(['inputs', 'contracts/payments.spec.json'], project)
    expect(linked.status).toBe(1)
    expect(linked.stderr).toContain('CONTRACTS_SYMLINK')
    expect(linked.stdout.trimEnd().split('\n')).toEqual(['contracts/payments.spec.json'])
    const json = JSON.parse(contracts(['inputs', '--json', 'contracts/payments.spec.json'], project).stdout) as Listed
    expect(json.inputs).toEqual(['contracts/payments.spec.json'])
    expect(json.absent).toEqual(['contracts/payments.spec.json'])
    expect(json.contracts).toEqual([
      { file: 'contracts/payments.spec.json', inputs: ['contracts/payments.spec.json'], absent: ['contracts/payments.spec.json'] },
    ])
    // The link replaced by a plain file: the same path, read now (no longer absent), and the check passes.
    unlinkSync(join(project, 'contracts/payments.spec.json'))
    copyFileSync(fixture, join(project, 'contracts/payments.spec.json'))
    const plain = JSON.parse(contracts(['inputs', '--json', 'contracts/payments.spec.json'], project).stdout) as Listed
    expect(plain.inputs).toEqual(['contracts/payments.spec.json'])
    expect(plain.absent).toEqual([])
    expect(contracts(['check', 'contracts/payments.spec.json'], project).status).toBe(0)
  })

  it('a contract path with no file, or a folder, is listed as absent beside the readable ones; sorted, once each', () => {
    const project = join(root, 'missing')
    mkdirSync(join(project, 'folder.spec.json'), { recursive: true })
    copyFileSync(fixture, join(project, 'payments.spec.json'))
    const r = contracts(['inputs', '--json', 'payments.spec.json', 'later.spec.json', 'folder.spec.json', 'later.spec.json'], project)
    expect(r.status).toBe(1)
    const json = JSON.parse(r.stdout) as Listed
    expect(json.inputs).toEqual(['folder.spec.json', 'later.spec.json', 'payments.spec.json'])
    expect(json.absent).toEqual(['folder.spec.json', 'later.spec.json'])
    const text = contracts(['inputs', 'payments.spec.json', 'later.spec.json', 'folder.spec.json'], project)
    expect(text.stdout.trimEnd().split('\n')).toEqual(json.inputs)
  })
})
