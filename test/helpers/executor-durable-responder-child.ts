/**
 * A durable courier (c-ann) in a process of its own (run with `node --import tsx`), for the restart
 * test to kill with SIGKILL while it runs a request: it loads the compiled shipping module from
 * MODULE_FILE and connects to NATS_URL. It prints `ready` once it consumes, then `running` when its
 * handler starts; the handler never answers (the process is killed first).
 */
import { pathToFileURL } from 'node:url'
import { connect } from '@nats-io/transport-node'
import type { Interaction } from '../../src/runtime/nats/interactions.js'
import { createResponder, type ExecutorModule } from '../../src/runtime/nats/executor/index.js'
import { binding, quick, STREAM } from './executor-durable-config.js'

const { NATS_URL, MODULE_FILE } = process.env
if (!NATS_URL || !MODULE_FILE) throw new Error('NATS_URL and MODULE_FILE are required')
const module = (await import(pathToFileURL(MODULE_FILE).href)) as ExecutorModule & { interactions: Record<string, Interaction> }
const made = await createResponder<unknown, { accepted: boolean }>({
  connection: await connect({ servers: NATS_URL }),
  module,
  interaction: quick(module.interactions['assignCourier']!),
  peerId: 'c-ann',
  durable: { requestStream: STREAM, claimBucket: binding.claimBucket!, ackWaitMs: 1000 },
  handler: ({ signal }) => {
    process.stdout.write('running\n')
    // Bounded by an abort (the claim lost) or the process being killed.
    return new Promise<undefined>((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true }))
  },
})
if (!made.ok) throw new Error(made.message)
process.stdout.write('ready\n')
