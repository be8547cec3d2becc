/**
 * Keywords of a contract's JSON Schemas that ajv reads although JSON Schema (draft-06 on) does not
 * define them, in NATS payloads, headers and bindings and in DASP settings: OpenAPI 3.0's
 * `nullable`, draft-04's `id`, and in NATS, where `$ref`s are read against the document, `$id`.
 * Before, each ended a valid NATS document's compile with CONTRACTS_INTERNAL (ajv threw):
 * `{nullable: true}` without `type`, `{type: 'null', nullable: false}`, a `nullable` that is no
 * boolean, `id: urn:jsonschema:...` (jackson-module-jsonSchema writes it), a component with an
 * `$id` (copied into each payload's root, it named two schemas) and a payload with an `$id` whose
 * `#/components/...` references ajv read against it. A DASP items schema so written was refused,
 * and `{type: string, nullable: true}` admitted `null` in NATS validators and literal bindings
 * while its type said `string`. Now ajv is handed each schema without them (`withoutKeywords`,
 * src/core/standalone-validators.ts; AJV_MISREAD, NATS's NOT_FOR_AJV).
 *
 * Oracles: ajv itself over the same schema with `nullable` renamed `x-nullable` (an unknown keyword
 * ajv ignores, as JSON Schema says); for `id` and `$id`, the same document without them (an
 * annotation moves no verdict); random schema trees for the walk.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Ajv from 'ajv'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AJV_MISREAD, withoutKeywords } from '../src/core/standalone-validators.js'
import { diffSchemas } from '../src/core/diff/schema-diff.js'
import { compile } from '../src/index.js'
import { sideOf } from './helpers/schema-diff.js'
import { freshDir } from './helpers/bundlers.js'
import { loadModule } from './helpers/load-module.js'
import { ShopBundle } from './helpers/nats-bundle.js'
import { miniNatsDocument, natsChannelDocument } from './helpers/nats-mini.js'

const dir = freshDir(join(import.meta.dirname, '.tmp/ajv-misread-keywords'))
const fixtures = join(import.meta.dirname, '../fixtures/dasp')
/** One ajv for the walk's oracles: a new one a run compiled the meta-schema each time. */
const ajv = new Ajv({ strict: false, addUsedSchema: false })

/** JSON Schema's reading, by ajv: `nullable` renamed to a keyword no one defines (every occurrence is a keyword in these schemas). */
function jsonSchemaReading(schema: unknown): (value: unknown) => boolean {
  const renamed = JSON.parse(JSON.stringify(schema).replaceAll('"nullable":', '"x-nullable":'))
  return new Ajv({ strict: false }).compile(renamed) as (value: unknown) => boolean
}

const VALUES: unknown[] = [null, 'x', '', 5, 1.5, true, [], ['x'], {}, { a: null }, { a: 'x' }, { a: 5 }]

/** Payload schemas a producer writes with `nullable`, every one valid JSON Schema. */
const PAYLOADS: Array<[string, Record<string, unknown>]> = [
  ['nullable beside a type', { type: 'string', nullable: true }],
  ['nullable without a type', { nullable: true }],
  ['nullable: false beside type null', { type: 'null', nullable: false }],
  ['nullable that is no boolean', { type: 'string', nullable: 'yes' }],
  ['nullable on a member', { type: 'object', properties: { a: { type: 'string', nullable: true } } }],
  ['nullable without a type on a member', { type: 'object', properties: { a: { nullable: true, minLength: 1 } } }],
  [
    'nullable inside a composition',
    {
      anyOf: [
        { type: 'integer', nullable: true },
        { type: 'array', items: { nullable: true } },
      ],
    },
  ],
]

describe('NATS payloads and headers with `nullable`', () => {
  it.each(PAYLOADS)('%s: compiles; both validator forms give JSON Schema’s verdicts', async (name, payload) => {
    const file = join(dir, `${name.replace(/\W+/g, '-')}.asyncapi.yaml`)
    const headers = { type: 'object', properties: { h: payload } }
    writeFileSync(file, miniNatsDocument({ message: [`        payload: ${JSON.stringify(payload)}`, `        headers: ${JSON.stringify(headers)}`] }))
    const expected = jsonSchemaReading(payload)
    const expectedHeaders = jsonSchemaReading(headers)
    for (const validators of ['code', 'data'] as const) {
      const result = await compile(file, { nats: { validators } })
      expect([validators, result.diagnostics.map((d) => `${d.code} ${d.message.slice(0, 200)}`)]).toEqual([validators, []])
      const module = await loadModule(result.code!, `ajv-misread-keywords-${name}-${validators}`)
      for (const value of VALUES) {
        expect([validators, value, module.placed.validatePayload(value)]).toEqual([validators, value, expected(value)])
        expect([validators, value, module.placed.validateHeaders({ h: value })]).toEqual([validators, value, expectedHeaders({ h: value })])
      }
    }
  })

  it('a payload `{type: string, nullable: true}` is typed `string`, as its validators refuse `null`', async () => {
    const file = join(dir, 'typed.asyncapi.yaml')
    writeFileSync(file, miniNatsDocument({ message: ['        payload: { type: string, nullable: true }'] }))
    const result = await compile(file)
    expect(result.dts).toMatch(/export declare const placed: \$nats\.AddressedChannel<\$Parameters0, never, string>;/)
    const module = await loadModule(result.code!, 'ajv-misread-keywords-typed')
    expect([module.placed.validatePayload(null), module.placed.validatePayload('x')]).toEqual([false, true])
  })
})

describe('NATS schemas with `id`, `$id`, anchors or `$async`: the verdicts of the same document without them', () => {
  const components = [
    '    S: { type: string, minLength: 2 }',
    '    T: { $id: "urn:example:t", type: object, required: [s], properties: { s: { $ref: "#/components/schemas/S" } } }',
    '    J: { id: "urn:jsonschema:com:example:J", type: object, properties: { n: { type: integer } }, required: [n] }',
    '    U: { $anchor: "u", $recursiveAnchor: true, type: string, minLength: 2 }',
  ]
  const messages: Record<string, string> = {
    a: '{ payload: { $id: "urn:example:a", type: object, properties: { t: { $ref: "#/components/schemas/T" } } } }',
    b: '{ payload: { $id: "sub/b.json", type: object, properties: { s: { $ref: "#/components/schemas/S" } } } }',
    c: '{ payload: { $ref: "#/components/schemas/T" } }',
    d: '{ payload: { $ref: "#/components/schemas/J" } }',
    e: '{ payload: { id: "urn:jsonschema:com:example:E", type: object, properties: { id: { type: string } }, required: [id] } }',
    // Anchors draft-07 does not define, malformed or named twice (the component U names the same), and ajv's `$async`.
    f: '{ payload: { $anchor: "u", type: object, properties: { u: { $ref: "#/components/schemas/U" } }, required: [u] } }',
    g: '{ payload: { $anchor: "not an anchor", $dynamicAnchor: "1x", type: string, minLength: 2 } }',
    h: '{ payload: { $async: true, type: object, required: [n], properties: { n: { type: integer } } } }',
  }
  /** A document whose channel carries message `name` alone; without the keywords when `keep` is false. */
  const document = (name: string, keep: boolean) => {
    const text = natsChannelDocument({ [name]: messages[name]! }).trimEnd() + '\ncomponents:\n  schemas:\n' + components.join('\n') + '\n'
    return keep ? text : text.replaceAll(/ (?:\$?id|\$anchor|\$dynamicAnchor|\$recursiveAnchor|\$async): (?:"[^"]*"|true),/g, '')
  }
  const values: unknown[] = [
    ...VALUES,
    { t: { s: 'xy' } },
    { t: { s: 'x' } },
    { t: {} },
    { s: 'xy' },
    { s: 5 },
    { n: 1 },
    { n: 'x' },
    { id: 'x' },
    { id: 5 },
    { u: 'xy' },
    { u: 'x' },
    'xy',
  ]

  it.each(Object.keys(messages).flatMap((name) => (['code', 'data'] as const).map((form) => [name, form] as const)))(
    'message %s, validators: %s',
    async (name, validators) => {
      const verdicts = async (keep: boolean) => {
        const file = join(dir, `ids-${name}-${keep}-${validators}.asyncapi.yaml`)
        writeFileSync(file, document(name, keep))
        const result = await compile(file, { nats: { validators } })
        expect([keep, result.diagnostics.map((d) => `${d.code} ${d.message.slice(0, 200)}`)]).toEqual([keep, []])
        const module = await loadModule(result.code!, `ajv-misread-keywords-ids-${name}-${keep}-${validators}`)
        return values.map((v) => module.c.validatePayload(v))
      }
      expect(document(name, false)).not.toMatch(/(?:id|[aA]nchor|async): ["t]/)
      const kept = await verdicts(true)
      expect(kept).toEqual(await verdicts(false))
      // Not every value passes, nor every one fails: the verdicts say something.
      expect(new Set(kept)).toEqual(new Set([true, false]))
    },
  )
})

describe('a NATS interaction binding a literal to a member with `nullable`', () => {
  const doc = 'payments/asyncapi/asyncapi.yaml'
  it.each([
    [
      'null, which the member’s schema refuses (NATS_BINDING_TYPE)',
      'null',
      ['NATS_BINDING_TYPE /x-nats-contract/interactions/approveRefund/bindings/payload/~1note'],
    ],
    ['a string, which it takes', 'late', []],
  ])('%s', async (name, literal, found) => {
    const b = ShopBundle.copy(`nullable-binding-${literal}`).withRuntimeSchemaCheck()
    b.edit(doc, '          requestedBy: { type: string }\n', '          requestedBy: { type: string }\n          note: { type: string, nullable: true }\n')
      .edit(
        doc,
        '          /requestedBy: { context: principalId }\n',
        `          /requestedBy: { context: principalId }\n          /note: { literal: ${literal} }\n`,
      )
      .relock()
    const result = await compile(b.doc('payments'))
    expect([name, result.diagnostics.map((d) => `${d.code} ${d.pointer}`)]).toEqual([name, found])
  })
})

describe('NATS schemas that differ only in these keywords are one schema (links, as the profile compares them)', () => {
  const orders = 'orders/asyncapi/asyncapi.yaml'
  const total = '        total: { type: number }\n'
  it.each([
    ['nullable', '        total: { type: number, nullable: true }\n', []],
    ['id', '        total: { type: number, id: "urn:jsonschema:total" }\n', []],
    ['$id', '        total: { type: number, $id: "urn:example:total" }\n', []],
    ['$anchor', '        total: { type: number, $anchor: total }\n', []],
    // A difference that decides validation is still one.
    ['minimum', '        total: { type: number, minimum: 0 }\n', ['NATS_LINK_SCHEMA']],
  ])('%s', async (name, edited, codes) => {
    const b = ShopBundle.copy(`annotation-link-${name.replace('$', '')}`)
    b.edit(orders, total, edited).relock()
    const result = await compile(b.doc('payments'))
    expect([name, result.diagnostics.map((d) => d.code)]).toEqual([name, codes])
  })
})

describe('DASP settings whose items schema has `nullable`, `id`, `$async` or an anchor', () => {
  it.each([
    ['nullable without a type', { nullable: true }, 'x', []],
    ['nullable: false beside type null', { type: 'null', nullable: false }, 'x', ['DASP_SETTINGS']],
    ['nullable beside a type: null is refused, as JSON Schema reads it', { type: 'string', nullable: true }, null, ['DASP_SETTINGS']],
    ['nullable beside a type: a string is taken', { type: 'string', nullable: true }, 'x', []],
    ['draft-04’s id beside a type: a string is taken', { id: 'urn:jsonschema:x', type: 'string' }, 'x', []],
    ['draft-04’s id beside a type: a number is refused', { id: 'urn:jsonschema:x', type: 'string' }, 5, ['DASP_SETTINGS']],
    // ajv's `$async`: before, every value passed and a refused one ended the process (an unhandled rejection).
    ['ajv’s $async: a number is refused, as a result', { $async: true, type: 'string' }, 5, ['DASP_SETTINGS']],
    ['ajv’s $async: a string is taken', { $async: true, type: 'string' }, 'x', []],
    ['a 2020-12 anchor in draft-07, malformed: an annotation', { $anchor: 'not an anchor', type: 'string' }, 'x', []],
  ] as const)('%s', async (name, memberSchema, value, codes) => {
    const app = freshDir(join(dir, `dasp-${name.replace(/\W+/g, '-')}`))
    cpSync(join(fixtures, 'extensions'), join(app, 'extensions'), { recursive: true })
    cpSync(join(fixtures, 'pins'), join(app, 'pins'), { recursive: true })
    const extension = join(app, 'extensions/proof-of-authority.dasp-ext.json')
    const text = readFileSync(extension, 'utf8')
    const original = '"name": {\n            "type": "string"\n          }'
    expect(text).toContain(original)
    writeFileSync(extension, text.replace(original, `"name": ${JSON.stringify(memberSchema)}`))
    const selection = JSON.parse(readFileSync(join(fixtures, 'counter.dasp.json'), 'utf8'))
    const withValue = JSON.stringify(selection).replace(/"name":"[^"]*"/, `"name":${JSON.stringify(value)}`)
    writeFileSync(join(app, 'counter.dasp.json'), withValue)
    const result = await compile(join(app, 'counter.dasp.json'))
    expect(result.diagnostics.map((d) => d.code)).toEqual(codes)
  })
})

describe('contracts diff: one of these keywords added to a schema that accepts anything moves no value', () => {
  const effects = (a: unknown, b: unknown, dialect: 'json-schema' | 'openapi-3.0') =>
    diffSchemas(
      sideOf({ components: { schemas: { S: a } } }, '/components/schemas/S'),
      sideOf({ components: { schemas: { S: b } } }, '/components/schemas/S'),
      {
        dialect,
      },
    ).map((c) => `${c.rule} ${c.effect}`)
  it.each([
    // A keyword JSON Schema does not define: `unknown` (a warning), as a peer may read it otherwise.
    ['json-schema', { nullable: true }, ['schema-keyword-changed unknown']],
    ['json-schema', { id: 'urn:x' }, ['schema-keyword-changed unknown']],
    ['json-schema', { $id: 'urn:x' }, ['schema-keyword-changed unknown']],
    ['json-schema', { $anchor: 'a' }, ['schema-keyword-changed unknown']],
    ['json-schema', { format: 'email' }, ['schema-format-added none']],
    // OpenAPI 3.0: nullable without a type adds nothing (3.0.3, Schema Object).
    ['openapi-3.0', { nullable: true }, ['schema-nullable-added none']],
    ['openapi-3.0', { id: 'urn:x' }, ['schema-keyword-changed unknown']],
  ] as const)('%s: {} to %j', (dialect, added, expected) => {
    const forward = effects({}, added, dialect)
    const back = effects(added, {}, dialect)
    // Never a narrowing or widening (what "breaking" is made of), either way.
    for (const found of [...forward, ...back]) expect(found).not.toMatch(/ (narrows|widens|both)$/)
    expect(forward.filter((f) => !f.startsWith('schema-annotation'))).toEqual(expected)
  })
  it('a constraint added to it still narrows', () => {
    expect(effects({}, { type: 'string', nullable: true }, 'json-schema')).toContain('schema-constraint-added narrows')
  })
})

describe('withoutKeywords', () => {
  // Schema trees with `nullable` anywhere a keyword may be, members named `nullable`, and values that hold the word.
  const schema: fc.Memo<Record<string, unknown>> = fc.memo((n) =>
    n <= 1
      ? fc.record({ type: fc.constantFrom('string', 'integer', 'null'), nullable: fc.constantFrom(true, false, 'yes') }, { requiredKeys: [] })
      : fc.oneof(
          fc.record(
            { properties: fc.dictionary(fc.constantFrom('a', 'nullable', 'b'), schema(n - 1), { maxKeys: 3 }), nullable: fc.boolean() },
            { requiredKeys: ['properties'] },
          ),
          fc.record({ anyOf: fc.array(schema(n - 1), { minLength: 1, maxLength: 3 }), nullable: fc.constant(true) }, { requiredKeys: ['anyOf'] }),
          fc.record({ items: schema(n - 1), const: fc.constant({ nullable: true }) }, { requiredKeys: ['items'] }),
          fc.record({ not: schema(n - 1), enum: fc.constant([{ nullable: false }, null]) }, { requiredKeys: ['not'] }),
        ),
  )

  /** Every schema position's keywords, and every value and member name, as paths (a keyword `nullable` excepted). */
  function kept(node: unknown, at = ''): string[] {
    if (typeof node !== 'object' || node === null) return [`${at}=${JSON.stringify(node)}`]
    const record = node as Record<string, unknown>
    return Object.keys(record).flatMap((key) => {
      const value = record[key]
      if (key === 'properties') return Object.entries(value as object).flatMap(([name, s]) => kept(s, `${at}/properties/${name}`))
      if (key === 'anyOf') return (value as unknown[]).flatMap((s, i) => kept(s, `${at}/anyOf/${i}`))
      if (key === 'items' || key === 'not') return kept(value, `${at}/${key}`)
      if (key === 'nullable') return []
      return [`${at}/${key}=${JSON.stringify(value)}`]
    })
  }

  /** The schema positions holding the keyword. */
  function keywordAt(node: unknown, at = ''): string[] {
    if (typeof node !== 'object' || node === null) return []
    const record = node as Record<string, unknown>
    return [
      ...(Object.hasOwn(record, 'nullable') ? [at] : []),
      ...Object.entries((record.properties ?? {}) as object).flatMap(([name, s]) => keywordAt(s, `${at}/properties/${name}`)),
      ...((record.anyOf ?? []) as unknown[]).flatMap((s, i) => keywordAt(s, `${at}/anyOf/${i}`)),
      ...keywordAt(record.items, `${at}/items`),
      ...keywordAt(record.not, `${at}/not`),
    ]
  }

  it('drops the keyword at every schema position, keeps everything else, and never changes its input', () => {
    fc.assert(
      fc.property(schema(4), (input) => {
        const before = JSON.stringify(input)
        const out = withoutKeywords(input, AJV_MISREAD)
        expect(JSON.stringify(input)).toBe(before)
        expect(kept(out)).toEqual(kept(input))
        expect(keywordAt(out)).toEqual([])
        // ajv compiles it, and gives the verdicts of JSON Schema's reading on each value.
        const compiled = ajv.compile(out)
        for (const value of VALUES) expect(compiled(value)).toBe(jsonSchemaReadingOf(input)(value))
        // A schema without the keyword is returned as it is.
        if (keywordAt(input).length === 0) expect(out).toBe(input)
      }),
      { numRuns: 150 },
    )
  })
})

/** JSON Schema's reading of a tree whose members may be named `nullable`: the keyword renamed by a walk of the same positions. */
function jsonSchemaReadingOf(schema: unknown): (value: unknown) => boolean {
  const rename = (node: unknown): unknown => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return node
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (key === 'nullable') out['x-nullable'] = value
      else if (key === 'properties') out.properties = Object.fromEntries(Object.entries(value as object).map(([name, s]) => [name, rename(s)]))
      else if (key === 'anyOf') out.anyOf = (value as unknown[]).map(rename)
      else if (key === 'items' || key === 'not') out[key] = rename(value)
      else out[key] = value
    }
    return out
  }
  return ajv.compile(rename(schema) as object) as (value: unknown) => boolean
}
