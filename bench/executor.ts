/**
 * `npx tsx bench/executor.ts` (after `npm run build`): a five-peer quorum interaction end to end,
 * the executor (admission, audience, materialize, five requests, correlated ballots through the
 * responder helper, the decision at 4 of 5) against a hand-written nats.js scatter-gather of the
 * same messages (`requestMany` on one subject, gathering until 4 replies, counting approvals).
 * Both against a real nats-server started here, peers on connections of their own, in two
 * placements: the peers in a process of their own (bench/executor-peers.ts: each peer is another
 * service where this is deployed), row `executor-quorum-5`, and the peers on the executor's (or the
 * scatter-gather's) thread, row `executor-quorum-5-one-thread`; `--own-process` or `--one-thread`
 * measures one. Target: latency per interaction at most 1.5x the scatter-gather in both placements;
 * interactions per second reported.
 * Run alone, it merges its row into bench/results.json. `--profile <n>`: the executor side alone
 * (with `--baseline`, the scatter-gather alone) for `node --cpu-prof`, its wall and CPU time per
 * interaction printed; `--memory <n>` (under `node --expose-gc`): the bytes kept per interaction.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { connect } from '@nats-io/transport-node'
import type { NatsConnection } from '@nats-io/nats-core'
import { ContractCompiler } from '../dist/src/index.js'
import { formats } from '../dist/src/formats/index.js'
import { createExecutor, createResponder } from '../dist/src/runtime/nats/executor/index.js'
import { loadModule } from '../test/helpers/load-module.js'
import { startNatsServer } from '../test/helpers/nats-server.js'
import { BENCH_PEERS, quorumExecutor, scatterGather, scatterGatherPeers } from './executor-rig.js'
import { roundRatios } from './measure.js'
import { mergeIntoResults } from './results-file.js'

/** Interactions per timed batch: a few hundred ms a batch, so one GC pause or one slice lost to another process moves a round little. */
const BATCH = 200
const WARMUP_ROUNDS = 4

/** Where the peers run: a process of their own (bench/executor-peers.ts, as deployed), or the executor's thread. */
type Placement = 'own-process' | 'one-thread'

/** bench/executor-peers.ts started against `url`: resolves once its peers are subscribed. */
async function peersProcess(url: string): Promise<{ cpu(): Promise<number>; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'executor-peers.ts'), url], { stdio: ['pipe', 'pipe', 'inherit'] })
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
  const next = async (what: string) => {
    const timer = setTimeout(() => child.kill(), 60_000)
    const line = await lines.next()
    clearTimeout(timer)
    if (line.done) throw new Error(`bench/executor-peers.ts ended before ${what}`)
    return line.value
  }
  if ((await next('ready')) !== 'ready') throw new Error('bench/executor-peers.ts did not start')
  return {
    cpu: async () => {
      child.stdin!.write('cpu\n')
      return Number(await next('cpu'))
    },
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r))
      child.stdin!.end()
      const timer = setTimeout(() => child.kill(), 10_000)
      await exited
      clearTimeout(timer)
    },
  }
}

/** The size of a run: timed rounds, and (a smoke run's smaller ones) interactions per batch and warm-up rounds. */
export interface RunSize {
  readonly rounds: number
  readonly batch?: number
  readonly warmupRounds?: number
}

export async function executorCases(
  rounds: number | RunSize,
  placements: readonly Placement[] = ['own-process', 'one-thread'],
): Promise<Record<string, { ratio: number; met: boolean; [k: string]: unknown }>> {
  const size = typeof rounds === 'number' ? { rounds } : rounds
  const rows: Record<string, { ratio: number; met: boolean; [k: string]: unknown }> = {}
  for (const placement of placements) Object.assign(rows, await placementCase(placement, size))
  return rows
}

async function placementCase(
  placement: Placement,
  { rounds, batch = BATCH, warmupRounds = WARMUP_ROUNDS }: RunSize,
): Promise<Record<string, { ratio: number; met: boolean; [k: string]: unknown }>> {
  const server = await startNatsServer()
  const connections: NatsConnection[] = []
  const conn = async () => {
    const nc = await connect({ servers: server.url })
    connections.push(nc)
    return nc
  }
  const peers = placement === 'own-process' ? await peersProcess(server.url) : undefined
  try {
    const doc = join(import.meta.dirname, '../fixtures/nats/shop/payments/asyncapi/asyncapi.yaml')
    const compiled = await new ContractCompiler({ formats }).compile(doc)
    if (!compiled.code) throw new Error(JSON.stringify(compiled.diagnostics))
    const mod = (await loadModule(compiled.code, 'bench-executor')) as any
    const executor = await quorumExecutor({ createExecutor, createResponder }, mod, doc, BENCH_PEERS, conn, peers !== undefined)
    // The baseline's peers: one subject, each replies with its ballot to the request's inbox.
    if (!peers) await scatterGatherPeers(BENCH_PEERS, conn)
    const client = await conn()
    const refund = { paymentId: 'pay-12345678', amount: 10 }
    let n = 0
    const ours = async () => {
      const answer = await executor.invoke({ principalId: 'alice', idempotencyKey: `k${n++}`, inputs: { group: 'approvers', refund } })
      if (!answer.ok || answer.value.decision.outcome !== 'success') throw new Error(`executor: ${JSON.stringify(answer)}`)
    }
    const baseline = scatterGather(client)
    // Each round times a batch of each side, wall and CPU (user + system of the whole process:
    // executor or baseline, their peers, nats.js); on a loaded machine the wall time of a round
    // waits on other processes, the CPU time spent in it much less. The side that goes first
    // alternates round by round, so neither always runs right after the other's garbage.
    const sides = { baseline, executor: ours }
    const timeBatch = async (f: () => Promise<void>) => {
      const peersStart = peers ? await peers.cpu() : 0
      const cpuStart = process.cpuUsage()
      const start = performance.now()
      for (let i = 0; i < batch; i++) await f()
      const ms = performance.now() - start
      const used = process.cpuUsage(cpuStart)
      const peersUsed = peers ? (await peers.cpu()) - peersStart : 0
      return { ms, cpu: used.user + used.system + peersUsed }
    }
    // `--profile <n>`: the executor side alone (`--baseline`: the scatter-gather's), n interactions after a warm-up, for `node --cpu-prof`.
    const profiled = process.argv.indexOf('--profile')
    if (profiled > 0) {
      const count = Math.min(Number(process.argv[profiled + 1]) || 1000, 100_000)
      const side = process.argv.includes('--baseline') ? baseline : ours
      for (let i = 0; i < 200; i++) await side()
      const start = performance.now()
      const cpuStart = process.cpuUsage()
      for (let i = 0; i < count; i++) await side()
      const used = process.cpuUsage(cpuStart)
      console.log(
        `${side === ours ? 'executor' : 'scatter-gather'} alone: ${((performance.now() - start) / count).toFixed(3)} ms, ` +
          `${((used.user + used.system) / 1000 / count).toFixed(3)} CPU ms per interaction`,
      )
    }
    // `--memory <n>` (under `node --expose-gc`): the bytes the process keeps per interaction once the
    // executor keeps no more cores (KEPT_CORES): its idempotency record and the responders' records.
    const memory = process.argv.indexOf('--memory')
    const gc = (globalThis as { gc?: () => void }).gc
    if (memory > 0 && gc) {
      const count = Math.min(Number(process.argv[memory + 1]) || 2000, 100_000)
      for (let i = 0; i < 1100; i++) await ours()
      await new Promise((r) => setTimeout(r, 50))
      gc()
      const before = process.memoryUsage().heapUsed
      for (let i = 0; i < count; i++) await ours()
      await new Promise((r) => setTimeout(r, 50))
      gc()
      console.log(`kept per interaction: ${Math.round((process.memoryUsage().heapUsed - before) / count)} bytes`)
      if (process.env['EXEC_HEAP_SNAPSHOT']) (await import('node:v8')).writeHeapSnapshot(process.env['EXEC_HEAP_SNAPSHOT'])
    }
    // A profile or a memory reading is the whole run: no row measured or merged.
    if (profiled > 0 || memory > 0) {
      await executor.close()
      return {}
    }
    const wall = { baseline: [] as number[], executor: [] as number[] }
    const cpu = { baseline: [] as number[], executor: [] as number[] }
    for (let round = 0; round < warmupRounds + rounds; round++) {
      const order = round % 2 === 0 ? (['baseline', 'executor'] as const) : (['executor', 'baseline'] as const)
      for (const side of order) {
        const t = await timeBatch(sides[side])
        if (round < warmupRounds) continue
        wall[side].push(t.ms)
        cpu[side].push(t.cpu)
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
    const wallRatio = roundRatios(wall.executor, wall.baseline)
    const cpuRatio = roundRatios(cpu.executor, cpu.baseline)
    const executorMs = median(wall.executor)
    const baselineMs = median(wall.baseline)
    await executor.close()
    return {
      [placement === 'own-process' ? 'executor-quorum-5' : 'executor-quorum-5-one-thread']: {
        peers: placement,
        ours_ms_per_interaction: executorMs / batch,
        baseline_ms_per_interaction: baselineMs / batch,
        interactions_per_second: Math.round((1000 * batch) / executorMs),
        baseline_per_second: Math.round((1000 * batch) / baselineMs),
        ratio: wallRatio.ratio,
        spread: wallRatio.spread,
        cpu_ratio: cpuRatio.ratio,
        cpu_spread: cpuRatio.spread,
        target: '<= 1.5',
        met: wallRatio.ratio <= 1.5,
        interactions: batch,
        rounds,
        server: server.version,
      },
    }
  } finally {
    for (const nc of connections) await nc.close()
    await peers?.stop()
    await server.stop()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const only = process.argv.includes('--one-thread')
    ? (['one-thread'] as const)
    : process.argv.includes('--own-process')
      ? (['own-process'] as const)
      : undefined
  // A profile or a memory reading is of one placement: the one asked for, else the one-thread one (the whole cost in one process).
  const oneReading = process.argv.includes('--profile') || process.argv.includes('--memory')
  const rows = await executorCases(process.argv.includes('--quick') ? 5 : 21, only ?? (oneReading ? ['one-thread'] : undefined))
  console.log(rows)
  if (Object.keys(rows).length > 0) mergeIntoResults(rows)
}
