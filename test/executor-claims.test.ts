/** Branch claims in JetStream KV against a real nats-server: the fence is a KV revision, and a replaced or expired holder can change nothing. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect } from '@nats-io/transport-node'
import type { NatsConnection } from '@nats-io/nats-core'
import { openClaimStore, type ClaimStore } from '../src/runtime/nats/executor/ownership/claims.js'
import { NATS_SERVER, startNatsServer, type NatsServer } from './helpers/nats-server.js'

describe.skipIf(!NATS_SERVER)('claims in JetStream KV', () => {
  let server: NatsServer
  let executorSide: NatsConnection
  let peerSide: NatsConnection
  let store: ClaimStore
  let peerStore: ClaimStore
  beforeAll(async () => {
    server = await startNatsServer()
    executorSide = await connect({ servers: server.url })
    peerSide = await connect({ servers: server.url })
    const a = await openClaimStore(executorSide, 'claims')
    const b = await openClaimStore(peerSide, 'claims')
    if (!a.ok || !b.ok) throw new Error('no claim store')
    store = a.value
    peerStore = b.value
  }, 30_000)
  afterAll(async () => {
    await executorSide?.close()
    await peerSide?.close()
    await server?.stop()
  })

  it('two renewals of one holder at once (a late one of its own beside the next): both land, neither is told the claim is stale', async () => {
    // Both read the key at one revision; the second compare-and-set finds the first's write. The
    // claim still passes the holder's check on a second read, so it is written again, not refused:
    // a lone writer is never told its claim is stale by its own earlier write.
    const made = await store.claim('op9.branch', { peerId: 'ann', attempt: 1, leaseUntilMs: 1000 }, 0)
    if (!made.ok) throw new Error(made.message)
    const fence = made.value.claim.fence
    for (let round = 0; round < 5; round++) {
      const both = await Promise.all([store.renew('op9.branch', 'ann', fence, 2000 + round, 0), peerStore.renew('op9.branch', 'ann', fence, 3000 + round, 0)])
      expect(both.map((r) => (r.ok ? 'ok' : r.code))).toEqual(['ok', 'ok'])
    }
    // Another writer's change still fails the check: a takeover's old holder is refused as stale.
    const current = await store.read('op9.branch')
    if (!current.ok || !current.value) throw new Error('no claim')
    const takeover = await store.claim('op9.branch', { peerId: 'bob', attempt: 2, leaseUntilMs: 5000 }, current.value.revision)
    expect(takeover.ok).toBe(true)
    expect(await peerStore.renew('op9.branch', 'ann', fence, 9000, 0)).toMatchObject({ ok: false, code: 'CLAIM_STALE' })
  })

  it('a claim is fenced by its KV revision; renewal keeps the fence; a takeover has a higher fence and the old holder can do nothing', async () => {
    expect(await store.read('op1.branch')).toEqual({ ok: true, value: null })
    const first = await store.claim('op1.branch', { peerId: 'ann', attempt: 1, leaseUntilMs: 1000 }, 0)
    if (!first.ok) throw new Error(first.message)
    const fence = first.value.claim.fence
    expect(fence).toBeGreaterThan(0)
    expect(first.value.revision).toBeGreaterThan(fence)
    const renewed = await peerStore.renew('op1.branch', 'ann', fence, 2000, 500)
    expect(renewed.ok && renewed.value.claim).toMatchObject({ fence, leaseUntilMs: 2000, state: 'held' })
    expect(await peerStore.renew('op1.branch', 'bob', fence, 3000, 600)).toMatchObject({ ok: false, code: 'CLAIM_NOT_YOURS' })
    // A claim written against an old revision loses the compare-and-set.
    expect(await store.claim('op1.branch', { peerId: 'bob', attempt: 2, leaseUntilMs: 5000 }, first.value.revision)).toMatchObject({
      ok: false,
      code: 'CLAIM_STALE',
    })
    const current = await store.read('op1.branch')
    if (!current.ok || !current.value) throw new Error('no claim')
    const takeover = await store.claim('op1.branch', { peerId: 'bob', attempt: 2, leaseUntilMs: 5000 }, current.value.revision)
    if (!takeover.ok) throw new Error(takeover.message)
    expect(takeover.value.claim.fence).toBeGreaterThan(fence)
    expect(await peerStore.renew('op1.branch', 'ann', fence, 9000, 700)).toMatchObject({ ok: false, code: 'CLAIM_STALE' })
    expect(await peerStore.commit('op1.branch', 'ann', fence, 700)).toMatchObject({ ok: false, code: 'CLAIM_STALE' })
    const committed = await peerStore.commit('op1.branch', 'bob', takeover.value.claim.fence, 800)
    expect(committed.ok && committed.value.claim).toMatchObject({ peerId: 'bob', attempt: 2, state: 'committed' })
    expect(await peerStore.commit('op1.branch', 'bob', takeover.value.claim.fence, 900)).toMatchObject({ ok: false, code: 'CLAIM_EXPIRED' })
  })

  it('a lease expires only once past; then its holder can neither renew nor commit', async () => {
    const made = await store.claim('op2.branch', { peerId: 'cat', attempt: 1, leaseUntilMs: 1000 }, 0)
    if (!made.ok) throw new Error(made.message)
    const fence = made.value.claim.fence
    expect(await store.expire('op2.branch', fence, 999)).toMatchObject({ ok: false, code: 'CLAIM_EXPIRED' })
    expect(await peerStore.commit('op2.branch', 'cat', fence, 1000)).toMatchObject({ ok: false, code: 'CLAIM_EXPIRED' })
    const expired = await store.expire('op2.branch', fence, 1000)
    expect(expired.ok && expired.value.claim.state).toBe('expired')
    expect(await peerStore.renew('op2.branch', 'cat', fence, 5000, 500)).toMatchObject({ ok: false, code: 'CLAIM_EXPIRED' })
  })

  it('answers bad keys and bucket names with a result', async () => {
    expect(await store.read('a b')).toMatchObject({ ok: false, code: 'CLAIM_STORE_FAILED' })
    expect(await store.claim('>', { peerId: 'x', attempt: 1, leaseUntilMs: 1 }, 0)).toMatchObject({ ok: false, code: 'CLAIM_STORE_FAILED' })
    expect(await openClaimStore(executorSide, 'no.dots')).toMatchObject({ ok: false, code: 'CLAIM_STORE_FAILED' })
  })
})
