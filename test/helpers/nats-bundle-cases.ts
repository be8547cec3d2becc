/**
 * The shop bundle (fixtures/nats/shop) broken in one place, by rule family: each row is a fixture
 * row of the shared runner (rule-fixtures.ts), `[name, code, pointer, line, column]`, then the file
 * the diagnostic points into (relative to the bundle), the document compiled and the edit. The
 * rule tests of each family run its table; test/nats-rules.test.ts holds every rule to a row.
 */
import { renameSync, rmSync, symlinkSync } from 'node:fs'
import { ShopBundle } from './nats-bundle.js'

export type BundleCase = readonly [
  name: string,
  code: string,
  pointer: string,
  line: number,
  column: number,
  file: string,
  app: 'orders' | 'payments' | 'shipping',
  mutate: (b: ShopBundle) => void,
]

/** A row's contract: a fresh copy of the shop bundle with the row's edit, and the file its diagnostic points into. */
export function shopCase([, code, , , , file, app, mutate]: BundleCase): { compile: string; file: string } {
  const bundle = ShopBundle.copy(code.toLowerCase())
  mutate(bundle)
  return { compile: bundle.doc(app), file: bundle.path(file) }
}

/** Reading the bundle (the lock, imports, locked files), identities and artifacts, and what a locked file contributes to the standard part. */
export const readingCases: readonly BundleCase[] = [
  [
    'a locked file that changed',
    'NATS_LOCK_DIGEST',
    '/entries/0/sha256',
    5,
    17,
    'bundle.lock.json',
    'payments',
    (b) => b.edit('native/streams.json', '"ORDERS"', '"ORDERZ"'),
  ],
  [
    "an import whose digest is not the lock's",
    'NATS_LOCK_MISMATCH',
    '/x-nats-contract/imports/orders/path',
    10,
    55,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.relock().edit('payments/asyncapi/asyncapi.yaml', /(path: orders\/asyncapi\/asyncapi\.yaml, sha256: )\w+/, '$1' + 'a'.repeat(64)),
  ],
  [
    'an artifact the lock does not list',
    'NATS_UNLOCKED_FILE',
    '/x-nats-contract/streams/orders/artifact/path',
    50,
    54,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.writeLock({ entries: b.lock().entries.filter((e) => e.path !== 'native/streams.json') }),
  ],
  [
    'a lock path with ..',
    'NATS_LOCK_PATH',
    '/entries/5/path',
    24,
    15,
    'bundle.lock.json',
    'orders',
    (b) => b.writeLock({ entries: [...b.lock().entries, { path: '../outside.json', sha256: 'a'.repeat(64) }] }),
  ],
  [
    'a lock path through a symlink',
    'NATS_LOCK_PATH',
    '/x-nats-contract/streams/orders/artifact/path',
    50,
    54,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => {
      renameSync(b.path('native'), b.path('native-real'))
      symlinkSync(b.path('native-real'), b.path('native'))
    },
  ],
  [
    // An outside pass: the document compiled through a link was accepted, its siblings refused the bundle.
    "the compiled document's own folder a link out of the bundle",
    'NATS_LOCK_PATH',
    '/entries/2/path',
    12,
    15,
    'bundle.lock.json',
    'payments',
    (b) => {
      const outside = `${b.root}-outside`
      rmSync(outside, { recursive: true, force: true })
      renameSync(b.path('payments/asyncapi'), outside)
      symlinkSync(outside, b.path('payments/asyncapi'))
    },
  ],
  [
    'an absolute lock path',
    'NATS_LOCK_PATH',
    '/entries/5/path',
    24,
    15,
    'bundle.lock.json',
    'orders',
    (b) => b.writeLock({ entries: [...b.lock().entries, { path: '/etc/passwd', sha256: 'a'.repeat(64) }] }),
  ],
  [
    'a lock listing itself',
    'NATS_LOCK_SELF',
    '/entries/5/path',
    24,
    15,
    'bundle.lock.json',
    'orders',
    (b) => b.writeLock({ entries: [...b.lock().entries, { path: 'bundle.lock.json', sha256: 'a'.repeat(64) }] }),
  ],
  [
    'an uppercase digest',
    'NATS_LOCK_DIGEST_FORM',
    '/entries/0/sha256',
    5,
    17,
    'bundle.lock.json',
    'orders',
    (b) => b.writeLock({ entries: b.lock().entries.map((e, i) => (i === 0 ? { ...e, sha256: e.sha256.toUpperCase() } : e)) }),
  ],
  ['a lock that is not a lock', 'NATS_LOCK_INVALID', '', 1, 1, 'bundle.lock.json', 'orders', (b) => b.write('bundle.lock.json', '[]')],
  [
    'a locked file that is gone',
    'NATS_LOCKED_FILE_MISSING',
    '/x-nats-contract/streams/orders/artifact/path',
    50,
    54,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => rmSync(b.path('native/streams.json')),
  ],
  [
    'an import naming the wrong version',
    'NATS_IMPORT_MISMATCH',
    '/x-nats-contract/imports/orders',
    10,
    13,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'contract: orders, version: 1.2.0', 'contract: orders, version: 1.3.0').relock(),
  ],
  [
    'a standard parameter that is not in the address (here: a reply channel without one)',
    'NATS_ASYNCAPI_PARAMETERS',
    '/channels/orderLookupReply/parameters/x',
    51,
    22,
    'orders/asyncapi/asyncapi.yaml',
    'orders',
    (b) => b.edit('orders/asyncapi/asyncapi.yaml', '  orderLookupReply:\n', '  orderLookupReply:\n    parameters: { x: {} }\n').relock(),
  ],
  [
    'a channel id with a query delimiter',
    'NATS_ASYNCAPI_CHANNEL_KEY',
    '/channels/orderLookupReply?v=2',
    51,
    5,
    'orders/asyncapi/asyncapi.yaml',
    'orders',
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
    '/x-nats-contract/imports/orders',
    10,
    13,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
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
    '/x-nats-contract/contract',
    8,
    13,
    'orders/asyncapi/asyncapi.yaml',
    'orders',
    (b) =>
      b
        .write('orders-copy/asyncapi/asyncapi.yaml', b.read('orders/asyncapi/asyncapi.yaml').replace('Places orders', 'Places more orders'))
        .relock(['orders-copy/asyncapi/asyncapi.yaml']),
  ],
  [
    'a stream artifact that is YAML, not a JSON document',
    'NATS_ARTIFACT_FORMAT',
    '/x-nats-contract/streams/orders/artifact/path',
    50,
    54,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
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
    '/x-nats-contract/contract',
    8,
    13,
    'orders/asyncapi/asyncapi.yaml',
    'shipping',
    (b) =>
      b
        .write('orders-copy/asyncapi/asyncapi.yaml', b.read('orders/asyncapi/asyncapi.yaml').replace('Places orders', 'Places more orders'))
        .relock(['orders-copy/asyncapi/asyncapi.yaml']),
  ],
  [
    'a lock entry with a member besides path and sha256',
    'NATS_LOCK_INVALID',
    '/entries/0/size',
    6,
    15,
    'bundle.lock.json',
    'orders',
    (b) => b.writeLock({ entries: b.lock().entries.map((e, i) => (i === 0 ? { ...e, size: 1 } : e)) }),
  ],
  [
    'an artifact pointer that selects nothing',
    'NATS_ARTIFACT_POINTER',
    '/x-nats-contract/streams/orders/pointer',
    50,
    160,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'pointer: /streams/0', 'pointer: /streams/7').relock(),
  ],
  [
    'a NATS credentials file in the lock (credentials are never bundled)',
    'NATS_BUNDLED_CREDENTIAL',
    '/entries/5/path',
    24,
    15,
    'bundle.lock.json',
    'payments',
    (b) =>
      b.write('native/payments.creds', '-----BEGIN NATS USER JWT-----\neyJ0eXAi.fake.jwt\n------END NATS USER JWT------\n').relock(['native/payments.creds']),
  ],
]

/** Links between contracts and the overlap of their channels. */
export const linkCases: readonly BundleCase[] = [
  [
    'a link to an operation the import lacks',
    'NATS_LINK_UNRESOLVED',
    '/x-nats-contract/links/0/send',
    12,
    13,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'operation: placeOrder', 'operation: placeOrders').relock(),
  ],
  [
    'a link from a receive',
    'NATS_LINK_DIRECTION',
    '/x-nats-contract/links/0/send',
    12,
    13,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'operation: placeOrder', 'operation: serveOrder').relock(),
  ],
  [
    'a link between different subject languages',
    'NATS_LINK_SUBJECTS',
    '/x-nats-contract/links/0',
    12,
    7,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'region: { kind: enum, values: [eu, us] }', 'region: { kind: enum, values: [eu, us, ap] }').relock(),
  ],
  [
    'a link between different payloads',
    'NATS_LINK_SCHEMA',
    '/x-nats-contract/links/0',
    12,
    7,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'total: { type: number }', 'total: { type: integer }').relock(),
  ],
  [
    'an unlinked overlap between two other contracts, found while compiling a third',
    'NATS_CONTRACT_OVERLAP',
    '/channels/orderPlaced/address',
    154,
    14,
    'payments/asyncapi/asyncapi.yaml',
    'shipping',
    (b) =>
      b
        .edit('payments/asyncapi/asyncapi.yaml', / {2}links:\n {4}- send: \{ contract: orders, operation: placeOrder \}\n {6}receive: onOrderPlaced\n/, '')
        .relock(),
  ],
  [
    'an unlinked overlap with an importing contract, found in the imported one',
    'NATS_CONTRACT_OVERLAP',
    '/channels/orderPlaced/address',
    43,
    14,
    'orders/asyncapi/asyncapi.yaml',
    'orders',
    (b) =>
      b
        .edit('payments/asyncapi/asyncapi.yaml', / {2}links:\n {4}- send: \{ contract: orders, operation: placeOrder \}\n {6}receive: onOrderPlaced\n/, '')
        .relock(),
  ],
  [
    'an unlinked overlap with an imported contract',
    'NATS_CONTRACT_OVERLAP',
    '/channels/orderPlaced/address',
    154,
    14,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) =>
      b
        .edit('payments/asyncapi/asyncapi.yaml', / {2}links:\n {4}- send: \{ contract: orders, operation: placeOrder \}\n {6}receive: onOrderPlaced\n/, '')
        .relock(),
  ],
]

/** Adapters, interactions, their bindings, audience, dispatch, delivery, correlation, completion and cancellation. */
export const interactionCases: readonly BundleCase[] = [
  [
    'runtime-schema-check on a payload whose reference into a locked file names nothing',
    'NATS_SCHEMA_CHECK_EXTERNAL',
    '/x-nats-contract/interactions/approveRefund/capabilities',
    86,
    21,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
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
    '/x-nats-contract/interactions/approveRefund/completion/cancelResultOperation',
    134,
    32,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
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
    "an interaction's result operation carrying a message with a headers schema (the executor checks payloads only)",
    'NATS_INTERACTION_HEADERS',
    '/x-nats-contract/interactions/approveRefund/resultOperation',
    86,
    24,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) =>
      b
        .edit(
          'payments/asyncapi/asyncapi.yaml',
          "    RefundBallot:\n      payload: { $ref: '#/components/schemas/RefundBallot' }",
          "    RefundBallot:\n      headers: { type: object, required: [traceId] }\n      payload: { $ref: '#/components/schemas/RefundBallot' }",
        )
        .relock(),
  ],
  [
    'an adapter of an unknown kind',
    'NATS_ADAPTER_KIND',
    '/x-nats-contract/adapters/tally/kind',
    81,
    20,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'tally: { kind: aggregation', 'tally: { kind: counting').relock(),
  ],
  [
    'an adapter without its description (adapters are the five members {kind, version, inputSchema, outputSchema, description})',
    'NATS_PROFILE_SHAPE',
    '/x-nats-contract/adapters/tally/description',
    81,
    12,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', ', description: Counts ballots into a refund outcome.', '').relock(),
  ],
  [
    'a version range',
    'NATS_ADAPTER_VERSION',
    '/x-nats-contract/adapters/tally/version',
    81,
    42,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'version: 1.1.0', 'version: ^1.1').relock(),
  ],
  [
    'a schema pointer that resolves nowhere',
    'NATS_SCHEMA_POINTER',
    '/x-nats-contract/adapters/tally/outputSchema',
    81,
    108,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
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
    '/x-nats-contract/interactions/approveRefund/correlation/verifier',
    121,
    19,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'verifier: ballotVerifier', 'verifier: tally').relock(),
  ],
  [
    'an unknown context field',
    'NATS_CONTEXT_FIELD',
    '/x-nats-contract/interactions/approveRefund/bindings/payload/~1requestedBy/context',
    101,
    36,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', '{ context: principalId }', '{ context: userName }').relock(),
  ],
  [
    'a request operation that receives',
    'NATS_INTERACTION_OPERATION',
    '/x-nats-contract/interactions/approveRefund/requestOperation',
    85,
    25,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'requestOperation: requestRefundVote', 'requestOperation: onRefundBallot').relock(),
  ],
  [
    'dispatch-only work that expects completion',
    'NATS_INTERACTION_SHAPE',
    '/x-nats-contract/interactions/approveRefund/completion/mode',
    122,
    15,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', '      resultOperation: onRefundBallot\n', '').relock(),
  ],
  [
    'an input with both tokenType and schema',
    'NATS_INPUT_FORM',
    '/x-nats-contract/interactions/approveRefund/inputs/group',
    89,
    16,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
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
    '/x-nats-contract/interactions/approveRefund/inputs/group',
    89,
    16,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) =>
      b.edit('payments/asyncapi/asyncapi.yaml', 'group: { source: argument, tokenType: groupId }', 'group: { source: generated, tokenType: groupId }').relock(),
  ],
  [
    'a source naming two things',
    'NATS_BINDING_SOURCE',
    '/x-nats-contract/interactions/approveRefund/bindings/payload/~1peerId',
    100,
    20,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', '/peerId: { branch: peerId }', '/peerId: { branch: peerId, literal: x }').relock(),
  ],
  [
    'overlapping destinations',
    'NATS_BINDING_OVERLAP',
    '/x-nats-contract/interactions/approveRefund/bindings/payload/~1refund~1amount',
    103,
    27,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) =>
      b.edit('payments/asyncapi/asyncapi.yaml', '/refund: { input: refund }', '/refund: { input: refund }\n          /refund/amount: { literal: 1 }').relock(),
  ],
  [
    'an unbound required field',
    'NATS_BINDING_MISSING',
    '/x-nats-contract/interactions/approveRefund/bindings/payload',
    96,
    11,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', '          /requestedBy: { context: principalId }\n', '').relock(),
  ],
  [
    'correlation metadata from business data',
    'NATS_BINDING_CORRELATION',
    '/x-nats-contract/interactions/approveRefund/bindings/payload/~1branchId',
    97,
    22,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', '/branchId: { branch: id }', '/branchId: { context: scopeId }').relock(),
  ],
  [
    'a string bound to an integer',
    'NATS_BINDING_TYPE',
    '/x-nats-contract/interactions/approveRefund/bindings/payload/~1attempt',
    98,
    21,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', '/attempt: { branch: attempt }', '/attempt: { context: principalId }').relock(),
  ],
  [
    'an input token type wider than the subject domain',
    'NATS_BINDING_TYPE',
    '/x-nats-contract/interactions/approveRefund/bindings/subject/peerId',
    94,
    19,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
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
    '/x-nats-contract/interactions/approveRefund/bindings/payload/~1refund',
    102,
    20,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
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
    '/x-nats-contract/interactions/approveRefund/audience/lateJoiners',
    111,
    22,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'lateJoiners: exclude', 'lateJoiners: include').relock(),
  ],
  [
    'offline peers without durable delivery',
    'NATS_OFFLINE_DELIVERY',
    '/x-nats-contract/interactions/approveRefund/audience/offline',
    110,
    18,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'offline: exclude', 'offline: include').relock(),
  ],
  [
    'one-eligible without a selector',
    'NATS_DISPATCH',
    '/x-nats-contract/interactions/assignCourier/dispatch/selector',
    114,
    17,
    'shipping/asyncapi/asyncapi.yaml',
    'shipping',
    (b) => b.edit('shipping/asyncapi/asyncapi.yaml', 'selector: courierSelector, ', '').relock(),
  ],
  [
    'memory execution with retries',
    'NATS_DELIVERY',
    '/x-nats-contract/interactions/approveRefund/delivery',
    114,
    17,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'maxAttempts: 1, retryBackoffMs: 0', 'maxAttempts: 1, retryBackoffMs: 500').relock(),
  ],
  [
    'renewal at half the lease',
    'NATS_OWNERSHIP',
    '/x-nats-contract/interactions/assignCourier/delivery/ownership/renewEveryMs',
    125,
    75,
    'shipping/asyncapi/asyncapi.yaml',
    'shipping',
    (b) => b.edit('shipping/asyncapi/asyncapi.yaml', 'renewEveryMs: 10000', 'renewEveryMs: 15000').relock(),
  ],
  [
    'a stream whose retention is shorter than the deadline',
    'NATS_DURABLE_RESOURCES',
    '/x-nats-contract/interactions/assignCourier/requestOperation',
    87,
    25,
    'shipping/asyncapi/asyncapi.yaml',
    'shipping',
    (b) => b.edit('shipping/asyncapi/asyncapi.yaml', 'duplicate_window: 900000000000', 'duplicate_window: 120000000000').relock(),
  ],
  [
    'correlation through a header',
    'NATS_CORRELATION',
    '/x-nats-contract/interactions/approveRefund/correlation/fence',
    120,
    16,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', "fence: '$message.payload#/fence'", "fence: '$message.header#/fence'").relock(),
  ],
  [
    'a success predicate that coerces',
    'NATS_COMPLETION',
    '/x-nats-contract/interactions/approveRefund/completion/success',
    125,
    18,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'equals: true }', "equals: 'yes' }").relock(),
  ],
  [
    'a quorum with both count and fraction',
    'NATS_QUORUM',
    '/x-nats-contract/interactions/approveRefund/completion',
    123,
    9,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) =>
      b
        .edit('payments/asyncapi/asyncapi.yaml', 'fraction: { numerator: 2, denominator: 3 }', 'fraction: { numerator: 2, denominator: 3 }\n        count: 2')
        .relock(),
  ],
  [
    'a quorum count one peer can never meet',
    'NATS_QUORUM',
    '/x-nats-contract/interactions/assignCourier/completion/count',
    135,
    16,
    'shipping/asyncapi/asyncapi.yaml',
    'shipping',
    (b) => b.edit('shipping/asyncapi/asyncapi.yaml', '        mode: first-success\n', '        mode: quorum\n        count: 2\n').relock(),
  ],
  [
    'cooperative cancellation without a timeout',
    'NATS_CANCELLATION',
    '/x-nats-contract/interactions/approveRefund/completion/cancelTimeoutMs',
    135,
    26,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', 'cancelTimeoutMs: 5000', 'cancelTimeoutMs: 0').relock(),
  ],
]

/** Pipelines and workflows. */
export const pipelineCases: readonly BundleCase[] = [
  [
    'a step with both interaction and operation',
    'NATS_PIPELINE_STEP',
    '/x-nats-contract/pipelines/announceRefund/steps/0',
    141,
    11,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
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
    '/x-nats-contract/pipelines/announceRefund/steps/0/interaction',
    141,
    24,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', '        - interaction: approveRefund\n', '        - interaction: announceRefund\n').relock(),
  ],
  [
    'an inputAdapter on the first step',
    'NATS_PIPELINE_ADAPTER',
    '/x-nats-contract/pipelines/announceRefund/steps/0/inputAdapter',
    142,
    25,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
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
    '/x-nats-contract/pipelines/announceRefund/steps/0/bindings',
    142,
    21,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) =>
      b
        .edit('payments/asyncapi/asyncapi.yaml', 'bindings: { subject: {}, payload: {} }', 'bindings: { subject: {}, payload: { /x: { literal: 1 } } }')
        .relock(),
  ],
  [
    'a later step with no typed input',
    'PIPELINE_OUTPUT_UNSUPPORTED',
    '/x-nats-contract/pipelines/announceRefund/steps/1/bindings',
    144,
    13,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
    (b) => b.edit('payments/asyncapi/asyncapi.yaml', '      aggregation: { adapter: tally }\n', '').relock(),
  ],
  [
    'adjacent schemas that differ',
    'NATS_PIPELINE_SCHEMA',
    '/x-nats-contract/pipelines/announceRefund/steps/1/bindings/payload/~1approved',
    148,
    26,
    'payments/asyncapi/asyncapi.yaml',
    'payments',
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
    '/document/dsl',
    2,
    8,
    'payments/workflows/refund.yaml',
    'payments',
    (b) => b.edit('payments/workflows/refund.yaml', "dsl: '1.0.4'", "dsl: '1.0.0'").relock(),
  ],
  [
    'a workflow task that invents a native quorum primitive',
    'NATS_WORKFLOW',
    '/do/0/approve/quorum',
    12,
    15,
    'payments/workflows/refund.yaml',
    'payments',
    (b) => b.edit('payments/workflows/refund.yaml', '      call: approveRefund\n', '      quorum: { of: 3, need: 2 }\n').relock(),
  ],
  [
    'a workflow document without its name and tasks',
    'NATS_WORKFLOW',
    '/document/name',
    2,
    3,
    'payments/workflows/refund.yaml',
    'payments',
    (b) => b.edit('payments/workflows/refund.yaml', '  name: refund-flow\n', '').relock(),
  ],
]
