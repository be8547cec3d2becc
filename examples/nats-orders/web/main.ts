// The browser side: the same contract over nats-server's WebSocket listener. The page subscribes to
// order notes through the contract (parsed subjects, validated payloads), publishes one, and shows
// what arrives. The server URL is an input (?server=ws://...), never part of the contract.
import { wsconnect, type NatsConnection } from '@nats-io/nats-core'
import { bindContract, ContractClientError } from 'unplugin-contracts/runtime/nats/client'
import * as orders from '../orders/asyncapi.yaml'

const status = document.getElementById('status')!
const list = document.getElementById('notes')!
const query = new URLSearchParams(location.search)
const server = query.get('server') ?? 'ws://127.0.0.1:8080'

/** What the reader sees when the page cannot go on: what failed and what to do, never an uncaught error. */
function failed(problem: string, remedy: string): void {
  status.className = 'error'
  status.replaceChildren(Object.assign(document.createElement('strong'), { textContent: problem }), ' ', remedy)
}

async function connected(): Promise<NatsConnection | undefined> {
  try {
    return await wsconnect({ servers: server, timeout: 5_000 })
  } catch {
    failed(
      `No NATS server is reachable at ${server}.`,
      'Start one with its WebSocket listener (nats-server -c examples/nats-orders/web/nats-server.conf listens on ws://127.0.0.1:8080), or point the page at yours with ?server=ws://host:port, then reload.',
    )
    return undefined
  }
}

const nc = await connected()
if (nc) {
  try {
    const client = bindContract(orders, nc, { allowOlderServer: query.has('dev') })
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
    // A server that goes away later is said too, not left as a stale "connected".
    void nc
      .closed()
      .then((error) => failed(`The connection to ${server} closed${error ? `: ${error.message}` : ''}.`, 'Reload the page once the server is back.'))
  } catch (error) {
    await nc.close()
    if (error instanceof ContractClientError && error.code === 'SERVER_TOO_OLD')
      failed(`The server at ${server} is refused: ${error.message}`, 'For a development server, add &dev to the address (the development-server override).')
    else failed(`The page stopped: ${error instanceof Error ? error.message : String(error)}`, '')
  }
}
