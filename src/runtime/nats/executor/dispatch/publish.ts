/**
 * Publication of the executor's messages (requests, cancel requests) by their operation's binding:
 * core operations are a plain publish; JetStream ones are published with the message id (the
 * stream deduplicates within its window) and, when the operation names its stream, the expected
 * stream name, so a subject captured by another stream (a misdeployment) is refused by the server
 * rather than stored in the wrong place.
 */
import type { NatsConnection } from '@nats-io/nats-core'
import type { JetStreamClient, JetStreamPublishOptions } from '@nats-io/jetstream'
import type { OperationDescriptor } from '../../index.js'

/** The streams a generated module exports, read for their configured name. */
export interface StreamTable {
  readonly [key: string]: { readonly config?: Readonly<Record<string, unknown>> } | undefined
}

/** The configured name of the stream an operation publishes to; undefined when it names none or the module lacks it. */
export function streamNameOf(streams: StreamTable | undefined, op: OperationDescriptor): string | undefined {
  const entry = op.stream && streams && Object.hasOwn(streams, op.stream) ? streams[op.stream] : undefined
  const name = entry?.config?.['name']
  return typeof name === 'string' && name !== '' ? name : undefined
}

/**
 * Publishes one message. A JetStream publication whose acknowledgment does not come (uncertain) is
 * published once more with the same message id: stored once either way. O(payload size).
 */
export async function publishMessage(
  nc: NatsConnection,
  js: JetStreamClient,
  streams: StreamTable | undefined,
  op: OperationDescriptor,
  subject: string,
  data: Uint8Array,
  msgId: string,
): Promise<void> {
  if (op.api !== 'jetstream') return nc.publish(subject, data)
  const streamName = streamNameOf(streams, op)
  const options: Partial<JetStreamPublishOptions> = { msgID: msgId, ...(streamName ? { expect: { streamName } } : {}) }
  try {
    await js.publish(subject, data, options)
  } catch {
    await js.publish(subject, data, options)
  }
}
