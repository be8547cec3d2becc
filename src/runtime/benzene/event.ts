import { fail, type Result } from '../shared/result.js'
import type { MessageHeaders, MessageSender } from './sender.js'
import { sendChecked } from './client.js'
import { check, type Validator } from '../shared/validation.js'

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
    const invalid = check(validators.message, message)
    if (invalid) return fail('validation-error', invalid)
    return sendChecked(sender, topic, version, message, headers)
  }
  return Object.freeze({ topic, ...(version === undefined ? {} : { version }), publish }) as EventDescriptor<T, V, M>
}
