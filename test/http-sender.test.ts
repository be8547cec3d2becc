/** The HTTP sender against a real local server speaking the Benzene wire, through generated clients. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { createHttpSender, httpStatusOf, readAnswer, statusFromHttp } from '../src/runtime/benzene/http.js'
import { FAILURE_STATUSES, SUCCESS_STATUSES } from '../src/runtime/shared/result.js'
import { BenzeneHttpServer, problem, success } from './helpers/benzene-http-server.js'
import { loadModule } from './helpers/load-module.js'

const contract = join(import.meta.dirname, '../fixtures/benzene/valid/payments.spec.json')
const server = new BenzeneHttpServer()
let payments: Record<string, any>
let sender: ReturnType<typeof createHttpSender>

const capture = { OrderId: 'order-7', Amount: 42.42, Currency: 'EUR', Method: 'Card' }
const payment = { PaymentId: 'pay-1', OrderId: 'order-7', Amount: 42.42, Currency: 'EUR', Status: 'captured', Refunds: [] }

beforeAll(async () => {
  await server.start()
  payments = await loadModule((await compile(contract)).code!, 'payments-http')
  sender = createHttpSender({ baseUrl: server.url, endpoint: '/benzene/invoke', headers: { authorization: 'Bearer t0ken' }, timeoutMs: 2000 })
})
afterAll(() => server.stop())

describe('the wire', () => {
  it('posts the envelope with a string body and the version header, and reads a success', async () => {
    server.received.length = 0
    server.handlers['payments:capture'] = () => ({ http: 201, ...success(payment, 'created') })
    const result = await payments.capture.send(sender, capture, { 'x-correlation-id': 'c-42' })
    expect(result).toEqual({ status: 'created', isSuccessful: true, payload: payment, errors: [] })
    expect(server.received).toHaveLength(1)
    expect(server.received[0]).toMatchObject({
      topic: 'payments:capture',
      headers: { 'x-correlation-id': 'c-42', 'benzene-version': 'v2' },
      body: capture,
      httpHeaders: { authorization: 'Bearer t0ken', 'content-type': 'application/json' },
    })
  })

  it('accepts a numeric statusCode', async () => {
    server.handlers['payments:refund'] = () => success(payment, 200)
    expect(await payments.refund.send(sender, { PaymentId: 'pay-1' })).toEqual({ status: 'ok', isSuccessful: true, payload: payment, errors: [] })
    server.handlers['payments:refund'] = () => ({ http: 409, envelope: { statusCode: 409, isSuccessful: false, body: '' } })
    expect(await payments.refund.send(sender, { PaymentId: 'pay-1' })).toMatchObject({ status: 'conflict', isSuccessful: false, isTransient: false })
  })

  it('a 204 has no body: the result comes from the HTTP status', async () => {
    server.handlers['payments:refund'] = () => ({ http: 204 })
    expect(await payments.refund.send(sender, { PaymentId: 'pay-1' })).toEqual({ status: 'updated', isSuccessful: true, payload: undefined, errors: [] })
    // An envelope's body may be absent with any status: a success without a payload, which the
    // generated types allow (`Result<PaymentDto | undefined>`, test/types.test.ts), not a validation failure.
    server.handlers['payments:refund'] = () => ({ http: 200, envelope: { statusCode: 'ok', isSuccessful: true } })
    expect(await payments.refund.send(sender, { PaymentId: 'pay-1' })).toEqual({ status: 'ok', isSuccessful: true, payload: undefined, errors: [] })
  })

  it('a 422 problem document becomes one error per listed error, the document kept as payload', async () => {
    server.handlers['payments:refund'] = () =>
      problem('validation-error', 422, [
        { message: 'PaymentId is unknown', path: '/PaymentId', code: 'unknown' },
        { detail: 'Amount exceeds the captured amount', pointer: '/Amount' },
      ])
    const result = await payments.refund.send(sender, { PaymentId: 'pay-9', Amount: 1000 })
    expect(result).toMatchObject({
      status: 'validation-error',
      isSuccessful: false,
      isTransient: false,
      errors: [
        { message: 'PaymentId is unknown', path: '/PaymentId', code: 'unknown' },
        { message: 'Amount exceeds the captured amount', path: '/Amount' },
      ],
    })
    expect(result.payload).toMatchObject({ benzeneStatus: 'validation-error', title: 'validation-error' })
  })

  it('a 404 problem without errors gives its detail', async () => {
    server.handlers['payments:refund'] = () => problem('not-found', 404, [], 'No payment pay-404.')
    expect(await payments.refund.send(sender, { PaymentId: 'pay-404' })).toMatchObject({ status: 'not-found', errors: [{ message: 'No payment pay-404.' }] })
  })

  it('5xx: an envelope keeps its status, a bare answer maps the HTTP status and is marked transient', async () => {
    server.handlers['payments:refund'] = () => problem('unexpected-error', 500, [])
    expect(await payments.refund.send(sender, { PaymentId: 'p' })).toMatchObject({ status: 'unexpected-error', isTransient: false })
    server.handlers['payments:refund'] = () => ({ http: 503, raw: 'upstream overloaded' })
    expect(await payments.refund.send(sender, { PaymentId: 'p' })).toMatchObject({
      status: 'service-unavailable',
      isSuccessful: false,
      isTransient: true,
      errors: [{ message: 'HTTP 503: upstream overloaded' }],
    })
  })

  it('a slow service times out through AbortSignal, as a transient failure', async () => {
    server.handlers['payments:refund'] = () => ({ ...success(payment), delayMs: 1000 })
    const impatient = createHttpSender({ baseUrl: new URL('/benzene/invoke', server.url), timeoutMs: 100 })
    const answered = server.answered
    const result = await payments.refund.send(impatient, { PaymentId: 'p' })
    expect(result).toMatchObject({ status: 'timeout', isSuccessful: false, isTransient: true })
    // The sender gave up before the service answered (its answer, a second later, finds the request gone).
    expect(server.answered).toBe(answered)
  })

  it('a refused connection is service-unavailable, not a thrown error', async () => {
    const closed = new BenzeneHttpServer()
    await closed.start()
    const url = closed.url
    await closed.stop()
    const result = await payments.refund.send(createHttpSender({ baseUrl: url, endpoint: '/benzene/invoke' }), { PaymentId: 'p' })
    expect(result).toMatchObject({ status: 'service-unavailable', isSuccessful: false, isTransient: true })
    expect(result.errors[0].message).toContain('ECONNREFUSED')
  })

  it('an invalid request never reaches the service', async () => {
    server.received.length = 0
    const result = await payments.capture.send(sender, { ...capture, Amount: 'lots' })
    expect(result).toMatchObject({ status: 'validation-error', errors: [{ path: '/Amount', code: 'type' }] })
    expect(server.received).toEqual([])
  })

  it('a response that breaks the contract is a failure that keeps the raw payload', async () => {
    const wrong = { ...payment, Amount: 'forty-two' }
    server.handlers['payments:capture'] = () => success(wrong)
    const result = await payments.capture.send(sender, capture)
    expect(result).toMatchObject({ status: 'unexpected-error', isSuccessful: false, payload: wrong, errors: [{ path: '/Amount', code: 'response:type' }] })
  })

  it('events are published through the same sender, validated first', async () => {
    server.received.length = 0
    server.handlers['payment:captured'] = () => success(undefined, 'accepted')
    const message = { OrderId: 'order-7', PaymentId: 'pay-1', Amount: 42.42, Currency: 'EUR' }
    expect(await payments.events.captured.publish(sender, message)).toMatchObject({ status: 'accepted', isSuccessful: true })
    expect(server.received[0]).toMatchObject({ topic: 'payment:captured', headers: { 'benzene-version': 'v1' }, body: message })
    expect(await payments.events.captured.publish(sender, { ...message, Extra: 1 })).toMatchObject({ status: 'validation-error' })
    expect(server.received).toHaveLength(1)
  })

  it('a malformed answer is a failure', async () => {
    server.handlers['payments:refund'] = () => ({ raw: '{"hello": "world"}' })
    expect(await payments.refund.send(sender, { PaymentId: 'p' })).toMatchObject({ status: 'unexpected-error', isSuccessful: false })
  })
})

describe('status mapping both ways', () => {
  it('each Benzene status has its HTTP status, and each HTTP status reads back to a status that maps to it', () => {
    const expected: Record<string, number> = {
      ok: 200,
      ignored: 200,
      created: 201,
      accepted: 202,
      updated: 204,
      deleted: 204,
      'bad-request': 400,
      unauthorized: 401,
      forbidden: 403,
      'not-found': 404,
      conflict: 409,
      'validation-error': 422,
      'too-many-requests': 429,
      'unexpected-error': 500,
      'not-implemented': 501,
      'service-unavailable': 503,
      timeout: 504,
    }
    for (const status of [...SUCCESS_STATUSES, ...FAILURE_STATUSES]) {
      expect(httpStatusOf(status)).toBe(expected[status])
      expect(httpStatusOf(statusFromHttp(httpStatusOf(status)))).toBe(httpStatusOf(status))
    }
    expect(statusFromHttp(418)).toBe('bad-request')
    expect(statusFromHttp(502)).toBe('unexpected-error')
    expect(readAnswer(201, '')).toMatchObject({ status: 'created', isSuccessful: true })
  })
})

describe('drift checks', () => {
  const document = () => JSON.parse(readFileSync(contract, 'utf8'))
  let drift: typeof import('../src/runtime/benzene/drift.js')
  beforeAll(async () => {
    drift = await import('../src/runtime/benzene/drift.js')
  })

  it('a client and a module match the document the service serves', async () => {
    server.document = document()
    expect(await drift.checkDrift(payments.capture, { baseUrl: server.url })).toEqual({
      isMatch: true,
      clientHash: payments.capture.contractHash,
      serviceHash: payments.capture.contractHash,
      projection: 'topic-scoped',
    })
    expect(await drift.checkDrift(payments.contract, { baseUrl: server.url })).toMatchObject({
      isMatch: true,
      projection: 'whole-service',
      serviceHash: payments.contractHash,
    })
  })

  it('through the benzene:spec topic too', async () => {
    server.handlers['benzene:spec'] = () => success(document())
    expect(await drift.checkDrift(payments.refund, { sender })).toMatchObject({ isMatch: true })
  })

  it('a changed served document is drift, for exactly the projections it touches', async () => {
    const changed = document()
    changed.components.schemas.RefundPayment.properties.Reason.maxLength = 200
    server.document = changed
    // RefundPayment is in refund's closure and in the whole service, not in capture's closure.
    expect(await drift.checkDrift(payments.refund, { baseUrl: server.url })).toMatchObject({ isMatch: false, projection: 'topic-scoped' })
    expect(await drift.checkDrift(payments.contract, { baseUrl: server.url })).toMatchObject({ isMatch: false, projection: 'whole-service' })
    expect(await drift.checkDrift(payments.capture, { baseUrl: server.url })).toMatchObject({ isMatch: true })
    // Decoration is not drift: examples and transports are not hashed.
    const decorated = document()
    decorated.transports = ['kafka']
    decorated.requests[2].example = { OrderId: 'another' }
    server.document = decorated
    expect(await drift.checkDrift(payments.contract, { baseUrl: server.url })).toMatchObject({ isMatch: true })
  })

  it('a topic the service no longer has is drift with a reason', async () => {
    const doc = document()
    doc.requests = doc.requests.filter((e: { topic: string }) => e.topic !== 'payments:refund')
    server.document = doc
    expect(await drift.checkDrift(payments.refund, { baseUrl: server.url })).toMatchObject({
      isMatch: false,
      error: expect.stringContaining('payments:refund'),
    })
  })

  it('the health check variant compares the whole-service hash, and refuses any other projection', async () => {
    server.health = { isHealthy: true, healthChecks: { contract: { status: 'ok', type: 'schema', data: { hashCode: payments.contractHash } } } }
    expect(await drift.checkHealthDrift(payments.contract, { baseUrl: server.url })).toEqual({
      isMatch: true,
      clientHash: payments.contractHash,
      serviceHash: payments.contractHash,
      projection: 'whole-service',
    })
    server.health = { isHealthy: true, healthChecks: { contract: { status: 'warning', type: 'schema', data: { hashCode: 'sha256:' + '0'.repeat(64) } } } }
    expect(await drift.checkHealthDrift(payments.contract, { baseUrl: server.url })).toMatchObject({ isMatch: false })
    const scoped = await loadModule((await compile(contract, { query: 'topics=payments:refund' })).code!, 'payments-scoped')
    await expect(drift.checkHealthDrift(scoped.contract, { baseUrl: server.url })).rejects.toThrow(/never comparable/)
    // checkDrift recomputes the service-level projection that module covers.
    server.document = document()
    expect(await drift.checkDrift(scoped.contract, { baseUrl: server.url })).toMatchObject({
      isMatch: true,
      projection: 'service-level',
      serviceHash: scoped.contractHash,
    })
  })
})
