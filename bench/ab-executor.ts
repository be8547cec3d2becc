/**
 * `npx tsx bench/ab-executor.ts <before-root> <after-root> [rounds]`: two builds of this package's
 * executor (each root holds a `package.json` and a `dist/`, e.g. a copy of an earlier build) running
 * bench/executor.ts's five-peer quorum interaction in one process, each on a nats-server of its own,
 * batches alternated (the side that goes first alternating too), so that a busy machine's slow
 * spells fall on both. The contract is compiled by each build and its module written under that
 * root, so each side's generated code uses its own runtime. Prints the median wall and CPU time per
 * interaction of each side and the medians of the per-round ratios (after / before).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { connect } from '@nats-io/transport-node'
import type { NatsConnection } from '@nats-io/nats-core'
import { startNatsServer } from '../test/helpers/nats-server.js'
import { BENCH_PEERS, quorumExecutor } from './executor-rig.js'
import { roundRatios } from './measure.js'

const [beforeRoot, afterRoot, rounds = '30'] = process.argv.slice(2)
if (!beforeRoot || !afterRoot) throw new Error('usage: npx tsx bench/ab-executor.ts <before-root> <after-root> [rounds]')
const BATCH = 200
const WARMUP_ROUNDS = 4
const doc = join(import.meta.dirname, '../fixtures/nats/shop/payments/asyncapi/asyncapi.yaml')
const servers: Array<{ stop(): Promise<void> }> = []
const connections: NatsConnection[] = []

/** One side: its build's compiler, module, responders and executor on its own server; returns one interaction. */
async function side(root: string, name: string): Promise<() => Promise<void>> {
  const dist = (p: string) => import(pathToFileURL(join(resolve(root), 'dist', p)).href)
  const { ContractCompiler } = await dist('src/index.js')
  const { formats } = await dist('src/formats/index.js')
  const { createExecutor, createResponder } = await dist('src/runtime/nats/executor/index.js')
  const compiled = await new ContractCompiler({ formats }).compile(doc)
  if (!compiled.code) throw new Error(JSON.stringify(compiled.diagnostics))
  const dir = join(resolve(root), 'bench/.work/ab-executor')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `${name}-${process.pid}.mjs`)
  writeFileSync(file, compiled.code)
  const mod = await import(pathToFileURL(file).href)
  const server = await startNatsServer()
  servers.push(server)
  const conn = async () => {
    const nc = await connect({ servers: server.url })
    connections.push(nc)
    return nc
  }
  const executor = await quorumExecutor({ createExecutor, createResponder }, mod, doc, BENCH_PEERS, conn)
  const refund = { paymentId: 'pay-12345678', amount: 10 }
  let n = 0
  return async () => {
    const answer = await executor.invoke({ principalId: 'alice', idempotencyKey: `k${n++}`, inputs: { group: 'approvers', refund } })
    if (!answer.ok || answer.value.decision.outcome !== 'success') throw new Error(`${name}: ${JSON.stringify(answer)}`)
  }
}

try {
  const sides = { before: await side(beforeRoot, 'before'), after: await side(afterRoot, 'after') }
  const wall = { before: [] as number[], after: [] as number[] }
  const cpu = { before: [] as number[], after: [] as number[] }
  for (let round = 0; round < WARMUP_ROUNDS + Number(rounds); round++) {
    const order = round % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const)
    for (const s of order) {
      const cpuStart = process.cpuUsage()
      const start = performance.now()
      for (let i = 0; i < BATCH; i++) await sides[s]()
      const ms = performance.now() - start
      const used = process.cpuUsage(cpuStart)
      if (round < WARMUP_ROUNDS) continue
      wall[s].push(ms / BATCH)
      cpu[s].push((used.user + used.system) / 1000 / BATCH)
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const w = roundRatios(wall.after, wall.before)
  const c = roundRatios(cpu.after, cpu.before)
  console.log(
    `before: ${median(wall.before).toFixed(3)} ms, ${median(cpu.before).toFixed(3)} CPU ms per interaction; ` +
      `after: ${median(wall.after).toFixed(3)} ms, ${median(cpu.after).toFixed(3)} CPU ms\n` +
      `after/before: wall ${w.ratio.toFixed(3)} [${w.spread.map((x) => x.toFixed(2)).join(', ')}], ` +
      `CPU ${c.ratio.toFixed(3)} [${c.spread.map((x) => x.toFixed(2)).join(', ')}] (${rounds} rounds of ${BATCH})`,
  )
} finally {
  for (const nc of connections) await nc.close()
  for (const s of servers) await s.stop()
}
