// The orders service: provisions the stream its contract owns (ORDERS), then places three orders
// with JetStream (one of them twice: the stream keeps one).
import { provision } from 'unplugin-contracts/runtime/nats/client'
import * as orders from '../orders/asyncapi.yaml'
import { allowOlderServer, connectTo } from './connection.js'

const { nc, client } = await connectTo(orders)
const { plan } = await provision(orders, nc, { allowOlderServer })
for (const p of plan) console.log(`orders provision: ${p.kind} ${p.name} (${p.authority}) ${p.action}`)

const placed: orders.OrderPlaced[] = [
  { orderId: 'a0000001', total: 1250, currency: 'EUR', lines: [{ sku: 'tea', quantity: 2 }] },
  { orderId: 'a0000002', total: 990, currency: 'USD' },
  { orderId: 'a0000001', total: 1250, currency: 'EUR', lines: [{ sku: 'tea', quantity: 2 }] },
]
for (const order of placed) {
  const region = order.currency === 'EUR' ? 'eu' : 'us'
  const ack = await client.publish('placeOrder', { region, orderId: order.orderId }, order, { msgID: `order-${order.orderId}` })
  console.log(`placed ${order.orderId}: stream ${ack.stream} seq ${ack.seq}${ack.duplicate ? ' (duplicate, kept once)' : ''}`)
}
try {
  client.publish('noteOrder', { region: 'eu', orderId: 'a0000001' }, { text: 'x'.repeat(500) })
} catch (error) {
  console.log(`refused before sending: ${(error as Error).message}`)
}
await nc.close()
