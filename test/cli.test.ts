/**
 * The `contracts` command: most cases call its `run` in this process (contractsInProcess, this file
 * has a process of its own); what is about the process itself (exit status as the shell sees it,
 * stdout and stderr through real pipes, --version) and at least one run of each command use the
 * built binary in a child process.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { contracts, contractsInProcess as cli } from './helpers/cli.js'
import { testFolder } from './helpers/temp-folder.js'

const fixtures = join(import.meta.dirname, '../fixtures/benzene')
const payments = join(fixtures, 'valid/payments.spec.json')
const broken = join(fixtures, 'invalid/ref-missing.spec.json')
/** Commands this file otherwise runs only in process: their help page is also asked of the binary. */
const RUN_AS_BINARY: Record<string, true> = { generate: true, topology: true, lock: true, nats: true }

describe('contracts check', () => {
  it('exits 0 on valid contracts', async () => {
    const r = contracts(['check', payments, join(fixtures, 'valid/hostile-names.spec.json')])
    expect(r.stderr).toContain('2 contracts checked: no errors.')
    expect(r.status).toBe(0)
  })

  it('exits 1 with a code frame on an invalid contract', async () => {
    const r = contracts(['check', payments, broken])
    expect(r.status).toBe(1)
    expect(r.stderr).toContain(`error BENZENE_REF_MISSING: $ref points at components.schemas["Orders"], which does not exist.`)
    expect(r.stderr).toContain(`${broken}:16:17 (/requests/0/response/$ref)`)
    expect(r.stderr).toContain('> 16 |         "$ref": "#/components/schemas/Orders"')
  })

  it('--json prints every diagnostic with its fields', async () => {
    const r = await cli(['check', broken, '--json'])
    expect(r.status).toBe(1)
    expect(JSON.parse(r.stdout)).toEqual({
      diagnostics: [
        {
          code: 'BENZENE_REF_MISSING',
          severity: 'error',
          message: '$ref points at components.schemas["Orders"], which does not exist.',
          file: broken,
          pointer: '/requests/0/response/$ref',
          line: 16,
          column: 17,
          data: { ref: '#/components/schemas/Orders', name: 'Orders' },
        },
      ],
    })
  })

  it('a missing file says so plainly, with no position into nothing', async () => {
    const r = await cli(['check', 'nope.spec.json'])
    expect(r.status).toBe(1)
    expect(r.stderr).toContain('Cannot read ')
    expect(r.stderr).toContain('nope.spec.json: there is no such file.')
    expect(r.stderr).not.toMatch(/ENOENT|nope\.spec\.json:1:1/)
  })

  it('--format github writes one GitHub Actions annotation per diagnostic, escaped, paths relative to the checkout', async () => {
    const r = await cli(['check', '--format', 'github', 'fixtures/nats/invalid/token-type.asyncapi.yaml', 'fixtures/nats/valid/ledger.asyncapi.yaml'])
    expect(r.status).toBe(1)
    expect(r.stdout.trim().split('\n')).toEqual([
      '::error file=fixtures/nats/invalid/token-type.asyncapi.yaml,line=13,col=14,title=NATS_TOKEN_TYPE::Token type "entryId" needs maxLength as an integer in 1..128.',
    ])
    expect(r.stderr.trim()).toBe('2 contracts checked: 1 failed (1 error).')
    // A warning-only contract (NATS has no warning code since NATS_CONSUMER_OUTSIDE_STREAM became an error).
    const warned = await cli(['check', '--format', 'github', 'fixtures/benzene/invalid/openapi-value.spec.json'])
    expect([warned.status, warned.stdout]).toEqual([
      0,
      expect.stringMatching(/^::warning file=fixtures\/benzene\/invalid\/openapi-value\.spec\.json,line=\d+,col=\d+,title=BENZENE_OPENAPI_VALUE::/),
    ])
    expect((await cli(['check', '--format', 'junit', 'fixtures/nats/valid/ledger.asyncapi.yaml'])).status).toBe(2)
  })

  it('a flag another command takes is a usage error that names what the command takes', async () => {
    for (const [args, flag, command] of [
      [['check', '--topic', 'x', 'fixtures/nats/valid/ledger.asyncapi.yaml'], '--topic', 'check'],
      [['inspect', '--topic', 'x', 'fixtures/nats/valid/ledger.asyncapi.yaml'], '--topic', 'inspect'],
      [['types', '--json', 'fixtures/nats/valid/ledger.asyncapi.yaml'], '--json', 'types'],
      [['topology', '--server', 'nats://127.0.0.1:1', 'fixtures/nats/shop'], '--server', 'topology'],
    ] as const) {
      const r = await cli([...args])
      expect([r.status, r.stderr]).toEqual([2, expect.stringContaining(`${flag} does not apply to \`contracts ${command}\``)])
    }
    // Each flag named once, though the help describes --format on two lines.
    const diff = await cli(['diff', '--no-cache', 'a.json', 'b.json'])
    expect(diff.stderr).toContain('(it takes --against, --fail-on, --audience, --ignore, --json, --format).')
  })

  it('a usage error quoting what was typed escapes it (an unknown flag with an escape sequence, a line break, U+202E)', async () => {
    // Was a defect (fixed; seen by the build-errors pass): `There is no flag --bo<ESC>[31mgus.` printed the sequence raw.
    for (const typed of ['--bo\u001b[31mgus', '--x\nerror FAKE: planted', '--y\u202Ez']) {
      const r = await cli([`check`, typed, payments])
      expect(r.status).toBe(2)
      // eslint-disable-next-line no-control-regex -- the characters that must not get through
      expect(/[\u001b\u202e]|\nerror FAKE/.test(r.stderr), r.stderr).toBe(false)
      expect(r.stderr).toContain('There is no flag --')
    }
    expect((await cli(['bogus\u001b[31m'])).stderr).not.toContain('\u001b')
  })

  it('a flag with a value given twice is a usage error, not the last one taken without a word', async () => {
    // Was a defect (fixed; seen by the generate pass): `--out a --out b` wrote to b.
    for (const [args, flag] of [
      [['generate', '--target', 'typescript', '--out', 'a', '--out', 'b', payments], '--out'],
      [['check', '--topics', 'payments:capture', '--topics=payments:refund', payments], '--topics'],
      [['generate', '--target', 'rust', '--target', 'typescript', '--out', 'a', payments], '--target'],
    ] as const) {
      const r = await cli([...args])
      expect([r.status, r.stderr]).toEqual([2, expect.stringContaining(`${flag} is given more than once; give it once.`)])
    }
    // A boolean given twice says the same thing twice: accepted.
    expect((await cli(['check', '--json', '--json', payments])).status).toBe(0)
  })

  it('--topics, --include-reserved and --names on a NATS or DASP file are usage errors, not ignored', async () => {
    for (const [args, flag, kind] of [
      [['check', '--topics', 'a', 'fixtures/nats/valid/ledger.asyncapi.yaml'], '--topics', 'NATS'],
      [['inspect', '--include-reserved', 'fixtures/dasp/counter.dasp.json'], '--include-reserved', 'DASP'],
      [['types', '--topics', 'a', payments, 'fixtures/nats/valid/ledger.asyncapi.yaml'], '--topics', 'NATS'],
    ] as const) {
      const r = await cli([...args])
      expect([r.status, r.stdout]).toEqual([2, ''])
      expect(r.stderr).toContain(`contracts: ${flag} applies to Benzene contracts; ${args.at(-1)} is a ${kind} contract.`)
    }
  })

  it("parseArgs' errors become plain sentences, followed by the command's own page", async () => {
    const unknown = await cli(['check', payments, '--bogus'])
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toMatch(/^contracts: There is no flag --bogus\.\n\nUsage:\n {2}contracts check /)
    expect(unknown.stderr).not.toContain('as in')
    expect((await cli(['hash', payments, '--topic'])).stderr).toMatch(/^contracts: --topic needs a value \(--topic <value>\)\./)
    expect((await cli(['check', '--json=yes', payments])).stderr).toMatch(/^contracts: --json takes no value\./)
    // A file whose name starts with "-" read as short flags: the sentence names what was typed and how to pass it.
    const dashed = await cli(['diff', '-old.spec.json', payments])
    expect(dashed.status).toBe(2)
    expect(dashed.stderr).toMatch(
      /^contracts: There is no flag -o \(in "-old\.spec\.json"\): a file whose name starts with "-" is written \.\/-old\.spec\.json, or after --\./,
    )
  })

  it('--help per command (and `help <command>`) shows usage, flags and examples on stdout; --version prints the version', async () => {
    const version = JSON.parse(readFileSync(join(import.meta.dirname, '../package.json'), 'utf8')).version
    expect(contracts(['--version'])).toEqual({ status: 0, stdout: `${version}\n`, stderr: '' })
    for (const command of ['check', 'hash', 'inspect', 'types', 'generate', 'topology', 'lock', 'nats']) {
      const page = await cli([command, '--help'])
      expect([page.status, page.stderr]).toEqual([0, ''])
      expect(page.stdout).toMatch(new RegExp(`^Usage:\\n  contracts ${command} `))
      expect(page.stdout).toMatch(/\nExamples:\n {2}contracts /)
      expect((command in RUN_AS_BINARY ? contracts(['help', command]) : await cli(['help', command])).stdout).toBe(page.stdout)
    }
    expect((await cli(['help', 'nope'])).status).toBe(2)
  })

  it('results on stdout; diagnostics and the summary on stderr, one summary line per run saying how many files failed', async () => {
    const r = contracts(['check', payments, 'fixtures/nats/invalid/token-type.asyncapi.yaml', 'fixtures/benzene/invalid/openapi-value.spec.json'])
    expect([r.status, r.stdout]).toEqual([1, ''])
    expect(r.stderr).toContain('NATS_TOKEN_TYPE')
    expect(r.stderr.trim().split('\n').at(-1)).toBe('3 contracts checked: 1 failed (1 error, 1 warning).')
    const ok = contracts(['check', 'fixtures/benzene/invalid/openapi-value.spec.json'])
    expect(ok.stderr.trim().split('\n').at(-1)).toBe('1 contract checked: no errors, 1 warning.')
    const json = contracts(['check', '--json', payments])
    expect(JSON.parse(json.stdout)).toEqual({ diagnostics: [] })
    expect(json.stderr.trim()).toBe('1 contract checked: no errors.')
    const hash = contracts(['hash', payments])
    expect([hash.stdout.trim().length, hash.stderr]).toEqual([64 + 'sha256:'.length, ''])
  })

  it('one YAML mistake prints one diagnostic (the consequent parser errors counted, not shown)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'contracts-yaml-'))
    const file = join(dir, 'orders.asyncapi.yaml')
    // README's old NATS snippet: a `{` inside a flow mapping.
    writeFileSync(file, 'asyncapi: 3.1.0\nchannels:\n  a:\n    filters: { inRegion: payments.{region}.*.captured }\n    x: 1\n')
    const r = await cli(['check', file])
    rmSync(dir, { recursive: true, force: true })
    expect(r.status).toBe(1)
    expect(r.stderr.match(/^error /gm)).toHaveLength(1)
    expect(r.stderr).toContain(`error YAML_SYNTAX: Invalid YAML: Unexpected flow-map-start at node end.`)
    expect(r.stderr).toContain('(6 more syntax errors follow from this one and are not shown.)')
    expect(r.stderr).toContain(`${file}:4:35`)
    expect(r.stderr.trim().split('\n').at(-1)).toBe('1 contract checked: 1 failed (1 error).')
  })

  it('exits 2 on usage errors', async () => {
    expect(contracts(['check']).status).toBe(2)
    expect(contracts(['check', payments, '--nope']).status).toBe(2)
    expect(contracts(['frobnicate']).status).toBe(2)
    expect(contracts([]).status).toBe(2)
    expect(contracts(['--help']).status).toBe(0)
  })
})

describe('contracts hash and inspect', () => {
  const hashCases = JSON.parse(readFileSync(join(import.meta.dirname, '../conformance/benzene/contract-hash-cases.json'), 'utf8'))
  const inspected = async () => JSON.parse((await cli(['inspect', payments, '--json'])).stdout)

  it('inspect --json prints topics, events, closures and hashes', async () => {
    const data = await inspected()
    expect(data.format).toBe('benzene')
    expect(data.topics).toEqual(['payments:capture', 'payments:refund', 'payments:get-all'])
    expect(data.events).toEqual(['payment:captured'])
    expect(data.closure['payments:get-all']).toEqual(['PaymentDto', 'Void'])
    expect(Object.keys(data.hashes.topics)).toEqual(data.topics)
  })

  it('hash: whole-service, --topic (topic-scoped) and --topics (service-level) agree with inspect', async () => {
    const data = await inspected()
    expect((await cli(['hash', payments])).stdout.trim()).toBe(data.hashes.service)
    expect((await cli(['hash', payments, '--topic', 'payments:capture'])).stdout.trim()).toBe(data.hashes.topics['payments:capture'])
    const serviceLevel = JSON.parse((await cli(['inspect', payments, '--topics', 'payments:refund', '--json'])).stdout).hashes.service
    expect((await cli(['hash', payments, '--topics', 'payments:refund'])).stdout.trim()).toBe(serviceLevel)
    expect(serviceLevel).not.toBe(data.hashes.topics['payments:refund'])
  })

  it('hash of a reserved topic asked for by name', async () => {
    const r = await cli(['hash', payments, '--topic', 'benzene:spec'])
    expect(r.status).toBe(0)
    expect(r.stdout.trim()).toMatch(/^sha256:[0-9a-f]{64}$/)
  })

  it('hash --topic --version picks one version; without --version an ambiguous topic is a usage error', async () => {
    const edge = join(fixtures, 'valid/edge-cases.spec.json')
    const v2 = await cli(['hash', edge, '--topic', 'orders:place', '--version', 'v2'])
    expect(v2.status).toBe(0)
    const v1 = await cli(['hash', edge, '--topic', 'orders:place', '--version', 'v1'])
    expect(v1.stdout).not.toBe(v2.stdout)
    const ambiguous = await cli(['hash', edge, '--topic', 'orders:place'])
    expect(ambiguous.status).toBe(2)
    expect(ambiguous.stderr).toContain('orders:place --version v1, orders:place --version v2')
  })

  it('an unknown topic fails like check, listing the valid ones', async () => {
    const r = await cli(['hash', payments, '--topic', 'payments:cancel'])
    expect(r.status).toBe(1)
    expect(r.stderr).toContain('BENZENE_UNKNOWN_TOPIC')
    expect(r.stderr).toContain('payments:get-all')
    const inspectBroken = await cli(['inspect', broken, '--json'])
    expect(inspectBroken.status).toBe(1)
    expect(JSON.parse(inspectBroken.stdout).diagnostics[0].code).toBe('BENZENE_REF_MISSING')
  })

  it('prints the conformance hashes of the conformance document', async () => {
    const dir = testFolder('contracts-cli-')
    const file = join(dir, 'payments.spec.json')
    writeFileSync(file, JSON.stringify(hashCases.documents.payments, null, 2))
    const pinned = (prefix: string) => hashCases.cases.find((c: { name: string }) => c.name.startsWith(prefix)).expect.hash
    expect((await cli(['hash', file])).stdout.trim()).toBe(pinned('whole-service: strips'))
    expect((await cli(['hash', file, '--topic', 'payments:capture', '--version', 'v2'])).stdout.trim()).toBe(pinned('topic-scoped: one entry'))
    expect((await cli(['hash', file, '--topics', 'payments:capture'])).stdout.trim()).toBe(pinned('service-level: requests filtered'))
  })
})

describe("contracts --names: the plugin's `names` option, from a file", () => {
  const collision = join(fixtures, 'invalid/export-collision.spec.json')
  const namesFile = (names: unknown) => {
    const file = join(testFolder('contracts-names-'), 'names.json')
    writeFileSync(file, JSON.stringify(names))
    return file
  }

  it('inspect shows the export names; --names renames, and types write the names given', async () => {
    const defaults = JSON.parse((await cli(['inspect', collision, '--json'])).stdout)
    expect(defaults.entries.map((e: { exportName: string }) => e.exportName)).toEqual(['ordersPlace', 'customersPlace'])
    expect(contracts(['inspect', collision]).stdout).toContain('topic orders:place  sha256:')
    const names = namesFile({ 'orders:place@v1': 'placeOrder', 'customers:place': 'placeCustomer' })
    const renamed = JSON.parse((await cli(['inspect', collision, '--names', names, '--json'])).stdout)
    expect(renamed.entries.map((e: { exportName: string }) => e.exportName)).toEqual(['placeOrder', 'placeCustomer'])
    const dir = testFolder('contracts-names-types-')
    const copy = join(dir, 'orders.spec.json')
    writeFileSync(copy, readFileSync(collision))
    expect(contracts(['types', copy, '--names', names]).status).toBe(0)
    expect(readFileSync(join(dir, 'orders.spec.d.json.ts'), 'utf8')).toMatch(/export declare const placeOrder: [\s\S]*export declare const placeCustomer:/)
  })

  it('a name the file gives twice fails check; a file that is missing or not an object of strings is a usage or option error', async () => {
    const clash = await cli(['check', collision, '--names', namesFile({ 'orders:place': 'place', 'customers:place': 'place' })])
    expect(clash.status).toBe(1)
    expect(clash.stderr).toContain('BENZENE_EXPORT_COLLISION')
    expect(await cli(['check', collision, '--names', join(tmpdir(), 'no-such-names.json')])).toMatchObject({ status: 2 })
    expect(await cli(['check', collision, '--names', namesFile(['place'])])).toMatchObject({ status: 2 })
    const wrongValue = await cli(['check', collision, '--names', namesFile({ 'orders:place': 3 })])
    expect(wrongValue.status).toBe(1)
    expect(wrongValue.stderr).toContain('BENZENE_INVALID_OPTION')
  })
})

describe('every command on every format', () => {
  const nats = join(import.meta.dirname, '../fixtures/nats/valid/ledger.asyncapi.yaml')
  const dasp = join(import.meta.dirname, '../fixtures/dasp/counter.dasp.json')
  const cases: Array<[format: string, file: string, text: RegExp]> = [
    ['benzene', payments, /^benzene contract .*\nservice hash: sha256:[0-9a-f]{64}\n {2}topic payments:capture/],
    [
      'nats',
      nats,
      /^nats contract ledger 2\.0\.0 .*\ndocument digest: [0-9a-f]{64}\n {2}channel balanceQuery {2}ledger\.balance\.\{account\}\n {2}channel balanceReply \(reply channel\)\n {2}channel entryPosted {2}ledger\.\{region\}\.\{entryId\}\.posted/,
    ],
    ['dasp', dasp, /^dasp selection .*\n {2}extension https:\/\/dasp-protocol\.github\.io\/dasp\/contracts\/encrypted-delivery draft-01 {2}connection/],
  ]

  it.each(cases)('%s: check, inspect, inspect --json and types succeed', async (format, file, text) => {
    expect(await cli(['check', file])).toMatchObject({ status: 0 })
    const inspected = await cli(['inspect', file])
    expect(inspected.status, inspected.stderr).toBe(0)
    expect(inspected.stdout).toMatch(text)
    const json = await cli(['inspect', file, '--json'])
    expect(json.status).toBe(0)
    expect(JSON.parse(json.stdout)).toMatchObject({ format })
    const dir = testFolder(`contracts-types-${format}-`)
    const copy = join(dir, file.split('/').pop()!)
    writeFileSync(copy, readFileSync(file))
    if (format === 'dasp') {
      // A selection reads its definitions and pins beside it.
      for (const sub of ['extensions', 'pins']) cpSync(join(file, '..', sub), join(dir, sub), { recursive: true })
    }
    const types = await cli(['types', copy])
    expect(types.status, types.stderr).toBe(0)
    expect(types.stderr).toContain('wrote')
  })

  it('hash: the Benzene contract hash; a usage error naming what NATS and DASP have instead, never a crash', async () => {
    expect((await cli(['hash', payments])).stdout.trim()).toMatch(/^sha256:[0-9a-f]{64}$/)
    const natsHash = await cli(['hash', nats])
    expect(natsHash.status).toBe(2)
    expect(natsHash.stderr).toMatch(/no contract hash; it is identified by its document digest, [0-9a-f]{64}/)
    expect(natsHash.stderr).not.toContain('TypeError')
    const daspHash = await cli(['hash', dasp])
    expect(daspHash.status).toBe(2)
    expect(daspHash.stderr).toContain('pinned by content')
  })
})

describe('contracts types', () => {
  it('one contract given as several imports: each of its diagnostics printed once, as a build prints them', async () => {
    const dir = testFolder('contracts-types-once-')
    const file = join(dir, 'p.spec.json')
    const warned = readFileSync(payments, 'utf8').replace('"openapi": "3.0.1"', '"openapi": "3.0.3"')
    writeFileSync(file, warned)
    // Was a defect (fixed): the warning was printed once for each import given.
    const ok = await cli(['types', file, `${file}?topics=payments:capture`, `${file}?topics=payments:refund`])
    expect(ok.status, ok.stderr).toBe(0)
    expect(ok.stderr.match(/warning BENZENE_OPENAPI_VALUE/g), ok.stderr).toHaveLength(1)
    // An invalid one: its error once, the run failed for each import.
    writeFileSync(file, warned.replace('"#/components/schemas/PaymentDto"', '"#/components/schemas/PaymentDtoA"'))
    const failed = await cli(['types', file, `${file}?topics=payments:capture`])
    expect(failed.status).toBe(1)
    expect(failed.stderr.match(/error BENZENE_REF_MISSING/g), failed.stderr).toHaveLength(1)
    expect(failed.stderr.match(/warning BENZENE_OPENAPI_VALUE/g), failed.stderr).toHaveLength(1)
  })
})

describe('a document given twice (the same path written two ways, or globs that overlap)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'contracts-twice-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'p.spec.json')
  writeFileSync(file, readFileSync(payments, 'utf8').replace('"openapi": "3.0.1"', '"openapi": "3.0.3"'))
  // Spelled three ways: the path as given, with `.` and with `sub/..` (join would tidy them: written out).
  const twice = [file, `${dir}/./p.spec.json`, `${dir}/sub/../p.spec.json`]

  it('check: one contract checked, its warning once (text, --json)', async () => {
    const text = await cli(['check', ...twice])
    expect(text.status, text.stderr).toBe(0)
    expect(text.stderr.match(/warning BENZENE_OPENAPI_VALUE/g), text.stderr).toHaveLength(1)
    expect(text.stderr).toContain('1 contract checked: no errors, 1 warning.')
    const json = await cli(['check', '--json', ...twice])
    expect((JSON.parse(json.stdout) as { diagnostics: unknown[] }).diagnostics).toHaveLength(1)
  })

  it('generate: one module written, not refused as two documents writing one file', async () => {
    // Was a defect (fixed): "p.spec.json and ./p.spec.json both write p.js; nothing was written", a usage error.
    const out = join(dir, 'generated')
    const r = await cli(['generate', '--target', 'typescript', '--out', out, ...twice])
    expect(r.status, r.stderr).toBe(0)
    expect(readFileSync(join(out, 'p.js'), 'utf8')).toContain('export')
  })

  it('types and inputs: each document once; `x?` (the empty query) still its own import', async () => {
    const types = await cli(['types', ...twice, `${file}?`])
    expect(types.status, types.stderr).toBe(0)
    expect(types.stderr.match(/warning BENZENE_OPENAPI_VALUE/g), types.stderr).toHaveLength(1)
    expect(readFileSync(join(dir, 'p.spec.json-queries.d.ts'), 'utf8')).toContain('p.spec.json?')
    const inputs = await cli(['inputs', '--json', ...twice])
    expect((JSON.parse(inputs.stdout) as { contracts: unknown[] }).contracts).toHaveLength(1)
  })
})

describe('two contracts of one NATS bundle, the bundle broken for both', () => {
  const dir = mkdtempSync(join(tmpdir(), 'contracts-bundle-once-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  for (const part of ['bundle.lock.json', 'orders', 'fulfilment', 'native'])
    cpSync(join(import.meta.dirname, '../examples/nats-orders', part), join(dir, part), { recursive: true })
  // A locked file's pin no longer its bytes: each contract's compile reads the lock and reports it.
  const lock = join(dir, 'bundle.lock.json')
  const locked = JSON.parse(readFileSync(lock, 'utf8')) as { entries: Array<{ path: string; sha256: string }> }
  for (const entry of locked.entries) if (entry.path === 'native/streams.json') entry.sha256 = '0'.repeat(64)
  writeFileSync(lock, JSON.stringify(locked, null, 2))
  const docs = [join(dir, 'orders/asyncapi.yaml'), join(dir, 'fulfilment/asyncapi.yaml')]
  const count = (text: string) => text.match(/NATS_LOCK_DIGEST/g)?.length ?? 0

  it('check: each diagnostic once in text, --json, --format github and SARIF; both contracts failed', async () => {
    // Was a defect (fixed): the lock's NATS_LOCK_DIGEST was printed (and annotated) once per contract.
    const text = await cli(['check', ...docs])
    expect([text.status, count(text.stderr)], text.stderr).toEqual([1, 1])
    expect(text.stderr).toMatch(/2 contracts checked: 2 failed \(\d+ errors?\)\./)
    const json = await cli(['check', '--json', ...docs])
    expect(count(json.stdout)).toBe(1)
    const github = await cli(['check', '--format', 'github', ...docs])
    expect(github.stdout.split('\n').filter((l) => l.includes('NATS_LOCK_DIGEST'))).toHaveLength(1)
    const sarif = await cli(['check', '--format', 'sarif', ...docs])
    const results = (JSON.parse(sarif.stdout) as { runs: Array<{ results: Array<{ ruleId: string }> }> }).runs[0]!.results
    expect(results.filter((r) => r.ruleId === 'NATS_LOCK_DIGEST')).toHaveLength(1)
  })

  it('generate (both targets) and inputs: each diagnostic once', async () => {
    for (const target of ['rust', 'typescript']) {
      const r = await cli(['generate', '--target', target, '--out', join(dir, `out-${target}`), ...docs])
      expect([target, r.status, count(r.stderr)], r.stderr).toEqual([target, 1, 1])
    }
    const inputs = await cli(['inputs', '--json', ...docs])
    expect(count(JSON.stringify((JSON.parse(inputs.stdout) as { diagnostics: unknown[] }).diagnostics))).toBe(1)
  })
})
