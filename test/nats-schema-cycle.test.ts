/**
 * NATS_SCHEMA_CYCLE beyond its fixture row (nats-rules.test.ts): each keyword that applies a schema
 * to the same value closes a cycle; recursion through a property or an item does not; a cycle among
 * schemas brought in from a locked file is reported at the message that reaches it. It is a warning
 * (JSON Schema: SHOULD NOT), the module is made and its validators accept nothing there; `contracts
 * diff` compares it as a schema that accepts nothing (an outside pass found a bare `$ref` cycle
 * called "the same" as an integer schema and as an object schema).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { diffContracts } from '../src/core/diff/runner.js'
import { loadDiffer } from '../src/formats/diffs.js'
import { formats } from '../src/formats/index.js'
import { compile } from '../src/index.js'
import { ShopBundle } from './helpers/nats-bundle.js'
import { testFolder } from './helpers/temp-folder.js'
import { writeFileSync } from 'node:fs'

const ledger = readFileSync(join(import.meta.dirname, '../fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8')
const PAYLOAD = '          cents: { type: integer }\n'

/** The ledger document with a `parent` member of the posted entry's payload naming `#/components/schemas/Parent`, and `schemas` as its components (YAML lines under `schemas:`). */
function withSchemas(schemas: string): string {
  expect(ledger).toContain(PAYLOAD)
  return ledger.replace(PAYLOAD, `${PAYLOAD}          parent: { $ref: '#/components/schemas/Parent' }\n  schemas:\n${schemas}`)
}

async function codes(text: string): Promise<Array<[string, string]>> {
  const dir = testFolder('nats-schema-cycle')
  const file = join(dir, 'ledger.asyncapi.yaml')
  writeFileSync(file, text)
  const result = await compile(file)
  return result.diagnostics.map((d) => [d.code, d.pointer])
}

describe('NATS_SCHEMA_CYCLE', () => {
  it.each([
    ['$ref to itself', "    Parent: { $ref: '#/components/schemas/Parent' }\n", '/components/schemas/Parent/$ref'],
    ['allOf', "    Parent: { allOf: [{ $ref: '#/components/schemas/Parent' }] }\n", '/components/schemas/Parent/allOf/0/$ref'],
    ['oneOf', "    Parent: { oneOf: [{ type: string }, { $ref: '#/components/schemas/Parent' }] }\n", '/components/schemas/Parent/oneOf/1/$ref'],
    ['not', "    Parent: { not: { $ref: '#/components/schemas/Parent' } }\n", '/components/schemas/Parent/not/$ref'],
    ['if/then', "    Parent: { if: { type: object }, then: { $ref: '#/components/schemas/Parent' } }\n", '/components/schemas/Parent/then/$ref'],
    [
      'two schemas',
      "    Parent: { $ref: '#/components/schemas/Child' }\n    Child: { anyOf: [{ $ref: '#/components/schemas/Parent' }, { type: integer }] }\n",
      '/components/schemas/Child/anyOf/0/$ref',
    ],
  ])('%s: refused at the reference that closes the cycle', async (_, schemas, pointer) => {
    expect(await codes(withSchemas(schemas))).toEqual([['NATS_SCHEMA_CYCLE', pointer]])
  })

  it.each([
    ['a property', "    Parent: { type: object, properties: { parent: { $ref: '#/components/schemas/Parent' } } }\n"],
    ['an item', "    Parent: { type: array, items: { $ref: '#/components/schemas/Parent' } }\n"],
    ['a chain that ends', "    Parent: { $ref: '#/components/schemas/Child' }\n    Child: { allOf: [{ type: object }] }\n"],
  ])('recursion through %s (or none) is accepted', async (_, schemas) => {
    expect(await codes(withSchemas(schemas))).toEqual([])
  })

  it('a cycle in a locked file is reported at the message that reaches it', async () => {
    const shop = ShopBundle.copy('schema-cycle')
      .write('shared/cycle.json', JSON.stringify({ definitions: { A: { $ref: '#/definitions/B' }, B: { $ref: '#/definitions/A' } } }))
      .edit('orders/asyncapi/asyncapi.yaml', "payload: { $ref: '#/components/schemas/Order' }", "payload: { $ref: '../../shared/cycle.json#/definitions/A' }")
      .relock(['shared/cycle.json'])
    const result = await compile(shop.doc('orders'))
    const found = result.diagnostics.filter((d) => d.code === 'NATS_SCHEMA_CYCLE')
    // The message is on two channels: one report at each.
    expect(found.map((d) => d.pointer).sort()).toEqual(['/channels/orderLookupReply/messages/order', '/channels/orderPlaced/messages/placed'])
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    expect(found.every((d) => d.severity === 'warning')).toBe(true)
  })

  it('contracts diff compares such a schema as one that accepts nothing: never the same as another (both ways)', async () => {
    const dir = testFolder('nats-schema-cycle-diff')
    const integer = join(dir, 'integer.asyncapi.yaml')
    const cycle = join(dir, 'cycle.asyncapi.yaml')
    writeFileSync(integer, withSchemas('    Parent: { type: integer }\n'))
    writeFileSync(cycle, withSchemas("    Parent: { $ref: '#/components/schemas/Child' }\n    Child: { $ref: '#/components/schemas/Parent' }\n"))
    for (const [old, next, effect] of [
      [integer, cycle, 'narrows'],
      [cycle, integer, 'widens'],
    ] as const) {
      const result = await diffContracts({ file: old }, { file: next }, { formats, loadDiffer })
      expect(result.valid).toBe(true)
      const changes = result.findings.filter((f) => f.rule.startsWith('schema-'))
      expect(changes.length, JSON.stringify(result.findings)).toBeGreaterThan(0)
      expect(changes.every((f) => (f.data as { effect?: string }).effect === effect)).toBe(true)
      expect(changes.some((f) => f.level === 'breaking')).toBe(true)
    }
    // The same cycle on both sides is no change.
    const same = await diffContracts({ file: cycle }, { file: cycle }, { formats, loadDiffer })
    expect(same.findings.filter((f) => f.rule.startsWith('schema-'))).toEqual([])
  })
})
