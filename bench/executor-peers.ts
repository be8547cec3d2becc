/**
 * The peers of bench/executor.ts's five-peer quorum in a process of their own, as they are deployed:
 * each peer is another service, so its work does not run on the executor's (or the scatter-gather's)
 * thread. `npx tsx bench/executor-peers.ts <server-url>`: starts both sides' peers (the responders
 * of the executor's interaction and the scatter-gather's repliers), each on a connection of its own,
 * then prints `ready`. A line `cpu` on stdin is answered with the process's CPU time so far
 * (microseconds, user + system); the end of stdin closes the connections and ends the process.
 */
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { connect } from '@nats-io/transport-node'
import type { NatsConnection } from '@nats-io/nats-core'
import { ContractCompiler } from '../dist/src/index.js'
import { formats } from '../dist/src/formats/index.js'
import { createResponder } from '../dist/src/runtime/nats/executor/index.js'
import { loadModule } from '../test/helpers/load-module.js'
import { BENCH_PEERS, quorumResponders, scatterGatherPeers } from './executor-rig.js'

const url = process.argv[2]
if (!url || !/^nats:\/\/127\.0\.0\.1:\d+$/.test(url)) throw new Error('usage: npx tsx bench/executor-peers.ts nats://127.0.0.1:<port>')
const connections: NatsConnection[] = []
const conn = async () => {
  const nc = await connect({ servers: url })
  connections.push(nc)
  return nc
}
const doc = join(import.meta.dirname, '../fixtures/nats/shop/payments/asyncapi/asyncapi.yaml')
const compiled = await new ContractCompiler({ formats }).compile(doc)
if (!compiled.code) throw new Error(JSON.stringify(compiled.diagnostics))
const mod = (await loadModule(compiled.code, 'bench-executor-peers')) as any
await quorumResponders({ createResponder }, mod, BENCH_PEERS, conn)
await scatterGatherPeers(BENCH_PEERS, conn)
process.stdout.write('ready\n')
for await (const line of createInterface({ input: process.stdin })) {
  if (line !== 'cpu') continue
  const used = process.cpuUsage()
  process.stdout.write(`${used.user + used.system}\n`)
}
for (const nc of connections) await nc.close()
