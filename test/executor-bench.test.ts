/**
 * bench/executor.ts, the executor's latency bench, run small: both placements of the peers (a process
 * of their own, and the executor's thread) end to end against a real nats-server, each row shaped as
 * bench/results.json holds it. No duration is asserted (bounds on time belong in bench/): the run
 * shows the bench works as written. And the comparison is fair: the scatter-gather sends the same
 * messages as the executor (an operation id of the same shape, the contract's channel, replies with
 * the same members), read off the server by a subscriber of the test's own.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect } from '@nats-io/transport-node'
import type { NatsConnection } from '@nats-io/nats-core'
import { executorCases } from '../bench/executor.js'
import { BENCH_PEERS, quorumExecutor, scatterGather, scatterGatherPeers } from '../bench/executor-rig.js'
import { ContractCompiler } from '../src/index.js'
import { createExecutor, createResponder } from '../src/runtime/nats/executor/index.js'
import { loadModule } from './helpers/load-module.js'
import { NATS_SERVER, startNatsServer, type NatsServer } from './helpers/nats-server.js'

const doc = join(import.meta.dirname, '../fixtures/nats/shop/payments/asyncapi/asyncapi.yaml')

describe.skipIf(!NATS_SERVER)('bench/executor.ts', () => {
  it('measures both placements of the peers and writes each row as results.json holds it', async () => {
    const rows = await executorCases({ rounds: 1, batch: 5, warmupRounds: 1 })
    expect(Object.keys(rows).sort()).toEqual(['executor-quorum-5', 'executor-quorum-5-one-thread'])
    for (const [key, row] of Object.entries(rows)) {
      expect(row.peers, key).toBe(key === 'executor-quorum-5' ? 'own-process' : 'one-thread')
      expect(row.ratio, key).toBeGreaterThan(0)
      expect(Number.isFinite(row.ratio), key).toBe(true)
      expect(row.met, key).toBe(row.ratio <= 1.5)
      expect(row.target, key).toBe('<= 1.5')
      expect(row['interactions'], key).toBe(5)
      expect(row['interactions_per_second'], key).toBeGreaterThan(0)
      expect(row['cpu_ratio'], key).toBeGreaterThan(0)
    }
  }, 120_000)

  describe('the scatter-gather sends the executor’s messages', () => {
    let server: NatsServer
    const connections: NatsConnection[] = []
    const conn = async () => {
      const nc = await connect({ servers: server.url })
      connections.push(nc)
      return nc
    }
    beforeAll(async () => {
      server = await startNatsServer()
    }, 60_000)
    afterAll(async () => {
      for (const nc of connections) await nc.close()
      await server?.stop()
    })

    it('an operation id of the same shape on the contract’s channel, and replies with the same members as the results', async () => {
      const compiled = await new ContractCompiler().compile(doc)
      const mod = (await loadModule(compiled.code!, 'executor-bench')) as any
      const executor = await quorumExecutor({ createExecutor, createResponder }, mod, doc, BENCH_PEERS, conn)
      await scatterGatherPeers(BENCH_PEERS, conn)
      const seen: Array<{ subject: string; data: Record<string, unknown> }> = []
      const spy = await conn()
      spy.subscribe('>', {
        callback: (_e, m) => {
          if (m.subject.startsWith('payments.') || m.subject.startsWith('_INBOX.')) seen.push({ subject: m.subject, data: m.json() })
        },
      })
      await spy.flush()
      const answer = await executor.invoke({
        principalId: 'alice',
        idempotencyKey: 'same-messages',
        inputs: { group: 'approvers', refund: { paymentId: 'pay-12345678', amount: 10 } },
      })
      expect(answer.ok).toBe(true)
      await scatterGather(await conn())()
      await spy.flush()
      await executor.close()
      const ours = seen.filter((m) => /\.vote\.[a-z]+$/.test(m.subject))
      const oursResults = seen.filter((m) => /\.ballot\.[a-z]+$/.test(m.subject))
      const theirs = seen.filter((m) => /^payments\.refunds\.[^.]+\.vote$/.test(m.subject))
      const theirReplies = seen.filter((m) => m.subject.startsWith('_INBOX.'))
      expect(ours).toHaveLength(BENCH_PEERS.length)
      expect(theirs).toHaveLength(1)
      expect(theirReplies.length).toBeGreaterThanOrEqual(4)
      const id = (m: { data: Record<string, unknown> }) => String(m.data['operationId'])
      expect(id(ours[0]!)).toMatch(/^op[0-9a-f]{64}$/)
      expect(id(theirs[0]!)).toMatch(/^op[0-9a-f]{64}$/)
      // The same channel: the executor's request subject without its peer token.
      expect(theirs[0]!.subject.replace(id(theirs[0]!), '<op>')).toBe(ours[0]!.subject.replace(id(ours[0]!), '<op>').replace(/\.[a-z]+$/, ''))
      // The scatter-gather's one request carries what every executor request shares (the peer's members are its own).
      const shared = Object.keys(ours[0]!.data).filter((k) => !['attempt', 'branchId', 'fence', 'peerId'].includes(k))
      expect(Object.keys(theirs[0]!.data).sort()).toEqual(shared.sort())
      expect(Object.keys(theirReplies[0]!.data).sort()).toEqual(Object.keys(oursResults[0]!.data).sort())
    }, 60_000)
  })
})
