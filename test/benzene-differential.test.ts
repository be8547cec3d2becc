/**
 * Types and validators agree, checked on generated documents (fast-check): for random OpenAPI 3.0
 * component catalogues, the generated validator must give ajv's verdict on every payload, with ajv
 * reading the same schemas through an independent translation of OpenAPI 3.0.1's meaning
 * (nullable admits null; boolean exclusive bounds; int32; patterns without the Unicode flag;
 * allOf merged into one object, closed when a member is; a discriminator's value naming its
 * schema, an integer-looking mapping key matching the number too; int64 as a double's range;
 * nullable beside a composition admitting null), and every payload the validator accepts must type-check against the generated type
 * (tsc --strict over a file of literals).
 */
import { createRequire } from 'node:module'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { createLocalSender } from '../src/runtime/index.js'
import { loadModule } from './helpers/load-module.js'
import { typecheck } from './helpers/typecheck.js'
import { random } from './helpers/seeded-random.js'

const require = createRequire(import.meta.url)
const Ajv = require('ajv') as typeof import('ajv').default
type Schema = Record<string, any>

const work = join(import.meta.dirname, '.tmp/benzene-differential')
// `DIFFERENTIAL_RUNS=500 DIFFERENTIAL_SEED=7 npx vitest run test/benzene-differential.test.ts` for a longer search.
const RUNS = Number(process.env.DIFFERENTIAL_RUNS ?? 60)
const NAMES = ['id', 'Name', 'amount', 'tags', 'kind']

// ---- Documents ----

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined })
const strip = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))

const leaf: fc.Arbitrary<Schema> = fc.oneof(
  fc
    .record({
      type: fc.constant('string'),
      minLength: maybe(fc.integer({ min: 0, max: 2 })),
      maxLength: maybe(fc.integer({ min: 2, max: 8 })),
      enum: maybe(fc.uniqueArray(fc.constantFrom('a', 'b', 'Ab', '555-0100', '2024-02-29'), { minLength: 1, maxLength: 3 })),
      pattern: maybe(fc.constantFrom('^\\d{3}\\-\\d{4}$', '^[a-z]+$', '^[\\w\\-]*$', 'b')),
      format: maybe(fc.constantFrom('date', 'email')),
      nullable: maybe(fc.constant(true)),
    })
    .map(strip),
  fc
    .record({
      type: fc.constant('integer'),
      minimum: maybe(fc.integer({ min: -3, max: 3 })),
      exclusiveMinimum: maybe(fc.boolean()),
      maximum: maybe(fc.integer({ min: 2, max: 2 ** 31 })),
      format: maybe(fc.constantFrom('int32', 'int64')),
      multipleOf: maybe(fc.constantFrom(2, 3)),
      nullable: maybe(fc.constant(true)),
    })
    .map(strip),
  fc
    .record({
      type: fc.constant('number'),
      multipleOf: maybe(fc.constantFrom(0.01, 0.5, 0.1)),
      maximum: maybe(fc.constantFrom(10, 100.5)),
      exclusiveMaximum: maybe(fc.boolean()),
      nullable: maybe(fc.constant(true)),
    })
    .map(strip),
  fc.record({ type: fc.constant('boolean'), nullable: maybe(fc.constant(true)) }).map(strip),
)

const ref = (i: number) => ({ $ref: `#/components/schemas/S${i}` })

/** Schema number `i` of the catalogue: it may refer to the schemas before it (no cycles). */
function schemaAt(i: number): fc.Arbitrary<Schema> {
  const child: fc.Arbitrary<Schema> = i === 0 ? leaf : fc.oneof(leaf, fc.integer({ min: 0, max: i - 1 }).map(ref))
  const object = fc
    .record({
      type: fc.constant('object'),
      properties: fc.dictionary(fc.constantFrom(...NAMES.slice(0, 4)), child, { minKeys: 1, maxKeys: 3 }),
      required: maybe(fc.uniqueArray(fc.constantFrom(...NAMES.slice(0, 4)), { minLength: 1, maxLength: 2 })),
      additionalProperties: maybe(fc.oneof(fc.boolean(), leaf)),
      nullable: maybe(fc.constant(true)),
    })
    .map(strip)
  const array = fc
    .record({
      type: fc.constant('array'),
      items: child,
      minItems: maybe(fc.integer({ min: 0, max: 1 })),
      maxItems: maybe(fc.integer({ min: 1, max: 3 })),
      uniqueItems: maybe(fc.constant(true)),
    })
    .map(strip)
  const closedObject = object.map((o) => ({ ...o, additionalProperties: false }))
  // allOf: an earlier object schema and an inline one, closed anywhere (the .NET shape) or open.
  const allOf =
    i === 0
      ? object
      : fc.record({ base: fc.integer({ min: 0, max: i - 1 }), own: fc.oneof(object, closedObject), closed: fc.boolean() }).map(({ base, own, closed }) => {
          const { nullable: _n, additionalProperties, ...inline } = own as Schema
          const member = additionalProperties === false ? { ...inline, additionalProperties: false } : inline
          return { allOf: [ref(base), member], ...(closed ? { additionalProperties: false } : {}) }
        })
  // ASP.NET Core's nullable member of an earlier schema: a type and a one-member composition beside `nullable`.
  const nullableComposition =
    i === 0
      ? leaf
      : fc
          .record({
            target: fc.integer({ min: 0, max: i - 1 }),
            keyword: fc.constantFrom('oneOf', 'allOf', 'anyOf'),
            type: fc.constantFrom('object', undefined),
          })
          .map(({ target, keyword, type }) => strip({ type, [keyword]: [ref(target)], nullable: true }))
  return fc.oneof(leaf, object, closedObject, array, allOf, nullableComposition)
}

/** Two tagged shapes and a discriminated choice between them, beside the random catalogue. */
const TAGGED = {
  Circle: { type: 'object', required: ['kind', 'radius'], properties: { kind: { type: 'string' }, radius: { type: 'number', minimum: 0 } } },
  Square: { type: 'object', required: ['kind'], properties: { kind: { type: 'string' }, side: { type: 'integer' } }, additionalProperties: false },
  Shape: {
    oneOf: [{ $ref: '#/components/schemas/Circle' }, { $ref: '#/components/schemas/Square' }],
    discriminator: { propertyName: 'kind' },
  },
  // .NET's `[JsonDerivedType(typeof(T), 0)]` as ASP.NET Core writes it: string keys, numeric tags.
  Dot: { required: ['kind'], properties: { kind: { type: 'integer', enum: [0] }, x: { type: 'number' } } },
  Line: {
    type: 'object',
    required: ['kind', 'length'],
    properties: { kind: { type: 'integer' }, length: { type: 'integer', minimum: 1 } },
    additionalProperties: false,
  },
  Coded: {
    type: 'object',
    anyOf: [{ $ref: '#/components/schemas/Dot' }, { $ref: '#/components/schemas/Line' }],
    discriminator: { propertyName: 'kind', mapping: { '0': '#/components/schemas/Dot', '1': '#/components/schemas/Line' } },
  },
}

const catalogue = fc.tuple(schemaAt(0), schemaAt(1), schemaAt(2), schemaAt(3)).map((list) => ({
  ...Object.fromEntries(list.map((s, i) => [`S${i}`, s])),
  ...TAGGED,
}))

function documentOf(schemas: Record<string, Schema>) {
  const roots = ['S3', 'S2', 'Shape', 'Coded']
  return {
    openapi: '3.0.1',
    info: { title: 'generated', version: '1' },
    requests: roots.map((name) => ({ topic: `t:${name}`, request: { $ref: `#/components/schemas/${name}` }, response: { type: 'object' } })),
    events: [],
    components: { schemas },
  }
}

// ---- Payloads: mostly built from the schema, so that many are valid, and some random ----

function instance(schema: Schema, schemas: Record<string, Schema>, rnd: () => number, depth = 0): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!
  if (schema.$ref) return instance(schemas[schema.$ref.split('/').pop()]!, schemas, rnd, depth + 1)
  if (schema.nullable && rnd() < 0.15) return null
  const members = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined
  if (members) {
    const member = pick(members)
    const made = instance(member, schemas, rnd, depth + 1)
    const tags = Object.entries((schema.discriminator?.mapping ?? {}) as Record<string, string>).filter(([, target]) => target === member.$ref)
    // A tagged member carries its tag, as a number (how .NET sends it) or a string, now and then a wrong one.
    if (tags.length > 0 && typeof made === 'object' && made !== null && !Array.isArray(made))
      (made as Record<string, unknown>)[schema.discriminator.propertyName] = pick([Number(tags[0]![0]), tags[0]![0], 7])
    return made
  }
  if (schema.allOf) {
    const parts = (schema.allOf as Schema[]).map((m) => instance(m, schemas, rnd, depth + 1))
    return Object.assign({}, ...parts.filter((p) => typeof p === 'object' && p !== null && !Array.isArray(p)))
  }
  if (schema.enum) return pick(schema.enum)
  switch (schema.type) {
    case 'string':
      return pick(['a', 'ab', 'b', '555-0100', 'x_y-z', '2024-02-29', '2023-02-29', '', 'AB', 'a@b.c'])
    case 'integer':
      return pick([0, 1, 2, 3, 6, -1, 4, 2 ** 31, -(2 ** 31) - 1, 9, 2 ** 63, 1e19, -(2 ** 63), -1e19])
    case 'number':
      return pick([0, 0.5, 19.99, 0.3, 10, 100.5, 1.005, -2])
    case 'boolean':
      return rnd() < 0.5
    case 'array':
      return Array.from({ length: Math.floor(rnd() * 3) }, () => instance(schema.items, schemas, rnd, depth + 1))
    case 'object': {
      const out: Record<string, unknown> = {}
      for (const [name, child] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
        if ((schema.required ?? []).includes(name) || rnd() < 0.6) out[name] = depth > 6 ? null : instance(child, schemas, rnd, depth + 1)
      }
      if (rnd() < 0.1) out.extra = 'x'
      return out
    }
  }
  return null
}

// ---- The oracle: OpenAPI 3.0.1 read independently, for ajv ----

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
function isDate(text: string): boolean {
  const m = DATE.exec(text)
  if (!m) return false
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])))
  return date.getUTCFullYear() === Number(m[1]) && date.getUTCMonth() === Number(m[2]) - 1 && date.getUTCDate() === Number(m[3])
}

/** x is an integer multiple of m, both read as the decimals JavaScript prints for them. */
function decimalMultiple(x: number, m: number): boolean {
  const exact = (n: number) => {
    const [, sign, int, frac = '', exp = '0'] = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/.exec(String(n))!
    return { digits: BigInt(sign + int + frac), scale: frac.length - Number(exp) }
  }
  const a = exact(x)
  const b = exact(m)
  const scale = Math.max(a.scale, b.scale)
  const up = (v: { digits: bigint; scale: number }) => v.digits * 10n ** BigInt(scale - v.scale)
  return up(a) % up(b) === 0n
}

/** The object an allOf means once merged: every member's properties and required members, closed when any member is. */
function merged(
  schema: Schema,
  schemas: Record<string, Schema>,
): { properties: Record<string, Schema[]>; required: Set<string>; closed: boolean; others: Schema[] } {
  // `others`: members that hold as they are (not objects at all, or typing additional members).
  const out = { properties: {} as Record<string, Schema[]>, required: new Set<string>(), closed: schema.additionalProperties === false, others: [] as Schema[] }
  const add = (s: Schema) => {
    for (const [name, child] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) (out.properties[name] ??= []).push(child)
    for (const name of s.required ?? []) out.required.add(name)
  }
  add(schema)
  for (const member of (schema.allOf ?? []) as Schema[]) {
    const target = member.$ref ? schemas[member.$ref.split('/').pop()!]! : member
    if (target.allOf) {
      const inner = merged(target, schemas)
      for (const [name, list] of Object.entries(inner.properties)) (out.properties[name] ??= []).push(...list)
      for (const name of inner.required) out.required.add(name)
      out.closed ||= inner.closed
      out.others.push(...inner.others)
    } else if (target.type !== undefined && target.type !== 'object') {
      out.others.push(target)
    } else {
      add(target)
      out.closed ||= target.additionalProperties === false
      // A schema for additional members constrains the others' members too (only `false` is merged).
      if (typeof target.additionalProperties === 'object') out.others.push(target)
      // Its alternatives hold as they are.
      for (const key of ['oneOf', 'anyOf']) if (target[key]) out.others.push({ [key]: target[key] })
    }
  }
  return out
}

function oracle(schema: Schema, schemas: Record<string, Schema>): Schema {
  if (schema.$ref) return { $ref: `#/definitions/${schema.$ref.split('/').pop()}` }
  let out: Schema
  if (schema.allOf) {
    const m = merged(schema, schemas)
    const properties = Object.fromEntries(
      Object.entries(m.properties).map(([name, list]) => [
        name,
        list.length === 1 ? oracle(list[0]!, schemas) : { allOf: list.map((s) => oracle(s, schemas)) },
      ]),
    )
    out = {
      type: 'object',
      properties,
      ...(m.required.size > 0 ? { required: [...m.required] } : {}),
      ...(m.closed ? { additionalProperties: false } : {}),
      ...(m.others.length > 0 ? { allOf: m.others.map((o) => oracle(o, schemas)) } : {}),
    }
  } else if (schema.discriminator) {
    // The value names the member schema (by `mapping`, else by its name); exactly one member then holds.
    // A mapping key is a string; one written as an integer is also the number .NET sends for it.
    const property = schema.discriminator.propertyName
    const mapping = (schema.discriminator.mapping ?? {}) as Record<string, string>
    const valuesOf = (member: Schema) => {
      const keys = Object.keys(mapping).filter((key) => mapping[key] === member.$ref)
      return keys.length === 0 ? [member.$ref.split('/').pop()] : keys.flatMap((key) => (/^(0|[1-9]\d*)$/.test(key) ? [key, Number(key)] : [key]))
    }
    out = {
      oneOf: ((schema.oneOf ?? schema.anyOf) as Schema[]).map((member) => ({
        allOf: [oracle(member, schemas), { type: 'object', required: [property], properties: { [property]: { enum: valuesOf(member) } } }],
      })),
    }
  } else {
    const { nullable: _n, format, exclusiveMinimum, exclusiveMaximum, properties, items, additionalProperties, oneOf, anyOf, ...rest } = schema
    out = { ...rest }
    if (oneOf) out.oneOf = (oneOf as Schema[]).map((member) => oracle(member, schemas))
    if (anyOf) out.anyOf = (anyOf as Schema[]).map((member) => oracle(member, schemas))
    if (exclusiveMinimum === true && rest.minimum !== undefined) {
      out.exclusiveMinimum = rest.minimum
      delete out.minimum
    }
    if (exclusiveMaximum === true && rest.maximum !== undefined) {
      out.exclusiveMaximum = rest.maximum
      delete out.maximum
    }
    if (format === 'int32') {
      out.minimum = Math.max(out.minimum ?? -Infinity, -(2 ** 31))
      out.maximum = Math.min(out.maximum ?? Infinity, 2 ** 31 - 1)
    }
    // int64 as a double: 2^63 is how JSON.parse reads the largest int64 (2^63 - 1 is no double).
    if (format === 'int64') {
      out.minimum = Math.max(out.minimum ?? -Infinity, -(2 ** 63))
      out.maximum = Math.min(out.maximum ?? Infinity, 2 ** 63)
    }
    if (format === 'date') out.format = 'date'
    if (rest.multipleOf !== undefined) {
      out.decimalMultipleOf = rest.multipleOf
      delete out.multipleOf
    }
    if (properties) out.properties = Object.fromEntries(Object.entries(properties as Record<string, Schema>).map(([k, v]) => [k, oracle(v, schemas)]))
    if (items) out.items = oracle(items, schemas)
    if (additionalProperties !== undefined)
      out.additionalProperties = typeof additionalProperties === 'boolean' ? additionalProperties : oracle(additionalProperties, schemas)
  }
  return schema.nullable === true ? { anyOf: [{ type: 'null' }, out] } : out
}

function oracleFor(schemas: Record<string, Schema>) {
  // OpenAPI 3.0 patterns are ECMA-262 without the Unicode flag: ajv compiles them that way here.
  // multipleOf on the decimal numbers written, not a float quotient (0.3 is a multiple of 0.1): decimalMultipleOf.
  const ajv = new Ajv({ strict: false, unicodeRegExp: false, ownProperties: true, code: { optimize: false } })
  ajv.addFormat('date', isDate)
  ajv.addKeyword({ keyword: 'decimalMultipleOf', type: 'number', schemaType: 'number', validate: (m: number, x: number) => decimalMultiple(x, m) })
  ajv.addSchema({ $id: 'oracle', definitions: Object.fromEntries(Object.entries(schemas).map(([name, s]) => [name, oracle(s, schemas)])) })
  return (name: string) => ajv.compile({ $ref: `oracle#/definitions/${name}` })
}

// ---- The property ----

describe('Benzene types and validators agree with each other and with ajv (generated documents)', () => {
  it('the validator gives the oracle verdict on every payload, and every payload it accepts type-checks', async () => {
    mkdirSync(work, { recursive: true })
    const docs = fc.sample(fc.tuple(catalogue, fc.integer()), { numRuns: RUNS, seed: Number(process.env.DIFFERENTIAL_SEED ?? 20261201) })
    const modules: Record<string, string> = {}
    const sources: Record<string, string> = {}
    let accepted = 0
    let refused = 0
    for (const [k, [schemas, seed]] of docs.entries()) {
      const file = join(work, `doc${k}.spec.json`)
      const doc = documentOf(schemas)
      writeFileSync(file, JSON.stringify(doc, null, 2))
      const result = await compile(file)
      // A valid document is never refused: a wrong refusal is as bad as a wrong acceptance.
      expect(
        result.diagnostics.filter((d) => d.severity === 'error'),
        file,
      ).toEqual([])
      const mod = await loadModule(result.code!, `differential-${k}`)
      modules[`doc${k}`] = result.dts!
      const verdictOf = oracleFor(schemas)
      const sender = createLocalSender(Object.fromEntries(doc.requests.map((r) => [r.topic, () => ({})])))
      const rnd = random(seed)
      const literals: string[] = []
      for (const [t, root] of ['S3', 'S2', 'Shape', 'Coded'].entries()) {
        const name = exportOf(mod, root)
        const client = mod[name]
        const theirs = verdictOf(root)
        const payloads = [
          ...Array.from({ length: 10 }, () => instance(schemas[root]!, schemas, rnd)),
          ...fc.sample(fc.jsonValue({ maxDepth: 2 }), { numRuns: 3, seed }),
        ]
        for (const payload of payloads) {
          const copy = JSON.parse(JSON.stringify(payload ?? null))
          const ours = (await client.send(sender, copy)).status !== 'validation-error'
          expect([file, root, JSON.stringify(copy), ours]).toEqual([file, root, JSON.stringify(copy), theirs(copy)])
          if (ours) {
            accepted++
            literals.push(`export const v${t}_${literals.length}: Parameters<typeof doc${k}.${name}.send>[1] = ${JSON.stringify(copy)}`)
          } else refused++
        }
      }
      sources[`use${k}.ts`] = `import * as doc${k} from './doc${k}.js'\n${literals.join('\n')}\n`
    }
    // Both verdicts must actually occur, or the property says nothing.
    expect(accepted).toBeGreaterThan(RUNS * 3)
    expect(refused).toBeGreaterThan(RUNS * 3)
    const r = typecheck(work, modules, sources)
    expect(r.output).toBe('')
    expect(r.status).toBe(0)
  })
})

function exportOf(mod: Record<string, any>, root: string): string {
  return Object.keys(mod).find((name) => mod[name]?.topic === `t:${root}`)!
}
