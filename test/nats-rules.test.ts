/**
 * The NATS profile rules on single documents: a failing fixture per rule (fixtures/nats/invalid,
 * the shared runner of helpers/rule-fixtures.ts), the passing documents, and every rule and reading
 * problem held to a row here or in a family's table (helpers/nats-bundle-cases.ts, run by
 * nats-rules-<family>.test.ts).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile, inspect } from '../src/index.js'
import { gateRules, loadCodes, natsRules } from '../src/formats/nats/rules/index.js'
import { ShopBundle } from './helpers/nats-bundle.js'
import { interactionCases, linkCases, pipelineCases, readingCases } from './helpers/nats-bundle-cases.js'
import { describeFixtureTable, expectEveryCodeCovered, type FixtureRow } from './helpers/rule-fixtures.js'
import { loadModule } from './helpers/load-module.js'
import { natsChannelDocument } from './helpers/nats-mini.js'

const fixtures = join(import.meta.dirname, '../fixtures/nats')

/** fixtures/nats/invalid/<name>.asyncapi.yaml (made by make-invalid.py from valid/ledger.asyncapi.yaml). */
const single: FixtureRow[] = [
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
  ['header-reply-address', 'NATS_UNSUPPORTED', '/components/replyAddresses/viaHeader/location', 104, 17],
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
  ['yaml-non-string-key', 'YAML_NON_STRING_KEY', '/info/x-notes/42', 5, 11],
  ['yaml-alias-limit', 'YAML_ALIAS_LIMIT', '/x-anchors/a16', 119, 8],
  ['yaml-syntax', 'YAML_SYNTAX', '', 4, 3],
  ['schema-format', 'NATS_SCHEMA_FORMAT', '/channels/balanceQuery/messages/query/payload/schemaFormat', 82, 25],
  ['headers-not-object', 'NATS_HEADERS_NOT_OBJECT', '/channels/balanceQuery/messages/query/headers', 82, 18],
  ['headers-unsendable', 'NATS_HEADERS_UNSENDABLE', '/channels/balanceQuery/messages/query/headers/properties/retry', 82, 74],
  // An unclosed class: no regular expression, so nothing can check it.
  ['pattern-invalid', 'NATS_PATTERN_INVALID', '/components/messages/EntryPosted/payload/properties/entryId/pattern', 108, 45],
]

/** Legal but probably not meant: a warning at its pointer, and the module is still generated. */
const warned: FixtureRow[] = [
  ['schema-cycle', 'NATS_SCHEMA_CYCLE', '/components/schemas/Link/anyOf/0/$ref', 115, 19],
  // A backreference: not proven linear, so it runs under a step budget (warned), and the module is generated.
  ['pattern-budgeted', 'NATS_PATTERN_BUDGETED', '/components/messages/EntryPosted/payload/properties/entryId/pattern', 108, 45],
  // .NET's `(?n)`: not ECMA-262 (a SHOULD), read as its options on the rest (explicit capture changes no match).
  ['pattern-inline-options', 'NATS_PATTERN_DIALECT', '/components/messages/EntryPosted/payload/properties/entryId/pattern', 108, 45],
]

describe('NATS_PATTERN_BUDGETED without the word in the text', () => {
  it('still finds a pattern whose key is written with an escape (the walk is skipped only when no escape could spell it)', async () => {
    const text = readFileSync(join(fixtures, 'invalid', 'pattern-budgeted.asyncapi.yaml'), 'utf8').replace('pattern:', '"p\\x61ttern":')
    expect(text).not.toContain('pattern')
    const dir = join(import.meta.dirname, '.work-pattern-escape')
    mkdirSync(dir, { recursive: true })
    try {
      const file = join(dir, 'escaped.asyncapi.yaml')
      writeFileSync(file, text)
      const found = (await compile(file)).diagnostics.map((d) => [d.code, d.pointer])
      expect(found).toContainEqual(['NATS_PATTERN_BUDGETED', '/components/messages/EntryPosted/payload/properties/entryId/pattern'])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('NATS_HEADERS_NOT_OBJECT reads a headers schema as the map headers always are', () => {
  it('refuses a type that excludes object, accepts no type, object, or a type list naming object', async () => {
    const text = readFileSync(join(fixtures, 'invalid', 'headers-not-object.asyncapi.yaml'), 'utf8')
    expect(text).toContain('headers: { type: string }')
    const dir = join(import.meta.dirname, '.work-headers-object')
    mkdirSync(dir, { recursive: true })
    const codes = async (name: string, headers: string) => {
      const file = join(dir, `${name}.asyncapi.yaml`)
      writeFileSync(file, text.replace('headers: { type: string }', `headers: ${headers}`))
      return (await compile(file)).diagnostics.map((d) => [d.code, d.pointer])
    }
    try {
      const at = ['NATS_HEADERS_NOT_OBJECT', '/channels/balanceQuery/messages/query/headers']
      for (const refused of ['{ type: [string, integer] }', '{ type: "null" }', 'true', '[]'])
        expect(await codes('refused', refused), refused).toContainEqual(at)
      for (const accepted of ['{ type: object }', '{ properties: { traceId: { type: string } } }', '{ type: [object, "null"] }', '{}'])
        expect(await codes('accepted', accepted), accepted).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('NATS_HEADERS_UNSENDABLE refuses only a required header no NATS message can carry', () => {
  it('refuses a required name NATS cannot carry or a required value no string satisfies (through references), accepts what a string can be', async () => {
    const text = readFileSync(join(fixtures, 'invalid', 'headers-unsendable.asyncapi.yaml'), 'utf8')
    const written = 'headers: { type: object, required: [retry], properties: { retry: { type: integer } } }'
    expect(text).toContain(written)
    const dir = join(import.meta.dirname, '.work-headers-unsendable')
    mkdirSync(dir, { recursive: true })
    const found = async (name: string, headers: string, extra = '') => {
      const file = join(dir, `${name}.asyncapi.yaml`)
      writeFileSync(file, text.replace(written, `headers: ${headers}`).replace('components:\n', `components:\n${extra}`))
      return (await compile(file)).diagnostics.map((d) => [d.code, d.pointer, d.data])
    }
    const at = '/channels/balanceQuery/messages/query/headers'
    try {
      const refused: [string, string, string][] = [
        ['{ type: object, required: ["trace id"] }', `${at}/required/0`, 'trace id'],
        ['{ type: object, required: [a, "x:y"] }', `${at}/required/1`, 'x:y'],
        ['{ type: object, required: ["é"] }', `${at}/required/0`, 'é'],
        ['{ type: object, required: [n], properties: { n: { type: [integer, boolean] } } }', `${at}/properties/n`, 'n'],
        ['{ type: object, required: [n], properties: { n: { const: 3 } } }', `${at}/properties/n`, 'n'],
        ['{ type: object, required: [n], properties: { n: { enum: [1, 2] } } }', `${at}/properties/n`, 'n'],
        ['{ type: object, required: [n], properties: { n: false } }', `${at}/properties/n`, 'n'],
        [
          '{ schemaFormat: "application/schema+json;version=draft-07", schema: { type: object, required: [n], properties: { n: { type: number } } } }',
          `${at}/schema/properties/n`,
          'n',
        ],
      ]
      for (const [headers, pointer, header] of refused)
        expect(await found('refused', headers), headers).toEqual([['NATS_HEADERS_UNSENDABLE', pointer, { header }]])
      // Through a reference: reported where the member's schema is written.
      expect(
        await found(
          'ref',
          "{ $ref: '#/components/schemas/Headers' }",
          '  schemas:\n    Headers: { type: object, required: [n], properties: { n: { type: integer } } }\n',
        ),
      ).toEqual([['NATS_HEADERS_UNSENDABLE', '/components/schemas/Headers/properties/n', { header: 'n' }]])
      for (const accepted of [
        '{ type: object, required: [retry], properties: { retry: { type: string, pattern: "^[0-9]+$" } } }',
        '{ type: object, required: [retry], properties: { retry: { type: [integer, string] } } }',
        '{ type: object, required: [retry], properties: { retry: { enum: [1, "1"] } } }',
        '{ type: object, required: [nats-msg-id, "x.trace_id!"], properties: { Nats-Msg-Id: { type: string } } }',
        // JetStream's de-duplication id, required so that duplicate_window works: the client checks the Nats- names a schema names.
        '{ type: object, required: [a, Nats-Msg-Id] }',
        '{ type: object, properties: { retry: { type: integer } } }',
        '{ type: object, properties: { "trace id": { type: string } } }',
      ])
        expect(await found('accepted', accepted), accepted).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('messages of one set that differ in having a headers schema are accepted, each message checked with its own', () => {
  // AsyncAPI 3.1.0 (Message Object): `headers` is each message's own; one without takes any headers.
  const probe =
    '      probe:\n        headers: { type: object, required: [traceId] }\n        payload: { type: object, required: [probe], properties: { probe: { type: boolean } } }\n'
  const query = '      query:\n        payload: { type: object, properties: { account: { type: string } } }\n'
  const refused = '      refused:\n        payload: { type: object, required: [reason], properties: { reason: { type: string } } }\n'
  const cents = '        payload: { type: object, properties: { cents: { type: integer } } }\n'

  it('a channel, an operation listing both, and a reply channel: no diagnostic, and the module holds each pair', async () => {
    const file = ledgerVariant('headers-mixed', query, query + probe)
    const result = await compile(file)
    expect(result.diagnostics).toEqual([])
    const module = (await loadModule(result.code!, 'headers-mixed')) as {
      channels: Record<string, { validateHeaders?: unknown; validateByMessage?: unknown[] }>
    }
    expect(module.channels.balanceQuery!.validateHeaders).toBeUndefined()
    expect(module.channels.balanceQuery!.validateByMessage).toHaveLength(2)
    const reply = ledgerVariant('headers-mixed-reply', cents, `${cents}        headers: { type: object, required: [served] }\n${refused}`)
    expect((await compile(reply)).diagnostics).toEqual([])
  })
})

describeFixtureTable({
  contract: ([name]) => {
    const file = join(fixtures, 'invalid', `${name}.asyncapi.yaml`)
    return { compile: file, file }
  },
  failing: single,
  warned,
})

describe('single-document rules', () => {
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

describe('every rule', () => {
  it('every NATS rule and reading problem has a failing fixture', () => {
    expectEveryCodeCovered(
      [...[...gateRules, ...natsRules].map((r) => r.code), ...loadCodes],
      single,
      warned,
      readingCases,
      linkCases,
      interactionCases,
      pipelineCases,
    )
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

/**
 * The valid ledger with one edit (`from` must occur, replaced by `to` as written: no `$` patterns),
 * written as `<name>.asyncapi.yaml` under test/.tmp/ledger-variants: its path.
 */
function ledgerVariant(name: string, from: string, to: string): string {
  const ledger = readFileSync(join(import.meta.dirname, '../fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8')
  expect(ledger, from).toContain(from)
  const dir = join(import.meta.dirname, '.tmp/ledger-variants')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `${name}.asyncapi.yaml`)
  writeFileSync(
    file,
    ledger.replace(from, () => to),
  )
  return file
}

describe('a location in the headers (NATS_UNSUPPORTED for a reply address only)', () => {
  const found = async (file: string) => (await compile(file)).diagnostics.map((d) => [d.code, d.pointer])
  it('a parameter’s location in the headers correlates nothing (the subject carries the value): accepted', async () => {
    const file = ledgerVariant(
      'header-parameter',
      '    parameters:\n      region: {}\n',
      "    parameters:\n      region: { location: '$message.header#/region' }\n",
    )
    expect(await found(file)).toEqual([])
  })
  it('a message’s correlationId in the headers is AsyncAPI metadata the code does not read: accepted, on a message and in components', async () => {
    const file = ledgerVariant(
      'header-correlation',
      '    EntryPosted:\n      payload:',
      "    EntryPosted:\n      correlationId: { location: '$message.header#/traceparent' }\n      payload:",
    )
    expect(await found(file)).toEqual([])
    const component = ledgerVariant(
      'header-correlation-component',
      'components:\n  messages:\n',
      "components:\n  correlationIds:\n    trace: { location: '$message.header#/traceparent' }\n  messages:\n",
    )
    expect(await found(component)).toEqual([])
  })
  it('a reply address in the headers is refused where an operation or a component states it, not in a schema member named reply', async () => {
    const operation = ledgerVariant(
      'header-reply-operation',
      "  answerBalance:\n    action: receive\n    channel: { $ref: '#/channels/balanceQuery' }\n",
      "  answerBalance:\n    action: receive\n    channel: { $ref: '#/channels/balanceQuery' }\n    reply:\n      address: { location: '$message.header#/replyTo' }\n      channel: { $ref: '#/channels/balanceReply' }\n",
    )
    expect(await found(operation)).toContainEqual(['NATS_UNSUPPORTED', '/operations/answerBalance/reply/address/location'])
    const replies = ledgerVariant(
      'header-reply-component',
      'components:\n  messages:\n',
      "components:\n  replies:\n    viaHeader:\n      address: { location: '$message.header#/replyTo' }\n  messages:\n",
    )
    expect(await found(replies)).toEqual([['NATS_UNSUPPORTED', '/components/replies/viaHeader/address/location']])
    const example = ledgerVariant(
      'header-reply-example',
      '          cents: { type: integer }\n',
      "          cents: { type: integer }\n        examples: [{ reply: { address: { location: '$message.header#/replyTo' } } }]\n",
    )
    expect(await found(example)).toEqual([])
  })
})

/** `text` in UTF-32 (little or big endian), with or without a byte order mark. */
function utf32(text: string, little: boolean, bom: boolean): Buffer {
  const points = [...(bom ? '\ufeff' : ''), ...text].map((c) => c.codePointAt(0)!)
  const out = Buffer.alloc(points.length * 4)
  points.forEach((p, i) => (little ? out.writeUInt32LE(p, i * 4) : out.writeUInt32BE(p, i * 4)))
  return out
}

describe('a YAML document in UTF-16 or UTF-32 is read, told as YAML 1.2 tells them (section 5.2); JSON stays UTF-8', () => {
  it('UTF-16LE and UTF-16BE compile to the module the UTF-8 file does; an error in one is framed in its text; a UTF-16 JSON contract is refused', async () => {
    const text = readFileSync(join(fixtures, 'valid/ledger.asyncapi.yaml'), 'utf8')
    const utf8 = await compile(join(fixtures, 'valid/ledger.asyncapi.yaml'))
    const dir = join(import.meta.dirname, '.tmp/nats-rules-utf16')
    mkdirSync(dir, { recursive: true })
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])
    const be = Buffer.from(le)
    be.swap16()
    for (const [name, bytes] of [
      ['le', le],
      ['be', be],
    ] as const) {
      const file = join(dir, `ledger-${name}.asyncapi.yaml`)
      writeFileSync(file, bytes)
      const result = await compile(file)
      expect([name, result.diagnostics]).toEqual([name, []])
      // The same module but the file's name and its bytes' digest (the digest is of the bytes as written).
      const same = (code: string, file: string) => code.replaceAll(file, 'FILE').replace(/"digest":"[0-9a-f]{64}"/, '"digest":"D"')
      expect(same(result.code!, `ledger-${name}.asyncapi.yaml`)).toBe(same(utf8.code!, 'ledger.asyncapi.yaml'))
    }
    const broken = join(dir, 'broken.asyncapi.yaml')
    writeFileSync(broken, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text.replace('retention: limits', 'retention: forever'), 'utf16le')]))
    const failed = await compile(broken)
    expect(failed.diagnostics.map((d) => d.code)).toEqual(['NATS_STREAM_CONFIG'])
    const { formatDiagnostic, sourceReader } = await import('../src/core/report.js')
    expect(formatDiagnostic(failed.diagnostics[0]!, sourceReader([broken]))).toContain('retention: forever')
    const json = join(dir, 'ledger.asyncapi.json')
    writeFileSync(json, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(JSON.stringify({ asyncapi: '3.1.0' }), 'utf16le')]))
    expect((await compile(json)).diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_NOT_UTF8'])
  })

  it('UTF-32 (either order, with or without its mark) and UTF-16 without a mark compile to the same module; a surrogate or a broken length is not text', async () => {
    // The document with a character past U+FFFF, which UTF-16 writes as two code units and UTF-32 as one.
    const text = readFileSync(join(fixtures, 'valid/ledger.asyncapi.yaml'), 'utf8').replace('title: Ledger', 'title: Ledger 𝄞')
    const dir = join(import.meta.dirname, '.tmp/nats-rules-utf32')
    mkdirSync(dir, { recursive: true })
    const utf8File = join(dir, 'ledger-utf8.asyncapi.yaml')
    writeFileSync(utf8File, text)
    const utf8 = await compile(utf8File)
    expect(utf8.diagnostics).toEqual([])
    const same = (code: string, file: string) => code.replaceAll(file, 'FILE').replace(/"digest":"[0-9a-f]{64}"/, '"digest":"D"')
    const be16 = Buffer.from(text, 'utf16le')
    be16.swap16()
    const encodings: Array<[string, Buffer]> = [
      ['utf32le-bom', utf32(text, true, true)],
      ['utf32be-bom', utf32(text, false, true)],
      ['utf32le', utf32(text, true, false)],
      ['utf32be', utf32(text, false, false)],
      ['utf16le', Buffer.from(text, 'utf16le')],
      ['utf16be', be16],
    ]
    for (const [name, bytes] of encodings) {
      const file = join(dir, `ledger-${name}.asyncapi.yaml`)
      writeFileSync(file, bytes)
      const result = await compile(file)
      expect([name, result.diagnostics]).toEqual([name, []])
      expect([name, same(result.code!, `ledger-${name}.asyncapi.yaml`)]).toEqual([name, same(utf8.code!, 'ledger-utf8.asyncapi.yaml')])
    }
    const surrogate = utf32(text, true, true)
    surrogate.writeUInt32LE(0xd800, 8)
    const refused: Array<[string, Buffer]> = [
      ['surrogate', surrogate],
      ['past-u10ffff', Buffer.concat([utf32(text, false, true).subarray(0, 8), Buffer.from([0, 0x11, 0, 0]), utf32(text, false, false).subarray(8)])],
      ['broken-length', utf32(text, true, true).subarray(0, 4 * 100 + 2)],
    ]
    for (const [name, bytes] of refused) {
      const file = join(dir, `refused-${name}.asyncapi.yaml`)
      writeFileSync(file, bytes)
      expect([name, (await compile(file)).diagnostics.map((d) => d.code)]).toEqual([name, ['CONTRACTS_NOT_UTF8']])
    }
  })
})

describe('a C0 control YAML 1.2 does not allow anywhere in a stream (5.1) is YAML_SYNTAX at its place', () => {
  it('NUL, BEL and ESC: refused where they are; tab, and DEL, NEL, a C1 control, U+FFFF (JSON writes them raw in strings) pass; a file of NUL bytes is no empty document', async () => {
    const text = readFileSync(join(fixtures, 'valid/ledger.asyncapi.yaml'), 'utf8')
    const dir = join(import.meta.dirname, '.tmp/nats-rules-unprintable')
    mkdirSync(dir, { recursive: true })
    const at = (name: string, body: string | Buffer) => {
      const file = join(dir, `${name}.asyncapi.yaml`)
      writeFileSync(file, body)
      return compile(file).then((r) => r.diagnostics.map((d) => [d.code, d.line, d.column]))
    }
    for (const [name, char] of [
      ['nul', '\u0000'],
      ['bell', '\u0007'],
      ['esc', '\u001b'],
    ] as const)
      expect([name, await at(name, text.replace('title: Ledger', `title: "Led${char}ger"`))]).toEqual([name, [['YAML_SYNTAX', 3, 14]]])
    for (const [name, char] of [
      ['tab', '\t'],
      ['del', '\u007f'],
      ['nel', '\u0085'],
      ['c1', '\u009b'],
      ['ffff', '\uffff'],
      ['astral', '😀'],
    ] as const)
      expect([name, await at(name, text.replace('title: Ledger', `title: "Led${char}ger"`))]).toEqual([name, []])
    expect(await at('only-nul', Buffer.from([0]))).toEqual([['YAML_SYNTAX', 1, 1]])
  })
})

describe('YAML aliases are bounded by what they copy, not by their count', () => {
  it('17 aliases of a one-member mapping pass (an outside pass found them refused); aliases copying more than 65,536 nodes do not', async () => {
    const few = ledgerVariant(
      'aliases-small',
      '          entryId: { type: string }\n',
      '          entryId: &s { type: string }\n' + Array.from({ length: 17 }, (_, i) => `          f${i}: *s\n`).join(''),
    )
    expect((await compile(few)).diagnostics).toEqual([])
    const big = ledgerVariant(
      'aliases-big',
      '          entryId: { type: string }\n',
      `          entryId: { type: string, enum: &e [${Array.from({ length: 9_000 }, (_, i) => `v${i}`).join(', ')}] }\n` +
        Array.from({ length: 8 }, (_, i) => `          f${i}: { type: string, enum: *e }\n`).join(''),
    )
    expect((await compile(big)).diagnostics.map((d) => [d.code, d.pointer])).toEqual([
      ['YAML_ALIAS_LIMIT', '/components/messages/EntryPosted/payload/properties/f7/enum'],
    ])
  })
})

describe('a plain YAML key is a string as written (AsyncAPI: keys are strings under the YAML Failsafe schema)', () => {
  it('200:, 1.0:, ~:, true: and 0x10: name the members "200", "1.0", "~", "true" and "0x10", in block and flow mappings; a tagged key is refused', async () => {
    const file = ledgerVariant(
      'plain-keys',
      '          cents: { type: integer }\n',
      '          cents: { type: integer }\n          200: { type: string }\n          1.0: { type: string }\n          ~: { type: string }\n          flow: { type: object, properties: { true: { type: string }, 0x10: { type: string } } }\n',
    )
    const result = await compile(file)
    expect(result.diagnostics).toEqual([])
    for (const key of ['"200"', '"1.0"', '"~"', '"true"', '"0x10"']) expect(result.code).toContain(key)
    const tagged = ledgerVariant(
      'tagged-key',
      '          cents: { type: integer }\n',
      '          cents: { type: integer }\n          !!int 7: { type: string }\n',
    )
    expect((await compile(tagged)).diagnostics.map((d) => d.code)).toEqual(['YAML_NON_STRING_KEY'])
  })
})

describe('a pattern led by inline options, as .NET writes it (NATS_PATTERN_DIALECT)', () => {
  it('(?i)^[0-9a-f]{12}$ is read case-insensitively by both validator forms', async () => {
    const file = ledgerVariant(
      'pattern-inline-options',
      '          entryId: { type: string }\n',
      "          entryId: { type: string, pattern: '(?i)^[0-9a-f]{12}$' }\n",
    )
    for (const validators of ['data', 'code'] as const) {
      const result = await compile(file, { nats: { validators } })
      expect(
        result.diagnostics.map((d) => [d.code, d.severity]),
        validators,
      ).toEqual([['NATS_PATTERN_DIALECT', 'warning']])
      const mod = await loadModule(result.code!, `pattern-inline-options-${validators}`)
      const valid = (entryId: string) => (mod.entryPosted as { validatePayload(v: unknown): boolean }).validatePayload({ entryId, cents: 1 })
      expect([valid('abcdef012345'), valid('ABCDEF012345'), valid('ABCDEF01234Z'), valid('abc')], validators).toEqual([true, true, false, false])
    }
  })
})

describe('a requestReply whose reply states an address (NATS_REQUEST_REPLY)', () => {
  it('is refused for what it is: the reply has an address, where the native inbox has none (the channel has none)', async () => {
    const file = ledgerVariant(
      'reply-address',
      "    reply:\n      channel: { $ref: '#/channels/balanceReply' }\n",
      "    reply:\n      address: { location: '$message.payload#/replyTo' }\n      channel: { $ref: '#/channels/balanceReply' }\n",
    )
    const found = (await compile(file)).diagnostics.filter((d) => d.code === 'NATS_REQUEST_REPLY')
    expect(found.map((d) => d.pointer)).toEqual(['/x-nats-contract/operations/queryBalance/requestReply'])
    expect(found[0]!.message).toContain('reply has an address')
    expect(found[0]!.message).not.toContain('reply channel')
  })
})

describe('a reference whose fragment is not a JSON Pointer names nothing (NATS_REF_UNRESOLVED, and only that)', () => {
  it.each([
    ['a plain name', "{ $ref: '#foo' }"],
    ['a plain name beside a $id naming it', "{ $id: '#foo', type: string }, b: { $ref: '#foo' }"],
    ['a name then a path', "{ $ref: '#foo/bar' }"],
  ])('%s', async (name, members) => {
    // Read as a pointer, `#foo` named the whole document: the payload then "referred to itself" (NATS_PAYLOAD_UNBOUNDED).
    mkdirSync(join(import.meta.dirname, '.tmp'), { recursive: true })
    const file = join(import.meta.dirname, '.tmp', `fragment-${name.replace(/\W+/g, '-')}-${process.pid}.asyncapi.yaml`)
    writeFileSync(file, natsChannelDocument({ m: `{ payload: { type: object, properties: { a: ${members} } } }` }))
    const found = (await compile(file)).diagnostics.map((d) => [d.code, d.pointer])
    rmSync(file)
    expect(found).toEqual([['NATS_REF_UNRESOLVED', expect.stringMatching(/^\/channels\/c\/messages\/m\/payload\/properties\/[ab]\/\$ref$/)]])
  })
})
