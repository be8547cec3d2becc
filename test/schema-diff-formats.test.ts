/**
 * `format` against the generated Benzene validators themselves: every pair of formats (none, the
 * checked ones, two that document) on `string`, `integer` and `number` schemas, with each reading
 * of the `int64` option, converted by Benzene's own converter (formats/benzene/json-schema.ts) and
 * run by ajv configured as the generated validators are. Over a universe holding a value of each
 * format and the edges of int32 and int64, a direction the engine does not claim has no value, and
 * an effect of `none` has none either way.
 */
import { Ajv } from 'ajv'
import { describe, expect, it } from 'vitest'
import { diffSchemas } from '../src/core/diff/schema-diff.js'
import type { SchemaEffect } from '../src/core/diff/schema-diff-types.js'
import { convert, type ConvertContext } from '../src/formats/benzene/json-schema.js'
import { SchemaFacts } from '../src/formats/benzene/schema-facts.js'
import { sideOf } from './helpers/schema-diff.js'

const FORMATS = [undefined, 'date', 'date-time', 'uuid', 'byte', 'int32', 'int64', 'email', 'double']
const TYPES = ['string', 'integer', 'number']
const UNIVERSE: unknown[] = [
  '',
  'a',
  '-',
  '5',
  '2024-02-29',
  '2023-02-29',
  '2024-02-29T12:00:00Z',
  '123e4567-e89b-12d3-a456-426614174000',
  'AAAA',
  'AA==',
  'someone@example.com',
  0,
  5,
  -3,
  2.5,
  2147483647,
  2147483648,
  -2147483649,
  1e19,
  null,
]

const ajv = new Ajv({ strict: false, validateFormats: false, unicodeRegExp: true, validateSchema: false, allErrors: true, code: { optimize: false } })

/** The generated validator of one component schema, as Benzene converts it for a response. */
function generated(schema: Record<string, unknown>, int64: 'number' | 'string'): (value: unknown) => boolean {
  const doc = { openapi: '3.0.1', components: { schemas: { S: schema } } }
  const ctx: ConvertContext = { facts: new SchemaFacts(doc), direction: 'response', int64, documentId: 'res', keys: new Map(), pending: [], asked: new Set() }
  const validate = ajv.compile(convert(schema, ctx) as object)
  return (value) => validate(value) as boolean
}

const claims = (effects: SchemaEffect[]) => ({
  widens: effects.some((e) => e === 'widens' || e === 'both' || e === 'unknown'),
  narrows: effects.some((e) => e === 'narrows' || e === 'both' || e === 'unknown'),
})

describe('format changes against the generated Benzene validators', () => {
  it('no unclaimed direction has a value, for every pair of formats, types and int64 readings', () => {
    const failures: string[] = []
    let decided = 0
    let compared = 0
    let differing = 0
    for (const int64 of ['number', 'string'] as const)
      for (const type of TYPES)
        for (const f of FORMATS)
          for (const g of FORMATS) {
            if (f === g) continue
            const a = { type, ...(f ? { format: f } : {}) }
            const b = { type, ...(g ? { format: g } : {}) }
            const changes = diffSchemas(
              sideOf({ components: { schemas: { S: a } } }, '/components/schemas/S'),
              sideOf({ components: { schemas: { S: b } } }, '/components/schemas/S'),
              {
                dialect: 'openapi-3.0',
                int64,
              },
            )
            compared++
            const effects = changes.map((c) => c.effect)
            if (!effects.includes('unknown')) decided++
            const claim = claims(effects)
            const oldAccepts = generated(a, int64)
            const newAccepts = generated(b, int64)
            if (UNIVERSE.some((value) => oldAccepts(value) !== newAccepts(value))) differing++
            for (const value of UNIVERSE) {
              const o = oldAccepts(value)
              const n = newAccepts(value)
              const shown = `${JSON.stringify(a)} -> ${JSON.stringify(b)} (int64 ${int64}): ${JSON.stringify(value)}; engine ${JSON.stringify(effects)}`
              if (n && !o && !claim.widens) failures.push(`only new accepts ${shown}`)
              if (o && !n && !claim.narrows) failures.push(`only old accepts ${shown}`)
            }
          }
    expect(failures.slice(0, 5)).toEqual([])
    expect(compared).toBe(2 * 3 * 9 * 8)
    // With the int64 option given, every pair is decided; and the validators do check formats.
    expect(decided).toBe(compared)
    expect(differing).toBeGreaterThan(compared / 3)
  })

  it('a witness in an object with a member of each format and type is confirmed by the generated validators (the engine reads checked formats as they do)', () => {
    const failures: string[] = []
    let witnessed = 0
    for (const int64 of ['number', 'string'] as const)
      for (const type of TYPES)
        for (const format of FORMATS) {
          // The change is elsewhere (n's minimum); the base of its witness holds a value of the formatted member.
          const object = (minimum: number) => ({
            type: 'object',
            required: ['f', 'n'],
            properties: { f: { type, ...(format ? { format } : {}) }, n: { type: 'integer', minimum } },
          })
          const [a, b] = [object(0), object(1)]
          const changes = diffSchemas(
            sideOf({ components: { schemas: { S: a } } }, '/components/schemas/S'),
            sideOf({ components: { schemas: { S: b } } }, '/components/schemas/S'),
            { dialect: 'openapi-3.0', int64 },
          )
          const witness = changes[0]?.witness
          const shown = `${type} ${format} (int64 ${int64}): ${JSON.stringify(witness)}`
          // int64 as text takes a decimal string for an integer: its minimal value is no integer, so no witness is sure there.
          if (witness === undefined) {
            if (!(format === 'int64' && int64 === 'string' && type === 'integer')) failures.push(`no witness: ${shown}`)
            continue
          }
          witnessed++
          expect(witness.acceptedBy).toBe('old')
          if (!generated(a, int64)(witness.value)) failures.push(`the old validator refuses ${shown}`)
          if (generated(b, int64)(witness.value)) failures.push(`the new validator accepts ${shown}`)
        }
    expect(failures).toEqual([])
    expect(witnessed).toBe(2 * 3 * 9 - 1)
  })

  it('without the int64 option, a change involving a checked int64 is unknown', () => {
    const changes = diffSchemas(
      sideOf({ components: { schemas: { S: { type: 'integer', format: 'int32' } } } }, '/components/schemas/S'),
      sideOf({ components: { schemas: { S: { type: 'integer', format: 'int64' } } } }, '/components/schemas/S'),
      { dialect: 'openapi-3.0' },
    )
    expect(changes.map((c) => [c.rule, c.effect])).toEqual([['schema-format-changed', 'unknown']])
    expect(changes[0]!.message).toMatch(/depends on the int64 option/)
  })
})
