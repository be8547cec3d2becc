/**
 * The standard part is judged as @asyncapi/parser judges it: one-edit variants of the ledger
 * document, each run through the official parser and through the compiler; the compiler's
 * standard-part verdict (NATS_ASYNCAPI_SCHEMA, NATS_REF_UNRESOLVED, NATS_REF_KIND) must be the
 * parser's (an error or none), on acceptance and on refusal alike.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { Parser } from '@asyncapi/parser'
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'

const base = readFileSync(join(import.meta.dirname, '../fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8')
const work = join(import.meta.dirname, '.tmp/nats-standard-parser')
/**
 * One set of schema validators for every parse. Spectral (the parser's linter) makes new Ajv
 * instances for each document it lints, so each `parse()` compiled the AsyncAPI JSON Schema again,
 * resolved and unresolved: about half a CPU second a parse, most of this file's time. Every schema
 * the AsyncAPI 3 rules hand to Ajv is a constant of the parser's ruleset (none comes from the
 * document), so a validator compiled for one parse judges the next document exactly as a fresh one
 * would. If Spectral's module is not where this expects it, nothing is shared and the file is only
 * slower.
 */
function shareSchemaValidators(): void {
  const fromParser = createRequire(createRequire(import.meta.url).resolve('@asyncapi/parser'))
  const schemaFunction = fromParser.resolve('@stoplight/spectral-functions')
  const ajv = createRequire(schemaFunction)('./schema/ajv.js') as { createAjvInstances?: () => unknown }
  const make = ajv.createAjvInstances
  if (typeof make !== 'function') return
  let shared: unknown
  ajv.createAjvInstances = () => (shared ??= make())
}
shareSchemaValidators()

const STANDARD = new Set(['NATS_ASYNCAPI_SCHEMA', 'NATS_REF_UNRESOLVED', 'NATS_REF_KIND', 'NATS_ASYNCAPI_PARAMETERS', 'NATS_ASYNCAPI_CHANNEL_KEY'])

/** [name, edit of the ledger text, a component block to add under `components:`]. */
const variants: Array<[name: string, from: string, to: string, component?: string]> = [
  ['unchanged', 'asyncapi: 3.1.0', 'asyncapi: 3.1.0'],
  ['an action AsyncAPI 3 does not have', '  postEntry:\n    action: send', '  postEntry:\n    action: publish'],
  ['an operation channel naming a message', "    channel: { $ref: '#/channels/entryPosted' }", "    channel: { $ref: '#/components/messages/EntryPosted' }"],
  ['a channel message naming a schema', "        $ref: '#/components/messages/EntryPosted'", "        $ref: '#/components/messages/EntryPosted/payload'"],
  [
    'an operation message of another channel',
    "    channel: { $ref: '#/channels/balanceQuery' }\n    reply:",
    "    channel: { $ref: '#/channels/balanceQuery' }\n    messages:\n      - $ref: '#/channels/entryPosted/messages/posted'\n    reply:",
  ],
  [
    'an operation message of its own channel',
    "    channel: { $ref: '#/channels/balanceQuery' }\n    reply:",
    "    channel: { $ref: '#/channels/balanceQuery' }\n    messages:\n      - $ref: '#/channels/balanceQuery/messages/query'\n    reply:",
  ],
  ['a reference that names nothing', "    channel: { $ref: '#/channels/entryPosted' }", "    channel: { $ref: '#/channels/entryPostd' }"],
  ['an unknown root member', 'info:\n', 'foo: 1\ninfo:\n'],
  ['info without a version', '  version: 2.0.0\n', ''],
  ['a contact email that is not one', 'info:\n  title: Ledger\n', 'info:\n  title: Ledger\n  contact: { email: not-an-email }\n'],
  ['a contact email', 'info:\n  title: Ledger\n', 'info:\n  title: Ledger\n  contact: { email: ledger@example.com }\n'],
  ['a license URL that is not a URI', 'info:\n  title: Ledger\n', "info:\n  title: Ledger\n  license: { name: MIT, url: 'not a uri' }\n"],
  [
    'channel bindings by reference',
    '  balanceReply:\n    messages:',
    "  balanceReply:\n    bindings: { $ref: '#/components/channelBindings/cb' }\n    messages:",
    '  channelBindings:\n    cb:\n      nats: {}\n',
  ],
  [
    'operation bindings by reference',
    "  postEntry:\n    action: send\n    channel: { $ref: '#/channels/entryPosted' }",
    "  postEntry:\n    action: send\n    channel: { $ref: '#/channels/entryPosted' }\n    bindings: { $ref: '#/components/operationBindings/ob' }",
    '  operationBindings:\n    ob:\n      nats: { queue: ledger }\n',
  ],
  [
    'one binding by reference, where the schema takes none',
    "  postEntry:\n    action: send\n    channel: { $ref: '#/channels/entryPosted' }",
    "  postEntry:\n    action: send\n    channel: { $ref: '#/channels/entryPosted' }\n    bindings: { nats: { $ref: '#/components/operationBindings/ob/nats' } }",
    '  operationBindings:\n    ob:\n      nats: { queue: ledger }\n',
  ],
  [
    'message headers by reference',
    '      balance:\n        payload:',
    "      balance:\n        headers: { $ref: '#/components/schemas/H' }\n        payload:",
    '  schemas:\n    H: { type: object }\n',
  ],
]

/** One parser for the file: its ruleset is read once. */
const parser = new Parser()

describe('the standard part, judged as @asyncapi/parser judges it', () => {
  it.each(variants)('%s', async (name, from, to, component) => {
    expect(base).toContain(from)
    let text = base.replace(from, to)
    if (component) text = text.replace('components:\n', `components:\n${component}`)
    mkdirSync(work, { recursive: true })
    const file = join(work, `${name.replace(/\W+/g, '-')}.asyncapi.yaml`)
    writeFileSync(file, text)
    const official = (await parser.parse(text)).diagnostics.filter((d) => d.severity === 0)
    const ours = (await compile(file)).diagnostics.filter((d) => STANDARD.has(d.code))
    expect({ refused: ours.length > 0, ours: ours.map((d) => d.code) }).toMatchObject({ refused: official.length > 0 })
  })
})

/** A document without the profile: plain AsyncAPI, of the given version. */
const plain = (version: string, channels: string, operations = "  o: { action: send, channel: { $ref: '#/channels/c' } }\n", components = '') =>
  `asyncapi: ${version}\ninfo: { title: T, version: 1.0.0 }\nchannels:\n${channels}operations:\n${operations}${components}`

/**
 * The shapes of the official parser's own rule cases (its core ruleset beyond the JSON Schema), in
 * documents of ours, each judged by the parser and by the compiler at 3.1.0 and at 3.0.0: the
 * verdict (and, where the compiler refuses, the code and pointer) must agree.
 */
const plainCases: Array<
  [name: string, channels: string, operations: string | undefined, components: string | undefined, expected: { code: string; pointer: string } | undefined]
> = [
  ['parameters that match the address', "  c: { address: 'users.{userId}', parameters: { userId: {} } }\n", undefined, undefined, undefined],
  ['an address with placeholders and no parameters object', "  c: { address: 'users.{userId}' }\n", undefined, undefined, undefined],
  [
    'an empty parameters object for a placeholder',
    "  c: { address: 'users.{userId}', parameters: {} }\n",
    undefined,
    undefined,
    { code: 'NATS_ASYNCAPI_PARAMETERS', pointer: '/channels/c/parameters' },
  ],
  [
    'a parameter missing for one of two placeholders',
    "  c: { address: 'users.{userId}.{other}', parameters: { userId: {} } }\n",
    undefined,
    undefined,
    { code: 'NATS_ASYNCAPI_PARAMETERS', pointer: '/channels/c/parameters' },
  ],
  [
    'a redundant parameter',
    "  c: { address: 'users.{userId}', parameters: { userId: {}, extra: {} } }\n",
    undefined,
    undefined,
    { code: 'NATS_ASYNCAPI_PARAMETERS', pointer: '/channels/c/parameters/extra' },
  ],
  [
    'a parameter on a channel whose address is null',
    '  c: { address: null, parameters: { test: {} } }\n',
    undefined,
    undefined,
    { code: 'NATS_ASYNCAPI_PARAMETERS', pointer: '/channels/c/parameters/test' },
  ],
  [
    'a parameter on a channel without an address',
    '  c: { parameters: { test: {} } }\n',
    undefined,
    undefined,
    { code: 'NATS_ASYNCAPI_PARAMETERS', pointer: '/channels/c/parameters/test' },
  ],
  [
    'a redundant parameter of a component channel',
    "  c: { address: 'a' }\n",
    undefined,
    "components:\n  channels:\n    u: { address: 'user.signedup', parameters: { test: {} } }\n",
    { code: 'NATS_ASYNCAPI_PARAMETERS', pointer: '/components/channels/u/parameters/test' },
  ],
  [
    'a channel id with a query',
    "  c: { address: 'a' }\n  'users?foo=1': { address: 'b' }\n",
    undefined,
    undefined,
    { code: 'NATS_ASYNCAPI_CHANNEL_KEY', pointer: '/channels/users?foo=1' },
  ],
  [
    'a channel id with a fragment',
    "  c: { address: 'a' }\n  'users#x': { address: 'b' }\n",
    undefined,
    undefined,
    { code: 'NATS_ASYNCAPI_CHANNEL_KEY', pointer: '/channels/users#x' },
  ],
  [
    'a component operation with a message of another channel',
    "  c: { address: 'a', messages: { m: { payload: { type: string } } } }\n  d: { address: 'd', messages: { n: { payload: { type: string } } } }\n",
    undefined,
    "components:\n  operations:\n    co: { action: send, channel: { $ref: '#/channels/c' }, messages: [ { $ref: '#/channels/d/messages/n' } ] }\n",
    { code: 'NATS_REF_KIND', pointer: '/components/operations/co/messages/0/$ref' },
  ],
  [
    'a root operation with the message of a component channel of the same name',
    "  c: { address: 'a', messages: { m: { payload: { type: string } } } }\n",
    "  o: { action: send, channel: { $ref: '#/channels/c' }, messages: [ { $ref: '#/components/channels/c/messages/m' } ] }\n",
    "components:\n  channels:\n    c: { address: 'a', messages: { m: { payload: { type: string } } } }\n",
    { code: 'NATS_REF_KIND', pointer: '/operations/o/messages/0/$ref' },
  ],
  [
    'a component operation with two messages of another component channel',
    "  c: { address: 'a', messages: { m: { payload: { type: string } } } }\n",
    undefined,
    "components:\n  channels:\n    r: { messages: { x: { payload: { type: string } }, y: { payload: { type: string } } } }\n  operations:\n    co: { action: send, channel: { $ref: '#/channels/c' }, messages: [ { $ref: '#/components/channels/r/messages/x' }, { $ref: '#/components/channels/r/messages/y' } ] }\n",
    { code: 'NATS_REF_KIND', pointer: '/components/operations/co/messages/1/$ref' },
  ],
  [
    'an address-like channel id with a query',
    "  c: { address: 'a' }\n  'users/{userId}/signedOut?byMistake={x}': {}\n",
    undefined,
    undefined,
    { code: 'NATS_ASYNCAPI_CHANNEL_KEY', pointer: '/channels/users~1{userId}~1signedOut?byMistake={x}' },
  ],
  [
    'a component operation with a message of its own channel',
    "  c: { address: 'a', messages: { m: { payload: { type: string } } } }\n",
    undefined,
    "components:\n  operations:\n    co: { action: send, channel: { $ref: '#/channels/c' }, messages: [ { $ref: '#/channels/c/messages/m' } ] }\n",
    undefined,
  ],
  [
    'an operation message through a channel that is itself a $ref',
    "  c: { $ref: '#/components/channels/cc' }\n",
    "  o: { action: send, channel: { $ref: '#/channels/c' }, messages: [ { $ref: '#/channels/c/messages/m' } ] }\n",
    "components:\n  channels:\n    cc: { address: 'a', messages: { m: { payload: { type: string } } } }\n",
    undefined,
  ],
  [
    'an operation message through a referenced channel that lacks it',
    "  c: { $ref: '#/components/channels/cc' }\n",
    "  o: { action: send, channel: { $ref: '#/channels/c' }, messages: [ { $ref: '#/channels/c/messages/x' } ] }\n",
    "components:\n  channels:\n    cc: { address: 'a', messages: { m: { payload: { type: string } } } }\n",
    { code: 'NATS_REF_UNRESOLVED', pointer: '/operations/o/messages/0/$ref' },
  ],
  [
    'a local $ref as a Kafka message key',
    "  c: { address: 'a', messages: { m: { payload: { type: string }, bindings: { kafka: { key: { $ref: '#/components/schemas/K' } } } } } }\n",
    undefined,
    'components:\n  schemas:\n    K: { type: string }\n',
    undefined,
  ],
  [
    'a local $ref as MQTT correlation data',
    "  c: { address: 'a', messages: { m: { payload: { type: string }, bindings: { mqtt: { correlationData: { $ref: '#/components/schemas/K' } } } } } }\n",
    undefined,
    'components:\n  schemas:\n    K: { type: string }\n',
    undefined,
  ],
  [
    'a Kafka message key that is no schema',
    "  c: { address: 'a', messages: { m: { payload: { type: string }, bindings: { kafka: { key: 7 } } } } }\n",
    undefined,
    undefined,
    { code: 'NATS_ASYNCAPI_SCHEMA', pointer: '/channels/c/messages/m/bindings/kafka/key' },
  ],
]

describe("the official parser's core rules, on documents without the profile, at 3.1.0 and 3.0.0", () => {
  const cases = plainCases.flatMap((c) => ['3.1.0', '3.0.0'].map((version) => [`${c[0]} (${version})`, version, ...c.slice(1)] as const))
  it.each(cases)('%s', async (name, version, channels, operations, components, expected) => {
    const text = plain(version, channels, operations, components)
    mkdirSync(work, { recursive: true })
    const file = join(work, `plain-${name.replace(/\W+/g, '-')}.asyncapi.yaml`)
    writeFileSync(file, text)
    const official = (await parser.parse(text)).diagnostics.filter((d) => d.severity === 0)
    const result = await compile(file)
    const ours = result.diagnostics.filter((d) => STANDARD.has(d.code))
    expect({ refused: ours.length > 0 }).toEqual({ refused: official.length > 0 })
    if (expected) expect(ours.map((d) => ({ code: d.code, pointer: d.pointer }))).toContainEqual(expected)
    // A document without the profile is refused only for that (and for its standard part): never for its 3.0 version.
    expect(result.diagnostics.filter((d) => !STANDARD.has(d.code)).map((d) => d.code)).toEqual(['NATS_PROFILE_MISSING'])
  })
})

describe('AsyncAPI 3.0 documents', () => {
  const ledger30 = base.replace('asyncapi: 3.1.0', 'asyncapi: 3.0.0')
  const write = (name: string, text: string) => {
    mkdirSync(work, { recursive: true })
    const file = join(work, `${name}.asyncapi.yaml`)
    writeFileSync(file, text)
    return file
  }

  it('a profiled 3.0.0 document is refused naming its version, and its standard part is still checked', async () => {
    const clean = await compile(write('ledger-3.0.0', ledger30))
    expect(clean.diagnostics.map((d) => ({ code: d.code, pointer: d.pointer }))).toEqual([{ code: 'NATS_ASYNCAPI_VERSION', pointer: '/asyncapi' }])
    expect(clean.diagnostics[0]!.message).toContain('3.1.0')
    expect(clean.diagnostics[0]!.message).toContain('"3.0.0"')
    const broken = await compile(write('ledger-3.0.0-broken', ledger30.replace('  postEntry:\n    action: send', '  postEntry:\n    action: publish')))
    expect(broken.diagnostics.map((d) => ({ code: d.code, pointer: d.pointer }))).toEqual([
      { code: 'NATS_ASYNCAPI_VERSION', pointer: '/asyncapi' },
      { code: 'NATS_ASYNCAPI_SCHEMA', pointer: '/operations/postEntry/action' },
    ])
    expect(broken.diagnostics[1]!.message).toMatch(/^AsyncAPI 3\.0\.0:/)
  })

  it('an unprofiled 3.0.0 document is checked as standard AsyncAPI, not refused for its version', async () => {
    const unprofiled = ledger30.replace(/x-nats-contract:\n(?: {2}.*\n)+/, '')
    expect(unprofiled).not.toContain('x-nats-contract')
    expect((await compile(write('plain-ledger-3.0.0', unprofiled))).diagnostics.map((d) => d.code)).toEqual(['NATS_PROFILE_MISSING'])
  })

  it('still refused for its version alone: AsyncAPI 2.6.0 and 3.2.0', async () => {
    for (const version of ['2.6.0', '3.2.0']) {
      const result = await compile(write(`plain-${version}`, plain(version, "  c: { address: 'a' }\n")))
      expect(result.diagnostics.map((d) => ({ code: d.code, pointer: d.pointer }))).toContainEqual({ code: 'NATS_ASYNCAPI_VERSION', pointer: '/asyncapi' })
    }
  })
})
