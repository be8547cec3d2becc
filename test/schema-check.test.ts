/**
 * The Benzene payload validators (`src/runtime/schema-check.ts`) against ajv, the reference they
 * replaced: on generated schemas of the converter's keyword set and generated data, both must agree
 * on validity and report the same errors (path, keyword, member, message); and every payload
 * schema of the Benzene fixtures, converted, must give the same answers on sampled payloads.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { benzeneDocument } from '../bench/generate.js'
import { convert, definitionsDocument, type ConvertContext, type Direction } from '../src/formats/benzene/json-schema.js'
import { SchemaFacts } from '../src/formats/benzene/schema-facts.js'
import { schemaValidator, type Schema } from '../src/runtime/shared/schema-check.js'
import type { SchemaError } from '../src/runtime/shared/schema-errors.js'
import { evaluateDeclarations, generatedValidator } from './helpers/validator-code.js'
import { perRunReference } from './helpers/ajv-reference.js'
import { componentForm, generatedForm, payloadValidators, reachesConverted } from '../src/formats/nats/payload-validators.js'
import { ValidatorPlan, type ConvertedComponent, type PayloadPlan } from '../src/formats/nats/validator-plan.js'

const require = createRequire(import.meta.url)
const Ajv = require('ajv') as typeof import('ajv').default
/**
 * The reference's options. `code.optimize` off: ajv then skips the pass that simplifies its generated
 * code (the same checks, the same errors), which was a third of ajv's time when it compiles a fresh
 * schema on every run of a property.
 */
const AJV_OPTIONS = { allErrors: true, ownProperties: true, strict: false, validateFormats: false, unicodeRegExp: true, code: { optimize: false } } as const

const DEFINITIONS = {
  'defs#/definitions/node': { type: 'object', properties: { next: { $ref: 'defs#/definitions/node' }, v: { type: 'integer' } }, additionalProperties: false },
  'defs#/definitions/word': { type: 'string', minLength: 1, pattern: '^[a-z]+$' },
  'defs#/definitions/money': { type: 'object', required: ['a', 'c'], properties: { a: { type: 'number', minimum: 0 }, c: { enum: ['EUR', 'USD'] } } },
} satisfies Record<string, Schema>

/** The reference for the generated schemas, one per run (test/helpers/ajv-reference.ts); the definitions never change. */
const reference = perRunReference(new Ajv(AJV_OPTIONS))
const DEFS = { $id: 'defs', definitions: Object.fromEntries(Object.entries(DEFINITIONS).map(([k, v]) => [k.split('/').pop(), v])) }
const ajvFor = (schema: Schema) => reference(schema, { ...DEFS })

const KEYS = ['a', 'b', 'c', 'next', 'v', 'x/y', 'm~n', '__proto__', 'constructor']
const key = fc.constantFrom(...KEYS)
const scalar = fc.oneof(
  fc.constantFrom(null, true, false, 0, 1, -1, 2.5, 3, 10, 'a', 'abc', 'EUR', 'ZZ', '12', '', '😀x'),
  fc.integer({ min: -20, max: 20 }),
  fc.string({ maxLength: 4 }),
)
const data = fc
  .letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, scalar, tie('array'), tie('object')),
    array: fc.array(tie('value'), { maxLength: 4 }),
    object: fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  }))
  .value.map((v) => JSON.parse(JSON.stringify(v)) as unknown) // payloads are JSON: plain objects

const PATTERNS = ['^a', '^[0-9]+$', '\\d', '^.{2}$', '^\\p{L}+$']
const schema: fc.Arbitrary<Schema> = fc.letrec((tie) => ({
  schema: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('leaf'), tie('object'), tie('array'), tie('combined')),
  leaf: fc.oneof(
    fc.constantFrom<Schema>(true, false, { $ref: 'defs#/definitions/node' }, { $ref: 'defs#/definitions/word' }, { $ref: 'defs#/definitions/money' }),
    fc.record({
      type: fc.constantFrom<string | string[]>('string', 'number', 'integer', 'boolean', 'null', 'array', 'object', ['string', 'null'], ['integer', 'null']),
    }),
    fc.record({ enum: fc.uniqueArray(scalar, { minLength: 1, maxLength: 3, selector: (v) => JSON.stringify(v) }) }),
    fc.record({ const: scalar }),
    fc.record(
      {
        minimum: fc.integer({ min: -5, max: 5 }),
        maximum: fc.integer({ min: 0, max: 20 }),
        exclusiveMinimum: fc.integer({ min: -5, max: 5 }),
        exclusiveMaximum: fc.integer({ min: 0, max: 20 }),
        multipleOf: fc.constantFrom(1, 2, 0.5, 3),
      },
      { requiredKeys: [] },
    ),
    fc.record({ type: fc.constant('string'), minLength: fc.nat(3), maxLength: fc.nat(4), pattern: fc.constantFrom(...PATTERNS) }, { requiredKeys: ['type'] }),
    // One type beside other kinds' keywords: the type's own checks are written first and the
    // others' after its `else` (the code writer moves them when they come first in its order).
    fc.record(
      {
        type: fc.constantFrom<string | string[]>('string', 'array', 'object', 'integer', ['array'], ['object']),
        minimum: fc.integer({ min: -5, max: 5 }),
        maxLength: fc.nat(4),
        pattern: fc.constantFrom(...PATTERNS),
        maxItems: fc.nat(3),
        required: fc.uniqueArray(key, { maxLength: 2 }),
        maxProperties: fc.nat(3),
      },
      { requiredKeys: ['type'] },
    ),
  ),
  object: fc.record(
    {
      type: fc.constant('object'),
      // A property named __proto__ is the one thing ajv cannot take as a property; the converter
      // writes it as patternProperties `^__proto__$`, generated below.
      properties: fc.dictionary(
        key.filter((k) => k !== '__proto__'),
        tie('schema'),
        { maxKeys: 3 },
      ),
      required: fc.uniqueArray(key, { maxLength: 3 }),
      additionalProperties: fc.oneof(fc.constant(false), tie('schema')),
      patternProperties: fc.dictionary(fc.constantFrom('^a', '^__proto__$', 'y$'), tie('schema'), { maxKeys: 2 }),
      minProperties: fc.nat(2),
      maxProperties: fc.nat(4),
    },
    { requiredKeys: ['type'] },
  ),
  array: fc.record(
    { type: fc.constant('array'), items: tie('schema'), minItems: fc.nat(2), maxItems: fc.nat(4), uniqueItems: fc.boolean() },
    { requiredKeys: ['type'] },
  ),
  combined: fc.oneof(
    fc.record({ allOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ not: tie('schema') }),
    fc.record({ if: tie('schema'), then: tie('schema') }),
    fc.record({ anyOf: fc.tuple(fc.constant<Schema>({ type: 'null' }), tie('schema')) }),
  ),
})).schema as fc.Arbitrary<Schema>

/** What an application sees of an error: its path and keyword, the member it names, the message. */
const seen = (errors: ReadonlyArray<Partial<SchemaError>> | null | undefined) =>
  (errors ?? [])
    .map((e) =>
      [
        e.instancePath,
        e.keyword,
        e.params?.missingProperty ?? e.params?.additionalProperty ?? '',
        e.keyword === 'uniqueItems' || e.keyword === 'oneOf' ? '' : e.message,
      ].join(' | '),
    )
    .sort()

describe('schema interpreter', () => {
  it('agrees with ajv on generated schemas and data', () => {
    fc.assert(
      fc.property(schema, fc.array(data, { minLength: 1, maxLength: 6 }), (s, values) => {
        const ours = schemaValidator(s, DEFINITIONS)
        const code = generatedValidator(s, DEFINITIONS)
        const theirs = ajvFor(s)
        for (const value of values) {
          const valid = ours(value)
          expect([valid, seen(ours.errors)]).toEqual([theirs(value), seen(theirs.errors)])
          // The generated code and the interpreter: the same errors, in the same order.
          expect([code(value), code.errors]).toEqual([valid, ours.errors])
        }
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 400) },
    )
  })

  it('agrees with ajv on every payload schema the converter derives from the Benzene fixtures', () => {
    const dir = join(import.meta.dirname, '../fixtures/benzene/valid')
    const documents = [...readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8')), benzeneDocument(5)].map((t) => JSON.parse(t) as Record<string, any>)
    let compared = 0
    for (const doc of documents) {
      const catalogue = doc.components?.schemas ?? {}
      for (const direction of ['request', 'response'] as Direction[]) {
        const ctx: ConvertContext = {
          facts: new SchemaFacts(doc),
          direction,
          int64: 'string',
          documentId: 'doc',
          keys: new Map(),
          pending: [],
          asked: new Set(),
        }
        const roots = Object.keys(catalogue).map((name) => convert({ $ref: `#/components/schemas/${name}` }, ctx))
        const defs = definitionsDocument(ctx)
        const definitions = Object.fromEntries(Object.entries(defs.definitions as Record<string, Schema>).map(([k, v]) => [`doc#/definitions/${k}`, v]))
        const ajv = new Ajv(AJV_OPTIONS)
        ajv.addSchema(defs)
        const samples = [...(doc.requests ?? []).flatMap((r: any) => [r.example]), ...fc.sample(data, 40)].filter((v) => v !== undefined)
        for (const root of roots) {
          const ours = schemaValidator(root as Schema, definitions)
          const code = generatedValidator(root as Schema, definitions)
          const theirs = ajv.compile(root as object)
          for (const value of samples) {
            expect([ours(value), seen(ours.errors)]).toEqual([theirs(value), seen(theirs.errors)])
            expect([code(value), code.errors]).toEqual([ours(value), ours.errors])
            compared++
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(500)
  })

  it('refuses keywords it does not implement and references it cannot resolve, up front', () => {
    expect(() => schemaValidator({ propertyNames: {} } as never)).toThrow(/unsupported schema keyword propertyNames/)
    expect(() => schemaValidator({ $ref: 'defs#/definitions/missing' })).toThrow(/not defined/)
  })

  it('judges own members only: inherited names are neither present nor missing', () => {
    const validate = schemaValidator({ type: 'object', required: ['constructor'], properties: { toString: { type: 'string' } } })
    expect(validate({})).toBe(false)
    expect(validate.errors).toEqual([
      { instancePath: '', keyword: 'required', params: { missingProperty: 'constructor' }, message: "must have required property 'constructor'" },
    ])
    expect(validate(JSON.parse('{"constructor": 1, "__proto__": {"x": 1}}'))).toBe(true)
  })

  it('generated code judges own members only too, for objects whose prototype has enumerable members', () => {
    const schema: Schema = { type: 'object', additionalProperties: false, properties: { a: { type: 'string' }, b: { type: 'integer', minimum: 1 } } }
    const code = generatedValidator(schema)
    const interpreted = schemaValidator(schema)
    // `for...in` meets the prototype's `extra`, `a` and `b`: none of them is the object's own.
    const inherits = Object.assign(Object.create({ extra: 1, a: 5, b: 'x' }) as object, { b: 2 })
    const wrongOwn = Object.assign(Object.create({ a: 'fine' }) as object, { a: 5, extra: true })
    for (const value of [inherits, wrongOwn, {}, { a: 'x', b: 0 }]) {
      expect([code(value), code.errors]).toEqual([interpreted(value), interpreted.errors])
    }
    expect(code(inherits)).toBe(true)
    expect(code(wrongOwn)).toBe(false)
    expect(code.errors!.map((e) => [e.instancePath, e.keyword])).toEqual([
      ['', 'additionalProperties'],
      ['/a', 'type'],
    ])
  })
})

describe('values as the OpenAPI 3.0 dialect means them', () => {
  const converted = (schema: Record<string, unknown>) =>
    schemaValidator(
      convert(schema, {
        facts: new SchemaFacts({}),
        direction: 'request',
        int64: 'string',
        documentId: 'doc',
        keys: new Map(),
        pending: [],
        asked: new Set(),
      }) as Schema,
    )

  it('multipleOf is decided on the decimal numbers written, not on a float quotient', () => {
    const cents = converted({ type: 'number', multipleOf: 0.01 })
    for (const amount of [19.99, 0.07, 1.1, -19.99, 0, 1234567.89, 100]) expect(cents(amount), String(amount)).toBe(true)
    for (const amount of [19.999, 0.001, 1e-7]) expect(cents(amount), String(amount)).toBe(false)
    expect(converted({ type: 'number', multipleOf: 0.1 })(0.3)).toBe(true) // 0.3 / 0.1 is 2.9999999999999996 in binary
    expect(converted({ type: 'number', multipleOf: 1.5 })(4.5)).toBe(true)
    expect(converted({ type: 'number', multipleOf: 0.5 })(7.25)).toBe(false)
    // Large numbers: 1e300 is not a multiple of 3, though 1e300 / 3 is an integral double.
    expect(converted({ type: 'number', multipleOf: 3 })(1e300)).toBe(false)
    expect(converted({ type: 'integer', multipleOf: 7 })(49)).toBe(true)
  })

  it('format: date is an RFC 3339 full-date, calendar-exact: every day of every month of sample years', () => {
    const date = converted({ type: 'string', format: 'date' })
    const pad = (n: number, width: number) => String(n).padStart(width, '0')
    let checked = 0
    for (const year of [0, 4, 100, 400, 1600, 1700, 1800, 1900, 1996, 1999, 2000, 2023, 2024, 2100, 2400, 9996, 9999]) {
      const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
      for (let month = 0; month <= 13; month++) {
        const last = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0
        for (let day = 0; day <= 32; day++, checked++) {
          const text = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`
          expect(date(text), text).toBe(day >= 1 && day <= last)
        }
      }
    }
    expect(checked).toBe(17 * 14 * 33)
    for (const text of ['2026-1-01', '26-01-01', '2026-01-01T00:00:00Z', ' 2026-01-01', '2026-01-45', '2026-13-01']) expect(date(text), text).toBe(false)
  })

  it('format: date-time is an RFC 3339 date-time: the date as above, hours 00-23, offsets in range', () => {
    const dateTime = converted({ type: 'string', format: 'date-time' })
    for (const text of ['2026-11-30T10:00:00Z', '2024-02-29t23:59:60.123z', '2026-01-01T00:00:00+14:00', '2026-06-30T12:30:45.5-03:30'])
      expect(dateTime(text), text).toBe(true)
    for (const text of [
      '2026-02-30T10:00:00Z',
      '2023-02-29T10:00:00Z',
      '2026-13-01T10:00:00Z',
      '2026-11-30T24:00:00Z',
      '2026-11-30T10:60:00Z',
      '2026-11-30T10:00:61Z',
      '2026-11-30T10:00:00+24:00',
      '2026-11-30T10:00:00',
      '2026-11-30 10:00:00Z',
    ])
      expect(dateTime(text), text).toBe(false)
  })
})

describe('NATS payload validators', () => {
  // Interactions with `runtime-schema-check` get the interpreter when their payload schema keeps to
  // its keywords (annotations, `format` and `x-` members dropped), ajv standalone code otherwise.
  // Either way the answers must be the ones ajv gives for the document's own schema.
  const components = Object.fromEntries(Object.entries(DEFINITIONS).map(([k, v]) => [k.split('/').pop()!, asComponent(v)]))
  function asComponent(s: Schema): unknown {
    return JSON.parse(JSON.stringify(s).replaceAll('defs#/definitions/', '#/components/schemas/'))
  }
  /** Annotations ajv does not check, sprinkled over every schema object. */
  function annotate(s: unknown, n = { i: 0 }): unknown {
    if (Array.isArray(s)) return s.map((v) => annotate(v, n))
    if (s === null || typeof s !== 'object') return s
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(s))
      out[k] = ['properties', 'patternProperties'].includes(k)
        ? Object.fromEntries(Object.entries(v as object).map(([p, sub]) => [p, annotate(sub, n)]))
        : ['enum', 'const', 'required', 'type'].includes(k)
          ? v
          : annotate(v, n)
    const pick = n.i++ % 4
    if (pick === 0) Object.assign(out, { description: 'd', 'x-note': { any: 'thing' } })
    if (pick === 1) Object.assign(out, { title: 't', format: 'email', examples: [1] })
    if (pick === 2 && out.$ref === undefined) Object.assign(out, { default: 3, deprecated: true })
    return out
  }
  const payloadReference = perRunReference(new Ajv(AJV_OPTIONS))
  const ajvReference = (payload: unknown) => payloadReference({ components: { schemas: components }, allOf: [payload] })
  const build = (payload: unknown) => {
    // The plan check would decide for this payload (validator-plan.ts), made from the same pieces.
    const converted = new Map<string, ConvertedComponent>()
    const convertedOf = (ref: string) => {
      if (!converted.has(ref)) converted.set(ref, componentForm(ref, components))
      return converted.get(ref)
    }
    const form = generatedForm(payload)
    const plan: PayloadPlan =
      form !== undefined && reachesConverted(form.refs, convertedOf)
        ? { backend: 'generated', schema: form.schema, refs: form.refs, patterns: new Map() }
        : { backend: 'ajv', patterns: new Map() }
    const validatorPlan = new ValidatorPlan(components, converted, new Map(), new Map(), new Map())
    const { definitions, validators } = payloadValidators([{ id: 'it', schema: payload, plan }], validatorPlan)
    const expression = validators.get('it')!
    const validate = evaluateDeclarations(definitions, expression)
    return { validate, interpreted: expression.startsWith('$payload') }
  }

  it('agree with ajv on generated schemas with annotations and component references', () => {
    let interpreted = 0
    fc.assert(
      fc.property(schema, fc.array(data, { minLength: 1, maxLength: 6 }), (s, values) => {
        const payload = annotate(asComponent(s))
        const ours = build(payload)
        const theirs = ajvReference(payload)
        if (ours.interpreted) interpreted++
        for (const value of values) expect([ours.validate(value), seen(ours.validate.errors)]).toEqual([theirs(value), seen(theirs.errors)])
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    )
    // Generated schemas keep to the interpreter's keywords (a property named __proto__ aside).
    expect(interpreted).toBeGreaterThan(Number(process.env.FUZZ_RUNS ?? 300) / 2)
  })

  it('decide multipleOf in decimal on both paths: 19.99 is a multiple of 0.01', () => {
    const plain = build({ type: 'object', properties: { amount: { type: 'number', multipleOf: 0.01 } } })
    const viaAjv = build({ type: 'object', properties: { amount: { type: 'number', multipleOf: 0.01 } }, propertyNames: { minLength: 1 } })
    expect([plain.interpreted, viaAjv.interpreted]).toEqual([true, false])
    for (const { validate } of [plain, viaAjv]) {
      expect(validate({ amount: 19.99 })).toBe(true)
      expect(validate({ amount: 0.3 })).toBe(true)
      expect(validate({ amount: 19.995 })).toBe(false)
    }
  })

  it('leave what the interpreter does not implement to ajv, with the same answers', () => {
    const payloads = [
      { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false },
      { type: 'object', dependencies: { a: ['b'] } },
      { type: 'object', propertyNames: { pattern: '^[a-z]+$' } },
      JSON.parse('{ "type": "object", "properties": { "__proto__": { "type": "string" } } }'),
      { $ref: '#/components/schemas/money', required: ['x'] },
      { $ref: '#/components/schemas/money/properties/a' },
      { type: 'object', properties: { a: { $ref: '#/components/schemas/%6Eode' } } },
      { if: { type: 'string' }, then: { minLength: 2 }, else: { type: 'number' } },
    ]
    // ajv's code skips a member named `__proto__` (it reads `data.__proto__`, the prototype): the
    // reference is given the same meaning in a form ajv reads, a pattern that names only that member.
    const meaning = (schema: Record<string, any>) =>
      Object.hasOwn(schema.properties ?? {}, '__proto__') ? { type: schema.type, patternProperties: { '^__proto__$': schema.properties.__proto__ } } : schema
    for (const payload of payloads) {
      const ours = build(JSON.parse(JSON.stringify(payload)))
      expect(ours.interpreted, JSON.stringify(payload)).toBe(false)
      const theirs = ajvReference(meaning(JSON.parse(JSON.stringify(payload))))
      for (const value of [...fc.sample(data, 60), ['a', 1], ['a', 'b'], { a: 1 }, { a: 1, b: 2 }, { AB: 1 }, 'a', 'abc', 3]) {
        expect([ours.validate(value), seen(ours.validate.errors)]).toEqual([theirs(value), seen(theirs.errors)])
      }
    }
  })
})
