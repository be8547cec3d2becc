/**
 * The `Nats-` header names a headers schema names, which the client checks (the others it leaves
 * out): properties and required, through references (escaped names, chains, cycles), members beside
 * a reference and the members of allOf/anyOf/oneOf; other names and unresolved references name none.
 */
import { describe, expect, it } from 'vitest'
import { reservedHeaderNames } from '../src/formats/nats/reserved-header-names.js'

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
