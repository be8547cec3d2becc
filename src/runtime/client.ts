import { fail, toResult, type Result } from './result.js'
import type { MessageHeaders, MessageSender } from './sender.js'

/** A generated topic client: frozen, with its identity, contract hash and a typed call. */
export interface TopicClient<Topic extends string, Version extends string | undefined, Request, Response> {
  readonly topic: Topic
  /** The handler version; absent for an unversioned topic. */
  readonly version: Version
  /** Hash of this topic's topic-scoped projection (seed 5.3, 6). */
  readonly contractHash: `sha256:${string}`
  /** Component schemas this topic's request and response reach, sorted. */
  readonly components: readonly string[]
  /**
   * Sends `request` through `sender`. Never rejects: a sender that throws or returns something that
   * is not a result resolves to an `unexpected-error` failure. Versioned topics send the
   * `benzene-version` header.
   */
  send(sender: MessageSender, request: Request, headers?: MessageHeaders): Promise<Result<Response>>
}

export function createTopicClient<T extends string, V extends string | undefined, Req, Res>(
  topic: T,
  version: V,
  contractHash: `sha256:${string}`,
  components: readonly string[],
): TopicClient<T, V, Req, Res> {
  const send = async (sender: MessageSender, request: Req, headers?: MessageHeaders): Promise<Result<Res>> => {
    const sent = version === undefined ? headers : { ...headers, 'benzene-version': version }
    try {
      return toResult<Res>(await sender.send(topic, request, sent))
    } catch (error) {
      return fail('unexpected-error', [`The message sender failed: ${error instanceof Error ? error.message : String(error)}`])
    }
  }
  const client = { topic, ...(version === undefined ? {} : { version }), contractHash, components: Object.freeze([...components]), send }
  return Object.freeze(client) as TopicClient<T, V, Req, Res>
}

/** The module's `topics` export: a frozen map with no prototype, so no topic id can reach one. */
export function createTopicMap<M>(entries: ReadonlyArray<readonly [string, unknown]>): M {
  const map = Object.create(null) as Record<string, unknown>
  for (const [key, client] of entries) Object.defineProperty(map, key, { value: client, enumerable: true })
  return Object.freeze(map) as M
}
