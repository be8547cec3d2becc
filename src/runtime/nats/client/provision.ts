/**
 * Provisioning from a contract: the JetStream streams and consumers a generated module names,
 * compared with what the server has. The plan comes first: a dry run returns it without touching
 * the server.
 *
 * - Contract-owned resources that are missing are created, carrying this contract's ownership
 *   mark (provision-mark.ts). External resources are compared only, never created or changed.
 * - `update` changes only resources carrying this contract's mark (same id, this version or an
 *   older one); any other is refused, naming the mark found or its absence. A contract's
 *   `authority: contract` is a claim, the mark is the proof: a contract naming another
 *   application's stream as its own cannot rewrite it.
 * - A change that can lose data (provision-loss.ts: shrinking a limit, dropping a subject, another
 *   retention/storage, ...) is refused unless `allowDataLoss`; the plan says which changes lose what.
 * - Every server refusal becomes a `failed` entry with the server's own description and error
 *   code; only a lost connection (no answer at all) throws.
 *
 * Work: per stream at most two server calls (info, then one change), per consumer at most two;
 * comparing a resource is O(fields + subjects); each call is bounded by nats.js's request timeout.
 */
import { jetstreamManager, JetStreamApiError, type JetStreamManager } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/nats-core'
import { checkServerVersion, type BindOptions, type ContractModule } from './index.js'
import { lossOf } from './provision-loss.js'
import { errorText } from '../../shared/error-text.js'
import { SERVER_DEFAULTS, unstatedDifferences } from './provision-defaults.js'
import { markDescription, ownershipProblem, readMark, type OwnerMark } from './provision-mark.js'

export type { OwnerMark } from './provision-mark.js'

export interface FieldDifference {
  readonly field: string
  readonly contract: unknown
  readonly server: unknown
  /** What applying the contract's value would lose, when it can lose data (see docs/nats.md). */
  readonly loss?: string
}

/** A JetStream API error as the server sent it. */
export interface ServerAnswer {
  /** The server's error code (`err_code`, e.g. 10074). */
  readonly code: number
  /** Its HTTP-like status (`code`, e.g. 500). */
  readonly status: number
  /** The server's own sentence. */
  readonly description: string
}

export interface PlannedResource {
  readonly kind: 'stream' | 'consumer'
  /** The contract's key for it (`streams.<key>`, `consumers.<key>`). */
  readonly key: string
  /** Its name on the server (stream `name`, consumer `durable_name`). */
  readonly name: string
  readonly authority: 'contract' | 'external'
  /**
   * What provisioning does (or, in a dry run, would do): `adopt` marks an unmarked resource as this
   * contract's; `refused` is a change provisioning will not make (`reason` says why); `failed` is a
   * change the server refused (`server` holds its answer).
   */
  readonly action: 'create' | 'update' | 'adopt' | 'none' | 'differs' | 'missing' | 'refused' | 'failed'
  readonly differences: readonly FieldDifference[]
  /** The ownership mark the server's resource carries (null: none); absent when it is not on the server. */
  readonly owner?: OwnerMark | null
  /** One sentence, for `refused`, `failed` and `missing`; for `adopt` (or an update that marks), the description the mark replaces. */
  readonly reason?: string
  readonly server?: ServerAnswer
}

export interface ProvisionOptions extends BindOptions {
  /** Plan only: nothing is created or changed. */
  readonly dryRun?: boolean
  /** Apply differing fields to resources carrying this contract's mark (otherwise they are reported as `differs`). */
  readonly update?: boolean
  /** With `update`: apply changes that lose data too (shrunk limits, dropped subjects, other retention/storage/discard). */
  readonly allowDataLoss?: boolean
  /** Mark contract-owned resources that carry no mark as this contract's (never one marked by another contract). */
  readonly adopt?: boolean
}

export interface ProvisionResult {
  readonly plan: readonly PlannedResource[]
  /** True when the server now matches the contract (after a dry run: already matches). */
  readonly inSync: boolean
  /**
   * Why the run stopped before its end, when the server stopped answering (a lost connection, a
   * timeout): the plan then holds what was done, the resource in flight and the rest as `failed`.
   */
  readonly interrupted?: string
}

type Config = Readonly<Record<string, unknown>>

const equal = (a: unknown, b: unknown): boolean => (Array.isArray(a) && Array.isArray(b) ? a.length === b.length && a.every((x, i) => equal(x, b[i])) : a === b)

/**
 * A stream's subjects are a set: nats-server matches a publication against each of them and keeps
 * the order it was given, which means nothing. Same members, any order, is the same list (O(n)).
 */
const sameSet = (a: unknown, b: unknown): boolean => {
  if (!Array.isArray(a) || !Array.isArray(b)) return a === b
  const members = new Set<unknown>(a)
  const seen = new Set<unknown>(b)
  return members.size === seen.size && b.every((x) => members.has(x))
}

const SET_FIELDS: Readonly<Record<'stream' | 'consumer', ReadonlySet<string>>> = { stream: new Set(['subjects']), consumer: new Set() }

/**
 * The contract's fields whose values the server holds differently, and the fields it leaves out
 * whose server value is not the default and changes what the resource keeps or delivers
 * (provision-defaults.ts: a `deliver_subject`, since the profile's consumers are pull consumers; a
 * stream keeping one message a subject; a consumer deleted when idle). Any other field the contract
 * leaves out is the server's.
 */
function differences(kind: 'stream' | 'consumer', contract: Config, server: Config): FieldDifference[] {
  const out: FieldDifference[] = unstatedDifferences(kind, contract, server)
  for (const field of Object.keys(contract).sort()) {
    if ((SET_FIELDS[kind].has(field) ? sameSet : equal)(contract[field], server[field])) continue
    const loss = lossOf(kind, field, contract[field], server[field])
    out.push({ field, contract: contract[field], server: server[field], ...(loss ? { loss } : {}) })
  }
  return out
}

/** The server's answer in an error, or undefined when the error is not one (a lost connection, a timeout). */
function answerOf(error: unknown): ServerAnswer | undefined {
  if (!(error instanceof JetStreamApiError)) return undefined
  return { code: error.code, status: error.status, description: error.message }
}

/** `replicas > 1 not supported in non-clustered mode (JetStream error 10074, status 500)`. */
export const answerText = (answer: ServerAnswer): string => `${answer.description} (JetStream error ${answer.code}, status ${answer.status})`

type Found = { readonly config: Config } | { readonly answer: ServerAnswer } | undefined

/** A resource's configuration on the server, undefined when it has none, or the server's refusal to say. */
async function lookup(read: () => Promise<{ config: unknown }>): Promise<Found> {
  try {
    const config = (await read()).config
    if (typeof config !== 'object' || config === null || Array.isArray(config))
      return { answer: { code: 0, status: 0, description: 'the answer holds no configuration' } }
    return { config: config as Config }
  } catch (error) {
    const answer = answerOf(error)
    if (answer === undefined) throw error
    return answer.status === 404 ? undefined : { answer }
  }
}

const unread = (answer: ServerAnswer) => ({
  action: 'failed' as const,
  differences: [],
  reason: `the server did not describe it: ${answerText(answer)}.`,
  server: answer,
})

interface Judged {
  action: PlannedResource['action']
  reason?: string
}

/**
 * The action for a resource that exists, given its differences and mark. `blocked` is why this
 * contract may not create or change it for another reason (a consumer whose stream is not its own).
 */
function judge(
  kind: 'stream' | 'consumer',
  authority: 'contract' | 'external',
  diff: readonly FieldDifference[],
  owner: OwnerMark | null,
  self: OwnerMark,
  options: ProvisionOptions,
): Judged {
  if (authority === 'external') return { action: diff.length === 0 ? 'none' : 'differs' }
  const adopting = owner === null && options.adopt === true
  if (diff.length === 0) return { action: adopting ? 'adopt' : 'none' }
  if (options.update !== true) return { action: adopting ? 'adopt' : 'differs' }
  const notOwned = ownershipProblem(self, owner, options.adopt === true)
  if (notOwned) return { action: 'refused', reason: `not changed: ${notOwned}.` }
  const fixed = diff.filter((d) => Object.hasOwn(SERVER_DEFAULTS[kind], d.field) && !SERVER_DEFAULTS[kind][d.field]!.updatable)
  if (fixed.length > 0)
    return {
      action: 'refused',
      reason: `not changed: an update cannot change ${fixed.map((d) => `${d.field} (it ${SERVER_DEFAULTS[kind][d.field]!.does})`).join(', ')}; delete it (what it holds is lost) and provision again.`,
    }
  const losses = diff.filter((d) => d.loss !== undefined)
  if (losses.length > 0 && options.allowDataLoss !== true)
    return {
      action: 'refused',
      reason: `not changed: the update loses data (${losses.map((d) => d.field).join(', ')}); allowDataLoss (--allow-data-loss) applies it.`,
    }
  return { action: 'update' }
}

/**
 * An unmarked resource this run marks (adopts, or updates with --adopt) loses its description to
 * the mark: said in the entry's `reason`, with the text it had, so an operator's own note is never
 * replaced without a word (an outside pass).
 */
function replacedDescription(entry: PlannedResource, server: Config): PlannedResource {
  const text = server.description
  if (entry.owner !== null || (entry.action !== 'adopt' && entry.action !== 'update') || typeof text !== 'string' || text === '') return entry
  return { ...entry, reason: `marking it replaces its description ${JSON.stringify(text.length > 200 ? `${text.slice(0, 197)}...` : text)} with the mark.` }
}

/** JetStream's answer to a create whose name is taken with another configuration. */
const STREAM_NAME_IN_USE = 10058

/** Why this contract may not put consumers on a stream it claims, as planned (and, unless a dry run, applied), or undefined when it may. */
function streamOwnership(self: OwnerMark, streamPlan: PlannedResource, options: ProvisionOptions): string | undefined {
  if (streamPlan.action === 'create') return undefined
  const owner = streamPlan.owner ?? null
  const problem = ownershipProblem(self, owner, false)
  if (problem === undefined) return undefined
  if (owner === null && options.adopt === true && (streamPlan.action === 'adopt' || streamPlan.action === 'update')) return undefined
  if (owner === null && options.adopt === true)
    return `it carries no ownership mark, and marking it as this contract's did not happen (${streamPlan.action}, above)`
  return problem
}

const sorted = <T>(record: Readonly<Record<string, T>>) => Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))

/** Plans, and unless `dryRun` applies, the module's streams then consumers (a consumer needs its stream). */
export async function provision(module: ContractModule, nc: NatsConnection, options: ProvisionOptions = {}): Promise<ProvisionResult> {
  checkServerVersion(module, nc, options)
  const jsm = await jetstreamManager(nc)
  const plan: PlannedResource[] = []
  const progress: Progress = {}
  try {
    return await provisionEach(module, jsm, options, plan, progress)
  } catch (error) {
    // A JetStream answer never gets here (an entry's `failed`): the server stopped answering (the
    // connection was lost, a request timed out). What was done is kept, the resource in flight is
    // `failed` (whether it changed is not known) and the rest `failed` as not attempted, so a
    // caller knows what changed; an outside pass saw four streams created and none reported.
    if (answerOf(error) !== undefined) throw error
    const why = errorText(error)
    const listed = new Set(plan.map((p) => `${p.kind}\u0000${p.key}`))
    const flight = progress.current
    if (flight && !listed.has(`${flight.kind}\u0000${flight.key}`)) {
      listed.add(`${flight.kind}\u0000${flight.key}`)
      plan.push({ ...flight, action: 'failed', differences: [], reason: `the server stopped answering (${why}): whether it was changed is not known.` })
    }
    for (const [kind, resources] of [
      ['stream', module.streams],
      ['consumer', module.consumers],
    ] as const)
      for (const [key, resource] of sorted(resources as Readonly<Record<string, { authority: 'contract' | 'external'; config: unknown }>>)) {
        if (listed.has(`${kind}\u0000${key}`)) continue
        const config = resource.config as Config
        const name = String(kind === 'stream' ? config.name : config.durable_name)
        plan.push({
          kind,
          key,
          name,
          authority: resource.authority,
          action: 'failed',
          differences: [],
          reason: 'not attempted: the server stopped answering (above).',
        })
      }
    return { plan, inSync: false, interrupted: why }
  }
}

/** The resource being planned or changed when the server stopped answering. */
interface Progress {
  current?: { kind: 'stream' | 'consumer'; key: string; name: string; authority: 'contract' | 'external' }
}

async function provisionEach(
  module: ContractModule,
  jsm: JetStreamManager,
  options: ProvisionOptions,
  plan: PlannedResource[],
  progress: Progress,
): Promise<ProvisionResult> {
  const self: OwnerMark = { contract: module.contract.id, version: module.contract.version }
  const description = markDescription(self)
  const apply = !options.dryRun
  const streamPlans = new Map<string, PlannedResource>()

  for (const [key, stream] of sorted(module.streams)) {
    const config = stream.config as Config
    const name = String(config.name)
    const base = { kind: 'stream' as const, key, name, authority: stream.authority }
    progress.current = base
    const found = await lookup(() => jsm.streams.info(name))
    let entry: PlannedResource
    if (found !== undefined && 'answer' in found) entry = { ...base, ...unread(found.answer) }
    else if (found === undefined)
      entry =
        stream.authority === 'contract'
          ? { ...base, action: 'create', differences: [] }
          : { ...base, action: 'missing', differences: [], reason: 'it is not on the server, and an external stream is never created.' }
    else {
      const diff = differences('stream', config, found.config)
      const owner = readMark(found.config.description)
      entry = replacedDescription({ ...base, ...judge('stream', stream.authority, diff, owner, self, options), differences: diff, owner }, found.config)
    }
    if (apply) entry = await applied(entry, () => applyStream(jsm, entry, config, description))
    // Made meanwhile by another run (two provisioners at once): judged as found, naming its mark, not
    // as a stream that is not there (an outside pass saw the loser of a race say so).
    if (apply && entry.action === 'failed' && entry.server?.code === STREAM_NAME_IN_USE) {
      const again = await lookup(() => jsm.streams.info(name))
      if (again !== undefined && 'config' in again) {
        const diff = differences('stream', config, again.config)
        const owner = readMark(again.config.description)
        const problem = ownershipProblem(self, owner, false)
        entry =
          problem === undefined && diff.length === 0
            ? { ...base, action: 'none', differences: diff, owner }
            : {
                ...base,
                action: 'refused',
                differences: diff,
                owner,
                reason: `not created: another run made it meanwhile, and ${problem ?? 'it differs from this contract'}.`,
              }
      }
    }
    streamPlans.set(key, entry)
    plan.push(entry)
  }

  for (const [key, consumer] of sorted(module.consumers)) {
    const config = consumer.config as Config
    const name = String(config.durable_name)
    const base = { kind: 'consumer' as const, key, name, authority: consumer.authority }
    progress.current = base
    const streamKey = consumer.stream
    const stream = streamKey !== undefined && Object.hasOwn(module.streams, streamKey) ? module.streams[streamKey] : undefined
    const streamPlan = streamKey !== undefined ? streamPlans.get(streamKey) : undefined
    if (stream === undefined || streamPlan === undefined) {
      plan.push({ ...base, action: 'refused', differences: [], reason: `it names no stream of this contract (${JSON.stringify(streamKey ?? '')}).` })
      continue
    }
    const streamName = streamPlan.name
    // On the server: it was there when planned (it has an owner entry), or this run has just created it.
    const streamThere = streamPlan.owner !== undefined || (apply && streamPlan.action === 'create')
    let entry: PlannedResource
    if (!streamThere) {
      // In a dry run the stream this contract creates is not there yet; its consumers are created after it.
      if (!apply && streamPlan.action === 'create') entry = { ...base, action: consumer.authority === 'contract' ? 'create' : 'missing', differences: [] }
      else
        entry = {
          ...base,
          action: consumer.authority === 'contract' ? 'refused' : 'missing',
          differences: [],
          reason: `its stream ${streamName} is not on the server${
            streamPlan.action === 'failed'
              ? ' (the server refused it, above)'
              : stream.authority === 'external'
                ? ' (external: this contract never creates it)'
                : ''
          }.`,
        }
    } else {
      const found = await lookup(() => jsm.consumers.info(streamName, name))
      if (found !== undefined && 'answer' in found) entry = { ...base, ...unread(found.answer) }
      else if (found === undefined) entry = { ...base, action: consumer.authority === 'contract' ? 'create' : 'missing', differences: [] }
      else {
        const diff = differences('consumer', config, found.config)
        const owner = readMark(found.config.description)
        entry = replacedDescription({ ...base, ...judge('consumer', consumer.authority, diff, owner, self, options), differences: diff, owner }, found.config)
      }
      if (entry.action === 'missing') entry = { ...entry, reason: 'it is not on the server, and an external consumer is never created.' }
      // A consumer made for a stream this contract claims is only created or changed on that stream
      // when the stream is this contract's: created by this run, carrying this contract's mark, or
      // unmarked and marked by this run (adopted, or updated with --adopt); not when that marking was
      // refused or failed, which leaves the stream someone else's.
      const streamNotOwned = stream.authority === 'contract' ? streamOwnership(self, streamPlan, options) : undefined
      if (streamNotOwned && ['create', 'update', 'adopt'].includes(entry.action))
        entry = {
          ...entry,
          action: 'refused',
          reason: `not ${entry.action === 'create' ? 'created' : 'changed'}: its stream ${streamName} is claimed by this contract, but ${streamNotOwned}.`,
        }
    }
    if (apply) entry = await applied(entry, () => applyConsumer(jsm, entry, streamName, config, description))
    plan.push(entry)
  }

  const done = (p: PlannedResource) =>
    p.action === 'none' || (apply && (p.action === 'create' || p.action === 'update' || (p.action === 'adopt' && p.differences.length === 0)))
  return { plan, inSync: plan.every(done) }
}

// Copies: nats.js adds defaults to the object it is given, and descriptors are frozen. `update`
// merges into the server's configuration (nats.js reads it first), so fields the contract leaves
// out stay as they are.
const copy = (config: Config) => JSON.parse(JSON.stringify(config)) as Record<string, unknown>

/** The defaults an update sets back: the unstated fields that differ (an update keeps what it does not name). */
const defaultsOf = (entry: PlannedResource, config: Config): Record<string, unknown> =>
  Object.fromEntries(entry.differences.filter((d) => !Object.hasOwn(config, d.field) && d.contract !== undefined).map((d) => [d.field, d.contract]))

async function applyStream(jsm: JetStreamManager, entry: PlannedResource, config: Config, description: string): Promise<void> {
  if (entry.action === 'create') await jsm.streams.add({ ...copy(config), description } as never)
  else if (entry.action === 'update') await jsm.streams.update(entry.name, { ...defaultsOf(entry, config), ...copy(config), description } as never)
  else if (entry.action === 'adopt') await jsm.streams.update(entry.name, { description } as never)
}

async function applyConsumer(jsm: JetStreamManager, entry: PlannedResource, stream: string, config: Config, description: string): Promise<void> {
  if (entry.action === 'create') await jsm.consumers.add(stream, { ...copy(config), description } as never)
  else if (entry.action === 'update') await jsm.consumers.update(stream, entry.name, { ...defaultsOf(entry, config), ...copy(config), description } as never)
  else if (entry.action === 'adopt') await jsm.consumers.update(stream, entry.name, { description } as never)
}

const VERB: Partial<Record<PlannedResource['action'], string>> = { create: 'to create it', update: 'the update', adopt: 'to mark it' }

/** Runs the change; a server refusal becomes the entry's `failed` state with the server's answer. */
async function applied(entry: PlannedResource, change: () => Promise<void>): Promise<PlannedResource> {
  const verb = VERB[entry.action]
  if (verb === undefined) return entry
  try {
    await change()
    return entry
  } catch (error) {
    const answer = answerOf(error)
    if (answer === undefined) throw error
    return { ...entry, action: 'failed', reason: `the server refused ${verb}: ${answerText(answer)}.`, server: answer }
  }
}
