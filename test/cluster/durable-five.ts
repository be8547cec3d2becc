/**
 * The durable executor on a 5-node cluster of its own (beside the provisioning suite's, not after
 * it: sharing that cluster made this file's longest suite 5 to 15 s longer), every stream and bucket with five
 * replicas (the binding's `replicas`): the claim bucket's leader frozen (SIGSTOP) while the
 * couriers' handlers run, then thawed (SIGCONT); two nodes killed mid-interaction, the request
 * stream's leader first (three of five remain: every group keeps its quorum). The invariants of
 * every fault test are checked by one helper (./invariants.ts).
 */
import { describe, expect, it } from 'vitest'
import { operationId } from '../../src/runtime/nats/interactions.js'
import { shipmentInputs } from '../helpers/executor-durable-config.js'
import { NATS_SERVER } from '../helpers/nats-cluster.js'
import { until } from '../helpers/until.js'
import { durableClusterSuite, STREAM } from './durable-world.js'
import { bounded } from './invariants.js'
import { couriersWorkingThrough, fanOut } from './working-through.js'

/**
 * Registers this suite; `test/cluster.test.ts` runs it beside the other cluster suites (each on its
 * own cluster), its tests in order.
 */
export function durableOnFiveNodes(): void {
  describe.skipIf(!NATS_SERVER)('the durable executor on a 5-node JetStream cluster, every stream and bucket with five replicas, under faults', () => {
    const suite = durableClusterSuite(5, 'f', 'durable-five')
    const cluster = () => suite.cluster

    it.sequential(
      'a node frozen (SIGSTOP) under the claim bucket, its leader, while every courier handler runs and renews its claim, then thawed (SIGCONT): no handler aborted, each finishes on its first attempt, decided once',
      async () => {
        const c = cluster()
        let frozen: string | undefined
        try {
          await couriersWorkingThrough(suite.world, c, 'five-frozen', {
            strike: async (claimStream) => {
              frozen = await c.streamLeader(claimStream)
              await c.freeze(frozen)
              // The others elect without it (bounded); the frozen leader learns of it when thawed.
              await c.newStreamLeader(claimStream, frozen)
            },
            heal: async () => {
              if (frozen) await c.thaw(frozen)
            },
          })
        } finally {
          if (frozen) await c.thaw(frozen)
          await c.ready()
          await c.streamLeader(STREAM)
        }
        // Replicas passed through: the couriers stream and both buckets the executor and responders created hold five.
        for (const stream of [STREAM, `KV_${suite.world.binding.stateBucket}`, `KV_${suite.world.binding.claimBucket!}`]) {
          const info = await suite.world.jsm.streams.info(stream)
          expect([stream, info.config.num_replicas, 1 + (info.cluster?.replicas?.length ?? 0)]).toEqual([stream, 5, 5])
        }
      },
    )

    it.sequential(
      'two nodes killed mid-interaction (the request stream leader, then another; three of five keep every quorum): the offers reach the couriers, decided once, nothing acknowledged lost',
      async () => {
        const c = cluster()
        const interaction = fanOut(suite.world)
        let release!: () => void
        const gate = new Promise<void>((resolve) => (release = resolve))
        suite.world.handled.clear()
        const leader = await c.streamLeader(STREAM)
        // The executor and the couriers on the nodes that stay (the leader and one other are killed).
        const doomed = [leader, c.nodes.find((n) => n.name !== leader)!.name]
        const staying = c.nodes.filter((n) => !doomed.includes(n.name)).map((n) => n.url)
        const everywhere = (first: string) => [first, ...c.servers.filter((s) => s !== first)]
        await suite.world.couriers(interaction, {
          'c-ann': { accepted: true, gate, servers: everywhere(c.node(doomed[0]!).url) },
          'c-bob': { accepted: false, servers: everywhere(c.node(doomed[1]!).url) },
          'c-cat': { accepted: true, gate, servers: everywhere(staying[0]!) },
        })
        const invocation = { principalId: 'dispatcher', idempotencyKey: 'five-two-killed', inputs: shipmentInputs }
        const id = await operationId(invocation.principalId, suite.world.digest, invocation.idempotencyKey)
        const ex = suite.world.executor(interaction, await suite.world.open(everywhere(staying[1]!)))
        try {
          const answer = ex.invoke(invocation)
          await until('every courier handling its offer', () => (suite.world.handled.size === 3 ? true : undefined), 30_000)
          const acknowledged = await suite.world.subjects(`shipping.couriers.${id}.offer.*`)
          await c.kill(doomed[0]!)
          await c.kill(doomed[1]!)
          await c.newStreamLeader(STREAM, leader)
          await c.ready()
          await c.streamLeader(`KV_${suite.world.binding.claimBucket!}`)
          release()
          const result = await bounded('the fan-out decided', answer, 160_000)
          if (!result.ok) throw new Error(result.message)
          expect(result.value.decision).toMatchObject({ outcome: 'success', reason: 'settled' })
          expect(Object.fromEntries(result.value.state.branches.map((b) => [b.branchId, b.status]))).toEqual({
            'c-ann': 'succeeded',
            'c-bob': 'unsuccessful',
            'c-cat': 'succeeded',
          })
          await suite.world.invariants(interaction, ex, result.value, acknowledged)
        } finally {
          release()
          await ex.close()
          await suite.world.closeCouriers()
          // The file's last use of this cluster: it is stopped whole after it (no restart to wait for).
        }
      },
    )
  })
}
