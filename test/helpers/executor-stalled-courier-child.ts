/**
 * A durable courier in a process of its own (`node --import tsx`), for the cluster test that stops
 * it with SIGSTOP past its lease and lets it go on with SIGCONT: a truly stalled process, not a
 * stalled clock. It imports the runtime through the package (dist/, plain JavaScript: the child
 * starts fast) and the compiled shipping module from MODULE_FILE, connects to NATS_SERVERS (comma
 * separated, the first where it connects) and consumes as PEER with a LEASE_MS lease renewed every
 * RENEW_MS. It prints `ready` once it consumes, `running <attempt> <fence>` when its handler
 * starts and `returned <attempt>` when it answers; the handler works WORK_MS of its own time (timers, which stand still while the process is
 * stopped), then answers `accepted: true`. On `exit` (a line on stdin) it closes and prints
 * `closed <results published>`, then exits with status 0.
 */
import { pathToFileURL } from 'node:url'
import { createInterface } from 'node:readline'
import { connect } from '@nats-io/transport-node'
import { createResponder, type ExecutorModule } from 'unplugin-contracts/runtime/nats/executor'
import type { Interaction } from '../../src/runtime/nats/interactions.js'
import { binding, clusterOptions, patient, STREAM } from './executor-durable-config.js'

const { NATS_SERVERS, MODULE_FILE, PEER, LEASE_MS, RENEW_MS, WORK_MS, REPLICAS } = process.env
if (!NATS_SERVERS || !MODULE_FILE || !PEER || !LEASE_MS || !RENEW_MS || !WORK_MS || !REPLICAS)
  throw new Error('NATS_SERVERS, MODULE_FILE, PEER, LEASE_MS, RENEW_MS, WORK_MS and REPLICAS are required')
const module = (await import(pathToFileURL(MODULE_FILE).href)) as ExecutorModule & { interactions: Record<string, Interaction> }
const interaction = patient(module.interactions['assignCourier']!, 150_000, {}, { leaseMs: Number(LEASE_MS), renewEveryMs: Number(RENEW_MS) })
const nc = await connect(clusterOptions(NATS_SERVERS.split(',')))
const made = await createResponder<unknown, { accepted: boolean }>({
  connection: nc,
  module,
  interaction: interaction as never,
  peerId: PEER,
  durable: { requestStream: STREAM, claimBucket: binding.claimBucket!, ackWaitMs: 1000, replicas: Number(REPLICAS) as 3 },
  handler: async ({ attempt, fence }) => {
    process.stdout.write(`running ${attempt} ${fence}\n`)
    // Work that takes its time on the process's own clock; an abort is not heeded (the work cannot be undone).
    await new Promise((resolve) => setTimeout(resolve, Number(WORK_MS)))
    process.stdout.write(`returned ${attempt}\n`)
    return { accepted: true }
  },
})
if (!made.ok) throw new Error(made.message)
const responder = made.value
process.stdout.write('ready\n')
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() !== 'exit') continue
  await responder.close()
  await nc.close()
  process.stdout.write(`closed ${responder.published()}\n`)
  break
}
process.exit(0)
