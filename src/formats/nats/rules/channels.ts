import { inDomain } from '../../../runtime/nats/tokens.js'
import { placeholders } from '../address.js'
import { isObject } from '../document.js'
import { ChannelIndex } from '../channel-index.js'
import { natsRule, type NatsRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): per channel O(tokens); overlap through a ChannelIndex (see channelsDisjoint). */

export const CHANNEL = (id: string) => ['x-nats-contract', 'channels', id] as const

export const channelKnown = natsRule({
  code: 'NATS_CHANNEL_UNKNOWN',
  description: 'A profile channel key is not a standard channel id.',
  check(ctx, report) {
    for (const id of Object.keys(ctx.section('channels'))) {
      if (!ctx.channels.has(id))
        report(
          ctx.pointer(...CHANNEL(id)),
          `Profile channel ${JSON.stringify(id)} is not a channel of the document; profile channels are keyed by standard channel ids.`,
        )
    }
  },
})

export const channelProfiled = natsRule({
  code: 'NATS_CHANNEL_UNPROFILED',
  description: 'A standard channel with an address has no profile entry.',
  check(ctx, report) {
    const profiled = ctx.section('channels')
    for (const channel of ctx.channelList) {
      if (channel.address !== undefined && !Object.hasOwn(profiled, channel.id)) {
        report(
          ctx.pointer('channels', channel.id),
          `Channel ${JSON.stringify(channel.id)} has an address but no x-nats-contract.channels entry typing its subject.`,
        )
      }
    }
  },
})

/** The address problems parseAddress tells apart, one rule (and code) each. */
function addressRule<const Code extends 'NATS_ADDRESS_TOKEN' | 'NATS_RESERVED_SUBJECT'>(code: Code, description: string): NatsRule<Code> {
  return natsRule({
    code,
    description,
    check(ctx, report) {
      for (const channel of ctx.channelList) {
        const parsed = channel.parsed
        if (parsed && 'problem' in parsed && parsed.code === code) report(ctx.pointer('channels', channel.id, 'address'), `${parsed.problem}.`)
      }
    },
  })
}

export const addressTokens = addressRule(
  'NATS_ADDRESS_TOKEN',
  'An address has an empty token, a wildcard, a partial placeholder, or a literal outside [A-Za-z0-9_-].',
)

const reservedLiteral = addressRule('NATS_RESERVED_SUBJECT', '')

/**
 * Reserved subjects, written or reachable: "Unknown/dynamic inbox addresses have no normal subject
 * builder", so a first-token placeholder whose token type admits `_INBOX` is refused as the literal
 * is (a builder would render inbox subjects). `$` is outside every token alphabet, so only `_INBOX`
 * can be reached through a placeholder. O(channels).
 */
export const reservedSubjects = natsRule({
  code: 'NATS_RESERVED_SUBJECT',
  description: 'A `$`-prefixed or `_INBOX` subject, written or reachable through a first-token placeholder: unsupported by profile v0.2.',
  check(ctx, report) {
    reservedLiteral.check(ctx, report)
    for (const channel of ctx.channelList) {
      const first = channel.tokens?.[0]
      if (first === undefined || typeof first === 'string') continue
      const type = ctx.channelTypes(channel)?.[first.param]
      if (type && inDomain(type, '_INBOX'))
        report(
          ctx.pointer('channels', channel.id, 'address'),
          `The first token {${first.param}} can be "_INBOX", so this channel's subject builder could address inboxes; give it a token type without that value.`,
        )
    }
  },
})

export const parametersAgree = natsRule({
  code: 'NATS_PARAMETERS_MISMATCH',
  description: 'The address placeholders, the standard parameters and the profile parameters are not the same set.',
  check(ctx, report) {
    const profiled = ctx.section('channels')
    for (const channel of ctx.channelList) {
      // A channel with no address (a reply channel) has no placeholders: its parameters must be none.
      // An address that does not parse is reported by the address rules.
      if ((!channel.tokens && channel.address !== undefined) || !Object.hasOwn(profiled, channel.id)) continue
      const inAddress = channel.tokens ? placeholders(channel.tokens) : []
      const standard = ctx.standard('channels')[channel.id] as Record<string, unknown>
      const inStandard = isObject(standard.parameters) ? Object.keys(standard.parameters) : []
      const inProfile = Object.keys(channel.parameters)
      const address = new Set(inAddress)
      // Object keys are distinct, so the same size and every one in the address is the same set.
      const sameSet = (list: string[]) => list.length === address.size && list.every((p) => address.has(p))
      if (address.size !== inAddress.length) {
        report(ctx.pointer('channels', channel.id, 'address'), `${channel.address} uses a placeholder twice.`)
      } else if (!sameSet(inStandard) || !sameSet(inProfile)) {
        report(
          ctx.pointer(...CHANNEL(channel.id), 'parameters'),
          `Placeholders disagree: address ${channel.address === undefined ? 'none (the channel has no address)' : `{${inAddress.join('}, {')}}`}, standard parameters [${inStandard.join(', ')}], profile parameters [${inProfile.join(', ')}]; all three must be the same set.`,
          {
            address: inAddress,
            standard: inStandard,
            profile: inProfile,
          },
        )
      }
    }
  },
})

export const parameterTypesKnown = natsRule({
  code: 'NATS_UNKNOWN_TOKEN_TYPE',
  description: 'A channel parameter names a token type the document does not define.',
  check(ctx, report) {
    const defined = ctx.section('tokenTypes')
    for (const channel of ctx.channelList) {
      for (const param of Object.keys(channel.parameters)) {
        const type = channel.parameters[param]!
        if (!Object.hasOwn(defined, type))
          report(
            ctx.pointer(...CHANNEL(channel.id), 'parameters', param),
            `Parameter {${param}} names token type ${JSON.stringify(type)}, which tokenTypes does not define.`,
          )
      }
    }
  },
})

export const channelsDisjoint = natsRule({
  code: 'NATS_CHANNEL_OVERLAP',
  description: 'Two channels of one application share a concrete subject (decided exactly over the token languages).',
  // The channels (addresses, profile parameters) and the token types their languages are made of.
  reads: (ctx) => [ctx.doc.channels, ctx.profile.channels, ctx.profile.tokenTypes],
  check(ctx, report) {
    // Each channel is compared with the earlier ones through a ChannelIndex, and reported once,
    // with the first earlier channel it overlaps. Complexity: O(n * L * c) for n channels of
    // length L, c the smallest candidate list (see ChannelIndex): `svc.{a}.m<i>.{b}` (32,000
    // channels sharing first and last tokens) is linear; O(n^2 * L) only when no channel has a
    // literal or small-enum position.
    const index = new ChannelIndex()
    for (const channel of ctx.channelList) {
      const language = ctx.language(channel)
      if (!channel.tokens || !language) continue
      const entry = { id: channel.id, language }
      const other = index.first(language)
      if (other) {
        report(
          ctx.pointer('channels', channel.id, 'address'),
          `Channels ${JSON.stringify(other.id)} and ${JSON.stringify(channel.id)} share subjects; within one application concrete channel languages are disjoint.`,
          {
            channels: [other.id, channel.id],
          },
        )
      }
      index.add(entry)
    }
  },
})
