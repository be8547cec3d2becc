/**
 * The executor side of bench/executor.ts's five-peer quorum, for that bench and for
 * bench/ab-executor.ts, which runs it with two builds' runtimes: each peer's responder (approving)
 * and the executor, with the quorum's `remaining: detach` (the scatter-gather cancels nothing either).
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { NatsConnection } from '@nats-io/nats-core'

/** The two functions a build's `runtime/nats/executor` exports that the rig calls. */
export interface ExecutorRuntime {
  createResponder(options: any): Promise<{ ok: boolean; message?: string }> | { ok: boolean; message?: string }
  createExecutor(options: any): { ok: true; value: any } | { ok: false; message: string }
}

/** The interaction the bench runs: the fixture's quorum with `remaining: detach` (the scatter-gather cancels nothing either). */
export function benchInteraction(mod: any): any {
  return { ...mod.interactions.approveRefund, completion: { ...mod.interactions.approveRefund.completion, remaining: 'detach' } }
}

/** Each peer's responder, approving, on a connection of its own. */
export async function quorumResponders(
  runtime: Pick<ExecutorRuntime, 'createResponder'>,
  mod: any,
  peers: readonly string[],
  conn: () => Promise<NatsConnection>,
): Promise<void> {
  const interaction = benchInteraction(mod)
  for (const peerId of peers) {
    const r = await runtime.createResponder({ connection: await conn(), module: mod, interaction, peerId, handler: () => ({ approve: true }) })
    if (!r.ok) throw new Error(r.message)
  }
}

/**
 * The executor, and unless `peersElsewhere` (the responders run in another process:
 * bench/executor-peers.ts), the peers' responders on this thread.
 */
export async function quorumExecutor(
  runtime: ExecutorRuntime,
  mod: any,
  doc: string,
  peers: readonly string[],
  conn: () => Promise<NatsConnection>,
  peersElsewhere = false,
): Promise<any> {
  if (!peersElsewhere) await quorumResponders(runtime, mod, peers, conn)
  const made = runtime.createExecutor({
    connection: await conn(),
    module: mod,
    interaction: benchInteraction(mod),
    contractDigest: createHash('sha256').update(readFileSync(doc)).digest('hex'),
    deployment: { senderPeerId: 'treasurer', scopeId: 's', systemId: 's', accountId: 'a', jetstreamDomain: 'd', policyRevision: 'p' },
    adapters: { audience: () => ({ revision: 'r', peers }), authorization: () => ({ allowed: true }), verifier: () => ({ allowed: true }) },
  })
  if (!made.ok) throw new Error(made.message)
  return made.value
}

/** The five peers of the bench's audience. */
export const BENCH_PEERS: readonly string[] = ['ann', 'bob', 'cat', 'dan', 'eve']

/**
 * The scatter-gather side's subjects: a request goes to `payments.refunds.<operation id>.vote`, the
 * contract's channel without the peer's token (one request fans out to every peer), each peer
 * subscribed to the wildcard.
 */
export const SCATTER_SUBJECTS = 'payments.refunds.*.vote'

/** The scatter-gather side's peers: one connection each, replying with an approving ballot to the request's inbox. */
export async function scatterGatherPeers(peers: readonly string[], connection: () => Promise<NatsConnection>): Promise<void> {
  const enc = new TextEncoder()
  for (const peerId of peers) {
    const nc = await connection()
    nc.subscribe(SCATTER_SUBJECTS, {
      callback: (_e, m) => {
        const req = m.json<{ operationId: string }>()
        m.respond(enc.encode(JSON.stringify({ approve: true, operationId: req.operationId, branchId: peerId, attempt: 1, fence: 0, peerId })))
      },
    })
    await nc.flush()
  }
}

/**
 * The scatter-gather side's interaction: the same messages as the executor's, one request fanned
 * out (an operation id made as the executor makes one, `op` and a SHA-256 in hex, so the messages
 * are as long), gathering until four replies and counting approvals.
 */
export function scatterGather(client: NatsConnection): () => Promise<void> {
  const enc = new TextEncoder()
  const refund = { paymentId: 'pay-12345678', amount: 10 }
  let n = 0
  return async () => {
    const operationId = `op${createHash('sha256').update(`alice\0k${n++}`).digest('hex')}`
    const payload = { operationId, requestedBy: 'alice', refund }
    const replies = await client.requestMany(`payments.refunds.${operationId}.vote`, enc.encode(JSON.stringify(payload)), {
      strategy: 'count',
      maxMessages: 4,
      maxWait: 5000,
    })
    let approvals = 0
    for await (const m of replies) if (m.json<{ approve: boolean }>().approve === true) approvals++
    if (approvals < 4) throw new Error('scatter-gather: no quorum')
  }
}
