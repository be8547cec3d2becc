import { positions } from '../address.js'
import type { NatsContext } from '../context.js'
import { isObject } from '../document.js'
import type { Language, PatternPosition } from '../languages.js'
import { natsRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over operations: O(operations). */

export const OP = (id: string) => ['x-nats-contract', 'operations', id] as const

/**
 * The channel an operation uses when it is a channel of the document without an address (a reply
 * channel): no subject can be rendered on it, nor shown to be captured by a stream or to meet a
 * consumer's filter.
 */
export function unaddressedChannel(ctx: NatsContext, operationId: string): string | undefined {
  const channel = ctx.operationChannel(operationId)
  return channel && channel.address === undefined ? channel.id : undefined
}

/** The subject language of the channel an operation uses, when it has a typed address. */
export function channelLanguage(ctx: NatsContext, operationId: string): { id: string; language: Language } | undefined {
  const channelId = ctx.channelOf(ctx.standard('operations')[operationId])
  const channel = channelId === undefined ? undefined : ctx.channels.get(channelId)
  const language = channel && ctx.language(channel)
  return channel && language ? { id: channel.id, language } : undefined
}

export function nativePattern(ctx: NatsContext, subject: unknown): PatternPosition[] | undefined {
  if (typeof subject !== 'string') return undefined
  const parsed = ctx.filter(subject)
  if ('problem' in parsed || parsed.tokens.some((t) => typeof t !== 'string')) return undefined
  return positions(parsed.tokens, {})
}

export const operationKnown = natsRule({
  code: 'NATS_OPERATION_UNKNOWN',
  description: 'A profile operation key is not a standard operation id.',
  check(ctx, report) {
    const standard = ctx.standard('operations')
    for (const id of Object.keys(ctx.section('operations'))) {
      if (!Object.hasOwn(standard, id))
        report(
          ctx.pointer(...OP(id)),
          `Profile operation ${JSON.stringify(id)} is not an operation of the document; profile operations are keyed by standard operation ids.`,
        )
    }
  },
})

export const operationProfiled = natsRule({
  code: 'NATS_OPERATION_UNPROFILED',
  description: 'A standard operation has no profile entry.',
  check(ctx, report) {
    const profiled = ctx.section('operations')
    for (const id of Object.keys(ctx.standard('operations'))) {
      if (!Object.hasOwn(profiled, id))
        report(ctx.pointer('operations', id), `Operation ${JSON.stringify(id)} has no x-nats-contract.operations entry saying how it uses NATS.`)
    }
  },
})

export const operationForm = natsRule({
  code: 'NATS_OPERATION_FORM',
  description: 'A profile operation is not exactly one of the four forms (core or JetStream publish, core or JetStream subscribe).',
  check(ctx, report) {
    for (const [id, op] of ctx.profileOperations) {
      const at = () => ctx.pointer(...OP(id))
      const publish = isObject(op.publish) ? op.publish : undefined
      const subscribe = isObject(op.subscribe) ? op.subscribe : undefined
      if (!!publish === !!subscribe) {
        report(at(), 'An operation has exactly one of publish and subscribe.')
      } else if (publish?.api === 'core' && (publish.confirmation !== 'none' || 'stream' in publish)) {
        report(ctx.pointer(...OP(id), 'publish'), 'A core publish is exactly {api: core, confirmation: none}.')
      } else if (publish?.api === 'jetstream' && (publish.confirmation !== 'stream-ack' || typeof publish.stream !== 'string')) {
        report(ctx.pointer(...OP(id), 'publish'), 'A JetStream publish is exactly {api: jetstream, confirmation: stream-ack, stream}.')
      } else if (subscribe?.api === 'core' && 'consumer' in subscribe) {
        report(ctx.pointer(...OP(id), 'subscribe'), 'A core subscribe is exactly {api: core}; consumers belong to JetStream subscriptions.')
      } else if (subscribe?.api === 'jetstream' && typeof subscribe.consumer !== 'string') {
        report(ctx.pointer(...OP(id), 'subscribe'), 'A JetStream subscribe is exactly {api: jetstream, consumer}.')
      }
    }
  },
})

export const operationDirection = natsRule({
  code: 'NATS_OPERATION_DIRECTION',
  description: 'publish on a receive operation, or subscribe on a send operation.',
  check(ctx, report) {
    const standard = ctx.standard('operations')
    for (const [id, op] of ctx.profileOperations) {
      const action = isObject(standard[id]) ? (standard[id] as Record<string, unknown>).action : undefined
      if (isObject(op.publish) && action === 'receive')
        report(ctx.pointer(...OP(id), 'publish'), `Operation ${JSON.stringify(id)} receives, so it subscribes; publish is for send.`)
      if (isObject(op.subscribe) && action === 'send')
        report(ctx.pointer(...OP(id), 'subscribe'), `Operation ${JSON.stringify(id)} sends, so it publishes; subscribe is for receive.`)
    }
  },
})
