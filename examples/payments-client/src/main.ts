// Topic clients come straight from the contract; the plugin compiles it at build time.
import { capture, contractHash, getAll, refund } from '../payments.spec.json'
import { paymentService } from './payment-service.js'

console.log(`payments-api contract ${contractHash}`)
console.log(`${capture.topic} ${capture.version} ${capture.contractHash} (schemas: ${capture.components.join(', ')})`)

const captured = await capture.send(paymentService, { OrderId: 'order-7', Amount: 42.42, Currency: 'EUR', Method: 'Card' })
if (!captured.isSuccessful) throw new Error(`capture failed: ${captured.status}`)
console.log(`captured ${captured.payload.PaymentId}: ${captured.payload.Amount} ${captured.payload.Currency}`)

const refunded = await refund.send(paymentService, { PaymentId: captured.payload.PaymentId!, Reason: 'customer asked' })
console.log(`refund -> ${refunded.status}`)

const missing = await refund.send(paymentService, { PaymentId: 'pay-404' })
console.log(`refund of an unknown payment -> ${missing.status}: ${missing.errors.map((e) => e.message).join('; ')}`)

const all = await getAll.send(paymentService, {})
if (all.isSuccessful) console.log(`payments on record: ${all.payload.length}`)
