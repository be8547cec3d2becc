/**
 * The durable executor's and responder's `replicas` on one server (test/helpers/executor-durable.ts):
 * one replica works end to end and the buckets they create have it; three are refused by a single
 * server, and the refusal is a sentence naming the bucket, the count asked and the server's answer,
 * not a stack; a count the profile does not allow is refused before anything is sent. Beside them,
 * the interleavings a loaded cluster brings about now and then, made to happen every run through a
 * courier connection that writes, waits or loses an answer before a request (`intercepted`): a
 * commit losing its compare-and-set to a renewal of its own, a claim read slower than the
 * acknowledgement wait or unanswered, and a decision record the state store does not take.
 */
import { DiscardPolicy, jetstreamManager, StorageType } from '@nats-io/jetstream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createResponder, openClaimStore } from '../../src/runtime/nats/executor/index.js'
import { errors, type NatsConnection, type RequestOptions } from '@nats-io/nats-core'
import { binding, patient, poll, startDurableRig, type DurableRig, quick, shipmentInputs, STREAM } from '../helpers/executor-durable.js'
import { operationId } from '../../src/runtime/nats/interactions.js'
import { NATS_SERVER } from '../helpers/nats-server.js'
import { openRecordBucket } from '../../src/runtime/nats/executor/durable/records.js'
import { operationStore } from '../../src/runtime/nats/executor/durable/store.js'

/**
 * A courier's connection whose requests are first shown to `before` (the subject and the body as
 * text), which may write, wait, or throw as a request whose answer was lost would: the
 * interleavings a loaded cluster brings about now and then, made to happen every run.
 */
function intercepted(real: NatsConnection, before: (subject: string, text: string) => Promise<void>): NatsConnection {
  return new Proxy(real, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown
      if (property !== 'request' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value
      return async (subject: string, data?: Uint8Array, opts?: RequestOptions) => {
        await before(subject, data ? new TextDecoder().decode(data) : '')
        return target.request(subject, data, opts)
      }
    },
  })
}

/** A sentence: one line, no stack frames. */
const sentence = expect.stringMatching(/^[^\n]+$/)

export function replicasOnOneServer(): void {
  describe.skipIf(!NATS_SERVER)('replicas passed through, on one server', () => {
    let rig: DurableRig

    beforeAll(async () => {
      rig = await startDurableRig('replicas')
    }, 60_000)

    afterAll(async () => {
      await rig?.stop()
    })

    it.sequential('replicas 1: the executor and the responder create their buckets with one replica, and the offer is decided', async () => {
      const interaction = quick(rig.assign)
      const binding = { stateBucket: 'r1_state', claimBucket: 'r1_claims', replicas: 1 as const }
      const responder = await createResponder<unknown, { accepted: boolean }>({
        connection: await rig.connection(),
        module: rig.module,
        interaction,
        peerId: 'c-ann',
        durable: { requestStream: STREAM, claimBucket: binding.claimBucket, ackWaitMs: 1000, replicas: 1 },
        handler: () => ({ accepted: true }),
      })
      if (!responder.ok) throw new Error(responder.message)
      const ex = await rig.executor(interaction, { binding })
      try {
        const result = await ex.invoke({ principalId: 'dispatcher', idempotencyKey: 'replicas-1', inputs: shipmentInputs })
        if (!result.ok) throw new Error(result.message)
        expect(result.value.decision).toMatchObject({ outcome: 'success' })
        const jsm = await jetstreamManager(await rig.connection())
        for (const stream of ['KV_r1_state', 'KV_r1_claims']) expect([stream, (await jsm.streams.info(stream)).config.num_replicas]).toEqual([stream, 1])
      } finally {
        await ex.close()
        await responder.value.close()
      }
    })

    it.sequential(
      'replicas 3 on one server: the executor and the responder answer a sentence naming the bucket and the server refusal; 2 (and a settle bound that is not a positive whole number) is refused before anything is sent',
      async () => {
        const interaction = quick(rig.assign)
        const binding = { stateBucket: 'r3_state', claimBucket: 'r3_claims', replicas: 3 as const }
        const ex = await rig.executor(interaction, { binding })
        const refused = await ex.invoke({ principalId: 'dispatcher', idempotencyKey: 'replicas-3', inputs: shipmentInputs })
        await ex.close()
        expect(refused).toEqual({ ok: false, code: 'EXECUTOR_STATE_FAILED', message: sentence })
        expect(!refused.ok && refused.message).toMatch(
          /^the bucket r3_state could not be created with 3 replicas: the server answered ".*replicas > 1 not supported in non-clustered mode.*"$/,
        )
        const responder = await createResponder({
          connection: await rig.connection(),
          module: rig.module,
          interaction,
          peerId: 'c-ann',
          durable: { requestStream: STREAM, claimBucket: binding.claimBucket, replicas: 3 },
          handler: () => ({ accepted: true }),
        })
        expect(responder).toEqual({ ok: false, code: 'CLAIM_STORE_FAILED', message: sentence })
        expect(!responder.ok && responder.message).toMatch(
          /^the claim bucket r3_claims could not be created with 3 replicas: the server answered ".*non-clustered.*"$/,
        )
        await expect(rig.executor(interaction, { binding: { replicas: 2 as never } })).rejects.toThrow(/replicas 2: the profile allows 1, 3 or 5/)
        // The state store's settle bound is checked the same way: a positive whole number of milliseconds.
        for (const settleMs of [0, -5, 2.5, '1000', Number.NaN])
          await expect(rig.executor(interaction, { binding: { settleMs: settleMs as never } })).rejects.toThrow(
            /the binding's settleMs .*: a positive whole number of milliseconds/,
          )
      },
    )

    it.sequential(
      "a courier's commit whose compare-and-set loses to a write of its own (a renewal landing late, between the commit's read and its write): the claim is still its own, so the commit is tried again, not dropped: decided on the first attempt, the handler run once",
      async () => {
        const interaction = patient(rig.assign, 20_000)
        const claimBucket = binding.claimBucket!
        const renewer = await openClaimStore(await rig.connection(), claimBucket)
        if (!renewer.ok) throw new Error(renewer.message)
        let lateRenewals = 0
        // The courier's connection: its first commit's write is preceded by a renewal of the same
        // claim (same peer, same fence), which moves the key's revision after the commit read it.
        const connection = intercepted(await rig.connection(), async (subject, text) => {
          if (lateRenewals === 0 && subject.startsWith(`$KV.${claimBucket}.`) && text.includes('"state":"committed"')) {
            lateRenewals++
            const key = subject.slice(`$KV.${claimBucket}.`.length)
            const c = JSON.parse(text) as { peerId: string; fence: number }
            const renewed = await renewer.value.renew(key, c.peerId, c.fence, Date.now() + 30_000, Date.now())
            if (!renewed.ok) throw new Error(renewed.message)
          }
        })
        let runs = 0
        const responder = await createResponder<unknown, { accepted: boolean }>({
          connection,
          module: rig.module,
          interaction,
          peerId: 'c-ann',
          durable: { requestStream: STREAM, claimBucket, ackWaitMs: 1000 },
          handler: () => {
            runs++
            return { accepted: true }
          },
        })
        if (!responder.ok) throw new Error(responder.message)
        const ex = await rig.executor(interaction)
        try {
          const result = await ex.invoke({ principalId: 'dispatcher', idempotencyKey: 'late-renewal', inputs: shipmentInputs })
          if (!result.ok) throw new Error(result.message)
          expect([lateRenewals, runs]).toEqual([1, 1])
          expect(result.value.decision).toMatchObject({ outcome: 'success', votes: [{ peerId: 'c-ann', attempt: 1 }] })
          expect(result.value.state.branches.map((b) => [b.branchId, b.status, b.attempt])).toEqual([['c-ann', 'succeeded', 1]])
        } finally {
          await ex.close()
          await responder.value.close()
        }
      },
    )

    it.sequential(
      "a courier's claim read before it runs a request: one that outlasts the acknowledgement wait does not let the redelivery run the handler a second time, and one the store does not answer does not acknowledge the request away (it comes again): each decided on the first attempt, each handler run once",
      async () => {
        const interaction = patient(rig.assign, 20_000)
        const claimBucket = binding.claimBucket!
        const [slow, lost] = await Promise.all(['slow-claim-read', 'lost-claim-read'].map((k) => operationId('dispatcher', rig.digest, k)))
        const struck = new Set<string>()
        // The first read of each operation's claim (not of its kept result): slowed past the 1 s acknowledgement wait, or its answer lost.
        const connection = intercepted(await rig.connection(), async (subject, text) => {
          if (subject !== `$JS.API.STREAM.MSG.GET.KV_${claimBucket}`) return
          for (const [id, fault] of [
            [slow, 'slow'],
            [lost, 'lost'],
          ] as const) {
            if (struck.has(id) || !text.endsWith(`${id}.c-ann"}`)) continue
            struck.add(id)
            if (fault === 'slow') await new Promise((resolve) => setTimeout(resolve, 1600))
            else throw new Error('TIMEOUT')
          }
        })
        const runs = new Map<string, number>()
        const responder = await createResponder<unknown, { accepted: boolean }>({
          connection,
          module: rig.module,
          interaction,
          peerId: 'c-ann',
          durable: { requestStream: STREAM, claimBucket, ackWaitMs: 1000 },
          handler: async ({ operationId: id }) => {
            runs.set(id, (runs.get(id) ?? 0) + 1)
            // Still running when the slowed read answers (a run started by the redelivery would overlap it).
            if (id === slow) await new Promise((resolve) => setTimeout(resolve, 1200))
            return { accepted: true }
          },
        })
        if (!responder.ok) throw new Error(responder.message)
        const ex = await rig.executor(interaction)
        try {
          for (const [id, key] of [
            [slow, 'slow-claim-read'],
            [lost, 'lost-claim-read'],
          ] as const) {
            const result = await ex.invoke({ principalId: 'dispatcher', idempotencyKey: key, inputs: shipmentInputs })
            if (!result.ok) throw new Error(result.message)
            expect([key, struck.has(id), runs.get(id)]).toEqual([key, true, 1])
            expect(result.value.decision).toMatchObject({ outcome: 'success', votes: [{ peerId: 'c-ann', attempt: 1 }] })
          }
        } finally {
          await ex.close()
          await responder.value.close()
        }
      },
    )

    it.sequential(
      'the cluster not answering yet: an executor whose set-up was refused (its request stream missing) sets up again on the next invocation, and a request the stream refused (full, discard new) is published again, with its message id, once the stream takes it: decided, not left to its deadline',
      async () => {
        const interaction = quick(rig.assign)
        const jsm = await jetstreamManager(await rig.connection())
        const config = (await jsm.streams.info(STREAM)).config
        const invocation = { principalId: 'dispatcher', idempotencyKey: 'set-up-again', inputs: shipmentInputs }
        const ex = await rig.executor(interaction)
        const [courier] = await rig.couriers({ 'c-ann': { accepted: true } }, interaction)
        try {
          await jsm.streams.delete(STREAM)
          expect(await ex.invoke(invocation)).toMatchObject({ ok: false, code: 'EXECUTOR_STATE_FAILED', message: expect.stringMatching(/COURIERS/) })
          await jsm.streams.add(config)
          await courier!.close()
          // (The courier's consumer went with the stream: a courier started again makes it again.)
          await rig.couriers({ 'c-ann': { accepted: true } }, interaction)
          const set = await ex.invoke(invocation)
          if (!set.ok) throw new Error(set.message)
          expect(set.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold' })

          // Full: the stream refuses every new message until it has room again.
          const held = (await jsm.streams.info(STREAM)).state.messages
          await jsm.streams.update(STREAM, { ...config, max_msgs: held })
          const full = { ...invocation, idempotencyKey: 'published-again' }
          const id = await operationId(full.principalId, rig.digest, full.idempotencyKey)
          const answer = ex.invoke(full)
          const store = await rig.store()
          // Admitted, its request recorded in the outbox and not published: the stream refused it.
          await poll(async () => {
            const state = await store.state(id)
            return state.ok && state.value !== null && state.value.value.outbox.length > 0 && state.value.value.outbox.every((e) => !e.published)
          })
          await jsm.streams.update(STREAM, { ...config })
          const result = await answer
          if (!result.ok) throw new Error(result.message)
          expect(result.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold' })
          // The refused publication is in the outcome's publications, then the one the stream took; the request stored once.
          expect(result.value.publications.map((p) => p.ok)).toEqual([...result.value.publications.slice(0, -1).map(() => false), true])
          expect(await rig.subjects(`shipping.couriers.${id}.offer.*`)).toEqual({ [`shipping.couriers.${id}.offer.c-ann`]: 1 })
        } finally {
          await jsm.streams.update(STREAM, { ...config }).catch(() => undefined)
          await ex.close()
        }
      },
    )

    it.sequential(
      "the decision made but its record not taken within the store's bound: the invocation answers EXECUTOR_STATE_FAILED (not EXECUTOR_CLOSED: nothing closed it), and a resume records the same decision once",
      async () => {
        const interaction = quick(rig.assign)
        const jsm = await jetstreamManager(await rig.connection())
        // The state bucket made here without the decision records' subjects: admissions and logs are
        // stored, a decision record finds no stream (nobody answers it) until the subjects are given back.
        const bucket = 'undecided_state'
        const stream = {
          name: `KV_${bucket}`,
          subjects: [`$KV.${bucket}.*.admission`, `$KV.${bucket}.*.state`, `$KV.${bucket}.*.parked`],
          max_msgs_per_subject: 1,
          allow_rollup_hdrs: true,
          deny_delete: true,
          allow_direct: false,
          storage: StorageType.File,
          discard: DiscardPolicy.New,
        }
        await jsm.streams.add(stream)
        const invocation = { principalId: 'dispatcher', idempotencyKey: 'undecided', inputs: shipmentInputs }
        const id = await operationId(invocation.principalId, rig.digest, invocation.idempotencyKey)
        const ex = await rig.executor(interaction, { binding: { stateBucket: bucket, settleMs: 1000 } })
        await rig.couriers({ 'c-ann': { accepted: true } }, interaction)
        try {
          const refused = await ex.invoke(invocation)
          expect(refused).toMatchObject({ ok: false, code: 'EXECUTOR_STATE_FAILED', message: expect.stringContaining(`${id}.decision`) })
          // The decision is in the log the store did take; the decision record is not.
          const logged = ex.log(id)
          if (!logged.ok) throw new Error(logged.message)
          const decided = logged.value.length > 0 && ex.state(id)
          expect(decided && decided.ok && decided.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold' })
          await jsm.streams.update(stream.name, { ...stream, subjects: [`$KV.${bucket}.>`] })
          const resumed = await ex.resume(id)
          if (!resumed.ok) throw new Error(resumed.message)
          expect(decided && decided.ok && resumed.value.decision).toEqual(decided && decided.ok && decided.value.decision)
          const records = await openRecordBucket(await rig.connection(), bucket)
          if (!records.ok) throw new Error(records.message)
          expect(await operationStore(records.value).decision(id)).toMatchObject({ ok: true, value: { value: resumed.value.decision } })
        } finally {
          await ex.close()
        }
      },
    )

    it.sequential(
      'a bucket whose stream lookup and create go unanswered once each (the create applied, its answer lost) is opened, its stream made once',
      async () => {
        const real = await rig.connection()
        const seen = { info: 0, create: 0 }
        const nc = intercepted(real, async (subject, text) => {
          if (subject === '$JS.API.STREAM.INFO.KV_unanswered_state' && seen.info++ === 0) throw new errors.TimeoutError()
          if (subject === '$JS.API.STREAM.CREATE.KV_unanswered_state' && seen.create++ === 0) {
            // The server takes the create; its answer never comes back.
            await real.request(subject, new TextEncoder().encode(text))
            throw new errors.TimeoutError()
          }
        })
        const opened = await openRecordBucket(nc, 'unanswered_state', { replicas: 1 })
        expect(opened.ok && 'opened', opened.ok ? '' : opened.message).toBe('opened')
        // Looked up, created (unanswered), looked up again and found: never asked to be created twice.
        expect(seen).toEqual({ info: 3, create: 1 })
        const info = await (await jetstreamManager(real)).streams.info('KV_unanswered_state')
        expect(info.config.num_replicas).toBe(1)
      },
    )
  })
}
