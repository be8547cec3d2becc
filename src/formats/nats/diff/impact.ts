/**
 * Topology impact: for each breaking finding on a channel or an operation, the applications of the
 * bundle it actually affects, read from the same version of the bundle through `DiffSide.read`
 * (never the file system: under `--against` the bundle is git's): the other end of a link to one of
 * the channel's operations, an importer that names such an operation through its import, a stream
 * of another application that captures the channel's subjects (one it owns, not one it declares
 * external), and a consumer of that stream whose filter meets them (with the operations reading it);
 * for a stream's subjects narrowed, the other applications' publishers it no longer captures; for a
 * contract id changed, its importers. Both versions' bundles are read, and what each names is
 * joined: the parties that relied on the old contract and those wired to the new one.
 *
 * The bundle is `bundle.lock.json` in the nearest folder above the document; its application
 * documents are the lock entries with an application document's name (at most MAX_DOCUMENTS).
 * Cost: O(bundle size) to index, then O(links and streams naming the finding's operations + other
 * applications' stream subjects x positions) per breaking finding.
 */
import { withStandardRefs } from '../standard-refs.js'
import { dirname, join } from 'node:path'
import type { DiffSide } from '../../../core/diff/types.js'
import { parseYamlSource } from '../../../core/yaml-source.js'
import { parseFilter, positions } from '../address.js'
import { splitPointer } from '../../../runtime/shared/json-pointer.js'
import { APPLICATION_DOCUMENT_NAME, isObject } from '../document.js'
import { decodedRef } from '../context.js'
import { readTokenType } from '../token-type-form.js'
import { patternIntersects, type Language, type PatternPosition } from '../languages.js'
import type { NatsModel } from '../model.js'
import { dedupe, languageOf } from './channels.js'
import { shapeOf, type SubjectShape } from './subject-inclusion.js'
import { UNCAPTURED_STEP_BUDGET, uncapturedSubject } from './uncaptured-subjects.js'
import { templateTokens } from '../../../runtime/nats/subjects.js'
import type { TokenType } from '../../../runtime/nats/tokens.js'
import type { Draft, Version } from './context.js'
import { isResponder, q } from './context.js'

const MAX_DOCUMENTS = 1000
const MAX_DEPTH = 64
const VIA_ORDER: ReadonlyArray<Affected['via']> = ['link', 'import', 'capture', 'consumer']

export interface Affected {
  application: string
  via: 'link' | 'import' | 'capture' | 'consumer'
  operation?: string
  stream?: string
  consumer?: string
  file: string
  /** The audience kind the party is (the other end of one of the document's own operations). */
  kind?: string
}

interface NativeSubjects {
  key: string
  name: string
  subjects: PatternPosition[][]
  /** Declared `authority: external`: another application's (or no application's) stream, which this one only reads. */
  external: boolean
}

interface App {
  contract: string
  file: string
  streams: NativeSubjects[]
  consumers: Array<{ key: string; stream: string; durable: string; filter?: PatternPosition[]; operations: string[] }>
  /** The contract ids it imports. */
  imports: Set<string>
  /** Its send operations on addressed channels, with their subjects (undefined where a token type cannot be read). */
  publishers: Array<{ operation: string; shape: SubjectShape | undefined }>
}

export interface BundleView {
  /** The bundle root, or undefined when the document is in none. */
  root?: string
  apps: App[]
  /** `contract\0operation` -> the other ends that name it (links, import references). */
  ends: Map<string, Affected[]>
}

const plainPath = (rel: string) => !rel.startsWith('/') && !rel.includes('\\') && rel.split('/').every((part) => part !== '' && part !== '.' && part !== '..')
const str = (v: unknown) => (typeof v === 'string' ? v : undefined)
const key = (contract: string, operation: string) => `${contract}\u0000${operation}`

async function readSafe(side: DiffSide<NatsModel>, file: string): Promise<string | undefined> {
  try {
    return await side.read(file)
  } catch {
    return undefined
  }
}

function pattern(subject: unknown): PatternPosition[] | undefined {
  if (typeof subject !== 'string') return undefined
  const parsed = parseFilter(subject)
  if (!('tokens' in parsed) || parsed.tokens.some((t) => typeof t === 'object')) return undefined
  return positions(parsed.tokens, {}) as PatternPosition[]
}

/** The bundle of one version, read through its side: the lock, then each application document. */
export async function bundleView(side: DiffSide<NatsModel>, selfDoc: unknown): Promise<BundleView> {
  const view: BundleView = { apps: [], ends: new Map() }
  let dir = dirname(side.file)
  let lock: string | undefined
  for (let i = 0; i < MAX_DEPTH; i++) {
    lock = await readSafe(side, join(dir, 'bundle.lock.json'))
    if (lock !== undefined) break
    const parent = dirname(dir)
    if (parent === dir) break
    dir = parent
  }
  if (lock === undefined) {
    index(view, side.model.contract.id, side.file, selfDoc, true)
    return view
  }
  view.root = dir
  let entries: unknown
  try {
    entries = (JSON.parse(lock) as { entries?: unknown }).entries
  } catch {
    entries = undefined
  }
  const paths = (Array.isArray(entries) ? entries : [])
    .map((e) => (isObject(e) ? str(e.path) : undefined))
    // A plain relative path inside the bundle only (the lock was checked when the bundle compiled; this reads it again, possibly from git).
    .filter((p): p is string => p !== undefined && APPLICATION_DOCUMENT_NAME.test(p) && plainPath(p))
    .slice(0, MAX_DOCUMENTS)
  let sawSelf = false
  const artifacts = new Map<string, unknown>()
  for (const rel of paths) {
    const file = join(dir, ...rel.split('/'))
    if (file === side.file) {
      sawSelf = true
      index(view, side.model.contract.id, file, selfDoc, true)
      continue
    }
    const text = await readSafe(side, file)
    if (text === undefined) continue
    let value: unknown
    try {
      value = withStandardRefs(parseYamlSource(file, text).source.value)
    } catch {
      continue
    }
    const profile = isObject(value) ? value['x-nats-contract'] : undefined
    const contract = isObject(profile) ? str(profile.contract) : undefined
    if (contract !== undefined) index(view, contract, file, value, false, await artifactsOf(side, dir, profile, artifacts))
  }
  if (!sawSelf) index(view, side.model.contract.id, side.file, selfDoc, true)
  return view
}

/**
 * The locked external artifacts (native stream and consumer configurations) an application's
 * resources name, read once per bundle path through the side; keyed by bundle path.
 */
async function artifactsOf(side: DiffSide<NatsModel>, root: string, profile: unknown, cache: Map<string, unknown>): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>()
  if (!isObject(profile)) return out
  for (const section of ['streams', 'consumers']) {
    const resources = profile[section]
    if (!isObject(resources)) continue
    for (const r of Object.values(resources)) {
      const rel = isObject(r) && r.authority === 'external' && isObject(r.artifact) ? str(r.artifact.path) : undefined
      if (rel === undefined || !plainPath(rel) || out.has(rel)) continue
      if (!cache.has(rel)) {
        const text = await readSafe(side, join(root, ...rel.split('/')))
        let value: unknown
        try {
          value = text === undefined ? undefined : parseYamlSource(rel, text).source.value
        } catch {
          value = undefined
        }
        cache.set(rel, value)
      }
      out.set(rel, cache.get(rel))
    }
  }
  return out
}

/** A resource's configuration: its own, or its artifact's at its pointer. */
function configOf(resource: Record<string, unknown>, artifacts: ReadonlyMap<string, unknown>): Record<string, unknown> | undefined {
  if (isObject(resource.config)) return resource.config
  const rel = isObject(resource.artifact) ? str(resource.artifact.path) : undefined
  const pointer = str(resource.pointer)
  if (rel === undefined || pointer === undefined) return undefined
  let node = artifacts.get(rel)
  for (const token of splitPointer(pointer)) {
    if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(token)) node = node[Number(token)]
    else if (isObject(node) && Object.hasOwn(node, token)) node = node[token]
    else return undefined
  }
  return isObject(node) ? node : undefined
}

/** Indexes one application document: its links and import references by the end they name, its streams and consumers. */
function index(view: BundleView, contract: string, file: string, doc: unknown, self: boolean, artifacts: ReadonlyMap<string, unknown> = new Map()): void {
  const profile = isObject(doc) && isObject(doc['x-nats-contract']) ? doc['x-nats-contract'] : {}
  const imports = new Map<string, string>()
  if (isObject(profile.imports))
    for (const [alias, entry] of Object.entries(profile.imports)) {
      const c = isObject(entry) ? str(entry.contract) : undefined
      if (c !== undefined) imports.set(alias, c)
    }
  const end = (ref: unknown): { contract: string; operation: string } | undefined => {
    if (typeof ref === 'string') return { contract, operation: ref }
    if (!isObject(ref)) return undefined
    const alias = str(ref.contract)
    const operation = str(ref.operation)
    const target = alias === undefined ? undefined : imports.get(alias)
    return target === undefined || operation === undefined ? undefined : { contract: target, operation }
  }
  const push = (at: { contract: string; operation: string }, affected: Affected) => {
    const k = key(at.contract, at.operation)
    const list = view.ends.get(k)
    if (list) list.push(affected)
    else view.ends.set(k, [affected])
  }
  if (Array.isArray(profile.links))
    for (const link of profile.links) {
      if (!isObject(link)) continue
      const send = end(link.send)
      const receive = end(link.receive)
      if (!send || !receive) continue
      push(send, { application: receive.contract, operation: receive.operation, via: 'link', file })
      push(receive, { application: send.contract, operation: send.operation, via: 'link', file })
    }
  // Import references outside links (an interaction's counterpart operations): bounded walk.
  if (!self && imports.size > 0) {
    const stack: Array<[unknown, number]> = [[profile, 0]]
    let budget = 100_000
    while (stack.length > 0 && --budget > 0) {
      const [node, depth] = stack.pop()!
      if (depth > 32) continue
      if (Array.isArray(node)) for (const item of node) stack.push([item, depth + 1])
      else if (isObject(node)) {
        const target = typeof node.contract === 'string' && typeof node.operation === 'string' ? end(node) : undefined
        if (target) push(target, { application: contract, via: 'import', file })
        for (const [k, v] of Object.entries(node)) if (k !== 'links' || depth > 0) stack.push([v, depth + 1])
      }
    }
  }
  if (self) return
  const app: App = { contract, file, streams: [], consumers: [], imports: new Set(imports.values()), publishers: publishersOf(doc, profile) }
  if (isObject(profile.streams))
    for (const [k, s] of Object.entries(profile.streams)) {
      const config = isObject(s) ? configOf(s, artifacts) : undefined
      const subjects = Array.isArray(config?.subjects) ? config.subjects.map(pattern).filter((p): p is PatternPosition[] => p !== undefined) : []
      if (config) app.streams.push({ key: k, name: str(config.name) ?? k, subjects, external: isObject(s) && s.authority === 'external' })
    }
  const ops = isObject(profile.operations) ? profile.operations : {}
  if (isObject(profile.consumers))
    for (const [k, c] of Object.entries(profile.consumers)) {
      if (!isObject(c)) continue
      const config = configOf(c, artifacts) ?? {}
      const operations = Object.keys(ops).filter((id) => {
        const op = ops[id]
        return isObject(op) && isObject(op.subscribe) && op.subscribe.consumer === k
      })
      app.consumers.push({ key: k, stream: str(c.stream) ?? '', durable: str(config.durable_name) ?? k, filter: pattern(config.filter_subject), operations })
    }
  view.apps.push(app)
}

/**
 * Another application's publishers: its standard send operations, each with its channel's subjects
 * (address, parameters and token types read from its document as written; the bundle compiled, so
 * they were checked). O(operations x address length).
 */
function publishersOf(doc: unknown, profile: Record<string, unknown>): App['publishers'] {
  const operations = isObject(doc) && isObject(doc.operations) ? doc.operations : {}
  const channels = isObject(doc) && isObject(doc.channels) ? doc.channels : {}
  const declared = isObject(profile.channels) ? profile.channels : {}
  const tokenTypes = isObject(profile.tokenTypes) ? profile.tokenTypes : {}
  const out: App['publishers'] = []
  for (const [id, op] of Object.entries(operations)) {
    if (!isObject(op) || op.action !== 'send' || !isObject(op.channel)) continue
    // Percent-decoded first, as the compiler reads a local reference (`#/channels/x%20y`).
    const ref = decodedRef(str(op.channel.$ref))
    const tokens = ref?.startsWith('#/channels/') ? splitPointer(ref.slice(1)) : []
    const channelId = tokens.length === 2 ? tokens[1]! : undefined
    const channel = channelId !== undefined && Object.hasOwn(channels, channelId) ? channels[channelId] : undefined
    const address = isObject(channel) ? str(channel.address) : undefined
    if (address === undefined || channelId === undefined) continue
    const own = Object.hasOwn(declared, channelId) ? declared[channelId] : undefined
    const params = isObject(own) && isObject(own.parameters) ? own.parameters : {}
    const types: Record<string, TokenType | undefined> = Object.create(null) as Record<string, TokenType | undefined>
    for (const [param, name] of Object.entries(params))
      types[param] = typeof name === 'string' && Object.hasOwn(tokenTypes, name) ? readTokenType(tokenTypes[name]) : undefined
    out.push({ operation: id, shape: shapeOf(templateTokens(address), types) })
  }
  return out
}

/**
 * The publishers of other applications a stream's narrowed subjects no longer capture, each with a
 * subject of its channel that shows it (uncaptured-subjects.ts, one budget for the finding); one whose
 * subjects cannot be read, or whose search ran out, is named without a witness.
 */
function uncapturedPublishers(v: Version, view: BundleView, before: readonly string[], after: readonly string[]): Array<Affected & { witness?: string }> {
  const budget = { steps: UNCAPTURED_STEP_BUDGET }
  const out: Array<Affected & { witness?: string }> = []
  for (const app of view.apps) {
    if (app.contract === v.model.contract.id) continue
    for (const p of app.publishers) {
      const answer = p.shape ? uncapturedSubject(p.shape, before, after, [], budget) : { found: false as const, decided: false }
      if (!answer.found && answer.decided) continue
      out.push({
        application: app.contract,
        via: 'capture',
        operation: p.operation,
        file: app.file,
        kind: 'publisher',
        ...(answer.found ? { witness: answer.subject } : {}),
      })
    }
  }
  return out
}

/** The parties of the bundle a finding's channel, operation or stream reaches, in one version. */
function affectedIn(
  v: Version,
  view: BundleView,
  channel: string | undefined,
  operation: string | undefined,
  streamName?: string,
  consumerName?: string,
): Affected[] {
  // No other application and no other end (a document in no bundle): nothing below can be reached,
  // so the channel's subject language is not worked out for each finding.
  if (view.apps.length === 0 && view.ends.size === 0) return []
  const out: Affected[] = []
  if (streamName !== undefined)
    for (const app of view.apps) {
      if (app.contract === v.model.contract.id) continue
      for (const stream of app.streams) {
        if (stream.name !== streamName) continue
        for (const consumer of app.consumers) {
          if (consumer.stream !== stream.key || (consumerName !== undefined && consumer.durable !== consumerName)) continue
          if (consumer.operations.length === 0)
            out.push({ application: app.contract, via: 'consumer', stream: stream.name, consumer: consumer.durable, file: app.file })
          for (const o of consumer.operations)
            out.push({ application: app.contract, via: 'consumer', stream: stream.name, consumer: consumer.durable, operation: o, file: app.file })
        }
      }
    }
  const self = v.model.contract.id
  const ops = operation !== undefined ? [operation] : channel !== undefined ? (v.byChannel.get(channel) ?? []).map((o) => o.id) : []
  for (const op of ops) {
    const own = v.operations.get(op)
    // What the other end of the operation is: a responder's linked end is its requester (an outside pass: it was filed as a publisher).
    const kind = own?.action === 'send' ? (own.requestReply ? 'responder' : 'subscriber') : own && isResponder(v, own) ? 'requester' : 'publisher'
    for (const a of view.ends.get(key(self, op)) ?? []) if (a.application !== self) out.push({ ...a, kind })
  }
  const c = channel === undefined ? undefined : v.channels.get(channel)
  const language: Language | undefined = c && languageOf(v, c)
  if (language)
    for (const app of view.apps) {
      if (app.contract === self) continue
      for (const stream of app.streams) {
        if (!stream.subjects.some((s) => patternIntersects(s, language))) continue
        // An external declaration is the owner's fact (each fact has one authority): the application
        // is reached only through a consumer of it whose filter meets the subjects (an outside pass).
        if (!stream.external) out.push({ application: app.contract, via: 'capture', stream: stream.name, file: app.file })
        for (const consumer of app.consumers) {
          if (consumer.stream !== stream.key || (consumer.filter && !patternIntersects(consumer.filter, language))) continue
          if (consumer.operations.length === 0)
            out.push({ application: app.contract, via: 'consumer', stream: stream.name, consumer: consumer.durable, file: app.file })
          for (const o of consumer.operations)
            out.push({ application: app.contract, via: 'consumer', stream: stream.name, consumer: consumer.durable, operation: o, file: app.file })
        }
      }
    }
  return out
}

function describe(a: Affected): string {
  const what =
    a.via === 'link'
      ? `operation ${q(a.operation ?? '')} (linked)`
      : a.via === 'import'
        ? 'an operation reference through its import'
        : a.via === 'capture'
          ? a.operation !== undefined
            ? `operation ${q(a.operation)} (publishes subjects the stream no longer captures)`
            : `stream ${q(a.stream ?? '')} (captures the subjects)`
          : `consumer ${q(a.consumer ?? '')} of stream ${q(a.stream ?? '')}${a.operation ? ` read by ${q(a.operation)}` : ''}`
  return `${q(a.application)}: ${what}`
}

/** Adds `data.affected` and a sentence to each breaking finding about a channel or an operation. */
export function attachImpact(drafts: Draft[], old: Version, next: Version, views: { old: BundleView; next: BundleView }): void {
  for (const d of drafts) {
    if (d.level !== 'breaking') continue
    if (d.rule === 'nats-contract-id-changed') {
      importers(d, old, views.old)
      continue
    }
    if (d.scope === undefined) continue
    const { channel, operation, stream, consumer } = d.scope
    const found = [...affectedIn(old, views.old, channel, operation, stream, consumer), ...affectedIn(next, views.next, channel, operation, stream, consumer)]
    if (d.rule === 'nats-stream-subjects-narrowed') narrowedInBundle(d, next, views.next, found)
    const seen = new Set<string>()
    const affected = found.filter((a) => {
      const k = JSON.stringify([a.application, a.via, a.operation, a.stream, a.consumer])
      if (seen.has(k)) return false
      seen.add(k)
      return true
    })
    const order = (a: Affected) => `${a.application}\u0000${VIA_ORDER.indexOf(a.via)}\u0000${describe(a)}`
    affected.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0))
    const c = channel === undefined ? undefined : (next.channels.get(channel) ?? old.channels.get(channel))
    const subjects = c?.address ?? channel ?? operation ?? stream ?? ''
    const inBundle = views.old.root !== undefined || views.next.root !== undefined
    d.data = { ...d.data, affected: affected.map(({ file: _file, kind: _kind, ...a }) => a), bundle: inBundle }
    if (affected.length > 0) {
      // A reached party is an audience when it plays a role the finding breaks (a subscriber linked
      // to a narrowed channel is reached, but what it receives only shrinks).
      const broken = new Set(d.audiences.map((a) => a.kind))
      for (const a of affected) {
        const kind = a.via === 'capture' ? (a.kind ?? 'deployment') : a.via === 'consumer' ? 'subscriber' : (a.kind ?? 'subscriber')
        // A stream's change (renamed, refused, losing messages) breaks every consumer of it.
        if (broken.has(kind) || stream !== undefined) d.audiences.push({ kind, name: `${a.application}:${a.operation ?? a.stream ?? ''}` })
      }
      d.audiences = dedupe(d.audiences)
      d.message += ` In the bundle it reaches ${affected.map(describe).join('; ')}.`
    } else if (inBundle && stream !== undefined && channel === undefined) {
      d.message +=
        consumer === undefined
          ? ` No other application of the bundle consumes stream ${q(stream)}; consumers of it outside the bundle still break.`
          : ` No other application of the bundle reads consumer ${q(consumer)} of stream ${q(stream)}; readers of it outside the bundle still break.`
    } else if (stream !== undefined && channel === undefined) {
      d.message +=
        consumer === undefined
          ? ` The document is in no bundle: who else consumes stream ${q(stream)} is unknown, and they break.`
          : ` The document is in no bundle: who else reads consumer ${q(consumer)} of stream ${q(stream)} is unknown, and they break.`
    } else {
      // Who breaks outside: the roles the finding names, on the subjects each side has (the old
      // ones for what is no longer sent or accepted, the new for what now is; an outside pass).
      const outside = [...new Set(d.audiences.map((a) => a.kind).filter((k) => k !== 'deployment'))].sort()
      const roles = outside.length > 0 ? outside.map((k) => `${k}s`).join(' and ') : 'parties'
      const before = channel === undefined ? undefined : old.channels.get(channel)?.address
      const after = channel === undefined ? undefined : next.channels.get(channel)?.address
      const where = before !== undefined && after !== undefined && before !== after ? `${q(before)} (now ${q(after)})` : q(subjects)
      d.data = { ...d.data, outside }
      d.message += inBundle
        ? ` No application of the bundle links, imports, captures or consumes it; it stays breaking for ${roles} of ${where} outside the bundle.`
        : ` The document is in no bundle: who else plays those roles (${roles}) on ${where} is unknown, and they break.`
    }
  }
}

/**
 * A stream's narrowed subjects in a bundle: the other applications' publishers whose subjects it no
 * longer captures join what the finding reaches (as `capture` with their operation), and its
 * `data.parties` with their witness.
 */
function narrowedInBundle(d: Draft, next: Version, view: BundleView, found: Affected[]): void {
  const subjects = (value: unknown) => (Array.isArray(value) ? value.filter((s): s is string => typeof s === 'string') : [])
  const reached = uncapturedPublishers(next, view, subjects(d.data?.old), subjects(d.data?.new))
  if (reached.length === 0) return
  found.push(...reached.map(({ witness: _w, ...a }) => a))
  const parties = Array.isArray(d.data?.parties) ? d.data.parties : []
  d.data = {
    ...d.data,
    parties: [
      ...parties,
      ...reached.map((a) => ({ kind: 'publisher', name: `${a.application}:${a.operation}`, ...(a.witness !== undefined ? { witness: a.witness } : {}) })),
    ],
  }
}

/** A contract id changed: the applications of the old bundle that import it by that id lose it. */
function importers(d: Draft, old: Version, view: BundleView): void {
  const id = old.model.contract.id
  const affected = view.apps.filter((app) => app.contract !== id && app.imports.has(id)).map((app) => ({ application: app.contract, via: 'import' as const }))
  d.data = { ...d.data, affected, bundle: view.root !== undefined }
  if (affected.length > 0) d.message += ` In the bundle it reaches ${affected.map((a) => q(a.application)).join(', ')} (importing ${q(id)}).`
  else if (view.root !== undefined) d.message += ' No application of the bundle imports it.'
}
