/**
 * The durable executor's end-to-end rig, shared by the durable test files on one server: the shop
 * bundle's shipping contract (`assignCourier`, a one-eligible, durable-per-recipient offer under
 * ownership) compiled and loaded, a real nats-server with JetStream, the request stream provisioned
 * the way its contract declares it (one replica: a single server), couriers on connections of their
 * own, the operation store, the request stream's subjects, helper processes to kill with SIGKILL,
 * and a bounded poll.
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { connect } from '@nats-io/transport-node'
import type { NatsConnection } from '@nats-io/nats-core'
import { jetstreamManager, RetentionPolicy, StorageType, DiscardPolicy } from '@nats-io/jetstream'
import { compile } from '../../src/index.js'
import { operationId, type Interaction } from '../../src/runtime/nats/interactions.js'
import {
  createExecutor,
  createResponder,
  type Executor,
  type ExecutorAdapters,
  type ExecutorModule,
  type Responder,
} from '../../src/runtime/nats/executor/index.js'
import type { DurableBinding } from '../../src/runtime/nats/executor/durable/executor.js'
import { openRecordBucket } from '../../src/runtime/nats/executor/durable/records.js'
import { operationStore, type OperationStore } from '../../src/runtime/nats/executor/durable/store.js'
import { loadModule } from './load-module.js'
import { ShopBundle } from './nats-bundle.js'
import { startNatsServer, type NatsServer } from './nats-server.js'
import { deployment } from './executor-nats.js'
import { binding, COURIERS, patient, shipmentInputs, STREAM } from './executor-durable-config.js'

export { binding, COURIERS, patient, quick, shipmentInputs, STREAM } from './executor-durable-config.js'

export interface Accept {
  operationId: string
  branchId: string
  attempt: number
  fence: number
  courierId: string
  accepted: boolean
}

/** How a courier answers: accept or decline (after `afterMs`, or once `gate` resolves), renewing its claim meanwhile. */
export interface Courier {
  accepted: boolean
  afterMs?: number
  gate?: Promise<void>
}

/** Polls `probe` every 20 ms until it holds, at most `attempts` times (bounded), else throws. */
export async function poll(probe: () => boolean | Promise<boolean>, attempts = 1000): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await probe()) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error('the condition never held')
}

/** A helper process of the rig (test/helpers/executor-durable-*child.ts), to be killed with SIGKILL. */
export interface RigChild {
  /** What it printed so far. */
  output(): string
  /** SIGKILL, by its PID; answers the signal it died of. */
  kill(): Promise<NodeJS.Signals | null>
}

export interface DurableRig {
  readonly server: NatsServer
  readonly module: ExecutorModule & Record<string, any>
  readonly assign: Interaction
  readonly digest: string
  /** The compiled shipping module's code (a child process loads it from a file of its own). */
  readonly code: string
  /** Requests each courier's handler started, by courier. */
  readonly handled: Map<string, number>
  connection(): Promise<NatsConnection>
  /** Messages the request stream holds per subject under `filter`. */
  subjects(filter: string): Promise<Record<string, number>>
  /** The operation store in the binding's state bucket. */
  store(): Promise<OperationStore>
  /**
   * Starts `helper` (`node --import tsx`) on this server with the compiled module (MODULE_FILE) and
   * `env`; it is killed by PID when the rig stops, if not before.
   */
  child(helper: 'executor-durable-child.ts' | 'executor-durable-responder-child.ts', env?: Record<string, string>): RigChild
  couriers(behaviours: Record<string, Courier>, interaction?: Interaction): Promise<Responder[]>
  executor(
    interaction: Interaction,
    options?: {
      connection?: NatsConnection
      adapters?: Partial<ExecutorAdapters<Accept, unknown>>
      binding?: Partial<DurableBinding>
      /** The executor's clock (default `Date.now`). */
      now?: () => number
    },
  ): Promise<Executor>
  stop(): Promise<void>
}

export async function startDurableRig(name: string): Promise<DurableRig> {
  const shop = ShopBundle.copy(`executor-durable-${name}`).relock()
  const doc = shop.doc('shipping')
  const compiled = await compile(doc)
  if (compiled.diagnostics.length > 0) throw new Error(JSON.stringify(compiled.diagnostics))
  const module = (await loadModule(compiled.code!, `shipping-executor-${name}`)) as DurableRig['module']
  const digest = createHash('sha256').update(readFileSync(doc)).digest('hex')
  const server = await startNatsServer()
  const connections: NatsConnection[] = []
  const responders: Responder[] = []
  const handled = new Map<string, number>()
  const connection = async () => {
    const nc = await connect({ servers: server.url })
    connections.push(nc)
    return nc
  }
  // The contract's `couriers` stream (its native config, one replica on a single server).
  const admin = await connection()
  const jsm = await jetstreamManager(admin)
  await jsm.streams.add({
    name: STREAM,
    subjects: ['shipping.couriers.>'],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    num_replicas: 1,
    max_age: 86_400_000_000_000,
    max_msgs: 1_000_000,
    max_bytes: 1_073_741_824,
    discard: DiscardPolicy.New,
    duplicate_window: 120_000_000_000,
  })
  const assign = module.interactions.assignCourier as Interaction
  let store: OperationStore | undefined
  const children: Array<ReturnType<typeof spawn>> = []
  // The compiled module in a file inside the repository (so the package resolves by its own name).
  let moduleFile: string | undefined
  return {
    server,
    module,
    assign,
    digest,
    code: compiled.code!,
    handled,
    connection,
    async subjects(filter) {
      const info = await jsm.streams.info(STREAM, { subjects_filter: filter })
      return (info.state.subjects ?? {}) as Record<string, number>
    },
    async store() {
      if (store) return store
      const bucket = await openRecordBucket(admin, binding.stateBucket)
      if (!bucket.ok) throw new Error(bucket.message)
      return (store = operationStore(bucket.value))
    },
    child(helper, env = {}) {
      if (!moduleFile) {
        const dir = join(import.meta.dirname, '../.tmp/modules')
        mkdirSync(dir, { recursive: true })
        moduleFile = join(dir, `shipping-${name}-${process.pid}.mjs`)
        writeFileSync(moduleFile, compiled.code!)
      }
      const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, helper)], {
        env: { ...process.env, NATS_URL: server.url, MODULE_FILE: moduleFile, ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      })
      children.push(child)
      let output = ''
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)))
      return {
        output: () => output,
        async kill() {
          if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL')
          return exited
        },
      }
    },
    async couriers(behaviours, interaction = assign) {
      const made: Responder[] = []
      for (const [peerId, behaviour] of Object.entries(behaviours)) {
        const nc = await connection()
        const r = await createResponder<unknown, { accepted: boolean }>({
          connection: nc,
          module,
          interaction,
          peerId,
          durable: { requestStream: STREAM, claimBucket: binding.claimBucket!, ackWaitMs: 1000 },
          handler: async ({ signal }) => {
            handled.set(peerId, (handled.get(peerId) ?? 0) + 1)
            const waited = behaviour.gate ?? new Promise<void>((resolve) => setTimeout(resolve, behaviour.afterMs ?? 0))
            // Bounded: the gate, the timer, or an abort (superseded, cancelled, or the rig stopping).
            await Promise.race([waited, new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))])
            return signal.aborted ? undefined : { accepted: behaviour.accepted }
          },
        })
        if (!r.ok) throw new Error(r.message)
        made.push(r.value)
        responders.push(r.value)
      }
      return made
    },
    async executor(interaction, options = {}) {
      const nc = options.connection ?? (await connection())
      const made = createExecutor<Accept, unknown>({
        connection: nc,
        module,
        interaction,
        contractDigest: digest,
        deployment,
        durable: { ...binding, ...options.binding },
        ...(options.now ? { now: options.now } : {}),
        adapters: {
          audience: ({ data }) => ({ revision: 'r3', peers: data.input === 'eu' ? COURIERS : [] }),
          authorization: () => ({ allowed: true }),
          verifier: () => ({ allowed: true }),
          ...options.adapters,
        },
      })
      if (!made.ok) throw new Error(made.message)
      return made.value
    },
    async stop() {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      for (const r of responders) await r.close()
      for (const nc of connections) if (!nc.isClosed()) await nc.close()
      await server.stop()
    },
  }
}

/**
 * The courier assignment invoked with one courier (`c-ann`) offered it and holding its answer until
 * `release()`: the operation is open, its one branch claimed, when this returns. For tests that
 * send the operation messages of their own meanwhile.
 */
export async function heldAssignment(rig: DurableRig, idempotencyKey: string, options: Parameters<DurableRig['executor']>[1] = {}) {
  const interaction = patient(rig.assign, 60_000)
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const peers = await rig.couriers({ 'c-ann': { accepted: true, gate } }, interaction)
  rig.handled.clear()
  const fixed = { principalId: 'dispatcher', idempotencyKey, inputs: shipmentInputs }
  const id = await operationId(fixed.principalId, rig.digest, fixed.idempotencyKey)
  const executor = await rig.executor(interaction, options)
  const answered = executor.invoke(fixed)
  await poll(() => (rig.handled.get('c-ann') ?? 0) > 0)
  return { id, executor, answered, release, peers }
}

/** Until the executor's result consumer has nothing left to deliver or to be acknowledged (or `done()`). */
export async function resultsDrained(connection: NatsConnection, done: () => boolean = () => false): Promise<void> {
  const jsm = await jetstreamManager(connection)
  await poll(async () => {
    if (done()) return true
    const info = await jsm.consumers.info(STREAM, 'exec-assignCourier-results').catch(() => null)
    return info !== null && info.num_pending === 0 && info.num_ack_pending === 0
  }, 1500)
}

/**
 * `count` accepting results for c-ann's branch of `operationId` at fences it never held (from
 * `firstFence` up, one each, or all at `firstFence` when `sameFence`), published and flushed: what a
 * peer replaying or forging results sends. Each is refused by the executor.
 */
export async function staleAccepts(connection: NatsConnection, operationId: string, count: number, firstFence = 1000, sameFence = false): Promise<void> {
  for (let i = 0; i < count; i++) {
    const stale = { operationId, branchId: 'c-ann', attempt: 1, fence: sameFence ? firstFence : firstFence + i, courierId: 'c-ann', accepted: true }
    connection.publish(`shipping.couriers.${operationId}.accept.c-ann`, JSON.stringify(stale))
  }
  await connection.flush()
}
