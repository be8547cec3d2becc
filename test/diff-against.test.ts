/**
 * `contracts diff --against <ref>` in a real git repository this file builds in a temporary folder:
 * commits and a branch, a NATS bundle (fixtures/nats/shop) whose locked file changed and was locked
 * again, a contract added, one deleted, a symbolic link, and refs that try to be options or paths.
 */
import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { diffAgainst } from '../src/core/diff/against.js'
import { GitRefError, checkRef, gitVersion } from '../src/core/diff/git.js'
import type { DiffEnvironment } from '../src/core/diff/runner.js'
import type { DiffFinding, DiffSide, FormatDiffer } from '../src/core/diff/types.js'
import { loadDiffer } from '../src/formats/diffs.js'
import { formats } from '../src/formats/index.js'
import { contractsInProcess as cli } from './helpers/cli.js'

const root = join(import.meta.dirname, '..')
const repo = mkdtempSync(join(tmpdir(), 'contracts-diff-against-'))
const outside = mkdtempSync(join(tmpdir(), 'contracts-diff-outside-'))
afterAll(() => {
  rmSync(repo, { recursive: true, force: true })
  rmSync(outside, { recursive: true, force: true })
})

const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' }
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env, encoding: 'utf8' }).trim()
const payments = readFileSync(join(root, 'fixtures/benzene/valid/payments.spec.json'), 'utf8')
const shop = join(repo, 'shop')
const streams = join(shop, 'native/streams.json')

beforeAll(async () => {
  git('init', '-q', '-b', 'main')
  // A user's settings that change what git prints must not change what the diff reads.
  git('config', 'color.ui', 'always')
  git('config', 'diff.relative', 'true')
  git('config', 'diff.renames', 'true')
  writeFileSync(join(repo, 'package.json'), '{}')
  writeFileSync(join(repo, 'payments.spec.json'), payments)
  writeFileSync(join(repo, 'retired.spec.json'), payments)
  writeFileSync(join(outside, 'secret.spec.json'), payments)
  symlinkSync(join(outside, 'secret.spec.json'), join(repo, 'linked.spec.json'))
  git('add', '-A')
  git('commit', '-q', '-m', 'one')
  cpSync(join(root, 'fixtures/nats/shop'), shop, { recursive: true })
  git('add', '-A')
  git('commit', '-q', '-m', 'the shop bundle')
  git('branch', 'base')
  // Since `base`: a locked file of the bundle changed (and the bundle locked again), a contract added,
  // one deleted, one edited and committed on main.
  writeFileSync(streams, readFileSync(streams, 'utf8').replace('"max_age": 604800000000000', '"max_age": 302400000000000'))
  const locked = await cli(['lock', shop], repo)
  expect(locked.status, locked.stderr).toBe(0)
  writeFileSync(join(repo, 'added.spec.json'), payments)
  unlinkSync(join(repo, 'retired.spec.json'))
  writeFileSync(join(repo, 'payments.spec.json'), payments.replace('"title": "payments-api"', '"title": "payments-api-2"'))
  git('commit', '-q', '-am', 'edits')
})

/** Fake differs that report what each side reads: the bundle's locked file, and a file added since the ref. */
function recording() {
  const reads: Record<string, { old?: string; new?: string; oldAdded?: string; newAdded?: string }> = {}
  const differ = (format: string): FormatDiffer<unknown> => ({
    format,
    rules: [],
    diff: async (old: DiffSide<unknown>, next: DiffSide<unknown>) => {
      reads[next.file] = {
        old: await old.read(streams),
        new: await next.read(streams),
        oldAdded: await old.read(join(repo, 'added.spec.json')),
        newAdded: await next.read(join(repo, 'added.spec.json')),
      }
      const finding: DiffFinding = {
        rule: 'fake',
        level: 'info',
        audiences: [],
        new: { file: next.file, pointer: '', line: 1, column: 1 },
        message: 'compared',
      }
      return [finding]
    },
  })
  const environment: DiffEnvironment = { formats, loadDiffer: async (format) => (format === 'dasp' ? loadDiffer(format) : differ(format)) }
  return { reads, environment }
}

describe('contracts diff --against', () => {
  it('without files: every contract that differs, those whose bundle changed, one added, one deleted', async () => {
    const { reads, environment } = recording()
    const { version, entries } = await diffAgainst('base', undefined, environment, repo)
    expect(version.commit).toBe(git('rev-parse', 'base'))
    expect(entries.map((e) => [e.change, e.format, (e.new ?? e.old)!.file.slice(repo.length + 1), e.valid])).toEqual([
      ['added', 'benzene', 'added.spec.json', true],
      ['changed', 'benzene', 'payments.spec.json', true],
      ['removed', 'benzene', 'retired.spec.json', true],
      // orders pins nothing that changed: it differs because its bundle's lock did.
      ['changed', 'nats', 'shop/orders/asyncapi/asyncapi.yaml', true],
      ['changed', 'nats', 'shop/payments/asyncapi/asyncapi.yaml', true],
      ['changed', 'nats', 'shop/shipping/asyncapi/asyncapi.yaml', true],
    ])
    const added = entries[0]!
    expect(added.findings).toEqual([
      {
        rule: 'contract-added',
        level: 'info',
        audiences: [],
        new: { file: join(repo, 'added.spec.json'), pointer: '', line: 1, column: 1 },
        message: 'The contract added.spec.json is new since base.',
      },
    ])
    expect(entries[2]!.findings).toEqual([
      {
        rule: 'contract-removed',
        level: 'breaking',
        audiences: [{ kind: 'everyone' }],
        old: { file: join(repo, 'retired.spec.json'), pointer: '', line: 1, column: 1 },
        message: 'The contract retired.spec.json of base is deleted: every party that used it breaks.',
      },
    ])
    // The old version of the bundle compiled from git (its own lock, its own locked file): the
    // differ's old side reads the old streams, the new side the new ones.
    const bundle = reads[join(shop, 'payments/asyncapi/asyncapi.yaml')]!
    expect(bundle.old).toContain('"max_age": 604800000000000')
    expect(bundle.new).toContain('"max_age": 302400000000000')
    // A file added since the ref is missing in the old version, though the working tree has it.
    expect(reads[join(repo, 'payments.spec.json')]).toMatchObject({ oldAdded: undefined, newAdded: payments })
  })

  it('with files: the files given (one unchanged still compared), against a commit id or HEAD~1', async () => {
    const { environment } = recording()
    const one = await diffAgainst('HEAD~1', ['payments.spec.json'], environment, repo)
    expect(one.entries.map((e) => [e.change, e.findings.map((f) => f.rule)])).toEqual([['changed', ['fake']]])
    const sha = git('rev-parse', 'base')
    const bundle = await diffAgainst(sha, ['shop/orders/asyncapi/asyncapi.yaml', 'retired.spec.json'], environment, repo)
    expect(bundle.entries.map((e) => e.change)).toEqual(['removed', 'changed'])
  })

  it('a link in the tree is never followed: the linked contract is refused in both versions, its target never read', async () => {
    const { environment } = recording()
    const { entries } = await diffAgainst('base', ['linked.spec.json'], environment, repo)
    expect(entries[0]!.valid).toBe(false)
    expect(entries[0]!.old!.diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_SYMLINK'])
    expect(entries[0]!.new!.diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_SYMLINK'])
    // The version's overlay says what git has there: a link, with no text.
    const version = gitVersion('base', repo)
    expect(version.kind(join(repo, 'linked.spec.json'))).toBe('symlink')
    expect(version.overlay.text(join(repo, 'linked.spec.json'))).toBeUndefined()
    expect(version.kind(join(repo, 'added.spec.json'))).toBe('missing')
    expect(version.kind(join(repo, 'shop'))).toBe('directory')
    expect(version.kind(join(repo, '.git/config'))).toBe('missing')
    expect(version.kind(join(outside, 'secret.spec.json'))).toBeUndefined()
  })

  it('refs that are options, tree paths, ranges or nothing are refused before git sees them', () => {
    for (const ref of ['--upload-pack=x', '-h', 'HEAD:../x', 'main..base', 'a b', 'x\u001b[31m', '', 'HEAD:payments.spec.json'])
      expect(() => checkRef(ref), JSON.stringify(ref)).toThrow(GitRefError)
    for (const ref of ['main', 'base', 'HEAD~1', 'HEAD^', 'v1.2.3', 'origin/main', 'a'.repeat(40)]) expect(() => checkRef(ref)).not.toThrow()
    expect(() => gitVersion('no-such-branch', repo)).toThrow(/names no commit/)
    expect(() => gitVersion('HEAD', outside)).toThrow(/not in a git working tree/)
  })

  it('the CLI: exit 1 for a deleted contract (breaking for everyone, whatever --audience), 2 for a refused ref or file', async () => {
    const r = await cli(['diff', '--against', 'base', '--json'], repo)
    expect(r.status).toBe(1)
    const json = JSON.parse(r.stdout)
    expect(json.against).toEqual({ ref: 'base', commit: git('rev-parse', 'base') })
    // The real differs: the edited title changes every Benzene hash, the shortened max_age loses
    // stored messages, the relocked import is named; the added and deleted contracts are core's.
    expect(json.findings.map((f: DiffFinding) => [f.rule, f.level])).toEqual([
      ['contract-added', 'info'],
      ['benzene-hash-changed', 'warning'],
      ['benzene-info-changed', 'info'],
      ['nats-stream-limit-changed', 'breaking'],
      ['nats-import-changed', 'warning'],
      ['contract-removed', 'breaking'],
    ])
    expect(json.contracts).toHaveLength(6)
    const client = await cli(['diff', '--against', 'base', '--audience', 'client'], repo)
    expect(client.status).toBe(1)
    expect(client.stdout).toContain('Breaks everyone:\n  breaking contract-removed  retired.spec.json:1:1')
    expect(client.stdout).not.toContain('contract-added')
    expect(client.stderr).toContain('6 contracts compared against base (')
    const unchanged = await cli(['diff', '--against', 'HEAD', 'payments.spec.json'], repo)
    expect([unchanged.status, unchanged.stdout]).toEqual([0, ''])
    for (const args of [
      ['--against=--upload-pack=x'],
      ['--against', 'HEAD:../x'],
      ['--against', 'no-such-branch'],
      ['--against', 'base', 'package.json'],
      ['--against', 'base', join(outside, 'secret.spec.json')],
      ['--against', 'base', 'nowhere.spec.json'],
    ]) {
      const refused = await cli(['diff', ...args], repo)
      expect([refused.status, refused.stdout], args.join(' ')).toEqual([2, ''])
    }
    // Nothing was run by the refused ref: no file named x appeared.
    expect(git('status', '--porcelain')).toBe('?? added.spec.json')
  })

  it('an old version with errors is not compared: exit 1, its code frame shows the text of the ref, not of the working tree', async () => {
    git('checkout', '-q', '-b', 'broken')
    writeFileSync(join(repo, 'payments.spec.json'), payments.replace('"#/components/schemas/SpecRequest"', '"#/components/schemas/Nope"'))
    git('commit', '-q', '-am', 'broken')
    git('checkout', '-q', 'main')
    const r = await cli(['diff', '--against', 'broken', 'payments.spec.json'], repo)
    expect(r.status).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('error BENZENE_REF_MISSING')
    expect(r.stderr).toContain('"$ref": "#/components/schemas/Nope"')
    expect(r.stderr).toContain('0 contracts compared against broken (')
    expect(readFileSync(join(repo, 'payments.spec.json'), 'utf8')).not.toContain('Nope')
  })

  it("a bundle whose old version fails on its lock: each diagnostic once (every contract of the bundle reports it), said to be the old version's", async () => {
    git('checkout', '-q', '-b', 'broken-lock')
    const lock = join(shop, 'bundle.lock.json')
    writeFileSync(lock, readFileSync(lock, 'utf8').replace(/"sha256": "[0-9a-f]{64}"/, `"sha256": "${'0'.repeat(64)}"`))
    git('commit', '-q', '-am', 'a broken pin')
    git('checkout', '-q', 'main')
    const json = await cli(['diff', '--against', 'broken-lock', '--json'], repo)
    expect(json.status).toBe(1)
    const diagnostics = (JSON.parse(json.stdout) as { diagnostics: Array<{ code: string; message: string; file: string; line: number }> }).diagnostics
    const pins = diagnostics.filter((d) => d.code === 'NATS_LOCK_DIGEST')
    expect(pins).toHaveLength(1)
    expect(pins[0]!.message).toMatch(/^In the old version \(broken-lock\): /)
    const keys = diagnostics.map((d) => `${d.code} ${d.file}:${d.line} ${d.message}`)
    expect(new Set(keys).size).toBe(keys.length)
    const text = await cli(['diff', '--against', 'broken-lock'], repo)
    expect(text.stderr.split('\n').filter((line) => line.includes('NATS_LOCK_DIGEST'))).toHaveLength(1)
    const github = await cli(['diff', '--against', 'broken-lock', '--format', 'github'], repo)
    expect(github.stdout.split('\n').filter((line) => line.includes('NATS_LOCK_DIGEST'))).toHaveLength(1)
  })
})
