import { basename, dirname, relative, sep } from 'node:path'
import { declaredDiagnostics, type Diagnostic } from '../../core/diagnostics.js'
import { NATS_MODEL_CODES } from './codes.js'
import { sortKeys, sortedCopy } from '../../core/emit.js'
import type { MessageModel } from './message-schemas.js'
import { nameChannels } from './naming.js'
import type { NatsOptions } from './options.js'
import type { NatsContext } from './context.js'
import { isObject } from './document.js'
import type { ChannelModel, NativeModel, NatsModel, OperationModel, ParsedDocument, SourceLink } from './model.js'
import { resolveConfig } from './resources.js'
import { decodedRef, refId } from './context.js'
import { LastPerFile, sameReads, type CompileMemos } from '../../core/memo.js'
import { standardParts } from './rules/standard-reads.js'

/** A backlink maker: positions in a file of the bundle, with its bundle-relative name (computed once per file). */
type Link = (pointer: string, file?: string, locate?: (pointer: string) => { line: number; column: number }) => SourceLink

/** The model's diagnostics, at their codes' declared severities. */
const modelDiagnostic = declaredDiagnostics(NATS_MODEL_CODES)

function linker(ctx: NatsContext): Link {
  const root = ctx.input.bundle?.root ?? dirname(ctx.main.file)
  const relatives = new Map<string, string>()
  return (pointer, file = ctx.main.file, locate = ctx.main.source.locate) => {
    const { line, column } = locate(pointer)
    let rel = relatives.get(file)
    if (rel === undefined) relatives.set(file, (rel = relative(root, file).split(sep).join('/') || basename(file)))
    return { file: rel, pointer, line, column }
  }
}

/** The channels, each with its export name (a name given by hand that cannot be used, as a diagnostic) and its filters in name order. */
function channelModels(ctx: NatsContext, link: Link, diagnostics: Diagnostic[], names: NatsOptions['names']): ChannelModel[] {
  const profiledChannels = ctx.section('channels')
  const channels: ChannelModel[] = []
  const named = nameChannels(
    ctx.channelList.map((c) => c.id),
    names,
  )
  for (let index = 0; index < ctx.channelList.length; index++) {
    const channel = ctx.channelList[index]!
    const profile = isObject(profiledChannels[channel.id]) ? (profiledChannels[channel.id] as Record<string, unknown>) : {}
    const pointer = ctx.pointer('channels', channel.id)
    const name = named[index]!
    if ('problem' in name) {
      diagnostics.push(
        modelDiagnostic(
          { file: ctx.main.file, locate: ctx.main.source.locate },
          'NATS_EXPORT_NAME',
          pointer,
          `Channel ${JSON.stringify(channel.id)}: ${name.problem} (option names).`,
        ),
      )
      continue
    }
    const exportName = name.exportName
    const filters: ChannelModel['filters'] = []
    if (isObject(profile.filters)) {
      for (const name of Object.keys(profile.filters)) {
        const template = profile.filters[name]
        const parsed = typeof template === 'string' ? ctx.filter(template) : undefined
        if (parsed && 'tokens' in parsed) filters.push({ name, template: template as string, tokens: parsed.tokens })
      }
      // In name order: mapping keys carry no order, and generated code lists filters as given here.
      // Insertion sort: a channel has a few filters, and Array#sort allocates a work area per call.
      for (let i = 1; i < filters.length; i++) {
        const filter = filters[i]!
        let j = i - 1
        for (; j >= 0 && filters[j]!.name > filter.name; j--) filters[j + 1] = filters[j]!
        filters[j + 1] = filter
      }
    }
    const identity = isObject(profile.publisherIdentity) ? (profile.publisherIdentity as ChannelModel['publisherIdentity']) : undefined
    // Members assigned one by one rather than spread in (bench/: the conditional spreads showed per channel).
    const model = { id: channel.id, exportName } as ChannelModel
    if (channel.address !== undefined) {
      model.address = channel.address
      model.tokens = channel.tokens
    }
    model.parameters = channel.parameters
    model.filters = filters
    if (identity) model.publisherIdentity = { kind: identity.kind, peerParameter: identity.peerParameter }
    model.messages = ctx.messages.byChannel.get(channel.id) ?? []
    const standard = ctx.standard('channels')[channel.id]
    const text = isObject(standard) ? (typeof standard.description === 'string' ? standard.description : standard.summary) : undefined
    if (typeof text === 'string') model.description = text
    model.source = link(pointer)
    channels.push(model)
  }

  return channels
}

/**
 * The names of the channel's messages a standard operation lists in `messages` (each a
 * `#/channels/<its channel>/messages/<name>` reference; NATS_REF_KIND refuses others), in name
 * order, when they are fewer than the channel's: what the operation may carry. Undefined when it
 * lists none (the channel's messages, all of them) or all of them. O(listed + channel messages).
 */
export function listedMessages(ctx: NatsContext, std: Record<string, unknown>, channelId: string): string[] | undefined {
  if (!Array.isArray(std.messages)) return undefined
  const channel = ctx.standard('channels')[channelId]
  const all = isObject(channel) && isObject(channel.messages) ? Object.keys(channel.messages) : []
  const prefix = `#/channels/${channelId.replace(/~/g, '~0').replace(/\//g, '~1')}/messages/`
  const names = new Set<string>()
  for (const entry of std.messages) {
    const ref = decodedRef(isObject(entry) && typeof entry.$ref === 'string' ? entry.$ref : undefined)
    if (ref === undefined || !ref.startsWith(prefix)) return undefined
    const name = ref.slice(prefix.length).replace(/~1/g, '/').replace(/~0/g, '~')
    if (!all.includes(name)) return undefined
    names.add(name)
  }
  return names.size < all.length ? [...names].sort() : undefined
}

/** The operations as their profile entries describe them, members in a fixed order. */
function operationModels(ctx: NatsContext, link: Link): OperationModel[] {
  const standardOps = ctx.standard('operations')
  const operations: OperationModel[] = []
  const profiledOps = ctx.section('operations')
  for (const id of Object.keys(profiledOps)) {
    const op = profiledOps[id]
    if (!isObject(op)) continue
    const std = standardOps[id] as Record<string, unknown>
    const publish = isObject(op.publish) ? op.publish : undefined
    const subscribe = isObject(op.subscribe) ? op.subscribe : undefined
    const reply = isObject(std.reply) ? refId(std.reply.channel, '#/channels/') : undefined
    const rr = isObject(op.requestReply) ? op.requestReply : undefined
    // Members in a fixed order (generation writes them as they are), assigned one by one.
    const model = {
      id,
      action: std.action as 'send' | 'receive',
      channel: ctx.channelOf(std) ?? '',
      kind: publish ? 'publish' : 'subscribe',
      api: (publish ?? subscribe)!.api as 'core' | 'jetstream',
    } as OperationModel
    if (publish) model.confirmation = publish.confirmation as 'none' | 'stream-ack'
    if (typeof publish?.stream === 'string') model.stream = publish.stream
    if (typeof subscribe?.consumer === 'string') model.consumer = subscribe.consumer
    // Queue groups stay under the pinned standard NATS operation binding (the profile's words).
    const nats = isObject(std.bindings) && isObject(std.bindings.nats) ? std.bindings.nats : undefined
    if (typeof nats?.queue === 'string') model.queue = nats.queue
    if (rr)
      model.requestReply = {
        routing: 'native-inbox',
        completion: 'first-response',
        timeoutMs: rr.timeoutMs as number,
        ...(reply ? { replyChannel: reply } : {}),
      }
    const listed = listedMessages(ctx, std, model.channel)
    if (listed) model.messages = listed
    model.source = link(ctx.pointer('operations', id))
    operations.push(model)
  }

  return operations
}

/** Contract-owned and external streams or consumers, with their resolved closed configs. */
function nativeModels(ctx: NatsContext, link: Link, section: 'streams' | 'consumers'): NativeModel[] {
  return Object.entries(ctx.section(section)).flatMap(([key, resource]) => {
    const resolved = resolveConfig(ctx, section, key)
    if (!isObject(resource) || !resolved || !isObject(resolved.config)) return []
    const artifact = isObject(resource.artifact) ? resource.artifact : undefined
    return [
      {
        key,
        authority: resolved.authority,
        ...(typeof resource.stream === 'string' ? { stream: resource.stream } : {}),
        config: resolved.config,
        ...(artifact ? { artifact: { path: String(artifact.path), sha256: String(artifact.sha256), pointer: String(resource.pointer) } } : {}),
        source: link(resolved.pointer, resolved.file.file, resolved.file.source.locate),
      },
    ]
  })
}

/** Interactions with their inputs typed, the request channel's export and the payload schema a runtime check needs. */
function interactionModels(ctx: NatsContext, link: Link, channels: readonly ChannelModel[]): NatsModel['interactions'] {
  const standardOps = ctx.standard('operations')
  const exportOf = new Map(channels.map((c) => [c.id, c.exportName]))
  return Object.entries(ctx.section('interactions')).flatMap(([id, it]) => {
    if (!isObject(it)) return []
    const requestChannel = typeof it.requestOperation === 'string' ? ctx.channelOf(standardOps[it.requestOperation]) : undefined
    const inputs = Object.fromEntries(
      Object.entries(isObject(it.inputs) ? it.inputs : {}).map(([name, input]) => {
        const i = input as Record<string, unknown>
        return [
          name,
          {
            source: i.source,
            ...(typeof i.tokenType === 'string' ? { tokenTypeName: i.tokenType, tokenType: ctx.tokenTypes[i.tokenType] } : {}),
            ...(typeof i.schema === 'string' ? { schema: i.schema } : {}),
          },
        ]
      }),
    )
    const capabilities = Array.isArray(it.capabilities) ? it.capabilities : []
    const data = { id, ...it, capabilities, inputs, ...(requestChannel ? { requestChannel } : {}) }
    // References into locked files made local, as for message payloads: the payload check planned (runtime-schema-check).
    const payloadSchema = ctx.validatorPlan.interaction(id)?.payload?.schema
    return [
      {
        id,
        ...(requestChannel && exportOf.has(requestChannel) ? { requestChannelExport: exportOf.get(requestChannel)! } : {}),
        ...(payloadSchema ? { payloadSchema } : {}),
        data,
        source: link(ctx.pointer('x-nats-contract', 'interactions', id)),
      },
    ]
  })
}

const byId = <T>(list: T[], id: (t: T) => string) => [...list].sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0))

/**
 * Mapping keys carry no order in YAML: channels, operations and every other keyed collection are
 * emitted in id order, and data read from the document from key-sorted copies, so reordering a
 * document's keys changes only `contract.digest` (the digest of its exact bytes). Operation and
 * adapter descriptors are built member by member, in an order of their own, with channel filters in
 * name order; channel parameters are read in sorted key order where they are written. The model is
 * ordered here, once: generation and inspection read it as it is.
 */
function ordered(model: NatsModel, orderedChannels?: ChannelModel[]): NatsModel {
  // A payload that channels share (one message on each: message-schemas.ts) is copied once.
  const payloads = new Map<unknown, unknown>()
  const message = (m: MessageModel): MessageModel => {
    const out: Record<string, unknown> = {}
    for (const key of sortKeys(Object.keys(m))) {
      const value = (m as unknown as Record<string, unknown>)[key]
      if (key !== 'payload' || value === null || typeof value !== 'object') out[key] = sortedCopy(value)
      else {
        let copy = payloads.get(value)
        if (copy === undefined) payloads.set(value, (copy = sortedCopy(value)))
        out[key] = copy
      }
    }
    return out as unknown as MessageModel
  }
  return {
    ...model,
    tokenTypes: sortedCopy(model.tokenTypes),
    channels: orderedChannels ?? byId(model.channels, (c) => c.id).map((c) => ({ ...c, messages: c.messages.map(message) })),
    operations: byId(model.operations, (o) => o.id),
    streams: byId(model.streams, (s) => s.key).map(sortedCopy),
    consumers: byId(model.consumers, (c) => c.key).map(sortedCopy),
    adapters: byId(model.adapters, (a) => a.key),
    interactions: byId(model.interactions, (i) => i.id).map((i) => ({ ...i, data: sortedCopy(i.data), payloadSchema: sortedCopy(i.payloadSchema) })),
    pipelines: byId(model.pipelines, (p) => p.key).map((p) => ({ ...p, data: sortedCopy(p.data) })),
    workflows: byId(model.workflows, (w) => w.key).map((w) => ({ ...w, data: sortedCopy(w.data) })),
    // Component schemas are only read for payload validators, which copy what they use.
  }
}

/** The model with the main document as its compile parsed it (`NatsModel.parsed`), non-enumerable. */
function withParsed(ctx: NatsContext, model: NatsModel): NatsModel {
  const { file, text, value, lines, collectionStart } = ctx.main.source
  const parsed: ParsedDocument = { file, text, value, lines, ...(collectionStart ? { collectionStart } : {}) }
  Object.defineProperty(model, 'parsed', { value: parsed, enumerable: false })
  return model
}

/**
 * A file's channel models from its last compile (as made, and as ordered into the model), with what
 * they were made from: a recompile whose channels read the same takes them, the same objects
 * (generation keeps each channel's text by its model: generate.ts).
 */
interface KeptChannels {
  reads: readonly unknown[]
  channels: ChannelModel[]
  ordered: ChannelModel[]
}

/**
 * What the channel models are made from: the document's standard part (the channels, their
 * messages through the components; `standardParts`: every top-level member but the profile, or the
 * document itself when a reference leaves the standard part or the input is a bundle), the profile's
 * channels, the names asked for, the document's bundle-relative name, and where the channels start
 * (each channel's backlink is a line and column: the same section at the same place has them all
 * the same).
 */
function channelReads(ctx: NatsContext, options: NatsOptions): unknown[] {
  const { line, column } = ctx.main.source.locate('/channels')
  return [
    ...standardParts(ctx, 'channels'),
    ctx.input.bundle?.root,
    options.names === undefined ? undefined : JSON.stringify(Object.entries(options.names)),
    `${line}:${column}`,
  ]
}

/** The model of a valid document, ordered for determinism; naming problems come back as diagnostics. */
export function buildNatsModel(ctx: NatsContext, options: NatsOptions = {}, memos?: CompileMemos): { model?: NatsModel; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = []
  const link = linker(ctx)
  // A recompile takes the channel models of the file's last compile when they read the same.
  const keptChannels = memos?.kept('nats:channel-models', () => new LastPerFile<KeptChannels>())
  const reads = keptChannels && channelReads(ctx, options)
  const last = keptChannels?.get(ctx.main.file)
  const reused = last !== undefined && sameReads(last.reads, reads!) ? last : undefined
  keptChannels?.delete(ctx.main.file)
  const channels = reused?.channels ?? channelModels(ctx, link, diagnostics, options.names)
  const operations = operationModels(ctx, link)
  const adapters = Object.entries(ctx.section('adapters')).flatMap(([key, a]) =>
    isObject(a)
      ? [
          {
            key,
            kind: String(a.kind),
            version: String(a.version),
            inputSchema: String(a.inputSchema),
            outputSchema: String(a.outputSchema),
            ...(typeof a.description === 'string' ? { description: a.description } : {}),
            source: link(ctx.pointer('x-nats-contract', 'adapters', key)),
          },
        ]
      : [],
  )
  const pipelines = Object.entries(ctx.section('pipelines')).flatMap(([key, p]) =>
    isObject(p) ? [{ key, data: { key, ...p }, source: link(ctx.pointer('x-nats-contract', 'pipelines', key)) }] : [],
  )
  const workflows = Object.entries(ctx.section('workflows')).flatMap(([key, w]) =>
    isObject(w) ? [{ key, data: { key, ...w }, source: link(ctx.pointer('x-nats-contract', 'workflows', key)) }] : [],
  )
  if (diagnostics.length > 0) return { diagnostics }
  const info = ctx.doc.info as Record<string, unknown>
  const model = withParsed(
    ctx,
    ordered(
      {
        file: ctx.main.file,
        contract: { id: String(ctx.profile.contract), version: String(info.version), profile: '0.2.0-draft', digest: ctx.main.sha256 },
        deployment: {
          binding: String((ctx.profile.deployment as Record<string, unknown>).binding),
          minimumServerVersion: String((ctx.profile.deployment as Record<string, unknown>).minimumServerVersion),
        },
        imports: Object.entries(ctx.section('imports'))
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([alias, entry]) => {
            const e = entry as Record<string, string>
            return { alias, contract: e.contract!, version: e.version!, path: e.path!, sha256: e.sha256! }
          }),
        links: (Array.isArray(ctx.profile.links) ? ctx.profile.links : []).map((link) => {
          const end = (ref: unknown) =>
            typeof ref === 'string' ? { contract: String(ctx.profile.contract), operation: ref } : { ...(ref as { contract: string; operation: string }) }
          const l = link as { send: unknown; receive: unknown }
          return { send: end(l.send), receive: end(l.receive) }
        }),
        tokenTypes: { ...ctx.tokenTypes },
        source: link(ctx.pointer('x-nats-contract')),
        ...(typeof info.description === 'string' ? { description: info.description } : {}),
        channels,
        operations,
        streams: nativeModels(ctx, link, 'streams'),
        consumers: nativeModels(ctx, link, 'consumers'),
        adapters,
        interactions: interactionModels(ctx, link, channels),
        pipelines,
        workflows,
        // The document's components, and those its message payloads reach in locked files.
        // (a reference of the document's own components into a locked file made local, too): the
        // ones the validator plan was decided against.
        schemas: { ...ctx.validatorPlan.components },
        validatorPlan: ctx.validatorPlan,
        ...(options.validators === 'code' ? { validators: 'code' as const } : {}),
      },
      reused?.ordered,
    ),
  )
  keptChannels?.set(ctx.main.file, { reads: reads!, channels, ordered: model.channels })
  return { model, diagnostics }
}
