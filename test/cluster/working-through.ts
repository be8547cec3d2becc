/**
 * One scenario, several faults: the three couriers' handlers are running (longer than a renewal
 * period, renewing their claims) when `fault` strikes the cluster; once the claim bucket has a
 * leader again and every claim was renewed on it, the handlers finish. What must hold: no handler
 * aborted (a courier aborts only on a stale claim or a lease about to lapse, not on a renewal an
 * election left unanswered), each finished on its first attempt, and the fault invariants
 * (./invariants.ts): results admitted with their committed fences, decided once, nothing lost.
 */
import { expect } from 'vitest'
import type { Interaction } from '../../src/runtime/nats/interactions.js'
import { operationId } from '../../src/runtime/nats/interactions.js'
import { openClaimStore } from '../../src/runtime/nats/executor/index.js'
import { claimKey } from '../../src/runtime/nats/executor/durable/executor.js'
import { shipmentInputs } from '../helpers/executor-durable-config.js'
import { variant } from '../helpers/executor-nats.js'
import type { NatsCluster } from '../helpers/nats-cluster.js'
import { until } from '../helpers/until.js'
import { onCluster, STREAM, type DurableWorld } from './durable-world.js'
import { bounded, expectFanOutSettled } from './invariants.js'

/** An independent fan-out to the three couriers, decided when every branch is terminal. */
export const fanOut = (world: DurableWorld): Interaction =>
  variant(onCluster(world.module.interactions.assignCourier as Interaction), { dispatch: { mode: 'independent' }, completion: { mode: 'all-terminal' } })

export interface Fault {
  /**
   * Strikes (the claim bucket's stream named; `leases` reads c-ann's, c-bob's and c-cat's claim leases
   * as the cluster holds them now); answers once the claim stream has a leader again.
   */
  strike(claimStream: string, leases: () => Promise<number[]>): Promise<void>
  /** Undoes what it can (a node thawed) while the handlers finish, or undefined. */
  heal?(): Promise<void>
}

/** Runs the scenario under `fault`; the caller makes the cluster whole again afterwards. */
export async function couriersWorkingThrough(world: DurableWorld, cluster: NatsCluster, idempotencyKey: string, fault: Fault): Promise<void> {
  const interaction = fanOut(world)
  const [n1, n2, n3] = cluster.nodes.map((n) => n.url) as [string, string, string]
  const others = (first: string) => [first, ...cluster.servers.filter((s) => s !== first)]
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  world.reset()
  // Each courier on another node: whichever node the fault strikes, a courier may be on it mid-handler.
  await world.couriers(interaction, {
    'c-ann': { accepted: true, gate, servers: others(n1) },
    'c-bob': { accepted: false, gate, servers: others(n2) },
    'c-cat': { accepted: true, gate, servers: others(n3) },
  })
  const invocation = { principalId: 'dispatcher', idempotencyKey, inputs: shipmentInputs }
  const id = await operationId(invocation.principalId, world.digest, invocation.idempotencyKey)
  const ex = world.executor(interaction, await world.open(cluster.servers))
  const claimStream = `KV_${world.binding.claimBucket!}`
  const claims = await openClaimStore(await world.open([...cluster.servers].reverse()), world.binding.claimBucket!)
  if (!claims.ok) throw new Error(claims.message)
  /** Each courier's claim lease as the claim stream holds it now (bounded retries through an election). */
  const leases = () =>
    until(
      'every claim readable',
      async () => {
        const read = await Promise.all(['c-ann', 'c-bob', 'c-cat'].map((b) => claims.value.read(claimKey(id, b))))
        return read.every((r) => r.ok && r.value) ? read.map((r) => (r.ok ? r.value!.claim.leaseUntilMs : 0)) : undefined
      },
      30_000,
      200,
    )
  const renewed = async (what: string) => {
    const from = await leases()
    await until(what, async () => ((await leases()).every((l, i) => l > from[i]!) ? true : undefined), 30_000, 200)
  }
  try {
    const answer = ex.invoke(invocation)
    await until('every courier handling its offer', () => (world.handled.size === 3 ? true : undefined), 30_000)
    const acknowledged = await world.subjects(`shipping.couriers.${id}.offer.*`)
    // Handlers take longer than a renewal period: renewals are under way before the fault.
    await renewed('a renewal of every claim before the fault')
    await fault.strike(claimStream, leases)
    // Renewals go on on the new leader while the handlers still run.
    await renewed('every claim renewed on the new leader')
    // The handlers finish while the fault heals (a frozen node thawed meanwhile catches up under their results).
    release()
    const healing = fault.heal?.()
    const result = await bounded('the fan-out decided', answer, 160_000)
    await healing
    // Read once the request stream's replicas are current under one leader: a thawed node that led
    // it answers from behind (its results missing) until it hears it was replaced.
    await cluster.ready()
    await cluster.streamLeader(STREAM)
    if (!result.ok) throw new Error(result.message)
    expect(world.aborted).toEqual(new Map())
    expect(Object.fromEntries(world.handled)).toEqual({ 'c-ann': 1, 'c-bob': 1, 'c-cat': 1 })
    expectFanOutSettled(result.value, ex)
    await world.invariants(interaction, ex, result.value, acknowledged)
  } finally {
    release()
    await ex.close()
    await world.closeCouriers()
  }
}
