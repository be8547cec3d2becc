/**
 * What a NATS finding reaches in a bundle of four linked applications (an outside pass, against
 * nats-server where it mattered: fixtures/diff/nats/bundle-impact): orders publishes `orderPlaced`
 * and answers `orderLookup` on `orderLookupReply`; billing links `orderPlaced`, owns stream ORDERS
 * (`[orders.*.*.placed, ship.*.*.shipped]`) and its consumer; shipping requests `orderLookup`
 * (linked) and publishes `ship.{region}.{orderId}.shipped` with Core NATS; analytics declares ORDERS
 * as external and reads `ship.*.*.shipped` through its consumer. Each pair edits a copy of the
 * bundle, locks it again and diffs one document.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { diffContracts } from '../src/core/diff/runner.js'
import type { DiffFinding } from '../src/core/diff/types.js'
import { loadDiffer } from '../src/formats/diffs.js'
import { formats } from '../src/formats/index.js'
import { contractsInProcess } from './helpers/cli.js'
import { testFolder } from './helpers/temp-folder.js'

const BASE = join(import.meta.dirname, '../fixtures/diff/nats/bundle-impact')

type Edit = (file: string, from: string, to: string) => void

/**
 * The findings of diffing `doc` between the bundle and a copy edited by `edit` (locked again);
 * `both`, when given, edits both versions first (and locks the old one again too).
 */
async function diffEdited(doc: string, edit: (ed: Edit) => void, both?: (ed: Edit) => void): Promise<DiffFinding[]> {
  const folder = testFolder('nats-diff-bundle-impact')
  cpSync(BASE, join(folder, 'old'), { recursive: true })
  cpSync(BASE, join(folder, 'new'), { recursive: true })
  const editIn =
    (version: string): Edit =>
    (file, from, to) => {
      const path = join(folder, version, file)
      const text = readFileSync(path, 'utf8')
      if (!text.includes(from)) throw new Error(`${file}: no ${from}`)
      writeFileSync(path, text.split(from).join(to))
    }
  if (both) {
    both(editIn('old'))
    both(editIn('new'))
    const locked = await contractsInProcess(['lock', join(folder, 'old')])
    expect(locked.status, locked.stderr).toBe(0)
  }
  edit(editIn('new'))
  const locked = await contractsInProcess(['lock', join(folder, 'new')])
  expect(locked.status, locked.stderr).toBe(0)
  const result = await diffContracts({ file: join(folder, 'old', doc) }, { file: join(folder, 'new', doc) }, { formats, loadDiffer })
  expect(result.valid, JSON.stringify([result.old.diagnostics, result.new.diagnostics])).toBe(true)
  return result.findings
}

const names = (f: DiffFinding) => f.audiences.map((a) => `${a.kind}:${a.name ?? ''}`)
const reached = (f: DiffFinding) =>
  (f.data?.affected as Array<{ application: string; via: string; operation?: string; stream?: string; consumer?: string }>).map(
    (a) => `${a.application}/${a.via}/${a.operation ?? a.consumer ?? a.stream ?? ''}`,
  )
const REPLY = "  orderLookupReply:\n    messages: { order: { $ref: '#/components/messages/OrderPlaced' } }"
const LOOKUP = 'payload: { type: object, required: [orderId], properties: { orderId: { type: string } } }'

describe('a responder and its linked requester', () => {
  it("the responder's reply widened reaches the linked requester, which breaks (HIGH: it was reported as reaching no application)", async () => {
    const findings = await diffEdited('orders/asyncapi.yaml', (ed) =>
      ed(
        'orders/asyncapi.yaml',
        REPLY,
        '  orderLookupReply:\n    messages: { order: { payload: { type: object, required: [orderId], properties: { orderId: { type: string }, total: { type: number } } } } }',
      ),
    )
    const widened = findings.filter((f) => f.level === 'breaking' && (f.data as { channel?: string }).channel === 'orderLookupReply')
    expect(widened.length).toBeGreaterThan(0)
    for (const f of widened) {
      expect(names(f)).toContain('requester:shipping:getOrder')
      expect(names(f)).toContain('requester:orderLookupReply:serveOrder (peers)')
      expect(names(f).some((n) => n.includes('outside the document'))).toBe(false)
      expect(reached(f)).toContain('shipping/link/getOrder')
      expect(f.message).toContain('"shipping": operation "getOrder" (linked)')
    }
  })

  it('the responder removed, or its request narrowed: the linked requester is an audience, not only reached', async () => {
    const removed = await diffEdited('orders/asyncapi.yaml', (ed) => {
      ed('orders/asyncapi.yaml', '    serveOrder: { subscribe: { api: core } }\n', '')
      ed(
        'orders/asyncapi.yaml',
        "  serveOrder:\n    action: receive\n    channel: { $ref: '#/channels/orderLookup' }\n    reply: { channel: { $ref: '#/channels/orderLookupReply' } }\n",
        '',
      )
      ed('orders/asyncapi.yaml', '    orderLookup:\n      parameters: { orderId: orderId }\n', '')
      ed(
        'orders/asyncapi.yaml',
        "  orderLookup:\n    address: orders.lookup.{orderId}\n    parameters: { orderId: {} }\n    messages: { lookup: { $ref: '#/components/messages/OrderLookup' } }\n",
        '',
      )
    })
    expect(names(removed.find((f) => f.rule === 'operation-removed')!)).toContain('requester:shipping:getOrder')
    const narrowed = await diffEdited('orders/asyncapi.yaml', (ed) => {
      for (const file of ['orders/asyncapi.yaml', 'shipping/asyncapi.yaml'])
        ed(file, LOOKUP, 'payload: { type: object, required: [orderId, tenant], properties: { orderId: { type: string }, tenant: { type: string } } }')
    })
    const added = narrowed.find((f) => f.rule === 'schema-required-added')!
    expect(names(added)).toContain('requester:shipping:getOrder')
  })
})

describe('streams in a bundle', () => {
  it("a stream's subjects narrowed reach another application's Core publisher whose subjects it no longer captures, with a subject of its channel", async () => {
    // On nats-server: after the update a Core publication on ship.eu.ab.shipped is no longer stored.
    const findings = await diffEdited('billing/asyncapi.yaml', (ed) =>
      ed('billing/asyncapi.yaml', 'subjects: [orders.*.*.placed, ship.*.*.shipped]', 'subjects: [orders.*.*.placed]'),
    )
    const narrowed = findings.find((f) => f.rule === 'nats-stream-subjects-narrowed')!
    expect(narrowed.level).toBe('breaking')
    expect(names(narrowed)).toContain('publisher:shipping:shipOrder')
    expect(reached(narrowed)).toContain('shipping/capture/shipOrder')
    const parties = narrowed.data!.parties as Array<{ kind: string; name: string; witness?: string }>
    const shipping = parties.find((p) => p.name === 'shipping:shipOrder')!
    expect(shipping.kind).toBe('publisher')
    expect(shipping.witness).toMatch(/^ship\.(eu|us)\.[a-z][a-z]+\.shipped$/)
    expect(narrowed.message).toContain('"shipping": operation "shipOrder" (publishes subjects the stream no longer captures)')
  })

  it('an application that only declares the stream as external is reached through its consumers whose filter meets the subjects, not as capturing them', async () => {
    const findings = await diffEdited('orders/asyncapi.yaml', (ed) => ed('orders/asyncapi.yaml', 'required: [orderId, total]', 'required: [orderId]'))
    const widened = findings.find((f) => f.level === 'breaking' && (f.data as { channel?: string }).channel === 'orderPlaced')!
    expect(reached(widened)).toContain('billing/capture/ORDERS')
    expect(reached(widened)).toContain('billing/link/onOrderPlaced')
    // analytics declares ORDERS as external and its consumer filters ship.*.*.shipped: it is not reached.
    expect(reached(widened).filter((r) => r.startsWith('analytics/'))).toEqual([])
  })
})

describe('what only the bundle shows', () => {
  it('a contract id changed names the applications that import it', async () => {
    const findings = await diffEdited('orders/asyncapi.yaml', (ed) => ed('orders/asyncapi.yaml', 'contract: orders', 'contract: orders2'))
    const changed = findings.find((f) => f.rule === 'nats-contract-id-changed')!
    expect(changed.data).toMatchObject({
      affected: [
        { application: 'billing', via: 'import' },
        { application: 'shipping', via: 'import' },
      ],
      bundle: true,
    })
    expect(changed.message).toContain('In the bundle it reaches "billing", "shipping" (importing "orders").')
  })

  it('a request/reply link removed names a requester and a responder', async () => {
    const findings = await diffEdited('shipping/asyncapi.yaml', (ed) => {
      ed('shipping/asyncapi.yaml', '  links:\n    - send: getOrder\n      receive: { contract: orders, operation: serveOrder }\n', '')
      ed(
        'shipping/asyncapi.yaml',
        '    getOrder:\n      publish: { api: core, confirmation: none }\n      requestReply: { routing: native-inbox, completion: first-response, timeoutMs: 2000 }\n',
        '',
      )
      ed('shipping/asyncapi.yaml', '    orderLookup:\n      parameters: { orderId: orderId }\n', '')
      ed(
        'shipping/asyncapi.yaml',
        "  orderLookup:\n    address: orders.lookup.{orderId}\n    parameters: { orderId: {} }\n    messages: { lookup: { $ref: '#/components/messages/OrderLookup' } }\n" +
          REPLY +
          '\n',
        '',
      )
      ed(
        'shipping/asyncapi.yaml',
        "  getOrder:\n    action: send\n    channel: { $ref: '#/channels/orderLookup' }\n    reply: { channel: { $ref: '#/channels/orderLookupReply' } }\n",
        '',
      )
    })
    const removed = findings.find((f) => f.rule === 'nats-link-removed')!
    expect(names(removed)).toEqual(expect.arrayContaining(['requester:shipping:getOrder', 'responder:orders:serveOrder']))
  })

  it('a change no application reaches says which roles break outside, on which subjects', async () => {
    const moved = await diffEdited('orders/asyncapi.yaml', (ed) => ed('orders/asyncapi.yaml', 'address: audit.{orderId}', 'address: audit.v2.{orderId}'))
    const narrowed = moved.find((f) => f.rule === 'subject-narrowed')!
    expect(narrowed.data).toMatchObject({ affected: [], bundle: true, outside: ['publisher'] })
    expect(narrowed.message).toContain('it stays breaking for publishers of "audit.{orderId}" (now "audit.v2.{orderId}") outside the bundle.')
    const widened = await diffEdited('orders/asyncapi.yaml', (ed) => ed('orders/asyncapi.yaml', 'required: [note]', 'required: []'))
    const required = widened.find((f) => f.rule === 'schema-required-removed')!
    expect(required.data).toMatchObject({ outside: ['subscriber'] })
    expect(required.message).toContain('it stays breaking for subscribers of "audit.{orderId}" outside the bundle.')
  })
})

describe('an operation renamed', () => {
  it('with the link updated in the same change is a rename no peer sees, not a removal that breaks the linked subscriber', async () => {
    const findings = await diffEdited('orders/asyncapi.yaml', (ed) => {
      ed('orders/asyncapi.yaml', '    placeOrder: { publish', '    publishOrder: { publish')
      ed('orders/asyncapi.yaml', '  placeOrder:\n    action: send', '  publishOrder:\n    action: send')
      ed('billing/asyncapi.yaml', 'operation: placeOrder', 'operation: publishOrder')
    })
    expect(findings.map((f) => [f.rule, f.level])).toEqual([['operation-renamed', 'info']])
  })
})

describe('a consumer in a bundle', () => {
  it('its filter narrowed says whether another application reads it (the finding had no bundle statement)', async () => {
    const findings = await diffEdited('analytics/asyncapi.yaml', (ed) =>
      ed('analytics/asyncapi.yaml', 'filter_subject: ship.*.*.shipped', 'filter_subject: ship.eu.*.shipped'),
    )
    const narrowed = findings.find((f) => f.rule === 'nats-consumer-filter-changed')!
    expect(narrowed.level).toBe('breaking')
    expect(narrowed.data).toMatchObject({ affected: [], bundle: true })
    expect(narrowed.message).toContain('No other application of the bundle reads consumer "analytics-shipped" of stream "ORDERS"')
  })
})

// The compiler reads a local reference percent-decoded (`#/channels/order%53hipped` names channel
// `orderShipped`); the differ's own reads of a responder's reply and of another application's
// operation channel did not, and a reference written that way named no channel.
describe('references written percent-encoded', () => {
  const encoded: (ed: Edit) => void = (ed) => {
    ed('orders/asyncapi.yaml', "reply: { channel: { $ref: '#/channels/orderLookupReply' } }", "reply: { channel: { $ref: '#/channels/orderLookup%52eply' } }")
    ed('shipping/asyncapi.yaml', "channel: { $ref: '#/channels/orderShipped' }", "channel: { $ref: '#/channels/order%53hipped' }")
  }

  it("a responder's reply reference: the reply widened still reaches the linked requester", async () => {
    const findings = await diffEdited(
      'orders/asyncapi.yaml',
      (ed) =>
        ed(
          'orders/asyncapi.yaml',
          REPLY,
          '  orderLookupReply:\n    messages: { order: { payload: { type: object, required: [orderId], properties: { orderId: { type: string }, total: { type: number } } } } }',
        ),
      encoded,
    )
    const widened = findings.filter((f) => f.level === 'breaking' && (f.data as { channel?: string }).channel === 'orderLookupReply')
    expect(widened.length).toBeGreaterThan(0)
    for (const f of widened) {
      expect(names(f)).toContain('requester:shipping:getOrder')
      expect(reached(f)).toContain('shipping/link/getOrder')
    }
  })

  it("another application's operation channel reference: a stream narrowed still reaches its Core publisher", async () => {
    const findings = await diffEdited(
      'billing/asyncapi.yaml',
      (ed) => ed('billing/asyncapi.yaml', 'subjects: [orders.*.*.placed, ship.*.*.shipped]', 'subjects: [orders.*.*.placed]'),
      encoded,
    )
    const narrowed = findings.find((f) => f.rule === 'nats-stream-subjects-narrowed')!
    expect(names(narrowed)).toContain('publisher:shipping:shipOrder')
    expect(reached(narrowed)).toContain('shipping/capture/shipOrder')
  })
})
