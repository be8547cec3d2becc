/** Every NATS profile rule: a failing fixture asserting code and JSON Pointer, and the passing documents. */
import { readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile, inspect } from '../src/index.js'
import { gateRules, loadCodes, natsRules } from '../src/formats/nats/rules/index.js'
import { ShopBundle } from './helpers/nats-bundle.js'

const fixtures = join(import.meta.dirname, '../fixtures/nats')

/** fixtures/nats/invalid/<name>.asyncapi.yaml (made by make-invalid.py from valid/ledger.asyncapi.yaml). */
const single: Array<[name: string, code: string, pointer: string, line: number, column: number]> = [
  ['asyncapi-version', 'NATS_ASYNCAPI_VERSION', '/asyncapi', 1, 11],
  ['asyncapi-schema', 'NATS_ASYNCAPI_SCHEMA', '/operations/postEntry/action', 88, 13],
  ['profile-missing', 'NATS_PROFILE_MISSING', '', 1, 1],
  ['profile-version', 'NATS_PROFILE_VERSION', '/x-nats-contract/version', 6, 12],
  ['profile-unsupported', 'NATS_PROFILE_UNSUPPORTED', '/x-nats-contract/retries', 8, 12],
  ['profile-shape', 'NATS_PROFILE_SHAPE', '/x-nats-contract/deployment/minimumServerVersion', 9, 5],
  ['identity-empty', 'NATS_IDENTITY_EMPTY', '/x-nats-contract/contract', 7, 13],
  ['binding-empty', 'NATS_BINDING_EMPTY', '/x-nats-contract/deployment/binding', 9, 14],
  ['server-version', 'NATS_SERVER_VERSION', '/x-nats-contract/deployment/minimumServerVersion', 10, 27],
  ['token-type', 'NATS_TOKEN_TYPE', '/x-nats-contract/tokenTypes/entryId', 13, 14],
  ['token-type-empty', 'NATS_TOKEN_TYPE_EMPTY', '/x-nats-contract/tokenTypes/account', 14, 14],
  ['channel-unknown', 'NATS_CHANNEL_UNKNOWN', '/x-nats-contract/channels/ghost', 30, 7],
  ['channel-unprofiled', 'NATS_CHANNEL_UNPROFILED', '/channels/auditTrail', 83, 5],
  ['address-token', 'NATS_ADDRESS_TOKEN', '/channels/balanceQuery/address', 76, 14],
  ['reserved-subject', 'NATS_RESERVED_SUBJECT', '/channels/balanceQuery/address', 76, 14],
  ['parameters-mismatch', 'NATS_PARAMETERS_MISMATCH', '/x-nats-contract/channels/balanceQuery/parameters', 28, 9],
  ['unknown-token-type', 'NATS_UNKNOWN_TOKEN_TYPE', '/x-nats-contract/channels/balanceQuery/parameters/account', 28, 18],
  ['filter-syntax', 'NATS_FILTER_SYNTAX', '/x-nats-contract/channels/entryPosted/filters/everything', 22, 21],
  ['filter-disjoint', 'NATS_FILTER_DISJOINT', '/x-nats-contract/channels/entryPosted/filters/everything', 22, 21],
  ['publisher-identity', 'NATS_PUBLISHER_IDENTITY', '/x-nats-contract/channels/entryPosted/publisherIdentity/peerParameter', 25, 24],
  ['channel-overlap', 'NATS_CHANNEL_OVERLAP', '/channels/anyPosted/address', 88, 14],
  ['operation-unknown', 'NATS_OPERATION_UNKNOWN', '/x-nats-contract/operations/ghostOperation', 40, 7],
  ['operation-unprofiled', 'NATS_OPERATION_UNPROFILED', '/operations/answerBalance', 97, 5],
  ['operation-form', 'NATS_OPERATION_FORM', '/x-nats-contract/operations/queryBalance/publish', 35, 16],
  ['operation-direction', 'NATS_OPERATION_DIRECTION', '/x-nats-contract/operations/answerBalance/publish', 38, 16],
  ['stream-capture', 'NATS_STREAM_CAPTURE', '/x-nats-contract/operations/postEntry/publish/stream', 31, 68],
  ['unknown-consumer', 'NATS_UNKNOWN_CONSUMER', '/x-nats-contract/operations/onEntryPosted/subscribe/consumer', 33, 46],
  ['consumer-filter', 'NATS_CONSUMER_FILTER', '/x-nats-contract/operations/onEntryPosted/subscribe/consumer', 33, 46],
  ['request-reply', 'NATS_REQUEST_REPLY', '/x-nats-contract/operations/queryBalance/requestReply/timeoutMs', 36, 85],
  ['header-correlation', 'NATS_UNSUPPORTED', '/components/messages/EntryPosted/correlationId/location', 105, 19],
  ['authority-form', 'NATS_AUTHORITY_FORM', '/x-nats-contract/streams/ledger', 41, 7],
  ['stream-config', 'NATS_STREAM_CONFIG', '/x-nats-contract/streams/ledger/config/retention', 45, 20],
  ['consumer-config', 'NATS_CONSUMER_CONFIG', '/x-nats-contract/consumers/auditor/config/deliver_subject', 66, 26],
  ['stream-name', 'NATS_STREAM_NAME', '/x-nats-contract/streams/ledger/config/name', 43, 15],
  ['durable-name', 'NATS_DURABLE_NAME', '/x-nats-contract/consumers/auditor/config/durable_name', 58, 23],
  ['unknown-stream', 'NATS_UNKNOWN_STREAM', '/x-nats-contract/consumers/auditor/stream', 55, 15],
  ['duplicate-authority', 'NATS_DUPLICATE_AUTHORITY', '/x-nats-contract/streams/ledger', 54, 7],
  ['export-name', 'NATS_EXPORT_NAME', '/channels/balanceReply', 85, 5],
  ['bundle-required', 'NATS_BUNDLE_REQUIRED', '/x-nats-contract/imports/payments/path', 9, 59],
  ['remote-ref', 'NATS_REMOTE_REF', '/channels/entryPosted/messages/posted/$ref', 74, 15],
  ['yaml-duplicate-key', 'YAML_DUPLICATE_KEY', '', 4, 3],
  ['yaml-tag', 'YAML_NON_JSON_VALUE', '/info/title', 3, 19],
  ['yaml-non-string-key', 'YAML_NON_STRING_KEY', '/info', 4, 3],
  ['yaml-alias-limit', 'YAML_ALIAS_LIMIT', '/x-anchors/a16', 119, 8],
  ['yaml-syntax', 'YAML_SYNTAX', '', 4, 3],
]

describe('single-document rules', () => {
  it.each(single)('%s -> %s at %s (%i:%i)', async (name, code, pointer, line, column) => {
    const file = join(fixtures, 'invalid', `${name}.asyncapi.yaml`)
    const result = await compile(file)
    expect(result.code).toBeUndefined()
    expect(result.diagnostics.map((d) => ({ code: d.code, pointer: d.pointer, line: d.line, column: d.column, file: d.file }))).toEqual([{ code, pointer, line, column, file }])
  })

  it('each invalid fixture is in the table', () => {
    expect(readdirSync(join(fixtures, 'invalid')).map((f) => f.replace('.asyncapi.yaml', '')).sort()).toEqual(single.map(([n]) => n).sort())
  })
})

/** The shop bundle broken in one place; `app` is the document compiled. */
const bundleCases: Array<[name: string, code: string, app: 'orders' | 'payments' | 'shipping', pointer: string, file: string, mutate: (b: ShopBundle) => void]> = [
  ['a locked file that changed', 'NATS_LOCK_DIGEST', 'payments', '/entries/0/sha256', 'bundle.lock.json', (b) => b.edit('native/streams.json', '"ORDERS"', '"ORDERZ"')],
  ['an import whose digest is not the lock\'s', 'NATS_LOCK_MISMATCH', 'payments', '/x-nats-contract/imports/orders/path', 'payments/asyncapi/asyncapi.yaml', (b) => b.relock().edit('payments/asyncapi/asyncapi.yaml', /(path: orders\/asyncapi\/asyncapi\.yaml, sha256: )\w+/, '$1' + 'a'.repeat(64))],
  ['an artifact the lock does not list', 'NATS_UNLOCKED_FILE', 'payments', '/x-nats-contract/streams/orders/artifact/path', 'payments/asyncapi/asyncapi.yaml', (b) => b.writeLock({ entries: b.lock().entries.filter((e) => e.path !== 'native/streams.json') })],
  ['a lock path with ..', 'NATS_LOCK_PATH', 'orders', '/entries/5/path', 'bundle.lock.json', (b) => b.writeLock({ entries: [...b.lock().entries, { path: '../outside.json', sha256: 'a'.repeat(64) }] })],
  ['a lock path through a symlink', 'NATS_LOCK_PATH', 'payments', '/x-nats-contract/streams/orders/artifact/path', 'payments/asyncapi/asyncapi.yaml', (b) => { renameSync(b.path('native'), b.path('native-real')); symlinkSync(b.path('native-real'), b.path('native')) }],
  ['an absolute lock path', 'NATS_LOCK_PATH', 'orders', '/entries/5/path', 'bundle.lock.json', (b) => b.writeLock({ entries: [...b.lock().entries, { path: '/etc/passwd', sha256: 'a'.repeat(64) }] })],
  ['a lock listing itself', 'NATS_LOCK_SELF', 'orders', '/entries/5/path', 'bundle.lock.json', (b) => b.writeLock({ entries: [...b.lock().entries, { path: 'bundle.lock.json', sha256: 'a'.repeat(64) }] })],
  ['an uppercase digest', 'NATS_LOCK_DIGEST_FORM', 'orders', '/entries/0/sha256', 'bundle.lock.json', (b) => b.writeLock({ entries: b.lock().entries.map((e, i) => (i === 0 ? { ...e, sha256: e.sha256.toUpperCase() } : e)) })],
  ['a lock that is not a lock', 'NATS_LOCK_INVALID', 'orders', '', 'bundle.lock.json', (b) => b.write('bundle.lock.json', '[]')],
  ['a locked file that is gone', 'NATS_LOCKED_FILE_MISSING', 'payments', '/x-nats-contract/streams/orders/artifact/path', 'payments/asyncapi/asyncapi.yaml', (b) => rmSync(b.path('native/streams.json'))],
  ['an import naming the wrong version', 'NATS_IMPORT_MISMATCH', 'payments', '/x-nats-contract/imports/orders', 'payments/asyncapi/asyncapi.yaml', (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'contract: orders, version: 1.2.0', 'contract: orders, version: 1.3.0').relock()],
  ['an import cycle', 'NATS_IMPORT_CYCLE', 'payments', '/x-nats-contract/imports/orders', 'payments/asyncapi/asyncapi.yaml', (b) => b.edit('orders/asyncapi/asyncapi.yaml', '  deployment: { binding: shop-prod, minimumServerVersion: 2.11.0 }\n', '  deployment: { binding: shop-prod, minimumServerVersion: 2.11.0 }\n  imports:\n    shipping: { contract: shipping, version: 0.9.0, path: shipping/asyncapi/asyncapi.yaml, sha256: x }\n').relock().relock()],
  ['two documents with one identity', 'NATS_DUPLICATE_IDENTITY', 'orders', '/x-nats-contract/contract', 'orders/asyncapi/asyncapi.yaml', (b) => b.write('orders-copy/asyncapi/asyncapi.yaml', b.read('orders/asyncapi/asyncapi.yaml').replace('Places orders', 'Places more orders')).relock(['orders-copy/asyncapi/asyncapi.yaml'])],
  ['an artifact pointer that selects nothing', 'NATS_ARTIFACT_POINTER', 'payments', '/x-nats-contract/streams/orders/pointer', 'payments/asyncapi/asyncapi.yaml', (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'pointer: /streams/0', 'pointer: /streams/7').relock()],
  ['a link to an operation the import lacks', 'NATS_LINK_UNRESOLVED', 'payments', '/x-nats-contract/links/0/send', 'payments/asyncapi/asyncapi.yaml', (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'operation: placeOrder', 'operation: placeOrders').relock()],
  ['a link from a receive', 'NATS_LINK_DIRECTION', 'payments', '/x-nats-contract/links/0/send', 'payments/asyncapi/asyncapi.yaml', (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'operation: placeOrder', 'operation: serveOrder').relock()],
  ['a link between different subject languages', 'NATS_LINK_SUBJECTS', 'payments', '/x-nats-contract/links/0', 'payments/asyncapi/asyncapi.yaml', (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'region: { kind: enum, values: [eu, us] }', 'region: { kind: enum, values: [eu, us, ap] }').relock()],
  ['a link between different payloads', 'NATS_LINK_SCHEMA', 'payments', '/x-nats-contract/links/0', 'payments/asyncapi/asyncapi.yaml', (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'total: { type: number }', 'total: { type: integer }').relock()],
  ['an unlinked overlap with an imported contract', 'NATS_CONTRACT_OVERLAP', 'payments', '/channels/orderPlaced/address', 'payments/asyncapi/asyncapi.yaml', (b) => b.edit('payments/asyncapi/asyncapi.yaml', /  links:\n    - send: \{ contract: orders, operation: placeOrder \}\n      receive: onOrderPlaced\n/, '').relock()],
]

describe('bundle rules', () => {
  it.each(bundleCases)('%s -> %s', async (_name, code, app, pointer, file, mutate) => {
    const bundle = ShopBundle.copy(code.toLowerCase())
    mutate(bundle)
    const result = await compile(bundle.doc(app))
    expect(result.diagnostics.map((d) => ({ code: d.code, pointer: d.pointer, file: d.file }))).toContainEqual({ code, pointer, file: bundle.path(file) })
    expect(result.code).toBeUndefined()
    for (const d of result.diagnostics) expect(d.line).toBeGreaterThan(0)
  })

  it('every NATS rule and reading problem has a failing fixture', () => {
    const covered = new Set([...single.map(([, code]) => code), ...bundleCases.map(([, code]) => code)])
    for (const code of [...gateRules, ...natsRules].map((r) => r.code).concat(loadCodes)) expect(covered, code).toContain(code)
  })
})

describe('passing documents', () => {
  it.each(['valid/ledger.asyncapi.yaml', 'shop/orders/asyncapi/asyncapi.yaml', 'shop/payments/asyncapi/asyncapi.yaml', 'shop/shipping/asyncapi/asyncapi.yaml'])('%s has no diagnostics', async (rel) => {
    expect((await compile(join(fixtures, rel))).diagnostics).toEqual([])
  })

  it('a relocked copy of the bundle passes, and inspect prints the normalized model', async () => {
    const bundle = ShopBundle.copy('relocked').relock()
    const result = await inspect(bundle.doc('shipping'))
    expect(result.diagnostics).toEqual([])
    expect(result.data).toMatchObject({
      format: 'nats',
      contract: { id: 'shipping', version: '0.9.0', profile: '0.2.0-draft', digest: bundle.sha('shipping/asyncapi/asyncapi.yaml') },
      streams: expect.arrayContaining([expect.objectContaining({ key: 'payments', authority: 'external', config: expect.objectContaining({ name: 'PAYMENTS' }), artifact: expect.objectContaining({ path: 'native/streams.json', pointer: '/streams/1' }) })]),
    })
  })
})
