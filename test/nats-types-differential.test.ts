/**
 * NATS payload types and validators agree (issue 30), on random draft-07 payload schemas of the
 * keyword set the type writer reads (`type` one, a list or none; `properties`, `required`,
 * `additionalProperties`, `items` one or a tuple, `additionalItems`, `enum`, `const`, `anyOf`,
 * `oneOf`, `allOf`, `$ref`, and bounds a type cannot say). All schemas are channels of one
 * document, compiled once; every value is checked by the channel's generated validator and, as a
 * literal of the channel's payload type, by one tsc --strict run:
 * - a value the validator accepts type-checks (the type is never narrower than the validator);
 * - where the schema is expressible in TypeScript (no bounds, `integer`, combinators or schemas
 *   for additional members), a value the type admits is accepted (never wider either).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { loadModule } from './helpers/load-module.js'
import { typecheck } from './helpers/typecheck.js'
import { random } from './helpers/seeded-random.js'

// `DIFFERENTIAL_RUNS=400 DIFFERENTIAL_SEED=7 npx vitest run test/nats-types-differential.test.ts` for a longer search.
const RUNS = Number(process.env.DIFFERENTIAL_RUNS ?? 40)
const SEED = Number(process.env.DIFFERENTIAL_SEED ?? 20260530)
const VALUES_PER_SCHEMA = 12
const ledger = readFileSync(join(import.meta.dirname, '../fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8')
const work = join(import.meta.dirname, '.tmp', 'nats-types-differential')

type Schema = boolean | { [keyword: string]: unknown }

/** Components the random schemas may refer to: one a type can say exactly, one it cannot (a bound). */
const COMPONENTS: Record<string, Schema> = {
  Pair: { type: 'object', required: ['a'], additionalProperties: false, properties: { a: { type: 'boolean' }, b: { type: ['string', 'null'] } } },
  Word: { type: 'string', maxLength: 3 },
}

// ---- Schemas ----

const KEYS = ['a', 'b', 'x-y', '1']
const scalar = fc.constantFrom<unknown>(null, true, false, 0, 1, -1, 2.5, 'a', 'ab', '')
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined })
const strip = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))
const TYPES = ['string', 'number', 'integer', 'boolean', 'null', 'array', 'object']

const schema: fc.Arbitrary<Schema> = fc.letrec<{ schema: Schema; leaf: Schema; object: Schema; array: Schema; combined: Schema }>((tie) => ({
  schema: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('leaf'), tie('object'), tie('array'), tie('combined')),
  leaf: fc.oneof(
    fc.constantFrom<Schema>(true, false, { $ref: '#/components/schemas/Pair' }, { $ref: '#/components/schemas/Word' }),
    fc.record({ type: fc.oneof(fc.constantFrom(...TYPES), fc.uniqueArray(fc.constantFrom(...TYPES), { minLength: 1, maxLength: 3 })) }),
    fc
      .record({
        type: maybe(fc.constantFrom('string', 'number', 'integer')),
        enum: fc.uniqueArray(scalar, { minLength: 1, maxLength: 3, selector: (v) => JSON.stringify(v) }),
      })
      .map(strip),
    fc.record({ const: scalar }),
    fc.record({ type: fc.constant('string'), maxLength: fc.nat(3) }),
    fc.record({ type: fc.constant('number'), minimum: fc.integer({ min: -1, max: 2 }) }),
  ),
  // With `type: object`, another type beside it, or no type at all (draft-07: other values pass).
  object: fc
    .record({
      type: fc.constantFrom<unknown>(undefined, 'object', ['object', 'null'], ['object', 'string']),
      properties: maybe(fc.dictionary(fc.constantFrom(...KEYS), tie('schema'), { maxKeys: 3 })),
      required: maybe(fc.uniqueArray(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 2 })),
      additionalProperties: maybe(fc.oneof(fc.boolean(), tie('leaf'))),
    })
    .map(strip)
    .filter((s) => s.type !== undefined || Object.keys(s).length > 0),
  array: fc
    .record({
      type: fc.constantFrom<unknown>(undefined, 'array', ['array', 'number']),
      items: fc.oneof(tie('schema'), fc.array(tie('schema'), { minLength: 1, maxLength: 3 })),
      additionalItems: maybe(fc.oneof(fc.boolean(), tie('leaf'))),
      minItems: maybe(fc.nat(2)),
    })
    .map(strip),
  combined: fc.oneof(
    fc.record({ anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 2 }) }),
    fc.record({ oneOf: fc.array(tie('schema'), { minLength: 1, maxLength: 2 }) }),
    fc.record({ allOf: fc.array(tie('schema'), { minLength: 1, maxLength: 2 }) }),
  ),
})).schema

/** A message payload must be a schema object (AsyncAPI 3.1.0): `true` and `false` only inside one. */
const payloadSchema = schema.filter((s) => typeof s === 'object')

/** Keywords a TypeScript type says exactly (with `additionalProperties`/`additionalItems` as booleans only). */
const EXACT = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'additionalItems', 'enum', 'const', '$ref'])

/** Is `s` expressible in TypeScript: does the generated type admit exactly what the validator accepts? */
function expressible(s: unknown, depth = 0): boolean {
  if (typeof s === 'boolean') return true
  if (typeof s !== 'object' || s === null || depth > 16) return false
  const o = s as Record<string, unknown>
  if (typeof o.$ref === 'string') return expressible(COMPONENTS[o.$ref.split('/').pop()!], depth + 1)
  if (Object.keys(o).some((k) => !EXACT.has(k))) return false
  const types = o.type === undefined ? [] : ([] as unknown[]).concat(o.type)
  if (types.includes('integer')) return false
  if (o.additionalProperties !== undefined && typeof o.additionalProperties !== 'boolean') return false
  if (o.additionalItems !== undefined && typeof o.additionalItems !== 'boolean') return false
  const children = [
    ...Object.values((o.properties ?? {}) as Record<string, unknown>),
    ...(Array.isArray(o.items) ? o.items : o.items === undefined ? [] : [o.items]),
  ]
  return children.every((c) => expressible(c, depth + 1))
}

// ---- Values: mostly built from the schema, so that many are valid, and some random ----

const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...KEYS, 'z'), tie('value'), { maxKeys: 3 }),
  ),
})).value

function instance(s: unknown, rnd: () => number, depth = 0): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!
  if (typeof s !== 'object' || s === null || depth > 6 || rnd() < 0.08) return pick([null, 0, 'a', true, [], {}])
  const o = s as Record<string, any>
  if (o.$ref) return instance(COMPONENTS[o.$ref.split('/').pop()], rnd, depth + 1)
  if (o.const !== undefined) return o.const
  if (o.enum) return pick(o.enum)
  const list = o.anyOf ?? o.oneOf ?? o.allOf
  if (list) return instance(pick(list), rnd, depth + 1)
  const types: string[] =
    o.type === undefined ? (o.properties || o.required ? ['object', 'string'] : o.items ? ['array', 'number'] : ['string']) : [].concat(o.type)
  switch (pick(types)) {
    case 'string':
      return pick(['a', 'abcd', ''])
    case 'number':
      return pick([0, 2.5, -1])
    case 'integer':
      return pick([0, 1, 3])
    case 'boolean':
      return rnd() < 0.5
    case 'null':
      return null
    case 'array':
      return Array.isArray(o.items)
        ? o.items.slice(0, Math.floor(rnd() * (o.items.length + 2))).map((i: unknown) => instance(i, rnd, depth + 1))
        : Array.from({ length: Math.floor(rnd() * 3) }, () => instance(o.items, rnd, depth + 1))
    default: {
      const out: Record<string, unknown> = {}
      for (const [k, child] of Object.entries((o.properties ?? {}) as Record<string, unknown>))
        if (o.required?.includes(k) || rnd() < 0.6) out[k] = instance(child, rnd, depth + 1)
      for (const k of o.required ?? []) if (!(k in out)) out[k] = pick(['a', 1, null])
      if (rnd() < 0.15) out.z = 1
      return out
    }
  }
}

// ---- The property ----

describe('NATS payload types are exactly as wide as the generated validators (random draft-07 schemas)', () => {
  it('a value the validator accepts type-checks; where the schema is expressible, a value the type admits is accepted', async () => {
    const cases = fc.sample(fc.tuple(payloadSchema, fc.integer(), fc.array(jsonValue, { minLength: 4, maxLength: 4 })), { numRuns: RUNS, seed: SEED })
    // Every schema a reply channel (no address, so no subject profile) of one document: one compile.
    const channels = cases.map(([s], i) => `  probe${i}:\n    messages:\n      m:\n        payload: ${JSON.stringify(s)}\n`).join('')
    const components = Object.entries(COMPONENTS)
      .map(([name, s]) => `    ${name}: ${JSON.stringify(s)}\n`)
      .join('')
    const text = ledger
      .replace('\noperations:\n', `\n${channels}operations:\n`)
      .replace('components:\n  messages:\n', `components:\n  schemas:\n${components}  messages:\n`)
    expect(text).toContain('probe0')
    expect(text).toContain('    Pair: ')
    mkdirSync(work, { recursive: true })
    const file = join(work, `probes-${process.pid}.asyncapi.yaml`)
    writeFileSync(file, text)
    let result: Awaited<ReturnType<typeof compile>>
    try {
      result = await compile(file)
    } finally {
      rmSync(file)
    }
    // Every random schema is a valid payload schema: a refusal would be a wrong verdict too.
    expect(result.diagnostics).toEqual([])
    const mod = await loadModule(result.code!, 'nats-types-differential')
    const lines = ["import * as probes from './probes.js'", 'type P<C> = C extends { readonly __payload?: infer M } ? Exclude<M, undefined> : never']
    const checked: Array<{ schema: number; value: unknown; accepted: boolean; line: number }> = []
    for (const [i, [s, seed, random_]] of cases.entries()) {
      const validate = mod[`probe${i}`].validatePayload as (v: unknown) => boolean
      const rnd = random(seed)
      const values = [...Array.from({ length: VALUES_PER_SCHEMA - random_.length }, () => instance(s, rnd)), ...random_]
      for (const value of values) {
        const copy = JSON.parse(JSON.stringify(value ?? null)) as unknown
        lines.push(`export const v${checked.length}: P<typeof probes.probe${i}> = ${JSON.stringify(copy)}`)
        checked.push({ schema: i, value: copy, accepted: validate(copy), line: lines.length })
      }
    }
    const r = typecheck(work, { probes: result.dts! }, { 'use.ts': `${lines.join('\n')}\n` })
    const refusedLines = new Set([...r.output.matchAll(/use\.ts\((\d+),/g)].map((m) => Number(m[1])))
    const disagreements = checked
      .filter((c) => (c.accepted ? refusedLines.has(c.line) : !refusedLines.has(c.line) && expressible(cases[c.schema]![0])))
      .map((c) => ({
        schema: JSON.stringify(cases[c.schema]![0]),
        type: typeLine(result.dts!, c.schema),
        value: JSON.stringify(c.value),
        validator: c.accepted,
      }))
    expect(disagreements).toEqual([])
    // Both verdicts, and expressible schemas, must actually occur, or the property says nothing.
    expect(checked.filter((c) => c.accepted).length).toBeGreaterThan(RUNS * 2)
    expect(checked.filter((c) => !c.accepted).length).toBeGreaterThan(RUNS * 2)
    expect(cases.filter(([s]) => expressible(s)).length).toBeGreaterThan(RUNS / 10)
    // Every tsc error is on a value line: a broken declaration file would otherwise pass for refusals.
    expect([...refusedLines].filter((l) => l <= 2)).toEqual([])
    expect(r.output.split('\n').filter((l) => l.trim() !== '' && !/^use\.ts\(|^\s/.test(l))).toEqual([])
  }, 120_000)
})

function typeLine(dts: string, i: number): string | undefined {
  return dts.split('\n').find((l) => l.startsWith(`export declare const probe${i}:`))
}
