/** Message payloads whose schemas live in locked files: typed, validated and pattern-checked like the document's own. */
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { loadModule } from './helpers/load-module.js'
import { ShopBundle } from './helpers/nats-bundle.js'

const schema =
  'Order:\n  type: object\n  required: [orderId, total]\n  properties:\n    orderId: { type: string }\n    total: { $ref: "#/Amount" }\n    currency: { $ref: "parts/currency.yaml#/Currency" }\nAmount: { type: number }\n'
// The same schema as the linked orders contract's, so the link between them holds.
const external = (name: string, currency = 'Currency: { type: string }\n') =>
  ShopBundle.copy(name)
    .write('payments/asyncapi/schemas.yaml', schema)
    .write('payments/asyncapi/parts/currency.yaml', currency)
    .edit('payments/asyncapi/asyncapi.yaml', "payload: { $ref: '#/components/schemas/Order' }", "payload: { $ref: 'schemas.yaml#/Order' }")
    .relock(['payments/asyncapi/schemas.yaml', 'payments/asyncapi/parts/currency.yaml'])

describe('payload schemas in locked files', () => {
  it('give named types and a validator, references read relative to the file that holds them', async () => {
    const result = await compile(external('message-locked').doc('payments'))
    expect(result.diagnostics).toEqual([])
    // Named after the last token of each pointer; the document's own `Order` keeps its name.
    expect(result.dts).toContain('export type Order_2 = { currency?: Currency; orderId: string; total: Amount; [member: string]: unknown; };')
    expect(result.dts).toContain('export type Amount = number;')
    expect(result.dts).toContain('export type Currency = string;')
    expect(result.dts).toContain('export declare const orderPlaced: $nats.AddressedChannel<$Parameters0, never, Order_2>;')
    const mod = await loadModule(result.code!, 'payments-locked-schemas')
    const validate = mod.orderPlaced.validatePayload as (v: unknown) => boolean
    expect(validate({ orderId: 'o-1', total: 10, currency: 'EUR' })).toBe(true)
    expect(validate({ orderId: 'o-1', total: 'ten' })).toBe(false)
    expect(validate({ orderId: 'o-1', total: 10, currency: 7 })).toBe(false)
    expect(validate({ total: 10 })).toBe(false)
  })

  it('a pattern on the budgeted matcher in a locked file is warned about in that file, at the pattern', async () => {
    const bundle = external('message-locked-pattern', 'Currency: { type: string, pattern: "^(a+)+\\\\1$" }\n')
    const found = (await compile(bundle.doc('payments'))).diagnostics.map((d) => [d.code, d.file, d.pointer])
    expect(found).toContainEqual(['NATS_PATTERN_BUDGETED', bundle.path('payments/asyncapi/parts/currency.yaml'), '/Currency/pattern'])
  })
})
