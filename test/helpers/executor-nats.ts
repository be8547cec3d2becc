/**
 * The executor's end-to-end rig: the shop bundle's payments contract compiled and loaded, a real
 * nats-server with JetStream, and peers on connections of their own answering refund votes through
 * the responder helper (or by hand, for a peer that misbehaves).
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { connect } from '@nats-io/transport-node'
import { DiscardPolicy, jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/nats-core'
import { compile } from '../../src/index.js'
import type { Interaction } from '../../src/runtime/nats/interactions.js'
import {
  createExecutor,
  createResponder,
  type Executor,
  type ExecutorAdapters,
  type ExecutorModule,
  type Responder,
} from '../../src/runtime/nats/executor/index.js'
import { loadModule } from './load-module.js'
import { ShopBundle } from './nats-bundle.js'
import { startNatsServer, type NatsServer } from './nats-server.js'

export interface Ballot {
  operationId: string
  branchId: string
  attempt: number
  fence: number
  peerId: string
  approve: boolean
}

/**
 * How a peer answers: a vote (once `after` has settled, when given: a test orders another peer's
 * messages before this one), a stall until cancelled (or the test ends), or nothing at all.
 */
export type Behaviour = { vote: boolean; after?: Promise<unknown> } | 'stall' | 'silent'

export interface Rig {
  readonly server: NatsServer
  readonly module: ExecutorModule & Record<string, any>
  readonly approve: Interaction
  readonly digest: string
  readonly connections: NatsConnection[]
  /** Requests each peer's handler saw, by peer. */
  readonly handled: Map<string, number>
  connection(): Promise<NatsConnection>
  peers(behaviours: Record<string, Behaviour>, interaction?: Interaction): Promise<Responder[]>
  executor(
    interaction: Interaction,
    adapters?: Partial<ExecutorAdapters<Ballot, { operationId: string; approved: boolean }>>,
  ): Promise<Executor<{ operationId: string; approved: boolean }>>
  stop(): Promise<void>
}

export const GROUP_PEERS = ['ann', 'bob', 'cat', 'dan', 'eve']

export const deployment = {
  senderPeerId: 'treasurer',
  scopeId: 'shop',
  systemId: 'sys',
  accountId: 'acct',
  jetstreamDomain: 'hub',
  policyRevision: 'p1',
}

/** A descriptor variant: the compiled one with some members replaced (its subject and validators kept). */
export function variant(base: Interaction, members: { completion?: object; dispatch?: object; delivery?: object }): Interaction {
  const b = base as Record<string, any>
  return {
    ...base,
    ...(members.completion ? { completion: { ...b['completion'], ...members.completion } } : {}),
    ...(members.dispatch ? { dispatch: { ...b['dispatch'], ...members.dispatch } } : {}),
    ...(members.delivery ? { delivery: { ...b['delivery'], ...members.delivery } } : {}),
  } as Interaction
}

export async function startRig(name: string): Promise<Rig> {
  const shop = ShopBundle.copy(`executor-${name}`).relock()
  const doc = shop.doc('payments')
  const compiled = await compile(doc)
  if (compiled.diagnostics.length > 0) throw new Error(JSON.stringify(compiled.diagnostics))
  const module = (await loadModule(compiled.code!, `payments-executor-${name}`)) as Rig['module']
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
  const approve = module.interactions.approveRefund as Interaction
  return {
    server,
    module,
    approve,
    digest,
    connections,
    handled,
    connection,
    async peers(behaviours, interaction = approve) {
      const made: Responder[] = []
      for (const [peerId, behaviour] of Object.entries(behaviours)) {
        const nc = await connection()
        const r = await createResponder<{ branchId: string }, { approve: boolean }>({
          connection: nc,
          module,
          interaction,
          peerId,
          handler: async ({ signal }) => {
            handled.set(peerId, (handled.get(peerId) ?? 0) + 1)
            if (behaviour === 'silent') return undefined
            if (behaviour === 'stall') {
              // Until cancelled or the rig stops (every responder is closed there, which aborts).
              await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
              return undefined
            }
            await behaviour.after
            return { approve: behaviour.vote }
          },
        })
        if (!r.ok) throw new Error(r.message)
        made.push(r.value)
        responders.push(r.value)
      }
      return made
    },
    async executor(interaction, adapters = {}) {
      const nc = await connection()
      const made = createExecutor<Ballot, { operationId: string; approved: boolean }>({
        connection: nc,
        module,
        interaction,
        contractDigest: digest,
        deployment,
        adapters: {
          audience: ({ data }) => ({ revision: 'r7', peers: data.input === 'approvers' ? GROUP_PEERS : data.input === 'solo' ? ['bob'] : [] }),
          authorization: () => ({ allowed: true }),
          verifier: () => ({ allowed: true }),
          aggregation: ({ context, data }) => ({ operationId: context.operationId, approved: data.some((b) => b.approve) }),
          ...adapters,
        },
      })
      if (!made.ok) throw new Error(made.message)
      return made.value
    },
    async stop() {
      for (const r of responders) await r.close()
      for (const nc of connections) await nc.close()
      await server.stop()
    },
  }
}

/** The refund a hand-written requester sends in the payments refund vote (a valid `Refund`). */
export const REFUND = { paymentId: 'pay-12345678', amount: 10 }

/** A refund vote request to `peer` for its own branch, as a hand-written requester writes it (alice requests `REFUND`). */
export const voteRequest = (operationId: string, peer: string, attempt = 1, fence = 0) => ({
  operationId,
  branchId: peer,
  attempt,
  fence,
  peerId: peer,
  requestedBy: 'alice',
  refund: REFUND,
})

/**
 * The REFUNDS stream the durable tests run the payments vote over: requests and ballots retained
 * (and CancelResults with `cancelResults`); CancelRequests stay core messages (the fixed schemas).
 */
export async function addRefundsStream(connection: NatsConnection, { cancelResults = false } = {}): Promise<void> {
  const jsm = await jetstreamManager(connection)
  await jsm.streams.add({
    name: 'REFUNDS',
    subjects: ['payments.refunds.*.vote.*', 'payments.refunds.*.ballot.*', ...(cancelResults ? ['payments.refunds.*.cancelled.*'] : [])],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.New,
    duplicate_window: 120_000_000_000,
  })
}
