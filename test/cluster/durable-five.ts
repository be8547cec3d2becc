/**
 * The durable executor on a 5-node cluster of its own (beside the provisioning suite's, not after
 * it: sharing that cluster made this file's longest suite 5 to 15 s longer), every stream and bucket with five
 * replicas (the binding's `replicas`): the claim bucket's leader frozen (SIGSTOP) while the
 * couriers' handlers run, then thawed (SIGCONT); the node leading a courier's durable consumer
 * (placed there by step-down) killed mid-interaction; two nodes killed mid-interaction, the request
 * stream's leader first (three of five remain: every group keeps its quorum). The invariants of
 * every fault test are checked by one helper (./invariants.ts).
 */
import { describe, expect, it } from 'vitest'
import { operationId } from '../../src/runtime/nats/interactions.js'
import { shipmentInputs } from '../helpers/executor-durable-config.js'
import { NATS_SERVER } from '../helpers/nats-cluster.js'
import { until } from '../helpers/until.js'
import { durableClusterSuite, STREAM } from './durable-world.js'
import { bounded, expectFanOutSettled } from './invariants.js'
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
      "the node leading a courier's durable consumer killed mid-interaction (its leader placed by step-down on a node that neither leads the request stream nor holds the courier's or the executor's connection): the courier's deliveries go on from the new leader, nothing lost, nothing handled twice, decided once; the node restarted",
      async () => {
        const c = cluster()
        const interaction = fanOut(suite.world)
        let release!: () => void
        const gate = new Promise<void>((resolve) => (release = resolve))
        suite.world.reset()
        const streamLeader = await c.streamLeader(STREAM)
        // c-ann and the executor on one node that does not lead the stream; the other couriers elsewhere.
        const home = c.nodes.find((n) => n.name !== streamLeader)!
        const everywhere = (first: string) => [first, ...c.servers.filter((s) => s !== first)]
        await suite.world.couriers(interaction, {
          'c-ann': { accepted: true, gate, servers: everywhere(home.url) },
          'c-bob': { accepted: false, servers: everywhere(c.nodes.find((n) => n !== home)!.url) },
          'c-cat': { accepted: true, servers: everywhere(c.nodes.find((n) => n !== home)!.url) },
        })
        const consumer = 'exec-assignCourier-c-ann'
        const doomed = await c.placeConsumerLeader(STREAM, consumer, (name) => name !== streamLeader && name !== home.name)
        const ex = suite.world.executor(interaction, await suite.world.open(everywhere(home.url)))
        const invocations = ['five-consumer-leader-1', 'five-consumer-leader-2'].map((idempotencyKey) => ({
          principalId: 'dispatcher',
          idempotencyKey,
          inputs: shipmentInputs,
        }))
        const [id1, id2] = await Promise.all(invocations.map((i) => operationId(i.principalId, suite.world.digest, i.idempotencyKey)))
        let killed: string | undefined
        try {
          // The first offer reaches c-ann through the doomed leader; its handler is still working when the node dies.
          const first = ex.invoke(invocations[0]!)
          await until('c-ann handling the first offer', () => (suite.world.handled.get('c-ann') === 1 ? true : undefined), 30_000)
          const acknowledged1 = await suite.world.subjects(`shipping.couriers.${id1}.offer.*`)
          await c.kill(doomed)
          killed = doomed
          const elected = await c.consumerLeader(STREAM, consumer, 60_000, doomed)
          expect(elected).not.toBe(doomed)
          // The second offer is delivered by the new leader while the first is still being handled.
          const second = ex.invoke(invocations[1]!)
          await until('c-ann handling the second offer', () => (suite.world.handled.get('c-ann') === 2 ? true : undefined), 60_000)
          const acknowledged2 = await suite.world.subjects(`shipping.couriers.${id2}.offer.*`)
          release()
          const results = await bounded('both offers decided', Promise.all([first, second]), 160_000)
          for (const [result, acknowledged] of [
            [results[0], acknowledged1],
            [results[1], acknowledged2],
          ] as const) {
            if (!result.ok) throw new Error(result.message)
            expectFanOutSettled(result.value)
            await suite.world.invariants(interaction, ex, result.value, acknowledged)
          }
          // Each offer handled once (a redelivery of a running request is not run again), none aborted; every offer acknowledged.
          expect([Object.fromEntries(suite.world.handled), Object.fromEntries(suite.world.aborted)]).toEqual([{ 'c-ann': 2, 'c-bob': 2, 'c-cat': 2 }, {}])
          const settled = await until(
            "c-ann's consumer settled on its new leader",
            async () => {
              const info = await suite.world.jsm.consumers.info(STREAM, consumer).catch(() => undefined)
              return info && info.num_pending === 0 && info.num_ack_pending === 0 ? info : undefined
            },
            30_000,
            200,
          )
          expect(settled.delivered.stream_seq).toBeGreaterThan(0)
        } finally {
          release()
          await ex.close()
          await suite.world.closeCouriers()
          if (killed) await suite.whole(killed)
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
