/**
 * A Benzene compiler that recompiles a document edit after edit (a dev server, a watch build) keeps
 * what its stages computed (`CompileMemos`: schema texts, JSON Schema conversions, validator
 * functions, topic hashes). Whatever the edit, the recompile must write what a fresh compiler
 * writes from the same text: module, declarations and diagnostics, byte for byte. The edits here
 * are random sequences over a document with every kind of cross-schema fact a kept result depends
 * on: shared components, `$ref`s, a discriminator parent and the schemas extending it, a `oneOf`
 * family, `readOnly`/`writeOnly` members, an `int64`, under each option that changes the output.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ContractCompiler, type CompileOptions } from '../src/index.js'

const work = join(import.meta.dirname, '.tmp/incremental-property')
const file = join(work, 'service.spec.json')

type Json = any
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

function requestSchema(i: number): Json {
  return {
    type: 'object',
    required: ['Code'],
    additionalProperties: false,
    properties: { Code: { type: 'string', maxLength: 8 + i }, Total: ref('Money'), Ship: ref('Address'), Count: ref('Big') },
  }
}

function responseSchema(): Json {
  return { type: 'object', properties: { Id: { type: 'string', nullable: true }, Pet: { oneOf: [ref('Cat'), ref('Dog')] }, Account: ref('Account') } }
}

/** The document the edits start from: `topics` topics, each with its own request and response schema. */
function baseDocument(topics: number): Json {
  const schemas: Record<string, Json> = {
    Money: {
      type: 'object',
      required: ['Amount'],
      properties: { Amount: { type: 'number', minimum: 0 }, Currency: { type: 'string', pattern: '^[A-Z]{3}$' } },
    },
    Address: { type: 'object', properties: { Street: { type: 'string', nullable: true }, City: { type: 'string' } }, additionalProperties: false },
    Pet: { type: 'object', required: ['kind'], properties: { kind: { type: 'string' }, name: { type: 'string' } }, discriminator: { propertyName: 'kind' } },
    Cat: { allOf: [ref('Pet'), { type: 'object', properties: { lives: { type: 'integer', format: 'int32' } } }] },
    Dog: { allOf: [ref('Pet'), { type: 'object', properties: { bark: { type: 'boolean' } } }] },
    Account: { type: 'object', properties: { id: { type: 'string', readOnly: true }, secret: { type: 'string', writeOnly: true }, owner: ref('Address') } },
    Big: { type: 'integer', format: 'int64' },
    // Nothing names it; its keyword outside the dialect and its repeated enum value are warnings.
    Spare: { type: 'object', patternProperties: { '^x': { type: 'string' } }, properties: { a: { enum: [1, 1] } } },
  }
  const requests: Json[] = []
  for (let i = 0; i < topics; i++) {
    schemas[`Request${i}`] = requestSchema(i)
    schemas[`Response${i}`] = responseSchema()
    requests.push({ topic: `svc:op-${i}`, request: ref(`Request${i}`), response: ref(`Response${i}`) })
  }
  return {
    openapi: '3.0.1',
    info: { title: 'property', version: '1' },
    requests,
    events: [{ topic: 'svc:pet-seen', version: 'v1', message: ref('Pet') }],
    components: { schemas },
  }
}

/** The request schemas a topic entry names (`Request<n>`), in entry order. */
const requestNames = (doc: Json): string[] => doc.requests.map(requestName)

/** The request schema an entry names, or named before its request was written inline (`inline`). */
const requestName = (entry: Json): string => entry.request.$ref?.split('/').pop() ?? inlined.get(entry)!
const inlined = new WeakMap<object, string>()

const TARGETS = ['Money', 'Address', 'Account', 'Pet', 'Cat', 'Big']

/** One edit, applied to the document in place; `broken` ones are compiled, then undone and compiled again. */
const edits = fc.oneof(
  fc.record({ kind: fc.constant('literal' as const), at: fc.nat(), value: fc.nat(60) }),
  fc.record({ kind: fc.constant('shared' as const), value: fc.integer({ min: -3, max: 3 }), member: fc.boolean() }),
  fc.record({ kind: fc.constant('info' as const), text: fc.string({ maxLength: 5 }) }),
  fc.record({ kind: fc.constant('retarget' as const), at: fc.nat(), target: fc.constantFrom(...TARGETS) }),
  fc.record({ kind: fc.constant('add' as const) }),
  fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('rename' as const), at: fc.nat(), text: fc.stringMatching(/^[a-z]{1,4}$/) }),
  fc.record({ kind: fc.constant('broken' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('direction' as const), flag: fc.constantFrom('readOnly', 'writeOnly', undefined) }),
  fc.record({ kind: fc.constant('child' as const), present: fc.boolean() }),
  fc.record({ kind: fc.constant('mapping' as const), present: fc.boolean() }),
  fc.record({ kind: fc.constant('copy' as const), at: fc.nat() }),
  // Warnings at schemas the edit leaves alone, moved and renamed (their reports are kept by schema).
  fc.record({ kind: fc.constant('warn' as const), at: fc.nat(), present: fc.boolean() }),
  fc.record({ kind: fc.constant('spare' as const), text: fc.stringMatching(/^[a-z]{1,3}$/) }),
  fc.record({ kind: fc.constant('swap' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('prepend' as const) }),
  fc.record({ kind: fc.constant('inline' as const), at: fc.nat(), present: fc.boolean() }),
)
type Edit = typeof edits extends fc.Arbitrary<infer E> ? E : never

/** Applies `edit`; returns the undo of a `broken` edit (the document's error taken out again). */
function apply(doc: Json, edit: Edit, added: { next: number }): (() => void) | undefined {
  const schemas = doc.components.schemas as Record<string, Json>
  const names = requestNames(doc)
  const pick = (at: number) => (names.length === 0 ? undefined : names[at % names.length]!)
  switch (edit.kind) {
    case 'literal': {
      const name = pick(edit.at)
      if (name) schemas[name].properties.Code.maxLength = edit.value
      return
    }
    case 'shared':
      schemas.Money.properties.Amount.minimum = edit.value
      if (edit.member) schemas.Money.properties.Note = { type: 'string', enum: ['a', `v${edit.value}`] }
      else delete schemas.Money.properties.Note
      return
    case 'info':
      doc.info.title = edit.text
      return
    case 'retarget': {
      const name = pick(edit.at)
      if (name) schemas[name].properties.Total = ref(edit.target)
      return
    }
    case 'add': {
      const i = added.next++
      schemas[`Request${i}`] = requestSchema(i)
      schemas[`Response${i}`] = responseSchema()
      doc.requests.push({ topic: `svc:added-${i}`, request: ref(`Request${i}`), response: ref(`Response${i}`) })
      return
    }
    case 'remove':
      if (doc.requests.length > 1) {
        const [entry] = doc.requests.splice(edit.at % doc.requests.length, 1)
        const name = requestName(entry)
        delete schemas[name]
        delete schemas[name.replace('Request', 'Response')]
      }
      return
    case 'rename':
      if (doc.requests.length > 0) doc.requests[edit.at % doc.requests.length].topic = `svc:renamed-${edit.text}`
      return
    case 'broken': {
      const name = pick(edit.at)
      if (!name) return
      const before = schemas[name].properties.Total
      schemas[name].properties.Total = ref('Missing')
      return () => void (schemas[name].properties.Total = before)
    }
    case 'direction':
      if (edit.flag === undefined) schemas.Address.properties.City = { type: 'string' }
      else schemas.Address.properties.City = { type: 'string', [edit.flag]: true }
      return
    case 'child':
      if (edit.present) schemas.Bird = { allOf: [ref('Pet'), { type: 'object', required: ['wings'], properties: { wings: { type: 'integer' } } }] }
      else delete schemas.Bird
      return
    case 'mapping':
      if (edit.present) schemas.Pet.discriminator.mapping = { cat: ref('Cat').$ref, dog: ref('Dog').$ref }
      else delete schemas.Pet.discriminator.mapping
      return
    case 'warn': {
      // A duplicate enum value (a warning) in a request schema, or none.
      const name = pick(edit.at)
      if (!name) return
      if (edit.present) schemas[name].properties.Kind = { type: 'string', enum: ['a', 'b', 'a'] }
      else delete schemas[name].properties.Kind
      return
    }
    case 'spare': {
      // A component nothing names, with a keyword outside the dialect (a warning), renamed: the same text at another pointer.
      const old = Object.keys(schemas).find((key) => key.startsWith('Spare'))
      if (old === undefined) return
      // Renamed where it stands: the members are written again in their order, this one under its new name.
      const entries = Object.entries(schemas).map(([key, value]) => [key === old ? `Spare${edit.text}` : key, value] as const)
      for (const key of Object.keys(schemas)) delete schemas[key]
      for (const [key, value] of entries) schemas[key] = value
      return
    }
    case 'prepend': {
      // A topic added first: every other entry, unchanged, one index further on.
      const i = added.next++
      schemas[`Request${i}`] = requestSchema(i)
      schemas[`Response${i}`] = responseSchema()
      doc.requests.unshift({ topic: `svc:first-${i}`, request: ref(`Request${i}`), response: ref(`Response${i}`) })
      return
    }
    case 'swap': {
      // Two entries trade places: the same entries at other indexes.
      if (doc.requests.length < 2) return
      const i = edit.at % doc.requests.length
      const j = (i + 1) % doc.requests.length
      ;[doc.requests[i], doc.requests[j]] = [doc.requests[j], doc.requests[i]]
      return
    }
    case 'inline': {
      // A request schema written in the entry, with a warning in it, or the reference back.
      if (doc.requests.length === 0) return
      const entry = doc.requests[edit.at % doc.requests.length]
      if (edit.present) {
        inlined.set(entry, requestName(entry))
        entry.request = { type: 'object', properties: { Tag: { type: 'string', enum: ['x', 'x'] }, Total: ref('Money') } }
      } else if (inlined.has(entry)) {
        entry.request = ref(inlined.get(entry)!)
        inlined.delete(entry)
      }
      return
    }
    case 'copy': {
      // Two request schemas that are copies of each other: one definition class.
      const name = pick(edit.at)
      const other = pick(edit.at + 1)
      if (name && other && name !== other) schemas[name] = structuredClone(schemas[other])
      return
    }
  }
}

/** The options a compile is asked with: each changes what the validators are. */
const OPTIONS: CompileOptions[] = [{}, { benzene: { int64: 'string' } }, { benzene: { validators: 'data' } }, { query: 'validate=request' }]

beforeAll(() => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
})
afterAll(() => rmSync(work, { recursive: true, force: true }))

describe('a Benzene recompile after any sequence of edits', () => {
  it('writes the module, declarations and diagnostics a fresh compiler writes from the same text', async () => {
    let compiled = 0
    let withCode = 0
    let warned = 0
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(edits, fc.nat(OPTIONS.length - 1)), { minLength: 1, maxLength: 8 }), async (sequence) => {
        const doc = baseDocument(4)
        const added = { next: 4 }
        const compiler = new ContractCompiler()
        const check = async (options: CompileOptions) => {
          writeFileSync(file, JSON.stringify(doc, null, 2))
          const warm = await compiler.compile(file, options)
          const fresh = await new ContractCompiler().compile(file, options)
          expect(warm.diagnostics).toEqual(fresh.diagnostics)
          expect(warm.code).toBe(fresh.code)
          expect(warm.dts).toBe(fresh.dts)
          compiled++
          if (fresh.code !== undefined) withCode++
          if (fresh.diagnostics.some((d) => d.severity === 'warning')) warned++
        }
        // The file's first compile keeps nothing; every one after it reads and fills the memos.
        writeFileSync(file, JSON.stringify(doc, null, 2))
        expect((await new ContractCompiler().compile(file)).diagnostics.filter((d) => d.severity === 'error')).toEqual([])
        await check({})
        await check(OPTIONS[1]!)
        for (const [edit, option] of sequence) {
          const undo = apply(doc, edit, added)
          await check(OPTIONS[option]!)
          if (undo) {
            undo()
            await check(OPTIONS[option]!)
          }
        }
      }),
      { numRuns: 25 },
    )
    expect(compiled).toBeGreaterThan(50)
    // Most of them compiled to a module (a `broken` edit's does not).
    expect(withCode).toBeGreaterThan(compiled / 2)
    // Warnings kept by schema were compared too (the spare component's, at least, in each compile that got that far).
    expect(warned).toBeGreaterThan(compiled / 2)
  })

  it('reports again, as a fresh compile does, a schema with more warnings than are kept for it', async () => {
    const doc = baseDocument(2)
    // 300 members with a keyword outside the dialect: 300 warnings of one rule at one component.
    doc.components.schemas.Noisy = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`m${i}`, { type: 'object', patternProperties: { '^x': {} } }])),
    }
    const compiler = new ContractCompiler()
    for (let i = 0; i < 4; i++) {
      doc.components.schemas.Request0.properties.Code.maxLength = 10 + i
      writeFileSync(file, JSON.stringify(doc, null, 2))
      const warm = await compiler.compile(file)
      const fresh = await new ContractCompiler().compile(file)
      expect(warm.diagnostics).toEqual(fresh.diagnostics)
      expect(warm.code).toBe(fresh.code)
    }
    expect((await new ContractCompiler().compile(file)).diagnostics.filter((d) => d.pointer.startsWith('/components/schemas/Noisy/')).length).toBeGreaterThan(
      90,
    )
  })

  it('reuses the unchanged schemas’ conversions after a one-topic edit, and keeps the output a fresh compile writes', async () => {
    const doc = baseDocument(6)
    const compiler = new ContractCompiler()
    const compile = async () => {
      writeFileSync(file, JSON.stringify(doc, null, 2))
      return compiler.compile(file)
    }
    await compile()
    doc.info.title = 'filled'
    await compile()
    const converted = compiler.memos.of('benzene:converted')
    const before = { hits: converted.hits, misses: converted.misses }
    doc.components.schemas.Request3.properties.Code.maxLength = 99
    const warm = await compile()
    // Only Request3's definition is converted again; every other definition is the last compile's.
    expect(converted.misses - before.misses).toBe(1)
    expect(converted.hits - before.hits).toBeGreaterThan(10)
    expect(warm.code).toContain('99')
    expect(warm.code).toBe((await new ContractCompiler().compile(file)).code)
  })
})
