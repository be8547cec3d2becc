/**
 * The executor (src/runtime/nats/executor) on a real 3-node JetStream cluster, under faults
 * (test/helpers/nats-cluster.ts): its KV claims and fences while a node, then the claim stream's
 * leader, is killed and restarted; holders renewing and contenders racing for one claim through one
 * leader's death; the memory executor's request/result path while the nodes its peers are on are
 * killed mid-interaction.
 * The durable executor has its own suite (./durable.ts). The claim bucket is made by openClaimStore
 * (three replicas by default on a cluster); its writes are settled when their answer is lost.
 * Invariants in every fault test: no acknowledged claim write lost, no decision taken twice, no
 * commit (result) admitted from a stale fence, every wait bounded.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { connect } from '@nats-io/transport-node'
import { jetstreamManager } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/nats-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/index.js'
import type { Interaction } from '../../src/runtime/nats/interactions.js'
import {
  createExecutor,
  createResponder,
  openClaimStore,
  type ClaimStore,
  type ExecutorModule,
  type Responder,
  type StoredClaim,
} from '../../src/runtime/nats/executor/index.js'
import type { ExecutorResult } from '../../src/runtime/nats/executor/result.js'
import { deployment, GROUP_PEERS, variant, type Ballot } from '../helpers/executor-nats.js'
import { loadModule } from '../helpers/load-module.js'
import { ShopBundle } from '../helpers/nats-bundle.js'
import { groupPeers, NATS_SERVER, startNatsCluster, type NatsCluster } from '../helpers/nats-cluster.js'
import { until } from '../helpers/until.js'
import { bounded, expectDecidedOnce } from './invariants.js'

const BUCKET = 'claims'
const STREAM = `KV_${BUCKET}`
/** The application's connection options for a cluster: the servers in the order given, quick reconnects. */
const options = (servers: string[]) => ({ servers, reconnectTimeWait: 100, maxReconnectAttempts: -1, timeout: 5000, noRandomize: true })
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * A claim-store call retried while the cluster has no leader for the bucket (the store answers
 * CLAIM_STORE_FAILED, or CLAIM_UNCERTAIN when a write's answer was lost and the key could not be
 * read to settle it); any other answer (held by another, stale) is final. Bounded: 60 tries.
 */
async function settled<T>(call: () => Promise<ExecutorResult<T>>): Promise<ExecutorResult<T>> {
  let last: ExecutorResult<T> | undefined
  for (let i = 0; i < 60; i++) {
    last = await call()
    if (last.ok || (last.code !== 'CLAIM_STORE_FAILED' && last.code !== 'CLAIM_UNCERTAIN')) return last
    await sleep(250)
  }
  return last!
}

/**
 * Registers this suite; `test/cluster.test.ts` runs it beside the other cluster suites (each on its
 * own cluster), its tests in order.
 */
export function executorOnCluster(): void {
  describe.skipIf(!NATS_SERVER)('the executor on a 3-node JetStream cluster, under faults', () => {
    let cluster: NatsCluster
    const connections: NatsConnection[] = []
    const open = async (servers: string[]) => {
      const c = await connect(options(servers))
      connections.push(c)
      return c
    }
    let store: ClaimStore
    let peerStore: ClaimStore

    beforeAll(async () => {
      cluster = await startNatsCluster(3, 'x')
      const nc = await open(cluster.servers)
      // openClaimStore creates the bucket: three replicas by default on a cluster.
      const a = await openClaimStore(nc, BUCKET)
      const b = await openClaimStore(await open([...cluster.servers].reverse()), BUCKET)
      if (!a.ok || !b.ok) throw new Error('no claim store')
      store = a.value
      peerStore = b.value
      await cluster.streamLeader(STREAM)
    }, 60_000)

    afterAll(async () => {
      for (const c of connections) await c.close().catch(() => undefined)
      await cluster?.stop()
    })

    it.sequential(
      'the claim bucket is made with the replicas the deployment says: 3 by default on a cluster, 5 refused by a 3-node cluster in a sentence',
      async () => {
        const jsm = await jetstreamManager(connections[0]!, { timeout: 5000 })
        const info = await jsm.streams.info(STREAM)
        expect(info.config).toMatchObject({ num_replicas: 3, max_msgs_per_subject: 1, deny_delete: true, allow_direct: false, discard: 'new' })
        expect(groupPeers(info.cluster)).toHaveLength(3)
        const five = await openClaimStore(connections[0]!, 'claims_five', { replicas: 5 })
        expect(five).toMatchObject({ ok: false, code: 'CLAIM_STORE_FAILED', message: expect.stringMatching(/claims_five.*(insufficient|replicas|placement)/i) })
        const one = await openClaimStore(connections[0]!, 'claims_one', { replicas: 1 })
        expect(one.ok).toBe(true)
        expect((await jsm.streams.info('KV_claims_one')).config.num_replicas).toBe(1)
        expect(await openClaimStore(connections[0]!, 'claims_two', { replicas: 2 as never })).toMatchObject({ ok: false, code: 'CLAIM_STORE_FAILED' })
      },
    )

    /** ann's claim, renewed while a follower was away; the claim stream's leader dies under it in the next test. */
    let annFence = 0

    it.sequential(
      'claims and fences while a follower is partitioned away (killed, restarted on its store): the leader keeps its quorum, an acknowledged renewal keeps its fence',
      async () => {
        const held = await settled(() => store.claim('op1.ann', { peerId: 'ann', attempt: 1, leaseUntilMs: 1000 }, 0))
        if (!held.ok) throw new Error(held.message)
        const fence = held.value.claim.fence
        annFence = fence

        // A follower dies: the leader keeps its quorum; renewals go on, the fence stays.
        const leader = await cluster.streamLeader(STREAM)
        const follower = cluster.nodes.find((n) => n.name !== leader)!.name
        await cluster.kill(follower)
        const renewed = await settled(() => peerStore.renew('op1.ann', 'ann', fence, 2000, 500))
        expect(renewed.ok && renewed.value.claim).toMatchObject({ peerId: 'ann', fence, leaseUntilMs: 2000, state: 'held' })
        await cluster.restart(follower)
        await cluster.ready()
        await cluster.streamLeader(STREAM)
      },
    )

    it.sequential(
      'the claim stream leader killed while eight holders renew their own claims and five contenders race for one claim: a lost answer is settled by re-reading (never reported stale to a lone writer), every acknowledged renewal survives; at most one contender holds the claim, exactly one commit is admitted, every stale fence is refused; the renewal acknowledged while a follower was away survives, the takeover fence is higher, the stale holder commits nothing',
      async () => {
        // Eight holders, each renewing its own key: nobody else writes a key, so a stale answer is always wrong.
        const holders = Array.from({ length: 8 }, (_, i) => `w${i}`)
        const fences = new Map<string, number>()
        for (const h of holders) {
          const made = await settled(() => store.claim(`op3.${h}`, { peerId: h, attempt: 1, leaseUntilMs: 1_000_000 }, 0))
          if (!made.ok) throw new Error(made.message)
          fences.set(h, made.value.claim.fence)
        }
        const answers: string[] = []
        /** The lease of each holder's last acknowledged renewal. */
        const acknowledged = new Map<string, number>()
        let stop = false
        // Bounded by time, not by a count: on a loaded machine a count could run out before the new
        // leader is elected, and the renewals the test waits for there would never come.
        const renewUntil = Date.now() + 150_000
        const renewals = holders.map(async (h, index) => {
          // Each holder renews until the new leader has taken two more each (stop), or the bound.
          for (let i = 1; !stop && Date.now() < renewUntil; i++) {
            const lease = 1_000_000 + i
            const renewed = await (index % 2 === 0 ? store : peerStore).renew(`op3.${h}`, h, fences.get(h)!, lease, 0)
            answers.push(renewed.ok ? 'ok' : renewed.code)
            if (renewed.ok) acknowledged.set(h, lease)
            else await sleep(50)
          }
        })
        const key = 'op2.branch'
        const contenders = GROUP_PEERS
        /** Reads and claims that found no leader (or lost the compare-and-set): the race met the fault. */
        let failures = 0
        /** Each contender claims while nobody holds the key; an answer it cannot trust (no leader) is tried again. */
        const contend = async (peerId: string): Promise<StoredClaim | undefined> => {
          for (let i = 0; i < 60; i++) {
            const current = await store.read(key)
            if (!current.ok) {
              failures++
              await sleep(100)
              continue
            }
            if (current.value !== null) return undefined
            const mine = await store.claim(key, { peerId, attempt: 1, leaseUntilMs: 5000 }, 0)
            if (mine.ok) return mine.value
            failures++
            await sleep(100)
          }
          return undefined
        }
        await until('renewals under way', () => (answers.length >= 16 ? true : undefined), 20_000)
        const killed = await cluster.killStreamLeader(STREAM)
        // The leader is dead before the race starts: the contenders meet the election and race on the new leader.
        const race = Promise.all(contenders.map(contend))
        await cluster.newStreamLeader(STREAM, killed)
        const mark = answers.length
        await until('renewals on the new leader', () => (answers.slice(mark).filter((a) => a === 'ok').length >= 16 ? true : undefined), 30_000).catch(
          (error: unknown) => {
            // What the renewals answered since the election, to tell a count run out from a leader that took none.
            const since: Record<string, number> = {}
            for (const a of answers.slice(mark)) since[a] = (since[a] ?? 0) + 1
            throw new Error(`${String(error)}; answers since the election: ${JSON.stringify(since)}`)
          },
        )
        stop = true
        await Promise.all(renewals)
        const winners = (await race).filter((w): w is StoredClaim => w !== undefined)
        expect(answers.filter((a) => a === 'CLAIM_STALE' || a === 'CLAIM_NOT_YOURS' || a === 'CLAIM_EXPIRED')).toEqual([])
        // Each key holds its holder's last acknowledged renewal, or a later one whose answer was lost.
        for (const h of holders) {
          const final = await settled(() => store.read(`op3.${h}`))
          if (!final.ok || !final.value) throw new Error(`op3.${h} lost`)
          expect(final.value.claim).toMatchObject({ peerId: h, fence: fences.get(h), state: 'held' })
          expect(final.value.claim.leaseUntilMs).toBeGreaterThanOrEqual(acknowledged.get(h) ?? 0)
        }

        expect(failures).toBeGreaterThan(0)
        expect(winners.length).toBeLessThanOrEqual(1)
        // A claim left half-made by an uncertain write (its fence never stamped) expires with its lease; a recovery claim takes over.
        let holder = winners[0]
        if (!holder) {
          const current = await settled(() => store.read(key))
          if (!current.ok || !current.value) throw new Error('the race left neither a claim nor a placeholder')
          const expired = await settled(() => store.expire(key, current.value!.claim.fence, 5000))
          if (!expired.ok) throw new Error(expired.message)
          const recovered = await settled(() => store.claim(key, { peerId: 'recovery', attempt: 2, leaseUntilMs: 9000 }, expired.value.revision))
          if (!recovered.ok) throw new Error(recovered.message)
          holder = recovered.value
        }
        // Every contender tries to commit with the fence it would have: only the current holder's is admitted.
        const commits = await Promise.all(
          [...contenders, 'recovery'].map((peerId) =>
            settled(() => peerStore.commit(key, peerId, peerId === holder.claim.peerId ? holder.claim.fence : 0, 4000)),
          ),
        )
        expect(commits.filter((c) => c.ok)).toHaveLength(1)
        expect(commits.filter((c) => !c.ok).map((c) => !c.ok && c.code)).toEqual(
          Array(contenders.length).fill(expect.stringMatching(/^CLAIM_(STALE|NOT_YOURS)$/)),
        )
        const final = await settled(() => store.read(key))
        expect(final.ok && final.value?.claim).toMatchObject({ peerId: holder.claim.peerId, fence: holder.claim.fence, state: 'committed' })

        // ann's claim, renewed while a follower was away: the new leader holds the acknowledged renewal.
        const fence = annFence
        const after = await settled(() => store.read('op1.ann'))
        expect(after.ok && after.value?.claim).toEqual({ peerId: 'ann', attempt: 1, fence, leaseUntilMs: 2000, state: 'held' })
        // The lease passes; bob takes over with a higher fence; ann, holding the old fence, can neither renew nor commit.
        const expired = await settled(() => store.expire('op1.ann', fence, 2000))
        if (!expired.ok) throw new Error(expired.message)
        const takeover = await settled(() => store.claim('op1.ann', { peerId: 'bob', attempt: 2, leaseUntilMs: 9000 }, expired.value.revision))
        if (!takeover.ok) throw new Error(takeover.message)
        expect(takeover.value.claim.fence).toBeGreaterThan(fence)
        expect(await settled(() => peerStore.renew('op1.ann', 'ann', fence, 9000, 2500))).toMatchObject({ ok: false, code: 'CLAIM_STALE' })
        expect(await settled(() => peerStore.commit('op1.ann', 'ann', fence, 2500))).toMatchObject({ ok: false, code: 'CLAIM_STALE' })
        const committed = await settled(() => peerStore.commit('op1.ann', 'bob', takeover.value.claim.fence, 2600))
        expect(committed.ok && committed.value.claim).toMatchObject({ peerId: 'bob', state: 'committed' })

        // The killed leader comes back as a follower and agrees.
        await cluster.restart(killed)
        await cluster.ready()
        await cluster.streamLeader(STREAM)
        const back = await settled(() => peerStore.read('op1.ann'))
        expect(back.ok && back.value?.claim).toEqual({ peerId: 'bob', attempt: 2, fence: takeover.value.claim.fence, leaseUntilMs: 9000, state: 'committed' })
      },
    )

    it.sequential(
      'memory executor: the node of two voters and a stalled peer is killed mid-interaction; the voters reconnect and answer, it decides once at 4 of 5, the stalled survivor is reported indeterminate',
      async () => {
        const shop = ShopBundle.copy('cluster-executor').relock()
        const doc = shop.doc('payments')
        const compiled = await compile(doc)
        expect(compiled.diagnostics).toEqual([])
        const module = (await loadModule(compiled.code!, 'cluster-executor-payments')) as ExecutorModule & Record<string, any>
        const interaction = variant(module.interactions.approveRefund as Interaction, {
          completion: { remaining: 'detach', waitFor: 'settled', deadlineMs: 30_000 },
          delivery: { settlementGraceMs: 1500 },
        })
        const [n1, n2, n3] = cluster.nodes.map((n) => n.url) as [string, string, string]
        // ann and bob on node 1 with the executor; cat, dan and eve on node 2 (each list's first server is where it connects).
        const home: Record<string, string[]> = { ann: [n1, n2, n3], bob: [n1, n3, n2], cat: [n2, n1, n3], dan: [n2, n3, n1], eve: [n2, n1, n3] }
        const handled = new Set<string>()
        const reconnected = new Set<string>()
        let release!: () => void
        const gate = new Promise<void>((r) => (release = r))
        const responders: Responder[] = []
        for (const peerId of GROUP_PEERS) {
          const connection = await open(home[peerId]!)
          // Watched for its reconnection: a core publication made while the connection is down is lost
          // (at most once), so the voters answer once they are connected again (see docs/deployment.md).
          void (async () => {
            for await (const status of connection.status()) if (status.type === 'reconnect') reconnected.add(peerId)
          })()
          const r = await createResponder<{ branchId: string }, { approve: boolean }>({
            connection,
            module,
            interaction,
            peerId,
            handler: async ({ signal }) => {
              handled.add(peerId)
              if (peerId === 'cat' || peerId === 'dan') await gate
              // eve never answers: the survivor (until her responder is closed, which aborts).
              if (peerId === 'eve') await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
              return peerId === 'eve' ? undefined : { approve: true }
            },
          })
          if (!r.ok) throw new Error(r.message)
          responders.push(r.value)
        }
        const made = createExecutor<Ballot, { operationId: string; approved: boolean }>({
          connection: await open([n1, n2, n3]),
          module,
          interaction,
          contractDigest: createHash('sha256').update(readFileSync(doc)).digest('hex'),
          deployment,
          adapters: {
            audience: () => ({ revision: 'r7', peers: GROUP_PEERS }),
            authorization: () => ({ allowed: true }),
            verifier: () => ({ allowed: true }),
            aggregation: ({ context, data }) => ({ operationId: context.operationId, approved: data.some((b) => b.approve) }),
          },
        })
        if (!made.ok) throw new Error(made.message)
        const executor = made.value
        try {
          const answer = executor.invoke({
            principalId: 'alice',
            idempotencyKey: 'cluster-1',
            inputs: { group: 'approvers', refund: { paymentId: 'pay-12345678', amount: 10 } },
          })
          await until('every peer handling its request', () => (handled.size === 5 ? true : undefined), 20_000)
          await cluster.kill(cluster.nodes[1]!.name)
          // 40 s: the 20 s this waited ran out once under the whole suite's load (a bound, not a claim about speed).
          await until('cat and dan reconnected to node 1', () => (reconnected.has('cat') && reconnected.has('dan') ? true : undefined), 40_000)
          release()
          const result = await bounded('the quorum interaction decided', answer, 60_000)
          if (!result.ok) throw new Error(result.message)
          const { decision, state } = result.value
          expect(decision).toMatchObject({ outcome: 'success', reason: 'threshold', successUnits: 4 })
          expect(decision.votes.map((v) => v.peerId).sort()).toEqual(['ann', 'bob', 'cat', 'dan'])
          expect(result.value.output).toEqual({ operationId: expect.any(String), approved: true })
          expect(Object.fromEntries(state.branches.map((b) => [b.branchId, b.status]))).toEqual({
            ann: 'succeeded',
            bob: 'succeeded',
            cat: 'succeeded',
            dan: 'succeeded',
            eve: 'indeterminate',
          })
          // Decided once: the executor's log replayed through the pure core gives the same state, with one decision.
          expectDecidedOnce(executor, interaction, result.value)
          const log = executor.log(result.value.operationId)
          if (!log.ok) throw new Error(log.message)
          expect(log.value.filter((e) => e.kind === 'result' && e.branchId === 'cat')).toHaveLength(1)
        } finally {
          await executor.close()
          for (const r of responders) await r.close()
          // The file's last test: the cluster is stopped whole after it (no restart to wait for).
        }
      },
    )
  })
}
