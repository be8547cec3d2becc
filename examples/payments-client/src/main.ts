// Topic clients come straight from the contract; the plugin compiles it at build time.
import { capture, contract, contractHash, events, getAll, messageEndpoint, refund } from '../payments.spec.json'
import { createHttpSender } from 'unplugin-contracts/runtime/http'
import { checkDrift, checkHealthDrift } from 'unplugin-contracts/runtime/drift'

const baseUrl = process.env.PAYMENTS_URL ?? 'http://127.0.0.1:3000'
const payments = createHttpSender({ baseUrl, endpoint: messageEndpoint, timeoutMs: 5000 })

console.log(`payments-api contract ${contractHash}`)
console.log(`${capture.topic} ${capture.version} ${capture.contractHash} (schemas: ${capture.components.join(', ')})`)

const captured = await capture.send(payments, { OrderId: 'order-7', Amount: 42.42, Currency: 'EUR', Method: 'Card' })
if (!captured.isSuccessful) throw new Error(`capture failed: ${captured.status} ${captured.errors.map((e) => e.message).join('; ')}`)
// A success may come without a body (a 204 has none): the type says so, and this app needs the payment.
const payment = captured.payload
if (payment === undefined) throw new Error(`capture answered ${captured.status} without the payment`)
console.log(`capture -> ${captured.status}: ${payment.PaymentId} ${payment.Amount} ${payment.Currency}`)

const refunded = await refund.send(payments, { PaymentId: payment.PaymentId!, Reason: 'customer asked' })
console.log(`refund -> ${refunded.status}${refunded.isSuccessful ? `: ${refunded.payload?.PaymentId ?? '(no body)'}` : ''}`)

const missing = await refund.send(payments, { PaymentId: 'pay-404' })
console.log(`refund of an unknown payment -> ${missing.status}: ${missing.errors.map((e) => e.message).join('; ')}`)

// Checked before it is sent: Amount must be a number, so this never leaves the process.
const invalid = await capture.send(payments, { OrderId: 'order-8', Amount: 'lots' as unknown as number })
console.log(`invalid capture -> ${invalid.status}: ${invalid.errors.map((e) => e.message).join('; ')}`)

const published = await events.captured.publish(payments, { OrderId: 'order-7', PaymentId: payment.PaymentId, Amount: 42.42, Currency: 'EUR' })
console.log(`event ${events.captured.topic} -> ${published.status}`)

const all = await getAll.send(payments, {})
if (all.isSuccessful) console.log(`payments on record: ${all.payload?.length ?? 0}`)

const drift = await checkDrift(contract, { baseUrl })
console.log(`drift check (${drift.projection}): ${drift.isMatch ? 'the service serves this contract' : `DRIFT, service hash ${drift.serviceHash}`}`)
const health = await checkHealthDrift(contract, { baseUrl })
console.log(`health check hash: ${health.isMatch ? 'matches' : 'differs'}`)
