import type { Result } from '../shared/result.js'
import type { MessageHeaders, MessageSender } from './sender.js'
import { checkedWire, sendChecked } from './client.js'
import type { Validator } from '../shared/validation.js'

/** A generated event descriptor (one `events[]` entry): frozen, with a typed, validated publish. */
export interface EventDescriptor<Topic extends string, Version extends string | undefined, Message> {
  readonly topic: Topic
  readonly version: Version
  /** Publishes `message` through `sender`; an invalid message is never sent (`validation-error`). */
  publish(sender: MessageSender, message: Message, headers?: MessageHeaders): Promise<Result<unknown>>
}

export function createEvent<T extends string, V extends string | undefined, M>(
  topic: T,
  version: V,
  validators: { message?: Validator } = {},
): EventDescriptor<T, V, M> {
  const publish = async (sender: MessageSender, message: M, headers?: MessageHeaders): Promise<Result<unknown>> => {
    const wire = checkedWire(validators.message, message)
    if (!wire.ok) return wire.failure
    return sendChecked(sender, topic, version, wire.value, headers)
  }
  return Object.freeze({ topic, ...(version === undefined ? {} : { version }), publish }) as EventDescriptor<T, V, M>
}
