import { isObject } from '../document.js'
import { CoverUndecided, patternIntersects, patternsCover, type PatternPosition } from '../languages.js'
import { resolveConfig } from '../resources.js'
import { natsRule } from './rule.js'
import { OP, channelLanguage, nativePattern, unaddressedChannel } from './operations.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over operations; stream capture decided by token classes with memoized sub-questions and a step limit (see patternsCover), once per (stream, channel). */

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
    for (const [id, op] of ctx.profileOperations) {
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
    for (const [id, op] of ctx.profileOperations) {
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
    for (const [id, op] of ctx.profileOperations) {
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
