/**
 * Provisioning from a contract: the JetStream streams and consumers a generated module names,
 * compared with what the server has. Contract-owned resources that are missing are created, and
 * with `update` changed to the contract's closed configuration; external resources are compared
 * only, never created or changed ("each fact has one authority"). The plan comes first: a dry run
 * returns it without touching the server.
 */
import { jetstreamManager, JetStreamApiError, type JetStreamManager } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/nats-core'
import { checkServerVersion, type BindOptions, type ContractModule } from './index.js'

export interface FieldDifference {
  readonly field: string
  readonly contract: unknown
  readonly server: unknown
}

export interface PlannedResource {
  readonly kind: 'stream' | 'consumer'
  /** The contract's key for it (`streams.<key>`, `consumers.<key>`). */
  readonly key: string
  /** Its name on the server (stream `name`, consumer `durable_name`). */
  readonly name: string
  readonly authority: 'contract' | 'external'
  /** What provisioning does (or, in a dry run, would do). */
  readonly action: 'create' | 'update' | 'none' | 'differs' | 'missing'
  readonly differences: readonly FieldDifference[]
}

export interface ProvisionOptions extends BindOptions {
  /** Plan only: nothing is created or changed. */
  readonly dryRun?: boolean
  /** Apply differing fields to contract-owned resources (otherwise they are reported as `differs`). */
  readonly update?: boolean
}

export interface ProvisionResult {
  readonly plan: readonly PlannedResource[]
  /** True when the server now matches the contract (after a dry run: already matches). */
  readonly inSync: boolean
}

const equal = (a: unknown, b: unknown): boolean => (Array.isArray(a) && Array.isArray(b) ? a.length === b.length && a.every((x, i) => equal(x, b[i])) : a === b)

/** The contract's fields whose values the server holds differently (fields the contract leaves out are the server's). */
function differences(contract: Readonly<Record<string, unknown>>, server: Readonly<Record<string, unknown>>): FieldDifference[] {
  const out: FieldDifference[] = []
  for (const field of Object.keys(contract).sort()) {
    if (!equal(contract[field], server[field])) out.push({ field, contract: contract[field], server: server[field] })
  }
  return out
}

const notFound = (error: unknown) => error instanceof JetStreamApiError && (error.code === 404 || /not found/i.test(error.message))

async function streamConfig(jsm: JetStreamManager, name: string): Promise<Record<string, unknown> | undefined> {
  try {
    return (await jsm.streams.info(name)).config as unknown as Record<string, unknown>
  } catch (error) {
    if (notFound(error)) return undefined
    throw error
  }
}

async function consumerConfig(jsm: JetStreamManager, stream: string, name: string): Promise<Record<string, unknown> | undefined> {
  try {
    return (await jsm.consumers.info(stream, name)).config as unknown as Record<string, unknown>
  } catch (error) {
    if (notFound(error)) return undefined
    throw error
  }
}

/** Plans, and unless `dryRun` applies, the module's streams then consumers (a consumer needs its stream). */
export async function provision(module: ContractModule, nc: NatsConnection, options: ProvisionOptions = {}): Promise<ProvisionResult> {
  checkServerVersion(module, nc, options)
  const jsm = await jetstreamManager(nc)
  const plan: PlannedResource[] = []
  const apply = !options.dryRun
  for (const [key, stream] of Object.entries(module.streams).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const config = stream.config as Record<string, unknown>
    const name = String(config.name)
    const server = await streamConfig(jsm, name)
    const diff = server ? differences(config, server) : []
    const action = decide(stream.authority, server !== undefined, diff.length > 0, options.update === true)
    plan.push({ kind: 'stream', key, name, authority: stream.authority, action, differences: diff })
    if (!apply) continue
    // Copies: nats.js adds defaults to the object it is given, and descriptors are frozen.
    if (action === 'create') await jsm.streams.add(copy(config))
    else if (action === 'update') await jsm.streams.update(name, copy(config))
  }
  for (const [key, consumer] of Object.entries(module.consumers).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const config = consumer.config as Record<string, unknown>
    const name = String(config.durable_name)
    const stream = consumer.stream !== undefined ? module.streams[consumer.stream] : undefined
    const streamName = String((stream?.config as Record<string, unknown> | undefined)?.name)
    const server = (await streamConfig(jsm, streamName)) ? await consumerConfig(jsm, streamName, name) : undefined
    const diff = server ? differences(config, server) : []
    const action = decide(consumer.authority, server !== undefined, diff.length > 0, options.update === true)
    plan.push({ kind: 'consumer', key, name, authority: consumer.authority, action, differences: diff })
    if (!apply) continue
    if (action === 'create') await jsm.consumers.add(streamName, copy(config))
    else if (action === 'update') await jsm.consumers.update(streamName, name, copy(config))
  }
  const done = (p: PlannedResource) => p.action === 'none' || (apply && (p.action === 'create' || p.action === 'update'))
  return { plan, inSync: plan.every(done) }
}

const copy = (config: Readonly<Record<string, unknown>>) => JSON.parse(JSON.stringify(config)) as never

function decide(authority: 'contract' | 'external', exists: boolean, differs: boolean, update: boolean): PlannedResource['action'] {
  if (!exists) return authority === 'contract' ? 'create' : 'missing'
  if (!differs) return 'none'
  return authority === 'contract' && update ? 'update' : 'differs'
}
