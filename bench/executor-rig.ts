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

export async function quorumExecutor(
  runtime: ExecutorRuntime,
  mod: any,
  doc: string,
  peers: readonly string[],
  conn: () => Promise<NatsConnection>,
): Promise<any> {
  const interaction = { ...mod.interactions.approveRefund, completion: { ...mod.interactions.approveRefund.completion, remaining: 'detach' } }
  for (const peerId of peers) {
    const r = await runtime.createResponder({ connection: await conn(), module: mod, interaction, peerId, handler: () => ({ approve: true }) })
    if (!r.ok) throw new Error(r.message)
  }
  const made = runtime.createExecutor({
    connection: await conn(),
    module: mod,
    interaction,
    contractDigest: createHash('sha256').update(readFileSync(doc)).digest('hex'),
    deployment: { senderPeerId: 'treasurer', scopeId: 's', systemId: 's', accountId: 'a', jetstreamDomain: 'd', policyRevision: 'p' },
    adapters: { audience: () => ({ revision: 'r', peers }), authorization: () => ({ allowed: true }), verifier: () => ({ allowed: true }) },
  })
  if (!made.ok) throw new Error(made.message)
  return made.value
}

/** The scatter-gather side's subject: each peer answers a request on it with its ballot. */
export const SCATTER_SUBJECT = 'bench.refunds.vote'

/** The scatter-gather side's peers: one connection each, replying with an approving ballot to the request's inbox. */
export async function scatterGatherPeers(peers: readonly string[], connection: () => Promise<NatsConnection>): Promise<void> {
  const enc = new TextEncoder()
  for (const peerId of peers) {
    const nc = await connection()
    nc.subscribe(SCATTER_SUBJECT, {
      callback: (_e, m) => {
        const req = m.json<{ operationId: string }>()
        m.respond(enc.encode(JSON.stringify({ operationId: req.operationId, branchId: peerId, attempt: 1, fence: 0, peerId, approve: true })))
      },
    })
    await nc.flush()
  }
}
