/** Every NATS profile rule: a failing fixture asserting code and JSON Pointer, and the passing documents. */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
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
  ['payload-unbounded', 'NATS_PAYLOAD_UNBOUNDED', '/channels/entryPosted/messages/posted', 74, 9],
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
  ['reserved-subject-placeholder', 'NATS_RESERVED_SUBJECT', '/channels/balanceQuery/address', 76, 14],
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
  ['bundled-credential', 'NATS_BUNDLED_CREDENTIAL', '/info/description', 4, 16],
  ['standard-reply-jetstream', 'NATS_STANDARD_REPLY', '/operations/postEntry/reply', 91, 7],
  ['standard-reply-without-request-reply', 'NATS_STANDARD_REPLY', '/operations/queryBalance/reply', 96, 7],
  ['request-reply', 'NATS_REQUEST_REPLY', '/x-nats-contract/operations/queryBalance/requestReply/timeoutMs', 36, 85],
  ['header-correlation', 'NATS_UNSUPPORTED', '/components/messages/EntryPosted/correlationId/location', 105, 19],
  ['authority-form', 'NATS_AUTHORITY_FORM', '/x-nats-contract/streams/ledger', 41, 7],
  ['stream-config', 'NATS_STREAM_CONFIG', '/x-nats-contract/streams/ledger/config/retention', 45, 20],
  ['consumer-config', 'NATS_CONSUMER_CONFIG', '/x-nats-contract/consumers/auditor/config/deliver_subject', 66, 26],
  ['stream-name', 'NATS_STREAM_NAME', '/x-nats-contract/streams/ledger/config/name', 43, 15],
  ['durable-name', 'NATS_DURABLE_NAME', '/x-nats-contract/consumers/auditor/config/durable_name', 58, 23],
  ['unknown-stream', 'NATS_UNKNOWN_STREAM', '/x-nats-contract/consumers/auditor/stream', 55, 15],
  ['duplicate-authority', 'NATS_DUPLICATE_AUTHORITY', '/x-nats-contract/streams/ledger', 54, 7],
  ['bundle-required', 'NATS_BUNDLE_REQUIRED', '/x-nats-contract/imports/payments/path', 9, 59],
  ['remote-ref', 'NATS_REMOTE_REF', '/channels/entryPosted/messages/posted/$ref', 74, 15],
  ['ref-unresolved', 'NATS_REF_UNRESOLVED', '/operations/postEntry/channel/$ref', 89, 22],
  ['ref-kind', 'NATS_REF_KIND', '/operations/postEntry/channel/$ref', 89, 22],
  ['stream-window', 'NATS_STREAM_WINDOW', '/x-nats-contract/streams/ledger/config/duplicate_window', 52, 27],
  ['stream-duration', 'NATS_STREAM_DURATION', '/x-nats-contract/streams/ledger/config/duplicate_window', 52, 27],
  ['stream-subjects', 'NATS_STREAM_SUBJECTS', '/x-nats-contract/streams/ledger/config/subjects/2', 44, 46],
  ['stream-overlap', 'NATS_STREAM_OVERLAP', '/x-nats-contract/streams/audit/config/subjects/0', 57, 20],
  ['consumer-outside-stream', 'NATS_CONSUMER_OUTSIDE_STREAM', '/x-nats-contract/consumers/spare/config/filter_subject', 71, 25],
  ['workqueue-consumer', 'NATS_WORKQUEUE_CONSUMER', '/x-nats-contract/consumers/auditor/config/deliver_policy', 61, 25],
  ['yaml-duplicate-key', 'YAML_DUPLICATE_KEY', '/info/title', 4, 3],
  ['yaml-tag', 'YAML_NON_JSON_VALUE', '/info/title', 3, 19],
  ['yaml-non-string-key', 'YAML_NON_STRING_KEY', '/info', 4, 3],
  ['yaml-alias-limit', 'YAML_ALIAS_LIMIT', '/x-anchors/a16', 119, 8],
  ['yaml-syntax', 'YAML_SYNTAX', '', 4, 3],
  ['schema-format', 'NATS_SCHEMA_FORMAT', '/channels/balanceQuery/messages/query/payload/schemaFormat', 82, 25],
]

/** Legal but probably not meant: a warning at its pointer, and the module is still generated. */
const warned: Array<[name: string, code: string, pointer: string, line: number, column: number]> = [
  // A backreference: not proven linear, so it runs under a step budget (warned), and the module is generated.
  ['pattern-budgeted', 'NATS_PATTERN_BUDGETED', '/components/messages/EntryPosted/payload/properties/entryId/pattern', 108, 45],
]

describe('single-document rules', () => {
  it.each(warned)('%s -> warning %s at %s (%i:%i), and the module is generated', async (name, code, pointer, line, column) => {
    const file = join(fixtures, 'invalid', `${name}.asyncapi.yaml`)
    const result = await compile(file)
    expect(result.code).toContain('export const')
    expect(result.diagnostics.map((d) => ({ code: d.code, severity: d.severity, pointer: d.pointer, line: d.line, column: d.column }))).toEqual([
      { code, severity: 'warning', pointer, line, column },
    ])
  })

  it.each(single)('%s -> %s at %s (%i:%i)', async (name, code, pointer, line, column) => {
    const file = join(fixtures, 'invalid', `${name}.asyncapi.yaml`)
    const result = await compile(file)
    expect(result.code).toBeUndefined()
    expect(result.diagnostics.map((d) => ({ code: d.code, pointer: d.pointer, line: d.line, column: d.column, file: d.file }))).toEqual([
      { code, pointer, line, column, file },
    ])
  })

  it('a core responder may declare the standard reply it answers on (not NATS_STANDARD_REPLY)', async () => {
    const base = readFileSync(join(fixtures, 'valid', 'ledger.asyncapi.yaml'), 'utf8')
    const responder = "  answerBalance:\n    action: receive\n    channel: { $ref: '#/channels/balanceQuery' }\n"
    expect(base).toContain(responder)
    mkdirSync(join(import.meta.dirname, '.tmp'), { recursive: true })
    const file = join(import.meta.dirname, '.tmp', `responder-${process.pid}.asyncapi.yaml`)
    writeFileSync(file, base.replace(responder, `${responder}    reply:\n      channel: { $ref: '#/channels/balanceReply' }\n`))
    const result = await compile(file)
    rmSync(file)
    expect(result.diagnostics).toEqual([])
    expect(result.code).toContain('export const')
  })

  it('a first-token placeholder whose type cannot be "_INBOX" passes (the twin of reserved-subject-placeholder)', async () => {
    const invalid = readFileSync(join(fixtures, 'invalid', 'reserved-subject-placeholder.asyncapi.yaml'), 'utf8')
    mkdirSync(join(import.meta.dirname, '.tmp'), { recursive: true })
    const file = join(import.meta.dirname, '.tmp', `placeholder-${process.pid}.asyncapi.yaml`)
    writeFileSync(file, invalid.replace('alphabet: ascii, first: any, minLength: 3', 'alphabet: ascii, first: letter, minLength: 3'))
    const result = await compile(file)
    rmSync(file)
    expect(result.diagnostics).toEqual([])
  })

  it('each invalid fixture is in the table', () => {
    expect(
      readdirSync(join(fixtures, 'invalid'))
        .map((f) => f.replace('.asyncapi.yaml', ''))
        .sort(),
    ).toEqual([...single, ...warned].map(([n]) => n).sort())
  })
})

/** The shop bundle broken in one place; `app` is the document compiled. */
const bundleCases: Array<
  [name: string, code: string, app: 'orders' | 'payments' | 'shipping', pointer: string, file: string, mutate: (b: ShopBundle) => void]
> = [
  [
    'a locked file that changed',
    'NATS_LOCK_DIGEST',
    'payments',
    '/entries/0/sha256',
    'bundle.lock.json',
    (b) => b.edit('native/streams.json', '"ORDERS"', '"ORDERZ"'),
  ],
  [
    "an import whose digest is not the lock's",
    'NATS_LOCK_MISMATCH',
    'payments',
    '/x-nats-contract/imports/orders/path',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.relock().edit('payments/asyncapi/asyncapi.yaml', /(path: orders\/asyncapi\/asyncapi\.yaml, sha256: )\w+/, '$1' + 'a'.repeat(64)),
  ],
  [
    'an artifact the lock does not list',
    'NATS_UNLOCKED_FILE',
    'payments',
    '/x-nats-contract/streams/orders/artifact/path',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.writeLock({ entries: b.lock().entries.filter((e) => e.path !== 'native/streams.json') }),
  ],
  [
    'a lock path with ..',
    'NATS_LOCK_PATH',
    'orders',
    '/entries/5/path',
    'bundle.lock.json',
    (b) => b.writeLock({ entries: [...b.lock().entries, { path: '../outside.json', sha256: 'a'.repeat(64) }] }),
  ],
  [
    'a lock path through a symlink',
    'NATS_LOCK_PATH',
    'payments',
    '/x-nats-contract/streams/orders/artifact/path',
    'payments/asyncapi/asyncapi.yaml',
    (b) => {
      renameSync(b.path('native'), b.path('native-real'))
      symlinkSync(b.path('native-real'), b.path('native'))
    },
  ],
  [
    'an absolute lock path',
    'NATS_LOCK_PATH',
    'orders',
    '/entries/5/path',
    'bundle.lock.json',
    (b) => b.writeLock({ entries: [...b.lock().entries, { path: '/etc/passwd', sha256: 'a'.repeat(64) }] }),
  ],
  [
    'a lock listing itself',
    'NATS_LOCK_SELF',
    'orders',
    '/entries/5/path',
    'bundle.lock.json',
    (b) => b.writeLock({ entries: [...b.lock().entries, { path: 'bundle.lock.json', sha256: 'a'.repeat(64) }] }),
  ],
  [
    'an uppercase digest',
    'NATS_LOCK_DIGEST_FORM',
    'orders',
    '/entries/0/sha256',
    'bundle.lock.json',
    (b) => b.writeLock({ entries: b.lock().entries.map((e, i) => (i === 0 ? { ...e, sha256: e.sha256.toUpperCase() } : e)) }),
  ],
  ['a lock that is not a lock', 'NATS_LOCK_INVALID', 'orders', '', 'bundle.lock.json', (b) => b.write('bundle.lock.json', '[]')],
  [
    'a locked file that is gone',
    'NATS_LOCKED_FILE_MISSING',
    'payments',
    '/x-nats-contract/streams/orders/artifact/path',
    'payments/asyncapi/asyncapi.yaml',
    (b) => rmSync(b.path('native/streams.json')),
  ],
  [
    'an import naming the wrong version',
    'NATS_IMPORT_MISMATCH',
    'payments',
    '/x-nats-contract/imports/orders',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'contract: orders, version: 1.2.0', 'contract: orders, version: 1.3.0').relock(),
  ],
  [
    'a standard parameter that is not in the address (here: a reply channel without one)',
    'NATS_ASYNCAPI_PARAMETERS',
    'orders',
    '/channels/orderLookupReply/parameters/x',
    'orders/asyncapi/asyncapi.yaml',
    (b) => b.edit('orders/asyncapi/asyncapi.yaml', '  orderLookupReply:\n', '  orderLookupReply:\n    parameters: { x: {} }\n').relock(),
  ],
  [
    'a channel id with a query delimiter',
    'NATS_ASYNCAPI_CHANNEL_KEY',
    'orders',
    '/channels/orderLookupReply?v=2',
    'orders/asyncapi/asyncapi.yaml',
    (b) =>
      b
        .edit(
          'orders/asyncapi/asyncapi.yaml',
          '  orderLookupReply:\n',
          "  'orderLookupReply?v=2':\n    messages: { order: { $ref: '#/components/messages/OrderPlaced' } }\n  orderLookupReply:\n",
        )
        .relock(),
  ],
  [
    'an import cycle',
    'NATS_IMPORT_CYCLE',
    'payments',
    '/x-nats-contract/imports/orders',
    'payments/asyncapi/asyncapi.yaml',
    (b) =>
      b
        .edit(
          'orders/asyncapi/asyncapi.yaml',
          '  deployment: { binding: shop-prod, minimumServerVersion: 2.11.0 }\n',
          '  deployment: { binding: shop-prod, minimumServerVersion: 2.11.0 }\n  imports:\n    shipping: { contract: shipping, version: 0.9.0, path: shipping/asyncapi/asyncapi.yaml }\n',
        )
        .relock()
        .relock(),
  ],
  [
    'two documents with one identity',
    'NATS_DUPLICATE_IDENTITY',
    'orders',
    '/x-nats-contract/contract',
    'orders/asyncapi/asyncapi.yaml',
    (b) =>
      b
        .write('orders-copy/asyncapi/asyncapi.yaml', b.read('orders/asyncapi/asyncapi.yaml').replace('Places orders', 'Places more orders'))
        .relock(['orders-copy/asyncapi/asyncapi.yaml']),
  ],
  [
    'a stream artifact that is YAML, not a JSON document',
    'NATS_ARTIFACT_FORMAT',
    'payments',
    '/x-nats-contract/streams/orders/artifact/path',
    'payments/asyncapi/asyncapi.yaml',
    (b) =>
      b
        .write('native/streams.yaml', b.read('native/streams.json'))
        .edit(
          'payments/asyncapi/asyncapi.yaml',
          'orders: { authority: external, artifact: { path: native/streams.json',
          'orders: { authority: external, artifact: { path: native/streams.yaml',
        )
        .relock(['native/streams.yaml']),
  ],
  [
    'two other documents with one identity, found while compiling a third',
    'NATS_DUPLICATE_IDENTITY',
    'shipping',
    '/x-nats-contract/contract',
    'orders/asyncapi/asyncapi.yaml',
    (b) =>
      b
        .write('orders-copy/asyncapi/asyncapi.yaml', b.read('orders/asyncapi/asyncapi.yaml').replace('Places orders', 'Places more orders'))
        .relock(['orders-copy/asyncapi/asyncapi.yaml']),
  ],
  [
    'runtime-schema-check on a payload whose reference into a locked file names nothing',
    'NATS_SCHEMA_CHECK_EXTERNAL',
    'payments',
    '/x-nats-contract/interactions/approveRefund/capabilities',
    'payments/asyncapi/asyncapi.yaml',
    (b) =>
      b
        .write(
          'payments/asyncapi/refund.yaml',
          "Refund: { type: object, required: [paymentId, amount], properties: { paymentId: { type: string }, amount: { $ref: '#/Nothing' } } }\n",
        )
        .withRuntimeSchemaCheck()
        .edit(
          'payments/asyncapi/asyncapi.yaml',
          'properties: { paymentId: { type: string }, amount: { type: number }, reason: { type: string } }',
          "properties: { paymentId: { type: string }, amount: { $ref: 'refund.yaml#/Refund/properties/amount' }, reason: { type: string } }",
        )
        .relock(['payments/asyncapi/refund.yaml']),
  ],
  [
    'a cancel result whose outcomes are not stopped, already-completed and unknown',
    'NATS_CANCEL_SCHEMA',
    'payments',
    '/x-nats-contract/interactions/approveRefund/completion/cancelResultOperation',
    'payments/asyncapi/asyncapi.yaml',
    (b) =>
      b
        .edit(
          'payments/asyncapi/asyncapi.yaml',
          'outcome: { type: string, enum: [stopped, already-completed, unknown] }',
          'outcome: { type: string, enum: [stopped, failed] }',
        )
        .relock(),
  ],
  [
    'a lock entry with a member besides path and sha256',
    'NATS_LOCK_INVALID',
    'orders',
    '/entries/0/size',
    'bundle.lock.json',
    (b) => b.writeLock({ entries: b.lock().entries.map((e, i) => (i === 0 ? { ...e, size: 1 } : e)) }),
  ],
  [
    'an artifact pointer that selects nothing',
    'NATS_ARTIFACT_POINTER',
    'payments',
    '/x-nats-contract/streams/orders/pointer',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'pointer: /streams/0', 'pointer: /streams/7').relock(),
  ],
  [
    'a link to an operation the import lacks',
    'NATS_LINK_UNRESOLVED',
    'payments',
    '/x-nats-contract/links/0/send',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'operation: placeOrder', 'operation: placeOrders').relock(),
  ],
  [
    'a link from a receive',
    'NATS_LINK_DIRECTION',
    'payments',
    '/x-nats-contract/links/0/send',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'operation: placeOrder', 'operation: serveOrder').relock(),
  ],
  [
    'a link between different subject languages',
    'NATS_LINK_SUBJECTS',
    'payments',
    '/x-nats-contract/links/0',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'region: { kind: enum, values: [eu, us] }', 'region: { kind: enum, values: [eu, us, ap] }').relock(),
  ],
  [
    'a link between different payloads',
    'NATS_LINK_SCHEMA',
    'payments',
    '/x-nats-contract/links/0',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'total: { type: number }', 'total: { type: integer }').relock(),
  ],
  [
    'an unlinked overlap between two other contracts, found while compiling a third',
    'NATS_CONTRACT_OVERLAP',
    'shipping',
    '/channels/orderPlaced/address',
    'payments/asyncapi/asyncapi.yaml',
    (b) =>
      b
        .edit('payments/asyncapi/asyncapi.yaml', / {2}links:\n {4}- send: \{ contract: orders, operation: placeOrder \}\n {6}receive: onOrderPlaced\n/, '')
        .relock(),
  ],
  [
    'an unlinked overlap with an importing contract, found in the imported one',
    'NATS_CONTRACT_OVERLAP',
    'orders',
    '/channels/orderPlaced/address',
    'orders/asyncapi/asyncapi.yaml',
    (b) =>
      b
        .edit('payments/asyncapi/asyncapi.yaml', / {2}links:\n {4}- send: \{ contract: orders, operation: placeOrder \}\n {6}receive: onOrderPlaced\n/, '')
        .relock(),
  ],
  [
    'an unlinked overlap with an imported contract',
    'NATS_CONTRACT_OVERLAP',
    'payments',
    '/channels/orderPlaced/address',
    'payments/asyncapi/asyncapi.yaml',
    (b) =>
      b
        .edit('payments/asyncapi/asyncapi.yaml', / {2}links:\n {4}- send: \{ contract: orders, operation: placeOrder \}\n {6}receive: onOrderPlaced\n/, '')
        .relock(),
  ],
  [
    'an adapter of an unknown kind',
    'NATS_ADAPTER_KIND',
    'payments',
    '/x-nats-contract/adapters/tally/kind',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'tally: { kind: aggregation', 'tally: { kind: counting').relock(),
  ],
  [
    'a NATS credentials file in the lock (credentials are never bundled)',
    'NATS_BUNDLED_CREDENTIAL',
    'payments',
    '/entries/5/path',
    'bundle.lock.json',
    (b) =>
      b.write('native/payments.creds', '-----BEGIN NATS USER JWT-----\neyJ0eXAi.fake.jwt\n------END NATS USER JWT------\n').relock(['native/payments.creds']),
  ],
  [
    'an adapter without its description (adapters are the five members {kind, version, inputSchema, outputSchema, description})',
    'NATS_PROFILE_SHAPE',
    'payments',
    '/x-nats-contract/adapters/tally/description',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', ', description: Counts ballots into a refund outcome.', '').relock(),
  ],
  [
    'a version range',
    'NATS_ADAPTER_VERSION',
    'payments',
    '/x-nats-contract/adapters/tally/version',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'version: 1.1.0', 'version: ^1.1').relock(),
  ],
  [
    'a schema pointer that resolves nowhere',
    'NATS_SCHEMA_POINTER',
    'payments',
    '/x-nats-contract/adapters/tally/outputSchema',
    'payments/asyncapi/asyncapi.yaml',
    (b) =>
      b
        .edit(
          'payments/asyncapi/asyncapi.yaml',
          "Ballots', outputSchema: '#/components/schemas/RefundOutcome'",
          "Ballots', outputSchema: '#/components/schemas/Outcome'",
        )
        .relock(),
  ],
  [
    'a verifier of the wrong kind',
    'NATS_ADAPTER_REFERENCE',
    'payments',
    '/x-nats-contract/interactions/approveRefund/correlation/verifier',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'verifier: ballotVerifier', 'verifier: tally').relock(),
  ],
  [
    'an unknown context field',
    'NATS_CONTEXT_FIELD',
    'payments',
    '/x-nats-contract/interactions/approveRefund/bindings/payload/~1requestedBy/context',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', '{ context: principalId }', '{ context: userName }').relock(),
  ],
  [
    'a request operation that receives',
    'NATS_INTERACTION_OPERATION',
    'payments',
    '/x-nats-contract/interactions/approveRefund/requestOperation',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'requestOperation: requestRefundVote', 'requestOperation: onRefundBallot').relock(),
  ],
  [
    'dispatch-only work that expects completion',
    'NATS_INTERACTION_SHAPE',
    'payments',
    '/x-nats-contract/interactions/approveRefund/completion/mode',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', '      resultOperation: onRefundBallot\n', '').relock(),
  ],
  [
    'an input with both tokenType and schema',
    'NATS_INPUT_FORM',
    'payments',
    '/x-nats-contract/interactions/approveRefund/inputs/group',
    'payments/asyncapi/asyncapi.yaml',
    (b) =>
      b
        .edit(
          'payments/asyncapi/asyncapi.yaml',
          'group: { source: argument, tokenType: groupId }',
          "group: { source: argument, tokenType: groupId, schema: '#/components/schemas/GroupQuery' }",
        )
        .relock(),
  ],
  [
    'a generated input other than operationId',
    'NATS_GENERATED_INPUT',
    'payments',
    '/x-nats-contract/interactions/approveRefund/inputs/group',
    'payments/asyncapi/asyncapi.yaml',
    (b) =>
      b.edit('payments/asyncapi/asyncapi.yaml', 'group: { source: argument, tokenType: groupId }', 'group: { source: generated, tokenType: groupId }').relock(),
  ],
  [
    'a source naming two things',
    'NATS_BINDING_SOURCE',
    'payments',
    '/x-nats-contract/interactions/approveRefund/bindings/payload/~1peerId',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', '/peerId: { branch: peerId }', '/peerId: { branch: peerId, literal: x }').relock(),
  ],
  [
    'overlapping destinations',
    'NATS_BINDING_OVERLAP',
    'payments',
    '/x-nats-contract/interactions/approveRefund/bindings/payload/~1refund~1amount',
    'payments/asyncapi/asyncapi.yaml',
    (b) =>
      b.edit('payments/asyncapi/asyncapi.yaml', '/refund: { input: refund }', '/refund: { input: refund }\n          /refund/amount: { literal: 1 }').relock(),
  ],
  [
    'an unbound required field',
    'NATS_BINDING_MISSING',
    'payments',
    '/x-nats-contract/interactions/approveRefund/bindings/payload',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', '          /requestedBy: { context: principalId }\n', '').relock(),
  ],
  [
    'correlation metadata from business data',
    'NATS_BINDING_CORRELATION',
    'payments',
    '/x-nats-contract/interactions/approveRefund/bindings/payload/~1branchId',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', '/branchId: { branch: id }', '/branchId: { context: scopeId }').relock(),
  ],
  [
    'a string bound to an integer',
    'NATS_BINDING_TYPE',
    'payments',
    '/x-nats-contract/interactions/approveRefund/bindings/payload/~1attempt',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', '/attempt: { branch: attempt }', '/attempt: { context: principalId }').relock(),
  ],
  [
    'an input token type wider than the subject domain',
    'NATS_BINDING_TYPE',
    'payments',
    '/x-nats-contract/interactions/approveRefund/bindings/subject/peerId',
    'payments/asyncapi/asyncapi.yaml',
    (b) =>
      b
        .edit('payments/asyncapi/asyncapi.yaml', 'peerId: { branch: peerId }\n        payload:', 'peerId: { input: group }\n        payload:')
        .edit(
          'payments/asyncapi/asyncapi.yaml',
          "groupId: { kind: token, alphabet: lower, first: letter, minLength: 3, maxLength: 32, prefix: '' }",
          "groupId: { kind: token, alphabet: ascii, first: letter, minLength: 3, maxLength: 32, prefix: '' }",
        )
        .relock(),
  ],
  [
    'an unproven binding without runtime-schema-check',
    'NATS_BINDING_UNPROVEN',
    'payments',
    '/x-nats-contract/interactions/approveRefund/bindings/payload/~1refund',
    'payments/asyncapi/asyncapi.yaml',
    (b) =>
      b
        .edit(
          'payments/asyncapi/asyncapi.yaml',
          "refund: { source: argument, schema: '#/components/schemas/RefundRequest' }",
          "refund: { source: argument, schema: '#/components/schemas/Ballots' }",
        )
        .relock(),
  ],
  [
    'an audience with late joiners',
    'NATS_AUDIENCE',
    'payments',
    '/x-nats-contract/interactions/approveRefund/audience/lateJoiners',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'lateJoiners: exclude', 'lateJoiners: include').relock(),
  ],
  [
    'offline peers without durable delivery',
    'NATS_OFFLINE_DELIVERY',
    'payments',
    '/x-nats-contract/interactions/approveRefund/audience/offline',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'offline: exclude', 'offline: include').relock(),
  ],
  [
    'one-eligible without a selector',
    'NATS_DISPATCH',
    'shipping',
    '/x-nats-contract/interactions/assignCourier/dispatch/selector',
    'shipping/asyncapi/asyncapi.yaml',
    (b) => b.edit('shipping/asyncapi/asyncapi.yaml', 'selector: courierSelector, ', '').relock(),
  ],
  [
    'memory execution with retries',
    'NATS_DELIVERY',
    'payments',
    '/x-nats-contract/interactions/approveRefund/delivery',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'maxAttempts: 1, retryBackoffMs: 0', 'maxAttempts: 1, retryBackoffMs: 500').relock(),
  ],
  [
    'renewal at half the lease',
    'NATS_OWNERSHIP',
    'shipping',
    '/x-nats-contract/interactions/assignCourier/delivery/ownership/renewEveryMs',
    'shipping/asyncapi/asyncapi.yaml',
    (b) => b.edit('shipping/asyncapi/asyncapi.yaml', 'renewEveryMs: 10000', 'renewEveryMs: 15000').relock(),
  ],
  [
    'a stream whose retention is shorter than the deadline',
    'NATS_DURABLE_RESOURCES',
    'shipping',
    '/x-nats-contract/interactions/assignCourier/requestOperation',
    'shipping/asyncapi/asyncapi.yaml',
    (b) => b.edit('shipping/asyncapi/asyncapi.yaml', 'duplicate_window: 900000000000', 'duplicate_window: 120000000000').relock(),
  ],
  [
    'correlation through a header',
    'NATS_CORRELATION',
    'payments',
    '/x-nats-contract/interactions/approveRefund/correlation/fence',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', "fence: '$message.payload#/fence'", "fence: '$message.header#/fence'").relock(),
  ],
  [
    'a success predicate that coerces',
    'NATS_COMPLETION',
    'payments',
    '/x-nats-contract/interactions/approveRefund/completion/success',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'equals: true }', "equals: 'yes' }").relock(),
  ],
  [
    'a quorum with both count and fraction',
    'NATS_QUORUM',
    'payments',
    '/x-nats-contract/interactions/approveRefund/completion',
    'payments/asyncapi/asyncapi.yaml',
    (b) =>
      b
        .edit('payments/asyncapi/asyncapi.yaml', 'fraction: { numerator: 2, denominator: 3 }', 'fraction: { numerator: 2, denominator: 3 }\n        count: 2')
        .relock(),
  ],
  [
    'a quorum count one peer can never meet',
    'NATS_QUORUM',
    'shipping',
    '/x-nats-contract/interactions/assignCourier/completion/count',
    'shipping/asyncapi/asyncapi.yaml',
    (b) => b.edit('shipping/asyncapi/asyncapi.yaml', '        mode: first-success\n', '        mode: quorum\n        count: 2\n').relock(),
  ],
  [
    'cooperative cancellation without a timeout',
    'NATS_CANCELLATION',
    'payments',
    '/x-nats-contract/interactions/approveRefund/completion/cancelTimeoutMs',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'cancelTimeoutMs: 5000', 'cancelTimeoutMs: 0').relock(),
  ],
  [
    'a step with both interaction and operation',
    'NATS_PIPELINE_STEP',
    'payments',
    '/x-nats-contract/pipelines/announceRefund/steps/0',
    'payments/asyncapi/asyncapi.yaml',
    (b) =>
      b
        .edit(
          'payments/asyncapi/asyncapi.yaml',
          '        - interaction: approveRefund\n',
          '        - interaction: approveRefund\n          operation: publishRefundOutcome\n',
        )
        .relock(),
  ],
  [
    'a pipeline step naming a pipeline',
    'NATS_PIPELINE_RECURSION',
    'payments',
    '/x-nats-contract/pipelines/announceRefund/steps/0/interaction',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', '        - interaction: approveRefund\n', '        - interaction: announceRefund\n').relock(),
  ],
  [
    'an inputAdapter on the first step',
    'NATS_PIPELINE_ADAPTER',
    'payments',
    '/x-nats-contract/pipelines/announceRefund/steps/0/inputAdapter',
    'payments/asyncapi/asyncapi.yaml',
    (b) =>
      b
        .edit(
          'payments/asyncapi/asyncapi.yaml',
          '        - interaction: approveRefund\n',
          '        - interaction: approveRefund\n          inputAdapter: tally\n',
        )
        .relock(),
  ],
  [
    'an interaction step that overrides bindings',
    'NATS_PIPELINE_BINDING',
    'payments',
    '/x-nats-contract/pipelines/announceRefund/steps/0/bindings',
    'payments/asyncapi/asyncapi.yaml',
    (b) =>
      b
        .edit('payments/asyncapi/asyncapi.yaml', 'bindings: { subject: {}, payload: {} }', 'bindings: { subject: {}, payload: { /x: { literal: 1 } } }')
        .relock(),
  ],
  [
    'a later step with no typed input',
    'PIPELINE_OUTPUT_UNSUPPORTED',
    'payments',
    '/x-nats-contract/pipelines/announceRefund/steps/1/bindings',
    'payments/asyncapi/asyncapi.yaml',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', '      aggregation: { adapter: tally }\n', '').relock(),
  ],
  [
    'adjacent schemas that differ',
    'NATS_PIPELINE_SCHEMA',
    'payments',
    '/x-nats-contract/pipelines/announceRefund/steps/1/bindings/payload/~1approved',
    'payments/asyncapi/asyncapi.yaml',
    (b) =>
      b
        .edit(
          'payments/asyncapi/asyncapi.yaml',
          "outcome: { payload: { $ref: '#/components/schemas/RefundOutcome' } }",
          'outcome: { payload: { type: object, required: [operationId, approved], properties: { operationId: { type: string }, approved: { type: string } } } }',
        )
        .relock(),
  ],
  [
    'a workflow that is not Open Workflow 1.0.4',
    'NATS_WORKFLOW',
    'payments',
    '/document/dsl',
    'payments/workflows/refund.yaml',
    (b) => b.edit('payments/workflows/refund.yaml', "dsl: '1.0.4'", "dsl: '1.0.0'").relock(),
  ],
  [
    'a workflow task that invents a native quorum primitive',
    'NATS_WORKFLOW',
    'payments',
    '/do/0/approve/quorum',
    'payments/workflows/refund.yaml',
    (b) => b.edit('payments/workflows/refund.yaml', '      call: approveRefund\n', '      quorum: { of: 3, need: 2 }\n').relock(),
  ],
  [
    'a workflow document without its name and tasks',
    'NATS_WORKFLOW',
    'payments',
    '/document/name',
    'payments/workflows/refund.yaml',
    (b) => b.edit('payments/workflows/refund.yaml', '  name: refund-flow\n', '').relock(),
  ],
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
    const covered = new Set([...single, ...warned].map(([, code]) => code).concat(bundleCases.map(([, code]) => code)))
    for (const code of [...gateRules, ...natsRules].map((r) => r.code).concat(loadCodes)) expect(covered, code).toContain(code)
  })
})

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

describe('passing documents', () => {
  it.each(['valid/ledger.asyncapi.yaml', 'shop/orders/asyncapi/asyncapi.yaml', 'shop/payments/asyncapi/asyncapi.yaml', 'shop/shipping/asyncapi/asyncapi.yaml'])(
    '%s has no diagnostics',
    async (rel) => {
      expect((await compile(join(fixtures, rel))).diagnostics).toEqual([])
    },
  )

  it('a relocked copy of the bundle passes, and inspect prints the normalized model', async () => {
    const bundle = ShopBundle.copy('relocked').relock()
    const result = await inspect(bundle.doc('shipping'))
    expect(result.diagnostics).toEqual([])
    expect(result.data).toMatchObject({
      format: 'nats',
      contract: { id: 'shipping', version: '0.9.0', profile: '0.2.0-draft', digest: bundle.sha('shipping/asyncapi/asyncapi.yaml') },
      streams: expect.arrayContaining([
        expect.objectContaining({
          key: 'payments',
          authority: 'external',
          config: expect.objectContaining({ name: 'PAYMENTS' }),
          artifact: expect.objectContaining({ path: 'native/streams.json', pointer: '/streams/1' }),
        }),
      ]),
    })
  })
})

describe('minimumServerVersion compares as SemVer (profile v0.2 needs NATS server 2.11.0 or later)', () => {
  const variant = async (version: string) => {
    const { mkdirSync } = await import('node:fs')
    const dir = join(import.meta.dirname, '.tmp/nats-server-version')
    mkdirSync(dir, { recursive: true })
    const file = join(dir, `v-${version.replace(/[^\w.-]/g, '_')}.asyncapi.yaml`)
    const text = readFileSync(join(fixtures, 'valid/ledger.asyncapi.yaml'), 'utf8')
    writeFileSync(file, text.replace('minimumServerVersion: 2.11.0', `minimumServerVersion: '${version}'`))
    return (await compile(file)).diagnostics.map((d) => [d.code, d.pointer])
  }
  const at = ['NATS_SERVER_VERSION', '/x-nats-contract/deployment/minimumServerVersion']

  it('a pre-release of 2.11.0 precedes it; versions that are not SemVer are refused', async () => {
    for (const version of ['2.11.0-rc.1', '2.11.0-beta', '2.10.99', '2.11', '2.11.0.1', '02.11.0', 'v2.11.0', ' 2.11.0', '=2.11.0', '2.11.0-'])
      expect(await variant(version), version).toEqual([at])
  })

  it('2.11.0, its builds, later releases and their pre-releases pass', async () => {
    for (const version of ['2.11.0', '2.11.0+build.7', '2.11.1-rc.1', '2.12.0', '3.0.0-alpha']) expect(await variant(version), version).toEqual([])
  })
})

describe('a $ref names an object of the kind its position holds (NATS_REF_KIND)', () => {
  const variant = async (name: string, from: string, to: string) => {
    const { mkdirSync } = await import('node:fs')
    const dir = join(import.meta.dirname, '.tmp/nats-ref-kind')
    mkdirSync(dir, { recursive: true })
    const text = readFileSync(join(fixtures, 'valid/ledger.asyncapi.yaml'), 'utf8')
    expect(text).toContain(from)
    const file = join(dir, `${name}.asyncapi.yaml`)
    writeFileSync(file, text.replace(from, to))
    return (await compile(file)).diagnostics.map((d) => [d.code, d.pointer])
  }

  it("a channel's message that names a schema, and an operation's message of another channel, are refused", async () => {
    const schema = await variant(
      'message-is-schema',
      "        $ref: '#/components/messages/EntryPosted'",
      "        $ref: '#/components/messages/EntryPosted/payload'",
    )
    expect(schema).toEqual([['NATS_REF_KIND', '/channels/entryPosted/messages/posted/$ref']])
    const foreign = await variant(
      'foreign-message',
      "    channel: { $ref: '#/channels/balanceQuery' }\n    reply:",
      "    channel: { $ref: '#/channels/balanceQuery' }\n    messages:\n      - $ref: '#/channels/entryPosted/messages/posted'\n    reply:",
    )
    expect(foreign).toEqual([['NATS_REF_KIND', '/operations/queryBalance/messages/0/$ref']])
  })

  it("an operation's messages of its own channel pass", async () => {
    const own = await variant(
      'own-message',
      "    channel: { $ref: '#/channels/balanceQuery' }\n    reply:",
      "    channel: { $ref: '#/channels/balanceQuery' }\n    messages:\n      - $ref: '#/channels/balanceQuery/messages/query'\n    reply:",
    )
    expect(own).toEqual([])
  })
})

describe('what the NATS format claims and reads', () => {
  const dir = join(import.meta.dirname, '.tmp/nats-claims')
  const write = async (name: string, text: string) => {
    const { mkdirSync } = await import('node:fs')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, name), text)
    return join(dir, name)
  }
  const ledger = () => readFileSync(join(fixtures, 'valid/ledger.asyncapi.yaml'), 'utf8')

  it('*.asyncapi.json is a NATS document, read as strict JSON, and compiles to what its YAML twin does', async () => {
    const { parse } = await import('yaml')
    const json = await write('ledger.asyncapi.json', JSON.stringify(parse(ledger()), null, 2))
    const fromJson = await compile(json)
    expect(fromJson.diagnostics).toEqual([])
    const fromYaml = await compile(await write('ledger.asyncapi.yaml', ledger()))
    const exportsOf = (code: string) => [...code.matchAll(/^export const (\w+)/gm)].map((m) => m[1])
    expect(exportsOf(fromJson.code!)).toEqual(exportsOf(fromYaml.code!))
    // Strict JSON: a trailing comma is a JSON syntax error at its position, not YAML leniency.
    const broken = await compile(await write('broken.asyncapi.json', JSON.stringify(parse(ledger())).replace(/}$/, ',}')))
    expect(broken.diagnostics.map((d) => d.code)).toEqual(['JSON_SYNTAX'])
  })

  it('a plain AsyncAPI document (no profile) gets its standard part checked too, and is told how to add the profile', async () => {
    const plain = ledger().replace(/x-nats-contract:[\s\S]*?\nchannels:/, 'channels:')
    const clean = await compile(await write('plain.asyncapi.yaml', plain))
    expect(clean.diagnostics.map((d) => [d.code, d.pointer])).toEqual([['NATS_PROFILE_MISSING', '']])
    expect(clean.diagnostics[0]!.message).toContain('x-nats-contract: { version: 0.2.0-draft')
    const broken = await compile(
      await write('plain-broken.asyncapi.yaml', plain.replace("channel: { $ref: '#/channels/entryPosted' }", "channel: { $ref: '#/channels/nowhere' }")),
    )
    expect(broken.diagnostics.map((d) => [d.code, d.pointer])).toEqual([
      ['NATS_PROFILE_MISSING', ''],
      ['NATS_REF_UNRESOLVED', '/operations/postEntry/channel/$ref'],
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

describe('native limits past 2^53 are read exactly (a year in nanoseconds is 3.2e16)', () => {
  const variant = async (name: string, maxAge: string, window = '120000000000') => {
    const { mkdirSync } = await import('node:fs')
    const dir = join(import.meta.dirname, '.tmp/nats-big-limits')
    mkdirSync(dir, { recursive: true })
    const text = readFileSync(join(fixtures, 'valid/ledger.asyncapi.yaml'), 'utf8')
      .replace('max_age: 2592000000000000', `max_age: ${maxAge}`)
      .replace('duplicate_window: 120000000000', `duplicate_window: ${window}`)
    const file = join(dir, `${name}.asyncapi.yaml`)
    writeFileSync(file, text)
    return (await compile(file)).diagnostics.map((d) => [d.code, d.pointer, d.message])
  }
  const at = (field: string) => `/x-nats-contract/streams/ledger/config/${field}`

  it('a year, and int64 values a JavaScript number carries exactly, pass; the window is compared exactly', async () => {
    expect(await variant('year', '31536000000000000')).toEqual([])
    expect(await variant('year-window', '31536000000000000', '31536000000000000')).toEqual([])
    expect(await variant('two-to-the-62', '4611686018427387904')).toEqual([])
    expect((await variant('window-over-year', '31536000000000000', '63072000000000000')).map(([c, p]) => [c, p])).toEqual([
      ['NATS_STREAM_WINDOW', at('duplicate_window')],
    ])
  })

  it('past int64, or not carried exactly by a JavaScript number, a limit is refused with the exact value', async () => {
    const over = await variant('over-int64', '9223372036854775809')
    expect(over.map(([c, p]) => [c, p])).toEqual([['NATS_STREAM_CONFIG', at('max_age')]])
    expect(over[0]![2]).toContain('9223372036854775807')
    const inexact = await variant('inexact', '9007199254740993')
    expect(inexact.map(([c, p]) => [c, p])).toEqual([['NATS_STREAM_CONFIG', at('max_age')]])
    expect(inexact[0]![2]).toContain('9007199254740992')
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

describe('gather-only work has no request payload', () => {
  it('an interaction without requestOperation (dispatch none) gets no correlation-overwrite diagnostics for its empty bindings', async () => {
    const bundle = ShopBundle.copy('gather-only')
    const doc = bundle.read('payments/asyncapi/asyncapi.yaml')
    const start = doc.indexOf('      bindings:\n        subject:\n          operationId: { input: operationId }')
    const end = doc.indexOf('      audience:', start)
    bundle
      .write('payments/asyncapi/asyncapi.yaml', doc.slice(0, start) + '      bindings: { subject: {}, payload: {} }\n' + doc.slice(end))
      .edit('payments/asyncapi/asyncapi.yaml', '      requestOperation: requestRefundVote\n', '')
      .relock()
    const codes = (await compile(bundle.doc('payments'))).diagnostics.map((d) => d.code)
    expect(codes).not.toContain('NATS_BINDING_CORRELATION')
  })
})

describe('correlation agrees across every request and result message (NATS_CORRELATION)', () => {
  const ballot = "    messages: { ballot: { $ref: '#/components/messages/RefundBallot' } }"
  it('a second result message without the correlated field is refused; type arrays compare by value', async () => {
    const second = ShopBundle.copy('correlation-second-message')
      .edit(
        'payments/asyncapi/asyncapi.yaml',
        ballot,
        "    messages: { ballot: { $ref: '#/components/messages/RefundBallot' }, late: { payload: { type: object, properties: { approve: { type: boolean } } } } }",
      )
      .relock()
    const found = (await compile(second.doc('payments'))).diagnostics.map((d) => [d.code, d.pointer])
    expect(found).toContainEqual(['NATS_CORRELATION', '/x-nats-contract/interactions/approveRefund/correlation/operation'])
    const nullable = ShopBundle.copy('correlation-type-arrays')
      .edit(
        'payments/asyncapi/asyncapi.yaml',
        /( {8}required: \[operationId, branchId, attempt, fence, peerId, requestedBy, refund\]\n {8}properties:\n {10}operationId: )\{ type: string \}/,
        "$1{ type: [string, 'null'] }",
      )
      .edit(
        'payments/asyncapi/asyncapi.yaml',
        /( {6}required: \[operationId, branchId, attempt, fence, peerId, approve\]\n {6}properties:\n {8}operationId: )\{ type: string \}/,
        "$1{ type: [string, 'null'] }",
      )
      .relock()
    const codes = (await compile(nullable.doc('payments'))).diagnostics.map((d) => [d.code, d.pointer])
    expect(codes).not.toContainEqual(['NATS_CORRELATION', '/x-nats-contract/interactions/approveRefund/correlation/operation'])
  })
})

describe('dispatch and completion: what one-eligible and independent durable work need', () => {
  it('result-bearing one-eligible work counting distinct peers is refused', async () => {
    const bundle = ShopBundle.copy('one-eligible-peers').edit('shipping/asyncapi/asyncapi.yaml', 'unit: distinct-branches', 'unit: distinct-peers').relock()
    const found = (await compile(bundle.doc('shipping'))).diagnostics.map((d) => [d.code, d.pointer])
    expect(found).toContainEqual(['NATS_COMPLETION', '/x-nats-contract/interactions/assignCourier/completion/unit'])
  })

  it('independent durable delivery whose target parameter is not bound from the branch is refused', async () => {
    const independent = ShopBundle.copy('independent-addressed').edit(
      'shipping/asyncapi/asyncapi.yaml',
      'dispatch: { mode: one-eligible, branchKey: recipient, selector: courierSelector, targetParameter: courierId }',
      'dispatch: { mode: independent, branchKey: recipient, targetParameter: courierId }',
    )
    const addressed = (await compile(independent.relock().doc('shipping'))).diagnostics.map((d) => [d.code, d.pointer])
    expect(addressed).not.toContainEqual(['NATS_DURABLE_RESOURCES', '/x-nats-contract/interactions/assignCourier/dispatch/targetParameter'])
    independent.edit(
      'shipping/asyncapi/asyncapi.yaml',
      '          courierId: { branch: peerId }\n        payload:',
      '          courierId: { context: senderPeerId }\n        payload:',
    )
    const unaddressed = (await compile(independent.relock().doc('shipping'))).diagnostics.map((d) => [d.code, d.pointer])
    expect(unaddressed).toContainEqual(['NATS_DURABLE_RESOURCES', '/x-nats-contract/interactions/assignCourier/dispatch/targetParameter'])
  })
})

describe('cancellation wire data is the fixed CancelRequest/CancelResult (NATS_CANCEL_SCHEMA)', () => {
  const outcome = 'outcome: { type: string, enum: [stopped, already-completed, unknown] }'
  it('a cancel result with another outcome, or a cancel command without the fence, is refused; the shop passes', async () => {
    const outcomes = ShopBundle.copy('cancel-outcomes')
      .edit('payments/asyncapi/asyncapi.yaml', outcome, 'outcome: { type: string, enum: [stopped, failed] }')
      .relock()
    expect((await compile(outcomes.doc('payments'))).diagnostics.map((d) => [d.code, d.pointer])).toContainEqual([
      'NATS_CANCEL_SCHEMA',
      '/x-nats-contract/interactions/approveRefund/completion/cancelResultOperation',
    ])
    const fence = ShopBundle.copy('cancel-fence')
      .edit(
        'payments/asyncapi/asyncapi.yaml',
        'required: [operationId, branchId, attempt, fence]\n        properties: { operationId',
        'required: [operationId, branchId, attempt]\n        properties: { operationId',
      )
      .relock()
    expect((await compile(fence.doc('payments'))).diagnostics.map((d) => [d.code, d.pointer])).toContainEqual([
      'NATS_CANCEL_SCHEMA',
      '/x-nats-contract/interactions/approveRefund/completion/cancelOperation',
    ])
  })
})

describe('pipeline operation steps: literals satisfy their destination, targets are the channel parameters (NATS_PIPELINE_BINDING)', () => {
  const approved = '              /approved: { stageInput: /approved }'
  const at = (tail: string) => `/x-nats-contract/pipelines/announceRefund/steps/1/bindings/${tail}`
  const variant = async (name: string, from: string, to: string) =>
    (await compile(ShopBundle.copy(name).edit('payments/asyncapi/asyncapi.yaml', from, to).relock().doc('payments'))).diagnostics.map((d) => [
      d.code,
      d.pointer,
    ])

  it('a string literal for a boolean field, a non-token literal for a subject parameter and an unknown parameter are refused', async () => {
    expect(await variant('pipeline-literal-type', approved, "              /approved: { literal: 'yes' }")).toContainEqual([
      'NATS_PIPELINE_BINDING',
      at('payload/~1approved'),
    ])
    expect(
      await variant('pipeline-literal-token', 'subject: { operationId: { stageInput: /operationId } }', "subject: { operationId: { literal: 'not.a token' } }"),
    ).toContainEqual(['NATS_PIPELINE_BINDING', at('subject/operationId')])
    expect(
      await variant(
        'pipeline-unknown-param',
        'subject: { operationId: { stageInput: /operationId } }',
        'subject: { operationId: { stageInput: /operationId }, region: { literal: eu } }',
      ),
    ).toContainEqual(['NATS_PIPELINE_BINDING', at('subject/region')])
  })

  it('a literal the destination accepts passes', async () => {
    const found = await variant('pipeline-literal-ok', approved, '              /approved: { literal: true }')
    expect(found.filter(([code]) => code === 'NATS_PIPELINE_BINDING')).toEqual([])
  })
})

describe("a pipeline's first step reads the invocation input (the operation's payload, or the interaction's arguments)", () => {
  const pipeline = (field: string) =>
    `  pipelines:\n    direct:\n      onFailure: stop\n      steps:\n        - operation: publishRefundOutcome\n          bindings:\n            subject: { operationId: { stageInput: /operationId } }\n            payload:\n              /operationId: { stageInput: /operationId }\n              /approved: { stageInput: ${field} }\n`
  const compileWith = async (name: string, field: string) =>
    (await compile(ShopBundle.copy(name).edit('payments/asyncapi/asyncapi.yaml', '  pipelines:\n', pipeline(field)).relock().doc('payments'))).diagnostics.map(
      (d) => [d.code, d.pointer],
    )

  it('a first operation step reading a field its payload lacks is refused; one it has passes', async () => {
    expect(await compileWith('pipeline-first-missing', '/nope')).toContainEqual([
      'NATS_PIPELINE_BINDING',
      '/x-nats-contract/pipelines/direct/steps/0/bindings/payload/~1approved',
    ])
    const ok = await compileWith('pipeline-first-ok', '/approved')
    expect(ok.filter(([code]) => String(code).includes('PIPELINE'))).toEqual([])
  })
})

describe('a binding from a branch input is not proven statically (NATS_BINDING_UNPROVEN)', () => {
  it('without runtime-schema-check it is refused, with it accepted', async () => {
    const edit = (b: ShopBundle) =>
      b.edit('payments/asyncapi/asyncapi.yaml', '          /requestedBy: { context: principalId }', '          /requestedBy: { branch: input }')
    const unproven = (await compile(edit(ShopBundle.copy('branch-input-unproven')).relock().doc('payments'))).diagnostics.map((d) => [d.code, d.pointer])
    expect(unproven).toContainEqual(['NATS_BINDING_UNPROVEN', '/x-nats-contract/interactions/approveRefund/bindings/payload/~1requestedBy'])
    const checked = edit(ShopBundle.copy('branch-input-checked')).withRuntimeSchemaCheck().relock()
    const found = (await compile(checked.doc('payments'))).diagnostics.map((d) => d.code)
    expect(found).not.toContain('NATS_BINDING_UNPROVEN')
  })
})

describe('steps after an undefined output (PIPELINE_OUTPUT_UNSUPPORTED)', () => {
  const literalStep = () =>
    '        - operation: publishRefundOutcome\n          bindings:\n            subject: { operationId: { literal: op0000000000000000000000000000000000000000000000000000000000000000 } }\n            payload:\n              /operationId: { context: operationId }\n              /approved: { literal: false }\n'
  const steps = (second: string) =>
    `  pipelines:\n    chained:\n      onFailure: stop\n      steps:\n        - operation: publishRefundOutcome\n          bindings:\n            subject: { operationId: { stageInput: /operationId } }\n            payload:\n              /operationId: { stageInput: /operationId }\n              /approved: { stageInput: /approved }\n${second}`
  const compileWith = async (name: string, second: string) =>
    (await compile(ShopBundle.copy(name).edit('payments/asyncapi/asyncapi.yaml', '  pipelines:\n', steps(second)).relock().doc('payments'))).diagnostics.map(
      (d) => [d.code, d.pointer],
    )

  it('an interaction with arguments after a publication is refused; a publication from context and literals only proceeds', async () => {
    expect(
      await compileWith('after-publication-interaction', '        - interaction: approveRefund\n          bindings: { subject: {}, payload: {} }\n'),
    ).toContainEqual(['PIPELINE_OUTPUT_UNSUPPORTED', '/x-nats-contract/pipelines/chained/steps/1'])
    const literal =
      '        - operation: publishRefundOutcome\n          bindings:\n            subject: { operationId: { literal: op0000000000000000000000000000000000000000000000000000000000000000 } }\n            payload:\n              /operationId: { context: operationId }\n              /approved: { literal: false }\n'
    const found = await compileWith('after-publication-literal', literal)
    expect(found.filter(([code]) => code === 'PIPELINE_OUTPUT_UNSUPPORTED')).toEqual([])
  })

  it('a transform after a publication is refused', async () => {
    const transform =
      "    reshape: { kind: transform, version: 1.0.0, inputSchema: '#/components/schemas/RefundOutcome', outputSchema: '#/components/schemas/RefundOutcome', description: Reshapes an outcome. }\n"
    const second = literalStep().replace(
      '        - operation: publishRefundOutcome\n',
      '        - operation: publishRefundOutcome\n          inputAdapter: reshape\n',
    )
    const bundle = ShopBundle.copy('after-publication-transform')
      .edit('payments/asyncapi/asyncapi.yaml', '  pipelines:\n', steps(second))
      .edit('payments/asyncapi/asyncapi.yaml', '    tally: {', `${transform}    tally: {`)
      .relock()
    expect((await compile(bundle.doc('payments'))).diagnostics.map((d) => [d.code, d.pointer])).toContainEqual([
      'PIPELINE_OUTPUT_UNSUPPORTED',
      '/x-nats-contract/pipelines/chained/steps/1/inputAdapter',
    ])
  })
})

describe('interaction steps take exactly their argument object (NATS_PIPELINE_SCHEMA)', () => {
  it("a later interaction step whose stage input is the previous step's aggregation output, not its arguments, is refused", async () => {
    const bundle = ShopBundle.copy('pipeline-interaction-input').edit(
      'payments/asyncapi/asyncapi.yaml',
      '        - interaction: approveRefund\n          bindings: { subject: {}, payload: {} }\n',
      '        - interaction: approveRefund\n          bindings: { subject: {}, payload: {} }\n        - interaction: approveRefund\n          bindings: { subject: {}, payload: {} }\n',
    )
    const found = (await compile(bundle.relock().doc('payments'))).diagnostics.map((d) => [d.code, d.pointer])
    expect(found).toContainEqual(['NATS_PIPELINE_SCHEMA', '/x-nats-contract/pipelines/announceRefund/steps/1'])
  })
})

describe('branch manifests are typed arrays of {branchId, peerId, input} (NATS_DISPATCH)', () => {
  const dispatch = 'dispatch: { mode: independent, branchKey: recipient, targetParameter: peerId }'
  const manifestAt = ['NATS_DISPATCH', '/x-nats-contract/interactions/approveRefund/dispatch/branchesInput']
  it('a manifest input that is not such an array is refused; a typed manifest passes; a branch input needs a manifest', async () => {
    const object = ShopBundle.copy('manifest-object').edit(
      'payments/asyncapi/asyncapi.yaml',
      dispatch,
      'dispatch: { mode: branches, branchKey: declared, branchesInput: refund, targetParameter: peerId }',
    )
    expect((await compile(object.relock().doc('payments'))).diagnostics.map((d) => [d.code, d.pointer])).toContainEqual(manifestAt)
    const typed = ShopBundle.copy('manifest-typed').withBranchManifest({
      Manifest:
        '{ type: array, items: { type: object, required: [branchId, peerId, input], properties: { branchId: { type: string }, peerId: { type: string }, input: {} } } }',
    })
    expect((await compile(typed.relock().doc('payments'))).diagnostics.map((d) => [d.code, d.pointer])).not.toContainEqual(manifestAt)
    const noManifest = ShopBundle.copy('branch-input-no-manifest').edit(
      'payments/asyncapi/asyncapi.yaml',
      '          /requestedBy: { context: principalId }',
      '          /requestedBy: { branch: input }',
    )
    expect((await compile(noManifest.relock().doc('payments'))).diagnostics.map((d) => [d.code, d.pointer])).toContainEqual([
      'NATS_DISPATCH',
      '/x-nats-contract/interactions/approveRefund/bindings/payload/~1requestedBy',
    ])
  })
})

describe('partial construction through a composed schema is not proven (NATS_BINDING_MISSING)', () => {
  const composed = (b: ShopBundle) =>
    b.edit(
      'payments/asyncapi/asyncapi.yaml',
      "          refund: { $ref: '#/components/schemas/RefundRequest' }",
      "          refund: { allOf: [{ $ref: '#/components/schemas/RefundRequest' }] }",
    )
  it('an object bound field by field through allOf is refused; bound whole it passes', async () => {
    const partial = composed(ShopBundle.copy('composed-partial')).edit(
      'payments/asyncapi/asyncapi.yaml',
      '          /refund: { input: refund }',
      '          /refund/paymentId: { literal: pay-1 }\n          /refund/amount: { literal: 10 }',
    )
    const found = (await compile(partial.relock().doc('payments'))).diagnostics.map((d) => [d.code, d.message])
    expect(found.some(([code, message]) => code === 'NATS_BINDING_MISSING' && String(message).includes('/refund is built field by field'))).toBe(true)
    const whole = (await compile(composed(ShopBundle.copy('composed-whole')).relock().doc('payments'))).diagnostics.map((d) => [d.code, d.message])
    expect(whole.some(([code, message]) => code === 'NATS_BINDING_MISSING' && String(message).includes('field by field'))).toBe(false)
  })
})
