/**
 * The ignore file of `contracts diff`, probed from outside with the real differs in a real git
 * repository: an entry names a rule and a pointer, and pointers recur from one contract to the
 * next (`''` for a whole contract, `/requests/2` in every Benzene service with three requests), so
 * an entry written to accept one contract's break accepted every contract's: the deletion of a
 * second contract passed the run. An entry's `contract` scopes it to one contract.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseIgnoreFile, IgnoreFileError } from '../src/core/diff/ignore.js'
import { contractsInProcess as cli } from './helpers/cli.js'

const root = join(import.meta.dirname, '..')
const pair = join(root, 'fixtures/diff/benzene/benzene-request-removed')
const oldText = readFileSync(join(pair, 'old.spec.json'), 'utf8')
const newText = readFileSync(join(pair, 'new.spec.json'), 'utf8')
const work = mkdtempSync(join(tmpdir(), 'contracts-probe-ignore-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))
const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' }
let repos = 0

/**
 * A repository of its own for one test: four services committed, then, in the working tree, two of
 * them deleted and two that lose their third request topic.
 */
function servicesRepo(): string {
  const repo = join(work, `repo-${repos++}`)
  mkdirSync(repo)
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env, encoding: 'utf8' }).trim()
  git('init', '-q', '-b', 'main')
  writeFileSync(join(repo, 'package.json'), '{}')
  for (const name of ['orders', 'billing', 'refunds', 'ledger']) {
    mkdirSync(join(repo, name))
    writeFileSync(join(repo, name, `${name}.spec.json`), oldText)
  }
  git('add', '-A')
  git('commit', '-q', '-m', 'four services')
  git('rm', '-q', 'orders/orders.spec.json', 'billing/billing.spec.json')
  writeFileSync(join(repo, 'refunds/refunds.spec.json'), newText)
  writeFileSync(join(repo, 'ledger/ledger.spec.json'), newText)
  return repo
}

/** `contracts diff --against HEAD --json` in a new repository of its own, with `ignore` as its ignore file. */
const diff = async (ignore: string) => {
  const repo = servicesRepo()
  writeFileSync(join(repo, '.contracts-diff-ignore.yaml'), ignore)
  const r = await cli(['diff', '--against', 'HEAD', '--json'], repo)
  const where = (f: { new?: { file: string }; old?: { file: string } }) => (f.new ?? f.old)!.file.slice(repo.length + 1)
  return {
    status: r.status,
    json: JSON.parse(r.stdout) as { findings: Array<{ rule: string; new?: { file: string }; old?: { file: string } }>; ignored: unknown[] },
    where,
  }
}

describe('contracts diff: an ignore entry accepts the contract it names, not every contract with that pointer', () => {
  it('without contract: one entry accepts the rule at the pointer in every contract the file applies to (as documented)', async () => {
    const r = await diff(
      `- rule: contract-removed\n  pointer: ''\n  reason: retired\n- rule: benzene-request-removed\n  pointer: /requests/2\n  reason: moved\n`,
    )
    expect(r.json.ignored).toHaveLength(4)
    expect(r.json.findings.filter((f) => f.rule !== 'benzene-hash-changed')).toEqual([])
    expect(r.status).toBe(0)
  })

  it('with contract: the entry for the orders service accepts its deletion alone; billing still fails the run', async () => {
    const r = await diff(
      `- rule: contract-removed\n  pointer: ''\n  reason: orders is retired\n  contract: orders/orders.spec.json\n` +
        `- rule: benzene-request-removed\n  pointer: /requests/2\n  reason: refunds moved\n  contract: ./refunds/refunds.spec.json\n`,
    )
    expect(r.status).toBe(1)
    const shown = r.json.findings.filter((f) => f.rule !== 'benzene-hash-changed').map((f) => `${f.rule} ${r.where(f)}`)
    expect(shown.sort()).toEqual(['benzene-request-removed ledger/ledger.spec.json', 'contract-removed billing/billing.spec.json'])
    expect(r.json.ignored.map((f) => `${(f as { rule: string }).rule} ${r.where(f as never)}`).sort()).toEqual([
      'benzene-request-removed refunds/refunds.spec.json',
      'contract-removed orders/orders.spec.json',
    ])
  })

  it('with contract naming no compared contract: the entry ignores nothing', async () => {
    const r = await diff(`- rule: contract-removed\n  pointer: ''\n  reason: typo\n  contract: order/orders.spec.json\n`)
    expect(r.status).toBe(1)
    expect(r.json.ignored).toEqual([])
  })

  it('contract in the two-file form: the new file (or the file a finding is in)', async () => {
    const repo = servicesRepo()
    const dir = join(repo, 'pair')
    mkdirSync(dir)
    writeFileSync(join(dir, 'old.spec.json'), oldText)
    writeFileSync(join(dir, 'new.spec.json'), newText)
    const ignore = join(dir, 'ignore.yaml')
    for (const [contract, status] of [
      ['new.spec.json', 0],
      ['old.spec.json', 0],
      ['other.spec.json', 1],
    ] as const) {
      writeFileSync(ignore, `- rule: benzene-request-removed\n  pointer: /requests/2\n  reason: r\n  contract: ${contract}\n`)
      const r = await cli(['diff', join(dir, 'old.spec.json'), join(dir, 'new.spec.json'), '--ignore', ignore], repo)
      expect(r.status, contract).toBe(status)
    }
  })

  it('an empty contract is a usage error at its entry', () => {
    expect(() => parseIgnoreFile('/x/i.yaml', `- rule: a\n  pointer: /b\n  reason: c\n  contract: ''\n`)).toThrow(IgnoreFileError)
    expect(parseIgnoreFile('/x/i.yaml', `- rule: a\n  pointer: /b\n  reason: c\n  contract: ../y/z.spec.json\n`).entries[0]!.contract).toBe('/y/z.spec.json')
  })
})
