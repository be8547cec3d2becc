/**
 * Issue 30, "Generated code, types and targets that break the contract": no value is sent that is
 * not the validated JSON (non-finite numbers refused by both validator paths and every sender),
 * members named `__proto__` stay members, and `materialize` checks what it renders.
 */
import type { NatsConnection } from '@nats-io/nats-core'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { createTopicClient } from '../src/runtime/benzene/client.js'
import { createEvent } from '../src/runtime/benzene/event.js'
import { bindContract, type ContractModule } from '../src/runtime/nats/client/index.js'
import { materialize } from '../src/runtime/nats/interactions.js'
import { wireJson } from '../src/runtime/shared/wire-json.js'
import { loadModule } from './helpers/load-module.js'
import { ShopBundle } from './helpers/nats-bundle.js'

const document = join(import.meta.dirname, '../fixtures/nats/wire/wire.asyncapi.yaml')
let code: string
let mod: Record<string, any>

/** A connection that records what a core publish would put on the wire. */
function recordingConnection() {
  const sent: Array<{ subject: string; text: string }> = []
  const nc = {
    info: { version: '2.11.0' },
    publish: (subject: string, data: Uint8Array) => void sent.push({ subject, text: new TextDecoder().decode(data) }),
  }
  return { sent, nc: nc as unknown as NatsConnection }
}

beforeAll(async () => {
  const result = await compile(document)
  expect(result.diagnostics).toEqual([])
  code = result.code!
  mod = await loadModule(code, 'wire')
})

describe('non-finite numbers and values JSON would rewrite', () => {
  it('the ajv-path validator (a tuple schema) refuses NaN and ±Infinity; the compiled path too', () => {
    // The tuple goes to ajv's standalone code, the object to the generated validator.
    expect(code).toContain('(function (module)')
    const point = mod.channels.point.validatePayload
    for (const bad of [NaN, Infinity, -Infinity]) expect(point([bad, 1]), String(bad)).toBe(false)
    expect(point([1, 2])).toBe(true)
    const reading = mod.channels.reading.validatePayload
    for (const bad of [NaN, Infinity, -Infinity]) expect(reading({ value: bad }), String(bad)).toBe(false)
    expect(reading({ value: 1 })).toBe(true)
  })

  it('the NATS client sends nothing that is not the validated JSON: NaN (also nested and untyped), holes, Dates, toJSON, bigint', () => {
    const { sent, nc } = recordingConnection()
    const client = bindContract(mod as unknown as ContractModule, nc)
    const sparse = [1] as unknown[]
    sparse.length = 2
    const refused: Array<[string, string, unknown]> = [
      ['sendPoint', 'NaN in a typed position', [NaN, 1]],
      ['sendPoint', 'NaN in an untyped position', [1, NaN]],
      ['sendPoint', 'Infinity', [1, Infinity]],
      ['sendReading', '-Infinity nested in an untyped member', { value: 1, note: { deep: [-Infinity] } }],
      ['sendPoint', 'an array hole', sparse],
      ['sendPoint', 'undefined in an array', [1, undefined]],
      ['sendReading', 'a Date', { value: 1, note: new Date(0) }],
      ['sendReading', 'a toJSON method', { value: 1, note: { toJSON: () => 'x' } }],
      ['sendReading', 'a bigint', { value: 1, note: 1n }],
      ['sendReading', 'a Map', { value: 1, note: new Map([['a', 1]]) }],
    ]
    for (const [operation, what, payload] of refused)
      expect(() => client.publish(operation as never, {} as never, payload as never), what).toThrow(
        expect.objectContaining({ name: 'ContractClientError', code: 'INVALID_PAYLOAD' }),
      )
    expect(sent).toEqual([])
    client.publish('sendPoint' as never, {} as never, [1.5, { a: null }] as never)
    // An undefined member is an absent member, as TypeScript's optional properties have it.
    client.publish('sendReading' as never, {} as never, { value: 2, note: undefined } as never)
    expect(sent).toEqual([
      { subject: 'wire.point', text: '[1.5,{"a":null}]' },
      { subject: 'wire.reading', text: '{"value":2}' },
    ])
  })

  it('a getter that answers differently on a second read cannot smuggle an unvalidated value', () => {
    const { sent, nc } = recordingConnection()
    const client = bindContract(mod as unknown as ContractModule, nc)
    let reads = 0
    const shifty = Object.defineProperty({}, 'value', { enumerable: true, get: () => (reads++ === 0 ? 1 : 'one') })
    // Whatever the getter answers, the text sent is the text validated: here the second answer, refused.
    expect(() => client.publish('sendReading' as never, {} as never, shifty as never)).toThrow(expect.objectContaining({ code: 'INVALID_PAYLOAD' }))
    expect(sent).toEqual([])
  })

  it('Benzene requests and events: refused as validation-error, and the sender gets the validated JSON value', async () => {
    const got: unknown[] = []
    const sender = { send: async (_topic: string, request: unknown) => (got.push(request), { status: 'ok', isSuccessful: true, errors: [] }) }
    // A validator that accepts anything: the refusal comes from the send path itself.
    const anything = Object.assign(() => true, { errors: null })
    const client = createTopicClient('t', undefined, 'sha256:00', [], { request: anything })
    const event = createEvent('e', undefined, { message: anything })
    for (const bad of [NaN, { a: [Infinity] }, { when: new Date(0) }]) {
      expect((await client.send(sender as never, bad)).status, JSON.stringify(bad)).toBe('validation-error')
      expect((await event.publish(sender as never, bad)).status, JSON.stringify(bad)).toBe('validation-error')
    }
    expect(got).toEqual([])
    const request = { a: 1, b: undefined, c: [true] }
    expect((await client.send(sender as never, request)).isSuccessful).toBe(true)
    expect(got).toEqual([{ a: 1, c: [true] }])
    expect(got[0]).not.toBe(request)
  })

  it('wireJson: a shared member is not a cycle; a cycle is refused, never thrown', () => {
    const shared = { x: 1 }
    expect(wireJson({ a: shared, b: shared })).toEqual({ ok: true, text: '{"a":{"x":1},"b":{"x":1}}', value: { a: { x: 1 }, b: { x: 1 } } })
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(wireJson(cyclic)).toMatchObject({ ok: false, path: '/self' })
  })

  it("wireJson: past the quick walk (deep nesting, a deep cycle, a shared member walked past the node bound) the verdicts and places are the full walk's", () => {
    // Valid, 300 levels deep: past the quick walk's nesting, accepted by the full one.
    let deep: unknown = 'leaf'
    for (let i = 0; i < 300; i++) deep = i % 2 ? [deep] : { d: deep }
    expect(wireJson(deep)).toMatchObject({ ok: true, value: deep })
    // A problem below that depth is named at its place.
    let bad: unknown = Number.NaN
    for (let i = 0; i < 100; i++) bad = { d: bad }
    expect(wireJson(bad)).toMatchObject({ ok: false, path: '/d'.repeat(100), message: expect.stringContaining('is NaN') })
    // A cycle 100 levels down.
    const top: Record<string, unknown> = {}
    let at = top
    for (let i = 0; i < 100; i++) at = (at.d = {}) as Record<string, unknown>
    at.back = top
    expect(wireJson(top)).toMatchObject({ ok: false, path: `${'/d'.repeat(100)}/back`, message: expect.stringContaining('refers back to itself') })
    // 2^21 values through a shared member at each of 21 levels: past the node bound, refused, not walked without end.
    let wide: unknown = 1
    for (let i = 0; i < 21; i++) wide = [wide, wide]
    expect(wireJson(wide)).toMatchObject({ ok: false, message: expect.stringContaining('is past 1000000 values') })
    // The first problem in document order, whichever walk finds that there is one.
    expect(wireJson({ a: 1, b: [1, undefined], c: Number.POSITIVE_INFINITY })).toMatchObject({ ok: false, path: '/b/1' })
  })
})

describe('a member named __proto__', () => {
  it('is checked by the generated validator: {"__proto__": "foo"} refused against {type: number}, {"__proto__": 1} accepted', () => {
    const validate = mod.channels.proto.validatePayload
    expect(validate(JSON.parse('{"__proto__": "foo"}'))).toBe(false)
    expect(validate(JSON.parse('{"__proto__": 1}'))).toBe(true)
    expect(validate(JSON.parse('{"inner": {"__proto__": 5}}'))).toBe(false)
    expect(validate(JSON.parse('{"inner": {"__proto__": "five"}}'))).toBe(true)
    expect(validate({})).toBe(true)
    expect(Object.keys(Object.prototype)).toEqual([])
    expect(({} as Record<string, unknown>).type).toBeUndefined()
  })

  it('the client refuses {"__proto__": "foo"} and sends {"__proto__": 1} as written', () => {
    const { sent, nc } = recordingConnection()
    const client = bindContract(mod as unknown as ContractModule, nc)
    expect(() => client.publish('sendProto' as never, {} as never, JSON.parse('{"__proto__": "foo"}'))).toThrow(
      expect.objectContaining({ code: 'INVALID_PAYLOAD', errors: [expect.objectContaining({ path: '/__proto__' })] }),
    )
    client.publish('sendProto' as never, {} as never, JSON.parse('{"__proto__": 1}'))
    expect(sent).toEqual([{ subject: 'wire.proto', text: '{"__proto__":1}' }])
    expect(Object.keys(Object.prototype)).toEqual([])
  })
})

describe('materialize checks what it renders', () => {
  const op = 'op' + 'ab'.repeat(32)
  const values = {
    inputs: { operationId: op, group: 'approvers', refund: { paymentId: 'pay-1', amount: 10 } },
    context: { principalId: 'alice', nowMs: 1000 },
    branch: { id: 'b-1', peerId: 'bob', attempt: 1, fence: 7 },
  }
  let payments: Record<string, any>

  beforeAll(async () => {
    // `nowMs` bound to a member whose schema admits anything: only the field's own type can refuse "1000".
    const shop = ShopBundle.copy('materialize-values')
      .edit(
        'payments/asyncapi/asyncapi.yaml',
        '          /requestedBy: { context: principalId }',
        '          /requestedBy: { context: principalId }\n          /requestedAt: { context: nowMs }',
      )
      .edit(
        'payments/asyncapi/asyncapi.yaml',
        '          requestedBy: { type: string }\n',
        '          requestedBy: { type: string }\n          requestedAt: {}\n',
      )
      .relock()
    const result = await compile(shop.doc('payments'))
    expect(result.diagnostics).toEqual([])
    payments = await loadModule(result.code!, 'payments-materialize-values')
  })

  it('accepts well-typed values, and returns exactly what the request channel validator accepts', () => {
    const { payload } = materialize(payments.interactions.approveRefund, values)
    expect(payload).toMatchObject({ requestedAt: 1000, fence: 7 })
    expect(payments.refundVote.validatePayload(payload)).toBe(true)
  })

  it('refuses a mistyped context value (nowMs: "1000")', () => {
    expect(() => materialize(payments.interactions.approveRefund, { ...values, context: { ...values.context, nowMs: '1000' } })).toThrow(
      expect.objectContaining({ name: 'MaterializeError', code: 'MATERIALIZE_INVALID_VALUE', message: expect.stringContaining('nowMs') }),
    )
  })

  it('refuses a mistyped branch value (fence: 2.5): the channel validator, without runtime-schema-check', () => {
    expect(payments.interactions.approveRefund.capabilities).not.toContain('runtime-schema-check')
    expect(() => materialize(payments.interactions.approveRefund, { ...values, branch: { ...values.branch, fence: 2.5 } })).toThrow(
      expect.objectContaining({ code: 'MATERIALIZE_INVALID_PAYLOAD', errors: [expect.objectContaining({ path: '/fence' })] }),
    )
  })

  it('refuses an unbound token input out of its domain (group), and a value JSON cannot carry', () => {
    expect(payments.interactions.approveRefund.inputs.group.tokenTypeName).toBe('groupId')
    expect(() => materialize(payments.interactions.approveRefund, { ...values, inputs: { ...values.inputs, group: 'Not A Group!' } })).toThrow(
      expect.objectContaining({ code: 'MATERIALIZE_INVALID_INPUT', message: expect.stringContaining('group') }),
    )
    expect(() =>
      materialize(payments.interactions.approveRefund, { ...values, inputs: { ...values.inputs, refund: { paymentId: 'pay-1', amount: NaN } } }),
    ).toThrow(expect.objectContaining({ name: 'MaterializeError' }))
  })
})

describe('parseJsonData: what a peer sends, read as JSON data', () => {
  it('refuses, as a SyntaxError, a number no double holds; keeps every number one does', async () => {
    const { parseJsonData, parsedDataProblem } = await import('../src/runtime/shared/wire-json.js')
    expect(() => parseJsonData('{"x":1e400}')).toThrow(SyntaxError)
    expect(() => parseJsonData('[1E+999]')).toThrow('/0 is Infinity')
    expect(() => parseJsonData(`{"big":${'9'.repeat(400)}}`)).toThrow(SyntaxError)
    expect(() => parseJsonData('-1e400')).toThrow(SyntaxError)
    expect(parseJsonData('{"x":1e-400,"y":1e308,"z":"1e400"}')).toEqual({ x: 0, y: 1e308, z: '1e400' })
    // 309 digits below Number.MAX_VALUE (1.79e308): a double; the form is checked, the value decides.
    expect(parseJsonData(`[1${'0'.repeat(308)}]`)).toEqual([1e308])
    expect(parsedDataProblem('{"a":"no number here"}', { a: 'no number here' })).toBeUndefined()
    expect(() => parseJsonData('{')).toThrow(SyntaxError)
  })
})

describe('lone surrogates: no UTF-8 text carries one, so no side sends or takes one (RFC 8259, section 8.2; the Rust target refuses them)', () => {
  it('wireJson refuses one in a string or a member name; a pair is text like any other', () => {
    expect(wireJson({ a: 'x\ud800' })).toMatchObject({ ok: false, path: '/a', message: expect.stringContaining('lone surrogate') })
    expect(wireJson({ ['\udc00']: 1 })).toMatchObject({ ok: false, path: '/\udc00' })
    expect(wireJson(['ok', '\ud83d\ude00'])).toMatchObject({ ok: true })
  })

  it('parseJsonData refuses an escaped one, as a SyntaxError; an escaped pair and an escaped backslash before ud800 pass', async () => {
    const { parseJsonData } = await import('../src/runtime/shared/wire-json.js')
    expect(() => parseJsonData('{"s":"\\ud800"}')).toThrow(SyntaxError)
    expect(() => parseJsonData('{"\\uDC00x":1}')).toThrow(SyntaxError)
    expect(parseJsonData('["\\ud83d\\ude00", "\\\\ud800"]')).toEqual(['\u{1f600}', '\\ud800'])
  })

  it('the walk agrees with String.prototype.isWellFormed on random strings of surrogates and letters', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', '\ud800', '\udbff', '\udc00', '\udfff', '\ud83d\ude00'), { maxLength: 6 }), (parts) => {
        const text = parts.join('')
        const wellFormed = (text as unknown as { isWellFormed(): boolean }).isWellFormed()
        expect(wireJson({ [text]: text }).ok).toBe(wellFormed)
        expect(wireJson([text]).ok).toBe(wellFormed)
      }),
      { numRuns: 500 },
    )
  })
})

describe('every runtime decoder of what a peer sends is strict (utf8.ts)', () => {
  it('no file of src/runtime makes a TextDecoder that replaces what is not UTF-8 (the header reader too: a header block is read as strictly as a payload)', () => {
    const files = readdirSync(join(import.meta.dirname, '../src/runtime'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))
    const loose = files.filter((f) => {
      const text = readFileSync(join(import.meta.dirname, '../src/runtime', f), 'utf8')
      return [...text.matchAll(/new TextDecoder\(([^)]*)\)/g)].some((m) => !/fatal: true/.test(m[1]!))
    })
    expect(loose).toEqual([])
    expect(files.length).toBeGreaterThan(30)
  })
})
