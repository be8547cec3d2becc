/**
 * The responder (memory state) under a flood of valid requests, against a real nats-server: core
 * delivery has no flow control, and each request it ran started a handler at once, so a burst of
 * requests became as many handlers (and as many requests held in memory) as were sent. It now runs
 * at most 64 at once, holds 1,024 in arrival order, and drops the rest unanswered (what a request
 * lost on the way gets: the executor's deadline and retries decide). Waits are bounded polls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createResponder, type Responder } from '../src/runtime/nats/executor/index.js'
import { NATS_SERVER } from './helpers/nats-server.js'
import { startRig, type Rig } from './helpers/executor-nats.js'

const OPERATION = `op${'a'.repeat(64)}`
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.skipIf(!NATS_SERVER)('the responder under a flood of requests', () => {
  let rig: Rig
  let responder: Responder | undefined

  beforeAll(async () => {
    rig = await startRig('responder-bounds')
  }, 60_000)

  afterAll(async () => {
    await responder?.close()
    await rig?.stop()
  })

  it('runs at most 64 handlers at once, holds 1,024 requests in arrival order, and drops the rest unanswered', async () => {
    const nc = await rig.connection()
    let open!: () => void
    const released = new Promise<void>((resolve) => (open = resolve))
    const started: string[] = []
    let running = 0
    let most = 0
    const made = await createResponder<{ branchId: string }, { approve: boolean }>({
      connection: nc,
      module: rig.module,
      interaction: rig.approve,
      peerId: 'bob',
      handler: async ({ branchId }) => {
        started.push(branchId)
        most = Math.max(most, ++running)
        await released
        running--
        return { approve: true }
      },
    })
    if (!made.ok) throw new Error(made.message)
    responder = made.value
    const peer = await rig.connection()
    const n = 2000
    for (let i = 0; i < n; i++)
      peer.publish(
        `payments.refunds.${OPERATION}.vote.bob`,
        JSON.stringify({
          operationId: OPERATION,
          branchId: `b${i}`,
          attempt: 1,
          fence: 1,
          peerId: 'bob',
          requestedBy: 'alice',
          refund: { paymentId: 'pay-12345678', amount: 10 },
        }),
      )
    await peer.flush()
    // Every request has reached the responder's connection once a round trip on it returns after them.
    await nc.flush()
    for (let i = 0; i < 100 && started.length < 64; i++) await pause(20)
    await pause(100)
    expect(started).toEqual(Array.from({ length: 64 }, (_, i) => `b${i}`))
    open()
    for (let i = 0; i < 200 && responder.published() < 64 + 1024; i++) await pause(50)
    await pause(200)
    expect(most).toBe(64)
    // The 1,024 that waited ran in the order they came; the other 912 were never handled nor answered.
    expect(started).toEqual(Array.from({ length: 64 + 1024 }, (_, i) => `b${i}`))
    expect(responder.published()).toBe(64 + 1024)
  }, 60_000)
})
