/** The example apps (examples/payments-client, examples/nats-orders) build, run and type-check, as their READMEs promise. */
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tsc } from './helpers/cli.js'
import { NATS_SERVER } from './helpers/nats-server.js'

const root = join(import.meta.dirname, '..')
const example = join(root, 'examples/payments-client')

/** Builds an example with Vite (its vite.config.ts) and runs its demo.mjs, as `npm run demo` does. */
function buildAndRun(example: string, options: { encoding: 'utf8'; timeout?: number }): string {
  execFileSync(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', join(example, 'vite.config.ts')], {
    cwd: root,
    stdio: 'pipe',
  })
  return execFileSync(process.execPath, [join(example, 'demo.mjs')], options)
}

/** `tsc -p` over an example, after its build wrote the sidecars: no output, exit 0. */
function typeChecks(example: string): void {
  const r = tsc(['-p', join(example, 'tsconfig.json')], example)
  expect(r.output).toBe('')
  expect(r.status).toBe(0)
}

describe('examples/payments-client', () => {
  it('builds with Vite and talks to the local payments service over HTTP', () => {
    const out = buildAndRun(example, { encoding: 'utf8' })
    expect(out).toMatch(/^payments-api contract sha256:[0-9a-f]{64}$/m)
    expect(out).toContain('capture -> created: pay-1 42.42 EUR')
    expect(out).toContain('refund -> ok: pay-1-r1')
    expect(out).toContain('refund of an unknown payment -> not-found: No payment pay-404.')
    expect(out).toContain('invalid capture -> validation-error: /Amount must be number')
    expect(out).toContain('event payment:captured -> accepted')
    expect(out).toContain('drift check (whole-service): the service serves this contract')
    expect(out).toContain('health check hash: matches')
  })

  it('type-checks against the sidecar the build wrote', () => typeChecks(example))
})

const daspExample = join(root, 'examples/dasp-counter')

describe('examples/dasp-counter', () => {
  it('builds its selection request from the contract, checks the confirmation and refuses weaker resumptions against the local host', () => {
    const out = buildAndRun(daspExample, { encoding: 'utf8' })
    expect(out).toContain('requesting encrypted-delivery draft-01 (connection), proof-of-authority draft-01 (session)')
    expect(out).toContain('altered confirmation: refused, not the selection requested')
    expect(out).toContain('setup: confirmed exactly')
    expect(out).toContain('session floor saved: encrypted-delivery {cipher}; proof-of-authority {commands, grant_bytes}')
    expect(out).toContain('resume as confirmed: resumed')
    expect(out).toContain('resume without proof of authority: refused (missing-extension)')
    expect(out).toContain('resume with another cipher: refused (weaker-settings)')
    expect(out).toContain('resume with another rekey interval (a connection setting): resumed')
    expect(out).toContain('resume at another version: refused (other-version)')
    expect(out).toContain('resume with no saved record: refused (missing-record)')
    expect(out).toContain('command with authority: ok')
    expect(out).toContain('event with authority: not-allowed')
    expect(out).toContain('command without authority: missing')
    expect(out).toContain('resume with a damaged record: refused (missing-record)')
    expect(out).toContain('authority with a NUL: invalid')
    expect(out).toContain('authority on the encrypted carrier: not-allowed')
  })

  it('type-checks against the sidecar the build wrote', () => typeChecks(daspExample))

  it('the invalid edit its README suggests fails the build with DASP_SETTINGS at that value', async () => {
    const { ContractCompiler } = await import('unplugin-contracts')
    const { mkdtempSync, cpSync, readFileSync, writeFileSync, rmSync } = await import('node:fs')
    const copy = mkdtempSync(join(root, 'test/.tmp/dasp-edit-'))
    cpSync(daspExample, copy, { recursive: true, filter: (src) => !/dist|node_modules/.test(src) })
    const file = join(copy, 'counter.dasp.json')
    const text = readFileSync(file, 'utf8')
    writeFileSync(file, text.replace('"rekey_interval_s": 3600', '"rekey_interval_s": -1'))
    const { diagnostics } = await new ContractCompiler().compile(file)
    rmSync(copy, { recursive: true, force: true })
    expect(diagnostics.map((d) => [d.code, d.pointer])).toEqual([['DASP_SETTINGS', '/extensions/0/settings/rekey_interval_s']])
  })
})

const natsExample = join(root, 'examples/nats-orders')

describe.skipIf(!NATS_SERVER)('examples/nats-orders', () => {
  it('two services with their own contracts in one bundle: provision, publish with JetStream, consume durably through nats-server', () => {
    const out = buildAndRun(natsExample, { encoding: 'utf8', timeout: 60_000 })
    // Each service provisions what its own contract owns; the stream is external to fulfilment.
    expect(out).toContain('orders provision: stream ORDERS (contract) create')
    expect(out).toContain('fulfilment provision: stream ORDERS (external) none')
    expect(out).toContain('fulfilment provision: consumer fulfil (contract) create')
    expect(out).toContain('placed a0000001: stream ORDERS seq 1\n')
    expect(out).toContain('placed a0000001: stream ORDERS seq 1 (duplicate, kept once)')
    expect(out).toContain('refused before sending: The payload of "noteOrder"')
    expect(out).toContain('fulfil eu a0000001: 1250 EUR (delivery 1)')
    expect(out).toContain('fulfil us a0000002: 990 USD (delivery 1)')
    expect(out).toContain('fulfilment stopped: done (2 orders)')
  }, 90_000)

  it('type-checks against the sidecar the build wrote', () => typeChecks(natsExample))
})
