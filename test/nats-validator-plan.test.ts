/**
 * How each payload is validated at run time (the generated validator code, or ajv's standalone
 * code) is decided once, while the document is checked (src/formats/nats/validator-plan.ts): the
 * payload rule (NATS_PAYLOAD_UNBOUNDED) reads that decision, the model carries it, and generation
 * follows it. So the rule speaks of the validators the module really has: a recursive component
 * written as a multi-format schema object is read as its schema by both.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { MAX_AJV_REFERENCE_DEPTH } from '../src/formats/nats/rules/payload-cost.js'
import { ContractCompiler, compile, natsFormat } from '../src/index.js'
import { loadModule } from './helpers/load-module.js'
import { natsChannelDocument, withComponentSchemas } from './helpers/nats-mini.js'

const root = join(import.meta.dirname, '..')
const tmp = join(import.meta.dirname, '.tmp', `validator-plan-${process.pid}`)
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

// A message payload that refers to a recursive component, `Entry`, with `propertyNames` (beyond
// the generated validators' keywords: ajv's code would check it).
const unbounded = readFileSync(join(root, 'fixtures/nats/invalid/payload-unbounded.asyncapi.yaml'), 'utf8')
const BEYOND = '        propertyNames: { maxLength: 16 }\n'
const ENTRY = "    Entry:\n      type: object\n      properties:\n        parent: { $ref: '#/components/schemas/Entry' }\n"
const MULTI_FORMAT_ENTRY =
  "    Entry:\n      schemaFormat: application/schema+json;version=draft-07\n      schema:\n        type: object\n        properties:\n          parent: { $ref: '#/components/schemas/Entry' }\n"

function write(name: string, text: string): string {
  mkdirSync(tmp, { recursive: true })
  const file = join(tmp, `${name}.asyncapi.yaml`)
  writeFileSync(file, text)
  return file
}

const variant = (name: string, edits: Array<[string, string]>) => {
  let text = unbounded
  for (const [from, to] of edits) {
    expect(text).toContain(from)
    text = text.replace(from, to)
  }
  return write(name, text)
}

/**
 * The plan's backend for a message of `file`, its compile, and (when the compile made a module) that
 * message's payload validator from the loaded module.
 */
async function planned(file: string, channel: string, message: string, moduleName: string) {
  const { model } = await new ContractCompiler().model(file, natsFormat)
  const backend = model!.validatorPlan.message(channel, message)?.backend
  const result = await compile(file)
  const mod = result.code === undefined ? undefined : await loadModule(result.code, moduleName)
  return { backend, result, validate: mod?.[channel]?.validatePayload as (value: unknown) => boolean }
}

describe('one validator plan per payload, read by the payload rule and by generation', () => {
  it('generated keywords only: the plan says generated code, and the recursion is no error', async () => {
    const file = variant('generated', [[BEYOND, '']])
    const { model, diagnostics } = await new ContractCompiler().model(file, natsFormat)
    expect(diagnostics).toEqual([])
    expect(model!.validatorPlan.message('entryPosted', 'posted')?.backend).toBe('generated')
  })

  it('with a keyword beyond them the plan says ajv, and the rule refuses the recursion', async () => {
    const result = await compile(variant('ajv', []))
    expect(result.diagnostics.map((d) => [d.code, d.pointer])).toEqual([['NATS_PAYLOAD_UNBOUNDED', '/channels/entryPosted/messages/posted']])
  })

  it('a recursive multi-format component is its schema for both: generated code checks it, the rule does not object, the validator answers', async () => {
    const file = variant('multi-format', [
      [BEYOND, ''],
      [ENTRY, MULTI_FORMAT_ENTRY],
    ])
    const { backend, result, validate } = await planned(file, 'entryPosted', 'posted', 'validator-plan-multi-format')
    expect(backend).toBe('generated')
    expect(result.diagnostics).toEqual([])
    expect(validate({ entryId: 'e-1', cents: 5, parent: { parent: { parent: {} } } })).toBe(true)
    expect(validate({ entryId: 'e-1', cents: 5, parent: { parent: 7 } })).toBe(false)
  })

  it('the same component with a keyword beyond them in the message: ajv, and refused as before', async () => {
    const result = await compile(variant('multi-format-ajv', [[ENTRY, MULTI_FORMAT_ENTRY]]))
    expect(result.diagnostics.map((d) => [d.code, d.pointer])).toEqual([['NATS_PAYLOAD_UNBOUNDED', '/channels/entryPosted/messages/posted']])
  })

  it('the plan is not data for tools: inspect leaves it out', async () => {
    const compiler = new ContractCompiler()
    const inspected = await compiler.inspect(variant('inspect', [[BEYOND, '']]))
    expect(Object.keys(inspected.data as object)).not.toContain('validatorPlan')
  })
})

describe('references nested deep in a payload ajv checks (an outside pass: RangeError, an internal error, from 150 links)', () => {
  /** A chain `A0 -> A1 -> ...` of `n` links through `dependencies`, a keyword beyond the generated validators'. */
  const chain = (n: number) =>
    withComponentSchemas(natsChannelDocument({ m: "{ payload: { $ref: '#/components/schemas/A0' } }" }), {
      ...Object.fromEntries(
        Array.from({ length: n }, (_, i) => [
          `A${i}`,
          { type: 'object', dependencies: { a: { properties: { a: { $ref: `#/components/schemas/A${i + 1}` } } } } },
        ]),
      ),
      [`A${n}`]: { type: 'object', required: ['leaf'] },
    })

  it.each([200, 2_000])('%i links: NATS_PAYLOAD_UNBOUNDED at the message (unsupported), not an internal error', async (n) => {
    const result = await compile(write(`deep-${n}`, chain(n)))
    expect(result.diagnostics.map((d) => [d.code, d.pointer])).toEqual([['NATS_PAYLOAD_UNBOUNDED', '/channels/c/messages/m']])
    expect(result.diagnostics[0]!.message).toContain(`nest more than ${MAX_AJV_REFERENCE_DEPTH} deep`)
  })

  it(`${MAX_AJV_REFERENCE_DEPTH - 4} links: a module, whose validator follows the chain`, async () => {
    const n = MAX_AJV_REFERENCE_DEPTH - 4
    const file = write('deep-ok', chain(n))
    const { backend, result, validate } = await planned(file, 'c', 'm', 'validator-plan-deep-ok')
    expect(backend).toBe('ajv')
    expect(result.diagnostics).toEqual([])
    let deep: unknown = { a: { leaf: 1 } }
    for (let i = 0; i < n - 1; i++) deep = { a: deep }
    expect([validate({}), validate({ a: {} }), validate(deep)]).toEqual([true, true, true])
    let missing: unknown = { a: {} }
    for (let i = 0; i < n - 1; i++) missing = { a: missing }
    expect(validate(missing)).toBe(false)
  })
})
