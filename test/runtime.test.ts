/** The runtime generated code imports: results, topic clients, the local sender. */
import canonicalize from 'canonicalize'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { canonical } from '../src/runtime/benzene/hash.js'
import { createLocalSender, createTopicClient, createTopicMap, fail, isTransientStatus, ok, toResult, type MessageSender } from '../src/runtime/index.js'
import { createSubject } from '../src/runtime/nats/subjects.js'

const client = createTopicClient<'payments:capture', 'v2', { Amount: number }, { PaymentId: string }>(
  'payments:capture',
  'v2',
  ('sha256:' + '0'.repeat(64)) as `sha256:${string}`,
  ['B', 'A'],
)

describe('topic client', () => {
  it('is frozen and carries its identity', () => {
    expect(Object.isFrozen(client)).toBe(true)
    expect(Object.isFrozen(client.components)).toBe(true)
    expect(client).toMatchObject({ topic: 'payments:capture', version: 'v2', components: ['B', 'A'] })
    expect(() => ((client as any).topic = 'x')).toThrow(TypeError)
  })

  it('sends through the sender with the benzene-version header, caller headers kept', async () => {
    const sender = createLocalSender({ 'payments:capture': (request: any) => ({ PaymentId: `p-${request.Amount}` }) })
    const result = await client.send(sender, { Amount: 5 }, { 'x-correlation-id': 'c-1', 'benzene-version': 'v1' })
    expect(result).toEqual({ status: 'ok', isSuccessful: true, payload: { PaymentId: 'p-5' }, errors: [] })
    expect(sender.sent).toEqual([{ topic: 'payments:capture', request: { Amount: 5 }, headers: { 'x-correlation-id': 'c-1', 'benzene-version': 'v2' } }])
  })

  it('never rejects: a throwing sender or a malformed result becomes unexpected-error', async () => {
    const throwing: MessageSender = {
      send: async () => {
        throw new Error('socket hang up')
      },
    }
    const thrown = await client.send(throwing, { Amount: 1 })
    expect(thrown).toMatchObject({ status: 'unexpected-error', isSuccessful: false, errors: [{ message: 'The message sender failed: socket hang up' }] })
    const liar: MessageSender = { send: async () => ({ status: 'fine', isSuccessful: true }) as never }
    expect(await client.send(liar, { Amount: 1 })).toMatchObject({ status: 'unexpected-error', isSuccessful: false })
  })

  it('an unversioned client has no version member and sends no version header', async () => {
    const plain = createTopicClient('a:b', undefined, `sha256:${'1'.repeat(64)}`, [])
    expect('version' in plain).toBe(false)
    const sender = createLocalSender({ 'a:b': () => undefined })
    await plain.send(sender, {})
    expect(sender.sent[0]!.headers).toEqual({})
  })
})

describe('results', () => {
  it('ok and fail build frozen results; transient statuses are the three the wire names', () => {
    expect(Object.isFrozen(ok(1, 'created'))).toBe(true)
    expect(fail('conflict', ['taken'])).toEqual({ status: 'conflict', isSuccessful: false, isTransient: false, errors: [{ message: 'taken' }] })
    expect(fail('timeout').isTransient).toBe(true)
    expect(['service-unavailable', 'too-many-requests', 'timeout'].every(isTransientStatus)).toBe(true)
    expect(isTransientStatus('not-found')).toBe(false)
  })

  it('toResult checks status against isSuccessful and the vocabulary (case-sensitive)', () => {
    expect(toResult({ status: 'OK', isSuccessful: true })).toMatchObject({ status: 'unexpected-error' })
    expect(toResult({ status: 'not-found', isSuccessful: true })).toMatchObject({ status: 'unexpected-error' })
    expect(toResult({ status: 'not-found', isSuccessful: false, errors: ['gone', { message: 'x', path: '/a', extra: 1 }] })).toEqual({
      status: 'not-found',
      isSuccessful: false,
      isTransient: false,
      errors: [{ message: 'gone' }, { message: 'x', path: '/a' }],
    })
    expect(toResult(null)).toMatchObject({ status: 'unexpected-error' })
  })

  it('the local sender answers not-implemented for a topic without handler, and crosses a JSON round trip', async () => {
    const sender = createLocalSender({ 'a:b': (request: any) => ({ at: new Date(0), got: request }) })
    expect(await sender.send('a:c', {})).toMatchObject({ status: 'not-implemented', isSuccessful: false })
    expect(await sender.send('a:b', { n: 1, skip: undefined })).toMatchObject({ payload: { at: '1970-01-01T00:00:00.000Z', got: { n: 1 } } })
    expect(await sender.send('__proto__', {})).toMatchObject({ status: 'not-implemented' })
  })

  it('topic maps have no prototype and are frozen', () => {
    const map = createTopicMap<Record<string, unknown>>([
      ['__proto__', 1],
      ['constructor', 2],
    ])
    expect(Object.getPrototypeOf(map)).toBeNull()
    expect(Object.keys(map)).toEqual(['__proto__', 'constructor'])
    expect(Object.isFrozen(map)).toBe(true)
  })
})

describe('subject render takes own parameters only', () => {
  const token = { kind: 'token', alphabet: 'lower', first: 'letter', minLength: 1, maxLength: 10, prefix: '' } as const
  const region = { kind: 'enum', values: ['eu', 'us'] } as const
  // One, two and three parameters: render has a specialized path for the first two.
  const subjects = [
    createSubject<any>('a.{region}', ['a', { param: 'region' }], { region }),
    createSubject<any>('a.{region}.{id}', ['a', { param: 'region' }, { param: 'id' }], { region, id: token }),
    createSubject<any>('a.{region}.{id}.{x}', ['a', { param: 'region' }, { param: 'id' }, { param: 'x' }], { region, id: token, x: token }),
  ]
  const values: Record<string, string> = { region: 'eu', id: 'abc', x: 'def' }
  // The parameters each subject takes, all of them or all but one.
  const full = (i: number) => Object.fromEntries(Object.entries(values).slice(0, i + 1))
  const without = (i: number, name: string) => Object.fromEntries(Object.entries(full(i)).filter(([k]) => k !== name))

  it('ignores a value polluting Object.prototype, and sees it again when it is own', () => {
    const proto = Object.prototype as Record<string, unknown>
    proto.region = 'eu'
    try {
      subjects.forEach((subject, i) => {
        expect(() => subject.render(without(i, 'region'))).toThrowError(expect.objectContaining({ code: 'SUBJECT_MISSING_PARAMETER' }))
        expect(subject.render(full(i)).startsWith('a.eu')).toBe(true)
      })
    } finally {
      delete proto.region
    }
  })

  it('refuses values a class prototype provides, accepts null-prototype objects', () => {
    class Params {
      get region() {
        return 'eu'
      }
    }
    subjects.forEach((subject, i) => {
      expect(() => subject.render(Object.assign(new Params(), without(i, 'region')))).toThrowError(
        expect.objectContaining({ code: 'SUBJECT_MISSING_PARAMETER' }),
      )
      expect(subject.render(Object.assign(Object.create(null), full(i)))).toBe(subject.render(full(i)))
    })
  })
})

describe('the Benzene hash writer', () => {
  it('writes what canonicalize writes (RFC 8785) for any JSON value, and refuses what it refuses (unpaired surrogates, non-finite numbers)', () => {
    const withSurrogates = fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('\uD800', 'a\uDC00b', '\uD83D\uDE00', '\uDBFF\uDFFF', 'x\uD83D'))
    const value = fc.letrec((tie) => ({
      json: fc.oneof(
        { depthSize: 'small' },
        withSurrogates,
        fc.double(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('json'), { maxLength: 4 }),
        fc.dictionary(withSurrogates, tie('json'), { maxKeys: 4 }),
      ),
    })).json
    const outcome = (f: () => string) => {
      try {
        return { text: f() }
      } catch (error) {
        return { error: (error as Error).message }
      }
    }
    const seen = { text: 0, error: 0 }
    fc.assert(
      fc.property(value, (v) => {
        const expected = outcome(() => canonicalize(v)!)
        expect(outcome(() => canonical(v))).toEqual(expected)
        seen['text' in expected ? 'text' : 'error']++
      }),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 500) },
    )
    // Both answers were exercised.
    expect(seen.text).toBeGreaterThan(10)
    expect(seen.error).toBeGreaterThan(10)
  })
})
