/**
 * The HTTP sender against a misbehaving local service, as a caller that uses it directly (the
 * drift check does, and so may an application): `send` resolves to a result for whatever the
 * service answers and whatever `timeoutMs` the application computed; it never rejects. And the
 * drift check's own `baseUrl` transport against a service that starts its answer and never ends
 * it: with `timeoutMs` it resolves, as the sender does.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createContract } from '../src/runtime/benzene/contract.js'
import { checkDrift, checkHealthDrift } from '../src/runtime/benzene/drift.js'
import { createHttpSender, readAnswer } from '../src/runtime/benzene/http.js'

/** A JSON array nested `depth` levels: small in bytes, deeper than `JSON.stringify` can recurse. */
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)
/** A failure envelope whose problem document lists one error entry without a message, nested deep. */
const deepProblem = JSON.stringify({ statusCode: 400, isSuccessful: false, body: `{"title":"bad","errors":[{"where":${nested(200_000)}}]}` })

let server: Server
let base: string
const requests: string[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url ?? '')
    req.resume()
    res.writeHead(req.url === '/deep-problem' ? 400 : 200, { 'content-type': 'application/json' })
    res.end(req.url === '/deep-problem' ? deepProblem : JSON.stringify({ statusCode: 200, isSuccessful: true, body: '{"ok":true}' }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

describe('a problem document nested past the stack', () => {
  it('readAnswer turns it into a failure with one error per entry, never a RangeError', () => {
    const result = readAnswer(400, deepProblem)
    expect(result).toMatchObject({ status: 'bad-request', isSuccessful: false })
    expect(result.errors).toEqual([{ message: 'An error entry nested too deeply to be shown.' }])
  })

  it('send resolves to that failure over HTTP', async () => {
    const sender = createHttpSender({ baseUrl: base, endpoint: '/deep-problem', timeoutMs: 10_000 })
    const result = await sender.send('t:x', { a: 1 })
    expect(result).toMatchObject({ status: 'bad-request', isSuccessful: false, errors: [{ message: 'An error entry nested too deeply to be shown.' }] })
  })
})

describe('timeoutMs as an application computes it', () => {
  it('a fraction of a millisecond and a limit past what a timer holds (2^31 - 1 ms) are limits, not a RangeError from AbortSignal.timeout', async () => {
    for (const timeoutMs of [2500.5, 2 ** 32, Infinity]) {
      const sender = createHttpSender({ baseUrl: base, endpoint: '/ok', timeoutMs })
      expect(await sender.send('t:x', { a: 1 }), String(timeoutMs)).toMatchObject({ status: 'ok', isSuccessful: true, payload: { ok: true } })
    }
  })

  it('a value that is no time (negative, NaN) is a bad-request failure, and nothing is sent', async () => {
    requests.length = 0
    for (const timeoutMs of [-1, Number.NaN]) {
      const sender = createHttpSender({ baseUrl: base, endpoint: '/never', timeoutMs })
      const result = await sender.send('t:x', { a: 1 })
      expect(result, String(timeoutMs)).toMatchObject({ status: 'bad-request', isSuccessful: false })
      expect(result.errors[0]!.message).toContain('timeoutMs')
    }
    expect(requests).toEqual([])
  })
})

describe('a drift check over baseUrl against a service that never finishes its answer', () => {
  let stalling: Server
  let stallingBase: string
  const contract = createContract(`sha256:${'0'.repeat(64)}`, { kind: 'whole-service' })

  beforeAll(async () => {
    // The headers and the first bytes of a document, then nothing: the connection stays open.
    stalling = createServer((req, res) => {
      req.resume()
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('{"openapi":"3.0.1","requests":[')
    })
    await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve))
    stallingBase = `http://127.0.0.1:${(stalling.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    stalling.closeAllConnections()
    await new Promise((resolve) => stalling.close(resolve))
  })

  it('checkDrift and checkHealthDrift resolve at timeoutMs with isMatch false and the reason', async () => {
    const drift = await checkDrift(contract, { baseUrl: stallingBase, timeoutMs: 200 })
    expect(drift).toMatchObject({ isMatch: false, clientHash: contract.hash })
    expect(drift.error).toContain('did not finish within 200 ms')
    const health = await checkHealthDrift(contract, { baseUrl: stallingBase, timeoutMs: 200.5 })
    expect(health).toMatchObject({ isMatch: false, clientHash: contract.hash })
    expect(health.error).toContain('did not finish within 201 ms')
  })

  it('a timeoutMs that is no time is an error of the report, and nothing is fetched', async () => {
    requests.length = 0
    const drift = await checkDrift(contract, { baseUrl: base, timeoutMs: -5 })
    expect(drift).toMatchObject({ isMatch: false })
    expect(drift.error).toContain('timeoutMs -5')
    expect(requests).toEqual([])
  })
})
