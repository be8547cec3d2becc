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

  it('type-checks against the sidecar the build wrote', () => {
    const r = tsc(['-p', join(example, 'tsconfig.json')], example)
    expect(r.output).toBe('')
    expect(r.status).toBe(0)
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

  it('type-checks against the sidecar the build wrote', () => {
    const r = tsc(['-p', join(natsExample, 'tsconfig.json')], natsExample)
    expect(r.output).toBe('')
    expect(r.status).toBe(0)
  })
})
