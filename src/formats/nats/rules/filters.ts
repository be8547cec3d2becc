import type { TemplateToken } from '../../../runtime/nats/subjects.js'
import type { TokenType } from '../../../runtime/nats/tokens.js'
import { isObject } from '../document.js'
import { templateIntersects } from '../languages.js'
import { natsRule } from './rule.js'
import { CHANNEL } from './channels.js'

/** Complexity (each rule here, worst case on any input under the size limits): per filter O(tokens), each filter parsed once per input (context.ts). */

export const filterSyntax = natsRule({
  code: 'NATS_FILTER_SYNTAX',
  description: 'A filter is not literals, placeholders of its channel, `*` and a final `>`.',
  reads: (ctx) => [ctx.profile.channels],
  check(ctx, report) {
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
        if ('problem' in parsed) report(ctx.pointer(...CHANNEL(id), 'filters', name), `${parsed.problem}.`)
        else {
          for (const token of parsed.tokens) {
            if (typeof token === 'string' || Object.hasOwn(params, token.param)) continue
            report(
              ctx.pointer(...CHANNEL(id), 'filters', name),
              `Filter ${JSON.stringify(filter)} uses {${token.param}}, which is not a parameter of channel ${JSON.stringify(id)}.`,
            )
          }
        }
      }
    }
  },
})

export const filterIntersects = natsRule({
  code: 'NATS_FILTER_DISJOINT',
  description: 'A filter matches no subject of its channel.',
  reads: (ctx) => [ctx.doc.channels, ctx.profile.channels, ctx.profile.tokenTypes],
  check(ctx, report) {
    for (const channel of ctx.channelList) {
      const types = ctx.channelTypes(channel)
      const language = ctx.language(channel)
      const profile = ctx.section('channels')[channel.id]
      if (!channel.tokens || !types || !language || !isObject(profile) || !isObject(profile.filters)) continue
      for (const name of Object.keys(profile.filters)) {
        const filter = profile.filters[name]
        const parsed = typeof filter === 'string' ? ctx.filter(filter) : undefined
        if (!parsed || 'problem' in parsed || !placeholdersTyped(parsed.tokens, types)) continue
        if (!templateIntersects(parsed.tokens, types, language)) {
          report(ctx.pointer(...CHANNEL(channel.id), 'filters', name), `Filter ${JSON.stringify(filter)} matches no subject of ${channel.address}.`)
        }
      }
    }
  },
})

/** Whether every placeholder of a filter has a type (a loop, not `some` with a closure: every filter of every channel is asked, bench/). */
function placeholdersTyped(tokens: readonly TemplateToken[], types: Readonly<Record<string, TokenType>>): boolean {
  for (const token of tokens) if (typeof token !== 'string' && !types[token.param]) return false
  return true
}

export const publisherIdentity = natsRule({
  code: 'NATS_PUBLISHER_IDENTITY',
  description: '`publisherIdentity.peerParameter` does not name a parameter of its channel.',
  check(ctx, report) {
    const channels = ctx.section('channels')
    for (const id of Object.keys(channels)) {
      const profile = channels[id]
      if (!isObject(profile) || !isObject(profile.publisherIdentity)) continue
      const peer = profile.publisherIdentity.peerParameter
      const params = isObject(profile.parameters) ? profile.parameters : {}
      if (typeof peer === 'string' && !Object.hasOwn(params, peer)) {
        report(
          ctx.pointer(...CHANNEL(id), 'publisherIdentity', 'peerParameter'),
          `peerParameter ${JSON.stringify(peer)} is not a parameter of channel ${JSON.stringify(id)}.`,
        )
      }
    }
  },
})
