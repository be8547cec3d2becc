/** One fixture app, built by every supported bundler with the real bundler, then run in Node. */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { inspect } from 'unplugin-contracts'
import { benzeneDocument, natsDocument } from '../bench/generate.js'
import { bundlers, freshDir } from './helpers/bundlers.js'
import { copyDaspSelection } from './helpers/dasp-selection.js'
import { testFolder } from './helpers/temp-folder.js'

const app = join(import.meta.dirname, 'fixtures/app')
const contract = join(app, 'payments.spec.json')
const out = (name: string) => freshDir(join(import.meta.dirname, '.tmp/bundlers', name))

describe.each(Object.keys(bundlers))('%s', (name) => {
  const build = bundlers[name]!

  it('builds the app; the bundle exports frozen clients with the contract hashes and round-trips a call', async () => {
    const file = await build(join(app, 'main.js'), out(name))
    const result = runInNode(file)
    const expected = (await inspect(contract)).data as { hashes: { service: string; topics: Record<string, string> } }

    expect(result.contractHash).toBe(expected.hashes.service)
    expect(result.client).toEqual({
      topic: 'payments:capture',
      version: 'v2',
      contractHash: expected.hashes.topics['payments:capture'],
      components: ['CapturePayment', 'PaymentDto', 'PaymentMethod'],
    })
    expect(result.frozen).toBe(true)
    expect(result.topicKeys).toEqual(['payments:capture', 'payments:refund', 'payments:get-all'])
    expect(result.sameClient).toBe(true)
    expect(result.captured).toEqual({
      status: 'ok',
      isSuccessful: true,
      payload: { PaymentId: 'pay-1', OrderId: 'order-7', Amount: 42.42, Currency: 'EUR', Status: 'captured with benzene-version v2' },
      errors: [],
    })
    expect(result.refunded).toEqual({
      status: 'not-found',
      isSuccessful: false,
      isTransient: false,
      errors: [{ message: 'no such payment', path: '/PaymentId' }],
    })
    expect(result.sent).toEqual([
      { topic: 'payments:capture', request: { OrderId: 'order-7', Amount: 42.42, Currency: 'EUR', Method: 'Card' }, headers: { 'benzene-version': 'v2' } },
      { topic: 'payments:refund', request: { PaymentId: 'missing' }, headers: {} },
    ])
  })

  it('fails the build on an invalid contract with the code, file:line:column and a code frame', async () => {
    const error = await build(join(app, 'broken.js'), out(name + '-broken')).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error, 'the build must fail').toBeDefined()
    const text = collectText(error)
    expect(text).toContain('BENZENE_REF_MISSING')
    expect(text).toContain(`${join(app, 'broken.spec.json')}:68:17`)
    expect(text).toContain('> 68 |         "$ref": "#/components/schemas/RefundPaymentt"')
  })
})

/** Every message a bundler error carries (esbuild and Rollup nest them). */
function collectText(error: unknown): string {
  const parts: string[] = []
  const visit = (e: unknown, depth: number) => {
    if (!e || depth > 4) return
    if (typeof e === 'string') return void parts.push(e)
    const err = e as { message?: string; errors?: unknown[]; cause?: unknown; text?: string }
    if (err.message) parts.push(err.message)
    if (err.text) parts.push(err.text)
    for (const inner of err.errors ?? []) visit(inner, depth + 1)
    visit(err.cause, depth + 1)
  }
  visit(error, 0)
  return parts.join('\n')
}

// An unused topic or channel costs nothing: one channel imported from a 200-channel contract with
// interactions, payload validators, streams and consumers leaves everything else out of the bundle.
// (webpack and Rspack drop unused exports when they minify; these builds are unminified.)
describe('vite root-relative imports', () => {
  it('import from /payments.spec.json resolves against the project root, as Vite resolves /x.json', async () => {
    const dir = out('vite-root-relative')
    cpSync(join(import.meta.dirname, '../examples/payments-client/payments.spec.json'), join(dir, 'payments.spec.json'))
    mkdirSync(join(dir, 'src'), { recursive: true })
    writeFileSync(join(dir, 'src', 'main.js'), "import { contractHash } from '/payments.spec.json'\nexport const run = () => ({ hash: contractHash })\n")
    const file = await bundlers.vite!(join(dir, 'src', 'main.js'), join(dir, 'dist'), { types: false }, { root: dir })
    expect(runInNode(file).hash).toMatch(/^sha256:[0-9a-f]{64}$/)
  }, 60_000)
})

describe.each(Object.keys(bundlers))('%s tree-shaking of a Benzene contract', (name) => {
  it('keeps one imported topic client: no other topic, and no event (events are pure too)', async () => {
    const dir = out(name + '-benzene-shaking')
    writeFileSync(join(dir, 'b20.spec.json'), benzeneDocument(20))
    writeFileSync(join(dir, 'main.js'), "import { operation0 } from './b20.spec.json'\nexport const run = () => ({ topic: operation0.topic })\n")
    const file = await bundlers[name]!(join(dir, 'main.js'), join(dir, 'dist'), { types: false }, { minify: true })
    expect(runInNode(file)).toEqual({ topic: 'service0:operation-0' })
    const code = readFileSync(file, 'utf8')
    for (const gone of ['service0:operation-5', 'service:happened-0', 'service:happened-10', 'createEvent(']) expect(code, gone).not.toContain(gone)
  }, 60_000)
})

describe.each(['vite', 'rollup', 'rolldown', 'esbuild'])('%s tree-shaking', (name) => {
  it('keeps one imported NATS channel and nothing else of its contract', async () => {
    const dir = out(name + '-shaking')
    writeFileSync(join(dir, 'n200.asyncapi.yaml'), natsDocument(200))
    writeFileSync(
      join(dir, 'main.js'),
      "import { channel3 } from './n200.asyncapi.yaml'\nexport const run = () => ({ subject: channel3.subject.render({ region: 'eu', entityId: 'e-abcd' }) })\n",
    )
    const file = await bundlers[name]!(join(dir, 'main.js'), join(dir, 'dist'), { types: false })
    expect(runInNode(file)).toEqual({ subject: 'svc0.eu.e-abcd.event3' })
    const code = readFileSync(file, 'utf8')
    expect(code).toContain('svc0.{region}.{entityId}.event3')
    // The channel's message validator is kept (its channels share one; by default the payload schema
    // as data for the runtime's interpreter); the interactions' are not.
    expect(code.match(/dataValidator\d*\(\{/g)).toHaveLength(1)
    for (const gone of ['event4', 'approve0', 'requestVote0', '#/components/schemas/Request', 'duplicate_window', 'durable_name', 'publish3'])
      expect(code).not.toContain(gone)
  })
})

/** Runs the bundle's `run()` in a fresh Node process, as an app would run, and returns its JSON. */
function runInNode(file: string): any {
  const script = `const { run } = await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(JSON.stringify(await run()))`
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }))
}

// The plugin resolves every package the runtime imports itself, so a Rollup bundle (no
// node-resolve plugin) of any format is complete: it runs from a folder with no node_modules.
describe('Rollup without node-resolve', () => {
  const root = join(import.meta.dirname, '..')
  const cases: Array<[format: string, setup: (dir: string) => void, main: string, expected: unknown]> = [
    [
      'benzene',
      (dir) => cpSync(join(root, 'fixtures/benzene/valid/payments.spec.json'), join(dir, 'c.spec.json')),
      "import { capture, contract } from './c.spec.json'\nimport { checkDrift } from 'unplugin-contracts/runtime/drift'\nexport const run = async () => ({ topic: capture.topic, drift: typeof checkDrift, hash: contract.hash.slice(0, 7) })\n",
      { topic: 'payments:capture', drift: 'function', hash: 'sha256:' },
    ],
    [
      'nats',
      (dir) => cpSync(join(root, 'fixtures/nats/valid/ledger.asyncapi.yaml'), join(dir, 'c.asyncapi.yaml')),
      "import { entryPosted } from './c.asyncapi.yaml'\nexport const run = () => ({ subject: entryPosted.subject.render({ region: 'eu', entryId: 'abcdef012345' }) })\n",
      { subject: 'ledger.eu.abcdef012345.posted' },
    ],
    [
      'dasp',
      (dir) => copyDaspSelection(dir, 'c.dasp.json'),
      "import { selectionRequest, isExactSelection } from './c.dasp.json'\nexport const run = () => ({ exact: isExactSelection(JSON.parse(JSON.stringify(selectionRequest))) })\n",
      { exact: true },
    ],
  ]
  it.each(cases)('%s: a self-contained bundle that runs outside the app folder', async (format, setup, main, expected) => {
    const dir = out(`rollup-self-contained-${format}`)
    setup(dir)
    writeFileSync(join(dir, 'main.js'), main)
    const file = await bundlers.rollup!(join(dir, 'main.js'), join(dir, 'dist'), { types: false })
    const code = readFileSync(file, 'utf8')
    expect(code).not.toMatch(/\bfrom\s*['"](?!\.)[^'"]+['"]/)
    const away = testFolder(`contracts-rollup-${format}-`)
    const moved = join(away, 'main.js')
    cpSync(file, moved)
    expect(runInNode(moved)).toEqual(expected)
  })
})
