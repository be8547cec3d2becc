/**
 * `npx tsx bench/executor-timeline.ts [interactions]` (after `npm run build`): where the wall time of
 * one interaction of bench/executor.ts goes, on each side. Every connection's publications, socket
 * writes and subscription callbacks are timestamped (the nats.js transport's `send` is wrapped, so
 * a write is stamped just before it is made); for each side, alone, it prints the median time of
 * each numbered event after the start of the interaction (`exec:pub#1`: the executor's first
 * publication; `resp:recv#2`: the second request a responder received; `peer:write#3`: the third
 * reply a scatter-gather peer wrote), over `interactions` interactions (default 2,000) after as
 * many again to warm up, each side measured twice. Nothing is written to bench/results.json.
 */
import { join } from 'node:path'
import { connect } from '@nats-io/transport-node'
import type { Msg, NatsConnection, PublishOptions, SubscriptionOptions } from '@nats-io/nats-core'
import { ContractCompiler } from '../dist/src/index.js'
import { formats } from '../dist/src/formats/index.js'
import { createExecutor, createResponder } from '../dist/src/runtime/nats/executor/index.js'
import { loadModule } from '../test/helpers/load-module.js'
import { startNatsServer } from '../test/helpers/nats-server.js'
import { BENCH_PEERS, quorumExecutor, scatterGather, scatterGatherPeers } from './executor-rig.js'

const count = Math.min(Number(process.argv[2]) || 2000, 100_000)
let marks: Array<[string, number]> = []
const mark = (what: string) => marks.push([what, performance.now()])

/** The connection with its publications, writes and callbacks stamped under `role`. */
function stamped(nc: NatsConnection, role: string): NatsConnection {
  const publish = nc.publish.bind(nc)
  nc.publish = (subject: string, data?: Uint8Array | string, options?: PublishOptions) => {
    mark(`${role}:pub`)
    publish(subject, data, options)
  }
  const subscribe = nc.subscribe.bind(nc)
  nc.subscribe = (subject: string, options?: SubscriptionOptions) => {
    const callback = options?.callback
    if (!callback) return subscribe(subject, options)
    return subscribe(subject, {
      ...options,
      callback: (error: Error | null, msg: Msg) => {
        mark(`${role}:recv`)
        callback(error, msg)
      },
    })
  }
  // The socket write: nats.js's transport, reached through its protocol handler.
  const transport = (nc as unknown as { protocol: { transport: { send(data: Uint8Array): void } } }).protocol.transport
  const send = transport.send.bind(transport)
  transport.send = (data: Uint8Array) => {
    mark(`${role}:write`)
    send(data)
  }
  return nc
}

const server = await startNatsServer()
const connections: NatsConnection[] = []
const conn = async (role: string) => {
  const nc = stamped(await connect({ servers: server.url }), role)
  connections.push(nc)
  return nc
}
try {
  const doc = join(import.meta.dirname, '../fixtures/nats/shop/payments/asyncapi/asyncapi.yaml')
  const compiled = await new ContractCompiler({ formats }).compile(doc)
  if (!compiled.code) throw new Error(JSON.stringify(compiled.diagnostics))
  const mod = (await loadModule(compiled.code, 'bench-executor-timeline')) as any
  // The rig asks for the responders' connections first (one per peer), then the executor's.
  let made = 0
  const executor = await quorumExecutor({ createExecutor, createResponder }, mod, doc, BENCH_PEERS, () => conn(made++ < BENCH_PEERS.length ? 'resp' : 'exec'))
  await scatterGatherPeers(BENCH_PEERS, () => conn('peer'))
  const client = await conn('client')
  const refund = { paymentId: 'pay-12345678', amount: 10 }
  let n = 0
  const sides: Record<string, () => Promise<void>> = {
    executor: async () => {
      const answer = await executor.invoke({ principalId: 'alice', idempotencyKey: `k${n++}`, inputs: { group: 'approvers', refund } })
      if (!answer.ok || answer.value.decision.outcome !== 'success') throw new Error(`executor: ${JSON.stringify(answer)}`)
    },
    baseline: scatterGather(client),
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!
  for (const side of ['executor', 'baseline', 'executor', 'baseline']) {
    for (let i = 0; i < count; i++) await sides[side]!()
    const times = new Map<string, number[]>()
    const at = (key: string) => times.get(key) ?? times.set(key, []).get(key)!
    for (let i = 0; i < count; i++) {
      marks = []
      const start = performance.now()
      await sides[side]!()
      const end = performance.now()
      const seen = new Map<string, number>()
      for (const [what, t] of marks) {
        const k = (seen.get(what) ?? 0) + 1
        seen.set(what, k)
        at(`${what}#${k}`).push(t - start)
      }
      at('end').push(end - start)
    }
    console.log(`== ${side} (medians over ${count} interactions; events seen in fewer than half of them left out)`)
    const rows = [...times].filter(([, v]) => v.length >= count / 2).sort((a, b) => median(a[1]) - median(b[1]))
    for (const [what, v] of rows) console.log(`${what.padEnd(16)} ${(median(v) * 1000).toFixed(0).padStart(6)} us`)
  }
} finally {
  for (const nc of connections) await nc.close()
  await server.stop()
}
