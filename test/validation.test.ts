/** Generated validators and types for every schema feature, exercised through real clients. */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import vm from 'node:vm'
import { build } from 'esbuild'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { createLocalSender, ok } from '../src/runtime/index.js'
import { typecheck } from './helpers/typecheck.js'
import { loadModule } from './helpers/load-module.js'

const fixture = join(import.meta.dirname, '../fixtures/benzene/valid/schema-features.spec.json')
const work = join(import.meta.dirname, '.tmp/validation')
let mod: Record<string, any>
let code: string

/** JSON values of every kind, a few levels deep (payloads a service or an app might send). */
const json = fc.jsonValue({ maxDepth: 3 })

const uuid = '0f8fad5b-d9cb-469f-a165-70867728950e'
const adopt = { petId: uuid, adopter: 'Ada', kind: 'adoption', visits: 2, at: '2026-11-30T10:00:00Z', fee: 10 }
const adoption = { id: 'a-1', pet: { petType: 'kitty', name: 'Tom', indoor: true }, ledgerId: 7 }

/** A service that answers every topic with `answer` and records what it received. */
function service(answer: unknown) {
  return createLocalSender(
    new Proxy(
      {},
      { has: () => true, get: () => () => answer, getOwnPropertyDescriptor: () => ({ value: () => answer, configurable: true, enumerable: true }) },
    ) as never,
  )
}

beforeAll(async () => {
  const result = await compile(fixture)
  expect(result.diagnostics).toEqual([])
  code = result.code!
  mod = await loadModule(code, 'schema-features')
})

describe('requests are checked before they are sent', () => {
  it('a valid request goes through, and so does its valid response', async () => {
    const sender = service(adoption)
    const result = await mod.adoptV1.send(sender, adopt)
    expect(result).toEqual({ status: 'ok', isSuccessful: true, payload: adoption, errors: [] })
    expect(sender.sent).toHaveLength(1)
    expect(sender.sent[0].headers).toEqual({ 'benzene-version': 'v1' })
  })

  it('an invalid request is never sent; one error per violation, with its path', async () => {
    const sender = service(adoption)
    const result = await mod.adoptV2.send(sender, { petId: 'not-a-uuid', adopter: 'A', kind: 'purchase', visits: 2 ** 31, fee: 0, extra: 1 })
    expect(sender.sent).toHaveLength(0)
    expect(result.status).toBe('validation-error')
    expect(result.isSuccessful).toBe(false)
    expect(result.errors.map((e: any) => [e.path, e.code]).sort()).toEqual(
      [
        ['/adopter', 'minLength'],
        ['/extra', 'additionalProperties'],
        ['/fee', 'exclusiveMinimum'],
        ['/kind', 'enum'],
        ['/petId', 'pattern'],
        ['/visits', 'maximum'],
      ].sort(),
    )
    const missing = await mod.adoptV1.send(sender, {})
    expect(missing.errors.map((e: any) => e.path).sort()).toEqual(['/adopter', '/kind', '/petId'])
  })

  it('a date-time is checked, and nullable admits null', async () => {
    expect((await mod.adoptV1.send(service(adoption), { ...adopt, at: null })).isSuccessful).toBe(true)
    expect((await mod.adoptV1.send(service(adoption), { ...adopt, at: '30/11/2026' })).errors.map((e: any) => e.path)).toEqual(['/at'])
  })

  it('readOnly members are not required in requests, writeOnly ones not in responses', async () => {
    // Adoption is the event message (request direction): `id` is readOnly, `secret` writeOnly and required.
    const sender = service(undefined)
    expect((await mod.events.adopted.publish(sender, { pet: adoption.pet, secret: 's' })).isSuccessful).toBe(true)
    const noSecret = await mod.events.adopted.publish(sender, { pet: adoption.pet })
    expect(noSecret.errors.map((e: any) => e.path)).toEqual(['/secret'])
    // As a response, `id` is required and `secret` is not.
    const noId = await mod.adoptV1.send(service({ pet: adoption.pet }), adopt)
    expect(noId.status).toBe('unexpected-error')
    expect(noId.errors.map((e: any) => e.path)).toEqual(['/id'])
  })
})

describe('responses that break the contract', () => {
  it('become a failed Result that keeps the raw payload', async () => {
    const raw = { id: 'a-1', pet: { petType: 'parrot', name: 'Polly' } }
    const result = await mod.adoptV1.send(service(raw), adopt)
    expect(result).toMatchObject({ status: 'unexpected-error', isSuccessful: false, payload: raw })
    expect(result.errors[0].code).toBe('response:enum')
    expect(result.errors[0].path).toBe('/pet/petType')
  })

  it('a response without a body is not judged against the response schema', async () => {
    const sender = createLocalSender({ 'pets:adopt': () => ok(undefined, 'accepted') })
    expect(await mod.adoptV1.send(sender, adopt)).toMatchObject({ status: 'accepted', isSuccessful: true })
  })
})

describe('schema features', () => {
  it('discriminator: the mapped or named member is checked, and only it', async () => {
    const send = (pet: unknown) => mod.register.send(service(pet), pet)
    expect((await send({ petType: 'kitty', name: 'Tom', indoor: false })).isSuccessful).toBe(true)
    expect((await send({ petType: 'Dog', name: 'Rex', barks: true })).isSuccessful).toBe(true)
    const wrong = await send({ petType: 'Dog', name: 'Rex' })
    expect(wrong.errors.map((e: any) => [e.path, e.code])).toEqual([['/barks', 'required']])
    const unknown = await send({ petType: 'Cat', name: 'Tom' })
    expect(unknown.errors.map((e: any) => [e.path, e.code])).toEqual([['/petType', 'enum']])
  })

  it("allOf is merged: members closed with additionalProperties: false admit each other's members", async () => {
    const send = (pet: unknown) => mod.register.send(service(pet), pet)
    expect((await send({ petType: 'kitty', name: 'Tom', indoor: true })).isSuccessful).toBe(true)
    const extra = await send({ petType: 'kitty', name: 'Tom', claws: 10 })
    expect(extra.errors.map((e: any) => [e.path, e.code])).toEqual([['/claws', 'additionalProperties']])
  })

  it('additionalProperties as a schema types and checks the extra members', async () => {
    expect((await mod.tag.send(service({ count: 1 }), { tags: ['a', 'b'], colour: 'red' })).isSuccessful).toBe(true)
    const bad = await mod.tag.send(service({ count: 1 }), { tags: ['a', 'a'], size: 3 })
    expect(bad.errors.map((e: any) => [e.path, e.code]).sort()).toEqual([
      ['/size', 'type'],
      ['/tags', 'uniqueItems'],
    ])
  })

  it('int64 stays a number by default, or is a decimal string with int64: "string"', async () => {
    expect((await mod.count.send(service({ value: 9007199254740991 }), { value: 42 })).isSuccessful).toBe(true)
    const asStrings = await compile(fixture, { benzene: { int64: 'string', topics: ['pets:count'] } })
    expect(asStrings.dts).toContain('value?: string;')
    const strict = await loadModule(asStrings.code!, 'int64')
    expect((await strict.count.send(service({ value: '9223372036854775807' }), { value: '-12' })).isSuccessful).toBe(true)
    expect((await strict.count.send(service({}), { value: 12 })).errors.map((e: any) => e.code)).toEqual(['type'])
  })

  it('validate: false, "request" and "response" generate only what they name', async () => {
    for (const [validate, request, response] of [
      [false, false, false],
      ['request', true, false],
      ['response', false, true],
    ] as const) {
      const m = await loadModule((await compile(fixture, { benzene: { validate, topics: ['pets:error'] } })).code!, `validate-${validate}`)
      const r = await m.error.send(service('zzz'), { message: 1 })
      expect(r.status).toBe(request ? 'validation-error' : response ? 'unexpected-error' : 'ok')
    }
    const fromQuery = await compile(fixture, { query: 'validate=false&topics=pets:error' })
    expect(fromQuery.code).not.toContain('validate')
    expect((await compile(fixture, { query: 'validate=maybe' })).diagnostics.map((d) => d.code)).toEqual(['BENZENE_INVALID_OPTION'])
  })
})

describe('generated validators under a strict Content-Security-Policy', () => {
  it('contain no require, import(), eval or new Function', () => {
    const validators = code.slice(code.indexOf('const $'), code.indexOf('export const adoptV1'))
    expect(validators.length).toBeGreaterThan(1000)
    expect(validators).not.toMatch(/\brequire\(\s*["']/)
    expect(validators).not.toMatch(/\bimport\(/)
    expect(validators).not.toMatch(/\beval\(|new Function/)
  })

  it('run in a V8 context where code generation from strings is disabled', async () => {
    mkdirSync(work, { recursive: true })
    const entry = join(work, 'csp-entry.mjs')
    writeFileSync(join(work, 'features.mjs'), code)
    writeFileSync(
      entry,
      "import { register } from './features.mjs'\nimport { createLocalSender } from 'unplugin-contracts/runtime'\nconst s = createLocalSender({ 'pets:register': (p) => p })\nglobalThis.results = Promise.all([register.send(s, { petType: 'Dog', name: 'Rex', barks: true }), register.send(s, { petType: 'Dog' })])\n",
    )
    const bundle = await build({ entryPoints: [entry], bundle: true, write: false, format: 'iife', platform: 'neutral', logLevel: 'silent' })
    const context = vm.createContext({}, { codeGeneration: { strings: false, wasm: false } })
    expect(() => vm.runInContext('eval("1")', context)).toThrow(/Code generation from strings disallowed/)
    vm.runInContext(bundle.outputFiles[0]!.text, context)
    const [valid, invalid] = await (context as any).results
    expect(valid.isSuccessful).toBe(true)
    expect(invalid.status).toBe('validation-error')
  })
})

describe('types', () => {
  it('the declarations compile, and say what the wire carries', () => {
    mkdirSync(work, { recursive: true })
    writeFileSync(join(work, 'features.d.mts'), '')
    return compile(fixture).then((result) => {
      const r = typecheck(
        work,
        { features: result.dts! },
        {
          'use.ts': [
            "import type { AdoptRequest, Adoption, AdoptionInput, Pet, Tagged, Error_, string_ } from './features.js'",
            "import { adoptV1, adoptV2, register, events } from './features.js'",
            "const request: AdoptRequest = { petId: 'x', adopter: 'Ada', kind: 'adoption' }",
            "const pet: Pet = { petType: 'kitty', name: 'Tom' }",
            "const tagged: Tagged = { tags: ['a'], colour: 'red' }",
            "const error: Error_ = { message: 'm' }",
            "const letter: string_ = 'a'",
            'declare const adoption: Adoption',
            'const id: string = adoption.id',
            "const input: AdoptionInput = { pet, secret: 's' }",
            'export const all = [request, pet, tagged, error, letter, id, input, adoptV1.version, adoptV2.topic, register, events.adopted.topic]',
            '// @ts-expect-error enum: only "adoption"',
            "export const wrongKind: AdoptRequest = { petId: 'x', adopter: 'Ada', kind: 'purchase' }",
            '// @ts-expect-error discriminated union: a Dog needs barks',
            "export const wrongPet: Pet = { petType: 'Dog', name: 'Rex' }",
            '// @ts-expect-error exact: additionalProperties false',
            "export const extra: AdoptRequest = { petId: 'x', adopter: 'Ada', kind: 'adoption', colour: 'red' }",
            // OpenAPI 3.0.3: a readOnly member SHOULD NOT be sent in a request, which does not forbid it;
            // the validator admits it, so the type does (optional), and the same for writeOnly in responses.
            "export const withId: AdoptionInput = { pet, secret: 's', id: 'a' }",
            '// @ts-expect-error writeOnly members are optional in a response: possibly undefined',
            'export const secret: string = adoption.secret',
          ].join('\n'),
        },
      )
      expect(r.output).toBe('')
      expect(r.status).toBe(0)
    })
  })
})

describe('a Reference Object is the reference alone (OpenAPI 3.0): types and validators ignore its siblings alike', () => {
  it('nullable and readOnly beside $ref change neither the type nor the validator', async () => {
    const { readFileSync } = await import('node:fs')
    const doc = JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/benzene/invalid/required-empty.spec.json'), 'utf8'))
    doc.components.schemas.Money = { type: 'object', properties: { Amount: { type: 'number' } }, required: ['Amount'], additionalProperties: false }
    doc.components.schemas.PlaceOrder = {
      type: 'object',
      properties: { Total: { $ref: '#/components/schemas/Money', nullable: true, readOnly: true } },
      required: ['Total'],
      additionalProperties: false,
    }
    doc.components.schemas.Order.required = ['Id']
    mkdirSync(work, { recursive: true })
    const file = join(work, 'ref-siblings.spec.json')
    writeFileSync(file, JSON.stringify(doc, null, 2))
    const result = await compile(file)
    expect(result.diagnostics).toEqual([])
    // The type: `Total` required and not nullable, and no PlaceOrderInput (nothing is readOnly).
    expect(result.dts).toMatch(/export type PlaceOrder = \{\s*Total: Money;?\s*\}/)
    expect(result.dts).not.toContain('PlaceOrderInput')
    // The validator: null is refused and the member is required in the request.
    const m = await loadModule(result.code!, 'ref-siblings')
    const sender = service({ Id: 'o-1' })
    expect((await m.place.send(sender, { Total: { Amount: 1 } })).isSuccessful).toBe(true)
    expect((await m.place.send(sender, { Total: null })).errors.map((e: any) => [e.path, e.code])).toEqual([['/Total', 'type']])
    expect((await m.place.send(sender, {})).errors.map((e: any) => [e.path, e.code])).toEqual([['/Total', 'required']])
  })
})

describe('option validators: code (the default) and data give the same answers', () => {
  it('every topic of every Benzene fixture, on the same requests and responses', async () => {
    const dir = join(import.meta.dirname, '../fixtures/benzene/valid')
    const samples = [...fc.sample(json, { numRuns: 30, seed: 7 }), adopt, adoption, { OrderId: 'o-1', Amount: 1 }, {}, [], null, 'x', 3]
    let compared = 0
    for (const name of readdirSync(dir)) {
      const file = join(dir, name)
      const asCode = await compile(file)
      const asData = await compile(file, { benzene: { validators: 'data' } })
      expect(asData.diagnostics).toEqual([])
      expect(asCode.code).not.toContain('$schemaValidator(')
      const [a, b] = [await loadModule(asCode.code!, `form-code-${name}`), await loadModule(asData.code!, `form-data-${name}`)]
      for (const topic of Object.keys(a.topics ?? {})) {
        for (const sample of samples) {
          const sent = async (m: Record<string, any>) => JSON.stringify(await m.topics[topic].send(service(sample), sample))
          expect(await sent(b), `${name} ${topic}`).toBe(await sent(a))
          compared++
        }
      }
    }
    expect(compared).toBeGreaterThan(500)
  })

  it('a value that is neither is BENZENE_INVALID_OPTION', async () => {
    const result = await compile(fixture, { benzene: { validators: 'fast' } })
    expect(result.diagnostics.map((d) => [d.code, d.message])).toEqual([['BENZENE_INVALID_OPTION', `Option validators: "fast" is not 'code' or 'data'.`]])
  })
})
