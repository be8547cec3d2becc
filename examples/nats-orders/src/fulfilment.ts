// The fulfilment service: its own contract imports the orders contract and links placeOrder to its
// onOrderPlaced. It provisions the durable consumer it owns (the ORDERS stream is external to it:
// compared, never created), then fulfils each order once, acknowledged; it stops after EXPECTED
// orders or when nothing arrives for a while (bounded).
import { provision } from 'unplugin-contracts/runtime/nats/client'
import * as fulfilment from '../fulfilment/asyncapi.yaml'
import { allowOlderServer, connectTo } from './connection.js'

const expected = Number(process.env.EXPECTED ?? 2)
const { nc, client } = await connectTo(fulfilment)
const { plan } = await provision(fulfilment, nc, { allowOlderServer })
for (const p of plan) console.log(`fulfilment provision: ${p.kind} ${p.name} (${p.authority}) ${p.action}`)
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
