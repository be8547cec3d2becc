/** The NATS link rules: links between contracts, their subject languages and payloads, and the overlap of contracts' channels (helpers/nats-bundle-cases.ts). */
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { ShopBundle } from './helpers/nats-bundle.js'
import { linkCases, shopCase } from './helpers/nats-bundle-cases.js'
import { describeFixtureTable } from './helpers/rule-fixtures.js'

describeFixtureTable({ contract: shopCase, failing: linkCases, match: 'among' })

describe('links compare subject languages, not definitions', () => {
  it('two token types that denote the same tokens are one language: the link holds; a real difference still fails it', async () => {
    const orderId = '    orderId: { kind: token, alphabet: lower, first: any, minLength: 8, maxLength: 40, prefix: ord- }'
    // With the prefix `ord-` (4 bytes) and an empty suffix allowed, minLength 4 and 1 both mean "at least 4".
    const same = ShopBundle.copy('link-same-language')
      .edit('orders/asyncapi/asyncapi.yaml', orderId, orderId.replace('minLength: 8', 'minLength: 4'))
      .edit('payments/asyncapi/asyncapi.yaml', orderId, orderId.replace('minLength: 8', 'minLength: 1'))
      .relock()
    const codes = (await compile(same.doc('payments'))).diagnostics.map((d) => d.code)
    expect(codes.filter((c) => c === 'NATS_LINK_SUBJECTS' || c === 'NATS_CONTRACT_OVERLAP')).toEqual([])
    const different = ShopBundle.copy('link-other-language')
      .edit('orders/asyncapi/asyncapi.yaml', orderId, orderId.replace('minLength: 8', 'minLength: 4'))
      .edit('payments/asyncapi/asyncapi.yaml', orderId, orderId.replace('minLength: 8', 'minLength: 5'))
      .relock()
    expect((await compile(different.doc('payments'))).diagnostics.map((d) => d.code)).toContain('NATS_LINK_SUBJECTS')
  })
})

describe('linked payloads: locked references resolved from their own file, annotations dropped only where they annotate', () => {
  const currency = '        currency: { type: string }'
  it('an enum of objects differing only in a title member is a difference (data, not an annotation)', async () => {
    const bundle = ShopBundle.copy('link-enum-title')
      .edit('orders/asyncapi/asyncapi.yaml', currency, '        currency: { enum: [{ code: EUR, title: Euro }] }')
      .edit('payments/asyncapi/asyncapi.yaml', currency, "        currency: { enum: [{ code: EUR, title: 'Euro (EUR)' }] }")
      .relock()
    expect((await compile(bundle.doc('payments'))).diagnostics.map((d) => d.code)).toContain('NATS_LINK_SCHEMA')
    const same = ShopBundle.copy('link-enum-same')
      .edit('orders/asyncapi/asyncapi.yaml', currency, '        currency: { title: Currency, enum: [{ code: EUR, title: Euro }] }')
      .edit('payments/asyncapi/asyncapi.yaml', currency, '        currency: { enum: [{ code: EUR, title: Euro }] }')
      .relock()
    expect((await compile(same.doc('payments'))).diagnostics.map((d) => d.code)).not.toContain('NATS_LINK_SCHEMA')
  })

  it('a payload schema in a locked file, with references relative to that file, compares equal to the same schema inline', async () => {
    const schema =
      'Order:\n  type: object\n  required: [orderId, total]\n  properties:\n    orderId: { type: string }\n    total: { $ref: "#/Amount" }\n    currency: { $ref: "parts/currency.yaml#/Currency" }\nAmount: { type: number }\n'
    const bundle = ShopBundle.copy('link-locked-schema')
      .write('payments/asyncapi/schemas.yaml', schema)
      .write('payments/asyncapi/parts/currency.yaml', 'Currency: { type: string }\n')
      .edit('payments/asyncapi/asyncapi.yaml', "payload: { $ref: '#/components/schemas/Order' }", "payload: { $ref: 'schemas.yaml#/Order' }")
      .relock(['payments/asyncapi/schemas.yaml', 'payments/asyncapi/parts/currency.yaml'])
    const found = (await compile(bundle.doc('payments'))).diagnostics
    expect(found.map((d) => d.code)).not.toContain('NATS_LINK_SCHEMA')
    // Compiling the imported side reads the importer's locked files too, and agrees.
    expect((await compile(bundle.doc('orders'))).diagnostics.map((d) => d.code)).not.toContain('NATS_LINK_SCHEMA')
  })
})
