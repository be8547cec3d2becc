/**
 * `contracts diff` probed from outside with the real differs: a misspelt `--audience` kept no
 * finding and passed the run (exit 0 over a breaking change), so a typo in a CI job turned the
 * check off. Every word `--audience` takes is a kind some format's rule catalogue names (or
 * `everyone`); any other is a usage error, exit 2, with nothing on stdout.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { AUDIENCE_KINDS } from '../src/cli/diff.js'
import { EVERYONE } from '../src/core/diff/core-rules.js'
import { loadDiffer } from '../src/formats/diffs.js'
import { formats } from '../src/formats/index.js'
import { contractsInProcess as cli } from './helpers/cli.js'

const root = join(import.meta.dirname, '..')
const pair = join(root, 'fixtures/diff/benzene/benzene-request-removed')
const tmp = mkdtempSync(join(tmpdir(), 'contracts-probe-diff-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
writeFileSync(join(tmp, 'package.json'), '{}')
const oldFile = join(tmp, 'old.spec.json')
const newFile = join(tmp, 'new.spec.json')
writeFileSync(oldFile, readFileSync(join(pair, 'old.spec.json')))
writeFileSync(newFile, readFileSync(join(pair, 'new.spec.json')))

describe('contracts diff --audience', () => {
  it('a kind no format names is a usage error (exit 2), not a run that keeps nothing and passes', async () => {
    // The pair removes a request topic: breaking for clients.
    expect((await cli(['diff', oldFile, newFile], tmp)).status).toBe(1)
    for (const word of ['bogus', 'Client', 'clients', 'subscribers', 'receiver', 'sender', ' client']) {
      for (const extra of [[], ['--json'], ['--format', 'sarif'], ['--format', 'github']]) {
        const r = await cli(['diff', oldFile, newFile, '--audience', word, ...extra], tmp)
        expect([r.status, r.stdout], `--audience ${JSON.stringify(word)} ${extra.join(' ')}`).toEqual([2, ''])
        expect(r.stderr).toContain(`--audience takes one of client, service,`)
        expect(r.stderr).toContain(JSON.stringify(word))
      }
    }
  })

  it('every kind a rule catalogue names is taken, and the list is exactly those kinds and everyone', async () => {
    const named = new Set<string>([EVERYONE])
    for (const format of formats) for (const rule of (await loadDiffer(format.name))?.rules ?? []) for (const kind of rule.audiences) named.add(kind)
    expect([...AUDIENCE_KINDS].sort()).toEqual([...named].sort())
    for (const kind of AUDIENCE_KINDS) {
      const r = await cli(['diff', oldFile, newFile, '--audience', kind, '--json'], tmp)
      expect(r.status, kind).toBe(kind === 'client' ? 1 : 0)
      expect(JSON.parse(r.stdout).audience).toBe(kind)
    }
  })

  it('the help and docs/cli.md name every kind it takes', async () => {
    const help = (await cli(['diff', '--help'], tmp)).stdout
    const doc = readFileSync(join(root, 'docs/cli.md'), 'utf8')
    const flag = doc.slice(doc.indexOf('- `--audience <kind>`'), doc.indexOf('- `--json`'))
    for (const kind of AUDIENCE_KINDS) {
      expect(help, kind).toMatch(new RegExp(`[(, ]${kind}[,)]`))
      expect(flag, kind).toContain(`\`${kind}\``)
    }
  })
})
