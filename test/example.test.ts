/** The example apps (examples/payments-client, examples/nats-orders) build, run and type-check, as their READMEs promise. */
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tsc } from './helpers/cli.js'
import { NATS_SERVER } from './helpers/nats-server.js'

const root = join(import.meta.dirname, '..')
const example = join(root, 'examples/payments-client')
const daspExample = join(root, 'examples/dasp-counter')
const natsExample = join(root, 'examples/nats-orders')

/** Examples whose Vite build ran in this file (each is built once, for its demo and its type check). */
const built = new Set<string>()

/**
 * Builds an example with Vite (its vite.config.ts), as `npm run demo` does, once: through Vite's own
 * `build`, in this process, which `vite build --config` calls with the same config. Vite is then
 * loaded once for the three examples, not once a build (about 1 CPU second less for the file); the
 * fresh clone's test runs `npm run demo` itself.
 */
async function build(example: string): Promise<void> {
  if (built.has(example)) return
  const vite = (await import('vite')) as typeof import('vite')
  // Its log is not what this checks (the child's output was not read either); a failed build throws.
  await vite.build({ configFile: join(example, 'vite.config.ts'), logLevel: 'silent' })
  built.add(example)
}

/** Builds an example and runs its demo.mjs, as `npm run demo` does. */
async function buildAndRun(example: string, options: { encoding: 'utf8'; timeout?: number }): Promise<string> {
  await build(example)
  return execFileSync(process.execPath, [join(example, 'demo.mjs')], options)
}

/** The examples this file type-checks (nats-orders where its tests run). */
const typed = [example, daspExample, ...(NATS_SERVER ? [natsExample] : [])]
let checkedOnce: Promise<{ status: number; diagnostics: string[]; failed: Set<string> }> | undefined

/**
 * `tsc -p` over each example's tsconfig.json, as one program per set of equal compiler options (the
 * three have the same): the files its `include` names, from its own folder, with its options. The
 * libraries (@types/node, the package's declarations) are then read and checked once instead of once
 * per example (about 4 CPU seconds less for the file). Each example’s build runs first (its sidecars).
 */
async function checkExamples(): Promise<{ status: number; diagnostics: string[]; failed: Set<string> }> {
  const programs = new Map<string, string[]>()
  const failed = new Set<string>()
  for (const dir of typed) {
    try {
      await build(dir)
    } catch {
      // Its own tests report the failed build (typeChecks builds it again, and throws).
      failed.add(dir)
      continue
    }
    const { compilerOptions, include, ...rest } = JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8')) as { compilerOptions: object; include: string[] }
    // Anything but options and `include` would be lost in the shared program: the check would not be the example's.
    expect(Object.keys(rest), `${relative(root, dir)}/tsconfig.json`).toEqual([])
    const key = JSON.stringify(compilerOptions)
    programs.set(key, [...(programs.get(key) ?? []), ...include.map((p) => join(dir, p))])
  }
  const work = join(root, 'test/.tmp/example-types')
  mkdirSync(work, { recursive: true })
  let status = 0
  const diagnostics: string[] = []
  for (const [i, [options, include]] of [...programs].entries()) {
    const config = join(work, `tsconfig.${i}.json`)
    writeFileSync(config, JSON.stringify({ compilerOptions: JSON.parse(options) as object, include }, null, 2))
    // From the project's root, so that each diagnostic starts with its example's folder.
    const r = tsc(['-p', config], root)
    status ||= r.status
    // One diagnostic per line that does not start with white space (its continuation lines follow it).
    for (const line of r.output.split('\n'))
      if (/^\s/.test(line) && diagnostics.length) diagnostics[diagnostics.length - 1] += `\n${line}`
      else if (line !== '') diagnostics.push(line)
  }
  return { status, diagnostics, failed }
}

/** The example's program, after every example's build wrote its sidecars: no diagnostic in its files or in none of the examples', exit 0 if none at all. */
async function typeChecks(example: string): Promise<void> {
  await build(example)
  const checked = await (checkedOnce ??= checkExamples())
  expect(checked.failed.has(example), `${relative(root, example)} was not in the program`).toBe(false)
  const own = checked.diagnostics.filter((d) => !d.startsWith('examples/') || d.startsWith(`${relative(root, example)}/`))
  expect(own.join('\n')).toBe('')
  if (checked.diagnostics.length === 0) expect(checked.status).toBe(0)
}

describe('examples/payments-client', () => {
  it('builds with Vite and talks to the local payments service over HTTP', async () => {
    const out = await buildAndRun(example, { encoding: 'utf8' })
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

describe('examples/dasp-counter', () => {
  it('builds its selection request from the contract, checks the confirmation and refuses weaker resumptions against the local host', async () => {
    const out = await buildAndRun(daspExample, { encoding: 'utf8' })
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

describe.skipIf(!NATS_SERVER)('examples/nats-orders', () => {
  it('two services with their own contracts in one bundle: provision, publish with JetStream, consume durably through nats-server', async () => {
    const out = await buildAndRun(natsExample, { encoding: 'utf8', timeout: 60_000 })
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
