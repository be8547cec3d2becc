/**
 * JetStream deployment: streams and consumers, paired by local key, their closed configurations
 * (resolved from the document or the locked external artifact) compared field by field, with what
 * nats-server does on an update:
 * - refused on update (stream: storage type; retention to or from workqueue. Consumer: deliver,
 *   ack and replay policies, each "can not be updated"), and identities (a stream's name, a
 *   consumer's durable name or stream: another resource, the old one's messages or position stay
 *   behind): breaking for the deployment;
 * - losing stored messages (subjects narrowed, max_age/max_msgs/max_bytes reduced, discard
 *   changed, retention limits to interest): breaking for the deployment; subjects narrowed name the
 *   operations a subject no longer captured reaches (uncaptured-subjects.ts);
 * - anything else: a warning (weaker guarantees: fewer replicas, shorter duplicate window or ack
 *   wait, fewer deliveries) or info, each with its sentence.
 * O(resources x subjects x tokens), plus the narrowed streams' searches (each stream's bounded by
 * UNCAPTURED_STEP_BUDGET).
 */
import type { DiffAudience } from '../../../core/diff/types.js'
import { parseFilter, positions } from '../address.js'
import { patternIntersects, type PatternPosition } from '../languages.js'
import type { NativeModel } from '../model.js'
import { subjectWithin } from '../../../runtime/nats/wildcards.js'
import { languageOf, shape } from './channels.js'
import { q, type Findings, type Version } from './context.js'
import { ptr } from './source.js'
import { UNCAPTURED_STEP_BUDGET, uncapturedSubject, type SearchBudget, type Uncaptured } from './uncaptured-subjects.js'

type Kind = 'streams' | 'consumers'

function fieldPointer(r: NativeModel, kind: Kind, field?: string): string {
  if (r.authority === 'contract' && field !== undefined) return ptr.profile(kind, r.key, 'config', field)
  return ptr.profile(kind, r.key)
}

/**
 * The operations of this document that use a stream or a consumer: for a stream, those that name it,
 * those that read one of its consumers (a stream that loses messages loses them for every consumer
 * of it), and every other publisher of a channel with a subject the stream captures (a Core
 * publication it stores is lost with it; an outside pass against nats-server); for a consumer, those
 * that read it. O(operations) searches sharing one budget (uncaptured-subjects.ts).
 */
function users(v: Version, kind: Kind, key: string): readonly DiffAudience[] {
  // Asked once per finding of the resource (every limit of every stream of an edit): made once.
  const memo = `${kind}\n${key}`
  const kept = v.users.get(memo)
  if (kept) return kept
  const consumersOf = kind === 'streams' ? new Set([...v.consumers.values()].filter((c) => c.stream === key).map((c) => c.key)) : new Set<string>()
  const captured = kind === 'streams' ? capturedChannels(v, key) : new Set<string>()
  const made: DiffAudience[] = v.model.operations
    .filter((op) =>
      kind === 'streams'
        ? op.stream === key ||
          (op.consumer !== undefined && consumersOf.has(op.consumer)) ||
          (op.action === 'send' && op.stream === undefined && captured.has(op.channel))
        : op.consumer === key,
    )
    .map((op) => ({ kind: op.action === 'send' ? 'publisher' : 'subscriber', name: `${op.channel}:${op.id}` }))
  v.users.set(memo, made)
  return made
}

/**
 * The channels of this version with a subject stream `key` captures: a channel the search cannot
 * decide for within its budget is counted (naming a party too many is the safe side). Only the
 * channels a pattern can meet by its first token are searched (`channelsMeeting`); the searches of
 * all the version's streams share one budget (`Version.captureBudget`), so a document of many
 * streams over many channels costs at most that and a set operation per stream and channel.
 */
function capturedChannels(v: Version, key: string): ReadonlySet<string> {
  const kept = v.capturedByStream.get(key)
  if (kept) return kept
  const subjects = subjectsOf(v.streams.get(key)?.config ?? {})
  const budget = v.captureBudget
  const known = new Set<string>()
  for (const id of channelsMeeting(v, subjects)) {
    const channel = v.channels.get(id)
    const s = channel && shape(v, channel)
    const answer = s ? uncapturedSubject(s, subjects, [], [], budget) : { found: false, decided: true }
    if (answer.found || !answer.decided) known.add(id)
  }
  v.capturedByStream.set(key, known)
  return known
}

/**
 * The channels a subject pattern of `patterns` may meet, judged by first tokens alone: those whose
 * address starts with the pattern's first literal, those that start with a placeholder, and all of
 * them for a pattern starting with a wildcard. O(channels) once per version, then O(result).
 */
function channelsMeeting(v: Version, patterns: readonly string[]): Set<string> {
  let index = v.firstTokens
  if (!index) {
    index = { byFirst: new Map(), open: [] }
    for (const c of v.model.channels) {
      const first = c.tokens?.[0]
      if (first === undefined) continue
      if (typeof first === 'string') {
        const list = index.byFirst.get(first)
        if (list) list.push(c.id)
        else index.byFirst.set(first, [c.id])
      } else index.open.push(c.id)
    }
    v.firstTokens = index
  }
  const out = new Set<string>(index.open)
  for (const p of patterns) {
    const first = p.split('.', 1)[0]!
    if (first === '*' || first === '>') return new Set([...index.open, ...[...index.byFirst.values()].flat()])
    for (const id of index.byFirst.get(first) ?? []) out.add(id)
  }
  return out
}

const num = (value: unknown) => (typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : undefined)
const text = (value: unknown) => JSON.stringify(value)

export function diffNative(f: Findings): void {
  for (const kind of ['streams', 'consumers'] as const) {
    const before = kind === 'streams' ? f.old.streams : f.old.consumers
    const after = kind === 'streams' ? f.next.streams : f.next.consumers
    const what = kind === 'streams' ? 'Stream' : 'Consumer'
    for (const [key, r] of before) {
      const now = after.get(key)
      if (!now) {
        f.add({
          rule: kind === 'streams' ? 'nats-stream-removed' : 'nats-consumer-removed',
          level: 'breaking',
          audiences: [{ kind: 'deployment', name: key }, ...users(f.old, kind, key)],
          old: ptr.profile(kind, key),
          ...scopeOf(f, kind, r),
          message: `${what} ${q(key)} was removed: the deployment ${kind === 'streams' ? 'loses its stored messages' : 'loses its delivery position and pending acknowledgments'}.`,
        })
        continue
      }
      if (kind === 'streams') compareStream(f, r, now)
      else compareConsumer(f, r, now)
      otherFields(f, kind, r, now)
    }
    for (const [key] of after) {
      if (before.has(key)) continue
      f.add({
        rule: kind === 'streams' ? 'nats-stream-added' : 'nats-consumer-added',
        level: 'info',
        audiences: [],
        new: ptr.profile(kind, key),
        message: `${what} ${q(key)} was added: the deployment provisions it.`,
      })
    }
  }
  consumerFilters(f)
}

function emit(
  f: Findings,
  kind: Kind,
  r: NativeModel,
  now: NativeModel,
  field: string,
  rule: string,
  level: 'breaking' | 'warning' | 'info',
  message: string,
  extra?: Record<string, unknown>,
  who?: { deployment: boolean; role?: 'publisher' | 'subscriber' },
): void {
  // By default a change breaks the deployment and, when breaking, every operation using the stream
  // or consumer; `who` narrows it to those the change reaches.
  const parties = level === 'breaking' ? users(f.next, kind, now.key).filter((u) => who?.role === undefined || u.kind === who.role) : []
  const v = level === 'info' ? [] : [...(who === undefined || who.deployment ? [{ kind: 'deployment', name: now.key }] : []), ...parties]
  f.add({
    rule,
    level,
    audiences: v,
    old: fieldPointer(r, kind, field),
    new: fieldPointer(now, kind, field),
    message,
    data: { field, old: r.config[field], new: now.config[field], ...extra },
    ...scopeOf(f, kind, r),
  })
}

/**
 * Where a resource's finding reaches other applications: a stream by its server name (their
 * consumers of it), a consumer by its stream's server name and its durable name (their declarations
 * of that consumer: an outside pass found consumer findings with no bundle statement).
 */
function scopeOf(f: Findings, kind: Kind, r: NativeModel): { scope?: { stream: string; consumer?: string; in: 'old' } } {
  if (kind === 'streams') return typeof r.config.name === 'string' ? { scope: { stream: r.config.name, in: 'old' } } : {}
  const stream = r.stream === undefined ? undefined : f.old.streams.get(r.stream)?.config.name
  const durable = r.config.durable_name
  return typeof stream === 'string' && typeof durable === 'string' ? { scope: { stream, consumer: durable, in: 'old' } } : {}
}

function compareStream(f: Findings, r: NativeModel, now: NativeModel): void {
  const a = r.config
  const b = now.config
  const s = `Stream ${q(now.key)}`
  if (r.authority !== now.authority) {
    f.add({
      rule: 'nats-stream-authority-changed',
      level: 'warning',
      audiences: [{ kind: 'deployment', name: now.key }],
      old: ptr.profile('streams', r.key),
      new: ptr.profile('streams', now.key),
      message: `${s} is now ${now.authority === 'contract' ? 'owned by the contract (provisioned)' : 'external (compared, never overwritten)'} instead of ${r.authority}.`,
    })
  }
  if (a.name !== b.name)
    emit(
      f,
      'streams',
      r,
      now,
      'name',
      'nats-stream-renamed',
      'breaking',
      `${s} is named ${text(b.name)} instead of ${text(a.name)}: that is another stream, and the messages stored in ${text(a.name)} stay there.`,
    )
  if (a.storage !== b.storage)
    emit(
      f,
      'streams',
      r,
      now,
      'storage',
      'nats-stream-storage-changed',
      'breaking',
      `${s} storage changes from ${text(a.storage)} to ${text(b.storage)}: nats-server refuses the update ("can not change storage type").`,
    )
  if (a.retention !== b.retention) {
    const workqueue = a.retention === 'workqueue' || b.retention === 'workqueue'
    const loses = a.retention === 'limits' && b.retention === 'interest'
    emit(
      f,
      'streams',
      r,
      now,
      'retention',
      'nats-stream-retention-changed',
      workqueue || loses ? 'breaking' : 'info',
      workqueue
        ? `${s} retention changes from ${text(a.retention)} to ${text(b.retention)}: nats-server refuses the update (retention cannot change to or from workqueue).`
        : loses
          ? `${s} retention changes from "limits" to "interest": stored messages every consumer has acknowledged, or that no consumer is interested in, are removed.`
          : `${s} retention changes from ${text(a.retention)} to ${text(b.retention)}: messages are kept by the stream's limits, not removed on acknowledgment.`,
    )
  }
  compareSubjects(f, r, now)
  for (const field of ['max_age', 'max_msgs', 'max_bytes', 'max_msgs_per_subject'] as const) {
    const x = num(a[field])
    const y = num(b[field])
    if (x === undefined || y === undefined || x === y) continue
    emit(
      f,
      'streams',
      r,
      now,
      field,
      'nats-stream-limit-changed',
      y < x ? 'breaking' : 'info',
      y < x ? `${s} ${field} is reduced from ${x} to ${y}: stored messages past the new limit are removed.` : `${s} ${field} is raised from ${x} to ${y}.`,
    )
  }
  if (a.discard !== b.discard)
    emit(
      f,
      'streams',
      r,
      now,
      'discard',
      'nats-stream-discard-changed',
      'breaking',
      b.discard === 'old'
        ? `${s} discard changes to "old": when full, the stream evicts accepted messages instead of refusing new ones.`
        : `${s} discard changes to "new": when full, the stream refuses publications it used to accept (publishers see errors).`,
      undefined,
      // To "old": stored messages are evicted (the deployment and its readers lose them); to "new":
      // nothing stored is lost, and only publishers meet a refusal (as nats-server does: an outside pass).
      b.discard === 'old' ? { deployment: true, role: 'subscriber' } : { deployment: false, role: 'publisher' },
    )
  const rx = num(a.num_replicas)
  const ry = num(b.num_replicas)
  if (rx !== undefined && ry !== undefined && rx !== ry)
    emit(
      f,
      'streams',
      r,
      now,
      'num_replicas',
      'nats-stream-replicas-changed',
      ry < rx ? 'warning' : 'info',
      `${s} has ${ry} replicas instead of ${rx}${ry < rx ? ': it survives fewer server losses' : ''}.`,
    )
  const dx = num(a.duplicate_window)
  const dy = num(b.duplicate_window)
  if (dx !== undefined && dy !== undefined && dx !== dy)
    emit(
      f,
      'streams',
      r,
      now,
      'duplicate_window',
      'nats-stream-duplicate-window-changed',
      dy < dx ? 'warning' : 'info',
      `${s} duplicate_window is ${dy} ns instead of ${dx} ns${dy < dx ? ': a publisher retrying later than the new window stores a duplicate' : ''}.`,
    )
}

const STREAM_COMPARED = new Set([
  'name',
  'subjects',
  'retention',
  'storage',
  'num_replicas',
  'max_age',
  'max_msgs',
  'max_bytes',
  'max_msgs_per_subject',
  'discard',
  'duplicate_window',
])
const CONSUMER_COMPARED = new Set([
  'durable_name',
  'filter_subject',
  'ack_policy',
  'deliver_policy',
  'ack_wait',
  'max_deliver',
  'max_ack_pending',
  'replay_policy',
])

/** Any other field of a configuration that changed (the closed v0.2 configurations have none; an external artifact might): a warning, never silence. */
function otherFields(f: Findings, kind: Kind, r: NativeModel, now: NativeModel): void {
  const compared = kind === 'streams' ? STREAM_COMPARED : CONSUMER_COMPARED
  const fields = new Set([...Object.keys(r.config), ...Object.keys(now.config)])
  for (const field of [...fields].sort()) {
    if (compared.has(field) || JSON.stringify(r.config[field]) === JSON.stringify(now.config[field])) continue
    emit(
      f,
      kind,
      r,
      now,
      field,
      'nats-native-field-changed',
      'warning',
      `${kind === 'streams' ? 'Stream' : 'Consumer'} ${q(now.key)} ${field} changes from ${text(r.config[field]) ?? 'unset'} to ${text(now.config[field]) ?? 'unset'}; the differ does not classify this field.`,
    )
  }
}

function subjectsOf(config: Record<string, unknown>): string[] {
  return Array.isArray(config.subjects) ? config.subjects.filter((s): s is string => typeof s === 'string') : []
}

function compareSubjects(f: Findings, r: NativeModel, now: NativeModel): void {
  const before = subjectsOf(r.config)
  const after = subjectsOf(now.config)
  // Each old subject pattern within one new pattern keeps its messages; one that is not may lose them (pairwise within is exact for one pattern against one; a pattern covered only by several together is reported as a warning).
  const lost = before.filter((s) => !after.some((t) => subjectWithin(s, t)))
  const gained = after.filter((t) => !before.some((s) => subjectWithin(t, s)))
  if (lost.length === 0 && gained.length === 0) return
  const sentence = `Stream ${q(now.key)} subjects change from ${text(before)} to ${text(after)}`
  if (lost.length === 0) {
    emit(f, 'streams', r, now, 'subjects', 'nats-stream-subjects-widened', 'info', `${sentence}: it captures more subjects.`)
    return
  }
  // A subject an old pattern captures and no new one does proves the loss (`orders.x` of `orders.>`
  // against `orders.*.placed`); a pattern the new ones cover only together has none. The parties are
  // those with a subject of their channel no longer captured (an outside pass: the stream's own
  // publishers and readers were named where their subjects were still captured, and a Core
  // publisher whose subjects were no longer captured was not).
  const proven = lost.map((s) => [s, uncaptured(s, after)] as const).find(([, witness]) => witness !== undefined)
  const parties = uncapturedParties(f.next, now.key, before, after)
  const reached = parties.find((p) => p.witness !== undefined)
  const breaking = proven !== undefined || reached !== undefined
  const witness = proven?.[1] ?? reached?.witness
  f.add({
    rule: 'nats-stream-subjects-narrowed',
    level: breaking ? 'breaking' : 'warning',
    audiences: [{ kind: 'deployment', name: now.key }, ...parties.map((p) => ({ kind: p.kind, name: p.name }))],
    old: fieldPointer(r, 'streams', 'subjects'),
    new: fieldPointer(now, 'streams', 'subjects'),
    message: breaking
      ? `${sentence}: publications on ${text(witness)} (${proven ? `a subject of ${text(proven[0])}` : `a subject of channel ${q(reached!.name.split(':')[0]!)}`}) are no longer captured, and publishers waiting for the stream's acknowledgment there fail${partySentence(parties)}.`
      : `${sentence}: ${text(lost[0])} is no longer one of its subjects; its subjects are captured by the new ones together, which the pairwise check cannot prove${partySentence(parties)}.`,
    data: {
      field: 'subjects',
      old: r.config.subjects,
      new: now.config.subjects,
      ...(witness !== undefined ? { witness } : {}),
      parties,
    },
    ...(typeof r.config.name === 'string' ? { scope: { stream: r.config.name, in: 'old' as const } } : {}),
  })
}

interface UncapturedParty {
  kind: 'publisher' | 'subscriber'
  name: string
  /** A subject of the party's channel the stream captured and no longer does (absent when the search ran out of budget: the party may be reached). */
  witness?: string
}

/**
 * The operations of this version a stream's narrowed subjects reach: every publisher (Core or
 * JetStream: a Core publication the stream captured is no longer stored either) of a channel with a
 * subject no longer captured, and every subscriber reading one of the stream's consumers whose filter
 * matches such a subject of its channel; each with that subject. A channel's answer is found once per
 * filter. O(operations) searches sharing one budget (uncaptured-subjects.ts).
 */
function uncapturedParties(v: Version, key: string, before: readonly string[], after: readonly string[]): UncapturedParty[] {
  const budget: SearchBudget = { steps: UNCAPTURED_STEP_BUDGET }
  const answers = new Map<string, Uncaptured>()
  const out: UncapturedParty[] = []
  const meeting = channelsMeeting(v, before)
  for (const op of v.model.operations) {
    if (!meeting.has(op.channel)) continue
    const consumer = op.consumer === undefined ? undefined : v.consumers.get(op.consumer)
    if (op.action === 'receive' && consumer?.stream !== key) continue
    const filter = consumer?.config.filter_subject
    const required = op.action === 'receive' && typeof filter === 'string' ? [filter] : []
    const channel = v.channels.get(op.channel)
    const subjects = channel && shape(v, channel)
    if (!subjects) continue
    const memo = `${op.channel}\n${required.join('\n')}`
    let answer = answers.get(memo)
    if (answer === undefined) answers.set(memo, (answer = uncapturedSubject(subjects, before, after, required, budget)))
    if (!answer.found && answer.decided) continue
    out.push({ kind: op.action === 'send' ? 'publisher' : 'subscriber', name: `${op.channel}:${op.id}`, ...(answer.found ? { witness: answer.subject } : {}) })
  }
  return out
}

/** The parties of a narrowed stream, for its sentence. */
function partySentence(parties: readonly UncapturedParty[]): string {
  if (parties.length === 0) return '; no operation of this document publishes or reads such a subject'
  const shown = parties.slice(0, 3).map((p) => `${p.kind} ${q(p.name)}${p.witness === undefined ? ' (not decided)' : ` (${text(p.witness)})`}`)
  return `; it reaches ${shown.join(', ')}${parties.length > 3 ? ` and ${parties.length - 3} more` : ''}`
}

/**
 * A subject `pattern` matches that none of `patterns` does, if one of a few tries finds it: each
 * wildcard filled with a token none of the patterns names (so only a wildcard of theirs takes it),
 * `>` with one to (their longest + 1) such tokens. Exact for one pattern against one: when it is not
 * within it, such a subject shows it. O(tries x patterns x tokens).
 */
function uncaptured(pattern: string, patterns: readonly string[]): string | undefined {
  const named = new Set(patterns.flatMap((p) => p.split('.')))
  let fresh = 'x'
  for (let i = 0; named.has(fresh); i++) fresh = `x${i}`
  const tokens = pattern.split('.').map((t) => (t === '*' ? fresh : t))
  const tries: string[] = []
  if (tokens.at(-1) === '>') {
    const longest = Math.max(1, ...patterns.map((p) => p.split('.').length))
    for (let n = 1; n <= longest + 1; n++) tries.push([...tokens.slice(0, -1), ...Array<string>(n).fill(fresh)].join('.'))
  } else tries.push(tokens.join('.'))
  return tries.find((subject) => !patterns.some((p) => subjectWithin(subject, p)))
}

/**
 * The subscribers reading consumer `key` whose channel the new filter reaches past while the old one
 * did not: the channel's address with each placeholder a `*` holds every subject of the channel, so a
 * filter not within it delivers some subject outside the channel. O(operations).
 */
function subscribersPastChannel(v: Version, key: string, before: string, after: string): DiffAudience[] {
  const out: DiffAudience[] = []
  for (const op of v.model.operations) {
    if (op.consumer !== key || op.action !== 'receive') continue
    const tokens = v.channels.get(op.channel)?.tokens
    if (!tokens) continue
    const pattern = tokens.map((t) => (typeof t === 'string' ? t : '*')).join('.')
    if (subjectWithin(before, pattern) && !subjectWithin(after, pattern)) out.push({ kind: 'subscriber', name: `${op.channel}:${op.id}` })
  }
  return out
}

function compareConsumer(f: Findings, r: NativeModel, now: NativeModel): void {
  const a = r.config
  const b = now.config
  const c = `Consumer ${q(now.key)}`
  if (r.stream !== now.stream) {
    f.add({
      rule: 'nats-consumer-stream-changed',
      level: 'breaking',
      audiences: [{ kind: 'deployment', name: now.key }, ...users(f.next, 'consumers', now.key)],
      old: ptr.profile('consumers', r.key, 'stream'),
      new: ptr.profile('consumers', now.key, 'stream'),
      message: `${c} reads stream ${q(now.stream ?? '')} instead of ${q(r.stream ?? '')}: a consumer cannot move between streams; it is another consumer.`,
    })
  }
  if (a.durable_name !== b.durable_name)
    emit(
      f,
      'consumers',
      r,
      now,
      'durable_name',
      'nats-consumer-renamed',
      'breaking',
      `${c} durable_name is ${text(b.durable_name)} instead of ${text(a.durable_name)}: that is another consumer, starting without the old one's position and pending acknowledgments.`,
    )
  for (const field of ['deliver_policy', 'ack_policy', 'replay_policy'] as const) {
    if (a[field] === b[field]) continue
    emit(
      f,
      'consumers',
      r,
      now,
      field,
      'nats-consumer-policy-changed',
      'breaking',
      `${c} ${field} changes from ${text(a[field])} to ${text(b[field])}: nats-server refuses the update ("${field.replace('_', ' ')} can not be updated").`,
    )
  }
  if (a.filter_subject !== b.filter_subject && typeof a.filter_subject === 'string' && typeof b.filter_subject === 'string') {
    const narrowed = !subjectWithin(a.filter_subject, b.filter_subject)
    // A wider filter that now reaches past the channel a subscriber of the consumer parses may hand
    // it subjects it refuses (other channels' messages in the stream): whether the stream holds any is not known.
    const outside = narrowed ? [] : subscribersPastChannel(f.next, now.key, a.filter_subject, b.filter_subject)
    if (outside.length > 0)
      f.add({
        rule: 'nats-consumer-filter-changed',
        level: 'warning',
        audiences: [{ kind: 'deployment', name: now.key }, ...outside],
        old: fieldPointer(r, 'consumers', 'filter_subject'),
        new: fieldPointer(now, 'consumers', 'filter_subject'),
        message: `${c} filter_subject widens from ${text(a.filter_subject)} to ${text(b.filter_subject)}, past the subjects of the channel its subscribers parse: they may be handed messages they refuse.`,
        data: { field: 'filter_subject', old: a.filter_subject, new: b.filter_subject },
      })
    else
      emit(
        f,
        'consumers',
        r,
        now,
        'filter_subject',
        'nats-consumer-filter-changed',
        narrowed ? 'breaking' : 'info',
        narrowed
          ? `${c} filter_subject changes from ${text(a.filter_subject)} to ${text(b.filter_subject)}: messages on subjects only the old filter matched are no longer delivered to it.`
          : `${c} filter_subject widens from ${text(a.filter_subject)} to ${text(b.filter_subject)}.`,
      )
  }
  for (const [field, less] of [
    ['ack_wait', 'a slow handler is redelivered sooner'],
    ['max_deliver', 'a message is given up after fewer attempts'],
    ['max_ack_pending', 'fewer messages are in flight at once'],
  ] as const) {
    const x = num(a[field])
    const y = num(b[field])
    if (x === undefined || y === undefined || x === y) continue
    emit(
      f,
      'consumers',
      r,
      now,
      field,
      'nats-consumer-limit-changed',
      y < x ? 'warning' : 'info',
      `${c} ${field} is ${y} instead of ${x}${y < x ? `: ${less}` : ''}.`,
    )
  }
}

/**
 * A consumer as deployed (its old filter subject) against the new language of each channel a
 * subscription reads it for: a filter that no longer meets the channel delivers none of its messages.
 */
function consumerFilters(f: Findings): void {
  for (const op of f.next.model.operations) {
    if (op.consumer === undefined) continue
    const deployed = f.old.consumers.get(op.consumer)
    const channel = f.next.channels.get(op.channel)
    const filter = deployed?.config.filter_subject
    if (!deployed || !channel || typeof filter !== 'string') continue
    const language = languageOf(f.next, channel)
    const parsed = parseFilter(filter)
    if (!language || !('tokens' in parsed) || parsed.tokens.some((t) => typeof t !== 'string' && typeof t === 'object')) continue
    const pattern = positions(parsed.tokens, {}) as PatternPosition[]
    if (patternIntersects(pattern, language)) continue
    // Only a filter that met the channel before: one that never did is not this change's doing.
    const before = f.old.channels.get(op.channel)
    const oldLanguage = before && languageOf(f.old, before)
    if (!oldLanguage || !patternIntersects(pattern, oldLanguage)) continue
    f.add({
      rule: 'nats-consumer-filter-disjoint',
      level: 'breaking',
      audiences: [
        { kind: 'subscriber', name: `${op.channel}:${op.id}` },
        { kind: 'deployment', name: op.consumer },
      ],
      old: fieldPointer(deployed, 'consumers', 'filter_subject'),
      new: ptr.of('channels', op.channel, 'address'),
      message: `Consumer ${q(op.consumer)} as deployed filters ${text(filter)}, which matches no subject of channel ${q(op.channel)} (${q(channel.address ?? '')}) any more: subscription ${q(op.id)} receives nothing from it.`,
      scope: { channel: op.channel, operation: op.id, in: 'new' },
    })
  }
}
