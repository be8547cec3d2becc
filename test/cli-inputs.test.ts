/**
 * `contracts inputs` (every file a contract depends on, for a monorepo tool's task inputs) and the
 * CLI's persistent cache flags (`--cache-dir`, `--no-cache`): the command in this process
 * (contractsInProcess), the first listing also as the built binary.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sha256 } from '../src/core/input-host.js'
import { contracts, contractsInProcess as cli } from './helpers/cli.js'
import { copyDaspSelection } from './helpers/dasp-selection.js'

const repo = join(import.meta.dirname, '..')
const work = join(import.meta.dirname, '.tmp/cli-inputs', String(process.pid))
afterAll(() => rmSync(work, { recursive: true, force: true }))

let made = 0
/** A project folder of its own (a `package.json`) with the shop bundle, a Benzene contract and a DASP selection. */
function project(): string {
  const root = join(work, `p${made++}`)
  rmSync(root, { recursive: true, force: true })
  mkdirSync(root, { recursive: true })
  writeFileSync(join(root, 'package.json'), '{ "name": "p", "private": true }\n')
  cpSync(join(repo, 'fixtures/nats/shop'), join(root, 'shop'), { recursive: true })
  cpSync(join(repo, 'fixtures/benzene/valid/payments.spec.json'), join(root, 'payments.spec.json'))
  cpSync(join(repo, 'fixtures/benzene/invalid/ref-missing.spec.json'), join(root, 'broken.spec.json'))
  copyDaspSelection(join(root, 'dasp'))
  return root
}

const SHOP_INPUTS = [
  'shop/bundle.lock.json',
  'shop/native/streams.json',
  'shop/orders/asyncapi/asyncapi.yaml',
  'shop/payments/asyncapi/asyncapi.yaml',
  'shop/payments/workflows/refund.yaml',
  'shop/shipping/asyncapi/asyncapi.yaml',
]
/** Where the orders document looked for its bundle's lock, folder by folder up, before `shop/` had one. */
const ORDERS_LOCK_LOOKUPS = ['shop/orders/asyncapi/bundle.lock.json', 'shop/orders/bundle.lock.json']
const PAYMENTS_LOCK_LOOKUPS = ['shop/payments/asyncapi/bundle.lock.json', 'shop/payments/bundle.lock.json']
const sorted = (paths: string[]) => [...paths].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))

/** `bundle.lock.json` in `dir` and in every folder above it up to the file system's root, relative to `cwd`. */
function lockLookups(dir: string, cwd: string): string[] {
  const paths: string[] = []
  for (let current = dir; ; current = dirname(current)) {
    paths.push(relative(cwd, join(current, 'bundle.lock.json')))
    if (dirname(current) === current) return paths
  }
}

describe('contracts inputs', () => {
  it('prints every file the contracts read, relative to the working directory, sorted, once each', async () => {
    const root = project()
    const r = contracts(
      ['inputs', 'shop/orders/asyncapi/asyncapi.yaml', 'shop/payments/asyncapi/asyncapi.yaml', 'payments.spec.json', 'dasp/counter.dasp.json'],
      root,
    )
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(r.stdout.trimEnd().split('\n')).toEqual([
      'dasp/counter.dasp.json',
      'dasp/extensions/encrypted-delivery.dasp-ext.json',
      'dasp/extensions/proof-of-authority.dasp-ext.json',
      'dasp/pins/encrypted-delivery.manifest.json',
      'dasp/pins/encrypted-delivery/settings.schema.json',
      'dasp/pins/encrypted-delivery/spec.md',
      'dasp/pins/proof-of-authority.manifest.json',
      'dasp/pins/proof-of-authority/scope.schema.json',
      'dasp/pins/proof-of-authority/spec.md',
      'payments.spec.json',
      ...sorted([...SHOP_INPUTS, ...ORDERS_LOCK_LOOKUPS, ...PAYMENTS_LOCK_LOOKUPS]),
    ])
    // From another folder, the same files relative to it.
    const inside = await cli(['inputs', 'orders/asyncapi/asyncapi.yaml'], join(root, 'shop'))
    expect(inside.stdout.trimEnd().split('\n')).toEqual(sorted([...SHOP_INPUTS, ...ORDERS_LOCK_LOOKUPS]).map((path) => path.slice('shop/'.length)))
  })

  it('--json: all inputs, each contract’s, and the diagnostics', async () => {
    const root = project()
    const r = await cli(['inputs', '--json', 'payments.spec.json', 'shop/orders/asyncapi/asyncapi.yaml'], root)
    expect(r.status).toBe(0)
    const orders = sorted([...SHOP_INPUTS, ...ORDERS_LOCK_LOOKUPS])
    expect(JSON.parse(r.stdout)).toEqual({
      inputs: ['payments.spec.json', ...orders],
      absent: ORDERS_LOCK_LOOKUPS,
      contracts: [
        { file: 'payments.spec.json', inputs: ['payments.spec.json'], absent: [] },
        { file: 'shop/orders/asyncapi/asyncapi.yaml', inputs: orders, absent: ORDERS_LOCK_LOOKUPS },
      ],
      diagnostics: [],
    })
  })

  it('a contract with errors: its inputs still printed, its diagnostics on stderr, status 1; no file: status 2', async () => {
    const root = project()
    const r = await cli(['inputs', 'broken.spec.json', 'payments.spec.json'], root)
    expect(r.status).toBe(1)
    expect(r.stdout.trimEnd().split('\n')).toEqual(['broken.spec.json', 'payments.spec.json'])
    expect(r.stderr).toContain('error BENZENE_REF_MISSING')
    const usage = await cli(['inputs'], root)
    expect(usage.status).toBe(2)
    expect(usage.stderr).toContain('`contracts inputs` needs at least one file.')
    expect((await cli(['inputs', '--topic', 'x', 'payments.spec.json'], root)).status).toBe(2)
  })
})

describe('contracts inputs: the paths where a file made later changes the compile', () => {
  it('a NATS document outside any bundle: the lock looked for in its folder and each one above is listed, and a lock made there later changes the check', async () => {
    const root = project()
    mkdirSync(join(root, 'svc'))
    cpSync(join(repo, 'fixtures/nats/valid/ledger.asyncapi.yaml'), join(root, 'svc/ledger.asyncapi.yaml'))
    const lookups = lockLookups(join(root, 'svc'), root)
    expect(lookups.slice(0, 2)).toEqual(['svc/bundle.lock.json', 'bundle.lock.json'])
    const before = await cli(['inputs', '--json', 'svc/ledger.asyncapi.yaml'], root)
    expect(before.status).toBe(0)
    const listed = JSON.parse(before.stdout) as { inputs: string[]; absent: string[] }
    expect(listed.absent).toEqual(sorted(lookups))
    expect(listed.inputs).toEqual(sorted(['svc/ledger.asyncapi.yaml', ...lookups]))
    // The plain list names the same paths (a monorepo tool hashes each once a file is made there).
    expect((await cli(['inputs', 'svc/ledger.asyncapi.yaml'], root)).stdout.trimEnd().split('\n')).toEqual(listed.inputs)
    expect((await cli(['check', 'svc/ledger.asyncapi.yaml'], root)).status).toBe(0)

    // A lock made in the project's folder, one that pins another digest for the document: the
    // document is now in that bundle, and its check fails. The list printed before named this lock.
    writeFileSync(join(root, 'bundle.lock.json'), JSON.stringify({ entries: [{ path: 'svc/ledger.asyncapi.yaml', sha256: '0'.repeat(64) }] }))
    expect(listed.inputs).toContain('bundle.lock.json')
    const check = await cli(['check', 'svc/ledger.asyncapi.yaml'], root)
    expect(check.status).toBe(1)
    expect(check.stdout + check.stderr).toContain('NATS_LOCK_DIGEST')
    const after = JSON.parse((await cli(['inputs', '--json', 'svc/ledger.asyncapi.yaml'], root)).stdout) as { inputs: string[]; absent: string[] }
    expect(after.absent).toEqual(['svc/bundle.lock.json'])
    expect(after.inputs).toEqual(['bundle.lock.json', 'svc/bundle.lock.json', 'svc/ledger.asyncapi.yaml'])
  })

  it('DASP: a missing definition and a pinned file absent locally are listed; made later, each changes the check', async () => {
    const root = project()
    rmSync(join(root, 'dasp/extensions/proof-of-authority.dasp-ext.json'))
    rmSync(join(root, 'dasp/pins/encrypted-delivery/spec.md'))
    const r = await cli(['inputs', '--json', 'dasp/counter.dasp.json'], root)
    expect(r.status).toBe(1)
    const { absent, inputs } = JSON.parse(r.stdout) as { inputs: string[]; absent: string[] }
    expect(absent).toEqual(['dasp/extensions/proof-of-authority.dasp-ext.json', 'dasp/pins/encrypted-delivery/spec.md'])
    for (const path of absent) expect(inputs).toContain(path)

    // The definition made again: the selection checks; the pinned file made with other bytes: it fails on the pin.
    cpSync(join(repo, 'fixtures/dasp/extensions/proof-of-authority.dasp-ext.json'), join(root, 'dasp/extensions/proof-of-authority.dasp-ext.json'))
    expect((await cli(['check', 'dasp/counter.dasp.json'], root)).status).toBe(0)
    writeFileSync(join(root, 'dasp/pins/encrypted-delivery/spec.md'), 'not the pinned text\n')
    const pinned = await cli(['check', 'dasp/counter.dasp.json'], root)
    expect(pinned.status).toBe(1)
    expect(pinned.stdout + pinned.stderr).toContain('DASP_PIN_MISMATCH')
  })

  it('a result the persistent cache answers lists the same paths as the compile that wrote it', async () => {
    const root = project()
    const args = ['inputs', '--json', '--cache-dir', 'cache', 'shop/orders/asyncapi/asyncapi.yaml']
    const first = JSON.parse((await cli(args, root)).stdout) as { inputs: string[]; absent: string[]; diagnostics: unknown[] }
    expect(first.absent).toEqual(ORDERS_LOCK_LOOKUPS)
    // A note added to the entry shows that the second run's answer is the cache's.
    const [name] = readdirSync(join(root, 'cache')).filter((n) => n.endsWith('.entry'))
    const path = join(root, 'cache', name!)
    const [header, , json] = readFileSync(path, 'utf8').split('\n')
    const body = JSON.parse(json!) as { result: { diagnostics: unknown[] } }
    const note = { code: 'FROM_THE_CACHE', severity: 'warning', message: 'x', file: 'x', pointer: '', line: 1, column: 1 }
    body.result.diagnostics.push(note)
    const text = JSON.stringify(body)
    writeFileSync(path, `${header}\n${sha256(text)}\n${text}`)
    const second = JSON.parse((await cli(args, root)).stdout) as typeof first
    expect(second.diagnostics).toMatchObject([{ code: 'FROM_THE_CACHE' }])
    expect({ ...second, diagnostics: [] }).toEqual(first)
  })
})

describe('the CLI’s persistent cache', () => {
  // The suite runs with the default cache off (vitest.config.ts); these tests are about the default.
  const off = process.env.UNPLUGIN_CONTRACTS_CACHE
  beforeAll(() => void delete process.env.UNPLUGIN_CONTRACTS_CACHE)
  afterAll(() => {
    if (off !== undefined) process.env.UNPLUGIN_CONTRACTS_CACHE = off
  })

  const folder = (root: string) => join(root, 'node_modules/.cache/unplugin-contracts')
  const entries = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.entry')) : [])

  it('by default in node_modules/.cache/unplugin-contracts of the nearest package; --cache-dir elsewhere; --no-cache nowhere', async () => {
    const root = project()
    expect((await cli(['check', 'payments.spec.json', 'shop/orders/asyncapi/asyncapi.yaml'], root)).status).toBe(0)
    expect(entries(folder(root))).toHaveLength(2)
    expect((await cli(['types', 'payments.spec.json', '--cache-dir', 'elsewhere'], root)).status).toBe(0)
    expect(entries(join(root, 'elsewhere'))).toHaveLength(1)
    const other = project()
    expect((await cli(['check', 'payments.spec.json', '--no-cache'], other)).status).toBe(0)
    expect(existsSync(join(other, 'node_modules'))).toBe(false)
    const both = await cli(['check', 'payments.spec.json', '--no-cache', '--cache-dir', 'x'], other)
    expect(both.status).toBe(2)
    expect(both.stderr).toContain('Use --cache-dir or --no-cache, not both.')
  })

  it('UNPLUGIN_CONTRACTS_CACHE=0 turns the default folder off; a folder named with --cache-dir still applies', async () => {
    const root = project()
    const env = { ...process.env, UNPLUGIN_CONTRACTS_CACHE: '0' }
    expect((await cli(['check', 'payments.spec.json'], root, env)).status).toBe(0)
    expect(existsSync(join(root, 'node_modules'))).toBe(false)
    expect((await cli(['check', 'payments.spec.json', '--cache-dir', 'named'], root, env)).status).toBe(0)
    expect(entries(join(root, 'named'))).toHaveLength(1)
  })

  it('a second run reads it (a forged entry shows it is read), and `types` writes the declarations it holds', async () => {
    const root = project()
    expect((await cli(['types', 'payments.spec.json'], root)).status).toBe(0)
    const dir = folder(root)
    const [name] = entries(dir)
    const path = join(dir, name!)
    const [header, , json] = readFileSync(path, 'utf8').split('\n')
    const body = JSON.parse(json!) as { result: { dts: string } }
    body.result.dts += '\nexport declare const fromTheCache: true\n'
    const text = JSON.stringify(body)
    writeFileSync(path, `${header}\n${sha256(text)}\n${text}`)
    rmSync(join(root, 'payments.spec.d.json.ts'))
    expect((await cli(['types', 'payments.spec.json'], root)).status).toBe(0)
    expect(readFileSync(join(root, 'payments.spec.d.json.ts'), 'utf8')).toContain('fromTheCache')
    // Without the cache, the contract is compiled.
    expect((await cli(['types', 'payments.spec.json', '--no-cache'], root)).status).toBe(0)
    expect(readFileSync(join(root, 'payments.spec.d.json.ts'), 'utf8')).not.toContain('fromTheCache')
  })
})
