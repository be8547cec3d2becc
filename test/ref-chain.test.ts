/**
 * A hostile document: a chain of thousands of `$ref`s (`S0 -> S1 -> ... -> S7999`). No validation
 * follows one past MAX_VALIDATION_DEPTH, so the generated modules name only the definitions a
 * validation can enter (`enterableDefinitions` in src/core/schema-code.ts) and the runtime's
 * interpreter neither walks nor compiles the chain recursively. Before: Rollup's tree-shaking
 * overflowed its stack on the Benzene module (8,000 functions each calling the next), and every
 * module in the data form (the NATS default) threw `RangeError` when it was imported, in every
 * bundler.
 *
 * The oracle for verdicts and errors is the runtime's interpreter over the whole, unpruned chain
 * (held to ajv by test/schema-check.test.ts); the bundles are built by the real bundlers.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile, type CompileOptions } from '../src/index.js'
import { createLocalSender } from '../src/runtime/index.js'
import { schemaValidator, type Schema } from '../src/runtime/shared/schema-check.js'
import { MAX_VALIDATION_DEPTH } from '../src/runtime/shared/schema-errors.js'
import { bundlers, freshDir } from './helpers/bundlers.js'
import { loadModule } from './helpers/load-module.js'
import { oneTopicDocument } from './helpers/benzene-topic.js'
import { miniNatsDocument, withComponentSchemas } from './helpers/nats-mini.js'

const dir = freshDir(join(import.meta.dirname, '.tmp/ref-chain'))
const LONG = 8_000

type Link = 'property' | 'alias' | 'allOf'
/** Definition `S<i>` of a chain of `n`, in JSON Schema (as both formats write these keywords). */
function link(kind: Link, i: number, n: number): Record<string, unknown> {
  const next = i + 1 < n ? { $ref: `#/components/schemas/S${i + 1}` } : { type: 'string' }
  if (kind === 'alias') return next
  if (kind === 'allOf') return { allOf: [next] }
  return { type: 'object', properties: { next } }
}
const chain = (kind: Link, n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`S${i}`, link(kind, i, n)]))

/** The payload: the chain's head at `a`, and its last ten links at `b` (near the root: they must be kept). */
const PAYLOAD = (n: number) => ({
  type: 'object',
  properties: { a: { $ref: '#/components/schemas/S0' }, b: { $ref: `#/components/schemas/S${Math.max(0, n - 10)}` } },
})

const benzeneDocument = (kind: Link, n: number) =>
  oneTopicDocument({ $ref: '#/components/schemas/P' }, { $ref: '#/components/schemas/P' }, { P: PAYLOAD(n), ...chain(kind, n) })

const natsDocument = (kind: Link, n: number) =>
  withComponentSchemas(miniNatsDocument({ message: [`        payload: ${JSON.stringify(PAYLOAD(n))}`] }), chain(kind, n))

/** `{ next: { next: ... value } }`, `depth` members deep. */
function nested(depth: number, value: unknown): unknown {
  let out = value
  for (let i = 0; i < depth; i++) out = { next: out }
  return out
}

/** The values each chain is checked on: around the depth limit, and where the chain ends. */
function values(kind: Link): unknown[] {
  const out: unknown[] = [5, 'x', {}, { a: 5 }, { b: 5 }, { b: 'x' }]
  if (kind === 'property')
    for (const d of [0, 1, 2, 9, 10, 11, 60, 126, 127, 128, 129, 130, 200, 300]) out.push({ a: nested(d, 5) }, { b: nested(d, 5) }, { b: nested(d, 'x') })
  else for (const v of [5, 'x', {}, [], null]) out.push({ a: v }, { b: v })
  return out
}

/** The interpreter over the whole chain: `[instancePath, keyword]` of each error. */
function oracle(kind: Link, n: number): (value: unknown) => Array<[string, string]> {
  const definitions: Record<string, Schema> = {}
  for (const [name, schema] of Object.entries(chain(kind, n))) definitions[`#/components/schemas/${name}`] = schema as Schema
  const validate = schemaValidator(PAYLOAD(n) as Schema, definitions)
  return (value) => (validate(value) ? [] : (validate.errors ?? []).map((e) => [e.instancePath, e.keyword]))
}

const CASES: Array<[Link, number]> = [
  ['property', LONG],
  ['alias', 200],
  ['alias', 400],
  ['allOf', 400],
]
const FORMS = ['code', 'data'] as const
/** A definition's function in the code form (src/core/schema-code.ts writes one per definition it calls). */
const DEFINITION_FUNCTION = /^const \S+ = function \(d, p, e, n\) \{ if \(n >= 256\)/gm
/**
 * How many of a chain's definitions a validation can enter: the head's first MAX_VALIDATION_DEPTH - 1
 * (each reference adds at least one level) and the ten-link tail the payload names directly. The
 * Benzene module may write fewer (definitions of one class are one), never more.
 */
const enterable = (n: number) => Math.min(n, MAX_VALIDATION_DEPTH - 1 + 10)

describe('the interpreter (a runtime helper a module in the data form calls on import)', () => {
  it('takes a chain of 100,000 references without recursion, and stops a value at the depth limit', () => {
    const validate = oracle('property', 100_000)
    expect(validate({ a: nested(20, {}) })).toEqual([])
    const deep = validate({ a: nested(MAX_VALIDATION_DEPTH, 5) })
    expect(deep).toHaveLength(1)
    expect(deep[0]![1]).toBe('depth')
    expect(validate({ b: nested(9, 5) })).toEqual([['/b/next/next/next/next/next/next/next/next/next', 'type']])
  })
})

/** `text` written as `name` in the work folder, compiled without errors with `options`, and its module imported. */
async function compiledModule(name: string, text: string, options: CompileOptions, form: string): Promise<{ code: string; module: Record<string, any> }> {
  const file = join(dir, name)
  writeFileSync(file, text)
  const result = await compile(file, options)
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
  return { code: result.code!, module: await loadModule(result.code!, `ref-chain-${name}-${form}`) }
}

describe.each(CASES)('a %s chain of %i definitions', (kind, n) => {
  const expected = oracle(kind, n)

  describe.each(FORMS)('NATS, validators %s', (form) => {
    let code: string
    let validate: ((value: unknown) => boolean) & { errors?: Array<{ instancePath: string; keyword: string }> | null }
    beforeAll(async () => {
      const made = await compiledModule(`nats-${kind}-${n}.asyncapi.yaml`, natsDocument(kind, n), { nats: { validators: form } }, form)
      code = made.code
      validate = made.module.placed.validatePayload
    })

    it('names only the definitions a validation can enter', () => {
      const written = code.match(form === 'code' ? DEFINITION_FUNCTION : /^const \$schema\d+ = /gm) ?? []
      expect(written.length).toBe(enterable(n))
      if (n > MAX_VALIDATION_DEPTH) expect(code).toMatch(form === 'code' ? /beyondDepth as \$beyond/ : /\(\) => true/)
    })

    it('gives the interpreter’s verdicts and errors over the whole chain', () => {
      for (const value of values(kind)) {
        const ok = validate(value)
        expect([ok, ok ? [] : validate.errors!.map((e) => [e.instancePath, e.keyword])], JSON.stringify(value).slice(0, 80)).toEqual([
          expected(value).length === 0,
          expected(value),
        ])
      }
    })
  })

  describe.each(FORMS)('Benzene, validators %s', (form) => {
    let mod: Record<string, any>
    let code: string
    beforeAll(async () => {
      const made = await compiledModule(`benzene-${kind}-${n}.spec.json`, benzeneDocument(kind, n), { benzene: { validators: form } }, form)
      code = made.code
      mod = made.module
    })

    it('names only the definitions a validation can enter', () => {
      const written = code.match(form === 'code' ? DEFINITION_FUNCTION : /^const \$d\d+ = /gm) ?? []
      // The request names the payload `P`, a definition too, so the head starts one reference later.
      expect(written.length).toBeLessThanOrEqual(Math.min(n + 1, enterable(Infinity)))
      if (n > MAX_VALIDATION_DEPTH) expect(code).toMatch(form === 'code' ? /beyondDepth as \$beyond/ : /\(\) => true/)
    })

    it('gives the interpreter’s verdicts and errors over the whole chain (a request checked before it is sent)', async () => {
      const sender = createLocalSender({ 'chain:go': () => ({}) } as never)
      for (const value of values(kind)) {
        const result = await mod.go.send(sender, value)
        const want = expected(value)
        expect(
          [result.status, result.status === 'validation-error' ? result.errors.map((e: { path: string; code: string }) => [e.path, e.code]) : []],
          JSON.stringify(value).slice(0, 80),
        ).toEqual([want.length === 0 ? 'ok' : 'validation-error', want])
      }
    })
  })
})

describe('many payloads naming one chain (NATS, the data form)', () => {
  /** `channels` channels, each its own payload naming the head of a 250-link chain (an outside pass's shape). */
  function fan(channels: number): string {
    const components = chain('alias', 250)
    const document: Record<string, unknown> = { asyncapi: '3.1.0', info: { title: 'fan', version: '1.0.0' } }
    const ops: Record<string, unknown> = {}
    const chans: Record<string, unknown> = {}
    for (let j = 0; j < channels; j++) {
      chans[`c${j}`] = { address: `fan.c${j}`, messages: { m: { payload: { allOf: [{ $ref: '#/components/schemas/S0' }], maxLength: 1000 + j } } } }
      ops[`pub${j}`] = { action: 'send', channel: { $ref: `#/channels/c${j}` } }
    }
    document['x-nats-contract'] = {
      version: '0.2.0-draft',
      contract: 'fan',
      deployment: { binding: 'fan', minimumServerVersion: '2.11.0' },
      channels: Object.fromEntries(Object.keys(chans).map((c) => [c, {}])),
      operations: Object.fromEntries(Object.keys(ops).map((o) => [o, { publish: { api: 'core', confirmation: 'none' } }])),
    }
    return JSON.stringify({ ...document, channels: chans, operations: ops, components: { schemas: components } })
  }

  it('writes each component once: the module grows with the channels, not channels x chain (was a definitions object each)', async () => {
    const sizes: number[] = []
    for (const channels of [200, 800]) {
      const file = join(dir, `fan-${channels}.asyncapi.yaml`)
      const text = fan(channels)
      writeFileSync(file, text)
      const result = await compile(file)
      expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
      // Measured: about the document's size (a module of 10.4 MB for 1,000 such channels before).
      expect(result.code!.length).toBeLessThan(1.5 * text.length)
      sizes.push(result.code!.length)
      const mod = await loadModule(result.code!, `ref-chain-fan-${channels}`)
      expect([mod.c0.validatePayload('x'), mod.c0.validatePayload(5)]).toEqual([true, false])
    }
    // 600 more channels cost what 600 channels' own lines cost, a few hundred bytes each.
    expect((sizes[1]! - sizes[0]!) / 600).toBeLessThan(400)
  })
})

describe('the 8,000-link modules through bundlers', () => {
  beforeAll(() => {
    writeFileSync(join(dir, 'chain.spec.json'), benzeneDocument('property', LONG))
    writeFileSync(join(dir, 'chain.asyncapi.yaml'), natsDocument('property', LONG))
    writeFileSync(
      join(dir, 'main.js'),
      "import { go } from './chain.spec.json'\nimport { placed } from './chain.asyncapi.yaml'\nexport const send = go.send\nexport const validatePayload = placed.validatePayload\n",
    )
  })

  // Rollup is the bundler whose tree-shaking followed the chain; esbuild stands for the rest, where
  // the data form's module threw on import (every bundler built it; the interpreter is theirs alike).
  it.each([
    ['rollup', 'code'],
    ['rollup', 'data'],
    ['esbuild', 'data'],
  ] as const)('%s, validators %s: builds, imports, and stops a deep value with a depth error', async (bundler, form) => {
    const out = await bundlers[bundler]!(join(dir, 'main.js'), join(dir, `out-${bundler}-${form}`), {
      benzene: { validators: form },
      nats: { validators: form },
    })
    const built = await import(out)
    const deep = { a: nested(300, 5) }
    expect(built.validatePayload(deep)).toBe(false)
    expect(built.validatePayload.errors.map((e: { keyword: string }) => e.keyword)).toEqual(['depth'])
    const sent = await built.send(createLocalSender({ 'chain:go': () => ({}) } as never), deep)
    expect([sent.status, sent.errors.map((e: { code: string }) => e.code)]).toEqual(['validation-error', ['depth']])
  })
})
