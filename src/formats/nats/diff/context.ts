/**
 * What every part of the NATS differ reads: both versions (model, positioned document, indexes made
 * once) and the collector of findings. Each finding about a channel or an operation carries its
 * `scope`, which the bundle part (impact.ts) reads to name the linked applications it affects.
 */
import canonicalize from 'canonicalize'
import { UNCAPTURED_STEP_BUDGET } from './uncaptured-subjects.js'
import type { HeaderSide } from './header-maps.js'
import { enclosingPointer, existingPointer } from '../../../core/diff/enclosing.js'
import { countMembers, documentPairBound } from '../../../core/diff/schema-diff.js'
import type { SchemaChange, SchemaDiffOptions } from '../../../core/diff/schema-diff-types.js'
import type { DiffAudience, DiffFinding, DiffLevel, DiffSide } from '../../../core/diff/types.js'
import type { ChannelModel, NatsModel, NativeModel, OperationModel } from '../model.js'
import { refSites } from '../../../core/json-refs.js'
import { splitPointer } from '../../../runtime/shared/json-pointer.js'
import { decodedRef } from '../context.js'
import { isObject } from '../document.js'
import type { PositionedDocument } from './source.js'
import type { Party } from './parties.js'
import { localPointer, type MessageAt, type RefSummary } from './payloads.js'
import type { SubjectShape } from './subject-inclusion.js'
import type { KnownTarget } from './unchanged-schema.js'

export interface Version {
  side: DiffSide<NatsModel>
  model: NatsModel
  doc: PositionedDocument
  channels: Map<string, ChannelModel>
  operations: Map<string, OperationModel>
  /** Operations by the channel they use (request and reply channels both), in id order. */
  byChannel: Map<string, OperationModel[]>
  streams: Map<string, NativeModel>
  consumers: Map<string, NativeModel>
  /** Each channel's subject shape, made on first use (channels.ts): null for one without a typed address. */
  shapes: Map<ChannelModel, SubjectShape | null>
  /**
   * The document's nodes by pointer and its local references decoded (payloads.ts), kept for the
   * diff: every payload's references into the same components (a shared `Money`) are resolved by
   * each payload's comparison and walked again by each `reachesOtherFile`.
   */
  nodes: Map<string, unknown>
  refs: Map<string, string | null>
  /** Each pointer's own `$ref`s and size, for `reachesOtherFile` (payloads.ts): a shared component is walked once per diff. */
  refSummaries: Map<string, RefSummary>
  /**
   * Whether any `$ref` in the document names no node of it (another file, or a fragment that does
   * not decode): when none does, no payload reaches another file and `reachesOtherFile` answers
   * without walking (payloads.ts). Read from the compile's walk of the same parse when it made one.
   */
  namesOtherFile: boolean
  /** What each `$ref` target's own JSON compared with the other version's at the same pointer found (unchanged-schema.ts), kept for the diff. */
  unchangedTargets: Map<string, KnownTarget>
  /** Each channel's parties (parties.ts), made on first use. */
  parties: Map<string, readonly Party[]>
  /** Each message's place (by channel, then name: payloads.ts `messageAt`), made on first use: its payload and headers both start there. */
  messages: Map<string, Map<string, MessageAt>>
  /** Each headers schema read as maps of strings (header-maps.ts), by its pointer and the names read free, made on first use: a message's cover asks for its neighbours' many times. */
  headerSides: Map<string, HeaderSide>
  /** The `Nats-` names each headers schema names (header-maps.ts `namedHeaders`), by its pointer. */
  headerNames: Map<string, ReadonlySet<string>>
  /** The channels each stream captures a subject of, by stream key (native.ts `capturedChannels`), made on first use. */
  capturedByStream: Map<string, ReadonlySet<string>>
  /** The operations using each stream and consumer (native.ts `users`), by kind and key, made on first use. */
  users: Map<string, readonly DiffAudience[]>
  /** What the searches of `capturedByStream` may still spend, for all the streams of the version (uncaptured-subjects.ts). */
  captureBudget: { steps: number }
  /** Addressed channels by their first token when it is a literal, and the others (native.ts `channelsMeeting`), made on first use. */
  firstTokens?: { byFirst: Map<string, string[]>; open: string[] }
  /**
   * The responders: each receive operation whose standard operation declares a `reply`, with the
   * reply channel it answers on (null when the reply names none by a local `$ref`).
   */
  responders: Map<string, string | null>
}

/** A receive operation's standard `reply`: its channel's id when a local `$ref` names it, null when it names none, undefined without a reply. */
function replyChannelOf(doc: unknown, id: string): string | null | undefined {
  const ops = isObject(doc) && isObject(doc.operations) ? doc.operations : undefined
  const std = ops && Object.hasOwn(ops, id) ? ops[id] : undefined
  if (!isObject(std) || std.reply === undefined) return undefined
  const raw = isObject(std.reply) && isObject(std.reply.channel) ? std.reply.channel.$ref : undefined
  // Percent-decoded first, as the compiler reads a local reference (`#/channels/x%20y`).
  const ref = typeof raw === 'string' ? decodedRef(raw) : undefined
  if (typeof ref !== 'string' || !ref.startsWith('#/channels/')) return null
  const tokens = splitPointer(ref.slice(1))
  return tokens.length === 2 ? tokens[1]! : null
}

/** Is this receive operation a responder (its standard operation declares a `reply`)? */
export const isResponder = (v: Version, op: OperationModel): boolean => op.action === 'receive' && v.responders.has(op.id)

export function version(side: DiffSide<NatsModel>, doc: PositionedDocument): Version {
  const model = side.model
  const byChannel = new Map<string, OperationModel[]>()
  const add = (channel: string, op: OperationModel) => {
    const list = byChannel.get(channel)
    if (list) list.push(op)
    else byChannel.set(channel, [op])
  }
  const responders = new Map<string, string | null>()
  for (const op of model.operations) {
    add(op.channel, op)
    if (op.requestReply?.replyChannel !== undefined) add(op.requestReply.replyChannel, op)
    const reply = op.action === 'receive' ? replyChannelOf(doc.value, op.id) : undefined
    if (reply === undefined) continue
    responders.set(op.id, reply)
    // A responder sends on its reply channel: a change there reaches it and its requesters (an outside pass).
    if (reply !== null && reply !== op.channel) add(reply, op)
  }
  return {
    side,
    model,
    doc,
    channels: new Map(model.channels.map((c) => [c.id, c])),
    operations: new Map(model.operations.map((o) => [o.id, o])),
    byChannel,
    streams: new Map(model.streams.map((s) => [s.key, s])),
    consumers: new Map(model.consumers.map((c) => [c.key, c])),
    shapes: new Map(),
    nodes: new Map(),
    refs: new Map(),
    refSummaries: new Map(),
    namesOtherFile: isObject(doc.value) && refSites(doc.value).some((site) => namesNoNode(site.ref)),
    unchangedTargets: new Map(),
    parties: new Map(),
    messages: new Map(),
    headerSides: new Map(),
    headerNames: new Map(),
    capturedByStream: new Map(),
    users: new Map(),
    responders,
    captureBudget: { steps: 4 * UNCAPTURED_STEP_BUDGET },
  }
}

/** A `$ref` that `localPointer` cannot read as a pointer into its own document (decoded only when it has an escape). */
function namesNoNode(ref: string): boolean {
  return !ref.startsWith('#') || (ref.includes('%') && localPointer(ref) === undefined)
}

/** What a finding is about, for the topology (not part of the finding's JSON). */
export interface Scope {
  /** The channel (in the old version when it was removed, else the new one). */
  channel?: string
  operation?: string
  /** A stream's name on the server (as deployed: the old one): other applications' consumers of it are reached. */
  stream?: string
  /** A consumer's durable name on that stream: only other applications' declarations of that consumer are reached. */
  consumer?: string
  /** Which version's ids these are. */
  in: 'old' | 'new'
}

export interface Draft {
  rule: string
  level: DiffLevel
  audiences: DiffAudience[]
  /** Pointers into each version's document. */
  old?: string
  new?: string
  message: string
  data?: Record<string, unknown>
  scope?: Scope
}

/**
 * How much more than `documentPairBound`'s base a NATS diff may compare: each message's payload is
 * compared on its own and walks what it reaches (a change is reported once per message), so an
 * ordinary document of many channels naming one shared tree honestly takes tens of pairs per member
 * (400 channels on a 400-component tree: 25). The bound is for hostile documents only.
 */
const NATS_PAIR_SCALE = 16

export class Findings {
  readonly drafts: Draft[] = []
  /** Channels renamed (old id to new id, equal subjects), set by channels.ts: their messages and filters are compared as one channel's. */
  readonly renamed = new Map<string, string>()
  /** Schema comparisons message-cover.ts made in this diff (bounded: a channel of many renamed messages). */
  coverPairs = 0
  /** Pairs of schema nodes this diff's payload and headers comparisons took together (`documentPairBound`). */
  readonly schemaTally = { pairs: 0 }
  private pairBound: number | undefined
  constructor(
    readonly old: Version,
    readonly next: Version,
  ) {}

  private readonly tokenTypesAlike = new Map<string, boolean>()
  /** Whether the token type `name` is defined alike in both versions (JSON-equal), once per name. */
  sameTokenType(name: string): boolean {
    let same = this.tokenTypesAlike.get(name)
    if (same === undefined) {
      const [a, b] = [this.old.model.tokenTypes, this.next.model.tokenTypes]
      same = Object.hasOwn(a, name) && Object.hasOwn(b, name) && canonicalize(a[name]) === canonicalize(b[name])
      this.tokenTypesAlike.set(name, same)
    }
    return same
  }

  /** The bound on `schemaTally` (from both documents' size, counted once). */
  schemaPairBound(): number {
    return (this.pairBound ??= documentPairBound(countMembers(this.old.doc.value, this.next.doc.value), NATS_PAIR_SCALE))
  }

  /**
   * A message's schemas compared (`compare`) while this diff's comparisons are inside their bound,
   * else one `schema-not-compared` change at `old`/`new`: a thousand channels each naming one long
   * chain of components would otherwise take the chain's length a thousand times.
   */
  compareSchemas(
    compare: (options: SchemaDiffOptions) => SchemaChange[],
    old: { file: string; pointer: string },
    next: { file: string; pointer: string },
  ): SchemaChange[] {
    const bound = this.schemaPairBound()
    if (this.schemaTally.pairs < bound) return compare({ tally: this.schemaTally })
    return [
      {
        rule: 'schema-not-compared',
        effect: 'unknown',
        old,
        new: next,
        message: `Not compared: this diff's schema comparisons stopped at their bound (${bound.toLocaleString('en-US')} pairs of schema nodes, from the documents' size); whether the accepted values changed cannot be proven, and an unknown schema implication is not assumed safe.`,
      },
    ]
  }

  add(draft: Draft): void {
    this.drafts.push(draft)
  }

  /**
   * The findings, located, deduplicated and sorted by new location, then old, then rule. Two drafts
   * are one finding when their rule, level, pointers, sentence and audiences are equal: drafts are
   * grouped by sentence and pointers (maps, no key text made) and compared member by member within
   * their group, which holds the drafts of one place and sentence (a JSON text of every draft as its
   * key was about a twentieth of a 5,000-channel comparison, bench/diff.ts).
   */
  located(drafts: readonly Draft[]): DiffFinding[] {
    const groups = new Map<string, Map<string | undefined, Map<string | undefined, Draft[]>>>()
    const out: DiffFinding[] = []
    for (const d of drafts) {
      let byOld = groups.get(d.message)
      if (!byOld) groups.set(d.message, (byOld = new Map()))
      let byNew = byOld.get(d.old)
      if (!byNew) byOld.set(d.old, (byNew = new Map()))
      const same = byNew.get(d.new)
      if (same?.some((other) => sameFinding(other, d))) continue
      if (same) same.push(d)
      else byNew.set(d.new, [d])
      const finding: DiffFinding = { rule: d.rule, level: d.level, audiences: d.audiences, message: d.message }
      // Each pointer names a node of its version (a payload removed is located at its message); what
      // a version lacks is located there at the node enclosing where it is in the other.
      const oldAt = d.old !== undefined ? existingPointer(this.old.doc.value, d.old) : enclosingPointer(this.old.doc.value, d.new ?? '')
      const newAt = d.new !== undefined ? existingPointer(this.next.doc.value, d.new) : enclosingPointer(this.next.doc.value, d.old ?? '')
      finding.old = this.old.doc.at(oldAt)
      finding.new = this.next.doc.at(newAt)
      if (d.data !== undefined) finding.data = d.data
      out.push(finding)
    }
    return out.sort(compareFindings)
  }
}

/** Whether two drafts of one sentence and place make the same finding (what the finding's JSON shows of them, besides `data`). */
function sameFinding(a: Draft, b: Draft): boolean {
  if (a.rule !== b.rule || a.level !== b.level || a.audiences.length !== b.audiences.length) return false
  for (let i = 0; i < a.audiences.length; i++) {
    const x = a.audiences[i]!
    const y = b.audiences[i]!
    if (x.kind !== y.kind || x.name !== y.name) return false
  }
  return true
}

const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0)

function compareLocation(a: DiffFinding['new'], b: DiffFinding['new']): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1
  return cmp(a.file, b.file) || a.line - b.line || a.column - b.column || cmp(a.pointer, b.pointer)
}

export function compareFindings(a: DiffFinding, b: DiffFinding): number {
  return compareLocation(a.new, b.new) || compareLocation(a.old, b.old) || cmp(a.rule, b.rule) || cmp(a.message, b.message)
}

/** A name as the sentence quotes it (JSON string: odd characters escaped). */
export const q = (name: string) => JSON.stringify(name)
