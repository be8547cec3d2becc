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
console.log(`capture -> ${captured.status}: ${captured.payload.PaymentId} ${captured.payload.Amount} ${captured.payload.Currency}`)

const refunded = await refund.send(payments, { PaymentId: captured.payload.PaymentId!, Reason: 'customer asked' })
console.log(`refund -> ${refunded.status}${refunded.isSuccessful ? `: ${refunded.payload.PaymentId}` : ''}`)

const missing = await refund.send(payments, { PaymentId: 'pay-404' })
console.log(`refund of an unknown payment -> ${missing.status}: ${missing.errors.map((e) => e.message).join('; ')}`)

// Checked before it is sent: Amount must be a number, so this never leaves the process.
const invalid = await capture.send(payments, { OrderId: 'order-8', Amount: 'lots' as unknown as number })
console.log(`invalid capture -> ${invalid.status}: ${invalid.errors.map((e) => e.message).join('; ')}`)

const published = await events.captured.publish(payments, { OrderId: 'order-7', PaymentId: captured.payload.PaymentId, Amount: 42.42, Currency: 'EUR' })
console.log(`event ${events.captured.topic} -> ${published.status}`)

const all = await getAll.send(payments, {})
if (all.isSuccessful) console.log(`payments on record: ${all.payload.length}`)

const drift = await checkDrift(contract, { baseUrl })
console.log(`drift check (${drift.projection}): ${drift.isMatch ? 'the service serves this contract' : `DRIFT, service hash ${drift.serviceHash}`}`)
const health = await checkHealthDrift(contract, { baseUrl })
console.log(`health check hash: ${health.isMatch ? 'matches' : 'differs'}`)
