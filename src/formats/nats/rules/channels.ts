import { placeholders } from '../address.js'
import { isObject } from '../document.js'
import { languagesIntersect, templateIntersects, type Language } from '../languages.js'
import type { NatsRule } from './rule.js'

const CHANNEL = (id: string) => ['x-nats-contract', 'channels', id] as const

export const channelKnown: NatsRule = {
  code: 'NATS_CHANNEL_UNKNOWN',
  description: 'A profile channel key is not a standard channel id.',
  check(ctx) {
    for (const id of Object.keys(ctx.section('channels'))) {
      if (!ctx.channels.has(id)) ctx.report(this.code, ctx.pointer(...CHANNEL(id)), `Profile channel ${JSON.stringify(id)} is not a channel of the document; profile channels are keyed by standard channel ids.`)
    }
  },
}

export const channelProfiled: NatsRule = {
  code: 'NATS_CHANNEL_UNPROFILED',
  description: 'A standard channel with an address has no profile entry.',
  check(ctx) {
    const profiled = ctx.section('channels')
    for (const channel of ctx.channelList) {
      if (channel.address !== undefined && !Object.hasOwn(profiled, channel.id)) {
        ctx.report(this.code, ctx.pointer('channels', channel.id), `Channel ${JSON.stringify(channel.id)} has an address but no x-nats-contract.channels entry typing its subject.`)
      }
    }
  },
}

/** The address problems parseAddress tells apart, one rule (and code) each. */
function addressRule(code: 'NATS_ADDRESS_TOKEN' | 'NATS_RESERVED_SUBJECT', description: string): NatsRule {
  return {
    code,
    description,
    check(ctx) {
      for (const channel of ctx.channelList) {
        const parsed = channel.parsed
        if (parsed && 'problem' in parsed && parsed.code === code) ctx.report(code, ctx.pointer('channels', channel.id, 'address'), `${parsed.problem}.`)
      }
    },
  }
}

export const addressTokens = addressRule('NATS_ADDRESS_TOKEN', 'An address has an empty token, a wildcard, a partial placeholder, or a literal outside [A-Za-z0-9_-].')
export const reservedSubjects = addressRule('NATS_RESERVED_SUBJECT', 'A `$`-prefixed or `_INBOX` subject: unsupported by profile v0.2.')

export const parametersAgree: NatsRule = {
  code: 'NATS_PARAMETERS_MISMATCH',
  description: 'The address placeholders, the standard parameters and the profile parameters are not the same set.',
  check(ctx) {
    const profiled = ctx.section('channels')
    for (const channel of ctx.channelList) {
      if (!channel.tokens || !Object.hasOwn(profiled, channel.id)) continue
      const inAddress = placeholders(channel.tokens)
      const standard = ctx.standard('channels')[channel.id] as Record<string, unknown>
      const inStandard = isObject(standard.parameters) ? Object.keys(standard.parameters) : []
      const inProfile = Object.keys(channel.parameters)
      const address = new Set(inAddress)
      // Object keys are distinct, so the same size and every one in the address is the same set.
      const sameSet = (list: string[]) => list.length === address.size && list.every((p) => address.has(p))
      if (address.size !== inAddress.length) {
        ctx.report(this.code, ctx.pointer('channels', channel.id, 'address'), `${channel.address} uses a placeholder twice.`)
      } else if (!sameSet(inStandard) || !sameSet(inProfile)) {
        ctx.report(this.code, ctx.pointer(...CHANNEL(channel.id), 'parameters'), `Placeholders disagree: address {${inAddress.join('}, {')}}, standard parameters [${inStandard.join(', ')}], profile parameters [${inProfile.join(', ')}]; all three must be the same set.`, {
          address: inAddress,
          standard: inStandard,
          profile: inProfile,
        })
      }
    }
  },
}

export const parameterTypesKnown: NatsRule = {
  code: 'NATS_UNKNOWN_TOKEN_TYPE',
  description: 'A channel parameter names a token type the document does not define.',
  check(ctx) {
    const defined = ctx.section('tokenTypes')
    for (const channel of ctx.channelList) {
      for (const param of Object.keys(channel.parameters)) {
        const type = channel.parameters[param]!
        if (!Object.hasOwn(defined, type)) ctx.report(this.code, ctx.pointer(...CHANNEL(channel.id), 'parameters', param), `Parameter {${param}} names token type ${JSON.stringify(type)}, which tokenTypes does not define.`)
      }
    }
  },
}

export const filterSyntax: NatsRule = {
  code: 'NATS_FILTER_SYNTAX',
  description: 'A filter is not literals, placeholders of its channel, `*` and a final `>`.',
  check(ctx) {
    // Keys, then members (not Object.entries): every channel and filter of a large contract passes here (bench/).
    const channels = ctx.section('channels')
    for (const id of Object.keys(channels)) {
      const profile = channels[id]
      const filters = isObject(profile) && isObject(profile.filters) ? profile.filters : {}
      const params = isObject(profile) && isObject(profile.parameters) ? profile.parameters : {}
      for (const name of Object.keys(filters)) {
        const filter = filters[name]
        if (typeof filter !== 'string') continue
        const parsed = ctx.filter(filter)
        if ('problem' in parsed) ctx.report(this.code, ctx.pointer(...CHANNEL(id), 'filters', name), `${parsed.problem}.`)
        else {
          for (const token of parsed.tokens) {
            if (typeof token === 'string' || Object.hasOwn(params, token.param)) continue
            ctx.report(this.code, ctx.pointer(...CHANNEL(id), 'filters', name), `Filter ${JSON.stringify(filter)} uses {${token.param}}, which is not a parameter of channel ${JSON.stringify(id)}.`)
          }
        }
      }
    }
  },
}

export const filterIntersects: NatsRule = {
  code: 'NATS_FILTER_DISJOINT',
  description: 'A filter matches no subject of its channel.',
  check(ctx) {
    for (const channel of ctx.channelList) {
      const types = ctx.channelTypes(channel)
      const language = ctx.language(channel)
      const profile = ctx.section('channels')[channel.id]
      if (!channel.tokens || !types || !language || !isObject(profile) || !isObject(profile.filters)) continue
      for (const name of Object.keys(profile.filters)) {
        const filter = profile.filters[name]
        const parsed = typeof filter === 'string' ? ctx.filter(filter) : undefined
        if (!parsed || 'problem' in parsed || parsed.tokens.some((t) => typeof t !== 'string' && !types[t.param])) continue
        if (!templateIntersects(parsed.tokens, types, language)) {
          ctx.report(this.code, ctx.pointer(...CHANNEL(channel.id), 'filters', name), `Filter ${JSON.stringify(filter)} matches no subject of ${channel.address}.`)
        }
      }
    }
  },
}

export const publisherIdentity: NatsRule = {
  code: 'NATS_PUBLISHER_IDENTITY',
  description: '`publisherIdentity.peerParameter` does not name a parameter of its channel.',
  check(ctx) {
    const channels = ctx.section('channels')
    for (const id of Object.keys(channels)) {
      const profile = channels[id]
      if (!isObject(profile) || !isObject(profile.publisherIdentity)) continue
      const peer = profile.publisherIdentity.peerParameter
      const params = isObject(profile.parameters) ? profile.parameters : {}
      if (typeof peer === 'string' && !Object.hasOwn(params, peer)) {
        ctx.report(this.code, ctx.pointer(...CHANNEL(id), 'publisherIdentity', 'peerParameter'), `peerParameter ${JSON.stringify(peer)} is not a parameter of channel ${JSON.stringify(id)}.`)
      }
    }
  },
}

export const channelsDisjoint: NatsRule = {
  code: 'NATS_CHANNEL_OVERLAP',
  description: 'Two channels of one application share a concrete subject (decided exactly over the token languages).',
  check(ctx) {
    // Two channels can only overlap with the same number of tokens and, at every position, a token
    // in common. So each channel is indexed, per length and position, under each value of a
    // position that is a literal or a small enum ("open" otherwise), and compared only with the
    // earlier channels of its most selective position: a literal shared by few channels. Each
    // channel is reported once, with the first earlier channel it overlaps.
    // Complexity: O(n * L * c) for n channels of length L, c the smallest candidate list; O(n^2 * L)
    // only when channels have no literal or small-enum position at all (every placeholder a token
    // type). `svc.{a}.m<i>.{b}` (32,000 channels sharing first and last tokens) is linear.
    const byLength = new Map<number, LengthIndex>()
    for (const channel of ctx.channelList) {
      const language = ctx.language(channel)
      if (!channel.tokens || !language) continue
      let index = byLength.get(language.length)
      if (!index) byLength.set(language.length, (index = newLengthIndex(language.length)))
      const entry = { id: channel.id, language }
      const other = firstOverlap(index, entry)
      if (other) {
        ctx.report(this.code, ctx.pointer('channels', channel.id, 'address'), `Channels ${JSON.stringify(other.id)} and ${JSON.stringify(channel.id)} share subjects; within one application concrete channel languages are disjoint.`, {
          channels: [other.id, channel.id],
        })
      }
      addToIndex(index, entry)
    }
  },
}

/** Enums up to this many values are indexed by value; larger ones, and token types, are "open". */
const INDEXED_ENUM = 16

interface IndexedChannel {
  id: string
  language: Language
}

interface LengthIndex {
  all: IndexedChannel[]
  /** Per position: value -> channels with that value there (literal or small enum). */
  values: Array<Map<string, IndexedChannel[]>>
  /** Per position: channels with a large enum or a token type there. */
  open: IndexedChannel[][]
}

function newLengthIndex(length: number): LengthIndex {
  return { all: [], values: Array.from({ length }, () => new Map()), open: Array.from({ length }, () => []) }
}

const valuesAt = (type: Language[number]): readonly string[] | undefined => (type.kind === 'enum' && type.values.length <= INDEXED_ENUM ? type.values : undefined)

function addToIndex(index: LengthIndex, entry: IndexedChannel): void {
  index.all.push(entry)
  entry.language.forEach((type, p) => {
    const values = valuesAt(type)
    if (!values) return void index.open[p]!.push(entry)
    for (const v of values) {
      let list = index.values[p]!.get(v)
      if (!list) index.values[p]!.set(v, (list = []))
      list.push(entry)
    }
  })
}

/** The first indexed channel whose language meets `entry`'s, looking only at its most selective position. */
function firstOverlap(index: LengthIndex, entry: IndexedChannel): IndexedChannel | undefined {
  let best: IndexedChannel[][] | undefined
  let bestSize = Infinity
  entry.language.forEach((type, p) => {
    const values = valuesAt(type)
    if (!values) return
    const lists = [index.open[p]!]
    let size = index.open[p]!.length
    for (const v of values) {
      const list = index.values[p]!.get(v)
      if (list) lists.push(list), (size += list.length)
    }
    if (size < bestSize) (best = lists), (bestSize = size)
  })
  for (const list of best ?? [index.all]) for (const other of list) if (languagesIntersect(entry.language, other.language)) return other
  return undefined
}
