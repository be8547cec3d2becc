import { fail, ok, toResult, type Result } from '../shared/result.js'
import type { MessageHeaders, MessageSender } from './sender.js'

export type LocalHandler = (request: unknown, headers: MessageHeaders) => unknown | Promise<unknown>

/**
 * An in-process `MessageSender` for tests, demos and local development: routes a topic to a
 * handler. The request and the handler's answer cross a JSON round trip, as they would on a wire.
 * A handler returns a payload (-> `ok`), or a `Result` built with `ok()`/`fail()`; a topic with no
 * handler resolves to `not-implemented`.
 */
export function createLocalSender(
  handlers: Readonly<Record<string, LocalHandler>>,
): MessageSender & { readonly sent: ReadonlyArray<{ topic: string; request: unknown; headers: MessageHeaders }> } {
  const sent: Array<{ topic: string; request: unknown; headers: MessageHeaders }> = []
  return {
    sent,
    async send(topic, request, headers = {}): Promise<Result<unknown>> {
      const wire = request === undefined ? undefined : JSON.parse(JSON.stringify(request))
      sent.push({ topic, request: wire, headers })
      const handler = Object.hasOwn(handlers, topic) ? handlers[topic] : undefined
      if (!handler) return fail('not-implemented', [`No local handler for topic ${JSON.stringify(topic)}.`])
      const answer = await handler(wire, headers)
      if (isResult(answer)) return toResult(JSON.parse(JSON.stringify(answer)))
      return ok(answer === undefined ? undefined : JSON.parse(JSON.stringify(answer)))
    },
  }
}

function isResult(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'isSuccessful' in value && 'status' in value
}
