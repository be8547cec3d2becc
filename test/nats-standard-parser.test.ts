/**
 * The standard part is judged as @asyncapi/parser judges it: one-edit variants of the ledger
 * document, each run through the official parser and through the compiler; the compiler's
 * standard-part verdict (NATS_ASYNCAPI_SCHEMA, NATS_REF_UNRESOLVED, NATS_REF_KIND) must be the
 * parser's (an error or none), on acceptance and on refusal alike.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Parser } from '@asyncapi/parser'
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'

const base = readFileSync(join(import.meta.dirname, '../fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8')
const work = join(import.meta.dirname, '.tmp/nats-standard-parser')
const STANDARD = new Set(['NATS_ASYNCAPI_SCHEMA', 'NATS_REF_UNRESOLVED', 'NATS_REF_KIND'])

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

describe('the standard part, judged as @asyncapi/parser judges it', () => {
  const parser = new Parser()
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
