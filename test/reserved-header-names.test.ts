/**
 * The `Nats-` header names a headers schema names, which the client checks (the others it leaves
 * out): properties and required, through references (escaped names, chains, cycles), members beside
 * a reference and the members of allOf/anyOf/oneOf, not/if/then/else, the dependency keywords, and
 * the known JetStream names a patternProperties pattern matches; other names and unresolved
 * references name none. And the client holds a send to what such a schema says.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { NatsConnection } from '@nats-io/nats-core'
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { reservedHeaderNames } from '../src/formats/nats/reserved-header-names.js'
import { bindContract, ContractClientError, type ContractModule } from '../src/runtime/nats/client/index.js'
import { loadModule } from './helpers/load-module.js'

describe('reservedHeaderNames', () => {
  it('reads properties, required, references, siblings of a reference and composition members', () => {
    const components = {
      'a/b~c': { properties: { 'Nats-Msg-Id': {} } },
      Loop: { allOf: [{ $ref: '#/components/schemas/Loop' }, { required: ['Nats-Expected-Stream'] }] },
      Chain: { $ref: '#/components/schemas/Loop' },
    }
    expect(reservedHeaderNames({ $ref: '#/components/schemas/a~1b~0c', required: ['Nats-Rollup'] }, components)).toEqual(['Nats-Msg-Id', 'Nats-Rollup'])
    expect(reservedHeaderNames({ anyOf: [{ $ref: '#/components/schemas/Chain' }, { oneOf: [{ properties: { 'Nats-TTL': {} } }] }] }, components)).toEqual([
      'Nats-Expected-Stream',
      'Nats-TTL',
    ])
    // Not a Nats- name (case matters: nats.js v3 compares names exactly), an unresolved or outside reference, no schema.
    expect(reservedHeaderNames({ properties: { 'nats-msg-id': {}, traceId: {} }, required: [7, 'x'] }, components)).toEqual([])
    expect(reservedHeaderNames({ $ref: '#/components/schemas/Missing' }, components)).toEqual([])
    expect(reservedHeaderNames({ $ref: 'other.yaml#/X' }, components)).toEqual([])
    expect(reservedHeaderNames(true, components)).toEqual([])
  })

  it('a long self-referencing chain ends, each schema read once', () => {
    const components: Record<string, unknown> = {}
    for (let i = 0; i < 10_000; i++)
      components[`S${i}`] = { allOf: [{ $ref: `#/components/schemas/S${(i + 1) % 10_000}` }, { $ref: '#/components/schemas/S0' }] }
    components.S9999 = { required: ['Nats-Msg-Id'], allOf: [{ $ref: '#/components/schemas/S0' }] }
    // Bounded at 4,096 schema objects: the far end of a longer chain is not reached (a headers schema is far smaller).
    expect(reservedHeaderNames({ $ref: '#/components/schemas/S0' }, components)).toEqual([])
    components.S100 = { required: ['Nats-Msg-Id'] }
    expect(reservedHeaderNames({ $ref: '#/components/schemas/S0' }, components)).toEqual(['Nats-Msg-Id'])
  })
})

describe('every keyword that speaks of a header name names it (an outside pass found these left unchecked)', () => {
  it('not, if/then/else, dependentRequired, dependencies, dependentSchemas, patternProperties', () => {
    const names = (schema: unknown) => reservedHeaderNames(schema, {})
    expect(names({ not: { required: ['Nats-Msg-Id'] } })).toEqual(['Nats-Msg-Id'])
    expect(names({ if: { required: ['Nats-Rollup'] }, then: { required: ['x'] }, else: { properties: { 'Nats-TTL': {} } } })).toEqual([
      'Nats-Rollup',
      'Nats-TTL',
    ])
    expect(names({ dependentRequired: { 'Nats-Msg-Id': ['x', 'Nats-Expected-Stream'] } })).toEqual(['Nats-Expected-Stream', 'Nats-Msg-Id'])
    expect(names({ dependencies: { 'Nats-Msg-Id': ['x'], y: { required: ['Nats-Rollup'] } } })).toEqual(['Nats-Msg-Id', 'Nats-Rollup'])
    expect(names({ dependentSchemas: { x: { properties: { 'Nats-TTL': {} } } } })).toEqual(['Nats-TTL'])
    expect(names({ patternProperties: { '^Nats-Msg-Id$': { pattern: '^id-' } } })).toEqual(['Nats-Msg-Id'])
    expect(names({ patternProperties: { '^Nats-Expected-': {} } })).toEqual([
      'Nats-Expected-Last-Msg-Id',
      'Nats-Expected-Last-Sequence',
      'Nats-Expected-Last-Subject-Sequence',
      'Nats-Expected-Last-Subject-Sequence-Subject',
      'Nats-Expected-Stream',
    ])
    // A pattern that is no ECMA-262 pattern matches nothing here (NATS_PATTERN_INVALID refuses it); a value's schema names nothing.
    expect(names({ patternProperties: { '(': {} }, properties: { a: { properties: { 'Nats-Msg-Id': {} } } } })).toEqual([])
  })

  it('the client refuses a send such a schema refuses (a core publish giving the header itself)', async () => {
    const ledger = readFileSync(join(import.meta.dirname, '../fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8')
    const dir = join(import.meta.dirname, '.tmp/reserved-header-names')
    mkdirSync(dir, { recursive: true })
    const verdicts: unknown[] = []
    for (const [name, headers] of [
      ['not', '{ type: object, not: { required: [Nats-Msg-Id] } }'],
      ['pattern', "{ type: object, patternProperties: { '^Nats-Msg-Id$': { type: string, pattern: '^id-' } } }"],
    ] as const) {
      let text = ledger
      for (const [from, to] of [
        ['      query:\n        payload:', `      query:\n        headers: ${headers}\n        payload:`],
        ['      requestReply: { routing: native-inbox, completion: first-response, timeoutMs: 1500 }\n', ''],
        ["    reply:\n      channel: { $ref: '#/channels/balanceReply' }\n", ''],
      ]) {
        expect(text).toContain(from)
        text = text.replace(from, () => to)
      }
      const file = join(dir, `${name}.asyncapi.yaml`)
      writeFileSync(file, text)
      const result = await compile(file)
      expect(result.diagnostics).toEqual([])
      const module = (await loadModule(result.code!, `reserved-${name}`)) as unknown as ContractModule
      for (const value of ['id-1', 'bad']) {
        let sent = 0
        const client = bindContract(module, { publish: () => void sent++ } as unknown as NatsConnection, { allowOlderServer: true })
        try {
          client.publish('queryBalance' as never, { account: 'acct_abc' } as never, { account: 'a' } as never, { headers: { 'Nats-Msg-Id': value } } as never)
        } catch (error) {
          if (!(error instanceof ContractClientError)) throw error
          verdicts.push([name, value, error.code])
          continue
        }
        verdicts.push([name, value, sent])
      }
    }
    expect(verdicts).toEqual([
      ['not', 'id-1', 'INVALID_HEADERS'],
      ['not', 'bad', 'INVALID_HEADERS'],
      ['pattern', 'id-1', 1],
      ['pattern', 'bad', 'INVALID_HEADERS'],
    ])
  })
})
