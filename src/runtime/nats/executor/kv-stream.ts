/**
 * The stream behind a JetStream KV bucket (`KV_<bucket>`, `$KV.<bucket>.<key>` subjects: the layout
 * nats.js's KV uses, opened through `@nats-io/jetstream` since `@nats-io/kv` is not a dependency),
 * shared by the durable state records (`durable/records.ts`) and the claims (`ownership/claims.ts`).
 */
import { errorText } from '../../shared/error-text.js'
import { errors, type NatsConnection } from '@nats-io/nats-core'
import { JetStreamApiCodes, JetStreamApiError, jetstreamManager, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream'
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
  const asked = replicas ?? defaultReplicas(nc)
  const config: Partial<StreamConfig> & { name: string } = {
    num_replicas: asked,
    name: stream,
    subjects: [`$KV.${bucket}.>`],
    max_msgs_per_subject: 1,
    allow_rollup_hdrs: true,
    deny_delete: true,
    allow_direct: false,
    storage: 'file' as never,
    discard: 'new' as never,
  }
  try {
    const jsm = await jetstreamManager(nc)
    // A request no server answered in time (a cluster electing its meta leader, or too busy to answer)
    // says nothing about the stream: it is asked again, at most OPEN_TRIES times in all. A create
    // that timed out may have been applied, so the stream is looked up before it is asked for again.
    for (let attempt = 1; ; attempt++) {
      try {
        await jsm.streams.info(stream)
        return { ok: true, jsm, stream }
      } catch (error) {
        if (unanswered(error) && attempt < OPEN_TRIES) continue
        // Only a missing stream is created.
        if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound)) throw error
      }
      try {
        await jsm.streams.add(config)
        return { ok: true, jsm, stream }
      } catch (refused) {
        if (unanswered(refused) && attempt < OPEN_TRIES) continue
        return { ok: false, message: bucketRefusal(what, bucket, asked, errorText(refused)) }
      }
    }
  } catch (error) {
    return { ok: false, message: `the ${what} ${bucket}: ${errorText(error)}` }
  }
}

/** How many times opening a bucket asks a JetStream that does not answer (each try bounded by the connection's request timeout). */
const OPEN_TRIES = 4

/** Whether a JetStream API request went unanswered (timed out, or no server took it): not a refusal. */
function unanswered(error: unknown): boolean {
  const cause = error instanceof Error ? error.cause : undefined
  return [error, cause].some((e) => e instanceof errors.TimeoutError || e instanceof errors.NoRespondersError)
}
