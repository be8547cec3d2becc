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

/** The findings of diffing `doc` between the bundle and a copy edited by `edit` (locked again). */
async function diffEdited(doc: string, edit: (ed: Edit) => void): Promise<DiffFinding[]> {
  const folder = testFolder('nats-diff-bundle-impact')
  cpSync(BASE, join(folder, 'old'), { recursive: true })
  cpSync(BASE, join(folder, 'new'), { recursive: true })
  edit((file, from, to) => {
    const path = join(folder, 'new', file)
    const text = readFileSync(path, 'utf8')
    if (!text.includes(from)) throw new Error(`${file}: no ${from}`)
    writeFileSync(path, text.split(from).join(to))
  })
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
