/**
 * Faults the cluster suites share (each run inside a suite, on its cluster, with its durable world):
 * - a route cut with both ends running: a node cut off its peers (./../helpers/route-proxy.ts) while
 *   it runs and its clients stay connected, then restored;
 * - a handler outliving its lease while its courier is cut off the cluster: the claim expires,
 *   another attempt takes over, the late result is refused by its fence and adds no vote;
 * - `publishOnce` (the executor's JetStream publication) retried back to back through a stream
 *   leader change: stored once under its message id.
 * Invariants through ./invariants.ts.
 */
import { expect } from 'vitest'
import type { NatsConnection } from '@nats-io/nats-core'
import { jetstreamManager } from '@nats-io/jetstream'
import type { Interaction } from '../../src/runtime/nats/interactions.js'
import { operationId } from '../../src/runtime/nats/interactions.js'
import { openClaimStore } from '../../src/runtime/nats/executor/index.js'
import { claimKey } from '../../src/runtime/nats/executor/durable/executor.js'
import { publishOnce } from '../../src/runtime/nats/executor/delivery/jetstream.js'
import { patient, shipmentInputs } from '../helpers/executor-durable-config.js'
import type { NatsCluster } from '../helpers/nats-cluster.js'
import { freePort } from '../helpers/nats-server.js'
import { startTcpProxy } from '../helpers/route-proxy.js'
import { until } from '../helpers/until.js'
import { STREAM, type DurableWorld } from './durable-world.js'
import { bounded, storedSubjects } from './invariants.js'
import { couriersWorkingThrough } from './working-through.js'

/**
 * Couriers working through a route cut: the node c-ann's client is connected to is cut off its
 * peers by its routes while every handler runs (both ends keep running; c-ann's connection stays
 * up), until c-bob and c-cat have renewed their claims twice more on the other side while c-ann's
 * lease stood still; then its routes come back. The caller makes the cluster whole afterwards.
 */
export async function couriersThroughRouteCut(world: DurableWorld, cluster: NatsCluster): Promise<void> {
  // couriersWorkingThrough connects c-ann to the first node, c-bob to the second, c-cat to the third.
  const node = cluster.nodes[0]!.name
  let cut = false
  try {
    await couriersWorkingThrough(world, cluster, 'cluster-route-cut', {
      strike: async (claimStream, leases) => {
        const leader = await cluster.streamLeader(claimStream)
        await cluster.cutRoutes(node)
        cut = true
        // The claim stream elects without the cut node when it led it; c-ann, alone with it, renews nothing.
        if (leader === node) await cluster.newStreamLeader(claimStream, node)
        const [ann, bob, cat] = (await leases()) as [number, number, number]
        await until(
          'c-bob and c-cat renewing on the other side while c-ann cannot',
          async () => {
            const now = (await leases()) as [number, number, number]
            if (now[0] !== ann) throw new Error(`c-ann renewed its claim through a cut node (${ann} -> ${now[0]})`)
            return now[1] > bob + 1000 && now[2] > cat + 1000 ? true : undefined
          },
          30_000,
          200,
        )
        await cluster.restoreRoutes(node)
        cut = false
        await cluster.ready()
      },
    })
  } finally {
    if (cut) await cluster.restoreRoutes(node)
  }
  // The cut was between servers only: no courier's client connection dropped.
  expect(Object.fromEntries(world.disconnects)).toEqual({})
}

/**
 * A handler outliving its lease while its courier is cut off the cluster: c-ann's connection (through
 * a loopback proxy) is cut while its handler runs, and c-ann's process stalls with it (its clock
 * stops: it neither renews nor sees its lease run out, so nothing aborts the handler). The claim
 * expires; the executor offers attempt 2 to c-bob under a new claim, and c-bob's answer decides.
 * c-ann's handler then finishes late: once its connection is back its commit meets the new fence
 * and is refused, so nothing is published and attempt 1 adds no vote.
 */
export async function handlerOutlivingItsLease(world: DurableWorld, cluster: NatsCluster, idempotencyKey: string): Promise<void> {
  // A 3 s lease renewed every 500 ms: lost to a cut of a few seconds.
  const interaction: Interaction = patient(world.module.interactions.assignCourier as Interaction, 150_000, {}, { leaseMs: 3000, renewEveryMs: 500 })
  const home = cluster.nodes[2]!
  const link = await startTcpProxy(home.port, freePort)
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  let stalledAt: number | undefined
  world.reset()
  await world.couriers(interaction, {
    'c-ann': { accepted: true, gate, servers: [`nats://127.0.0.1:${link.port}`], pinned: true, ignoresAbort: true, now: () => stalledAt ?? Date.now() },
    'c-bob': { accepted: true, servers: cluster.servers },
  })
  const observer = await world.open(cluster.servers)
  const claims = await openClaimStore(observer, world.binding.claimBucket!)
  if (!claims.ok) throw new Error(claims.message)
  const ex = world.executor(interaction, await world.open(cluster.servers))
  const invocation = { principalId: 'dispatcher', idempotencyKey, inputs: shipmentInputs }
  const id = await operationId(invocation.principalId, world.digest, invocation.idempotencyKey)
  const key = claimKey(id, 'c-ann')
  const subjects = (kind: 'offer' | 'accept') => storedSubjects(observer, STREAM, `shipping.couriers.${id}.${kind}.*`)
  try {
    const answer = ex.invoke(invocation)
    await until('c-ann handling attempt 1', () => (world.handled.get('c-ann') === 1 ? true : undefined), 30_000)
    const acknowledged = await subjects('offer')
    const first = await claims.value.read(key)
    if (!first.ok || !first.value) throw new Error('no claim for attempt 1')
    const fence = first.value.claim.fence
    stalledAt = Date.now()
    link.cut()
    // The lease passes unrenewed: the executor expires the claim, attempt 2 goes to c-bob, whose answer decides.
    const result = await bounded('the offer decided', answer, 160_000)
    if (!result.ok) throw new Error(result.message)
    // Attempt 1's handler finishes late, not aborted (its process saw no time pass); then the process
    // goes on and its connection comes back: its commit meets the new fence, its request is acknowledged.
    release()
    await until('c-ann handler finished', () => (world.returned.get('c-ann') === 1 ? true : undefined), 30_000)
    stalledAt = undefined
    link.restore()
    const jsm = await jetstreamManager(observer, { timeout: 5000 })
    await until(
      'c-ann request settled',
      async () => {
        const info = await jsm.consumers.info(STREAM, 'exec-assignCourier-c-ann').catch(() => undefined)
        return info && info.num_pending === 0 && info.num_ack_pending === 0 ? true : undefined
      },
      60_000,
      200,
    )
    const [branch] = result.value.state.branches
    const last = await claims.value.read(key)
    if (!branch || !last.ok || !last.value) throw new Error('no branch or no claim')
    // Another attempt took over under a higher fence; it is the only vote.
    expect(branch).toMatchObject({ branchId: 'c-ann', peerId: 'c-bob', attempt: 2, status: 'succeeded' })
    expect(last.value.claim).toMatchObject({ peerId: 'c-bob', attempt: 2, fence: branch.fence, state: 'committed' })
    expect(branch.fence).toBeGreaterThan(fence)
    expect(result.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold' })
    expect(result.value.decision.votes).toEqual([expect.objectContaining({ branchId: 'c-ann', peerId: 'c-bob', attempt: 2, fence: branch.fence })])
    expect([Object.fromEntries(world.handled), Object.fromEntries(world.aborted)]).toEqual([{ 'c-ann': 1, 'c-bob': 1 }, {}])
    // The late result was refused by its fence: never published (c-bob's is the only result), never in the log.
    expect(await subjects('accept')).toEqual({ [`shipping.couriers.${id}.accept.c-bob`]: 1 })
    const log = ex.log(id)
    if (!log.ok) throw new Error(log.message)
    expect(log.value.filter((e) => e.kind === 'result').map((e) => [(e as { peerId: string }).peerId, (e as { attempt: number }).attempt])).toEqual([
      ['c-bob', 2],
    ])
    expect(await claims.value.commit(key, 'c-ann', fence, Date.now())).toMatchObject({ ok: false, code: 'CLAIM_STALE' })
    await world.invariants(interaction, ex, result.value, acknowledged)
  } finally {
    release()
    stalledAt = undefined
    link.restore()
    await ex.close()
    await world.closeCouriers()
    await link.close()
  }
}

/**
 * `publishOnce` called back to back with one message id while the stream's leader is killed and
 * another elected: every answer it gives names the same sequence, and the stream stores the
 * message once. The killed node is restarted afterwards (the cluster left whole).
 */
export async function publishOnceThroughLeaderChange(
  cluster: NatsCluster,
  connection: NatsConnection,
  stream: string,
  subject: string,
  payload: unknown,
): Promise<void> {
  const msgId = `publish-once-${subject}`
  const answers: Array<{ seq: number; duplicate: boolean } | string> = []
  let killed: string | undefined
  let elected: string | undefined
  const kill = (async () => {
    // Once the first answer is in: the kill meets the calls that follow it.
    await until('a first answer', () => (answers.length > 0 ? true : undefined), 30_000, 10)
    killed = await cluster.killStreamLeader(stream)
    elected = await cluster.newStreamLeader(stream, killed)
  })()
  try {
    // Back to back (25 ms apart), bounded: 90 s at most; done once three answers came after the new leader was known.
    const end = Date.now() + 90_000
    let afterElection = 0
    while (afterElection < 3 && Date.now() < end) {
      const sent = await publishOnce(connection, subject, payload, msgId)
      answers.push(sent.ok ? sent.value : sent.message)
      if (elected && sent.ok) afterElection++
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    await kill
    expect(afterElection).toBe(3)
  } finally {
    await kill.catch(() => undefined)
    if (killed) {
      await cluster.restart(killed)
      await cluster.ready()
      await cluster.streamLeader(stream)
    }
  }
  const acked = answers.filter((a): a is { seq: number; duplicate: boolean } => typeof a !== 'string')
  // One sequence across the leader change: the first acknowledgment stored it, every later one is a duplicate of it.
  expect(new Set(acked.map((a) => a.seq)).size).toBe(1)
  expect(acked.map((a) => a.duplicate)).toEqual([false, ...Array(acked.length - 1).fill(true)])
  expect(await storedSubjects(connection, stream, subject)).toEqual({ [subject]: 1 })
  const jsm = await jetstreamManager(connection, { timeout: 5000 })
  expect((await jsm.streams.getMessage(stream, { seq: acked[0]!.seq }))?.json()).toEqual(payload)
}
