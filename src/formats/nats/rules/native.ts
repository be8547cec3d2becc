import { SubjectIndex } from '../subject-index.js'
import { EarliestOverlapIndex, StepBudget, UNDECIDED } from '../earliest-overlap.js'
import { isObject } from '../document.js'
import { configProblems, nameProblem } from '../native-config.js'
import { exactInteger, positiveInt64Problem } from '../exact-integers.js'
import { resolveConfig, type ResolvedConfig } from '../resources.js'
import { filterAgainstStream, subjectsOverlap, subjectWithin } from '../wildcards.js'
import { escapeToken } from '../../../runtime/shared/json-pointer.js'
import type { NatsContext } from '../context.js'
import { otherContexts } from './bundle.js'
import { natsRule, type NatsReport, type NatsRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over streams and consumers, each config checked field by field: O(size of the native section). */

const KINDS = [
  ['streams', 'stream'],
  ['consumers', 'consumer'],
] as const

export const authorityForm = natsRule({
  code: 'NATS_AUTHORITY_FORM',
  description: 'A stream or consumer is not exactly `{authority: contract, config}` or `{authority: external, artifact, pointer}`.',
  check(ctx, report) {
    for (const [section, kind] of KINDS) {
      for (const [key, resource] of Object.entries(ctx.section(section))) {
        if (!isObject(resource)) continue
        const at = ctx.pointer('x-nats-contract', section, key)
        const has = (k: string) => Object.hasOwn(resource, k)
        if (resource.authority === 'contract' && (!has('config') || has('artifact') || has('pointer'))) {
          report(at, `A contract-owned ${kind} has a config and no artifact or pointer.`)
        } else if (resource.authority === 'external' && (has('config') || !has('artifact') || !has('pointer'))) {
          report(at, `An external ${kind} names a locked artifact and a pointer into it, and has no config of its own (one authority per fact).`)
        }
      }
    }
  },
})

export const artifactPointer = natsRule({
  code: 'NATS_ARTIFACT_POINTER',
  description: "An external resource's pointer does not resolve in its locked artifact.",
  check(ctx, report) {
    for (const [section, kind] of KINDS) {
      for (const key of Object.keys(ctx.section(section))) {
        const resolved = resolveConfig(ctx, section, key)
        if (resolved?.authority === 'external' && resolved.config === undefined) {
          report(
            ctx.pointer('x-nats-contract', section, key, 'pointer'),
            `${resolved.pointer} selects nothing in ${resolved.file.file}; it must select the ${kind} configuration.`,
          )
        }
      }
    }
  },
})

function configRule<const Code extends string>(code: Code, kind: 'stream' | 'consumer'): NatsRule<Code> {
  const section = kind === 'stream' ? 'streams' : 'consumers'
  return natsRule({
    code,
    description: `A ${kind} configuration is not the closed v0.2 configuration: a required field missing, a value not allowed, a limit or duration not a positive integer, or an unsupported field${kind === 'consumer' ? ' (push consumers included)' : ''}.`,
    check(ctx, report) {
      for (const key of Object.keys(ctx.section(section))) {
        const resolved = resolveConfig(ctx, section, key)
        if (!resolved || resolved.config === undefined) continue
        const positive = (field: string, value: unknown) => positiveInt64Problem(resolved.file, `${resolved.pointer}/${escapeToken(field)}`, value)
        for (const problem of configProblems(kind, resolved.config, positive))
          report.in(resolved.file, resolved.pointer + problem.at, problem.message, { [kind]: key })
      }
    },
  })
}

export const streamConfig = configRule('NATS_STREAM_CONFIG', 'stream')
export const consumerConfig = configRule('NATS_CONSUMER_CONFIG', 'consumer')

function nameRule<const Code extends string>(code: Code, section: 'streams' | 'consumers', field: 'name' | 'durable_name'): NatsRule<Code> {
  return natsRule({
    code,
    description: `A ${field} that is not a valid NATS ${section === 'streams' ? 'stream' : 'durable consumer'} name.`,
    check(ctx, report) {
      for (const key of Object.keys(ctx.section(section))) {
        const resolved = resolveConfig(ctx, section, key)
        if (!isObject(resolved?.config) || !Object.hasOwn(resolved.config, field)) continue
        const problem = nameProblem(resolved.config[field], field)
        if (problem) report.in(resolved.file, `${resolved.pointer}/${field}`, `${problem}.`)
      }
    },
  })
}

export const streamName = nameRule('NATS_STREAM_NAME', 'streams', 'name')
export const durableName = nameRule('NATS_DURABLE_NAME', 'consumers', 'durable_name')

export const consumerStream = natsRule({
  code: 'NATS_UNKNOWN_STREAM',
  description: 'A consumer or a JetStream publish names a stream key the document does not define.',
  check(ctx, report) {
    const streams = ctx.section('streams')
    for (const [key, consumer] of Object.entries(ctx.section('consumers'))) {
      if (isObject(consumer) && typeof consumer.stream === 'string' && !Object.hasOwn(streams, consumer.stream)) {
        report(
          ctx.pointer('x-nats-contract', 'consumers', key, 'stream'),
          `Consumer ${JSON.stringify(key)} names stream ${JSON.stringify(consumer.stream)}, which x-nats-contract.streams does not define.`,
        )
      }
    }
    for (const [id, op] of Object.entries(ctx.section('operations'))) {
      const publish = isObject(op) && isObject(op.publish) ? op.publish : undefined
      if (publish?.api === 'jetstream' && typeof publish.stream === 'string' && !Object.hasOwn(streams, publish.stream)) {
        report(
          ctx.pointer('x-nats-contract', 'operations', id, 'publish', 'stream'),
          `Operation ${JSON.stringify(id)} publishes to stream ${JSON.stringify(publish.stream)}, which x-nats-contract.streams does not define.`,
        )
      }
    }
  },
})

export const oneAuthority = natsRule({
  code: 'NATS_DUPLICATE_AUTHORITY',
  description:
    'Two streams with one name, or two consumers with one durable name on one stream, in the document; or a stream or consumer the document owns (`authority: contract`) that another contract of its bundle owns too: each fact has one authority.',
  check(ctx, report) {
    bundleAuthority(ctx, report)
    const seen = new Map<string, string>()
    for (const [section, field] of [
      ['streams', 'name'],
      ['consumers', 'durable_name'],
    ] as const) {
      for (const key of Object.keys(ctx.section(section))) {
        const resolved = resolveConfig(ctx, section, key)
        const name = isObject(resolved?.config) ? resolved.config[field] : undefined
        if (typeof name !== 'string') continue
        const stream = section === 'consumers' ? String((ctx.section('consumers')[key] as Record<string, unknown>).stream) : ''
        const fact = `${section}:${stream}:${name}`
        const other = seen.get(fact)
        if (other !== undefined)
          report(
            ctx.pointer('x-nats-contract', section, key),
            `${section === 'streams' ? 'Stream' : 'Durable consumer'} ${JSON.stringify(name)} is declared by both ${JSON.stringify(other)} and ${JSON.stringify(key)}; one fact has one authority.`,
          )
        else seen.set(fact, key)
      }
    }
  },
})

/** A contract-owned resource's identity: a stream by name, a consumer by its stream's name and durable name. */
function ownedFacts(ctx: NatsContext): Map<string, { section: 'streams' | 'consumers'; key: string; name: string }> {
  const out = new Map<string, { section: 'streams' | 'consumers'; key: string; name: string }>()
  for (const [section, field] of [
    ['streams', 'name'],
    ['consumers', 'durable_name'],
  ] as const) {
    for (const [key, resource] of Object.entries(ctx.section(section))) {
      if (!isObject(resource) || resource.authority !== 'contract' || !isObject(resource.config)) continue
      const name = resource.config[field]
      if (typeof name !== 'string') continue
      let fact = `stream ${JSON.stringify(name)}`
      if (section === 'consumers') {
        const stream = typeof resource.stream === 'string' ? resolveConfig(ctx, 'streams', resource.stream)?.config : undefined
        if (!isObject(stream) || typeof stream.name !== 'string') continue
        fact = `durable consumer ${JSON.stringify(name)} on stream ${JSON.stringify(stream.name)}`
      }
      if (!out.has(fact)) out.set(fact, { section, key, name })
    }
  }
  return out
}

/**
 * "Each fact has one authority", across the bundle: a stream (by name) or a durable consumer (by
 * stream name and durable name) that this document owns and a document of another contract of the
 * bundle owns too is refused in this document (whichever of the two is compiled, each is refused);
 * the others declare it `authority: external`. Documents of this contract (other versions, or the
 * same bytes at another path) are one authority. Deployment bindings are not compared: whether two
 * bindings map to one account is an operator fact the compiler cannot see, so an unknown mapping is
 * not assumed to separate them. O(documents x resources), one map of facts per document.
 */
function bundleAuthority(ctx: NatsContext, report: NatsReport): void {
  const mine = ownedFacts(ctx)
  if (mine.size === 0) return
  const contract = ctx.profile.contract
  const reported = new Set<string>()
  for (const other of otherContexts(ctx)) {
    if (other.profile.contract === contract) continue
    for (const [fact, theirs] of ownedFacts(other)) {
      const own = mine.get(fact)
      if (!own || reported.has(fact)) continue
      reported.add(fact)
      report(
        ctx.pointer('x-nats-contract', own.section, own.key),
        `The ${fact} is owned (authority: contract) both here and by contract ${JSON.stringify(other.profile.contract)} (${other.main.file}, ${own.section}.${theirs.key}); each fact has one authority: all but one declare it authority: external.`,
        { other: other.main.file },
      )
    }
  }
}

/** Each stream's (or consumer's) configuration that is an object, with where it sits. */
function* configs(
  ctx: Parameters<NatsRule['check']>[0],
  section: 'streams' | 'consumers',
): Generator<[key: string, config: Record<string, unknown>, resolved: ResolvedConfig]> {
  for (const key of Object.keys(ctx.section(section))) {
    const resolved = resolveConfig(ctx, section, key)
    if (resolved && isObject(resolved.config)) yield [key, resolved.config, resolved]
  }
}

/**
 * nats-server refuses a stream whose deduplication window is longer than its maximum age
 * ("duplicates window can not be larger then max age"): the window cannot outlive the messages it
 * deduplicates. One comparison per stream.
 */
export const streamWindow = natsRule({
  code: 'NATS_STREAM_WINDOW',
  description: "A stream's duplicate_window is longer than its max_age, which nats-server 2.11 refuses.",
  check(ctx, report) {
    for (const [key, config, resolved] of configs(ctx, 'streams')) {
      // Compared exactly: both may be past 2^53 (a year is 3.2e16 ns).
      const window = exactInteger(resolved.file, `${resolved.pointer}/duplicate_window`, config.duplicate_window)
      const age = exactInteger(resolved.file, `${resolved.pointer}/max_age`, config.max_age)
      if (window === undefined || age === undefined) continue
      if (age > 0n && window > age)
        report.in(
          resolved.file,
          `${resolved.pointer}/duplicate_window`,
          `Stream ${JSON.stringify(key)}: duplicate_window ${window} ns is longer than max_age ${age} ns; nats-server refuses a deduplication window that outlives the messages.`,
          { stream: key },
        )
    }
  },
})

const subjectsOf = (config: unknown): string[] =>
  isObject(config) && Array.isArray(config.subjects) ? config.subjects.filter((s): s is string => typeof s === 'string') : []

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

/** The shortest `max_age` and `duplicate_window` nats-server 2.11 takes: 100 ms, in nanoseconds. */
const MINIMUM_DURATION_NS = 100_000_000

/** nats-server 2.11 refuses a max_age or a duplicate_window under 100 ms ("needs to be >= 100ms"). */
export const streamMinimumDuration = natsRule({
  code: 'NATS_STREAM_DURATION',
  description: "A stream's max_age or duplicate_window under 100 ms, which nats-server 2.11 refuses.",
  check(ctx, report) {
    for (const [key, config, resolved] of configs(ctx, 'streams')) {
      for (const field of ['max_age', 'duplicate_window'] as const) {
        const value = config[field]
        if (typeof value === 'number' && value > 0 && value < MINIMUM_DURATION_NS)
          report.in(
            resolved.file,
            `${resolved.pointer}/${field}`,
            `Stream ${JSON.stringify(key)}: ${field} ${value} ns is under 100 ms (100000000 ns), which nats-server refuses.`,
            {
              stream: key,
            },
          )
      }
    }
  },
})

/** API subject spaces a stream may only capture with no_ack, which the closed configuration does not have. */
const API_SPACES: ReadonlyArray<[space: string, allowed: string]> = [
  ['$JS.>', '$JS.EVENT.>'],
  ['$JSC.>', ''],
  ['$SYS.>', '$SYS.ACCOUNT.>'],
]

/**
 * What nats-server 2.11 refuses in a stream's own subjects list: one subject twice ("duplicate
 * subjects detected"), `>` alone ("capturing all subjects requires no-ack"), and subjects inside the
 * JetStream or system API spaces ("... require no-ack to be true"); the closed v0.2 configuration
 * has no no_ack, so those are unsupported. O(subjects).
 */
export const streamSubjects = natsRule({
  code: 'NATS_STREAM_SUBJECTS',
  description: "A stream's subjects list that nats-server 2.11 refuses: a subject twice, `>` alone, or a subject in the $JS, $JSC or $SYS API spaces.",
  check(ctx, report) {
    for (const [key, config, resolved] of configs(ctx, 'streams')) {
      const list = Array.isArray(config.subjects) ? config.subjects : []
      const seen = new Set<string>()
      list.forEach((subject: unknown, i: number) => {
        if (typeof subject !== 'string') return
        const at = `${resolved.pointer}/subjects/${i}`
        const refuse = (why: string) => report.in(resolved.file, at, `Stream ${JSON.stringify(key)}: ${why}`, { stream: key })
        if (seen.has(subject)) refuse(`${JSON.stringify(subject)} is listed twice; nats-server refuses duplicate subjects.`)
        seen.add(subject)
        if (subject === '>')
          refuse('">" captures every subject, which nats-server allows only with no_ack, not part of the closed v0.2 configuration (unsupported).')
        for (const [space, allowed] of API_SPACES)
          if (subjectsOverlap(subject, space) && subject !== '>' && !(allowed && subjectWithin(subject, allowed)))
            refuse(
              `${JSON.stringify(subject)} captures ${space} API subjects, which nats-server allows only with no_ack, not part of the closed v0.2 configuration (unsupported).`,
            )
      })
    }
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

/** Index visits the overlap rule makes before it stops (far above a real document's streams). */
export const OVERLAP_PAIR_LIMIT = 5_000_000

/**
 * nats-server refuses a stream whose subjects overlap another stream's ("subjects overlap with an
 * existing stream"), and the profile gives each fact one authority: two differently named streams
 * of the document, or of the document and a contract-owned stream of another document of its
 * bundle, must not share a subject. (Streams of one name are one stream: NATS_DUPLICATE_AUTHORITY
 * and the bundle's own-authority check speak to those.) Each subject meets the earlier ones
 * through a token index (subject-index.ts): O(subjects x tokens + overlaps) for real documents,
 * whatever prefixes they share; past OVERLAP_PAIR_LIMIT index visits the rule reports that it stopped.
 */
export const streamOverlap = natsRule({
  code: 'NATS_STREAM_OVERLAP',
  description:
    'Two differently named streams (in the document, or against a contract-owned stream of its bundle) whose subjects overlap, which nats-server 2.11 refuses.',
  check(ctx, report) {
    interface Entry {
      name: string
      subject: string
      where: string
      /** The document's own stream key, or undefined for another document's stream. */
      key: string | undefined
      file: ResolvedConfig['file']
      /** Position in `entries`: the later of two of the document's own streams is reported. */
      order: number
    }
    const entries: Entry[] = []
    for (const [key, config, resolved] of configs(ctx, 'streams')) {
      const name = config.name
      if (typeof name !== 'string') continue
      subjectsOf(config).forEach((subject, i) =>
        entries.push({ name, subject, where: `${resolved.pointer}/subjects/${i}`, key, file: resolved.file, order: entries.length }),
      )
    }
    for (const other of ctx.input.documents.values()) {
      const profile = isObject(other.source.value) && isObject(other.source.value['x-nats-contract']) ? other.source.value['x-nats-contract'] : undefined
      const streams = profile && isObject(profile.streams) ? profile.streams : {}
      for (const [key, stream] of Object.entries(streams)) {
        if (!isObject(stream) || stream.authority !== 'contract' || !isObject(stream.config) || typeof stream.config.name !== 'string') continue
        const name = stream.config.name
        subjectsOf(stream.config).forEach((subject, i) =>
          entries.push({
            name,
            subject,
            where: `/x-nats-contract/streams/${escapeToken(key)}/config/subjects/${i}`,
            key: undefined,
            file: other,
            order: entries.length,
          }),
        )
      }
    }
    // Each subject is checked against the ones before it through a token index, not pairwise.
    const index = new SubjectIndex<Entry>(OVERLAP_PAIR_LIMIT)
    const reported = new Set<string>()
    let done = true
    for (const b of entries) {
      const earlier = index.overlapping(b.subject)
      if (earlier === undefined) {
        done = false
        break
      }
      for (const a of earlier) {
        if (a.name === b.name || (a.key === undefined && b.key === undefined)) continue
        // Reported at this document's stream (the later one when both are its own).
        const [first, mine] = b.key !== undefined && (a.key === undefined || b.order > a.order) ? [a, b] : [b, a]
        if (reported.has(mine.where)) continue
        reported.add(mine.where)
        report.in(
          mine.file,
          mine.where,
          `Stream ${mine.name}'s subject ${JSON.stringify(mine.subject)} overlaps ${first.subject === mine.subject ? 'the same subject' : JSON.stringify(first.subject)} of stream ${first.name}${first.key === undefined ? ` (${first.file.file})` : ''}; nats-server refuses overlapping streams, and a fact has one authority.`,
          { stream: mine.key, other: first.name },
        )
      }
      index.add(b.subject, b)
    }
    if (!done)
      report(
        '/x-nats-contract/streams',
        `Whether the streams' subjects overlap was not decided within ${OVERLAP_PAIR_LIMIT} steps (unsupported: fewer wildcard subjects).`,
      )
  },
})

/**
 * "External artifacts are locked JSON documents": a stream's or consumer's external artifact is a
 * `.json` file, read as strict JSON (a YAML file, which load would read as YAML, is refused).
 * Workflow documents are Open Workflow documents and may be YAML. O(resources).
 */
export const artifactFormat = natsRule({
  code: 'NATS_ARTIFACT_FORMAT',
  description: "A stream's or consumer's external artifact that is not a `.json` document (external native artifacts are locked JSON documents).",
  check(ctx, report) {
    for (const [section, kind] of KINDS) {
      for (const [key, resource] of Object.entries(ctx.section(section))) {
        if (!isObject(resource) || resource.authority !== 'external' || !isObject(resource.artifact) || typeof resource.artifact.path !== 'string') continue
        if (!resource.artifact.path.endsWith('.json'))
          report(
            ctx.pointer('x-nats-contract', section, key, 'artifact', 'path'),
            `The ${kind} artifact ${JSON.stringify(resource.artifact.path)} is not a JSON document; external native artifacts are locked JSON documents.`,
          )
      }
    }
  },
})
