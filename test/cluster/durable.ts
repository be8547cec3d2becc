/**
 * The durable executor (durable state, durable-per-recipient delivery, KV claims) on a real 3-node
 * JetStream cluster, under faults (test/helpers/nats-cluster.ts): the shop bundle's courier offer
 * with every stream and bucket replicated three times (the binding's `replicas`); a follower, then
 * the request stream's leader, killed mid-interaction; the claim bucket's leader killed while the
 * couriers' handlers run and renew their claims; an executor killed (its connection closed under
 * it) and resumed by another on another node. The invariants of every fault test are checked by
 * one helper (./invariants.ts).
 */
import { describe, expect, it } from 'vitest'
import type { Interaction } from '../../src/runtime/nats/interactions.js'
import { operationId } from '../../src/runtime/nats/interactions.js'
import { shipmentInputs } from '../helpers/executor-durable-config.js'
import { groupPeers, NATS_SERVER } from '../helpers/nats-cluster.js'
import { until } from '../helpers/until.js'
import { durableClusterSuite, onCluster, STREAM } from './durable-world.js'
import { bounded } from './invariants.js'
import { couriersWorkingThrough, fanOut } from './working-through.js'

/**
 * Registers this suite; `test/cluster.test.ts` runs it beside the other cluster suites (each on its
 * own cluster), its tests in order.
 */
export function durableOnCluster(): void {
  describe.skipIf(!NATS_SERVER)('the durable executor on a 3-node JetStream cluster, under faults', () => {
    const suite = durableClusterSuite(3, 'd', 'durable')
    /** The streams a durable interaction needs: the couriers stream and the two buckets. */
    const streams = () => [STREAM, `KV_${suite.world.binding.stateBucket}`, `KV_${suite.world.binding.claimBucket!}`]
    /** The next test starts on a whole cluster. */
    const whole = (killed: string | undefined) => suite.whole(killed)

    it.sequential(
      'a durable fan-out while a follower, then the request stream leader, is killed mid-interaction: decided once, every acknowledged offer stored once per attempt, no vote from a stale fence, branches reported per the profile',
      async () => {
        const interaction = fanOut(suite.world)
        const [n1, n2, n3] = suite.cluster.nodes.map((n) => n.url) as [string, string, string]
        suite.world.handled.clear()
        // c-bob declines at once; c-ann and c-cat are offline: their offers wait in the stream through both faults.
        await suite.world.couriers(interaction, { 'c-bob': { accepted: false, servers: [n2, n3, n1] } })
        const invocation = { principalId: 'dispatcher', idempotencyKey: 'cluster-fanout', inputs: shipmentInputs }
        const id = await operationId(invocation.principalId, suite.world.digest, invocation.idempotencyKey)
        const ex = suite.world.executor(interaction, await suite.world.open([n1, n2, n3]))
        let killed: string | undefined
        try {
          const answer = ex.invoke(invocation)
          await until('c-bob handling its offer', () => ((suite.world.handled.get('c-bob') ?? 0) > 0 ? true : undefined), 30_000)
          const acknowledged = await until(
            'the offers to c-ann and c-cat acknowledged by the stream',
            async () => {
              const offers = await suite.world.subjects(`shipping.couriers.${id}.offer.*`)
              return Object.keys(offers).length === 3 ? offers : undefined
            },
            30_000,
          )
          const leader = await suite.cluster.streamLeader(STREAM)
          const follower = suite.cluster.nodes.find((n) => n.name !== leader)!.name
          // One fault at a time: with a follower down, the leader's death would leave one node of three (no quorum).
          await suite.cluster.kill(follower)
          await suite.cluster.restart(follower)
          await suite.cluster.ready()
          await suite.cluster.streamLeader(STREAM)
          killed = await suite.cluster.killStreamLeader(STREAM)
          await suite.cluster.newStreamLeader(STREAM, killed)
          // A courier starting opens the claim bucket: it waits for that bucket's election too (a node may lead both).
          for (const stream of streams().slice(1)) await suite.cluster.streamLeader(stream)
          // The offline couriers connect now, to the surviving nodes: the offers the old leader acknowledged reach them.
          const survivors = suite.cluster.runningServers()
          await suite.world.couriers(interaction, {
            'c-ann': { accepted: true, servers: survivors },
            'c-cat': { accepted: true, servers: [...survivors].reverse() },
          })
          const result = await bounded('the fan-out decided', answer, 160_000)
          if (!result.ok) throw new Error(result.message)
          expect(result.value.operationId).toBe(id)
          expect(result.value.decision).toMatchObject({ outcome: 'success', reason: 'settled' })
          expect(Object.fromEntries(result.value.state.branches.map((b) => [b.branchId, b.status]))).toEqual({
            'c-ann': 'succeeded',
            'c-bob': 'unsuccessful',
            'c-cat': 'succeeded',
          })
          await suite.world.invariants(interaction, ex, result.value, acknowledged)
        } finally {
          await ex.close()
          await suite.world.closeCouriers()
          await whole(killed)
        }
      },
    )

    it.sequential(
      'replicas passed through: the couriers stream, the state bucket and the claim bucket the executor and responders created hold the three replicas their binding asks; five asked over a stream of three is refused in a sentence',
      async () => {
        for (const stream of [STREAM, `KV_${suite.world.binding.stateBucket}`, `KV_${suite.world.binding.claimBucket!}`]) {
          const info = await suite.world.jsm.streams.info(stream)
          expect([stream, info.config.num_replicas, groupPeers(info.cluster).length]).toEqual([stream, 3, 3])
        }
        // Asking five of buckets that exist (used as they are) over a couriers stream of three: refused, in a sentence.
        const five = suite.world.executor(fanOut(suite.world), await suite.world.open(suite.cluster.servers), { replicas: 5 })
        const refused = await bounded('the refusal', five.invoke({ principalId: 'dispatcher', idempotencyKey: 'replicas-5', inputs: shipmentInputs }), 60_000)
        await five.close()
        expect(refused).toEqual({
          ok: false,
          code: 'EXECUTOR_STATE_FAILED',
          message: `stream ${STREAM} has 3 replicas, fewer than the 5 the binding asks for its state and claims (provision the contract's num_replicas, or ask fewer)`,
        })
      },
    )

    it.sequential(
      'couriers working through an election (the claim bucket leader killed while every handler runs and renews its claim): no handler aborted, each finishes on its first attempt, results admitted with their committed fences, decided once',
      async () => {
        let killed: string | undefined
        try {
          await couriersWorkingThrough(suite.world, suite.cluster, 'cluster-election', {
            strike: async (claimStream) => {
              killed = await suite.cluster.killStreamLeader(claimStream)
              await suite.cluster.newStreamLeader(claimStream, killed)
            },
          })
        } finally {
          await whole(killed)
        }
      },
    )

    it.sequential(
      'an executor killed mid-interaction (its connection closed under it) on one node is resumed by another on another node: decided once',
      async () => {
        const interaction = onCluster(suite.world.module.interactions.assignCourier as Interaction)
        const [n1, n2, n3] = suite.cluster.nodes.map((n) => n.url) as [string, string, string]
        let release!: () => void
        const gate = new Promise<void>((resolve) => (release = resolve))
        suite.world.handled.clear()
        await suite.world.couriers(interaction, { 'c-ann': { accepted: true, gate, servers: [n2, n3, n1] } })
        const invocation = { principalId: 'dispatcher', idempotencyKey: 'cluster-resume', inputs: shipmentInputs }
        const id = await operationId(invocation.principalId, suite.world.digest, invocation.idempotencyKey)
        const first = await suite.world.open([n1])
        const a = suite.world.executor(interaction, first)
        let killed = a.invoke(invocation)
        // An admission a settling cluster refuses (the previous test's node just restarted) is tried
        // again with the same idempotency key, as an application would (bounded); the offer then
        // reaches c-ann, whose handler waits at the gate.
        for (let tries = 0; ; tries++) {
          let ended: Awaited<typeof killed> | undefined
          void killed.then((r) => (ended = r))
          const handled = () => (suite.world.handled.get('c-ann') ?? 0) > 0
          await until('c-ann handling its offer', () => (handled() || ended ? true : undefined), 60_000).catch(async (error: unknown) => {
            const consumer = await suite.world.jsm.consumers.info(STREAM, 'exec-assignCourier-c-ann').catch((e: unknown) => String(e))
            const offers = await suite.world.subjects(`shipping.couriers.${id}.offer.*`).catch((e: unknown) => String(e))
            throw new Error(`${String(error)}; offers ${JSON.stringify(offers)}; consumer ${JSON.stringify(consumer)}`)
          })
          if (handled()) break
          if (ended!.ok || tries >= 5) throw new Error(`the invocation ended before c-ann handled its offer: ${ended!.ok ? 'decided' : ended!.message}`)
          await suite.cluster.ready()
          killed = a.invoke(invocation)
        }
        const acknowledged = await suite.world.subjects(`shipping.couriers.${id}.offer.*`)
        await first.close()
        await a.close()
        expect(await killed).toMatchObject({ ok: false })
        // The courier answers while no executor runs; then a new executor on node 3 resumes the same invocation.
        release()
        await until(
          'c-ann result stored',
          async () => (Object.keys(await suite.world.subjects(`shipping.couriers.${id}.accept.*`)).length > 0 ? true : undefined),
          30_000,
        )
        const b = suite.world.executor(interaction, await suite.world.open([n3, n2]))
        try {
          const resumed = await bounded('the resumed invocation decided', b.invoke(invocation), 160_000)
          if (!resumed.ok) throw new Error(resumed.message)
          expect(resumed.value.operationId).toBe(id)
          expect(resumed.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold' })
          expect(resumed.value.decision.votes).toEqual([expect.objectContaining({ branchId: 'c-ann', peerId: 'c-ann', attempt: 1 })])
          expect(suite.world.handled.get('c-ann')).toBe(1)
          await suite.world.invariants(interaction, b, resumed.value, acknowledged)
        } finally {
          await b.close()
        }
      },
    )
  })
}
