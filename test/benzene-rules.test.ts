/** Each Benzene rule: a fixture that triggers it (code, pointer, line, column) and fixtures that pass. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile, inspect } from '../src/index.js'
import { createLocalSender } from '../src/runtime/index.js'
import { loadModule } from './helpers/load-module.js'
import { benzeneRules } from '../src/formats/benzene/rules/index.js'
import { familyAlternatives } from '../bench/hostile-rules.js'
import { describeFixtureTable, expectEveryCodeCovered, type FixtureRow } from './helpers/rule-fixtures.js'

const fixtures = join(import.meta.dirname, '../fixtures/benzene')
const variants = join(import.meta.dirname, '.tmp/benzene-variants')

/** A fixture's document, parsed, to edit into a variant (`path` under fixtures/benzene). */
const readFixture = (path: string): any => JSON.parse(readFileSync(join(fixtures, path), 'utf8'))

/** Writes an edited document as `<name>.spec.json` beside the other variants; returns its path. */
function writeVariant(name: string, doc: unknown): string {
  mkdirSync(variants, { recursive: true })
  const file = join(variants, `${name}.spec.json`)
  writeFileSync(file, JSON.stringify(doc, null, 2))
  return file
}

/** fixtures/benzene/invalid/<fixture>.spec.json: the only diagnostic, an error, and no module. */
const failing: FixtureRow[] = [
  ['missing-member', 'BENZENE_MISSING_MEMBER', '/requests/0/response', 9, 5],
  ['wrong-type', 'BENZENE_WRONG_TYPE', '/requests/0/request', 12, 18],
  ['empty-topic', 'BENZENE_EMPTY_TOPIC', '/requests/0/topic', 10, 16],
  ['empty-version', 'BENZENE_EMPTY_VERSION', '/requests/0/version', 11, 18],
  ['duplicate-topic', 'BENZENE_DUPLICATE_TOPIC', '/requests/1', 19, 5],
  ['ref-form', 'BENZENE_REF_FORM', '/requests/0/response/$ref', 16, 17],
  ['ref-missing', 'BENZENE_REF_MISSING', '/requests/0/response/$ref', 16, 17],
  ['invalid-schema', 'BENZENE_INVALID_SCHEMA', '/components/schemas/Order/properties/Id/type', 36, 21],
  ['invalid-pattern', 'BENZENE_INVALID_SCHEMA', '/components/schemas/Order/properties/Id/pattern', 38, 24],
  ['endpoint-form', 'BENZENE_ENDPOINT_FORM', '/messageEndpoint', 8, 22],
  ['required-empty', 'BENZENE_REQUIRED_EMPTY', '/components/schemas/Order/required', 41, 21],
  ['read-write-only', 'BENZENE_READ_WRITE_ONLY', '/components/schemas/Order/properties/Id/writeOnly', 39, 26],
  ['default-type', 'BENZENE_DEFAULT_TYPE', '/components/schemas/Order/properties/Id/default', 38, 24],
  ['schema-cycle', 'BENZENE_SCHEMA_CYCLE', '/components/schemas/B/oneOf/0/$ref', 55, 21],
  ['invalid-discriminator', 'BENZENE_INVALID_DISCRIMINATOR', '/components/schemas/Shape/discriminator', 52, 26],
  // 450 parents, each extending the one before: 101,025 choices together.
  ['discriminator-too-large', 'BENZENE_DISCRIMINATOR_TOO_LARGE', '/components/schemas/P404/discriminator', 414, 95],
  // The seed's S written as the JSON escape \u0053: found in the decoded string.
  ['bundled-credential', 'BENZENE_BUNDLED_CREDENTIAL', '/info/description', 5, 20],
  ['json-syntax', 'JSON_SYNTAX', '', 7, 1],
  ['json-duplicate-key', 'JSON_DUPLICATE_KEY', '/requests', 6, 3],
  ['json-lone-surrogate', 'JSON_LONE_SURROGATE', '/info/title', 3, 22],
]

/** SHOULD-level problems: a warning at its pointer, and the module is still generated. */
const warned: FixtureRow[] = [
  // Producers' rules with no MUST, whose value means what its absence means (§1, §2).
  ['reserved-not-true', 'BENZENE_RESERVED_NOT_TRUE', '/requests/0/reserved', 18, 19],
  ['empty-transports', 'BENZENE_EMPTY_TRANSPORTS', '/transports', 32, 17],
  ['empty-http-mappings', 'BENZENE_EMPTY_HTTP_MAPPINGS', '/requests/0/httpMappings', 18, 23],
  ['openapi-value', 'BENZENE_OPENAPI_VALUE', '/openapi', 2, 14],
  ['enum-empty', 'BENZENE_ENUM_EMPTY', '/components/schemas/Order/properties/Status/enum', 41, 21],
  ['enum-duplicate', 'BENZENE_ENUM_DUPLICATE', '/components/schemas/Order/properties/Priority/enum/2', 44, 15],
  ['discriminator-inline-member', 'BENZENE_DISCRIMINATOR_INLINE_MEMBER', '/components/schemas/Shape/oneOf/1', 47, 11],
  ['pattern-dialect', 'BENZENE_PATTERN_DIALECT', '/components/schemas/Order/properties/Name/pattern', 45, 24],
  ['event-reserved', 'BENZENE_EVENT_RESERVED', '/events/0/reserved', 24, 19],
  ['keyword-outside-dialect', 'BENZENE_KEYWORD_OUTSIDE_DIALECT', '/components/schemas/PlaceOrder/patternProperties', 31, 30],
  // A backreference: not proven linear, so it runs under a step budget (warned), and the module is generated.
  ['pattern-budgeted', 'BENZENE_PATTERN_BUDGETED', '/components/schemas/Order/properties/Id/pattern', 38, 24],
]

describeFixtureTable({
  contract: ([fixture]) => {
    const file = join(fixtures, 'invalid', `${fixture}.spec.json`)
    return { compile: file, file }
  },
  failing,
  warned,
})

describe('every rule', () => {
  it('every validation rule has a failing fixture', () => {
    expectEveryCodeCovered(
      benzeneRules.map((rule) => rule.code),
      failing,
      warned,
    )
  })
})

describe('enum warnings', () => {
  it('an enum that is not an array still breaks the MUST (BENZENE_INVALID_SCHEMA); distinct values and 0 beside 1 warn about nothing', async () => {
    const variant = async (name: string, values: unknown) => {
      const doc = readFixture('invalid/enum-duplicate.spec.json')
      doc.components.schemas.Order.properties.Priority.enum = values
      return (await compile(writeVariant(`enum-${name}`, doc))).diagnostics.map((d) => [d.code, d.severity, d.pointer])
    }
    expect(await variant('not-array', 0)).toEqual([['BENZENE_INVALID_SCHEMA', 'error', '/components/schemas/Order/properties/Priority/enum']])
    expect(await variant('distinct', [0, 1, 2])).toEqual([])
    expect(
      await variant('objects', [
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ]),
    ).toEqual([['BENZENE_ENUM_DUPLICATE', 'warning', '/components/schemas/Order/properties/Priority/enum/1']])
  })
})

describe('what the OpenAPI 3.0 dialect and the event shape do not have is said, and changes nothing', () => {
  it('an event with `reserved: true` is still in the default output; only the benzene: prefix reserves an event', async () => {
    const doc = readFixture('invalid/event-reserved.spec.json')
    const flagged = await compile(join(fixtures, 'invalid', 'event-reserved.spec.json'))
    const events = (await loadModule(flagged.code!, 'event-reserved')).events
    expect(Object.keys(events)).toEqual(['placed'])
    doc.events[0].topic = 'benzene:placed'
    delete doc.events[0].reserved
    const prefixed = await compile(writeVariant('event-prefixed', doc))
    expect(prefixed.diagnostics).toEqual([])
    expect(Object.keys((await loadModule(prefixed.code!, 'event-prefixed')).events)).toEqual([])
  })

  it('each keyword of a later JSON Schema draft is named where it is written; the 3.0 keywords are not', async () => {
    const doc = readFixture('invalid/keyword-outside-dialect.spec.json')
    const order = doc.components.schemas.Order
    Object.assign(order, { dependencies: { Id: ['Sku'] }, propertyNames: { maxLength: 3 }, if: {}, then: {}, const: { Id: 'x' } })
    const result = await compile(writeVariant('dialect-many', doc))
    expect(result.diagnostics.map((d) => [d.code, d.severity, d.pointer])).toEqual(
      [
        '/components/schemas/PlaceOrder/patternProperties',
        '/components/schemas/Order/dependencies',
        '/components/schemas/Order/propertyNames',
        '/components/schemas/Order/if',
        '/components/schemas/Order/then',
        '/components/schemas/Order/const',
      ].map((pointer) => ['BENZENE_KEYWORD_OUTSIDE_DIALECT', 'warning', pointer]),
    )
    // Ignored means ignored: an extra member the patternProperties would have typed is admitted as any other.
    const mod = await loadModule(result.code!, 'dialect-many')
    const sender = createLocalSender({ 'orders:place': () => ({ Id: 'x' }) })
    expect(await mod.place.send(sender, { Sku: 's', 'x-note': 1 })).toMatchObject({ isSuccessful: true })
    delete doc.components.schemas.PlaceOrder.patternProperties
    for (const key of ['dependencies', 'propertyNames', 'if', 'then', 'const']) delete order[key]
    expect((await compile(writeVariant('dialect-none', doc))).diagnostics).toEqual([])
  })
})

describe('the openapi marker (Benzene Contract Document §1: consumers MUST NOT reject a document on its value)', () => {
  it('any value is a warning at most, "3.0.1" is nothing, and only its absence is an error', async () => {
    const variant = async (name: string, edit: (doc: any) => void) => {
      const doc = readFixture('invalid/openapi-value.spec.json')
      edit(doc)
      const result = await compile(writeVariant(`openapi-${name}`, doc))
      return [result.code !== undefined, result.diagnostics.map((d) => [d.code, d.severity, d.pointer])]
    }
    expect(await variant('literal', (doc) => (doc.openapi = '3.0.1'))).toEqual([true, []])
    expect(await variant('other-string', (doc) => (doc.openapi = '3.1.0'))).toEqual([true, [['BENZENE_OPENAPI_VALUE', 'warning', '/openapi']]])
    expect(await variant('null', (doc) => (doc.openapi = null))).toEqual([true, [['BENZENE_OPENAPI_VALUE', 'warning', '/openapi']]])
    expect(await variant('absent', (doc) => delete doc.openapi)).toEqual([false, [['BENZENE_MISSING_MEMBER', 'error', '/openapi']]])
  })
})

describe('schema cycles (BENZENE_SCHEMA_CYCLE)', () => {
  const variant = async (name: string, schemas: Record<string, unknown>) => {
    const doc = readFixture('invalid/schema-cycle.spec.json')
    Object.assign(doc.components.schemas, schemas)
    return (await compile(writeVariant(`cycle-${name}`, doc))).diagnostics.map((d) => [d.code, d.pointer])
  }
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

  it('recursion through a property, an item or additionalProperties is a recursive type, not a cycle', async () => {
    expect(await variant('through-property', { B: { type: 'object', properties: { inner: ref('A') } } })).toEqual([])
    expect(await variant('through-items', { B: { type: 'array', items: ref('A') } })).toEqual([])
    expect(await variant('through-map', { B: { type: 'object', additionalProperties: ref('A') } })).toEqual([])
  })

  it('a member extending the schema that selects it is no cycle; a choice that selects its way back to itself is', async () => {
    const shape = { type: 'object', properties: { kind: { type: 'string' } }, oneOf: [ref('Circle')], discriminator: { propertyName: 'kind' } }
    expect(await variant('extends-selector', { B: shape, Circle: { allOf: [ref('B'), { type: 'object' }] } })).toEqual([])
    const parent = {
      type: 'object',
      properties: { kind: { type: 'string' } },
      discriminator: { propertyName: 'kind', mapping: { loop: '#/components/schemas/Loop' } },
    }
    expect(await variant('choice-loop', { B: parent, Loop: { oneOf: [ref('B')] } })).toEqual([
      ['BENZENE_SCHEMA_CYCLE', '/components/schemas/Loop/oneOf/0/$ref'],
    ])
  })

  it('a self-reference through allOf or not, and a $ref whose siblings would consume data, are cycles', async () => {
    expect(await variant('self-allof', { B: { allOf: [ref('B'), { type: 'object' }] } })).toEqual([
      ['BENZENE_SCHEMA_CYCLE', '/components/schemas/B/allOf/0/$ref'],
    ])
    expect(await variant('through-not', { B: { not: ref('A') } })).toEqual([['BENZENE_SCHEMA_CYCLE', '/components/schemas/B/not/$ref']])
    // OpenAPI 3.0 ignores a Reference Object's siblings: `properties` beside `$ref` consumes nothing.
    expect(await variant('ref-siblings', { B: { $ref: '#/components/schemas/A', properties: { x: ref('A') } } })).toEqual([
      ['BENZENE_SCHEMA_CYCLE', '/components/schemas/B/$ref'],
    ])
  })
})

describe('passing fixtures', () => {
  it.each(['payments', 'edge-cases', 'schema-features', 'hostile-names'])('%s.spec.json passes every rule, reserved topics included', async (name) => {
    const result = await inspect(join(fixtures, 'valid', `${name}.spec.json`), { benzene: { includeReserved: true } })
    expect(result.diagnostics).toEqual([])
  })

  it('edge-cases.spec.json: each version of one topic gets its own export, or the name given', async () => {
    const file = join(fixtures, 'valid', 'edge-cases.spec.json')
    const versions = await compile(file)
    expect(versions.diagnostics).toEqual([])
    expect(versions.code).toContain('export const placeV1 = ')
    expect(versions.code).toContain('export const placeV2 = ')
    // Two versions of one topic in scope: the topics map keys each by topic@version.
    const keysOf = async (code: string) => {
      const mod = await loadModule(code, 'edge-cases-names')
      return Object.entries(mod.topics as Record<string, unknown>).map(([key, client]) => [key, Object.keys(mod).find((name) => mod[name] === client)])
    }
    expect(await keysOf(versions.code!)).toContainEqual(['orders:place@v1', 'placeV1'])
    expect(await keysOf(versions.code!)).toContainEqual(['orders:place@v2', 'placeV2'])
    const named = await compile(file, { benzene: { names: { 'orders:place@v2': 'place' } } })
    expect(named.code).toContain('export const place = ')
    expect(named.code).toContain('export const placeV1 = ')
    // A given name wins; the default it takes yields to the qualified name.
    const taken = await compile(file, { benzene: { names: { 'orders:place@v2': 'placeV1' } } })
    expect(taken.diagnostics).toEqual([])
    expect(await keysOf(taken.code!)).toContainEqual(['orders:place@v1', 'ordersPlaceV1'])
    expect(await keysOf(taken.code!)).toContainEqual(['orders:place@v2', 'placeV1'])
    const clash = await compile(file, { benzene: { names: { 'orders:place@v1': 'place', 'orders:place@v2': 'place' } } })
    expect(clash.diagnostics.map((d) => [d.code, d.pointer, d.data])).toEqual([
      ['BENZENE_EXPORT_COLLISION', '/requests/2/topic', { exportName: 'place', topics: ['orders:place@v1', 'orders:place@v2'] }],
    ])
  })
})

describe('export names never fail the build (naming is not conformance: Benzene Contract Document §5.5)', () => {
  const exportsOf = (code: string) => [...code.matchAll(/^export const (\w+) = \/\* @__PURE__ \*\/ \$topic\(/gm)].map((m) => m[1])
  const eventsOf = (code: string) => [...code.matchAll(/\["(\w+)", (?:\/\* @__PURE__ \*\/ )?\$event\(/g)].map((m) => m[1])
  const withTopics = (name: string, requests: string[], events: string[] = []) => {
    const doc = readFixture('invalid/export-collision.spec.json')
    const [template] = doc.requests
    doc.requests = requests.map((topic) => ({ ...template, topic, version: undefined }))
    doc.events = events.map((topic) => ({ topic, message: template.request }))
    return writeVariant(`names-${name}`, doc)
  }

  it('two topics sharing a last segment are both qualified; a given name that collides or is no identifier is an error', async () => {
    const file = join(fixtures, 'invalid', 'export-collision.spec.json')
    const result = await compile(file)
    expect(result.diagnostics).toEqual([])
    expect(exportsOf(result.code!)).toEqual(['ordersPlace', 'customersPlace'])
    const clash = await compile(file, { benzene: { names: { 'orders:place': 'place', 'customers:place': 'place' } } })
    expect(clash.diagnostics.map((d) => [d.code, d.pointer, d.line, d.column, d.data])).toEqual([
      ['BENZENE_EXPORT_COLLISION', '/requests/1/topic', 20, 16, { exportName: 'place', topics: ['orders:place@v1', 'customers:place'] }],
    ])
  })

  it('a segment starting with a digit gets a leading underscore; a given name must still be an identifier', async () => {
    const file = join(fixtures, 'invalid', 'invalid-export-name.spec.json')
    expect(exportsOf((await compile(file)).code!)).toEqual(['_2fa'])
    const bad = await compile(file, { benzene: { names: { 'orders:2fa': '2fa' } } })
    expect(bad.diagnostics.map((d) => [d.code, d.pointer, d.line, d.column])).toEqual([['BENZENE_INVALID_EXPORT_NAME', '/requests/0/topic', 10, 16]])
  })

  it('requests and events alike: shared segments, digits, keywords and module names are qualified, numbered last, the same in any order', async () => {
    const requests = ['orders:get', 'customers:get', 'orders-get', 'auth:2fa-verify', 'orders:delete', 'billing:contract', 'x:::', ':::', 'a:b', 'a-b', 'c:a-b']
    const events = ['orders:created', 'invoices:created']
    const result = await compile(withTopics('mixed', requests, events))
    expect(result.diagnostics).toEqual([])
    const names = ['ordersGet2', 'customersGet', 'ordersGet', '_2faVerify', 'ordersDelete', 'billingContract', 'x', 'topic', 'b', 'aB', 'cAB']
    expect(exportsOf(result.code!)).toEqual(names)
    expect(eventsOf(result.code!)).toEqual(['ordersCreated', 'invoicesCreated'])
    const reversed = await compile(withTopics('mixed-reversed', [...requests].reverse(), [...events].reverse()))
    expect(exportsOf(reversed.code!)).toEqual([...names].reverse())
    expect(eventsOf(reversed.code!)).toEqual(['invoicesCreated', 'ordersCreated'])
  })
})

describe('scope diagnostics', () => {
  const payments = join(fixtures, 'valid', 'payments.spec.json')

  it('BENZENE_UNKNOWN_TOPIC lists the unknown and the valid topics', async () => {
    const result = await compile(payments, { query: 'topics=payments:capture,payments:cancel' })
    expect(result.diagnostics).toHaveLength(1)
    expect(result.diagnostics[0]).toMatchObject({
      code: 'BENZENE_UNKNOWN_TOPIC',
      pointer: '/requests',
      data: {
        unknownTopics: ['payments:cancel'],
        validTopics: ['benzene:spec', 'benzene:healthcheck', 'payments:capture', 'payments:refund', 'payments:get-all'],
      },
    })
  })

  it('an unknown import query parameter is an error, bundler queries are not', async () => {
    const typo = await compile(payments, { query: 'topic=payments:capture' })
    expect(typo.diagnostics.map((d) => d.code)).toEqual(['CONTRACTS_UNKNOWN_QUERY'])
    expect((await compile(payments, { query: 't=1700000000&import' })).diagnostics).toEqual([])
  })

  it('a query holding "*" compiles, with a warning that its import gets no declarations (one "*" per TypeScript module pattern)', async () => {
    // A topic whose id holds `*` (and ends in U+2028, which the query keeps: only spaces and tabs around an id are layout).
    const hostile = join(fixtures, 'valid', 'hostile-names.spec.json')
    const topic = (JSON.parse(readFileSync(hostile, 'utf8')) as { requests: Array<{ topic: string }> }).requests[0]!.topic
    expect([topic.includes('*'), topic.endsWith('\u2028')]).toEqual([true, true])
    const star = await compile(hostile, { query: `topics=${encodeURIComponent(topic)}` })
    expect(star.code).toBeDefined()
    expect(star.diagnostics.map((d) => [d.code, d.severity, d.file, d.line, d.column])).toEqual([['CONTRACTS_QUERY_UNTYPED', 'warning', hostile, 1, 1]])
    expect(star.diagnostics[0]!.message).toContain('%2A')
    // Written as %2A, the specifier holds no "*": no warning.
    expect((await compile(hostile, { query: `topics=${encodeURIComponent(topic).replaceAll('*', '%2A')}` })).diagnostics).toEqual([])
  })

  it('a parameter given twice is CONTRACTS_REPEATED_QUERY (once per key), not one value dropped; once, none', async () => {
    const twice = await compile(payments, { query: 'topics=payments:capture&topics=payments:refund&topics=payments:get-all&validate=both' })
    expect(twice.code).toBeUndefined()
    expect(twice.diagnostics.map((d) => ({ code: d.code, severity: d.severity, pointer: d.pointer, data: d.data }))).toEqual([
      { code: 'CONTRACTS_REPEATED_QUERY', severity: 'error', pointer: '', data: { key: 'topics' } },
    ])
    expect((await compile(payments, { query: 'topics=payments:capture,payments:refund&validate=both' })).diagnostics).toEqual([])
    // Bundlers' own parameters may repeat (a timestamp added twice).
    expect((await compile(payments, { query: 't=1&t=2&import&import' })).diagnostics).toEqual([])
  })

  it('?includeReserved takes no value, true or false (1 and 0 too); anything else is BENZENE_INVALID_OPTION, not read as yes', async () => {
    for (const [value, reserved] of [
      ['', true],
      ['=true', true],
      ['=1', true],
      ['=false', false],
      ['=0', false],
    ] as const) {
      const result = await compile(payments, { query: `includeReserved${value}` })
      expect([value, result.diagnostics, result.exports?.includes('spec')]).toEqual([value, [], reserved])
    }
    for (const value of ['FALSE', 'no', 'off', 'yes', '*'].map(encodeURIComponent)) {
      const result = await compile(payments, { query: `includeReserved=${value}` })
      expect([value, result.diagnostics.filter((d) => d.severity === 'error').map((d) => [d.code, d.pointer])]).toEqual([
        value,
        [['BENZENE_INVALID_OPTION', '']],
      ])
    }
  })

  it('a NATS or DASP document takes no query parameters, and says so', async () => {
    const nats = await compile(join(import.meta.dirname, '../fixtures/nats/valid/ledger.asyncapi.yaml'), { query: 'x' })
    expect(nats.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ['CONTRACTS_UNKNOWN_QUERY', 'Unknown import query parameter "x": a nats contract takes no query parameters.'],
    ])
  })
})

describe('documentation', () => {
  it('docs/diagnostics.md lists every diagnostic code the compiler can emit', async () => {
    const { readFileSync, readdirSync } = await import('node:fs')
    const readme = readFileSync(join(import.meta.dirname, '../docs/diagnostics.md'), 'utf8')
    const sources = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [readFileSync(join(dir, e.name), 'utf8')] : [],
      )
    const codes = new Set(
      sources(join(import.meta.dirname, '../src')).flatMap((text) =>
        [...text.matchAll(/'((?:BENZENE|JSON|CONTRACTS|NATS|YAML|DASP)_[A-Z0-9_]+)'/g)].map((m) => m[1]!),
      ),
    )
    expect(codes.size).toBeGreaterThan(60)
    for (const code of codes) expect(readme, code).toContain(`\`${code}\``)
  })
})

describe('the MUST-level schema rules accept what they allow', () => {
  const variant = async (name: string, edit: (doc: any) => void) => {
    const doc = readFixture('invalid/default-type.spec.json')
    edit(doc)
    return (await compile(writeVariant(`must-${name}`, doc))).diagnostics
  }
  const id = (doc: any) => doc.components.schemas.Order.properties.Id
  it.each([
    ['a default of the type', (doc: any) => (id(doc).default = 'ord-1')],
    ['a null default where nullable', (doc: any) => (id(doc).default = null)],
    ['readOnly alone', (doc: any) => (delete id(doc).default, (id(doc).readOnly = true))],
    ['a non-empty required', (doc: any) => (delete id(doc).default, (doc.components.schemas.Order.required = ['Id']))],
  ])('%s', async (name, edit) => {
    expect(await variant(name.replace(/\W+/g, '-'), edit)).toEqual([])
  })
})

describe('reserved events (Benzene Contract Document §5.1, the prefix half of the rule)', () => {
  it('a benzene:-prefixed event is left out by default, like a reserved request, and admitted by includeReserved', async () => {
    const doc = readFixture('valid/payments.spec.json')
    doc.events.push({ topic: 'benzene:audit', message: doc.events[0].message })
    const file = writeVariant('reserved-events', doc)
    const plain = await inspect(file)
    expect((plain.data as { events: string[] }).events).toEqual(['payment:captured'])
    const reserved = await inspect(file, { benzene: { includeReserved: true } })
    expect((reserved.data as { events: string[] }).events).toEqual(['payment:captured', 'benzene:audit'])
    const module = await compile(file)
    expect(module.code).not.toContain('benzene:audit')
  })
})

describe('inspect keys: one rule for requests and events', () => {
  it('the topic id alone, or topic@version when that topic has several versions in its list', async () => {
    const doc = readFixture('valid/payments.spec.json')
    const captured = doc.events[0]
    doc.events = [captured, { ...captured, version: 'v2' }, { topic: 'payment:voided', version: 'v1', message: captured.message }]
    const file = writeVariant('inspect-keys', doc)
    const data = (await inspect(file)).data as { events: string[]; topics: string[]; entries: Array<{ key: string }> }
    expect(data.events).toEqual(['payment:captured@v1', 'payment:captured@v2', 'payment:voided'])
    const requestTopics = doc.requests.map((r: { topic: string; version?: string }) => r.topic)
    for (const { key } of data.entries) {
      const topic = key.split('@')[0]!
      expect(key.includes('@'), key).toBe(requestTopics.filter((t: string) => t === topic).length > 1)
    }
  })
})

describe('$ref fragments are percent-encoded JSON Pointers', () => {
  it('#/components/schemas/Order%20Line names "Order Line"; text that is no percent-encoding stands as written', async () => {
    const doc = readFixture('valid/payments.spec.json')
    // The first topic's request schema gains two members, each a reference to a new schema.
    const entry = doc.requests.find((r: { topic: string }) => r.topic === 'payments:refund')
    const target = entry.request.$ref.split('/').pop()
    doc.components.schemas['Order Line'] = { type: 'object', properties: { Sku: { type: 'string' } } }
    doc.components.schemas['50%off'] = { type: 'object', properties: { Rate: { type: 'number' } } }
    doc.components.schemas[target].properties.Line = { $ref: '#/components/schemas/Order%20Line' }
    doc.components.schemas[target].properties.Deal = { $ref: '#/components/schemas/50%off' }
    const file = writeVariant('percent', doc)
    const result = await inspect(file)
    expect(result.diagnostics).toEqual([])
    const closure = (result.data as { closure: Record<string, string[]> }).closure['payments:refund']
    expect(closure).toEqual(expect.arrayContaining([target, 'Order Line', '50%off']))
    doc.components.schemas[target].properties.Line = { $ref: '#/components/schemas/Order%20Lines' }
    expect((await compile(writeVariant('percent', doc))).diagnostics.map((d) => d.code)).toEqual(['BENZENE_REF_MISSING'])
  })
})

describe('discriminators (OpenAPI 3.0 Discriminator Object)', () => {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
  const variant = async (name: string, schemas: Record<string, unknown>) => {
    const doc = readFixture('invalid/invalid-discriminator.spec.json')
    Object.assign(doc.components.schemas, schemas)
    return (await compile(writeVariant(`discriminator-${name}`, doc))).diagnostics.map((d) => [d.code, d.pointer])
  }

  it('a parent is valid once a schema extends it with allOf, or its mapping names one; an inline schema cannot be a parent', async () => {
    expect(await variant('extended', { Square: { allOf: [ref('Shape'), { type: 'object' }] } })).toEqual([])
    expect(await variant('mapped', { Shape: { type: 'object', discriminator: { propertyName: 'kind', mapping: { o: 'Order' } } } })).toEqual([])
    const inline = { type: 'object', properties: { s: { type: 'object', discriminator: { propertyName: 'kind' } } } }
    expect(await variant('inline-parent', { Square: { allOf: [ref('Shape')] }, Holder: inline })).toEqual([
      ['BENZENE_INVALID_DISCRIMINATOR', '/components/schemas/Holder/properties/s/discriminator'],
    ])
  })

  it("a parent's family listed as alternatives is a choice written out where it stands: its values count toward the bound", async () => {
    // familyAlternatives(n): P's n + 2 descendants, and n lists `oneOf: [A, B]` of n + 2 values each:
    // at 320, 322 + 310 x 322 passes 100,000 at the 310th list, Body309.
    const write = (n: number) => writeVariant(`family-alternatives-${n}`, JSON.parse(familyAlternatives(n)))
    expect((await compile(write(300))).diagnostics).toEqual([])
    const refused = await compile(write(320))
    expect(refused.code).toBeUndefined()
    expect(refused.diagnostics.map((d) => [d.code, d.pointer])).toEqual([
      ['BENZENE_DISCRIMINATOR_TOO_LARGE', '/components/schemas/Body309/properties/item/oneOf'],
    ])
  })

  it('a list naming the parent refers to its choice: a thousand of them stay one branch each', async () => {
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
    const doc = JSON.parse(familyAlternatives(300))
    for (let i = 0; i < 1000; i++) doc.components.schemas[`Named${i}`] = { oneOf: [ref('P'), ref('A'), ref(`A${i % 300}`)] }
    const result = await compile(writeVariant('family-named-parent', doc))
    expect(result.diagnostics).toEqual([])
  })
})

describe('patterns are ECMA-262 read without the Unicode flag, as OpenAPI 3.0 writes them', () => {
  it('`^\\d{3}\\-\\d{4}$` compiles and checks; `\\p{L}` is the text p{L} there (and warned about)', async () => {
    const result = await compile(join(fixtures, 'invalid', 'pattern-dialect.spec.json'))
    const mod = await loadModule(result.code!, 'pattern-dialect')
    const answer = async (order: unknown) => (await mod.place.send(createLocalSender({ 'orders:place': () => order }), { Sku: 's' })).status
    expect(await answer({ Phone: '555-0100' })).toBe('ok')
    expect(await answer({ Phone: '5550100' })).toBe('unexpected-error')
    expect(await answer({ Name: 'p{L}' })).toBe('ok')
    expect(await answer({ Name: 'Ada' })).toBe('unexpected-error')
  })

  it('a leading inline options group as .NET writes it, `(?i)^[a-z ]+$`, is warned about (not ECMA-262, a SHOULD) and read as the flag on the rest', async () => {
    const result = await compile(join(fixtures, 'invalid', 'pattern-inline-options.spec.json'))
    const at = '/components/schemas/Order/properties/Name/pattern'
    // The modifier group it is read as runs on the linear engine (test/pattern-modifiers.test.ts): no budget to warn of.
    expect(result.diagnostics.map((d) => [d.code, d.severity, d.pointer, d.line, d.column])).toEqual([['BENZENE_PATTERN_DIALECT', 'warning', at, 45, 24]])
    const mod = await loadModule(result.code!, 'pattern-inline-options')
    const answer = async (order: unknown) => (await mod.place.send(createLocalSender({ 'orders:place': () => order }), { Sku: 's' })).status
    expect(await answer({ Name: 'Ada Lovelace' })).toBe('ok')
    expect(await answer({ Name: 'ada' })).toBe('ok')
    expect(await answer({ Name: 'Ada 2' })).toBe('unexpected-error')
  })

  it('a pattern that is no expression of the dialect is BENZENE_INVALID_SCHEMA; an Annex B quantified lookahead is read by its meaning', async () => {
    const variant = async (name: string, pattern: string) => {
      const doc = readFixture('invalid/pattern-dialect.spec.json')
      doc.components.schemas.Order.properties.Name.pattern = pattern
      return (await compile(writeVariant(`pattern-${name}`, doc))).diagnostics.map((d) => [d.code, d.pointer])
    }
    const at = '/components/schemas/Order/properties/Name/pattern'
    expect(await variant('unterminated', '[a-')).toEqual([['BENZENE_INVALID_SCHEMA', at]])
    expect(await variant('quantified-lookahead', '^(?=a)*b')).toEqual([])
    expect(await variant('identity-escapes', '^[\\w\\-.]+@\\/\\d$')).toEqual([])
  })
})
