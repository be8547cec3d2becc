import { errorText } from '../shared/error-text.js'
import { fail, ok, toResult, type Result } from '../shared/result.js'
import type { MessageHeaders, MessageSender } from './sender.js'

export type LocalHandler = (request: unknown, headers: MessageHeaders) => unknown | Promise<unknown>

/**
 * An in-process `MessageSender` for tests, demos and local development: routes a topic to a
 * handler. The request and the handler's answer cross a JSON round trip, as they would on a wire.
 * A handler returns a payload (-> `ok`), or a `Result` built with `ok()`/`fail()`; a topic with no
 * handler resolves to `not-implemented`. Never rejects: a handler that throws (or answers what JSON
 * cannot write) is an `unexpected-error`, a request JSON cannot write a `validation-error`.
 */
export function createLocalSender(
  handlers: Readonly<Record<string, LocalHandler>>,
): MessageSender & { readonly sent: ReadonlyArray<{ topic: string; request: unknown; headers: MessageHeaders }> } {
  const sent: Array<{ topic: string; request: unknown; headers: MessageHeaders }> = []
  return {
    sent,
    async send(topic, request, headers = {}): Promise<Result<unknown>> {
      let wire: unknown
      try {
        wire = roundTrip(request)
      } catch (error) {
        // Called directly (a topic client checks its request first): a bigint, a cycle, a getter that throws.
        return fail('validation-error', [{ message: `(payload) cannot be written as JSON: ${errorText(error)}`, path: '', code: 'json' }])
      }
      sent.push({ topic, request: wire, headers })
      const handler = Object.hasOwn(handlers, topic) ? handlers[topic] : undefined
      if (!handler) return fail('not-implemented', [`No local handler for topic ${JSON.stringify(topic)}.`])
      try {
        const answer = await handler(wire, headers)
        return isResult(answer) ? toResult(roundTrip(answer)) : ok(roundTrip(answer))
      } catch (error) {
        // As a service that fails answers: never a rejection of the caller's send.
        return fail('unexpected-error', [`The local handler for topic ${JSON.stringify(topic)} failed: ${errorText(error)}`])
      }
    },
  }
}

/** A value as the JSON text it is written as reads back (undefined stays undefined); throws what `JSON.stringify` throws. */
const roundTrip = (value: unknown): unknown => (value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown))

function isResult(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'isSuccessful' in value && 'status' in value
}
