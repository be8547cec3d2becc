/**
 * A durable executor in a process of its own (run with `node --import tsx`), for the restart test
 * to kill with SIGKILL mid-interaction: it loads the compiled shipping module from MODULE_FILE,
 * connects to NATS_URL and invokes the courier offer with idempotency key KEY. It prints `ready`
 * once the executor is made, then the answer (which a killed one never prints).
 */
import { pathToFileURL } from 'node:url'
import { connect } from '@nats-io/transport-node'
import type { Interaction } from '../../src/runtime/nats/interactions.js'
import { createExecutor, type ExecutorModule } from '../../src/runtime/nats/executor/index.js'
import { binding, COURIERS, quick, shipmentInputs } from './executor-durable-config.js'

const deployment = { senderPeerId: 'treasurer', scopeId: 'shop', systemId: 'sys', accountId: 'acct', jetstreamDomain: 'hub', policyRevision: 'p1' }

const { NATS_URL, MODULE_FILE, DIGEST, KEY } = process.env
if (!NATS_URL || !MODULE_FILE || !DIGEST || !KEY) throw new Error('NATS_URL, MODULE_FILE, DIGEST and KEY are required')
const module = (await import(pathToFileURL(MODULE_FILE).href)) as ExecutorModule & { interactions: Record<string, Interaction> }
const nc = await connect({ servers: NATS_URL })
const made = createExecutor({
  connection: nc,
  module,
  interaction: quick(module.interactions['assignCourier']!),
  contractDigest: DIGEST,
  deployment,
  durable: binding,
  adapters: { audience: () => ({ revision: 'r3', peers: COURIERS }), authorization: () => ({ allowed: true }) },
})
if (!made.ok) throw new Error(made.message)
process.stdout.write('ready\n')
const answer = await made.value.invoke({ principalId: 'dispatcher', idempotencyKey: KEY, inputs: shipmentInputs })
process.stdout.write(`${JSON.stringify(answer)}\n`)
await made.value.close()
await nc.close()
