import { EarliestOverlapIndex, StepBudget, UNDECIDED } from '../earliest-overlap.js'
import { isObject } from '../document.js'
import { resolveConfig } from '../resources.js'
import { filterAgainstStream, subjectWithin } from '../../../runtime/nats/wildcards.js'
import { natsRule } from './rule.js'
import { subjectsOf } from './native.js'

/** Complexity (each rule here, worst case on any input under the size limits): each stream's subjects (or workqueue consumers' filters) indexed once (earliest-overlap.ts), each filter asking its index, bounded by CONSUMER_INDEX_STEP_LIMIT steps. */

/** Subjects shown in a message: the first few, so that a message stays short however many a stream has. */
const LISTED_SUBJECTS = 8

const listedSubjects = (subjects: string[]): string =>
  subjects.length <= LISTED_SUBJECTS
    ? JSON.stringify(subjects)
    : `${JSON.stringify(subjects.slice(0, LISTED_SUBJECTS))} (and ${subjects.length - LISTED_SUBJECTS} more)`

interface IndexedStream {
  readonly subjects: string[]
  readonly listed: string
  readonly index: EarliestOverlapIndex
}

/** `filterAgainstStream`'s verdict, asking the stream's index first (see consumerWithinStream). */
function filterVerdict(filter: string, stream: IndexedStream, budget: StepBudget): 'valid' | 'partial' | 'disjoint' | typeof UNDECIDED {
  const first = stream.index.earliest(filter)
  if (first === UNDECIDED) return UNDECIDED
  if (first === undefined) return 'disjoint'
  const subject = stream.subjects[first]!
  if (subjectWithin(filter, subject) || subjectWithin(subject, filter)) return 'valid'
  for (let i = 0; i < stream.subjects.length; i++) if (!budget.step()) return UNDECIDED
  return filterAgainstStream(filter, stream.subjects)
}

/**
 * A consumer's filter_subject must select from what its stream holds. nats-server refuses a filter
 * that is not a valid subset of the stream's subjects (JetStream API error 10093, "consumer filter
 * subject is not a valid subset of the interest subjects"): accepted when the filter lies within one
 * of the stream's subjects or one of them lies within the filter (`ledger.>` over `ledger.eu.>`);
 * refused when it only partly overlaps them (`ledger.*.*.posted` over `ledger.eu.>`) and when it
 * shares no subject with them, where the consumer could never receive a message. Checked for every
 * stream whose subjects the bundle knows: the document's own and external ones read from their
 * locked artifacts.
 *
 * Cost: each stream's subjects are indexed once (earliest-overlap.ts) and each filter asks that
 * index for the earliest subject it overlaps: a filter that overlaps none (the usual refusal) costs
 * O(filter tokens) when wildcards meet few branches, where comparing it with every subject was
 * O(subjects). A filter that overlaps a subject is first compared with that one (the usual valid
 * case: the subject contains it); only when that one neither contains it nor lies within it are the
 * stream's other subjects compared, each counted against the same CONSUMER_INDEX_STEP_LIMIT. Past
 * the limit, one diagnostic says what was not decided (an error rule does not pass what it did not
 * check).
 */
export const consumerWithinStream = natsRule({
  code: 'NATS_CONSUMER_OUTSIDE_STREAM',
  description:
    "A consumer's filter_subject is not a valid subset of its stream's subjects (neither within one of them nor containing one), which nats-server refuses (error 10093); a filter sharing no subject with them could never receive a message.",
  check(ctx, report) {
    const budget = new StepBudget(CONSUMER_INDEX_STEP_LIMIT)
    const streams = new Map<string, IndexedStream>()
    let undecided: string | undefined
    for (const [key, consumer] of Object.entries(ctx.section('consumers'))) {
      if (!isObject(consumer) || typeof consumer.stream !== 'string') continue
      const resolved = resolveConfig(ctx, 'consumers', key)
      const filter = isObject(resolved?.config) ? resolved.config.filter_subject : undefined
      let stream = streams.get(consumer.stream)
      if (!stream) {
        const subjects = subjectsOf(resolveConfig(ctx, 'streams', consumer.stream)?.config)
        const index = new EarliestOverlapIndex(budget)
        for (const subject of subjects) index.add(subject)
        streams.set(consumer.stream, (stream = { subjects, listed: listedSubjects(subjects), index }))
      }
      if (!resolved || typeof filter !== 'string' || stream.subjects.length === 0) continue
      const verdict = filterVerdict(filter, stream, budget)
      if (verdict === UNDECIDED) {
        undecided ??= consumer.stream
        continue
      }
      if (verdict === 'valid') continue
      const why =
        verdict === 'partial'
          ? `only partly overlaps stream ${JSON.stringify(consumer.stream)}'s subjects ${stream.listed}: it lies within none of them and contains none`
          : `shares no subject with stream ${JSON.stringify(consumer.stream)}'s subjects ${stream.listed}: it could never receive a message`
      report.in(
        resolved.file,
        `${resolved.pointer}/filter_subject`,
        `Consumer ${JSON.stringify(key)} filters ${JSON.stringify(filter)}, which ${why}; nats-server refuses a filter that is not a valid subset of its stream's subjects (error 10093).`,
        { consumer: key, stream: consumer.stream },
      )
    }
    if (undecided !== undefined)
      report(
        '/x-nats-contract/consumers',
        `Whether the filters of stream ${JSON.stringify(undecided)}'s consumers lie within its subjects was not decided within ${CONSUMER_INDEX_STEP_LIMIT} steps (unsupported: fewer wildcard subjects or filters).`,
      )
  },
})

/** Steps the workqueue-consumer rule (and, separately, the consumer-within-stream rule) may spend in its subject indexes. */
export const CONSUMER_INDEX_STEP_LIMIT = 5_000_000

/**
 * nats-server 2.11 on a workqueue stream: every consumer delivers all (NewJSConsumerWQConsumerNotDeliverAllError)
 * and no two consumers' filters overlap (a message goes to one consumer: NewJSConsumerWQConsumerNotUniqueError).
 * Each consumer's filter meets the earlier consumers of its stream through one subject index per
 * stream (earliest-overlap.ts) and is reported once, with the earliest consumer it overlaps.
 * Comparing every pair was O(consumers^2) (4,000 consumers: 11.8 s; 10,000: 137 s). Now
 * O(consumers x filter tokens) when the filters' wildcards meet few branches, and at most
 * CONSUMER_INDEX_STEP_LIMIT index steps whatever the input (past it: one diagnostic saying the
 * overlap was not decided).
 */
export const workqueueConsumers = natsRule({
  code: 'NATS_WORKQUEUE_CONSUMER',
  description:
    'A consumer of a workqueue stream that does not deliver all, or whose filter overlaps another consumer of that stream, which nats-server 2.11 refuses.',
  check(ctx, report) {
    const budget = new StepBudget(CONSUMER_INDEX_STEP_LIMIT)
    const byStream = new Map<string, { index: EarliestOverlapIndex; keys: string[] }>()
    const workqueue = new Map<string, boolean>()
    let undecided: string | undefined
    for (const [key, consumer] of Object.entries(ctx.section('consumers'))) {
      if (!isObject(consumer) || typeof consumer.stream !== 'string') continue
      let isWorkqueue = workqueue.get(consumer.stream)
      if (isWorkqueue === undefined) {
        const stream = resolveConfig(ctx, 'streams', consumer.stream)?.config
        workqueue.set(consumer.stream, (isWorkqueue = isObject(stream) && stream.retention === 'workqueue'))
      }
      const resolved = resolveConfig(ctx, 'consumers', key)
      if (!isWorkqueue || !resolved || !isObject(resolved.config)) continue
      if (resolved.config.deliver_policy !== 'all')
        report.in(
          resolved.file,
          `${resolved.pointer}/deliver_policy`,
          `Consumer ${JSON.stringify(key)} of workqueue stream ${JSON.stringify(consumer.stream)} must deliver all; nats-server refuses another policy.`,
          {
            consumer: key,
          },
        )
      const filter = resolved.config.filter_subject
      if (typeof filter !== 'string' || undecided !== undefined) continue
      let earlier = byStream.get(consumer.stream)
      if (!earlier) byStream.set(consumer.stream, (earlier = { index: new EarliestOverlapIndex(budget), keys: [] }))
      const first = earlier.index.earliest(filter)
      if (first === UNDECIDED) {
        undecided = consumer.stream
        continue
      }
      if (first !== undefined) {
        const other = earlier.keys[first]!
        report.in(
          resolved.file,
          `${resolved.pointer}/filter_subject`,
          `Consumers ${JSON.stringify(other)} and ${JSON.stringify(key)} of workqueue stream ${JSON.stringify(consumer.stream)} have overlapping filters; a workqueue message goes to one consumer, so nats-server refuses the second.`,
          { consumer: key, other },
        )
      }
      earlier.keys[earlier.index.add(filter)] = key
    }
    if (undecided !== undefined)
      report(
        '/x-nats-contract/consumers',
        `Whether the filters of workqueue stream ${JSON.stringify(undecided)}'s consumers overlap was not decided within ${CONSUMER_INDEX_STEP_LIMIT} steps (unsupported: fewer wildcard filters).`,
      )
  },
})
