/** The NATS rules of the bundle: reading it (the lock, imports, locked files), identities, artifacts, streams across documents, and what a locked file contributes (the shop bundle broken in one place, helpers/nats-bundle-cases.ts). */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { ShopBundle } from './helpers/nats-bundle.js'
import { readingCases, shopCase } from './helpers/nats-bundle-cases.js'
import { describeFixtureTable } from './helpers/rule-fixtures.js'

const fixtures = join(import.meta.dirname, '../fixtures/nats')

describeFixtureTable({ contract: shopCase, failing: readingCases, match: 'among' })

describe('tampering', () => {
  const lock: { entries: Array<{ path: string }> } = JSON.parse(readFileSync(join(fixtures, 'shop/bundle.lock.json'), 'utf8'))
  const cases = lock.entries.flatMap((entry, index) => (['orders', 'payments', 'shipping'] as const).map((app) => [entry.path, app, index] as const))

  // The lock vouches for the whole bundle: one flipped bit in any locked file, the compiled
  // document included and files it never reads too, fails every build, once, at that lock entry.
  it.each(cases)('one flipped bit in %s fails the %s build with NATS_LOCK_DIGEST', async (rel, app, index) => {
    const bundle = ShopBundle.copy('flip')
    const bytes = readFileSync(bundle.path(rel))
    bytes[bytes.length >> 1]! ^= 1
    writeFileSync(bundle.path(rel), bytes)
    const result = await compile(bundle.doc(app))
    expect(result.code).toBeUndefined()
    expect(result.diagnostics.filter((d) => d.code === 'NATS_LOCK_DIGEST').map((d) => [d.file, d.pointer])).toEqual([
      [bundle.path('bundle.lock.json'), `/entries/${index}/sha256`],
    ])
  })
})

describe('streams overlap bundle-wide (NATS_STREAM_OVERLAP): whichever document is compiled', () => {
  it("a contract-owned stream of another document whose subjects overlap the compiled document's is refused in both; one name is one stream", async () => {
    const bundle = ShopBundle.copy('stream-overlap')
      .edit('shipping/asyncapi/asyncapi.yaml', 'subjects: [shipping.couriers.>]', 'subjects: [shipping.couriers.>, orders.*.audit]')
      .relock()
    const shipping = (await compile(bundle.doc('shipping'))).diagnostics.map((d) => [d.code, d.pointer, d.file.endsWith('shipping/asyncapi/asyncapi.yaml')])
    expect(shipping).toContainEqual(['NATS_STREAM_OVERLAP', '/x-nats-contract/streams/couriers/config/subjects/1', true])
    const orders = (await compile(bundle.doc('orders'))).diagnostics.map((d) => [d.code, d.pointer])
    expect(orders).toContainEqual(['NATS_STREAM_OVERLAP', '/x-nats-contract/streams/orders/config/subjects/0'])
    // The untouched bundle: ORDERS declared by orders (contract) and by the native artifact (external) is one stream.
    const clean = ShopBundle.copy('stream-overlap-clean').relock()
    for (const app of ['orders', 'payments', 'shipping'] as const) expect((await compile(clean.doc(app))).diagnostics, app).toEqual([])
  })
})

describe('what a locked file contributes through a standard $ref is checked in its position (NATS_ASYNCAPI_SCHEMA)', () => {
  const withMessages = (name: string, message: string) =>
    ShopBundle.copy(name)
      .write('shipping/asyncapi/messages.yaml', `PaymentCaptured:\n${message}`)
      .edit(
        'shipping/asyncapi/asyncapi.yaml',
        "messages: { captured: { $ref: '#/components/messages/PaymentCaptured' } }",
        "messages: { captured: { $ref: 'messages.yaml#/PaymentCaptured' } }",
      )
      .relock(['shipping/asyncapi/messages.yaml'])

  it('a message in messages.yaml with a member a Message Object does not have is reported there; a valid one is not', async () => {
    const bad = withMessages('external-message-bad', '  payload: { type: object }\n  contentType: application/json\n  priority: high\n')
    const found = (await compile(bad.doc('shipping'))).diagnostics.map((d) => [d.code, d.pointer, d.file])
    expect(found).toContainEqual(['NATS_ASYNCAPI_SCHEMA', '/PaymentCaptured/priority', bad.path('shipping/asyncapi/messages.yaml')])
    const good = withMessages('external-message-good', '  payload: { type: object }\n  contentType: application/json\n')
    const clean = (await compile(good.doc('shipping'))).diagnostics.filter((d) => d.code === 'NATS_ASYNCAPI_SCHEMA')
    expect(clean).toEqual([])
  })
})

describe('a duplicate identity names the other document (related)', () => {
  it("NATS_DUPLICATE_IDENTITY carries the other document's contract id as a related location", async () => {
    const bundle = ShopBundle.copy('identity-related')
      .write(
        'orders-copy/asyncapi/asyncapi.yaml',
        readFileSync(join(fixtures, 'shop/orders/asyncapi/asyncapi.yaml'), 'utf8').replace('Places orders', 'Places more orders'),
      )
      .relock(['orders-copy/asyncapi/asyncapi.yaml'])
    const duplicate = (await compile(bundle.doc('orders'))).diagnostics.find((d) => d.code === 'NATS_DUPLICATE_IDENTITY')!
    expect(duplicate.related).toEqual([
      {
        file: bundle.path('orders-copy/asyncapi/asyncapi.yaml'),
        pointer: '/x-nats-contract/contract',
        line: 8,
        column: 13,
        message: 'The other document with this identity.',
      },
    ])
  })
})
