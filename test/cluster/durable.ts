/**
 * The durable executor (durable state, durable-per-recipient delivery, KV claims) on a real 3-node
 * JetStream cluster, under faults (test/helpers/nats-cluster.ts): the shop bundle's courier offer
 * with every stream and bucket replicated three times; a follower, then the request stream's leader,
 * killed mid-interaction; an executor killed (its connection closed under it) and resumed by another
 * on another node. Invariants checked: decided once (one decision record, a second writer loses), no
 * vote whose fence is not its branch's committed claim, every acknowledged offer and result stored
 * once and delivered, every wait bounded.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { connect } from '@nats-io/transport-node'
import type { NatsConnection } from '@nats-io/nats-core'
import { DiscardPolicy, jetstreamManager, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/index.js'
import type { Interaction } from '../../src/runtime/nats/interactions.js'
import { operationId } from '../../src/runtime/nats/interactions.js'
import {
  createExecutor,
  createResponder,
  openClaimStore,
  planInteraction,
  simulate,
  type Decision,
  type Executor,
  type ExecutorModule,
  type Responder,
} from '../../src/runtime/nats/executor/index.js'
import { claimKey } from '../../src/runtime/nats/executor/durable/executor.js'
import { openRecordBucket } from '../../src/runtime/nats/executor/durable/records.js'
import { operationStore } from '../../src/runtime/nats/executor/durable/store.js'
import { binding, COURIERS, quick, shipmentInputs, STREAM } from '../helpers/executor-durable-config.js'
import { deployment, variant } from '../helpers/executor-nats.js'
import { loadModule } from '../helpers/load-module.js'
import { ShopBundle } from '../helpers/nats-bundle.js'
import { NATS_SERVER, startNatsCluster, type NatsCluster } from '../helpers/nats-cluster.js'
import { until } from '../helpers/until.js'

/** The application's connection options for a cluster: the servers in the order given, quick reconnects. */
const options = (servers: string[]) => ({ servers, reconnectTimeWait: 100, maxReconnectAttempts: -1, timeout: 5000, noRandomize: true })

/**
 * The courier offer with cluster-sized times: a 30 s lease, longer than the faults a test makes (an
 * election may take seconds on a loaded machine; a 1.5 s lease would always be lost to it and the
 * branch retried), renewed every 500 ms, a 60 s deadline.
 */
function onCluster(base: Interaction, completion: object = {}): Interaction {
  const b = quick(base, { deadlineMs: 60_000, ...completion }) as Record<string, any>
  return { ...b, delivery: { ...b['delivery'], ownership: { ...b['delivery']['ownership'], leaseMs: 30_000, renewEveryMs: 500 } } } as Interaction
}

/** A KV bucket's stream the way the durable state store makes it, but with three replicas (see docs/deployment.md). */
async function replicatedBucket(jsm: JetStreamManager, bucket: string): Promise<void> {
  await jsm.streams.add({
    name: `KV_${bucket}`,
    subjects: [`$KV.${bucket}.>`],
    max_msgs_per_subject: 1,
    allow_rollup_hdrs: true,
    deny_delete: true,
    allow_direct: false,
    storage: StorageType.File,
    discard: DiscardPolicy.New,
    num_replicas: 3,
  })
}

/**
 * Registers this suite; `test/cluster.test.ts` runs it beside the other cluster suites (each on its
 * own cluster), its tests in order.
 */
export function durableOnCluster(): void {
  describe.skipIf(!NATS_SERVER)('the durable executor on a 3-node JetStream cluster, under faults', () => {
    let cluster: NatsCluster
    let module: ExecutorModule & Record<string, any>
    let digest: string
    let jsm: JetStreamManager
    const connections: NatsConnection[] = []
    const responders: Responder[] = []
    const handled = new Map<string, number>()
    const open = async (servers: string[]) => {
      const c = await connect(options(servers))
      connections.push(c)
      return c
    }

    beforeAll(async () => {
      const shop = ShopBundle.copy('cluster-durable').relock()
      const doc = shop.doc('shipping')
      const compiled = await compile(doc)
      if (compiled.diagnostics.length > 0) throw new Error(JSON.stringify(compiled.diagnostics))
      module = (await loadModule(compiled.code!, 'cluster-durable-shipping')) as typeof module
      digest = createHash('sha256').update(readFileSync(doc)).digest('hex')
      cluster = await startNatsCluster(3, 'd')
      jsm = await jetstreamManager(await open(cluster.servers), { timeout: 5000 })
      // The contract's couriers stream, replicated: the configuration a production deployment provisions.
      await jsm.streams.add({
        name: STREAM,
        subjects: ['shipping.couriers.>'],
        retention: RetentionPolicy.Limits,
        storage: StorageType.File,
        num_replicas: 3,
        max_age: 86_400_000_000_000,
        max_msgs: 1_000_000,
        // 64 MiB: the test servers reserve 256 MiB each (capacity is the operator's; the contract says 1 GiB).
        max_bytes: 67_108_864,
        discard: DiscardPolicy.New,
        duplicate_window: 120_000_000_000,
      })
      await replicatedBucket(jsm, binding.stateBucket)
      // The claim bucket: openClaimStore makes it with three replicas on a cluster.
      const claims = await openClaimStore(connections[0]!, binding.claimBucket!)
      if (!claims.ok) throw new Error(claims.message)
      await cluster.streamLeader(STREAM)
    }, 90_000)

    afterAll(async () => {
      for (const r of responders) await r.close().catch(() => undefined)
      for (const c of connections) if (!c.isClosed()) await c.close().catch(() => undefined)
      await cluster?.stop()
    })

    /** Couriers, each on a connection of its own listing the servers in the given order; a gated one answers once released. */
    const couriers = async (interaction: Interaction, behaviours: Record<string, { accepted: boolean; gate?: Promise<void>; servers: string[] }>) => {
      for (const [peerId, behaviour] of Object.entries(behaviours)) {
        const r = await createResponder<unknown, { accepted: boolean }>({
          connection: await open(behaviour.servers),
          module,
          interaction,
          peerId,
          durable: { requestStream: STREAM, claimBucket: binding.claimBucket!, ackWaitMs: 1000 },
          handler: async ({ signal }) => {
            handled.set(peerId, (handled.get(peerId) ?? 0) + 1)
            await Promise.race([
              behaviour.gate ?? Promise.resolve(),
              new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
            ])
            return signal.aborted ? undefined : { accepted: behaviour.accepted }
          },
        })
        if (!r.ok) throw new Error(r.message)
        responders.push(r.value)
      }
    }
    const executor = (interaction: Interaction, connection: NatsConnection): Executor => {
      const made = createExecutor<unknown, unknown>({
        connection,
        module,
        interaction,
        contractDigest: digest,
        deployment,
        durable: binding,
        adapters: {
          audience: () => ({ revision: 'r3', peers: COURIERS }),
          authorization: () => ({ allowed: true }),
          verifier: () => ({ allowed: true }),
        },
      })
      if (!made.ok) throw new Error(made.message)
      return made.value
    }
    /** Messages the request stream holds per subject (asked of whichever node answers). */
    const subjects = async (filter: string): Promise<Record<string, number>> =>
      until(
        `the subjects of ${filter}`,
        async () => {
          try {
            return ((await jsm.streams.info(STREAM, { subjects_filter: filter })).state.subjects ?? {}) as Record<string, number>
          } catch {
            return undefined
          }
        },
        30_000,
        200,
      )
    /** Decided once: the decision record holds this decision, and a second writer loses and reads it. */
    const decidedOnce = async (id: string, decision: Decision) => {
      const bucket = await openRecordBucket(connections[0]!, binding.stateBucket)
      if (!bucket.ok) throw new Error(bucket.message)
      const store = operationStore(bucket.value)
      const recorded = await store.decision(id)
      expect(recorded.ok && recorded.value?.value).toEqual(decision)
      expect(await store.decide(id, { ...decision, outcome: 'failure', reason: 'impossible' })).toEqual({ ok: true, value: { decision, won: false } })
    }
    /** No result admitted from a stale fence: every vote carries its branch's committed claim's fence. */
    const fencedVotes = async (id: string, decision: Decision) => {
      const claims = await openClaimStore(connections[0]!, binding.claimBucket!)
      if (!claims.ok) throw new Error(claims.message)
      for (const vote of decision.votes) {
        const claim = await claims.value.read(claimKey(id, vote.branchId))
        expect(claim.ok && claim.value?.claim).toMatchObject({ peerId: vote.peerId, attempt: vote.attempt, fence: vote.fence, state: 'committed' })
      }
    }

    it.sequential(
      'a durable fan-out while a follower, then the request stream leader, is killed mid-interaction: decided once, every acknowledged offer stored once per attempt, no vote from a stale fence, branches reported per the profile',
      async () => {
        const interaction = variant(onCluster(module.interactions.assignCourier as Interaction), {
          dispatch: { mode: 'independent' },
          completion: { mode: 'all-terminal' },
        })
        const [n1, n2, n3] = cluster.nodes.map((n) => n.url) as [string, string, string]
        handled.clear()
        // c-bob declines at once; c-ann and c-cat are offline: their offers wait in the stream through both faults.
        await couriers(interaction, { 'c-bob': { accepted: false, servers: [n2, n3, n1] } })
        const invocation = { principalId: 'dispatcher', idempotencyKey: 'cluster-fanout', inputs: shipmentInputs }
        const id = await operationId(invocation.principalId, digest, invocation.idempotencyKey)
        const ex = executor(interaction, await open([n1, n2, n3]))
        let killed: string | undefined
        try {
          const answer = ex.invoke(invocation)
          await until('c-bob handling its offer', () => ((handled.get('c-bob') ?? 0) > 0 ? true : undefined), 30_000)
          await until(
            'the offers to c-ann and c-cat acknowledged by the stream',
            async () => (Object.keys(await subjects(`shipping.couriers.${id}.offer.*`)).length === 3 ? true : undefined),
            30_000,
          )
          const leader = await cluster.streamLeader(STREAM)
          const follower = cluster.nodes.find((n) => n.name !== leader)!.name
          // One fault at a time: with a follower down, the leader's death would leave one node of three (no quorum).
          await cluster.kill(follower)
          await cluster.restart(follower)
          await cluster.ready()
          await cluster.streamLeader(STREAM)
          killed = await cluster.killStreamLeader(STREAM)
          await cluster.newStreamLeader(STREAM, killed)
          // The offline couriers connect now, to the surviving nodes: the offers the old leader acknowledged reach them.
          const survivors = cluster.runningServers()
          await couriers(interaction, {
            'c-ann': { accepted: true, servers: survivors },
            'c-cat': { accepted: true, servers: [...survivors].reverse() },
          })
          const result = await answer
          if (!result.ok) throw new Error(result.message)
          expect(result.value.operationId).toBe(id)
          expect(result.value.decision).toMatchObject({ outcome: 'success', reason: 'settled' })
          expect(Object.fromEntries(result.value.state.branches.map((b) => [b.branchId, b.status]))).toEqual({
            'c-ann': 'succeeded',
            'c-bob': 'unsuccessful',
            'c-cat': 'succeeded',
          })
          // Every offer the stream acknowledged is there once per attempt (its message id names the branch and the
          // attempt; a lease that passed during the faults would retry the branch under a higher fence), one result a branch.
          const branches = result.value.state.branches
          expect(await subjects(`shipping.couriers.${id}.offer.*`)).toEqual(
            Object.fromEntries(branches.map((b) => [`shipping.couriers.${id}.offer.${b.branchId}`, b.attempt])),
          )
          expect(Object.values(await subjects(`shipping.couriers.${id}.accept.*`))).toEqual([1, 1, 1])
          for (const vote of result.value.decision.votes) expect(vote).toMatchObject({ attempt: branches.find((b) => b.branchId === vote.branchId)!.attempt })
          await decidedOnce(id, result.value.decision)
          await fencedVotes(id, result.value.decision)
          const log = ex.log(id)
          const plan = planInteraction(interaction)
          if (!log.ok || !plan.ok) throw new Error('no log')
          expect(simulate(plan.value.policy, log.value)).toEqual(result.value.state)
        } finally {
          await ex.close()
          // The next test starts on a whole cluster.
          if (killed) await cluster.restart(killed)
          await cluster.ready()
          await cluster.streamLeader(STREAM)
        }
      },
    )

    it.sequential(
      'an executor killed mid-interaction (its connection closed under it) on one node is resumed by another on another node: decided once',
      async () => {
        const interaction = onCluster(module.interactions.assignCourier as Interaction)
        const [n1, n2, n3] = cluster.nodes.map((n) => n.url) as [string, string, string]
        for (const r of responders.splice(0)) await r.close()
        let release!: () => void
        const gate = new Promise<void>((resolve) => (release = resolve))
        handled.clear()
        await couriers(interaction, { 'c-ann': { accepted: true, gate, servers: [n2, n3, n1] } })
        const invocation = { principalId: 'dispatcher', idempotencyKey: 'cluster-resume', inputs: shipmentInputs }
        const id = await operationId(invocation.principalId, digest, invocation.idempotencyKey)
        const first = await open([n1])
        const a = executor(interaction, first)
        const killed = a.invoke(invocation)
        await until('c-ann handling its offer', () => ((handled.get('c-ann') ?? 0) > 0 ? true : undefined), 30_000)
        await first.close()
        await a.close()
        expect(await killed).toMatchObject({ ok: false })
        // The courier answers while no executor runs; then a new executor on node 3 resumes the same invocation.
        release()
        await until('c-ann result stored', async () => (Object.keys(await subjects(`shipping.couriers.${id}.accept.*`)).length > 0 ? true : undefined), 30_000)
        const b = executor(interaction, await open([n3, n2]))
        try {
          const resumed = await b.invoke(invocation)
          if (!resumed.ok) throw new Error(resumed.message)
          expect(resumed.value.operationId).toBe(id)
          expect(resumed.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold' })
          expect(resumed.value.decision.votes).toEqual([expect.objectContaining({ branchId: 'c-ann', peerId: 'c-ann', attempt: 1 })])
          expect(await subjects(`shipping.couriers.${id}.offer.*`)).toEqual({ [`shipping.couriers.${id}.offer.c-ann`]: 1 })
          expect(handled.get('c-ann')).toBe(1)
          await decidedOnce(id, resumed.value.decision)
          await fencedVotes(id, resumed.value.decision)
        } finally {
          await b.close()
        }
      },
    )
  })
}
