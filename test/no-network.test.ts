/** Nothing is ever fetched: URLs in every place a contract can name a file fail the build, and a listening server sees no connection. */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { ShopBundle } from './helpers/nats-bundle.js'

let server: Server
let connections = 0
let url: string
const work = join(import.meta.dirname, '.tmp/no-network')

beforeAll(async () => {
  server = createServer((socket) => {
    connections++
    socket.destroy()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
})
afterAll(() => new Promise((resolve) => server.close(resolve)))

describe('no network', () => {
  it('Benzene: a $ref to a URL', async () => {
    const text = readFileSync(join(import.meta.dirname, '../fixtures/benzene/valid/payments.spec.json'), 'utf8').replace(
      '"#/components/schemas/RefundPayment"',
      JSON.stringify(`${url}/schemas/refund.json`),
    )
    writeFileSync(join(work, 'remote.spec.json'), text)
    expect((await compile(join(work, 'remote.spec.json'))).diagnostics.map((d) => d.code)).toEqual(['BENZENE_REF_FORM'])
  })

  it('NATS: $refs to URLs and to files outside the bundle, and a workflow artifact named by URL', async () => {
    const bundle = ShopBundle.copy('no-network')
    bundle.edit('payments/asyncapi/asyncapi.yaml', "payload: { $ref: '#/components/schemas/Payment' }", `payload: { $ref: '${url}/payment.json' }`)
    bundle.edit('orders/asyncapi/asyncapi.yaml', "payload: { $ref: '#/components/schemas/Order' }", "payload: { $ref: 'file:///etc/passwd' }")
    bundle.edit('shipping/asyncapi/asyncapi.yaml', "payload: { $ref: '#/components/schemas/Payment' }", "payload: { $ref: '../../../outside.json' }")
    bundle.edit(
      'payments/asyncapi/asyncapi.yaml',
      /artifact: \{ path: payments\/workflows\/refund\.yaml, sha256: \w+ \}/,
      `artifact: { path: '${url}/refund.yaml', sha256: ${'a'.repeat(64)} }`,
    )
    bundle.relock()
    const codes = async (app: 'orders' | 'payments' | 'shipping') => (await compile(bundle.doc(app))).diagnostics.map((d) => d.code)
    expect(await codes('payments')).toEqual(expect.arrayContaining(['NATS_REMOTE_REF', 'NATS_UNLOCKED_FILE']))
    expect(await codes('orders')).toEqual(expect.arrayContaining(['NATS_REMOTE_REF']))
    expect(await codes('shipping')).toEqual(expect.arrayContaining(['NATS_UNLOCKED_FILE']))
  })

  it('NATS: an import and a stream artifact named by URL', async () => {
    const bundle = ShopBundle.copy('no-network-paths')
    bundle.edit('shipping/asyncapi/asyncapi.yaml', 'path: payments/asyncapi/asyncapi.yaml', `path: '${url}/payments.yaml'`)
    bundle.edit('shipping/asyncapi/asyncapi.yaml', 'path: native/streams.json', 'path: file:///etc/nats/streams.json')
    bundle.relock()
    const result = await compile(bundle.doc('shipping'))
    expect(result.code).toBeUndefined()
    expect(result.diagnostics.filter((d) => d.code === 'NATS_UNLOCKED_FILE').map((d) => d.pointer)).toEqual(
      expect.arrayContaining(['/x-nats-contract/imports/payments/path', '/x-nats-contract/streams/payments/artifact/path']),
    )
  })

  it('DASP: a definition and a pin manifest named by URL', async () => {
    cpSync(join(import.meta.dirname, '../fixtures/dasp'), join(work, 'dasp'), { recursive: true })
    const selection = JSON.parse(readFileSync(join(work, 'dasp/counter.dasp.json'), 'utf8'))
    selection.definitions.push(`${url}/audit.dasp-ext.json`)
    writeFileSync(join(work, 'dasp/remote.dasp.json'), JSON.stringify(selection, null, 2))
    const definition = JSON.parse(readFileSync(join(work, 'dasp/extensions/proof-of-authority.dasp-ext.json'), 'utf8'))
    definition.content.manifest = `${url}/poa.manifest.json`
    writeFileSync(join(work, 'dasp/extensions/proof-of-authority.dasp-ext.json'), JSON.stringify(definition, null, 2))
    const result = await compile(join(work, 'dasp/remote.dasp.json'))
    expect(result.diagnostics.map((d) => d.code)).toEqual(expect.arrayContaining(['DASP_DEFINITION_SOURCE', 'DASP_PIN_MISMATCH']))
  })

  it('the server saw no connection', () => {
    expect(connections).toBe(0)
  })
})
