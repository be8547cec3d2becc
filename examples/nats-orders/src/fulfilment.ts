// Fulfils orders from the contract's durable consumer: each order once, acknowledged; stops after
// EXPECTED orders or when nothing arrives for a while (bounded).
import { ordersClient } from './connection.js'

const expected = Number(process.env.EXPECTED ?? 2)
const { nc, client } = await ordersClient()
let seen = 0
const idle = setTimeout(() => void stop('no more orders'), 10_000)
const consumer = await client.consume(
  'onOrderPlaced',
  (m) => {
    console.log(`fulfil ${m.params.region} ${m.payload.orderId}: ${m.payload.total} ${m.payload.currency} (delivery ${m.deliveryCount})`)
    m.ack()
    if (++seen === expected) void stop('done')
  },
  { onError: (e) => console.log(`not for us: ${e.code}`) },
)
console.log('fulfilment ready')

async function stop(why: string) {
  clearTimeout(idle)
  await consumer.stop()
  await nc.close()
  console.log(`fulfilment stopped: ${why} (${seen} orders)`)
}
