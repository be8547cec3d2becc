/**
 * What the NATS profile forbids and the compiler used to accept (issue 30, "Accepted though the
 * profile forbids it"): per class, the attack as the issue writes it (code and pointer asserted) and
 * its passing twin.
 */
import { connect } from '@nats-io/transport-node'
import { JetStreamApiError, jetstreamManager } from '@nats-io/jetstream'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { enumerate, inDomain, type TokenType } from '../src/runtime/nats/tokens.js'
import { intersection } from '../src/formats/nats/languages.js'
import { filterAgainstStream } from '../src/runtime/nats/wildcards.js'
import { ShopBundle } from './helpers/nats-bundle.js'
import { NATS_SERVER, startNatsServer, type NatsServer } from './helpers/nats-server.js'

const ledger = readFileSync(join(import.meta.dirname, '../fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8')
const tmp = join(import.meta.dirname, '.tmp')
let written = 0

/** The ledger fixture with `edits` applied (each must apply), compiled. */
async function ledgerWith(...edits: Array<[from: string, to: string]>) {
  let text = ledger
  for (const [from, to] of edits) {
    if (!text.includes(from)) throw new Error(`edit did not apply: ${from}`)
    text = text.replace(from, to)
  }
  mkdirSync(tmp, { recursive: true })
  const file = join(tmp, `forbidden-${process.pid}-${written++}.asyncapi.yaml`)
  writeFileSync(file, text)
  try {
    return await compile(file)
  } finally {
    rmSync(file)
  }
}

type Result = Awaited<ReturnType<typeof compile>>
const found = (result: Result) => result.diagnostics.map((d) => ({ code: d.code, severity: d.severity, pointer: d.pointer }))
const error = (code: string, pointer: string) => ({ code, severity: 'error', pointer })

describe("a consumer's filter_subject is a valid subset of its stream's subjects (NATS_CONSUMER_OUTSIDE_STREAM, an error)", () => {
  it('a filter that only partly overlaps the stream subjects is refused (ledger.*.*.posted over ledger.eu.> and ledger.us.>)', async () => {
    const result = await ledgerWith(['filter_subject: ledger.>', 'filter_subject: ledger.*.*.posted'])
    expect(result.code).toBeUndefined()
    expect(found(result)).toEqual([error('NATS_CONSUMER_OUTSIDE_STREAM', '/x-nats-contract/consumers/auditor/config/filter_subject')])
    expect(result.diagnostics[0]!.message).toContain('10093')
  })

  it('a filter sharing no subject with its stream is refused: it could never receive a message', async () => {
    const result = await ledgerWith(['filter_subject: ledger.>', 'filter_subject: audit.>'])
    expect(result.code).toBeUndefined()
    expect(found(result)).toContainEqual(error('NATS_CONSUMER_OUTSIDE_STREAM', '/x-nats-contract/consumers/auditor/config/filter_subject'))
    expect(result.diagnostics.find((d) => d.code === 'NATS_CONSUMER_OUTSIDE_STREAM')!.message).toContain('never receive')
  })

  it('a filter containing the stream subjects, or within one, passes', async () => {
    expect(found(await ledgerWith())).toEqual([])
    expect(found(await ledgerWith(['filter_subject: ledger.>', 'filter_subject: ledger.eu.*.posted']))).toEqual([])
  })

  it("against an external stream read from its locked artifact too (shipping's consumer on PAYMENTS)", async () => {
    const b = ShopBundle.copy('consumer-external-stream')
      .edit('shipping/asyncapi/asyncapi.yaml', 'filter_subject: payments.eu.*.captured', 'filter_subject: payments.*.*.captured')
      .relock()
    const result = await compile(b.doc('shipping'))
    expect(result.code).toBeUndefined()
    expect(found(result)).toEqual([error('NATS_CONSUMER_OUTSIDE_STREAM', '/x-nats-contract/consumers/dispatch/config/filter_subject')])
    expect(found(await compile(ShopBundle.copy('consumer-external-stream-ok').doc('shipping')))).toEqual([])
  })
})

describe.skipIf(!NATS_SERVER)('the consumer filter rule gives the verdict nats-server gives (error 10093)', () => {
  let server: NatsServer
  beforeAll(async () => {
    server = await startNatsServer()
  }, 30_000)
  afterAll(async () => {
    await server?.stop()
  })

  const cases: Array<[subjects: string[], filter: string]> = [
    [['ledger.eu.>', 'ledger.us.>'], 'ledger.*.*.posted'],
    [['ledger.eu.>', 'ledger.us.>'], 'ledger.eu.*.posted'],
    [['ledger.eu.>', 'ledger.us.>'], 'ledger.>'],
    [['ledger.eu.>', 'ledger.us.>'], 'ledger.*.>'],
    [['ledger.eu.>', 'ledger.us.>'], 'audit.>'],
    [['a.*', 'b.*.>'], 'a.x'],
    [['a.*', 'b.*.>'], 'a.>'],
    [['a.*', 'b.*.>'], '*.x'],
    [['a.*', 'b.*.>'], 'a.*.c'],
    [['a.*', 'b.*.>'], 'b.x.y'],
    [['a.*', 'b.*.>'], 'b.>'],
    [['a.*', 'b.*.>'], '>'],
    [['a.b.c'], 'a.*.c'],
    [['a.b.c'], 'a.b'],
    [['a.*.c'], 'a.b.*'],
  ]

  it('accepted exactly when the rule finds the filter a valid subset', async () => {
    const nc = await connect({ servers: server.url })
    try {
      const jsm = await jetstreamManager(nc)
      const verdicts: Array<[string, string, boolean, boolean]> = []
      for (const [i, [subjects, filter]] of cases.entries()) {
        const name = `S${i}`
        await jsm.streams.add({ name, subjects })
        let accepted = true
        try {
          await jsm.consumers.add(name, { durable_name: `c${i}`, filter_subject: filter, ack_policy: 'explicit' as never })
        } catch (e) {
          expect(e).toBeInstanceOf(JetStreamApiError)
          expect((e as JetStreamApiError).code).toBe(10093)
          accepted = false
        }
        await jsm.streams.delete(name)
        verdicts.push([subjects.join(' '), filter, accepted, filterAgainstStream(filter, subjects) === 'valid'])
      }
      // Each case: the server's acceptance equals the rule's, and both kinds of verdict occur.
      expect(verdicts.map(([s, f, server]) => [s, f, server])).toEqual(verdicts.map(([s, f, , rule]) => [s, f, rule]))
      expect(new Set(verdicts.map(([, , server]) => server))).toEqual(new Set([true, false]))
    } finally {
      await nc.close()
    }
  }, 60_000)
})

describe('one stream or consumer owned by two contracts of a bundle (NATS_DUPLICATE_AUTHORITY)', () => {
  const payments = `    payments:
      authority: contract
      config:
        name: PAYMENTS
        subjects: [payments.eu.>, payments.us.>]
        retention: limits
        storage: file
        num_replicas: 3
        max_age: 86400000000000
        max_msgs: 1000000
        max_bytes: 1073741824
        discard: new
        duplicate_window: 120000000000
`
  it('shipping owning the PAYMENTS stream that payments owns is refused in both documents', async () => {
    const b = ShopBundle.copy('two-owners')
      .edit('shipping/asyncapi/asyncapi.yaml', / {4}payments: \{ authority: external, [^\n]+\n/, payments)
      .relock()
    const shipping = await compile(b.doc('shipping'))
    expect(shipping.code).toBeUndefined()
    expect(found(shipping)).toEqual([error('NATS_DUPLICATE_AUTHORITY', '/x-nats-contract/streams/payments')])
    expect(shipping.diagnostics[0]!.message).toContain('"payments"')
    const paymentsDoc = await compile(b.doc('payments'))
    expect(found(paymentsDoc)).toEqual([error('NATS_DUPLICATE_AUTHORITY', '/x-nats-contract/streams/payments')])
  })

  it('a durable consumer of one stream owned by two contracts is refused; the shop as shipped (the others external) passes', async () => {
    const b = ShopBundle.copy('two-consumer-owners')
      .edit(
        'payments/asyncapi/asyncapi.yaml',
        '  consumers:\n',
        '  consumers:\n    dispatchCopy:\n      stream: payments\n      authority: contract\n      config:\n        durable_name: shipping-dispatch\n        filter_subject: payments.eu.*.captured\n        ack_policy: explicit\n        deliver_policy: new\n        ack_wait: 60000000000\n        max_deliver: 10\n        max_ack_pending: 50\n        replay_policy: instant\n',
      )
      .relock()
    const result = await compile(b.doc('payments'))
    expect(found(result)).toEqual([error('NATS_DUPLICATE_AUTHORITY', '/x-nats-contract/consumers/dispatchCopy')])
    const shop = ShopBundle.copy('one-owner')
    for (const app of ['orders', 'payments', 'shipping'] as const) expect(found(await compile(shop.doc(app)))).toEqual([])
  })
})

describe('a channel with no address (a reply channel)', () => {
  it('a JetStream stream-ack publish on it is refused (NATS_STREAM_CAPTURE)', async () => {
    const result = await ledgerWith([
      "  postEntry:\n    action: send\n    channel: { $ref: '#/channels/entryPosted' }",
      "  postEntry:\n    action: send\n    channel: { $ref: '#/channels/balanceReply' }",
    ])
    expect(result.code).toBeUndefined()
    expect(found(result)).toEqual([error('NATS_STREAM_CAPTURE', '/x-nats-contract/operations/postEntry/publish/stream')])
  })

  it('a JetStream consumer on it is refused (NATS_CONSUMER_FILTER)', async () => {
    const result = await ledgerWith([
      "  onEntryPosted:\n    action: receive\n    channel: { $ref: '#/channels/entryPosted' }",
      "  onEntryPosted:\n    action: receive\n    channel: { $ref: '#/channels/balanceReply' }",
    ])
    expect(result.code).toBeUndefined()
    expect(found(result)).toEqual([error('NATS_CONSUMER_FILTER', '/x-nats-contract/operations/onEntryPosted/subscribe/consumer')])
  })

  it('profile parameters on it are compared with its (absent) placeholders (NATS_PARAMETERS_MISMATCH); none pass', async () => {
    const profiled = '    balanceQuery:\n      parameters:\n        account: account\n'
    const result = await ledgerWith([profiled, `${profiled}    balanceReply:\n      parameters:\n        account: account\n`])
    expect(result.code).toBeUndefined()
    expect(found(result)).toEqual([error('NATS_PARAMETERS_MISMATCH', '/x-nats-contract/channels/balanceReply/parameters')])
    expect(found(await ledgerWith([profiled, `${profiled}    balanceReply:\n      parameters: {}\n`]))).toEqual([])
  })
})

describe('a filter repeating a placeholder stands for one token in all its positions (NATS_FILTER_DISJOINT)', () => {
  const probe = (a: string, b: string, c: string, filter: string): Array<[string, string]> => [
    [
      '  tokenTypes:\n',
      `  tokenTypes:\n    pa: { kind: enum, values: [${a}] }\n    pb: { kind: enum, values: [${b}] }\n    pc: { kind: enum, values: [${c}] }\n`,
    ],
    ['  channels:\n', `  channels:\n    probe:\n      parameters: { a: pa, b: pb, c: pc }\n      filters:\n        same: '${filter}'\n`],
    ['channels:\n  entryPosted:\n', 'channels:\n  probe:\n    address: probe.{a}.{b}.{c}\n    parameters: { a: {}, b: {}, c: {} }\n  entryPosted:\n'],
  ]

  it('probe.{a}.{a}.{a} against probe.{a}.{b}.{c}, whose positions meet {a} pairwise but share no token, is refused', async () => {
    const result = await ledgerWith(...probe('x, y', 'y, z', 'x, z', 'probe.{a}.{a}.{a}'))
    expect(result.code).toBeUndefined()
    expect(found(result)).toEqual([error('NATS_FILTER_DISJOINT', '/x-nats-contract/channels/probe/filters/same')])
  })

  it('the same filter passes when one token fits every position; distinct placeholders are still independent', async () => {
    expect(found(await ledgerWith(...probe('x, y', 'y, z', 'x, y, z', 'probe.{a}.{a}.{a}')))).toEqual([])
    expect(found(await ledgerWith(...probe('x, y', 'y, z', 'x, z', 'probe.{a}.{b}.{c}')))).toEqual([])
  })

  it('the intersection of two token types holds exactly the tokens both hold (small random types, every member enumerated)', () => {
    let seed = 7
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n)
    const alphabets = ['hex', 'lower', 'ascii'] as const
    const prefixes = ['', 'a', 'ab', 'a1', 'b']
    const randomType = (): TokenType =>
      next(4) === 0
        ? { kind: 'enum', values: [...new Set(['a', 'ab', 'a1', 'b', 'abc', 'A', 'a-'].filter(() => next(2) === 0))].concat('zz') }
        : (() => {
            const prefix = prefixes[next(prefixes.length)]!
            const minLength = prefix.length + next(2)
            return {
              kind: 'token',
              alphabet: alphabets[next(3)]!,
              first: next(2) ? 'letter' : 'any',
              minLength: Math.max(1, minLength),
              maxLength: Math.max(1, minLength) + next(2),
              prefix,
            }
          })()
    let compared = 0
    for (let i = 0; i < 300; i++) {
      const a = randomType()
      const b = randomType()
      const both = intersection(a, b)
      for (const v of [...(enumerate(a, 100_000) ?? []), ...(enumerate(b, 100_000) ?? [])]) {
        expect([v, inDomain(a, v) && inDomain(b, v)]).toEqual([v, both !== undefined && inDomain(both, v)])
        compared++
      }
      for (const v of both ? (enumerate(both, 100_000) ?? []) : []) expect([v, inDomain(a, v), inDomain(b, v)]).toEqual([v, true, true])
    }
    expect(compared).toBeGreaterThan(1000)
  })
})

describe('pipeline operation steps: typed bindings (NATS_PIPELINE_SCHEMA, NATS_PIPELINE_BINDING)', () => {
  const doc = 'payments/asyncapi/asyncapi.yaml'
  const step = '/x-nats-contract/pipelines/announceRefund/steps/1/bindings'
  const pipeline = (edit: (b: ShopBundle) => ShopBundle) => compile(edit(ShopBundle.copy('pipeline-types')).relock().doc('payments'))

  it('nowMs (an integer context field) bound to a boolean payload field is refused', async () => {
    const result = await pipeline((b) => b.edit(doc, '/approved: { stageInput: /approved }', '/approved: { context: nowMs }'))
    expect(result.code).toBeUndefined()
    expect(found(result)).toEqual([error('NATS_PIPELINE_SCHEMA', `${step}/payload/~1approved`)])
  })

  it('an integer context field bound to a subject parameter is refused: tokens are strings', async () => {
    const result = await pipeline((b) => b.edit(doc, 'subject: { operationId: { stageInput: /operationId } }', 'subject: { operationId: { context: nowMs } }'))
    expect(result.code).toBeUndefined()
    expect(found(result)).toEqual([error('NATS_PIPELINE_BINDING', `${step}/subject/operationId`)])
  })

  it('a boolean stage-input value bound to a subject parameter is refused', async () => {
    const result = await pipeline((b) =>
      b.edit(doc, 'subject: { operationId: { stageInput: /operationId } }', 'subject: { operationId: { stageInput: /approved } }'),
    )
    expect(result.code).toBeUndefined()
    expect(found(result)).toEqual([error('NATS_PIPELINE_BINDING', `${step}/subject/operationId`)])
  })

  it('a destination the target schema forbids (additionalProperties: false) is refused', async () => {
    const result = await pipeline((b) =>
      b
        .edit(
          doc,
          '      properties: { operationId: { type: string }, approved: { type: boolean } }',
          '      additionalProperties: false\n      properties: { operationId: { type: string }, approved: { type: boolean } }',
        )
        .edit(
          doc,
          '              /approved: { stageInput: /approved }\n',
          '              /approved: { stageInput: /approved }\n              /note: { literal: late }\n',
        ),
    )
    expect(result.code).toBeUndefined()
    expect(found(result)).toEqual([error('NATS_PIPELINE_BINDING', `${step}/payload/~1note`)])
  })

  it('a string context field bound to an unconstrained string field and to a subject parameter passes, as does the shop as shipped', async () => {
    expect(found(await compile(ShopBundle.copy('pipeline-ok').doc('payments')))).toEqual([])
    const result = await pipeline((b) =>
      b
        .edit(doc, 'subject: { operationId: { stageInput: /operationId } }', 'subject: { operationId: { context: operationId } }')
        .edit(doc, '/operationId: { stageInput: /operationId }', '/operationId: { context: operationId }'),
    )
    expect(found(result)).toEqual([])
  })

  it('the same forbidden destination in an interaction with runtime-schema-check is a known contradiction (NATS_BINDING_TYPE)', async () => {
    const b = ShopBundle.copy('interaction-forbidden').withRuntimeSchemaCheck()
    const required = '        required: [operationId, branchId, attempt, fence, peerId, requestedBy, refund]\n'
    b.edit(doc, required, `${required}        additionalProperties: false\n`)
      .edit(doc, '          /requestedBy: { context: principalId }\n', '          /requestedBy: { context: principalId }\n          /note: { literal: late }\n')
      .relock()
    const result = await compile(b.doc('payments'))
    expect(result.code).toBeUndefined()
    expect(found(result)).toEqual([error('NATS_BINDING_TYPE', '/x-nats-contract/interactions/approveRefund/bindings/payload/~1note')])
  })
})

describe('a payload in a schema format the project cannot read is refused (NATS_SCHEMA_FORMAT)', () => {
  const query = '        payload: { type: object, properties: { account: { type: string } } }'
  it('an Avro payload (application/vnd.apache.avro) fails the build, naming the format', async () => {
    const result = await ledgerWith([
      query,
      "        payload:\n          schemaFormat: 'application/vnd.apache.avro;version=1.9.0'\n          schema: { type: record, name: Query, fields: [{ name: account, type: string }] }",
    ])
    expect(result.code).toBeUndefined()
    expect(found(result)).toEqual([error('NATS_SCHEMA_FORMAT', '/channels/balanceQuery/messages/query/payload/schemaFormat')])
    expect(result.diagnostics[0]!.message).toContain('application/vnd.apache.avro;version=1.9.0')
  })

  it('in a component message reached by reference too, reported where the message is written', async () => {
    const result = await ledgerWith([
      '    EntryPosted:\n      payload:\n',
      "    EntryPosted:\n      headers:\n        schemaFormat: application/vnd.google.protobuf;version=3\n        schema: 'message H { string id = 1; }'\n      payload:\n",
    ])
    expect(result.code).toBeUndefined()
    expect(found(result)).toEqual([error('NATS_SCHEMA_FORMAT', '/components/messages/EntryPosted/headers/schemaFormat')])
  })

  it('JSON Schema draft-07 and AsyncAPI schemas in the multi-format form pass this rule', async () => {
    // A quoted parameter value is the same value (RFC 9110, section 5.6.6; an outside pass found it refused).
    for (const format of [
      'application/schema+json;version=draft-07',
      'application/vnd.aai.asyncapi+yaml;version=3.1.0',
      'application/schema+json; version="draft-07"',
      'application/vnd.aai.asyncapi+yaml;version="3.1.0"',
    ])
      expect(
        found(
          await ledgerWith([
            query,
            `        payload:\n          schemaFormat: '${format}'\n          schema: { type: object, properties: { account: { type: string } } }`,
          ]),
        ).filter((d) => d.code === 'NATS_SCHEMA_FORMAT'),
      ).toEqual([])
  })
})
