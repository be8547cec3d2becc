/** The global topology: the projection of the shop bundle and of generated bundles, its pictures, and the global subject parser. */
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { compile, globalSubjectParser, inspect, toDot, toMermaid, toSvg, topology, type Topology } from '../src/index.js'
import { dotString } from '../src/formats/nats/topology/dot.js'
import { mermaidText } from '../src/formats/nats/topology/mermaid.js'
import { xmlText } from '../src/formats/nats/topology/svg.js'
import { withMarker } from '../src/core/safe-write.js'
import { SubjectError } from '../src/runtime/nats/subjects.js'
import { ShopBundle } from './helpers/nats-bundle.js'
import { natsBundle } from '../bench/generate.js'

const shop = join(import.meta.dirname, '../fixtures/nats/shop')
const goldens = join(import.meta.dirname, '../fixtures/nats/topology')
const count = (items: ReadonlyArray<{ kind: string }>) => items.reduce<Record<string, number>>((m, x) => ((m[x.kind] = (m[x.kind] ?? 0) + 1), m), {})
const shopTopology = async (): Promise<Topology> => {
  const r = await topology(shop)
  expect(r.diagnostics).toEqual([])
  return r.topology!
}

describe('the projection of the shop bundle', () => {
  it('has every application, channel, operation and resource, each with its source backlink', async () => {
    const t = await shopTopology()
    expect(count(t.nodes)).toEqual({
      adapter: 12,
      application: 3,
      channel: 14,
      consumer: 3,
      interaction: 2,
      operation: 14,
      pipeline: 1,
      stream: 3,
      workflow: 1,
    })
    for (const n of t.nodes) expect(n.source, n.id).toMatchObject({ file: expect.any(String), pointer: expect.any(String) })
    // Streams are server resources: ORDERS is owned by orders and declared (external) by payments too.
    expect(t.nodes.find((n) => n.id === 'stream:shop-prod/ORDERS')!.data).toMatchObject({ owner: 'orders', declaredBy: ['orders', 'payments'] })
  })

  it('draws exactly the links, imports and captures the compiler verified', async () => {
    const t = await shopTopology()
    const edges = (kind: string) => t.edges.filter((e) => e.kind === kind).map((e) => `${e.from} -> ${e.to}`)
    const expectedLinks: string[] = []
    const expectedImports: string[] = []
    const expectedCaptures: string[] = []
    for (const app of ['orders', 'payments', 'shipping']) {
      const r = await inspect(join(shop, app, 'asyncapi/asyncapi.yaml'))
      expect(r.diagnostics).toEqual([])
      const model = r.data as { contract: { id: string }; links: any[]; imports: any[]; operations: any[]; streams: any[] }
      for (const l of model.links)
        expectedLinks.push(`operation:${l.send.contract}/${l.send.operation} -> operation:${l.receive.contract}/${l.receive.operation}`)
      for (const i of model.imports) expectedImports.push(`app:${model.contract.id} -> app:${i.contract}`)
      // NATS_STREAM_CAPTURE passed: every JetStream publish's channel is captured by its stream.
      for (const o of model.operations.filter((o) => o.stream))
        expectedCaptures.push(`channel:${model.contract.id}/${o.channel} -> stream:shop-prod/${model.streams.find((s) => s.key === o.stream).config.name}`)
    }
    expect(edges('link').sort()).toEqual(expectedLinks.sort())
    expect(edges('import').sort()).toEqual(expectedImports.sort())
    const complete = t.edges.filter((e) => e.kind === 'capture' && e.data?.complete === true).map((e) => `${e.from} -> ${e.to}`)
    for (const c of expectedCaptures) expect(complete).toContain(c)
    expect(count(t.edges)).toEqual({
      capture: 7,
      'consumer-stream': 3,
      import: 2,
      'interaction-request': 2,
      'interaction-result': 2,
      link: 2,
      'operation-channel': 14,
      'operation-consumer': 3,
      'pipeline-step': 2,
    })
  })

  it('is deterministic: the same JSON from the folder and from its documents in any order', async () => {
    const a = JSON.stringify(await shopTopology())
    const docs = ['shipping', 'orders', 'payments'].map((app) => join(shop, app, 'asyncapi/asyncapi.yaml'))
    const b = JSON.stringify((await topology(docs)).topology)
    expect(b).toBe(a)
    expect(JSON.stringify(await shopTopology())).toBe(a)
  })

  it('a bundle whose checks fail gives the diagnostics, not a partial picture', async () => {
    const broken = ShopBundle.copy('topology-broken').edit('payments/asyncapi/asyncapi.yaml', 'operation: placeOrder', 'operation: placeOrders').relock()
    const r = await topology(broken.root)
    expect(r.topology).toBeUndefined()
    expect(r.diagnostics.map((d) => d.code)).toContain('NATS_LINK_UNRESOLVED')
  })

  it('the docs picture of the example bundle is the SVG the projection writes (deterministic layout)', async () => {
    // Regenerated with `contracts topology examples/nats-orders --format svg --out docs/images/nats-orders-topology.svg`, which marks it as generated.
    const example = (await topology(join(import.meta.dirname, '../examples/nats-orders'))).topology!
    const svg = await toSvg(example)
    expect(readFileSync(join(import.meta.dirname, '../docs/images/nats-orders-topology.svg'), 'utf8')).toBe(withMarker(svg, 'xml'))
  })

  it('Mermaid and DOT match their goldens', async () => {
    const t = await shopTopology()
    expect(toMermaid(t)).toBe(readFileSync(join(goldens, 'shop.mmd'), 'utf8'))
    expect(toDot(t)).toBe(readFileSync(join(goldens, 'shop.dot'), 'utf8'))
  })
})

describe('applications as (contract id, version), links through import aliases', () => {
  it('draws a link whose ends name their contract through an import alias that differs from the contract id', async () => {
    // payments imports orders as `books`; both a sending and a receiving end are named through it.
    const doc = 'payments/asyncapi/asyncapi.yaml'
    const bundle = ShopBundle.copy('topology-alias')
      .edit(doc, '    orders: { contract: orders,', '    books: { contract: orders,')
      .edit(
        doc,
        '    - send: { contract: orders, operation: placeOrder }\n      receive: onOrderPlaced\n',
        '    - send: { contract: books, operation: placeOrder }\n      receive: onOrderPlaced\n' +
          '    - send: { contract: books, operation: getOrder }\n      receive: { contract: books, operation: serveOrder }\n',
      )
      .relock()
    const r = await topology(bundle.root)
    expect(r.diagnostics).toEqual([])
    const t = r.topology!
    expect(t.edges.filter((e) => e.kind === 'link').map((e) => `${e.from} -> ${e.to}`)).toEqual([
      'operation:orders/getOrder -> operation:orders/serveOrder',
      'operation:orders/placeOrder -> operation:payments/onOrderPlaced',
      'operation:payments/capturePayment -> operation:shipping/onPaymentCaptured',
    ])
    expect(t.edges.filter((e) => e.kind === 'import').map((e) => `${e.from} -> ${e.to}`)).toContain('app:payments -> app:orders')
    expect(JSON.stringify(t)).not.toContain('books')
  })

  it('keeps two versions of one contract in a bundle apart: nodes, channels, imports and links each to its own version', async () => {
    // orders 1.3.0 beside 1.2.0 (deployed to another binding, so their subjects do not overlap); payments imports 1.2.0.
    const bundle = ShopBundle.copy('topology-versions')
    bundle
      .write(
        'orders-next/asyncapi/asyncapi.yaml',
        bundle.read('orders/asyncapi/asyncapi.yaml').replace('  version: 1.2.0\n', '  version: 1.3.0\n').replace('binding: shop-prod', 'binding: shop-staging'),
      )
      .relock(['orders-next/asyncapi/asyncapi.yaml'])
    const r = await topology(bundle.root)
    expect(r.diagnostics).toEqual([])
    const t = r.topology!
    const apps = t.nodes.filter((n) => n.kind === 'application')
    expect(apps.map((n) => [n.id, n.contract, n.label, n.data.contract, n.data.version])).toEqual([
      ['app:orders@1.2.0', 'orders@1.2.0', 'orders 1.2.0', 'orders', '1.2.0'],
      ['app:orders@1.3.0', 'orders@1.3.0', 'orders 1.3.0', 'orders', '1.3.0'],
      ['app:payments', 'payments', 'payments 1.4.0', 'payments', '1.4.0'],
      ['app:shipping', 'shipping', 'shipping 0.9.0', 'shipping', '0.9.0'],
    ])
    for (const version of ['1.2.0', '1.3.0'])
      for (const id of [`channel:orders@${version}/orderPlaced`, `channel:orders@${version}/orderLookup`, `operation:orders@${version}/placeOrder`])
        expect(t.nodes.map((n) => n.id)).toContain(id)
    const edges = (kind: string) => t.edges.filter((e) => e.kind === kind).map((e) => `${e.from} -> ${e.to}`)
    expect(edges('import')).toEqual(['app:payments -> app:orders@1.2.0', 'app:shipping -> app:payments'])
    expect(edges('link')).toContain('operation:orders@1.2.0/placeOrder -> operation:payments/onOrderPlaced')
    // Each version's channel is captured by its own binding's stream, owned by that version.
    expect(edges('capture')).toEqual(
      expect.arrayContaining(['channel:orders@1.2.0/orderPlaced -> stream:shop-prod/ORDERS', 'channel:orders@1.3.0/orderPlaced -> stream:shop-staging/ORDERS']),
    )
    expect(t.nodes.find((n) => n.id === 'stream:shop-staging/ORDERS')!.data).toMatchObject({ owner: 'orders@1.3.0', declaredBy: ['orders@1.3.0'] })
    // The global parser tells the two versions apart.
    expect(
      globalSubjectParser(t)
        .candidates('orders.eu.ord-12345678.placed')
        .map((c) => c.contract),
    ).toEqual(['orders@1.2.0', 'orders@1.3.0', 'payments'])
  })
})

describe('the global subject parser', () => {
  it('parses with the contract/channel identity and lists the candidates without one', async () => {
    const parser = globalSubjectParser(await shopTopology())
    expect(parser.parse('orders.eu.ord-12345678.placed', { contract: 'payments', channel: 'orderPlaced' })).toEqual({ zone: 'eu', order: 'ord-12345678' })
    expect(parser.parse('orders.eu.ord-12345678.placed', { contract: 'orders', channel: 'orderPlaced' })).toEqual({ region: 'eu', orderId: 'ord-12345678' })
    // Two application views of one linked channel: ambiguous without the identity, and said so.
    expect(parser.candidates('orders.eu.ord-12345678.placed').map((c) => `${c.contract}/${c.channel}`)).toEqual(['orders/orderPlaced', 'payments/orderPlaced'])
    expect(() => parser.parse('orders.ap.ord-12345678.placed', { contract: 'orders', channel: 'orderPlaced' })).toThrow(SubjectError)
    expect(() => parser.parse('x', { contract: 'orders', channel: 'nope' })).toThrow(expect.objectContaining({ code: 'SUBJECT_NO_MATCH' }))
    expect(parser.candidates('nothing.here')).toEqual([])
  })
})

describe('generated bundles', () => {
  const root = join(import.meta.dirname, '.tmp', `topology-generated-${process.pid}`)
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it.each([
    [2, 3],
    [5, 10],
    [20, 25],
  ])(
    '%i applications x %i channels: every node and every verified edge',
    async (apps, channels) => {
      const dir = natsBundle(join(root, `${apps}x${channels}`), apps, channels)
      const first = await compile(join(dir, 'app0/asyncapi.yaml'))
      expect(first.diagnostics).toEqual([])
      const r = await topology(dir)
      expect(r.diagnostics).toEqual([])
      const t = r.topology!
      expect(count(t.nodes)).toEqual({ application: apps, channel: apps * channels, operation: apps * channels, stream: apps })
      expect(count(t.edges)).toEqual({ capture: apps * channels, 'operation-channel': apps * channels })
      expect(t.edges.filter((e) => e.kind === 'capture').every((e) => e.data?.complete === true)).toBe(true)
      // Beyond the threshold an application's channels collapse into one node per application.
      const mermaid = toMermaid(t)
      if (channels > 12) expect(mermaid.match(/more channels/g)).toHaveLength(apps)
      else expect(mermaid).not.toContain('more channels')
    },
    60_000,
  )
})

describe('document text in pictures', () => {
  it('cannot end a Mermaid label, a DOT string or an XML text', () => {
    const hostile = 'a"] --> x\n%% <script>`|#'
    expect(mermaidText(hostile)).not.toMatch(/["<>`|\n]/)
    expect(dotString(hostile)).toBe('"a\\"] --> x %% <script>`|#"')
    expect(dotString('back\\slash')).toBe('"back\\\\slash"')
    expect(xmlText('<a href="x">&\'')).toBe('&#60;a href=&#34;x&#34;&#62;&#38;&#39;')
  })
})
