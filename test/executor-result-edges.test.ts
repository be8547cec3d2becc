/**
 * The edges of the executor's critical path against a real nats-server: results that arrive while
 * its requests are being published (before the dispatch's bookkeeping has run), and a vote read in
 * the same socket read as the deciding one. The executor's connection is wrapped so that the test
 * delivers the peers' ballots itself, at the moments that matter: inside the last publication, and
 * all five in one synchronous pass (as one read gives them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Msg, NatsConnection, SubscriptionOptions } from '@nats-io/nats-core'
import { planInteraction, simulate, type Executor } from '../src/runtime/nats/executor/index.js'
import { NATS_SERVER } from './helpers/nats-server.js'
import { startRig, variant, GROUP_PEERS, type Rig } from './helpers/executor-nats.js'
import { until } from './helpers/until.js'

const inputs = { group: 'approvers', refund: { paymentId: 'pay-12345678', amount: 10 } }
const encoder = new TextEncoder()
let key = 0

/** The executor's connection, its publications seen and its result subscription's callback kept. */
function intercept(nc: NatsConnection, onPublish: (subject: string, data: Uint8Array, count: number) => void) {
  let results: ((error: Error | null, msg: Msg) => void) | undefined
  let published = 0
  const subscribe = nc.subscribe.bind(nc)
  nc.subscribe = (subject: string, options?: SubscriptionOptions) => {
    if (subject.includes('.ballot.') && options?.callback) results = options.callback
    return subscribe(subject, options)
  }
  const publish = nc.publish.bind(nc)
  nc.publish = (subject: string, data?: Uint8Array | string) => {
    publish(subject, data)
    onPublish(subject, data as Uint8Array, ++published)
  }
  /** Ballots from `peers` for the request published to `subject`, delivered one after the other in one synchronous pass. */
  const deliver = (requestSubject: string, peers: readonly string[]) => {
    const operationId = requestSubject.split('.')[2]!
    for (const peerId of peers) {
      const ballot = { operationId, branchId: peerId, attempt: 1, fence: 0, peerId, approve: true }
      const msg = { subject: `payments.refunds.${operationId}.ballot.${peerId}`, data: encoder.encode(JSON.stringify(ballot)) } as unknown as Msg
      results!(null, msg)
    }
  }
  return { deliver }
}

const resultsOf = (executor: Executor<any>, id: string) => {
  const log = executor.log(id)
  return log.ok ? log.value.filter((e) => e.kind === 'result') : []
}

/**
 * Once all five ballots are logged: the operation's state and log, the state holding `decision` and
 * being what the reference model makes of the log (for the caller's further checks), or undefined.
 */
async function settled(executor: Executor<any>, id: string, policy: Parameters<typeof simulate>[0], decision: unknown) {
  await until('the fifth ballot logged', () => (resultsOf(executor, id).length === 5 ? true : undefined), 10_000, 5)
  const state = executor.state(id)
  const log = executor.log(id)
  expect(state.ok && log.ok).toBe(true)
  if (!state.ok || !log.ok) return undefined
  expect(state.value.decision).toEqual(decision)
  expect(simulate(policy, log.value)).toEqual(state.value)
  return { state: state.value, log: log.value }
}

describe.skipIf(!NATS_SERVER)('executor: results at the edges of the dispatch and of the decision', () => {
  let rig: Rig
  beforeAll(async () => {
    rig = await startRig('deferred')
  }, 60_000)
  afterAll(async () => {
    await rig?.stop()
  })

  /** A quorum executor (4 of 5) with remaining: detach, on a wrapped connection. */
  async function wrapped(onPublish: (subject: string, data: Uint8Array, count: number) => void) {
    const interaction = variant(rig.approve, { completion: { remaining: 'detach' } })
    const executor = await rig.executor(interaction)
    const { deliver } = intercept(rig.connections[rig.connections.length - 1]!, onPublish)
    const plan = planInteraction(interaction)
    if (!plan.ok) throw new Error(plan.message)
    return { executor, deliver, policy: plan.value.policy }
  }

  it('results that arrive while the requests are being published (before the dispatch is recorded) decide once it is', async () => {
    let request = ''
    const { executor, deliver, policy } = await wrapped((subject, _data, count) => {
      if (count === 1) request = subject
      // Inside the last publication: every ballot handled before the dispatch's bookkeeping ran.
      if (count === GROUP_PEERS.length) deliver(request, GROUP_PEERS)
    })
    const answer = await executor.invoke({ principalId: 'alice', idempotencyKey: `k${key++}`, inputs })
    expect(answer.ok).toBe(true)
    if (!answer.ok) return
    expect(answer.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold', successUnits: 4 })
    expect(answer.value.decision.votes.map((v) => v.peerId)).toEqual(['ann', 'bob', 'cat', 'dan'])
    // Every request's publication is recorded, though the results came before the records were made.
    expect(answer.value.publications.map((p) => [p.branchId, p.ok])).toEqual(GROUP_PEERS.map((p) => [p, true]))
    const id = answer.value.operationId
    await settled(executor, id, policy, answer.value.decision)
    await executor.close()
  })

  it('a vote read with the deciding one is logged and never counted; a cancel after the decision changes nothing', async () => {
    let request = ''
    const { executor, deliver, policy } = await wrapped((subject, _data, count) => {
      if (count === 1) request = subject
      // After the requests are written: all five ballots in one synchronous pass, as one socket read gives them.
      if (count === GROUP_PEERS.length) setImmediate(() => deliver(request, GROUP_PEERS))
    })
    const answer = await executor.invoke({ principalId: 'alice', idempotencyKey: `k${key++}`, inputs })
    expect(answer.ok).toBe(true)
    if (!answer.ok) return
    const id = answer.value.operationId
    expect(answer.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold', successUnits: 4 })
    // The decision is made and stays: a cancel after it answers the same decision.
    const cancelled = await executor.cancel(id)
    expect(cancelled.ok && cancelled.value).toEqual(answer.value.decision)
    const done = await settled(executor, id, policy, answer.value.decision)
    expect(done?.state.decision?.votes.some((v) => v.peerId === 'eve')).toBe(false)
    expect(done?.log.map((e) => e.kind)).toContain('cancel')
    await executor.close()
  })
})
