/**
 * `contracts diff <old> <new>` in this process (contractsInProcess), with the differ registry
 * replaced by a fake Benzene differ whose findings each test sets: exit statuses, the text grouped by
 * audience, the JSON document, GitHub annotations (a hostile message escaped), SARIF (validated
 * against the OASIS SARIF 2.1.0 schema), the ignore file and its expiry, and usage errors.
 */
import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Log } from 'sarif'
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { DiffFinding, FormatDiffer } from '../src/core/diff/types.js'
import { contracts, contractsInProcess as cli } from './helpers/cli.js'

const state = vi.hoisted(() => ({ findings: [] as DiffFinding[] }))

vi.mock('../src/formats/diffs.js', async (original) => {
  const real = await original<typeof import('../src/formats/diffs.js')>()
  const fake: FormatDiffer<unknown> = {
    format: 'benzene',
    rules: [
      {
        id: 'fake-topic-removed',
        levels: ['breaking'],
        audiences: ['client', 'service'],
        summary: 'A topic was removed.',
        example: { old: '"topic": "a"', new: '(none)' },
        mirror: { none: 'fake' },
      },
      { id: 'fake-described', levels: ['info'], audiences: [], summary: 'A description changed.', example: { old: '"x"', new: '"y"' } },
    ],
    diff: () => state.findings,
  }
  return { ...real, loadDiffer: async (format: string) => (format === 'benzene' ? fake : real.loadDiffer(format)) }
})

const root = join(import.meta.dirname, '..')
const payments = readFileSync(join(root, 'fixtures/benzene/valid/payments.spec.json'), 'utf8')
const tmp = mkdtempSync(join(tmpdir(), 'contracts-diff-cli-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
mkdirSync(join(tmp, 'old'))
mkdirSync(join(tmp, 'new'))
writeFileSync(join(tmp, 'package.json'), '{}')
const oldFile = join(tmp, 'old/payments.spec.json')
const newFile = join(tmp, 'new/payments.spec.json')
writeFileSync(oldFile, payments)
writeFileSync(newFile, payments)

const loc = (file: string, line: number, pointer: string) => ({ file, pointer, line, column: 5 })
const removed: DiffFinding = {
  rule: 'fake-topic-removed',
  level: 'breaking',
  audiences: [{ kind: 'client', name: 'payments:capture' }, { kind: 'service' }],
  old: loc(oldFile, 14, '/requests/0'),
  new: loc(newFile, 12, '/requests'),
  message: 'The topic "payments:capture" is removed.',
}
const warned: DiffFinding = {
  rule: 'schema-changed',
  level: 'warning',
  audiences: [{ kind: 'client' }],
  old: loc(oldFile, 40, '/components/schemas/A'),
  new: loc(newFile, 40, '/components/schemas/A'),
  message: 'The schema A changed; its effect is not known.',
}
const described: DiffFinding = {
  rule: 'fake-described',
  level: 'info',
  audiences: [],
  new: loc(newFile, 4, '/info/description'),
  message: 'The description changed.',
}

const diff = (...args: string[]) => cli(['diff', oldFile, newFile, ...args], tmp)

beforeEach(() => {
  state.findings = []
  rmSync(join(tmp, '.contracts-diff-ignore.yaml'), { force: true })
})

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv
function sarifValidator() {
  const { $schema: _draft, id, ...schema } = JSON.parse(readFileSync(join(root, 'test/fixtures/sarif/sarif-schema-2.1.0.json'), 'utf8'))
  const ajv = new Ajv({ allErrors: true, strict: false, code: { optimize: false } })
  addFormats(ajv)
  return ajv.compile({ $id: id, ...schema })
}

describe('contracts diff: exit statuses', () => {
  it('0 without findings, 1 with a breaking one, a warning fails only with --fail-on warning, info never', async () => {
    expect((await diff()).status).toBe(0)
    state.findings = [described]
    expect((await diff('--fail-on', 'warning')).status).toBe(0)
    state.findings = [warned, described]
    expect((await diff()).status).toBe(0)
    expect((await diff('--fail-on', 'warning')).status).toBe(1)
    state.findings = [removed]
    const r = await diff()
    expect(r.status).toBe(1)
    expect(r.stderr.trim()).toBe('1 contract compared: 1 breaking, 0 warnings, 0 info; fails on breaking.')
    // Only the service's breaks: the removal breaks it; the warning is the client's alone.
    state.findings = [warned]
    expect((await diff('--audience', 'service', '--fail-on', 'warning')).status).toBe(0)
    expect((await diff('--audience', 'client', '--fail-on', 'warning')).status).toBe(1)
  })

  it('2 on a usage error: one file, a bad --fail-on or --format, two formats, a file no format claims', async () => {
    for (const args of [
      ['diff', oldFile],
      ['diff', oldFile, newFile, '--fail-on', 'info'],
      ['diff', oldFile, newFile, '--format', 'junit'],
      ['diff', oldFile, newFile, '--format', 'github', '--json'],
      ['diff', oldFile, join(root, 'fixtures/dasp/counter.dasp.json')],
      ['diff', oldFile, join(tmp, 'package.json')],
      ['diff', oldFile, newFile, '--topics', 'a'],
    ]) {
      const r = await cli(args, tmp)
      expect([r.status, r.stdout], args.join(' ')).toEqual([2, ''])
      expect(r.stderr).toMatch(/^contracts: /)
    }
  })

  it('1 with the diagnostics, as check prints them, when a version has errors: no diff is made', async () => {
    const broken = join(tmp, 'new/broken.spec.json')
    writeFileSync(broken, payments.replace('"#/components/schemas/SpecRequest"', '"#/components/schemas/Nope"'))
    state.findings = [described]
    const r = await cli(['diff', oldFile, broken], tmp)
    expect(r.status).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('error BENZENE_REF_MISSING')
    expect(r.stderr).toContain('0 contracts compared: 0 breaking, 0 warnings, 0 info; 1 contract with errors, not compared.')
    const json = JSON.parse((await cli(['diff', oldFile, broken, '--json'], tmp)).stdout)
    expect(json.failed).toBe(true)
    expect(json.findings).toEqual([])
    expect(json.contracts[0]).toMatchObject({ valid: false })
    expect(json.diagnostics.map((d: { code: string }) => d.code)).toContain('BENZENE_REF_MISSING')
    const github = await cli(['diff', oldFile, broken, '--format', 'github'], tmp)
    expect(github.stdout).toMatch(/^::error file=new\/broken\.spec\.json,line=\d+,col=\d+,title=BENZENE_REF_MISSING::/)
  })
})

describe('contracts diff: output', () => {
  it('text: grouped by audience (a finding under each kind it breaks, then those that break no one), at the new location (the old one for something removed)', async () => {
    state.findings = [removed, warned, described]
    const r = await diff()
    expect(r.stdout.split('\n')).toEqual([
      'Breaks client:',
      '  breaking fake-topic-removed  old/payments.spec.json:14:5 (/requests/0)  [payments:capture]  The topic "payments:capture" is removed.',
      '  warning  schema-changed  new/payments.spec.json:40:5 (/components/schemas/A)  The schema A changed; its effect is not known.',
      '',
      'Breaks service:',
      '  breaking fake-topic-removed  old/payments.spec.json:14:5 (/requests/0)  The topic "payments:capture" is removed.',
      '',
      'Breaks no one:',
      '  info     fake-described  new/payments.spec.json:4:5 (/info/description)  The description changed.',
      '',
    ])
    expect(r.stderr.trim()).toBe('1 contract compared: 1 breaking, 1 warning, 1 info; fails on breaking.')
    // --audience: that audience's group alone.
    const service = await diff('--audience', 'service')
    expect(service.stdout.split('\n')).toEqual([
      'Breaks service:',
      '  breaking fake-topic-removed  old/payments.spec.json:14:5 (/requests/0)  The topic "payments:capture" is removed.',
      '',
    ])
    expect(service.stderr.trim()).toBe('1 contract compared for service: 1 breaking, 0 warnings, 0 info; fails on breaking.')
  })

  it('--json: the documented shape, version 1; ignored findings with their reason; expired entries listed', async () => {
    writeFileSync(
      join(tmp, '.contracts-diff-ignore.yaml'),
      '- rule: fake-topic-removed\n  pointer: /requests\n  reason: capture moved to v2\n- rule: schema-changed\n  pointer: /components/schemas/A\n  reason: old\n  expires: 2020-01-01\n',
    )
    state.findings = [removed, warned]
    const r = await diff('--json')
    expect(r.status).toBe(0)
    const json = JSON.parse(r.stdout)
    expect(Object.keys(json)).toEqual([
      'version',
      'failOn',
      'audience',
      'against',
      'failed',
      'summary',
      'contracts',
      'findings',
      'ignored',
      'expiredIgnores',
      'unusedIgnores',
      'diagnostics',
    ])
    expect(json).toMatchObject({
      version: 1,
      failOn: 'breaking',
      audience: null,
      against: null,
      failed: false,
      summary: { contracts: 1, invalid: 0, breaking: 0, warning: 1, info: 0, ignored: 1 },
      contracts: [{ change: 'changed', format: 'benzene', old: oldFile, new: newFile, valid: true }],
      findings: [warned],
      ignored: [{ ...removed, reason: 'capture moved to v2', ignoredBy: { file: join(tmp, '.contracts-diff-ignore.yaml'), line: 1, column: 3 } }],
      expiredIgnores: [{ rule: 'schema-changed', pointer: '/components/schemas/A', reason: 'old', expires: '2020-01-01', line: 4, column: 3 }],
      diagnostics: [],
    })
    // The text says what was ignored and warns of the expired entry.
    const text = await diff()
    expect(text.stdout).toContain('Ignored (accepted in the ignore file):')
    expect(text.stdout).toContain('(.contracts-diff-ignore.yaml:1: capture moved to v2)')
    expect(text.stderr).toContain(
      'warning: .contracts-diff-ignore.yaml:4:3: the entry for schema-changed at /components/schemas/A expired on 2020-01-01; it ignores nothing now.',
    )
    expect(text.stderr).toContain('(1 ignored)')
    // --ignore names another file; a malformed one is a usage error at its line and column.
    writeFileSync(join(tmp, 'other-ignore.yaml'), '- rule: fake-topic-removed\n  pointer: /requests\n')
    const malformed = await diff('--ignore', join(tmp, 'other-ignore.yaml'))
    expect(malformed.status).toBe(2)
    expect(malformed.stderr).toContain(`contracts: the ignore file ${join(tmp, 'other-ignore.yaml')}:1:3: the entry has no reason.`)
    writeFileSync(join(tmp, '.contracts-diff-ignore.yaml'), '- rule: [\n')
    expect((await diff()).status).toBe(2)
    // A value at fault is reported where it is written, not at its entry (the outside pass on the CLI).
    const entry = (extra: string) => `- rule: fake-topic-removed\n  pointer: /requests\n  reason: r\n${extra}`
    for (const [text, at, says] of [
      ['- rule: fake-topic-removed\n  pointer: requests/1\n  reason: r\n', '2:12', 'is empty (the whole document) or starts with "/"'],
      ['- rule: fake-topic-removed\n  pointer: /requests~2\n  reason: r\n', '2:12', '"~" is written "~0"'],
      ['- rule: fake-topic-removed\n  pointer: /requests\n  reason: ""\n', '3:11', 'empty reason'],
      [entry('  expires: 2026-02-30\n'), '4:12', 'is not a day: write a calendar date as YYYY-MM-DD'],
      [entry('  contract: ""\n'), '4:13', 'contract is empty'],
    ] as const) {
      writeFileSync(join(tmp, 'bad-ignore.yaml'), text)
      const bad = await diff('--ignore', join(tmp, 'bad-ignore.yaml'))
      expect([bad.status, bad.stderr], text).toEqual([2, expect.stringContaining(`${join(tmp, 'bad-ignore.yaml')}:${at}: `)])
      expect(bad.stderr).toContain(says)
    }
  })

  it('an ignore entry in date that names no finding is reported as unused (a misspelt rule id), in text, JSON and GitHub annotations', async () => {
    writeFileSync(
      join(tmp, '.contracts-diff-ignore.yaml'),
      '- rule: fake-topic-removed\n  pointer: /requests\n  reason: accepted\n- rule: fake-topic-removd\n  pointer: /requests\n  reason: typo\n',
    )
    state.findings = [removed]
    const text = await diff()
    expect(text.status).toBe(0)
    expect(text.stderr).toContain(
      'warning: .contracts-diff-ignore.yaml:4:3: the entry for fake-topic-removd at /requests names no finding of this diff; it ignores nothing',
    )
    expect(text.stderr).not.toContain('.contracts-diff-ignore.yaml:1:3')
    const json = JSON.parse((await diff('--json')).stdout)
    expect(json.unusedIgnores).toEqual([expect.objectContaining({ rule: 'fake-topic-removd', pointer: '/requests', line: 4, column: 3 })])
    expect((await diff('--format', 'github')).stdout).toContain('title=diff-ignore-unused::')
    // An entry whose finding another audience breaks is used, even when --audience hides that finding.
    const other = await diff('--audience', 'host')
    expect(other.stdout).not.toContain('fake-topic-removed')
    expect(other.stderr).not.toContain('.contracts-diff-ignore.yaml:1:3')
  })

  it('--format github: one annotation per finding on the new file (the old for a removal); a hostile message escaped', async () => {
    const hostile: DiffFinding = {
      rule: 'fake-topic-removed',
      level: 'breaking',
      audiences: [{ kind: 'client', name: 'a,b:c' }],
      new: loc(newFile, 7, '/x'),
      message: '100% gone\n::error file=evil::pwned\r\u001b[31mred',
    }
    const gone: DiffFinding = {
      ...described,
      rule: 'fake-topic-removed',
      level: 'breaking',
      audiences: [{ kind: 'service' }],
      new: undefined,
      old: loc(oldFile, 9, '/r'),
    }
    state.findings = [hostile, warned, described, gone]
    const r = await diff('--format', 'github')
    expect(r.status).toBe(1)
    expect(r.stdout.trim().split('\n')).toEqual([
      '::notice file=new/payments.spec.json,line=4,col=5,title=fake-described::The description changed.',
      // The newline is the workflow command's %0A; a carriage return and an escape are written out as for a terminal.
      '::error file=new/payments.spec.json,line=7,col=5,title=fake-topic-removed::100%25 gone%0A::error file=evil::pwned%0D\\u{1b}[31mred (breaks: client a,b:c)',
      '::warning file=new/payments.spec.json,line=40,col=5,title=schema-changed::The schema A changed; its effect is not known. (breaks: client)',
      '::error file=old/payments.spec.json,line=9,col=5,title=fake-topic-removed::The description changed. (breaks: service)',
    ])
    // Every line is one workflow command: no raw newline, carriage return or escape character got through.
    // eslint-disable-next-line no-control-regex -- the characters that must not get through
    for (const line of r.stdout.trim().split('\n')) expect(line).not.toMatch(/[\r\u001b]/)
  })

  // An outside pass: a contract outside the working directory was annotated by its absolute path,
  // which GitHub cannot place; `check` wrote the relative one. Both now write the path from the
  // repository's root (`GITHUB_WORKSPACE`) when the file is inside it, else from the working directory.
  it('--format github: paths from GITHUB_WORKSPACE when the file is inside it, else from the working directory; never absolute', async () => {
    state.findings = [warned]
    const saved = process.env.GITHUB_WORKSPACE
    try {
      delete process.env.GITHUB_WORKSPACE
      const outside = await cli(['diff', oldFile, newFile, '--format', 'github'], join(tmp, 'old'))
      expect(outside.stdout).toMatch(/^::warning file=\.\.\/new\/payments\.spec\.json,line=40,/)
      process.env.GITHUB_WORKSPACE = tmp
      const fromRoot = await cli(['diff', oldFile, newFile, '--format', 'github'], join(tmp, 'old'))
      expect(fromRoot.stdout).toMatch(/^::warning file=new\/payments\.spec\.json,line=40,/)
      const broken = join(tmp, 'new/broken.spec.json')
      writeFileSync(broken, payments.replace('"#/components/schemas/SpecRequest"', '"#/components/schemas/Nope"'))
      for (const command of [
        ['diff', oldFile, broken],
        ['check', broken],
      ]) {
        const r = await cli([...command, '--format', 'github'], join(tmp, 'old'))
        expect(r.stdout, command[0]).toMatch(/^::error file=new\/broken\.spec\.json,line=\d+,col=\d+,title=BENZENE_REF_MISSING::/)
      }
    } finally {
      if (saved === undefined) delete process.env.GITHUB_WORKSPACE
      else process.env.GITHUB_WORKSPACE = saved
    }
  })

  it('--format sarif: a log the OASIS schema accepts; rules from the catalogue linked to docs/diff.md; new and old locations; suppressions', async () => {
    writeFileSync(join(tmp, '.contracts-diff-ignore.yaml'), '- rule: fake-described\n  pointer: /info/description\n  reason: wording\n')
    state.findings = [removed, warned, described]
    const r = await diff('--format', 'sarif')
    expect(r.status).toBe(1)
    const log = JSON.parse(r.stdout) as Log
    const validate = sarifValidator()
    expect(validate(log), JSON.stringify(validate.errors, null, 2)).toBe(true)
    const broken = structuredClone(log)
    broken.runs[0]!.results![0]!.level = 'fatal' as 'error'
    expect(validate(broken)).toBe(false)
    const run = log.runs[0]!
    expect(run.tool.driver.rules!.map((rule) => rule.id)).toEqual(['fake-topic-removed', 'schema-changed', 'fake-described'])
    const docs = pathToFileURL(join(root, 'docs/diff.md')).href
    const rule = run.tool.driver.rules![0]!
    expect(rule).toMatchObject({ name: 'FakeTopicRemoved', shortDescription: { text: 'A topic was removed.' }, helpUri: `${docs}#fake-topic-removed` })
    expect(rule.defaultConfiguration!.level).toBe('error')
    expect(run.tool.driver.rules![1]!.helpUri).toBe(`${docs}#schema-changed`)
    expect(run.results!.map((x) => [x.ruleId, x.level, x.suppressions?.[0]?.justification])).toEqual([
      ['fake-topic-removed', 'error', undefined],
      ['schema-changed', 'warning', undefined],
      ['fake-described', 'note', 'wording'],
    ])
    const first = run.results![0]!
    expect(first.locations).toEqual([
      { physicalLocation: { artifactLocation: { uri: 'new/payments.spec.json', uriBaseId: '%SRCROOT%' }, region: { startLine: 12, startColumn: 5 } } },
    ])
    expect(first.relatedLocations).toEqual([
      {
        id: 1,
        physicalLocation: { artifactLocation: { uri: 'old/payments.spec.json', uriBaseId: '%SRCROOT%' }, region: { startLine: 14, startColumn: 5 } },
        message: { text: 'In the old version.' },
      },
    ])
    expect(first.properties).toMatchObject({ level: 'breaking', audiences: removed.audiences, pointer: '/requests', oldPointer: '/requests/0' })
    // Was a defect (fixed): a message's braces (a NATS subject's `{orderId}`) were written as they are,
    // which a SARIF viewer reads as a placeholder (SARIF 2.1.0 §3.11.5: literal braces are doubled).
    state.findings = [{ ...removed, message: 'orders.{orderId}.placed no longer matches {a} or }b{.' }]
    const braces = JSON.parse((await diff('--format', 'sarif')).stdout) as Log
    expect(braces.runs[0]!.results![0]!.message.text).toBe('orders.{{orderId}}.placed no longer matches {{a}} or }}b{{.')
  })

  it('docs/cli.md shows the JSON document with the fields the command writes, and an ignore file the command reads', async () => {
    const doc = readFileSync(join(root, 'docs/cli.md'), 'utf8')
    const block = (heading: string) => {
      const from = doc.indexOf('```text\n', doc.indexOf(heading)) + '```text\n'.length
      return doc.slice(from, doc.indexOf('```', from))
    }
    const shown = JSON.parse(block('### The JSON document'))
    state.findings = [removed]
    const written = JSON.parse((await diff('--json')).stdout)
    expect(Object.keys(shown)).toEqual(Object.keys(written))
    expect(Object.keys(shown.summary)).toEqual(Object.keys(written.summary))
    expect(Object.keys(shown.contracts[0])).toEqual(Object.keys(written.contracts[0]))
    expect(Object.keys(shown.findings[0]).sort()).toEqual([...Object.keys(removed), 'data'].sort())
    expect(shown.version).toBe(written.version)
    const { parseIgnoreFile } = await import('../src/core/diff/ignore.js')
    expect(parseIgnoreFile('/x', block('### The ignore file')).entries).toEqual([
      expect.objectContaining({ rule: 'subject-narrowed', pointer: '/channels/created', reason: 'orders.v1 publishers are retired', expires: '2026-12-31' }),
    ])
  })

  it('the built binary: the real (placeholder) differs, exit statuses as the shell sees them, the summary on stderr', () => {
    const same = contracts(['diff', oldFile, newFile], tmp)
    expect([same.status, same.stdout, same.stderr]).toEqual([0, '', '1 contract compared: 0 breaking, 0 warnings, 0 info; passes.\n'])
    expect(contracts(['diff', oldFile], tmp).status).toBe(2)
    const json = JSON.parse(contracts(['diff', oldFile, newFile, '--json'], tmp).stdout)
    expect([json.version, json.failed, json.findings]).toEqual([1, false, []])
  })

  it('help: `contracts diff --help` lists its flags; a flag of another command is refused', async () => {
    const help = await cli(['diff', '--help'], tmp)
    expect(help.status).toBe(0)
    for (const flag of ['--against', '--fail-on', '--audience', '--ignore', '--json', '--format sarif']) expect(help.stdout).toContain(flag)
    expect((await cli(['check', '--against', 'HEAD', newFile], tmp)).status).toBe(2)
  })
})
