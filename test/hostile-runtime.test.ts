/**
 * What generated code does with hostile data and hostile services: the sender never sends outside
 * baseUrl's origin, follows no redirect, reads bounded bodies; validators, subjects and drift
 * checks finish quickly on inputs built to freeze or crash them. Real HTTP servers on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHttpSender, readAnswer } from '../src/runtime/benzene/http.js'
import { checkDrift } from '../src/runtime/benzene/drift.js'
import type { Schema } from '../src/runtime/shared/schema-check.js'
import type { Validator } from '../src/runtime/shared/validation.js'
import { generatedValidator, interpretedValidator } from './helpers/validator-code.js'
import { MAX_VALIDATION_DEPTH } from '../src/runtime/shared/schema-errors.js'
import { createFilter, createSubject, templateTokens } from '../src/runtime/nats/subjects.js'
import { patternEngine } from '../src/core/pattern-safety.js'
import { createTopicClient } from '../src/runtime/benzene/client.js'
import { LoopbackServer } from './helpers/loopback-server.js'

const service = new LoopbackServer()
const attacker = new LoopbackServer()
const envelope = (body: unknown) => JSON.stringify({ statusCode: 'ok', isSuccessful: true, headers: {}, body: JSON.stringify(body) })

beforeAll(async () => {
  await service.start()
  await attacker.start()
})
afterAll(async () => {
  await service.stop()
  await attacker.stop()
})

describe('the HTTP sender keeps to baseUrl', () => {
  it('refuses an endpoint that names another host, in every spelling, and sends nothing', async () => {
    const port = new URL(attacker.url).port
    for (const endpoint of [`//127.0.0.1:${port}/x`, `${attacker.url}/x`, `/\\127.0.0.1:${port}/x`, `/\t/127.0.0.1:${port}/x`, `\\\\127.0.0.1:${port}/x`]) {
      attacker.requests.length = 0
      const sender = createHttpSender({ baseUrl: service.url, endpoint, headers: { 'x-api-key': 'secret' } })
      const result = await sender.send('t', { a: 1 })
      expect(result, endpoint).toMatchObject({ isSuccessful: false, status: 'bad-request' })
      expect(attacker.requests, endpoint).toEqual([])
    }
  })

  it('does not follow a redirect to another origin: a 307 is a failure with its status, the key never leaves', async () => {
    attacker.requests.length = 0
    service.handle = (_req, res) => res.writeHead(307, { location: `${attacker.url}/steal` }).end()
    const sender = createHttpSender({ baseUrl: service.url, endpoint: '/benzene/invoke', headers: { 'x-api-key': 'secret' } })
    const result = await sender.send('t', { a: 1 })
    expect(result).toMatchObject({ isSuccessful: false, status: 'unexpected-error' })
    expect(result.errors[0]!.message).toContain('HTTP 307')
    expect(attacker.requests).toEqual([])
    // Even when same-origin redirects are allowed, another origin is refused.
    expect(await createHttpSender({ baseUrl: service.url, endpoint: '/benzene/invoke', redirects: 'same-origin' }).send('t', {})).toMatchObject({
      isSuccessful: false,
    })
    expect(attacker.requests).toEqual([])
  })

  it('follows a same-origin 307 only when allowed, with the method and body kept', async () => {
    service.handle = (req, res) => {
      if (req.url === '/benzene/invoke') return res.writeHead(307, { location: '/benzene/v2' }).end()
      res.writeHead(200, { 'content-type': 'application/json' }).end(envelope({ moved: true }))
    }
    service.requests.length = 0
    const result = await createHttpSender({ baseUrl: service.url, endpoint: '/benzene/invoke', redirects: 'same-origin' }).send('t', { a: 1 })
    expect(result).toMatchObject({ isSuccessful: true, payload: { moved: true } })
    expect(service.requests.map((r) => [r.method, r.url, JSON.parse(r.body).topic])).toEqual([
      ['POST', '/benzene/invoke', 't'],
      ['POST', '/benzene/v2', 't'],
    ])
    expect(await createHttpSender({ baseUrl: service.url, endpoint: '/benzene/invoke' }).send('t', {})).toMatchObject({ isSuccessful: false })
  })

  it('reads a body up to maxBodyBytes and fails past it, without reading the rest', async () => {
    let written = 0
    service.handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      const chunk = Buffer.alloc(64 * 1024, 0x20)
      // 64 MiB at most, stopped as soon as the client goes away.
      const pump = () => {
        while (written < 64 * 1024 * 1024) {
          written += chunk.length
          if (!res.write(chunk)) return void res.once('drain', pump)
        }
        res.end()
      }
      res.on('close', () => {
        closedAt = written
        written = Infinity
      })
      pump()
    }
    let closedAt = 0
    const result = await createHttpSender({ baseUrl: service.url, endpoint: '/benzene/invoke', maxBodyBytes: 1024 * 1024 }).send('t', {})
    expect(result).toMatchObject({ isSuccessful: false, status: 'unexpected-error' })
    expect(result.errors[0]!.message).toContain('larger than 1048576 bytes')
    // The client went away long before the 64 MiB were written: the rest was never read.
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(closedAt).toBeLessThan(32 * 1024 * 1024)
    // A declared length over the limit is refused before reading.
    service.handle = (_req, res) => res.writeHead(200, { 'content-length': String(8 * 1024 * 1024) }).end(' '.repeat(8 * 1024 * 1024))
    expect(await createHttpSender({ baseUrl: service.url, endpoint: '/benzene/invoke', maxBodyBytes: 1024 }).send('t', {})).toMatchObject({
      isSuccessful: false,
    })
  })

  it('an answer that is not UTF-8 (a byte split across chunks included) or starts with a byte order mark is a failure, never text with U+FFFD', async () => {
    const envelope = Buffer.from(JSON.stringify({ statusCode: 'ok', isSuccessful: true, body: '"é"' }))
    const send = () => createHttpSender({ baseUrl: service.url, endpoint: '/benzene/invoke' }).send('t', {})
    service.handle = (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(Buffer.concat([envelope.subarray(0, 10), Buffer.from([0xff]), envelope.subarray(10)]))
    const broken = await send()
    expect(broken).toMatchObject({ isSuccessful: false, status: 'unexpected-error' })
    expect(broken.errors[0]!.message).toContain('not UTF-8')
    // A two-byte letter written in two chunks is one letter; its first byte alone at the end is not UTF-8.
    const at = envelope.indexOf(0xc3)
    service.handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write(envelope.subarray(0, at + 1))
      setTimeout(() => res.end(envelope.subarray(at + 1)), 20)
    }
    expect(await send()).toMatchObject({ isSuccessful: true, payload: 'é' })
    service.handle = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(envelope.subarray(0, at + 1))
    expect((await send()).errors[0]!.message).toContain('not UTF-8')
    service.handle = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), envelope]))
    expect(await send()).toMatchObject({ isSuccessful: false })
  })

  it('a JSON null body is null, not the string "null"', () => {
    expect(readAnswer(200, JSON.stringify({ statusCode: 'ok', isSuccessful: true, body: 'null' }))).toMatchObject({ isSuccessful: true, payload: null })
    expect(readAnswer(200, JSON.stringify({ statusCode: 'ok', isSuccessful: true, body: 'plain text' }))).toMatchObject({
      isSuccessful: true,
      payload: 'plain text',
    })
  })
})

/** The classic ReDoS families, each with an input that makes a backtracking engine take exponential or polynomial time. */
const REDOS: Array<[pattern: string, attack: string]> = [
  ['^(a+)+$', 'a'.repeat(40) + '!'],
  ['^(a|a)*$', 'a'.repeat(40) + '!'],
  ['^(a|aa)+$', 'a'.repeat(60) + '!'],
  ['^(\\d+)*$', '1'.repeat(40) + 'x'],
  ['^(\\w+\\s?)*$', 'word '.repeat(12) + 'x!'],
  ['(.*a){12}', 'a'.repeat(11) + ' '.repeat(40)],
  ['\\d+\\d+\\d+$', '1'.repeat(20000) + 'x'],
  ['a*b', 'a'.repeat(50000)],
  ['^(x+x+)+y$', 'x'.repeat(40)],
]

/** Both validators: the code generated into modules, and the runtime's interpreter. */
const VALIDATORS: Array<[string, (schema: Schema, definitions?: Record<string, Schema>) => Validator]> = [
  ['generated code', generatedValidator],
  // The matchers a module passes it: linear-time ones for the patterns not proven cheap.
  ['interpreter', interpretedValidator],
]

describe.each(VALIDATORS)('patterns cannot freeze a validator (%s)', (_, validator) => {
  it.each(REDOS)('%s runs in linear time on its attack input, with the RegExp verdict on ordinary inputs', (pattern, attack) => {
    const engine = patternEngine(pattern)
    expect(engine.engine).toBe('linear')
    if (engine.engine !== 'linear') return
    const validate = validator({ type: 'string', pattern })
    // Termination is the test's timeout; the cost at n and 10n is bench/hostile-validators.ts's.
    expect(validate(attack)).toBe(false)
    for (const sample of ['', 'a', 'aab', 'ab', '12', 'word word', 'xxy', 'aaaa', '1 2', 'b'])
      expect(validate(sample), sample).toBe(new RegExp(pattern, 'u').test(sample))
  })
})

it('patterns proven cheap stay on the native engine', () => {
  for (const pattern of ['^[a-z]+$', '^\\d{3}-\\d{4}$', '^[\\w.+-]+@[\\w-]+\\.[\\w.]+$', '^[0-9a-f]{64}$', '^-?\\d+$', 'abc', '^(\\d{3}-)?\\d{4}$'])
    expect(patternEngine(pattern), pattern).toEqual({ engine: 'native' })
})

describe.each(VALIDATORS)('validators on hostile data (%s)', (_, validator) => {
  const deep = (levels: number) => {
    let value: unknown = 'leaf'
    for (let i = 0; i < levels; i++) value = { next: value }
    return value
  }
  const nested = validator({ $ref: 'n' }, { n: { type: ['object', 'string'], properties: { next: { $ref: 'n' } } } })

  it('data nested past the depth limit is a failure result, not a stack overflow', () => {
    expect(nested(deep(50))).toBe(true)
    expect(nested(deep(20000))).toBe(false)
    expect(nested.errors![0]).toMatchObject({ keyword: 'depth', params: { limit: MAX_VALIDATION_DEPTH } })
  })

  it('send() resolves on a 600-level response: a failure that keeps the payload, never a rejection', async () => {
    const client = createTopicClient('t', undefined, 'sha256:0', [], { response: nested })
    const payload = deep(600)
    const result = await client.send({ send: async () => ({ status: 'ok', isSuccessful: true, payload, errors: [] }) }, {})
    expect(result).toMatchObject({ isSuccessful: false, status: 'unexpected-error' })
  })

  it('a schema that refers to itself without consuming data terminates', () => {
    const cycle = validator({ $ref: 'a' }, { a: { oneOf: [{ $ref: 'b' }, { type: 'string' }] }, b: { oneOf: [{ $ref: 'a' }, { type: 'number' }] } })
    expect(cycle(true)).toBe(false)
  })

  it('uniqueItems over 20,000 objects is hashed, with the pair ajv reports', () => {
    const items = Array.from({ length: 20000 }, (_, i) => ({ id: i, tags: ['x', { k: i }] }))
    const unique = validator({ type: 'array', uniqueItems: true })
    expect(unique(items)).toBe(true)
    items.push({ tags: ['x', { k: 7 }], id: 7 })
    expect(unique(items)).toBe(false)
    expect(unique.errors![0]!.params).toEqual({ i: 20000, j: 7 })
  })
})

describe('subjects on hostile strings', () => {
  const types = { id: { kind: 'token', alphabet: 'hex', first: 'any', minLength: 4, maxLength: 8, prefix: '' } } as const
  const subject = createSubject('svc.{id}.done', templateTokens('svc.{id}.done'), types)
  const tail = createFilter('svc.{id}.>', templateTokens('svc.{id}.>'), types)
  const fixed = createFilter('svc.*.done', templateTokens('svc.*.done'), types)

  it('a 30 MB subject is refused by its length before it is split', () => {
    const huge = 'svc.beef.' + 'a.'.repeat(15 * 1024 * 1024) + 'done'
    expect(subject.tryParse(huge)).toBeUndefined()
    expect(subject.matches(huge)).toBe(false)
    expect(fixed.matches(huge)).toBe(false)
    // A final `>` takes any number of tokens: the tail is scanned in place, not split.
    expect(tail.matches(huge)).toBe(true)
    expect(tail.matches(huge + '.')).toBe(false)
    expect(subject.parse('svc.beef.done')).toEqual({ id: 'beef' })
  })
})

describe('drift checks on hostile served documents', () => {
  const target = { topic: 'payments:capture', contractHash: 'sha256:00' } as const
  const served = (text: string) => {
    service.handle = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(text)
  }

  it.each([
    ['requests: [null]', JSON.stringify({ requests: [null], events: [], components: { schemas: {} } })],
    [
      '1e400',
      '{"requests":[{"topic":"payments:capture","request":{"type":"number","maximum":1e400},"response":{"type":"string"}}],"events":[],"components":{"schemas":{}}}',
    ],
    [
      'nested 20,000 levels',
      `{"requests":[{"topic":"payments:capture","request":${'{"not":'.repeat(20000)}{}${'}'.repeat(20000)},"response":{}}],"events":[],"components":{"schemas":{}}}`,
    ],
    ['not JSON', '{"requests":'],
  ])('%s: resolves with error filled', async (_name, text) => {
    served(text)
    const report = await checkDrift(target, { baseUrl: service.url })
    expect(report.isMatch).toBe(false)
    expect(report.error).toBeTypeOf('string')
  })

  it('a redirect of the document is not followed', async () => {
    attacker.requests.length = 0
    service.handle = (_req, res) => res.writeHead(302, { location: `${attacker.url}/spec` }).end()
    const report = await checkDrift(target, { baseUrl: service.url })
    expect(report).toMatchObject({ isMatch: false })
    expect(report.error).toContain('redirect')
    expect(attacker.requests).toEqual([])
  })
})
