/**
 * The stream behind a JetStream KV bucket (`KV_<bucket>`, `$KV.<bucket>.<key>` subjects: the layout
 * nats.js's KV uses, opened through `@nats-io/jetstream` since `@nats-io/kv` is not a dependency),
 * shared by the durable state records (`durable/records.ts`) and the claims (`ownership/claims.ts`).
 */
import type { NatsConnection } from '@nats-io/nats-core'
import { JetStreamApiCodes, JetStreamApiError, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream'
import { bucketRefusal, replicasRefusal, type Replicas } from './durable/replicas.js'

/** The profile's replica counts. */
export type { Replicas }

/** One replica on a single server, three on a cluster (a clustered server names its cluster in its INFO). */
export function defaultReplicas(nc: NatsConnection): 1 | 3 {
  return nc.info?.cluster ? 3 : 1
}

export type KvStream = { readonly ok: true; readonly jsm: JetStreamManager; readonly stream: string } | { readonly ok: false; readonly message: string }

/**
 * Opens the bucket's stream, creating it when missing: file storage, discard new, one value per key,
 * no deletes, no direct gets (reads go to the leader), `replicas` replicas (default
 * `defaultReplicas`). An existing stream is used as it is: its configuration is the operator's.
 */
export async function openKvStream(nc: NatsConnection, bucket: string, replicas?: Replicas, what = 'bucket'): Promise<KvStream> {
  if (!/^[A-Za-z0-9_-]+$/.test(bucket)) return { ok: false, message: `${JSON.stringify(bucket)} is not a bucket name` }
  const badReplicas = replicasRefusal(replicas)
  if (badReplicas !== undefined) return { ok: false, message: badReplicas }
  const stream = `KV_${bucket}`
  try {
    const jsm = await jetstreamManager(nc)
    try {
      await jsm.streams.info(stream)
    } catch (error) {
      // Only a missing stream is created: a timeout or an election says nothing about whether it exists.
      if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound)) throw error
      const asked = replicas ?? defaultReplicas(nc)
      try {
        await jsm.streams.add({
          num_replicas: asked,
          name: stream,
          subjects: [`$KV.${bucket}.>`],
          max_msgs_per_subject: 1,
          allow_rollup_hdrs: true,
          deny_delete: true,
          allow_direct: false,
          storage: 'file' as never,
          discard: 'new' as never,
        })
      } catch (refused) {
        return { ok: false, message: bucketRefusal(what, bucket, asked, refused instanceof Error ? refused.message : String(refused)) }
      }
    }
    return { ok: true, jsm, stream }
  } catch (error) {
    return { ok: false, message: `the ${what} ${bucket}: ${error instanceof Error ? error.message : String(error)}` }
  }
}
