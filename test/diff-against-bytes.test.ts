/**
 * `contracts diff --against <ref>` reads a version's files as bytes, as the compile reads a file: a
 * YAML contract committed in UTF-32 is the same document as the working tree's UTF-8 one, and a
 * committed contract whose bytes are no text is refused (CONTRACTS_NOT_UTF8) for that version,
 * not read with replacement characters. A real git repository in a temporary folder; the built CLI.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { contracts } from './helpers/cli.js'

const root = join(import.meta.dirname, '..')
const repo = mkdtempSync(join(tmpdir(), 'contracts-diff-bytes-'))
afterAll(() => rmSync(repo, { recursive: true, force: true }))
const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' }
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env, encoding: 'utf8' }).trim()

const ledger = readFileSync(join(root, 'fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8')
const payments = readFileSync(join(root, 'fixtures/benzene/valid/payments.spec.json'), 'utf8')

/** `text` in UTF-32LE with its byte order mark. */
function utf32le(text: string): Buffer {
  const points = [0xfeff, ...[...text].map((c) => c.codePointAt(0)!)]
  const out = Buffer.alloc(points.length * 4)
  points.forEach((p, i) => out.writeUInt32LE(p, i * 4))
  return out
}

beforeAll(() => {
  git('init', '-q', '-b', 'main')
  writeFileSync(join(repo, 'package.json'), '{}')
  writeFileSync(join(repo, 'ledger.asyncapi.yaml'), utf32le(ledger))
  // A byte that is no UTF-8 inside a string: JSON.parse of the replacement text would have read it.
  writeFileSync(
    join(repo, 'payments.spec.json'),
    Buffer.from(payments.replace('"title": "payments-api"', '"title": "payments-api\uFFFD"')).map((b, i, all) =>
      b === 0xef && all[i + 1] === 0xbf && all[i + 2] === 0xbd ? 0xff : b,
    ),
  )
  git('add', '-A')
  git('commit', '-q', '-m', 'one')
  // The working tree: the same ledger in UTF-8, a valid payments contract.
  writeFileSync(join(repo, 'ledger.asyncapi.yaml'), ledger)
  writeFileSync(join(repo, 'payments.spec.json'), payments)
})

describe('contracts diff --against reads a version’s bytes as a file’s', () => {
  it('a UTF-32 YAML contract in the commit is the working tree’s UTF-8 document: no change', () => {
    const r = contracts(['diff', '--against', 'HEAD', '--json', 'ledger.asyncapi.yaml'], repo)
    expect(r.status, r.stderr).toBe(0)
    const run = JSON.parse(r.stdout) as { summary: { contracts: number; invalid: number }; contracts: Array<{ valid: boolean }>; findings: unknown[] }
    expect([run.summary, run.contracts.map((c) => c.valid), run.findings]).toEqual([{ ...run.summary, contracts: 1, invalid: 0 }, [true], []])
  })

  it('bytes that are no text in the commit: that version is refused as not UTF-8, never read with replacements', () => {
    const r = contracts(['diff', '--against', 'HEAD', 'payments.spec.json'], repo)
    expect(r.status).toBe(1)
    expect(r.stdout + r.stderr).toContain('CONTRACTS_NOT_UTF8')
  })
})
