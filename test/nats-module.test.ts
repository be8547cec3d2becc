/** Generated NATS modules: subject value objects, descriptors, a Vite build run in Node, Vite dev, and types. */
import { execFileSync } from 'node:child_process'
import { utimesSync, writeFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { createServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { bundlers } from './helpers/bundlers.js'
import { contracts as cli, tsc } from './helpers/cli.js'
import { loadModule } from './helpers/load-module.js'
import { ShopBundle } from './helpers/nats-bundle.js'
import viteContracts from 'unplugin-contracts/vite'

let shop: ShopBundle
let payments: Record<string, any>

beforeAll(async () => {
  shop = ShopBundle.copy('module').relock()
  const result = await compile(shop.doc('payments'))
  expect(result.diagnostics).toEqual([])
  payments = await loadModule(result.code!, 'nats-payments')
})

describe('subject value objects', () => {
  it('render checks every value and parse gives the typed parameters back', () => {
    const { subject } = payments.paymentCaptured
    expect(subject.render({ region: 'eu', paymentId: 'pay-k3ab9x' })).toBe('payments.eu.pay-k3ab9x.captured')
    expect(subject.parse('payments.us.pay-zz0001.captured')).toEqual({ region: 'us', paymentId: 'pay-zz0001' })
    expect(subject.tryParse('payments.ap.pay-zz0001.captured')).toBeUndefined()
    expect(subject.matches('payments.eu.pay-a.b.captured')).toBe(false)
    expect(() => subject.render({ region: 'ap', paymentId: 'pay-k3ab9x' })).toThrow(
      expect.objectContaining({ name: 'SubjectError', code: 'SUBJECT_INVALID_VALUE', parameter: 'region' }),
    )
    // A value with a dot would shift every token after it: never rendered.
    expect(() => subject.render({ region: 'eu', paymentId: 'pay-a.b' })).toThrow(expect.objectContaining({ code: 'SUBJECT_INVALID_VALUE' }))
    expect(() => subject.render({ region: 'eu' })).toThrow(expect.objectContaining({ code: 'SUBJECT_MISSING_PARAMETER', parameter: 'paymentId' }))
    expect(() => subject.parse('payments.eu')).toThrow(expect.objectContaining({ code: 'SUBJECT_NO_MATCH' }))
    // first: letter applies to the suffix after the prefix.
    expect(() => subject.render({ region: 'eu', paymentId: 'pay-1abc' })).toThrow(expect.objectContaining({ code: 'SUBJECT_INVALID_VALUE' }))
  })

  it('filters render subscription subjects and match the subjects they deliver', () => {
    const { inRegion, all } = payments.paymentCaptured.filters
    expect(inRegion.render({ region: 'us' })).toBe('payments.us.*.captured')
    expect(all.render({})).toBe('payments.>')
    expect(inRegion.matches('payments.eu.pay-k3ab9x.captured')).toBe(true)
    expect(inRegion.matches('payments.ap.pay-k3ab9x.captured')).toBe(false)
    expect(all.matches('payments.anything.at.all')).toBe(true)
    expect(all.matches('payments')).toBe(false)
  })

  it('channels, operations, streams and consumers are frozen descriptors with source backlinks', () => {
    expect(Object.isFrozen(payments.channels)).toBe(true)
    expect(payments.channels.paymentCaptured).toBe(payments.paymentCaptured)
    expect(payments.paymentCaptured.parameters.paymentId).toEqual({
      kind: 'token',
      alphabet: 'lower',
      first: 'letter',
      minLength: 8,
      maxLength: 40,
      prefix: 'pay-',
    })
    expect(payments.paymentCaptured.source).toEqual({
      file: 'payments/asyncapi/asyncapi.yaml',
      pointer: '/channels/paymentCaptured',
      line: expect.any(Number),
      column: 5,
    })
    expect(payments.operations.capturePayment).toMatchObject({
      action: 'send',
      channel: 'paymentCaptured',
      kind: 'publish',
      api: 'jetstream',
      confirmation: 'stream-ack',
      stream: 'payments',
    })
    expect(payments.operations.onOrderPlaced).toMatchObject({ action: 'receive', kind: 'subscribe', api: 'jetstream', consumer: 'billing' })
    expect(Object.isFrozen(payments.operations.capturePayment.source)).toBe(true)
    expect(payments.streams.orders).toMatchObject({
      authority: 'external',
      config: { name: 'ORDERS' },
      artifact: { path: 'native/streams.json', pointer: '/streams/0' },
    })
    expect(payments.consumers.billing).toMatchObject({ stream: 'orders', config: { durable_name: 'billing' } })
    expect(payments.contract).toEqual({
      id: 'payments',
      version: '1.4.0',
      profile: '0.2.0-draft',
      digest: shop.sha('payments/asyncapi/asyncapi.yaml'),
      deployment: { binding: 'shop-prod', minimumServerVersion: '2.11.0' },
    })
  })

  it('request-reply operations and reply channels without an address', async () => {
    const orders = await loadModule((await compile(shop.doc('orders'))).code!, 'nats-orders')
    expect(orders.operations.getOrder.requestReply).toEqual({
      routing: 'native-inbox',
      completion: 'first-response',
      timeoutMs: 2000,
      replyChannel: 'orderLookupReply',
    })
    expect(orders.orderLookupReply.address).toBeUndefined()
    expect(orders.orderLookupReply.subject).toBeUndefined()
  })
})

describe('in a bundler', () => {
  it('a Vite build of an app importing the contract renders and parses real subjects in Node', async () => {
    writeFileSync(
      shop.path('app.js'),
      [
        "import { paymentCaptured, operations } from './payments/asyncapi/asyncapi.yaml'",
        'export function run() {',
        "  const subject = paymentCaptured.subject.render({ region: 'eu', paymentId: 'pay-k3ab9x' })",
        "  return { subject, parsed: paymentCaptured.subject.parse(subject), filter: paymentCaptured.filters.inRegion.render({ region: 'us' }), stream: operations.capturePayment.stream }",
        '}',
      ].join('\n'),
    )
    const file = await bundlers.vite!(shop.path('app.js'), shop.path('out'))
    const script = `const { run } = await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(JSON.stringify(run()))`
    const result = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }))
    expect(result).toEqual({
      subject: 'payments.eu.pay-k3ab9x.captured',
      parsed: { region: 'eu', paymentId: 'pay-k3ab9x' },
      filter: 'payments.us.*.captured',
      stream: 'payments',
    })
  })
})

describe('Vite dev', () => {
  let server: Awaited<ReturnType<typeof createServer>>
  afterAll(() => server?.close())

  it('an edit of the lock regenerates the module: broken, then recovered', async () => {
    const bundle = ShopBundle.copy('dev').relock()
    writeFileSync(bundle.path('main.js'), "import { contract } from './payments/asyncapi/asyncapi.yaml'\nexport default contract\n")
    server = await createServer({
      root: bundle.root,
      configFile: false,
      logLevel: 'silent',
      plugins: [viteContracts()],
      server: { host: '127.0.0.1', port: 0 },
    })
    await server.listen()
    const base = `http://127.0.0.1:${(server.httpServer!.address() as { port: number }).port}`
    const fetchContract = async () => {
      const main = await (await fetch(`${base}/main.js`)).text()
      const url = /from\s+"([^"]*asyncapi\.yaml[^"]*)"/.exec(main)![1]!
      const response = await fetch(base + url)
      return { status: response.status, text: await response.text() }
    }
    const until = async (what: string, probe: () => Promise<boolean>) => {
      for (const end = Date.now() + 15000; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) if (await probe()) return
      throw new Error(`timed out waiting for ${what}`)
    }
    expect((await fetchContract()).status).toBe(200)
    const lock = bundle.read('bundle.lock.json')
    let saves = 0
    const save = (text: string) => {
      writeFileSync(bundle.path('bundle.lock.json'), text)
      const at = Date.now() / 1000 + ++saves
      utimesSync(bundle.path('bundle.lock.json'), at, at)
    }
    save(JSON.stringify({ entries: bundle.lock().entries.filter((e) => e.path !== 'native/streams.json') }))
    await until('the error', async () => {
      const r = await fetchContract()
      return r.status === 500 && r.text.includes('NATS_UNLOCKED_FILE')
    })
    save(lock)
    await until('the recovery', async () => (await fetchContract()).status === 200)
  })
})

describe('types', () => {
  it('`contracts types` writes asyncapi.d.yaml.ts: enum unions, prefixed template literals, typed parse results', () => {
    expect(cli(['types', shop.doc('payments')]).status).toBe(0)
    writeFileSync(
      shop.path('use.ts'),
      [
        "import { paymentCaptured } from './payments/asyncapi/asyncapi.yaml'",
        "const subject: string = paymentCaptured.subject.render({ region: 'eu', paymentId: 'pay-k3ab9x' })",
        'const parsed = paymentCaptured.subject.parse(subject)',
        "const region: 'eu' | 'us' = parsed.region",
        'const id: `pay-${string}` = parsed.paymentId',
        'export const out = [region, id]',
        '// @ts-expect-error ap is not a region',
        "paymentCaptured.subject.render({ region: 'ap', paymentId: 'pay-k3ab9x' })",
        '// @ts-expect-error a payment id starts with pay-',
        "paymentCaptured.subject.render({ region: 'eu', paymentId: 'k3ab9x' })",
        '// @ts-expect-error no such filter',
        'paymentCaptured.filters.byOrder',
      ].join('\n'),
    )
    writeFileSync(
      shop.path('tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, module: 'ESNext', moduleResolution: 'bundler', allowArbitraryExtensions: true, types: [] },
        files: ['use.ts'],
      }),
    )
    const r = tsc(['-p', '.'], shop.root)
    expect(r.output).toBe('')
    expect(r.status).toBe(0)
  })
})
