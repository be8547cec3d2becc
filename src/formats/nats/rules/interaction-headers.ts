import { isObject } from '../document.js'
import { carriedMessages } from './carried-messages.js'
import { at, interactions } from './interactions.js'
import { natsRule } from './rule.js'
import { standardParts } from './standard-reads.js'

/** Complexity: one pass over interactions, each reading the messages of its (at most four) operations: O(interactions x messages per channel). */

/** An interaction's operations, where each is named in it. */
const OPERATIONS: ReadonlyArray<readonly string[]> = [
  ['requestOperation'],
  ['resultOperation'],
  ['completion', 'cancelOperation'],
  ['completion', 'cancelResultOperation'],
]

/**
 * The interaction executor and the responder helper validate payloads only: they read no message
 * headers, so an interaction whose operations carry messages with a `headers` schema would have
 * those headers go unchecked on both sides. Unsupported, so refused (never dropped silently):
 * reported at the interaction's member naming the operation.
 */
export const interactionHeaders = natsRule({
  code: 'NATS_INTERACTION_HEADERS',
  description:
    "An interaction's operation (request, result, cancel or cancel result) carries a message with a `headers` schema: the interaction executor and the responder helper check payloads only, so such headers are unsupported there.",
  // The profile's interactions and the standard operations, channels and messages they name.
  reads: (ctx) => standardParts(ctx, 'interactions'),
  check(ctx, report) {
    for (const [key, it] of interactions(ctx)) {
      for (const path of OPERATIONS) {
        let id: unknown = it
        for (const step of path) id = isObject(id) ? id[step] : undefined
        if (typeof id !== 'string') continue
        const withHeaders = carriedMessages(ctx, id)
          .messages.filter((m) => m.headers !== undefined)
          .map((m) => m.name)
        if (withHeaders.length > 0)
          report(
            at(ctx, key, ...path),
            `Operation ${JSON.stringify(id)} of interaction ${JSON.stringify(key)} carries messages with a headers schema (${withHeaders.join(', ')}): the interaction executor and the responder helper check payloads only, so these headers would go unchecked. Interactions take messages without a headers schema.`,
            { operation: id, messages: withHeaders },
          )
      }
    }
  },
})
