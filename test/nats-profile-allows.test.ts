/**
 * What profile v0.2 allows and the compiler once refused (issue 30, "Refused though the profile
 * allows it"): each valid document compiles clean (and its generated module behaves), beside a
 * still-invalid neighbour that stays refused, at its code and pointer.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { rollup } from 'rollup'
import contractsPlugin from 'unplugin-contracts/rollup'
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { describeCycle } from '../src/formats/nats/import-cycles.js'
import { materialize } from '../src/runtime/nats/interactions.js'
import { contracts } from './helpers/cli.js'
import { loadModule } from './helpers/load-module.js'
import { ShopBundle } from './helpers/nats-bundle.js'

const ledger = readFileSync(join(import.meta.dirname, '../fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8')
const work = join(import.meta.dirname, '.tmp/nats-profile-allows')
let count = 0

/** The ledger document with text edits applied (each must apply), written to a file of its own. */
function ledgerWith(edits: Array<[from: string, to: string]>): string {
  let text = ledger
  for (const [from, to] of edits) {
    expect(text, from).toContain(from)
    text = text.replace(from, to)
  }
  mkdirSync(work, { recursive: true })
  const file = join(work, `ledger-${process.pid}-${count++}.asyncapi.yaml`)
  writeFileSync(file, text)
  return file
}

const found = (diagnostics: ReadonlyArray<{ code: string; pointer: string; file: string }>) =>
  diagnostics.map((d) => ({ code: d.code, pointer: d.pointer, file: d.file }))

const ORDER_DOC = 'orders/asyncapi/asyncapi.yaml'
const PAYMENTS_DOC = 'payments/asyncapi/asyncapi.yaml'
/** A JSON schema file whose `Order` refers to `Money` by a fragment of its own ("#/definitions/Money"). */
const orderFile = (minimum: number) =>
  JSON.stringify({
    definitions: {
      Money: { type: 'number', minimum },
      Order: {
        type: 'object',
        required: ['orderId', 'total'],
        properties: { orderId: { type: 'string' }, total: { $ref: '#/definitions/Money' }, currency: { type: 'string' } },
      },
    },
  })

/** Both ends of the orders -> payments link give `total` as `order.json#/definitions/Money`, each from a locked order.json beside it. */
function lockedMoney(name: string, ordersMinimum = 0) {
  return ShopBundle.copy(name)
    .write('orders/asyncapi/order.json', orderFile(ordersMinimum))
    .write('payments/asyncapi/order.json', orderFile(0))
    .edit(ORDER_DOC, '        total: { type: number }', "        total: { $ref: 'order.json#/definitions/Money' }")
    .edit(PAYMENTS_DOC, '        total: { type: number }', "        total: { $ref: 'order.json#/definitions/Money' }")
    .relock(['orders/asyncapi/order.json', 'payments/asyncapi/order.json'])
}

describe('a $ref to a fragment inside a locked file is read in that file', () => {
  it('a linked payload whose schema refers to order.json#/definitions/Money compiles, and its validator applies Money', async () => {
    const bundle = lockedMoney('locked-money')
    for (const app of ['orders', 'payments'] as const) expect((await compile(bundle.doc(app))).diagnostics, app).toEqual([])
    const result = await compile(bundle.doc('payments'))
    const mod = await loadModule(result.code!, 'payments-locked-money')
    const validate = mod.orderPlaced.validatePayload as (v: unknown) => boolean
    expect(validate({ orderId: 'o-1', total: 10 })).toBe(true)
    expect(validate({ orderId: 'o-1', total: -1 })).toBe(false)
    expect(validate({ orderId: 'o-1', total: 'ten' })).toBe(false)
  })

  it('the whole payload as order.json#/definitions/Order (whose Money is a fragment of order.json) links and validates', async () => {
    const bundle = ShopBundle.copy('locked-order')
      .write('orders/asyncapi/order.json', orderFile(0))
      .write('payments/asyncapi/order.json', orderFile(0))
      .edit(ORDER_DOC, "payload: { $ref: '#/components/schemas/Order' }", "payload: { $ref: 'order.json#/definitions/Order' }")
      .edit(PAYMENTS_DOC, "payload: { $ref: '#/components/schemas/Order' }", "payload: { $ref: 'order.json#/definitions/Order' }")
      .relock(['orders/asyncapi/order.json', 'payments/asyncapi/order.json'])
    const result = await compile(bundle.doc('payments'))
    expect(result.diagnostics).toEqual([])
    const validate = (await loadModule(result.code!, 'payments-locked-order')).orderPlaced.validatePayload as (v: unknown) => boolean
    expect(validate({ orderId: 'o-1', total: 0 })).toBe(true)
    expect(validate({ orderId: 'o-1', total: -0.5 })).toBe(false)
  })

  it('still refused: the two locked Money schemas differ (minimum 1 against 0) -> NATS_LINK_SCHEMA', async () => {
    const bundle = lockedMoney('locked-money-differs', 1)
    expect(found((await compile(bundle.doc('payments'))).diagnostics)).toContainEqual({
      code: 'NATS_LINK_SCHEMA',
      pointer: '/x-nats-contract/links/0',
      file: bundle.path(PAYMENTS_DOC),
    })
  })

  it('still refused: a fragment that names nothing in the locked file -> NATS_REF_UNRESOLVED at the $ref', async () => {
    const bundle = ShopBundle.copy('locked-nothing')
      .write('payments/asyncapi/order.json', orderFile(0))
      .edit(PAYMENTS_DOC, '        total: { type: number }', "        total: { $ref: 'order.json#/definitions/Nothing' }")
      .relock(['payments/asyncapi/order.json'])
    expect(found((await compile(bundle.doc('payments'))).diagnostics)).toContainEqual({
      code: 'NATS_REF_UNRESOLVED',
      pointer: '/components/schemas/Order/properties/total/$ref',
      file: bundle.path(PAYMENTS_DOC),
    })
  })
})

describe('bindings and pipelines read schemas through references into locked files', () => {
  const parts = (name: string, approved: string) =>
    ShopBundle.copy(name)
      .write('payments/asyncapi/parts.yaml', `Approved: ${approved}\nAmount: { type: number }\n`)
      .edit(
        PAYMENTS_DOC,
        'properties: { operationId: { type: string }, approved: { type: boolean } }',
        "properties: { operationId: { type: string }, approved: { $ref: 'parts.yaml#/Approved' } }",
      )
      .edit(
        PAYMENTS_DOC,
        'properties: { paymentId: { type: string }, amount: { type: number }, reason: { type: string } }',
        "properties: { paymentId: { type: string }, amount: { $ref: 'parts.yaml#/Amount' }, reason: { type: string } }",
      )
      .relock(['payments/asyncapi/parts.yaml'])

  it('an interaction input and a pipeline stage whose schemas refer into parts.yaml are proven as before (no runtime-schema-check needed)', async () => {
    expect((await compile(parts('bindings-locked', '{ type: boolean }').doc('payments'))).diagnostics).toEqual([])
  })

  it('still refused: a stage value of another type than the locked destination -> NATS_PIPELINE_SCHEMA', async () => {
    const bundle = parts('bindings-locked-mismatch', '{ type: boolean }').edit(
      PAYMENTS_DOC,
      '              /approved: { stageInput: /approved }',
      '              /approved: { stageInput: /operationId }',
    )
    bundle.relock(['payments/asyncapi/parts.yaml'])
    expect(found((await compile(bundle.doc('payments'))).diagnostics)).toContainEqual({
      code: 'NATS_PIPELINE_SCHEMA',
      pointer: '/x-nats-contract/pipelines/announceRefund/steps/1/bindings/payload/~1approved',
      file: bundle.path(PAYMENTS_DOC),
    })
  })
})

describe('runtime-schema-check on a payload that refers to a locked file', () => {
  const op = `op${'ab'.repeat(32)}`
  const values = {
    inputs: { operationId: op, group: 'approvers', refund: { paymentId: 'pay-1', amount: 10 } },
    context: { principalId: 'alice' },
    branch: { id: 'b-1', peerId: 'bob', attempt: 1, fence: 7 },
  }
  const checked = (name: string, amount: string) =>
    ShopBundle.copy(name)
      .write('payments/asyncapi/refund.yaml', `Amount: ${amount}\n`)
      .withRuntimeSchemaCheck()
      .edit(
        PAYMENTS_DOC,
        'properties: { paymentId: { type: string }, amount: { type: number }, reason: { type: string } }',
        "properties: { paymentId: { type: string }, amount: { $ref: 'refund.yaml#/Amount' }, reason: { type: string } }",
      )
      .relock(['payments/asyncapi/refund.yaml'])

  it('compiles, and the generated validators check the locked schema (amount >= 1) and the payload', async () => {
    const result = await compile(checked('check-locked', '{ type: number, minimum: 1 }').doc('payments'))
    expect(result.diagnostics).toEqual([])
    const mod = await loadModule(result.code!, 'payments-check-locked')
    expect(materialize(mod.interactions.approveRefund, values).payload).toMatchObject({ refund: { amount: 10 } })
    const small = { ...values, inputs: { ...values.inputs, refund: { paymentId: 'pay-1', amount: 0 } } }
    expect(() => materialize(mod.interactions.approveRefund, small)).toThrow(
      expect.objectContaining({ code: 'MATERIALIZE_INVALID_INPUT', errors: [expect.objectContaining({ path: '/amount' })] }),
    )
    expect(() => materialize(mod.interactions.approveRefund, { ...values, context: { principalId: 7 } })).toThrow(
      expect.objectContaining({ code: 'MATERIALIZE_INVALID_PAYLOAD', errors: [expect.objectContaining({ path: '/requestedBy' })] }),
    )
  })

  it('still refused: a reference in the locked file that names nothing -> NATS_SCHEMA_CHECK_EXTERNAL', async () => {
    const bundle = checked('check-locked-nothing', "{ $ref: '#/Nothing' }")
    expect(found((await compile(bundle.doc('payments'))).diagnostics)).toContainEqual({
      code: 'NATS_SCHEMA_CHECK_EXTERNAL',
      pointer: '/x-nats-contract/interactions/approveRefund/capabilities',
      file: bundle.path(PAYMENTS_DOC),
    })
  })
})

describe('adapter versions are exact identifiers, SemVer build metadata included', () => {
  const VOTERS = 'voters: { kind: audience, version: 1.0.0,'
  const withVersion = (name: string, version: string) =>
    ShopBundle.copy(name).edit(PAYMENTS_DOC, VOTERS, `voters: { kind: audience, version: '${version}',`).relock()

  it.each(['1.0.0+linux', '1.0.0+build.x', '1.0.0-x.1', '2.1.0-rc.1+x86'])('%s compiles clean', async (version) => {
    const bundle = withVersion('adapter-exact', version)
    expect((await compile(bundle.doc('payments'))).diagnostics).toEqual([])
  })

  it.each(['1.x', '1.X.3', '1.2.x+linux'])('still refused: %s is a wildcard -> NATS_ADAPTER_VERSION', async (version) => {
    const bundle = withVersion('adapter-wildcard', version)
    expect(found((await compile(bundle.doc('payments'))).diagnostics)).toEqual([
      { code: 'NATS_ADAPTER_VERSION', pointer: '/x-nats-contract/adapters/voters/version', file: bundle.path(PAYMENTS_DOC) },
    ])
  })
})

describe('one (contract, version) with the same bytes at two paths is one contract', () => {
  it('every document of the bundle, the copy included, compiles clean', async () => {
    const bundle = ShopBundle.copy('same-bytes')
    bundle.write('mirror/asyncapi/asyncapi.yaml', bundle.read(ORDER_DOC)).relock(['mirror/asyncapi/asyncapi.yaml'])
    for (const app of ['orders', 'payments', 'shipping'] as const) expect((await compile(bundle.doc(app))).diagnostics, app).toEqual([])
    expect((await compile(bundle.path('mirror/asyncapi/asyncapi.yaml'))).diagnostics).toEqual([])
  })

  it('still refused: another contract id with the same channels -> NATS_CONTRACT_OVERLAP', async () => {
    const bundle = ShopBundle.copy('same-subjects')
    bundle
      .write('mirror/asyncapi/asyncapi.yaml', bundle.read(ORDER_DOC).replace('  contract: orders\n', '  contract: mirror\n'))
      .relock(['mirror/asyncapi/asyncapi.yaml'])
    expect(found((await compile(bundle.doc('orders'))).diagnostics)).toContainEqual({
      code: 'NATS_CONTRACT_OVERLAP',
      pointer: '/channels/orderPlaced/address',
      file: bundle.path(ORDER_DOC),
    })
  })
})

describe('linked schemas that differ only in annotations are one schema', () => {
  it.each([
    ['default', 'total: { type: number, default: 0 }'],
    ['readOnly', 'total: { type: number, readOnly: true }'],
  ])('a %s on one side only links', async (_name, total) => {
    const bundle = ShopBundle.copy('annotation').edit(ORDER_DOC, '        total: { type: number }', `        ${total}`).relock()
    expect((await compile(bundle.doc('payments'))).diagnostics).toEqual([])
  })

  it('still refused: a minimum on one side -> NATS_LINK_SCHEMA', async () => {
    const bundle = ShopBundle.copy('annotation-minimum')
      .edit(ORDER_DOC, '        total: { type: number }', '        total: { type: number, minimum: 0 }')
      .relock()
    expect(found((await compile(bundle.doc('payments'))).diagnostics)).toContainEqual({
      code: 'NATS_LINK_SCHEMA',
      pointer: '/x-nats-contract/links/0',
      file: bundle.path(PAYMENTS_DOC),
    })
  })
})

const NOTES_EDIT: [string, string] = ['  balanceReply:\n', '  note_log:\n    messages: {}\n  note-log:\n    messages: {}\n  balanceReply:\n']

describe('export names never fail the build', () => {
  const NOTES = NOTES_EDIT

  it('note-log and note_log both compile, as noteLog and noteLog2 (code-unit order of the ids), whatever their order in the document', async () => {
    for (const edit of [NOTES, ['  balanceReply:\n', '  note-log:\n    messages: {}\n  note_log:\n    messages: {}\n  balanceReply:\n'] as [string, string]]) {
      const result = await compile(ledgerWith([edit]))
      expect(result.diagnostics).toEqual([])
      const mod = await loadModule(result.code!, 'ledger-notes')
      expect([mod.noteLog.id, mod.noteLog2.id]).toEqual(['note-log', 'note_log'])
      expect(result.dts).toContain('export declare const noteLog2:')
    }
  })

  it('an id that is its own export name keeps it (balanceReply beside balance-reply -> balanceReply2); a reserved word or module export gets Channel', async () => {
    const result = await compile(
      ledgerWith([['  balanceReply:\n', '  balance-reply:\n    messages: {}\n  delete:\n    messages: {}\n  channels:\n    messages: {}\n  balanceReply:\n']]),
    )
    expect(result.diagnostics).toEqual([])
    const mod = await loadModule(result.code!, 'ledger-names')
    expect([mod.balanceReply.id, mod.balanceReply2.id, mod.deleteChannel.id, mod.channelsChannel.id]).toEqual([
      'balanceReply',
      'balance-reply',
      'delete',
      'channels',
    ])
  })

  it('the names option overrides, and the derived names yield to it', async () => {
    const result = await compile(ledgerWith([NOTES]), { nats: { names: { note_log: 'noteLog', 'note-log': 'dashLog' } } })
    expect(result.diagnostics).toEqual([])
    const mod = await loadModule(result.code!, 'ledger-given-names')
    expect([mod.noteLog.id, mod.dashLog.id]).toEqual(['note_log', 'note-log'])
  })

  it('still refused: a given name that is not an identifier -> NATS_EXPORT_NAME at the channel; a given name that is not a string -> NATS_INVALID_OPTION', async () => {
    const file = ledgerWith([NOTES])
    expect(found((await compile(file, { nats: { names: { 'note-log': 'not a name' } } })).diagnostics)).toEqual([
      { code: 'NATS_EXPORT_NAME', pointer: '/channels/note-log', file },
    ])
    expect(found((await compile(file, { nats: { names: { 'note-log': 'channels' } } })).diagnostics)).toEqual([
      { code: 'NATS_EXPORT_NAME', pointer: '/channels/note-log', file },
    ])
    expect(found((await compile(file, { nats: { names: { 'note-log': 7 } } })).diagnostics)).toEqual([{ code: 'NATS_INVALID_OPTION', pointer: '', file }])
  })
})

describe("the plugin's nats.names option (Rollup, the built plugin)", () => {
  it('a build imports a channel under the name given for it', async () => {
    const file = ledgerWith([NOTES_EDIT])
    const main = join(work, `main-${process.pid}.js`)
    writeFileSync(main, `import { dashLog, noteLog } from './${basename(file)}'\nexport const ids = [dashLog.id, noteLog.id]\n`)
    const bundle = await rollup({
      input: main,
      external: (id) => id.startsWith('unplugin-contracts/'),
      plugins: [contractsPlugin({ types: false, nats: { names: { 'note-log': 'dashLog' } } })],
    })
    const { output } = await bundle.generate({ format: 'es' })
    await bundle.close()
    expect(output[0].code).toContain('"note-log"')
    expect(output[0].code).toContain('export { ids }')
  })
})

describe('contracts --names on a NATS document (the built CLI)', () => {
  it('check passes without it; inspect shows the names the file gives (keyed by channel id); a name that cannot be used fails check', () => {
    const file = ledgerWith([['  balanceReply:\n', '  note_log:\n    messages: {}\n  note-log:\n    messages: {}\n  balanceReply:\n']])
    expect(contracts(['check', file])).toMatchObject({ status: 0 })
    const names = join(work, `names-${process.pid}.json`)
    writeFileSync(names, JSON.stringify({ 'note-log': 'dashLog' }))
    const inspected = JSON.parse(contracts(['inspect', file, '--names', names, '--json']).stdout)
    const exportOf = Object.fromEntries(inspected.channels.map((c: { id: string; exportName: string }) => [c.id, c.exportName]))
    expect([exportOf['note-log'], exportOf.note_log]).toEqual(['dashLog', 'noteLog'])
    writeFileSync(names, JSON.stringify({ 'note-log': 'not a name' }))
    const refused = contracts(['check', file, '--names', names])
    expect(refused.status).toBe(1)
    expect(refused.stderr).toContain('NATS_EXPORT_NAME')
  })
})

describe('an import cycle is named', () => {
  const cycle = (bundle: ShopBundle) =>
    bundle
      .edit(
        ORDER_DOC,
        '  deployment: { binding: shop-prod, minimumServerVersion: 2.11.0 }\n',
        `  deployment: { binding: shop-prod, minimumServerVersion: 2.11.0 }\n  imports:\n    payments: { contract: payments, version: 1.4.0, path: ${PAYMENTS_DOC}, sha256: ${'0'.repeat(64)} }\n`,
      )
      .relock()

  it('orders -> payments -> orders: NATS_IMPORT_CYCLE naming the cycle, and no NATS_LOCK_MISMATCH (no digest of a cycle can verify)', async () => {
    const bundle = cycle(ShopBundle.copy('cycle'))
    const result = await compile(bundle.doc('payments'))
    expect(found(result.diagnostics)).toEqual([{ code: 'NATS_IMPORT_CYCLE', pointer: '/x-nats-contract/imports/orders', file: bundle.path(PAYMENTS_DOC) }])
    expect(result.diagnostics[0]!.message).toContain(`${PAYMENTS_DOC} -> ${ORDER_DOC} -> ${PAYMENTS_DOC}`)
    expect(result.diagnostics[0]!.data).toEqual({ cycle: [PAYMENTS_DOC, ORDER_DOC, PAYMENTS_DOC] })
    const orders = await compile(bundle.doc('orders'))
    expect(found(orders.diagnostics)).toEqual([{ code: 'NATS_IMPORT_CYCLE', pointer: '/x-nats-contract/imports/payments', file: bundle.path(ORDER_DOC) }])
  })

  it('a long cycle is named by its ends in the message (bounded), and in full in the data', () => {
    const files = Array.from({ length: 40 }, (_, i) => `d${i}/asyncapi.yaml`).concat('d0/asyncapi.yaml')
    const text = describeCycle(files)
    expect(text).toBe(`${files.slice(0, 6).join(' -> ')} -> ... (29 more) -> ${files.slice(-6).join(' -> ')}`)
    expect(describeCycle(files.slice(0, 3))).toBe('d0/asyncapi.yaml -> d1/asyncapi.yaml -> d2/asyncapi.yaml')
  })

  it('still NATS_LOCK_MISMATCH: a stale import digest off any cycle', async () => {
    const bundle = ShopBundle.copy('stale-import').relock()
    bundle.edit(PAYMENTS_DOC, /path: orders\/asyncapi\/asyncapi.yaml, sha256: \w+/, `path: ${ORDER_DOC}, sha256: ${'f'.repeat(64)}`)
    bundle.writeLock({ entries: bundle.lock().entries.map((e) => (e.path === PAYMENTS_DOC ? { ...e, sha256: bundle.sha(PAYMENTS_DOC) } : e)) })
    expect(found((await compile(bundle.doc('payments'))).diagnostics)).toEqual([
      { code: 'NATS_LOCK_MISMATCH', pointer: '/x-nats-contract/imports/orders/path', file: bundle.path(PAYMENTS_DOC) },
    ])
  })
})
