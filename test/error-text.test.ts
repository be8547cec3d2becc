/** What a thrown value says (src/runtime/shared/error-text.ts): never a throw of its own, whatever user code threw. */
import { describe, expect, it } from 'vitest'
import { errorText } from '../src/runtime/shared/error-text.js'

describe('errorText', () => {
  it("an Error's message, any other value as String() shows it", () => {
    expect(errorText(new Error('boom'))).toBe('boom')
    expect(errorText('plain')).toBe('plain')
    expect(errorText(42)).toBe('42')
    expect(errorText(undefined)).toBe('undefined')
    expect(errorText(Symbol('s'))).toBe('Symbol(s)')
  })

  it('a value whose toString, message getter or conversion throws is a sentence, not a second throw', () => {
    const hostile = {
      toString() {
        throw new Error('again')
      },
    }
    const error = new Error('x')
    Object.defineProperty(error, 'message', {
      get() {
        throw new Error('getter')
      },
    })
    const revoked = Proxy.revocable({}, {})
    revoked.revoke()
    for (const value of [hostile, error, revoked.proxy, Object.create(null)]) expect(errorText(value)).toBe('a value that cannot be shown as text')
  })
})

describe('check: a validator reading data that throws', () => {
  it('is one `json` error, never a throw, for every caller (clients, the executor)', async () => {
    const { check } = await import('../src/runtime/shared/validation.js')
    const reads = ((data: unknown) => typeof (data as { a?: unknown }).a === 'string') as Parameters<typeof check>[0]
    const revoked = Proxy.revocable({}, {})
    revoked.revoke()
    const trap = new Proxy(
      {},
      {
        get: () => {
          throw new Error('trap')
        },
      },
    )
    expect(check(reads, revoked.proxy)).toEqual([{ message: expect.stringContaining('(payload) cannot be read'), path: '', code: 'json' }])
    expect(check(reads, trap)).toEqual([{ message: '(payload) cannot be read: trap', path: '', code: 'json' }])
    expect(check(reads, { a: 'x' })).toBeUndefined()
  })
})
