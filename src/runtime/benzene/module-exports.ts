import type { Validator } from '../shared/validation.js'
import { createTopicMap, topicSend, type TopicClient } from './client.js'
import { hashText } from './digest-text.js'
import { createEvent, type EventDescriptor } from './event.js'

/**
 * What a generated Benzene module calls to make its exports with the least code per topic: a module
 * of a thousand topics writes each of these calls a thousand times, so every argument it can leave
 * out (the validators object, a `topics` key the client already says) is text it does not ship.
 * Each call builds one frozen export from its own arguments only, so a bundler still drops the
 * topics no import reaches (each call is annotated as pure).
 */

/**
 * A topic client (the same object `createTopicClient` makes). `components` is the sorted closure
 * itself, or a function that computes it from the module's component graph: called on the first
 * read of `components` only (a module imported for one topic computes no other topic's closure),
 * and its answer kept, frozen. Either way `components` is read through a getter of the frozen client.
 */
export function topicClient<T extends string, V extends string | undefined, Req, Res>(
  topic: T,
  version: V,
  contractHash: `sha256:${string}`,
  components: readonly string[] | (() => readonly string[]),
  request?: Validator,
  response?: Validator,
): TopicClient<T, V, Req, Res> {
  let closure = typeof components === 'function' ? undefined : Object.freeze([...components])
  const client = {
    topic,
    ...(version === undefined ? {} : { version }),
    contractHash,
    get components(): readonly string[] {
      return (closure ??= Object.freeze([...(components as () => readonly string[])()]))
    },
    send: topicSend<Res>(topic, version, { request, response }),
  }
  return Object.freeze(client) as TopicClient<T, V, Req, Res>
}

/**
 * `topicClient` for a module of many topics, which stores each hash as its digest in base64
 * (`hashText`): a third fewer characters per topic, for a decoder of about 90 bytes gzipped that
 * only such a module's bundle carries (a module of a few topics writes the hash text and calls
 * `topicClient`).
 */
export function storedHashTopicClient<T extends string, V extends string | undefined, Req, Res>(
  topic: T,
  version: V,
  storedHash: string,
  components: readonly string[] | (() => readonly string[]),
  request?: Validator,
  response?: Validator,
): TopicClient<T, V, Req, Res> {
  return topicClient(topic, version, hashText(storedHash), components, request, response)
}

/**
 * The module's `topics` export from its clients, keyed as Benzene topic maps are: by topic, or by
 * `topic@version` for every entry of a topic that is in scope with several versions (the keys the
 * compiler gives, `mapKey`). A frozen map with no prototype, in the clients' order.
 */
export function topicMap<M>(clients: ReadonlyArray<{ readonly topic: string; readonly version?: string }>): M {
  const count = new Map<string, number>()
  for (const client of clients) count.set(client.topic, (count.get(client.topic) ?? 0) + 1)
  return createTopicMap<M>(
    clients.map(
      (client) => [count.get(client.topic)! > 1 && client.version !== undefined ? `${client.topic}@${client.version}` : client.topic, client] as const,
    ),
  )
}

/** An event descriptor (the same object `createEvent` makes), its message validator given alone. */
export function eventDescriptor<T extends string, V extends string | undefined, M>(topic: T, version: V, message?: Validator): EventDescriptor<T, V, M> {
  return createEvent<T, V, M>(topic, version, message === undefined ? {} : { message })
}
