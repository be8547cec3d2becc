/**
 * The replica count of the streams the durable executor and responder rely on. The profile gives a
 * count only for the contract's own streams (`num_replicas` 1, 3 or 5, applied by provisioning);
 * the state and claim buckets belong to the deployment's state-store and ownership adapters, so
 * their count is the binding's `replicas`, or a default by the server (1 on a single server, 3 on a
 * cluster: see `../ownership/claims.ts`). With `replicas` given, the request and result streams must
 * hold at least as many copies: state kept on three servers is of little use when the requests it
 * drives live on one.
 */
import { errorText } from '../../../shared/error-text.js'
import type { NatsConnection } from '@nats-io/nats-core'
import { jetstreamManager } from '@nats-io/jetstream'

/** The replica counts the profile's closed stream configuration allows. */
export type Replicas = 1 | 3 | 5

/** A refusal sentence when `replicas` is given and not one of 1, 3, 5; undefined when acceptable. */
export function replicasRefusal(replicas: unknown): string | undefined {
  if (replicas === undefined || replicas === 1 || replicas === 3 || replicas === 5) return undefined
  return `replicas ${JSON.stringify(replicas) ?? String(replicas)}: the profile allows 1, 3 or 5`
}

/**
 * The server's refusal to create a bucket's stream, as a sentence naming what was asked: a single
 * server refuses more than one replica, a cluster refuses more replicas than it has servers.
 */
export function bucketRefusal(what: string, bucket: string, replicas: number, reason: string): string {
  return `the ${what} ${bucket} could not be created with ${replicas} replica${replicas === 1 ? '' : 's'}: the server answered "${reason}"`
}

/**
 * Checks that an existing stream holds at least `replicas` copies; a sentence when it holds fewer
 * or cannot be read. Streams are the contract's: this never changes them.
 */
export async function streamReplicasRefusal(nc: NatsConnection, stream: string, replicas: Replicas): Promise<string | undefined> {
  try {
    const { config } = await (await jetstreamManager(nc)).streams.info(stream)
    const held = config.num_replicas ?? 1
    if (held >= replicas) return undefined
    return `stream ${stream} has ${held} replica${held === 1 ? '' : 's'}, fewer than the ${replicas} the binding asks for its state and claims (provision the contract's num_replicas, or ask fewer)`
  } catch (error) {
    return `stream ${stream}: ${errorText(error)}`
  }
}
