import { connect } from '@nats-io/transport-node'
import { bindContract } from 'unplugin-contracts/runtime/nats/client'
import * as orders from '../orders.asyncapi.yaml'

/**
 * The server URL is an input (NATS_URL), never part of the contract. The demo's server is Debian's
 * nats-server 2.9, older than the contract's minimumServerVersion 2.11.0: NATS_ALLOW_OLDER_SERVER=1
 * is the development override; without it the client refuses the server.
 */
export async function ordersClient() {
  const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' })
  return { nc, client: bindContract(orders, nc, { allowOlderServer: process.env.NATS_ALLOW_OLDER_SERVER === '1' }), orders }
}
