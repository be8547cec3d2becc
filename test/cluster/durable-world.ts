/**
 * The durable executor's world on a cluster, shared by the durable fault suites (./durable.ts on
 * three nodes, ./durable-five.ts on five): the shop bundle's shipping contract compiled and loaded,
 * its couriers stream with the given replicas, the executor and responders bound with the same
 * `replicas` (so the state and claim buckets they create have them too), couriers on connections of
 * their own, and the fault invariants (./invariants.ts) for an outcome.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { connect } from '@nats-io/transport-node'
import type { NatsConnection } from '@nats-io/nats-core'
import { DiscardPolicy, jetstreamManager, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream'
import { compile } from '../../src/index.js'
import type { Interaction } from '../../src/runtime/nats/interactions.js'
import { createExecutor, createResponder, type Executor, type ExecutorModule, type Responder } from '../../src/runtime/nats/executor/index.js'
import type { InvocationOutcome } from '../../src/runtime/nats/executor/executor.js'
import type { DurableBinding } from '../../src/runtime/nats/executor/durable/executor.js'
import { binding as baseBinding, clusterOptions, COURIERS, patient, STREAM } from '../helpers/executor-durable-config.js'
import { deployment } from '../helpers/executor-nats.js'
import { ShopBundle } from '../helpers/nats-bundle.js'
import { afterAll, beforeAll } from 'vitest'
import { startNatsCluster, type ClusterOptions, type NatsCluster } from '../helpers/nats-cluster.js'
import { until } from '../helpers/until.js'
import { expectCourierInvariants, storedSubjects } from './invariants.js'

/**
 * The courier offer with cluster-sized times (`patient`: a 30 s lease renewed every 500 ms) and a
 * 150 s deadline: generous, no scenario here waits for it, and leader elections on a loaded two-core
 * machine can take tens of seconds.
 */
export function onCluster(base: Interaction, completion: object = {}): Interaction {
  return patient(base, 150_000, completion)
}

export interface CourierBehaviour {
  readonly accepted: boolean
  /** Answers once released (else at once); aborted by the responder (a stale claim, a lease about to lapse, closing). */
  readonly gate?: Promise<void>
  /** The servers its connection lists, the first where it connects. */
  readonly servers: string[]
  /** Its connection uses the servers listed only (a cut link stays cut: it learns no other server from the cluster). */
  readonly pinned?: boolean
  /** A handler that does not heed its abort: it answers only once released (one outliving its lease). */
  readonly ignoresAbort?: boolean
  /** The responder's clock (default `Date.now`): a stalled process does not see its lease run out. */
  readonly now?: () => number
}

export interface DurableWorld {
  readonly module: ExecutorModule & Record<string, any>
  readonly digest: string
  /** The compiled shipping module's file (inside the repository): a courier in a process of its own loads it. */
  readonly moduleFile: string
  readonly binding: DurableBinding
  readonly jsm: JetStreamManager
  /** Handler runs per courier; runs that returned, and those aborted, per courier. */
  readonly handled: Map<string, number>
  readonly returned: Map<string, number>
  readonly aborted: Map<string, number>
  /** Disconnections per courier's connection (none: its client connection stayed up). */
  readonly disconnects: Map<string, number>
  /** A connection to `servers`; `pinned`: to those only, never to servers it hears of from the cluster. */
  open(servers: string[], pinned?: boolean): Promise<NatsConnection>
  /** Clears the counters (handled, returned, aborted, disconnects) for the next scenario. */
  reset(): void
  couriers(interaction: Interaction, behaviours: Record<string, CourierBehaviour>): Promise<void>
  closeCouriers(): Promise<void>
  /** An executor bound like the couriers (the binding's fields `overrides` names aside). */
  executor(interaction: Interaction, connection: NatsConnection, overrides?: Partial<DurableBinding>): Executor
  /** Messages the couriers stream holds per subject under `filter`. */
  subjects(filter: string): Promise<Record<string, number>>
  /** The fault invariants (./invariants.ts) of an outcome, given the offers the stream acknowledged before the fault. */
  invariants(interaction: Interaction, executor: Executor, outcome: InvocationOutcome, acknowledged?: Record<string, number>): Promise<void>
  close(): Promise<void>
}

export { COURIERS, STREAM }

/**
 * The shipping contract compiled and loaded once for every world of this process (the suites run in
 * one file): each world has its own cluster, streams and buckets, and they share the module.
 */
let shipping: Promise<{ module: DurableWorld['module']; digest: string; moduleFile: string }> | undefined
async function compileShipping(label: string): Promise<{ module: DurableWorld['module']; digest: string; moduleFile: string }> {
  const shop = ShopBundle.copy(`cluster-${label}`).relock()
  const doc = shop.doc('shipping')
  const compiled = await compile(doc)
  if (compiled.diagnostics.length > 0) throw new Error(JSON.stringify(compiled.diagnostics))
  const moduleFile = join(import.meta.dirname, '../.tmp/modules', `cluster-${label}-shipping-${process.pid}.mjs`)
  mkdirSync(dirname(moduleFile), { recursive: true })
  writeFileSync(moduleFile, compiled.code!)
  const module = (await import(pathToFileURL(moduleFile).href)) as DurableWorld['module']
  return { module, digest: createHash('sha256').update(readFileSync(doc)).digest('hex'), moduleFile }
}

/** The world on `cluster`: the couriers stream created with `replicas`, every bucket the executor creates too. */
export async function durableWorld(cluster: NatsCluster, label: string, replicas: 3 | 5): Promise<DurableWorld> {
  const { module, digest, moduleFile } = await (shipping ??= compileShipping(label))
  const binding: DurableBinding = { ...baseBinding, replicas }
  const connections: NatsConnection[] = []
  const responders: Responder[] = []
  const handled = new Map<string, number>()
  const returned = new Map<string, number>()
  const aborted = new Map<string, number>()
  const disconnects = new Map<string, number>()
  const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1)
  const open = async (servers: string[], pinned = false) => {
    const c = await connect({ ...clusterOptions(servers), ...(pinned ? { ignoreClusterUpdates: true } : {}) })
    connections.push(c)
    return c
  }

  const admin = await open(cluster.servers)
  // A cluster just elected may answer "JetStream system temporarily unavailable" for a moment: asked again (bounded).
  const jsm = await until('JetStream answering', () => jetstreamManager(admin, { timeout: 5000 }).catch(() => undefined), 30_000, 250)
  // The contract's couriers stream, replicated: the configuration a production deployment provisions
  // (the same configuration again is no change, so a try whose answer was lost is harmless).
  const couriersStream = {
    name: STREAM,
    subjects: ['shipping.couriers.>'],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    num_replicas: replicas,
    max_age: 86_400_000_000_000,
    max_msgs: 1_000_000,
    // 64 MiB: the test servers reserve 256 MiB each (capacity is the operator's; the contract says 1 GiB).
    max_bytes: 67_108_864,
    discard: DiscardPolicy.New,
    duplicate_window: 120_000_000_000,
  }
  await until('the couriers stream created', () => jsm.streams.add(couriersStream).catch(() => undefined), 30_000, 250)
  await cluster.streamLeader(STREAM)

  const world: DurableWorld = {
    module,
    digest,
    moduleFile,
    binding,
    jsm,
    handled,
    returned,
    aborted,
    disconnects,
    open,
    reset() {
      for (const map of [handled, returned, aborted, disconnects]) map.clear()
    },
    async couriers(interaction, behaviours) {
      for (const [peerId, behaviour] of Object.entries(behaviours)) {
        // A responder starting while the cluster settles (a node just thawed or restarted) may be
        // told "JetStream system temporarily unavailable" (or get no answer in time: "timeout"): an application tries again, as this does
        // (bounded), once the meta leader is back.
        const connection = await open(behaviour.servers, behaviour.pinned)
        void (async () => {
          for await (const status of connection.status()) if (status.type === 'disconnect') count(disconnects, peerId)
        })()
        const start = () =>
          createResponder<unknown, { accepted: boolean }>({
            connection,
            module,
            interaction,
            peerId,
            durable: {
              requestStream: STREAM,
              claimBucket: binding.claimBucket!,
              ackWaitMs: 1000,
              replicas,
              ...(behaviour.now ? { now: behaviour.now } : {}),
            },
            handler: async ({ signal }) => {
              count(handled, peerId)
              const aborting = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
              await Promise.race([behaviour.gate ?? Promise.resolve(), ...(behaviour.ignoresAbort ? [] : [aborting])])
              if (signal.aborted) count(aborted, peerId)
              count(returned, peerId)
              return signal.aborted && !behaviour.ignoresAbort ? undefined : { accepted: behaviour.accepted }
            },
          })
        let r = await start()
        for (let tries = 0; !r.ok && /temporarily unavailable|: timeout$/i.test(r.message) && tries < 20; tries++) {
          await cluster.ready()
          await new Promise((resolve) => setTimeout(resolve, 500))
          r = await start()
        }
        if (!r.ok) throw new Error(r.message)
        responders.push(r.value)
      }
    },
    async closeCouriers() {
      for (const r of responders.splice(0)) await r.close()
    },
    executor(interaction, connection, overrides = {}) {
      const made = createExecutor<unknown, unknown>({
        connection,
        module,
        interaction,
        contractDigest: digest,
        deployment,
        durable: { ...binding, ...overrides },
        adapters: {
          audience: () => ({ revision: 'r3', peers: COURIERS }),
          authorization: () => ({ allowed: true }),
          verifier: () => ({ allowed: true }),
        },
      })
      if (!made.ok) throw new Error(made.message)
      return made.value
    },
    subjects: (filter) => storedSubjects(admin, STREAM, filter),
    invariants: (interaction, executor, outcome, acknowledged = {}) =>
      expectCourierInvariants({ connection: admin, binding, interaction, executor, outcome, acknowledged }),
    async close() {
      for (const r of responders.splice(0)) await r.close().catch(() => undefined)
      for (const c of connections) if (!c.isClosed()) await c.close().catch(() => undefined)
    },
  }
  return world
}

/** A durable suite's cluster and world (./durable.ts on three nodes, ./durable-five.ts on five). */
export interface DurableClusterSuite {
  readonly cluster: NatsCluster
  readonly world: DurableWorld
  /** The next test starts on a whole cluster: `killed` restarted, a meta leader, leaders for the couriers stream and both buckets. */
  whole(killed?: string): Promise<void>
}

/**
 * Registers, in the calling suite, a cluster of `size` nodes and its durable world with as many
 * replicas: started before the suite's tests, stopped after them.
 */
export function durableClusterSuite(size: 3 | 5, label: string, worldLabel: string, options: ClusterOptions = {}): DurableClusterSuite {
  let cluster: NatsCluster | undefined
  let world: DurableWorld | undefined
  beforeAll(async () => {
    cluster = await startNatsCluster(size, label, options)
    world = await durableWorld(cluster, worldLabel, size)
  }, 90_000)
  afterAll(async () => {
    await world?.close()
    await cluster?.stop()
  })
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error(`the ${size}-node cluster ${label} has not started`)
    return value
  }
  return {
    get cluster() {
      return started(cluster)
    },
    get world() {
      return started(world)
    },
    async whole(killed) {
      const c = started(cluster)
      const w = started(world)
      if (killed) await c.restart(killed)
      await c.ready()
      for (const stream of [STREAM, `KV_${w.binding.stateBucket}`, `KV_${w.binding.claimBucket!}`]) await c.streamLeader(stream)
    },
  }
}
