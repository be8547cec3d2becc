// Places three orders with JetStream (one of them twice: the stream keeps one), after provisioning
// the contract's stream and consumer.
import { provision } from 'unplugin-contracts/runtime/nats/client'
import type { OrderPlaced } from '../orders.asyncapi.yaml'
import { ordersClient } from './connection.js'

const { nc, client, orders } = await ordersClient()
const { plan } = await provision(orders, nc, { allowOlderServer: process.env.NATS_ALLOW_OLDER_SERVER === '1' })
for (const p of plan) console.log(`provision: ${p.kind} ${p.name} ${p.action}`)

const placed: OrderPlaced[] = [
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
