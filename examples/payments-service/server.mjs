// A small Benzene-style payments service: the topics of payments.spec.json over HTTP, in memory.
// It speaks the wire as the HTTP sender does (docs/runtime.md): POST <messageEndpoint> with
// { topic, headers, body: "<payload JSON>" }, answered by { statusCode, isSuccessful, headers, body }.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { inspect } from 'unplugin-contracts'

const contractFile = new URL('../payments-client/payments.spec.json', import.meta.url)
const HTTP = { ok: 200, created: 201, 'not-found': 404, 'validation-error': 422, 'not-implemented': 501 }

/** Starts the service on 127.0.0.1 (port 0: any free port) and resolves to { url, close }. */
export async function startPaymentsService(port = 0) {
  const contract = readFileSync(contractFile, 'utf8')
  // The service's own whole-service contract hash, as its schema health check reports it.
  const { data } = await inspect(contractFile.pathname)
  const payments = new Map()
  const published = []

  const topics = {
    'payments:capture'(request) {
      if (!request.OrderId) return failure('validation-error', [{ message: 'OrderId is required', path: '/OrderId' }])
      const payment = {
        PaymentId: `pay-${payments.size + 1}`,
        OrderId: request.OrderId,
        Amount: request.Amount,
        Currency: request.Currency,
        Status: 'captured',
        Refunds: [],
      }
      payments.set(payment.PaymentId, payment)
      return success('created', payment)
    },
    'payments:refund'(request) {
      const payment = payments.get(request.PaymentId)
      if (!payment) return failure('not-found', [], `No payment ${request.PaymentId}.`)
      const refund = {
        ...payment,
        PaymentId: `${payment.PaymentId}-r${payment.Refunds.length + 1}`,
        Amount: request.Amount ?? payment.Amount,
        Status: 'refunded',
        Refunds: null,
      }
      payment.Refunds.push(refund)
      return success('ok', refund)
    },
    'payments:get-all': () => success('ok', [...payments.values()]),
    'payment:captured'(message) {
      published.push(message)
      return success('accepted', undefined)
    },
  }

  const server = createServer((req, res) => {
    const chunks = []
    req.on('data', (chunk) => chunks.push(chunk))
    req.on('end', () => {
      const url = new URL(req.url, 'http://localhost')
      const reply = (status, value) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value))
      if (req.method === 'GET' && url.pathname === '/benzene/spec') return res.writeHead(200, { 'content-type': 'application/json' }).end(contract)
      if (req.method === 'GET' && url.pathname === '/benzene/health') {
        return reply(200, { isHealthy: true, healthChecks: { contract: { status: 'ok', type: 'schema', data: { hashCode: data.hashes.service } } } })
      }
      if (req.method !== 'POST' || url.pathname !== '/benzene/invoke') return reply(404, { title: 'not found' })
      const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      const handler = Object.hasOwn(topics, envelope.topic) ? topics[envelope.topic] : undefined
      const answer = handler
        ? handler(envelope.body ? JSON.parse(envelope.body) : undefined, envelope.headers)
        : failure('not-implemented', [], `No handler for ${envelope.topic}.`)
      reply(HTTP[answer.statusCode] ?? 200, answer)
    })
  })
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    published,
    close: () => new Promise((resolve) => server.close(resolve)),
  }
}

function success(statusCode, payload) {
  return { statusCode, isSuccessful: true, headers: {}, body: payload === undefined ? '' : JSON.stringify(payload) }
}

function failure(statusCode, errors, detail = statusCode) {
  const problem = { type: `https://example.test/problems/${statusCode}`, title: statusCode, detail, benzeneStatus: statusCode, errors }
  return { statusCode, isSuccessful: false, headers: {}, body: JSON.stringify(problem) }
}

// `node examples/payments-service/server.mjs` runs it on its own.
if (import.meta.url === `file://${process.argv[1]}`) {
  const service = await startPaymentsService(Number(process.env.PORT ?? 3000))
  console.log(`payments service on ${service.url}`)
}
