import { isObject } from '../document.js'
import type { NatsContext } from '../context.js'
import { natsRule } from './rule.js'
import { standardParts } from './standard-reads.js'

/**
 * Rules of the standard part that the official AsyncAPI 3 parser applies beyond its JSON Schema
 * (its core ruleset), so that a document without the profile is judged as the parser judges it.
 * Complexity (each rule here, worst case on any input under the size limits): one pass over the
 * channels (root and components), each address scanned once: O(document).
 */

/** The `{name}`s of an address, as the parser reads them (`{` to the nearest `}`), in order. */
function addressVariables(address: string): string[] {
  return [...address.matchAll(/\{(.+?)\}/g)].map((m) => m[1]!)
}

/** Root and component channels, with the pointer prefix of each. */
function* standardChannels(ctx: NatsContext): Generator<{ id: string; channel: Record<string, unknown>; at: string[] }> {
  const root = ctx.standard('channels')
  for (const id of Object.keys(root)) if (isObject(root[id])) yield { id, channel: root[id] as Record<string, unknown>, at: ['channels', id] }
  const components = isObject(ctx.doc.components) && isObject(ctx.doc.components.channels) ? ctx.doc.components.channels : {}
  for (const id of Object.keys(components))
    if (isObject(components[id])) yield { id, channel: components[id] as Record<string, unknown>, at: ['components', 'channels', id] }
}

/**
 * "Channel parameters must be defined and there must be no redundant parameters" (the parser's
 * asyncapi3-channel-parameters): when a channel has a `parameters` object, every `{name}` of its
 * address is a member, and every member is a `{name}` of its address (none when it has no
 * address). A channel the profile describes is left to NATS_PARAMETERS_MISMATCH, which compares the
 * profile's parameters too.
 */
export const standardParameters = natsRule({
  code: 'NATS_ASYNCAPI_PARAMETERS',
  description:
    "A standard channel's `parameters` miss a `{name}` of its address, or name one its address does not have (checked as the official parser checks it).",
  // A channel the profile describes is left to NATS_PARAMETERS_MISMATCH.
  reads: (ctx) => standardParts(ctx, 'channels'),
  check(ctx, report) {
    const profiled = isObject(ctx.profile.channels) ? ctx.profile.channels : {}
    for (const { id, channel, at } of standardChannels(ctx)) {
      if (!isObject(channel.parameters) || (at[0] === 'channels' && Object.hasOwn(profiled, id))) continue
      const variables = addressVariables(typeof channel.address === 'string' ? channel.address : '')
      const defined = channel.parameters
      const missing = variables.filter((v) => !Object.hasOwn(defined, v))
      if (missing.length > 0)
        report(
          ctx.pointer(...at, 'parameters'),
          `Address placeholders without a parameter: ${missing.join(', ')}; each {name} of the address is described in parameters.`,
          {
            missing,
          },
        )
      const known = new Set(variables)
      for (const name of Object.keys(defined))
        if (!known.has(name))
          report(
            ctx.pointer(...at, 'parameters', name),
            `Parameter ${JSON.stringify(name)} is not a placeholder of the channel's address${typeof channel.address === 'string' ? ` ${channel.address}` : ' (it has none)'}.`,
          )
    }
  },
})

/**
 * "Channel address should not include query ("?") or fragment ("#") delimiter" (the parser's
 * asyncapi3-channel-no-query-nor-fragment), which the parser applies to the keys of the root
 * `channels`; so does this.
 */
export const standardChannelKey = natsRule({
  code: 'NATS_ASYNCAPI_CHANNEL_KEY',
  description: 'A root channel id holds a query (`?`) or fragment (`#`) delimiter (checked as the official parser checks it).',
  check(ctx, report) {
    for (const id of Object.keys(ctx.standard('channels')))
      if (/[?#]/.test(id)) report(ctx.pointer('channels', id), `Channel id ${JSON.stringify(id)} holds a query or fragment delimiter (? or #).`)
  },
})
