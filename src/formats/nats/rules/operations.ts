import { positions } from '../address.js'
import { locationSites } from '../../../core/json-refs.js'
import type { NatsContext } from '../context.js'
import { refId } from '../context.js'
import { isObject } from '../document.js'
import { CoverUndecided, patternIntersects, patternsCover, type Language, type PatternPosition } from '../languages.js'
import { resolveConfig } from '../resources.js'
import { natsRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over operations; stream capture decided by token classes with memoized sub-questions and a step limit (see patternsCover). */

const OP = (id: string) => ['x-nats-contract', 'operations', id] as const

const opsOf = new WeakMap<object, Array<[string, Record<string, unknown>]>>()

/** The profile operations that are objects, listed once per document: six rules walk them. */
function profileOps(ctx: NatsContext): Array<[string, Record<string, unknown>]> {
  const section = ctx.section('operations')
  let ops = opsOf.get(section)
  if (!ops) opsOf.set(section, (ops = Object.entries(section).filter((e): e is [string, Record<string, unknown>] => isObject(e[1]))))
  return ops
}

/**
 * The channel an operation uses when it is a channel of the document without an address (a reply
 * channel): no subject can be rendered on it, nor shown to be captured by a stream or to meet a
 * consumer's filter.
 */
function unaddressedChannel(ctx: NatsContext, operationId: string): string | undefined {
  const channel = ctx.operationChannel(operationId)
  return channel && channel.address === undefined ? channel.id : undefined
}

/** The subject language of the channel an operation uses, when it has a typed address. */
function channelLanguage(ctx: NatsContext, operationId: string): { id: string; language: Language } | undefined {
  const channelId = ctx.channelOf(ctx.standard('operations')[operationId])
  const channel = channelId === undefined ? undefined : ctx.channels.get(channelId)
  const language = channel && ctx.language(channel)
  return channel && language ? { id: channel.id, language } : undefined
}

function nativePattern(ctx: NatsContext, subject: unknown): PatternPosition[] | undefined {
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
    for (const [id, op] of profileOps(ctx)) {
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
    for (const [id, op] of profileOps(ctx)) {
      const action = isObject(standard[id]) ? (standard[id] as Record<string, unknown>).action : undefined
      if (isObject(op.publish) && action === 'receive')
        report(ctx.pointer(...OP(id), 'publish'), `Operation ${JSON.stringify(id)} receives, so it subscribes; publish is for send.`)
      if (isObject(op.subscribe) && action === 'send')
        report(ctx.pointer(...OP(id), 'subscribe'), `Operation ${JSON.stringify(id)} sends, so it publishes; subscribe is for receive.`)
    }
  },
})

export const streamCaptures = natsRule({
  code: 'NATS_STREAM_CAPTURE',
  description:
    "A JetStream publish names a stream whose subjects do not capture every subject of the operation's channel, or its channel has no address (a reply channel).",
  check(ctx, report) {
    // One decision per (stream, channel): many operations publishing one channel to one stream
    // cost one cover, not one each (each cover is O(stream subjects x channel positions), bounded).
    const decided = new Map<string, boolean | CoverUndecided>()
    // Each stream's subjects read once (null: not all of them are plain NATS patterns).
    const streams = new Map<string, { subjects: PatternPosition[][]; listed: string } | null>()
    for (const [id, op] of profileOps(ctx)) {
      const publish = isObject(op.publish) ? op.publish : undefined
      if (publish?.api !== 'jetstream' || typeof publish.stream !== 'string') continue
      const unaddressed = unaddressedChannel(ctx, id)
      if (unaddressed !== undefined) {
        report(
          ctx.pointer(...OP(id), 'publish', 'stream'),
          `Channel ${JSON.stringify(unaddressed)} has no address (a reply channel): a stream-acknowledged publish on it has no subject to render, and no stream can be shown to capture it.`,
        )
        continue
      }
      const channel = channelLanguage(ctx, id)
      let stream = streams.get(publish.stream)
      if (stream === undefined) {
        const config = resolveConfig(ctx, 'streams', publish.stream)?.config
        const list = isObject(config) && Array.isArray(config.subjects) ? (config.subjects as unknown[]) : undefined
        const patterns = list?.map((subject) => nativePattern(ctx, subject))
        stream = patterns && patterns.every((p) => p !== undefined) ? { subjects: patterns, listed: JSON.stringify(list) } : null
        streams.set(publish.stream, stream)
      }
      if (!channel || !stream) continue
      const subjects = stream.subjects
      const pair = JSON.stringify([publish.stream, channel.id])
      let verdict = decided.get(pair)
      if (verdict === undefined) {
        try {
          verdict = patternsCover(subjects, channel.language)
        } catch (error) {
          if (!(error instanceof CoverUndecided)) throw error
          verdict = error
        }
        decided.set(pair, verdict)
      }
      const covered = verdict
      if (covered instanceof CoverUndecided) {
        const error = covered
        report(
          ctx.pointer(...OP(id), 'publish', 'stream'),
          `Whether stream ${JSON.stringify(publish.stream)} captures every subject of channel ${JSON.stringify(channel.id)} cannot be decided within the compiler's bound (${error.message}); list the stream's subjects with wildcards.`,
        )
        continue
      }
      if (!covered) {
        report(
          ctx.pointer(...OP(id), 'publish', 'stream'),
          `Stream ${JSON.stringify(publish.stream)} (subjects ${stream.listed}) does not capture every subject of channel ${JSON.stringify(channel.id)}; a stream-acknowledged publish must land in it.`,
        )
      }
    }
  },
})

export const consumerKnown = natsRule({
  code: 'NATS_UNKNOWN_CONSUMER',
  description: 'A JetStream subscribe names a consumer key the document does not define.',
  check(ctx, report) {
    const consumers = ctx.section('consumers')
    for (const [id, op] of profileOps(ctx)) {
      const subscribe = isObject(op.subscribe) ? op.subscribe : undefined
      if (subscribe?.api === 'jetstream' && typeof subscribe.consumer === 'string' && !Object.hasOwn(consumers, subscribe.consumer)) {
        report(
          ctx.pointer(...OP(id), 'subscribe', 'consumer'),
          `Operation ${JSON.stringify(id)} consumes through ${JSON.stringify(subscribe.consumer)}, which x-nats-contract.consumers does not define.`,
        )
      }
    }
  },
})

export const consumerFilter = natsRule({
  code: 'NATS_CONSUMER_FILTER',
  description:
    "A JetStream subscribe names a consumer whose filter_subject matches no subject of the operation's channel, or its channel has no address (a reply channel).",
  check(ctx, report) {
    for (const [id, op] of profileOps(ctx)) {
      const subscribe = isObject(op.subscribe) ? op.subscribe : undefined
      if (subscribe?.api !== 'jetstream' || typeof subscribe.consumer !== 'string') continue
      const unaddressed = unaddressedChannel(ctx, id)
      if (unaddressed !== undefined) {
        report(
          ctx.pointer(...OP(id), 'subscribe', 'consumer'),
          `Channel ${JSON.stringify(unaddressed)} has no address (a reply channel): no consumer filter can be shown to match its subjects, and a received subject could not be parsed.`,
        )
        continue
      }
      const channel = channelLanguage(ctx, id)
      const consumer = resolveConfig(ctx, 'consumers', subscribe.consumer)
      const filter = isObject(consumer?.config) ? nativePattern(ctx, consumer.config.filter_subject) : undefined
      if (!channel || !filter) continue
      if (!patternIntersects(filter, channel.language)) {
        report(
          ctx.pointer(...OP(id), 'subscribe', 'consumer'),
          `Consumer ${JSON.stringify(subscribe.consumer)} filters ${JSON.stringify((consumer!.config as Record<string, unknown>).filter_subject)}, which matches no subject of channel ${JSON.stringify(channel.id)}.`,
        )
      }
    }
  },
})

export const requestReply = natsRule({
  code: 'NATS_REQUEST_REPLY',
  description: 'requestReply on anything but a core send whose standard reply channel has no address, or without a positive timeoutMs.',
  check(ctx, report) {
    const standard = ctx.standard('operations')
    for (const [id, op] of profileOps(ctx)) {
      if (!isObject(op.requestReply)) continue
      const at = () => ctx.pointer(...OP(id), 'requestReply')
      const std = isObject(standard[id]) ? (standard[id] as Record<string, unknown>) : {}
      const publish = isObject(op.publish) ? op.publish : undefined
      if (publish?.api !== 'core' || std.action !== 'send') {
        report(at(), 'requestReply is for a core send only (JetStream business results use explicit result operations).')
        continue
      }
      const reply = isObject(std.reply) ? std.reply : undefined
      const replyChannel = reply ? refId(reply.channel, '#/channels/') : undefined
      const channel = replyChannel === undefined ? undefined : ctx.channels.get(replyChannel)
      if (!reply || !channel) report(at(), `Operation ${JSON.stringify(id)} needs a standard reply with a channel for the native inbox.`)
      else if (channel.address !== undefined || reply.address !== undefined)
        report(at(), `The reply channel ${JSON.stringify(replyChannel)} has an address; a native-inbox reply has an unknown address.`)
      const timeout = op.requestReply.timeoutMs
      if (!(Number.isSafeInteger(timeout) && (timeout as number) > 0))
        report(ctx.pointer(...OP(id), 'requestReply', 'timeoutMs'), 'timeoutMs is a positive integer of milliseconds.')
    }
  },
})

/**
 * "JetStream business results use explicit result operations": a standard `reply` is the native
 * inbox of a requestReply core send (checked above) or a core responder's answer to one. On a
 * JetStream operation it would be a second, unchecked result path; on a send without requestReply
 * it is a request with no timeout or completion the generator could honour. O(operations).
 */
export const standardReply = natsRule({
  code: 'NATS_STANDARD_REPLY',
  description: 'A standard reply on a JetStream operation (results are explicit result operations) or on a send without requestReply.',
  check(ctx, report) {
    const standard = ctx.standard('operations')
    for (const [id, op] of profileOps(ctx)) {
      const std = isObject(standard[id]) ? (standard[id] as Record<string, unknown>) : {}
      if (std.reply === undefined) continue
      const api = (isObject(op.publish) ? op.publish.api : isObject(op.subscribe) ? op.subscribe.api : undefined) as unknown
      const at = ctx.pointer('operations', id, 'reply')
      if (api === 'jetstream')
        report(at, `Operation ${JSON.stringify(id)} is JetStream; its business results are explicit result operations, not a standard reply.`)
      else if (std.action === 'send' && !isObject(op.requestReply))
        report(at, `Operation ${JSON.stringify(id)} has a standard reply but no requestReply (routing, completion, timeoutMs) in its profile entry.`)
    }
  },
})

export const headerCorrelation = natsRule({
  code: 'NATS_UNSUPPORTED',
  description: 'Header correlation (a correlationId or reply address located in message headers): unsupported by profile v0.2.',
  check(ctx, report) {
    for (const { value, pointer } of locationSites(ctx.doc)) {
      // The profile's own members are not AsyncAPI objects.
      if (!(value as string).startsWith('$message.header') || pointer.includes('/x-nats-contract/')) continue
      report(pointer, `${value as string} correlates through a header; profile v0.2 correlates through payload expressions only.`)
    }
  },
})
