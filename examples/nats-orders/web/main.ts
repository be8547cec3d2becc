// The browser side: the same contract over nats-server's WebSocket listener. The page subscribes to
// order notes through the contract (parsed subjects, validated payloads), publishes one, and shows
// what arrives. The server URL is an input (?server=ws://...), never part of the contract.
import { wsconnect } from '@nats-io/nats-core'
import { bindContract } from 'unplugin-contracts/runtime/nats/client'
import * as orders from '../orders/asyncapi.yaml'

const status = document.getElementById('status')!
const list = document.getElementById('notes')!
const server = new URLSearchParams(location.search).get('server') ?? 'ws://127.0.0.1:8080'

const nc = await wsconnect({ servers: server })
const client = bindContract(orders, nc, { allowOlderServer: new URLSearchParams(location.search).has('dev') })
client.subscribe(
  'onNote',
  (m) => {
    const item = document.createElement('li')
    item.textContent = `${m.params.region} ${m.params.orderId}: ${m.payload.text}`
    list.append(item)
  },
  { onError: (e) => (status.textContent = `refused: ${e.code}`) },
)
await nc.flush()
client.publish('noteOrder', { region: 'eu', orderId: '0a1b2c3d' }, { text: 'sent from the browser' })
status.textContent = 'connected'
