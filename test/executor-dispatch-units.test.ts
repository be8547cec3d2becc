/** The executor's hot-path helpers agree with the definitions they replace: the operation id, payload pointers, the lazy abort. */
import { describe, expect, it } from 'vitest'
import { operationId } from '../src/runtime/nats/interactions.js'
import { fastOperationId } from '../src/runtime/nats/executor/dispatch/operation-id.js'
import {
  copyMembers,
  pointerTokens,
  readPlainPointer,
  readPointerValue,
  writeMember,
  writePointerValue,
} from '../src/runtime/nats/executor/dispatch/pointers.js'
import { LazyAbort } from '../src/runtime/nats/executor/dispatch/lazy-abort.js'
import { manifestDigest } from '../src/runtime/nats/executor/dispatch/manifest.js'
import { sameJson } from '../src/runtime/nats/executor/same-json.js'
import { invocationKey } from '../src/runtime/nats/executor/admission.js'

describe('fastOperationId', () => {
  it('gives the Web Crypto operation id byte for byte (unicode, empty and boundary-shifting parts included)', async () => {
    const cases: Array<[string, string, string]> = [
      ['alice', 'ab'.repeat(32), 'refund-42'],
      ['', '', ''],
      ['ab', 'c', 'd'],
      ['a', 'bc', 'd'],
      ['zoë', 'ﬁ', '𝄞'.repeat(40)],
      // Lengths past one byte of the big-endian prefix, and parts past the reused buffer (4,096 bytes).
      ['p'.repeat(300), 'd'.repeat(70_000), 'k'],
      ['é'.repeat(700), 'x', '𝄞'.repeat(400)],
      ['a'.repeat(1364), 'b', ''],
      // A lone surrogate: encoded as U+FFFD by both.
      ['\ud800', 'd', 'k\udc00'],
    ]
    for (const [p, d, k] of cases) expect(await fastOperationId(p, d, k)).toBe(await operationId(p, d, k))
    // Not a string: rejected as operationId rejects, never a throw from the call itself.
    await expect(Promise.resolve().then(() => fastOperationId(7 as unknown as string, 'd', 'k'))).rejects.toThrow(TypeError)
  })
})

describe('invocationKey', () => {
  it('gives the reference operation id and the canonical input bytes; refusals are answers; a digest that is no string rejects as the reference does', async () => {
    const digest = 'ab'.repeat(32)
    expect(await invocationKey({ principalId: 'alice', idempotencyKey: 'refund-42', inputs: { b: 1, a: [2] } }, digest)).toEqual({
      ok: true,
      value: { operationId: await operationId('alice', digest, 'refund-42'), inputBytes: '{"a":[2],"b":1}' },
    })
    expect(await invocationKey({ principalId: 'alice', idempotencyKey: 'k', inputs: { n: Number.NaN } }, digest)).toMatchObject({
      ok: false,
      code: 'EXECUTOR_INVALID_INPUT',
    })
    expect(await invocationKey({ principalId: 'alice' }, digest)).toMatchObject({ ok: false, code: 'EXECUTOR_INVALID_INPUT' })
    await expect(Promise.resolve().then(() => invocationKey({ principalId: 'alice', idempotencyKey: 'k' }, 7 as unknown as string))).rejects.toThrow(TypeError)
  })
})

describe('plain pointers and member copies', () => {
  it('read a bare pointer as the responder did (own members, escapes, absent), split once', () => {
    const payload = JSON.parse('{"a":{"b/c":{"~d":7}},"__proto__":{"x":1},"n":null}') as unknown
    expect(readPlainPointer(payload, '/a/b~1c/~0d')).toBe(7)
    expect(readPlainPointer(payload, '/a/b~1c/~0d')).toBe(7)
    expect(readPlainPointer(payload, '/__proto__/x')).toBe(1)
    expect(readPlainPointer(payload, '/n/x')).toBeUndefined()
    expect(readPlainPointer(payload, '/toString')).toBeUndefined()
    expect(readPlainPointer({ '': 3 }, '')).toBe(3)
  })

  it('copy as a spread does for JSON data: own enumerable members, `__proto__` an own member, the source untouched', () => {
    const source = JSON.parse('{"approve":true,"__proto__":{"polluted":1},"nested":{"k":1}}') as Record<string, unknown>
    const copy = copyMembers(source)
    expect(copy).toEqual({ ...source })
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.hasOwn(copy, '__proto__')).toBe(true)
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined()
    expect(copy['nested']).toBe(source['nested'])
    writeMember(copy, 'operationId', 'op1')
    writeMember(copy, '__proto__', 'own')
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(copy['__proto__']).toBe('own')
    expect(Object.keys(source)).toEqual(['approve', '__proto__', 'nested'])
    expect(copyMembers(Object.create({ inherited: 1 }) as object)).toEqual({})
  })
})

describe('payload pointers', () => {
  it('split once, read own properties only, write own data properties (`__proto__` included)', () => {
    expect(pointerTokens('$message.payload#/a~1b/c~0d')).toEqual(['a/b', 'c~d'])
    expect(pointerTokens('$message.payload#')).toEqual([])
    expect(pointerTokens('$message.header#/a')).toBeNull()
    expect(pointerTokens('$message.payload#a')).toBeNull()
    const payload = JSON.parse('{"a":{"b":1},"__proto__":{"x":2}}')
    expect(readPointerValue('$message.payload#/a/b', payload)).toBe(1)
    expect(readPointerValue('$message.payload#/toString', payload)).toBeUndefined()
    expect(readPointerValue('$message.payload#/__proto__/x', payload)).toBe(2)
    const target: Record<string, unknown> = {}
    expect(writePointerValue(target, '$message.payload#/m/n', 3)).toBe(true)
    expect(writePointerValue(target, '$message.payload#/__proto__', { polluted: true })).toBe(true)
    expect(writePointerValue(target, '$message.payload#', 1)).toBe(false)
    expect(JSON.stringify(target)).toBe('{"m":{"n":3},"__proto__":{"polluted":true}}')
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype)
  })
})

describe('LazyAbort', () => {
  it('an abort before the signal exists is remembered; after, it aborts the signal', () => {
    const early = new LazyAbort()
    early.abort()
    expect(early.aborted).toBe(true)
    expect(early.signal.aborted).toBe(true)
    const late = new LazyAbort()
    const signal = late.signal
    expect(late.aborted).toBe(false)
    late.abort()
    expect(signal.aborted && late.aborted).toBe(true)
  })
})

describe('manifestDigest', () => {
  it('binds the contract, the principal and the operation: changing any changes the digest; key order does not', async () => {
    const entries = [{ branchId: 'b1', peerId: 'ann', input: { x: 1, y: 2 } }]
    const base = await manifestDigest('d', 'alice', 'op1', entries)
    expect(base).toMatch(/^[0-9a-f]{64}$/)
    expect(await manifestDigest('d', 'alice', 'op1', [{ input: { y: 2, x: 1 }, peerId: 'ann', branchId: 'b1' }])).toBe(base)
    for (const other of [
      await manifestDigest('e', 'alice', 'op1', entries),
      await manifestDigest('d', 'bob', 'op1', entries),
      await manifestDigest('d', 'alice', 'op2', entries),
      await manifestDigest('d', 'alice', 'op1', [{ ...entries[0]!, peerId: 'bob' }]),
    ])
      expect(other).not.toBe(base)
  })

  it('is undefined, not a throw, for entries that are not JSON data (NaN, Infinity, a cycle, a lone surrogate)', async () => {
    const cyclic: Record<string, unknown> = {}
    cyclic['self'] = cyclic
    for (const input of [Number.NaN, Infinity, cyclic, '\ud800'])
      expect(await manifestDigest('d', 'alice', 'op1', [{ input, peerId: 'ann', branchId: 'b1' }])).toBeUndefined()
  })
})

describe('sameJson (the success predicate)', () => {
  it('compares without coercion, objects by their canonical JSON; a value canonicalize cannot write equals nothing', () => {
    expect(sameJson(1, 1)).toBe(true)
    expect(sameJson(1, '1')).toBe(false)
    expect(sameJson({ a: 1, b: [2] }, { b: [2], a: 1 })).toBe(true)
    expect(sameJson({ a: 1 }, { a: 2 })).toBe(false)
    const cyclic: Record<string, unknown> = {}
    cyclic['self'] = cyclic
    expect(sameJson({ a: '\ud800' }, { a: '\ud800' })).toBe(false)
    expect(sameJson(cyclic, { self: {} })).toBe(false)
    expect(sameJson({ a: Number.NaN }, { a: Number.NaN })).toBe(false)
  })
})
