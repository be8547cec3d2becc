/**
 * The validation depth limit never makes a value valid: a step past MAX_VALIDATION_DEPTH fails the
 * whole validation with its `depth` error, even under a keyword that drops its subschema's errors
 * (`not`, a `oneOf` or `anyOf` branch, an `if`). Found by an outside pass: with `T` a tree of
 * strings (`anyOf: [string, array of T]`), the payload `{ not: T }` accepted `"x"` wrapped in 85
 * arrays, which it refuses (ajv does, and so did the validators at 84), in both formats, both
 * validator forms and the runtime's `schemaValidator`; and `{ not: A0 }` over a chain of 254 plain
 * `$ref`s accepted every value.
 *
 * The oracle is ajv (JSON Schema, no depth limit at these sizes): a value the validators accept
 * must be one ajv accepts, and a value ajv accepts that they refuse must be refused for depth.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv } from 'ajv'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { createLocalSender } from '../src/runtime/index.js'
import { schemaValidator, type Schema } from '../src/runtime/shared/schema-check.js'
import { freshDir } from './helpers/bundlers.js'
import { loadModule } from './helpers/load-module.js'
import { miniNatsDocument } from './helpers/nats-mini.js'

const dir = freshDir(join(import.meta.dirname, '.tmp/depth-failure-refuses'))
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

/** A tree of strings, and a chain of 300 plain references ending in a string. */
const COMPONENTS: Record<string, unknown> = {
  T: { anyOf: [{ type: 'string' }, { type: 'array', items: ref('T') }] },
  ...Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`A${i}`, i + 1 < 300 ? ref(`A${i + 1}`) : { type: 'string' }])),
}
/** Payloads whose verdict a dropped depth error would turn. */
const PAYLOADS: Record<string, unknown> = {
  not: { not: ref('T') },
  oneOf: { oneOf: [ref('T'), { type: 'array', items: {} }] },
  anyOf: { anyOf: [{ not: ref('T') }, { type: 'integer' }] },
  notChain: { not: ref('A0') },
}
/** `"x"` in `k` arrays, for k around where the arrays alone reach the limit; and values the chain's `not` must refuse or accept. */
const VALUES: unknown[] = [...[0, 1, 2, 40, 84, 85, 86, 120, 127, 128, 200].map((k) => nestedIn(k, 'x')), 5, null, [], [5], nestedIn(100, 5)]
function nestedIn(k: number, value: unknown): unknown {
  let out = value
  for (let i = 0; i < k; i++) out = [out]
  return out
}

const ajv = new Ajv({ strict: false })
const expected = Object.fromEntries(
  Object.entries(PAYLOADS).map(([name, payload]) => [name, ajv.compile({ ...(payload as object), components: { schemas: COMPONENTS } })]),
)

/** Holds a validator's verdicts to ajv's: never accepts what ajv refuses; refuses what ajv accepts only for depth. */
function holds(name: string, verdict: (value: unknown) => { ok: boolean; keywords: string[] }): number {
  let deep = 0
  for (const value of VALUES) {
    const got = verdict(value)
    const want = expected[name]!(value) as boolean
    const label = `${name} ${JSON.stringify(value).slice(0, 40)}`
    if (!want) expect(got.ok, label).toBe(false)
    else if (!got.ok) expect(got.keywords, label).toContain('depth')
    if (got.keywords.includes('depth')) deep++
  }
  return deep
}

describe('the runtime schemaValidator', () => {
  it('never accepts a value ajv refuses, at any depth', () => {
    const definitions = Object.fromEntries(Object.entries(COMPONENTS).map(([name, schema]) => [`#/components/schemas/${name}`, schema as Schema]))
    let deep = 0
    for (const [name, payload] of Object.entries(PAYLOADS)) {
      const validate = schemaValidator(payload as Schema, definitions)
      deep += holds(name, (value) => ({ ok: validate(value), keywords: (validate.errors ?? []).map((e) => e.keyword) }))
    }
    // The deep values and the chain reached the limit: the property was tried where it matters.
    expect(deep).toBeGreaterThan(10)
  })
})

describe.each(['code', 'data'] as const)('validators %s', (form) => {
  let nats: Record<string, any>
  let benzene: Record<string, any>
  beforeAll(async () => {
    const schemas = ['  schemas:', ...Object.entries(COMPONENTS).map(([name, schema]) => `    ${name}: ${JSON.stringify(schema)}`)]
    const channels = Object.keys(PAYLOADS)
    // One mini document per payload (the mini document has one channel, `placed`).
    nats = {}
    for (const name of channels) {
      const file = join(dir, `${name}-${form}.asyncapi.yaml`)
      writeFileSync(
        file,
        [miniNatsDocument({ message: [`        payload: ${JSON.stringify(PAYLOADS[name])}`] }).trimEnd(), 'components:', ...schemas, ''].join('\n'),
      )
      const result = await compile(file, { nats: { validators: form } })
      expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
      nats[name] = (await loadModule(result.code!, `depth-nats-${name}-${form}`)).placed.validatePayload
    }
    const file = join(dir, `payloads-${form}.spec.json`)
    writeFileSync(
      file,
      JSON.stringify({
        openapi: '3.0.1',
        info: { title: 'depth', description: '', version: '' },
        requests: channels.map((name) => ({ topic: `depth:${name}`, request: ref(`P${name}`), response: { type: 'string' } })),
        events: [],
        components: { schemas: { ...COMPONENTS, ...Object.fromEntries(channels.map((name) => [`P${name}`, PAYLOADS[name]])) } },
      }),
    )
    const result = await compile(file, { benzene: { validators: form } })
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    benzene = await loadModule(result.code!, `depth-benzene-${form}`)
  })

  it('NATS: never accepts a value ajv refuses, at any depth', () => {
    for (const name of Object.keys(PAYLOADS)) {
      const validate = nats[name]
      holds(name, (value) => ({ ok: validate(value), keywords: (validate.errors ?? []).map((e: { keyword: string }) => e.keyword) }))
    }
  })

  // The topic `depth:<name>`'s client is the module's export `<name>`.
  it('Benzene: a request the schema refuses is never sent, at any depth', async () => {
    const sender = createLocalSender(new Proxy({}, { get: () => () => 'ok', has: () => true }) as never)
    for (const name of Object.keys(PAYLOADS)) {
      const results = new Map<unknown, { ok: boolean; keywords: string[] }>()
      for (const value of VALUES) {
        const r = await benzene[name].send(sender, value)
        results.set(value, { ok: r.status !== 'validation-error', keywords: (r.errors ?? []).map((e: { code: string }) => e.code) })
      }
      holds(name, (value) => results.get(value)!)
    }
  })
})
