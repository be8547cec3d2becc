import { connect } from '@nats-io/transport-node'
import { bindContract, type ContractModule } from 'unplugin-contracts/runtime/nats/client'

/**
 * The server URL is an input (NATS_URL), never part of a contract. The demo's server is Debian's
 * nats-server 2.9, older than the contracts' minimumServerVersion 2.11.0: NATS_ALLOW_OLDER_SERVER=1
 * is the development override; without it the client refuses the server.
 */
export const allowOlderServer = process.env.NATS_ALLOW_OLDER_SERVER === '1'

export async function connectTo<M extends ContractModule>(contract: M) {
  const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' })
  return { nc, client: bindContract(contract, nc, { allowOlderServer }) }
}
