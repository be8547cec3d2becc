/**
 * Global topology: "a generated projection of linked contracts, never a fictional all-applications
 * API" (NATS profile v0.2). Each application's document is compiled as it is (every rule, the
 * bundle-wide ones included); the projection is drawn only from documents that pass, so every edge
 * in it is one the compiler verified: links (direction, equal subject languages, equal payloads),
 * imports (locked digests), stream captures (decided exactly over the token languages).
 *
 * Streams and consumers are server resources: one node per (deployment binding, name), with the
 * application that owns it (`authority: contract`) and every application that declares it.
 *
 * An application is a (contract id, version): its key is the contract id, or `<id>@<version>` for
 * every version of an id the projection holds more than one of (two versions are two nodes, never
 * one). A link end `{contract: <alias>, operation}` names its contract through the importing
 * document's alias, so it is resolved through that document's imports, never read as a contract id.
 */
import { lstatSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { ContractCompiler } from '../../../core/compile.js'
import type { Diagnostic } from '../../../core/diagnostics.js'
import { declaredDiagnostics, hasErrors } from '../../../core/diagnostics.js'
import { NATS_MODEL_CODES } from '../codes.js'
import { natsFormat } from '../index.js'
import { templateTokens } from '../../../runtime/nats/subjects.js'
import type { TokenType } from '../../../runtime/nats/tokens.js'
import { parseFilter, positions } from '../address.js'
import { APPLICATION_DOCUMENT_NAME } from '../document.js'
import { readBundleFile } from '../lock/bundle-files.js'
import { fileProblem } from '../../../core/input-host.js'
import { LIMITS } from '../../../core/limits.js'
import { LOCK_FILE, lockedPaths, printable } from '../lock/plan.js'
import { CoverUndecided, patternIntersects, patternsCover, type Language, type PatternPosition } from '../languages.js'
import type { NatsModel, SourceLink } from '../model.js'
import { deepFreeze } from '../../../runtime/shared/deep-freeze.js'
import { setOwn } from '../../../runtime/shared/own-property.js'

export type TopologyNodeKind = 'application' | 'channel' | 'operation' | 'stream' | 'consumer' | 'interaction' | 'pipeline' | 'workflow' | 'adapter'

export interface TopologyNode {
  readonly id: string
  readonly kind: TopologyNodeKind
  /**
   * The application the node belongs to: its contract id, or `<id>@<version>` when the projection
   * holds two versions of that id; for streams and consumers, the owner if one owns it.
   */
  readonly contract?: string
  readonly label: string
  readonly source?: SourceLink
  readonly data: Readonly<Record<string, unknown>>
}

export type TopologyEdgeKind =
  | 'operation-channel'
  | 'link'
  | 'import'
  | 'capture'
  | 'consumer-stream'
  | 'operation-consumer'
  | 'interaction-request'
  | 'interaction-result'
  | 'pipeline-step'

export interface TopologyEdge {
  readonly from: string
  readonly to: string
  readonly kind: TopologyEdgeKind
  readonly label?: string
  /** What the compiler checked for this edge. */
  readonly verified?: readonly string[]
  readonly data?: Readonly<Record<string, unknown>>
}

export interface Topology {
  readonly nodes: readonly TopologyNode[]
  readonly edges: readonly TopologyEdge[]
}

export type TopologyResult = (
  { readonly topology: Topology; readonly diagnostics: readonly Diagnostic[] } | { readonly topology?: undefined; readonly diagnostics: readonly Diagnostic[] }
) & {
  /** Every file the compiles read (the documents and what they depend on), for watching. */
  readonly documents: readonly string[]
}

type Model = Omit<NatsModel, 'file'>

const byId = <T extends { id: string }>(list: T[]) => list.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
const edgeKey = (e: TopologyEdge) => `${e.kind}\u0000${e.from}\u0000${e.to}\u0000${e.label ?? ''}`

/**
 * The application documents a lock lists (a bundle root), or the files given, with why any is not
 * read. A bundle's lock is read as `contracts lock` reads it (lock/plan.ts: a plain file, never a
 * link, a FIFO or a device; plain relative paths); each listed document must be a plain file inside
 * the bundle, reached through no link (lock/bundle-files.ts): the projection reads nothing outside
 * the bundle's tree. A lock that lists a document that is not there, or no application document at
 * all, says so instead of projecting nothing.
 */
function documentsOf(inputs: readonly string[]): { files: string[]; diagnostics: Diagnostic[] } {
  const out = new Set<string>()
  const diagnostics: Diagnostic[] = []
  const refuse = (file: string, message: string) => diagnostics.push(declaredDiagnostics(NATS_MODEL_CODES)({ file }, 'NATS_TOPOLOGY_INPUT', '', message))
  for (const input of inputs) {
    const abs = resolve(input)
    const lockFile = join(abs, LOCK_FILE)
    // A folder is a bundle when it holds a lock, of whatever kind (a link or a FIFO is refused below, never opened).
    if (!present(lockFile)) {
      out.add(abs)
      continue
    }
    const lock = lockedPaths(abs)
    diagnostics.push(...lock.diagnostics)
    if (lock.paths === undefined) continue
    const documents = lock.paths.filter((path) => APPLICATION_DOCUMENT_NAME.test(path))
    if (documents.length === 0) refuse(lockFile, `${lockFile} lists no application document (asyncapi.yaml): the bundle has nothing to project.`)
    for (const path of documents) {
      const read = readBundleFile(abs, path)
      if (!('problem' in read)) out.add(join(abs, ...path.split('/')))
      else if (read.problem === 'missing') refuse(lockFile, `${lockFile} lists ${printable(path)}, which is not in the bundle.`)
      else {
        const file = join(abs, ...path.split('/'))
        if (read.problem === 'not-plain' && read.link)
          diagnostics.push(
            fileProblem('CONTRACTS_SYMLINK', file, `${file} passes through a symbolic link; a bundle's documents are plain files, never followed.`),
          )
        else if (read.problem === 'not-plain') diagnostics.push(fileProblem('CONTRACTS_READ_FAILED', file, `${file} is not a regular file; it is not opened.`))
        else if (read.problem === 'too-large')
          diagnostics.push(fileProblem('CONTRACTS_TOO_LARGE', file, `${file} has ${read.size} bytes; files are limited to ${LIMITS.fileBytes}.`))
        else diagnostics.push(fileProblem('CONTRACTS_READ_FAILED', file, `${file} cannot be read (${read.message}).`))
      }
    }
  }
  return { files: [...out].sort(), diagnostics }
}

/** Whether anything is at `path` (a link or a FIFO too; not when a folder on its way is a file). */
function present(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined
  } catch {
    return false
  }
}

/**
 * Compiles each application document and projects the ones that pass; any error gives the
 * diagnostics, not a partial picture. The compiler defaults to one of the NATS format alone (a
 * format imports no other): a file of another format is then a file no format handles. The
 * package root's `topology` and the CLI pass a compiler of every format, which names the format.
 */
export async function topology(
  inputs: string | readonly string[],
  compiler = new ContractCompiler({ formats: [natsFormat], snapshot: true }),
): Promise<TopologyResult> {
  const listed = documentsOf(typeof inputs === 'string' ? [inputs] : inputs)
  const files = listed.files
  const diagnostics: Diagnostic[] = [...listed.diagnostics]
  const read = new Set<string>(files)
  const models: Array<{ file: string; model: Model }> = []
  for (const file of files) {
    const result = await compiler.model(file, natsFormat)
    for (const dependency of result.dependencies) read.add(dependency)
    diagnostics.push(...result.diagnostics)
    if (result.format !== 'nats' && !hasErrors(result.diagnostics))
      diagnostics.push(
        declaredDiagnostics(NATS_MODEL_CODES)(
          { file },
          'NATS_TOPOLOGY_INPUT',
          '',
          `${file} is not a NATS contract; a topology projects NATS application documents.`,
        ),
      )
    else if (result.model !== undefined) models.push({ file, model: result.model })
  }
  const documents = [...read].sort()
  if (hasErrors(diagnostics) || models.length === 0) return { diagnostics, documents }
  return { topology: project(models), diagnostics, documents }
}

/** The projection of models that compiled without errors (deterministic: nodes and edges in id order). */
export function project(models: ReadonlyArray<{ file: string; model: Model }>): Topology {
  const nodes = new Map<string, TopologyNode>()
  const edges = new Map<string, TopologyEdge>()
  const add = (node: TopologyNode) => void (nodes.has(node.id) ? undefined : nodes.set(node.id, node))
  const connect = (edge: TopologyEdge) => void edges.set(edgeKey(edge), edge)
  // Application keys: the contract id, or id@version where one id comes in several versions.
  const versions = new Map<string, Set<string>>()
  for (const { model } of models) versions.set(model.contract.id, (versions.get(model.contract.id) ?? new Set()).add(model.contract.version))
  // Node ids are made of document text joined by `/` and `@`: each part has `%`, `/` and `@`
  // percent-encoded, so no two different things share an id (contract `x` with channel `y/z` and
  // contract `x/y` with channel `z`; a contract named `a@1.0.0` beside versions of `a`), which
  // made one of them vanish. A name without those characters reads as written.
  const part = (text: string) => text.replace(/[%/@]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  // An application's key as nodes show it (`contract`), and as its nodes' ids hold it (each part encoded).
  const single = (contract: string, version: string) => versions.get(contract)?.size === 1 && versions.get(contract)!.has(version)
  const applicationKey = (contract: string, version: string) => (single(contract, version) ? contract : `${contract}@${version}`)
  const applicationId = (contract: string, version: string) => (single(contract, version) ? part(contract) : `${part(contract)}@${part(version)}`)
  const app = (key: string) => `app:${key}`
  const channelId = (key: string, id: string) => `channel:${key}/${part(id)}`
  const operationId = (key: string, id: string) => `operation:${key}/${part(id)}`
  const streamId = (binding: string, name: string) => `stream:${part(binding)}/${part(name)}`
  const consumerId = (binding: string, stream: string, name: string) => `consumer:${part(binding)}/${part(stream)}/${part(name)}`
  // Streams and consumers by binding and server name: who declares them, who owns them.
  const streamDecl = new Map<
    string,
    { binding: string; name: string; subjects: string[]; owner?: string; declaredBy: string[]; config: unknown; source?: SourceLink }
  >()
  const consumerDecl = new Map<
    string,
    { binding: string; stream: string; name: string; filter?: string; owner?: string; declaredBy: string[]; config: unknown; source?: SourceLink }
  >()

  for (const { model } of models) {
    // This application's key (what every node of its own is named under).
    const contract = applicationKey(model.contract.id, model.contract.version)
    const appKey = applicationId(model.contract.id, model.contract.version)
    const binding = model.deployment.binding
    add({
      id: app(appKey),
      kind: 'application',
      contract,
      label: `${model.contract.id} ${model.contract.version}`,
      source: model.source,
      data: {
        contract: model.contract.id,
        version: model.contract.version,
        digest: model.contract.digest,
        binding,
        minimumServerVersion: model.deployment.minimumServerVersion,
      },
    })
    for (const c of model.channels) {
      const parameters: Record<string, TokenType> = {}
      for (const [p, type] of Object.entries(c.parameters)) setOwn(parameters, p, model.tokenTypes[type]!)
      add({
        id: channelId(appKey, c.id),
        kind: 'channel',
        contract,
        label: c.address ?? `${c.id} (reply: inbox)`,
        source: c.source,
        data: {
          channel: c.id,
          ...(c.address !== undefined ? { address: c.address } : {}),
          parameters,
          filters: Object.fromEntries(c.filters.map((f) => [f.name, f.template])),
        },
      })
    }
    for (const o of model.operations) {
      add({ id: operationId(appKey, o.id), kind: 'operation', contract, label: `${o.action} ${o.id}`, source: o.source, data: { ...o, source: undefined } })
      if (o.channel) connect({ from: operationId(appKey, o.id), to: channelId(appKey, o.channel), kind: 'operation-channel', label: o.action })
    }
    const streamKeys = new Map<string, string>()
    for (const s of model.streams) {
      const config = s.config as { name?: unknown; subjects?: unknown }
      const name = String(config.name)
      streamKeys.set(s.key, name)
      const key = `${binding}\u0000${name}`
      const decl = streamDecl.get(key) ?? {
        binding,
        name,
        subjects: Array.isArray(config.subjects) ? config.subjects.map(String) : [],
        declaredBy: [],
        config: s.config,
      }
      decl.declaredBy.push(contract)
      if (s.authority === 'contract') Object.assign(decl, { owner: contract, config: s.config, source: s.source })
      else decl.source ??= s.source
      streamDecl.set(key, decl)
    }
    for (const c of model.consumers) {
      const config = c.config as { durable_name?: unknown; filter_subject?: unknown }
      const stream = streamKeys.get(c.stream ?? '') ?? String(c.stream)
      const name = String(config.durable_name)
      const key = `${binding}\u0000${stream}\u0000${name}`
      const decl = consumerDecl.get(key) ?? {
        binding,
        stream,
        name,
        declaredBy: [],
        config: c.config,
        ...(typeof config.filter_subject === 'string' ? { filter: config.filter_subject } : {}),
      }
      decl.declaredBy.push(contract)
      if (c.authority === 'contract') Object.assign(decl, { owner: contract, config: c.config, source: c.source })
      else decl.source ??= c.source
      consumerDecl.set(key, decl)
      for (const o of model.operations)
        if (o.consumer === c.key)
          connect({ from: consumerId(binding, stream, name), to: operationId(appKey, o.id), kind: 'operation-consumer', label: 'delivers to' })
    }
    for (const a of model.adapters)
      add({
        id: `adapter:${appKey}/${part(a.key)}`,
        kind: 'adapter',
        contract,
        label: `${a.kind} ${a.key}`,
        source: a.source,
        data: { key: a.key, kind: a.kind, version: a.version },
      })
    for (const it of model.interactions) {
      const id = `interaction:${appKey}/${part(it.id)}`
      const d = it.data as Record<string, unknown>
      add({
        id,
        kind: 'interaction',
        contract,
        label: it.id,
        source: it.source,
        data: {
          audience: d.audience,
          dispatch: d.dispatch,
          completion: d.completion,
          requestOperation: d.requestOperation,
          resultOperation: d.resultOperation,
        },
      })
      if (typeof d.requestOperation === 'string')
        connect({ from: id, to: operationId(appKey, d.requestOperation), kind: 'interaction-request', label: 'request' })
      if (typeof d.resultOperation === 'string') connect({ from: operationId(appKey, d.resultOperation), to: id, kind: 'interaction-result', label: 'results' })
    }
    for (const p of model.pipelines) {
      const id = `pipeline:${appKey}/${part(p.key)}`
      add({ id, kind: 'pipeline', contract, label: p.key, source: p.source, data: { steps: (p.data as { steps?: unknown }).steps } })
      const steps = Array.isArray((p.data as { steps?: unknown }).steps) ? (p.data as { steps: Array<{ interaction?: string; operation?: string }> }).steps : []
      steps.forEach((step, i) => {
        const target = step.interaction !== undefined ? `interaction:${appKey}/${part(step.interaction)}` : operationId(appKey, String(step.operation))
        connect({ from: id, to: target, kind: 'pipeline-step', label: `step ${i + 1}`, data: { step: i } })
      })
    }
    for (const w of model.workflows)
      add({ id: `workflow:${appKey}/${part(w.key)}`, kind: 'workflow', contract, label: w.key, source: w.source, data: { ...w.data, source: undefined } })
    for (const i of model.imports)
      connect({
        from: app(appKey),
        to: app(applicationId(i.contract, i.version)),
        kind: 'import',
        label: `${i.contract} ${i.version}`,
        verified: ['locked digest', 'identity'],
        data: { sha256: i.sha256, path: i.path },
      })
    // A link end is a local operation (its contract is this document's id) or names an import alias.
    // An alias that is also this document's id would be ambiguous here: such a link is left out, never guessed.
    const aliases = new Map(model.imports.map((i) => [i.alias, applicationId(i.contract, i.version)]))
    const endOf = (end: { contract: string; operation: string }): string | undefined => {
      const imported = aliases.get(end.contract)
      if (imported !== undefined && end.contract === model.contract.id) return undefined
      const owner = imported ?? (end.contract === model.contract.id ? appKey : undefined)
      return owner === undefined ? undefined : operationId(owner, end.operation)
    }
    for (const l of model.links) {
      const from = endOf(l.send)
      const to = endOf(l.receive)
      if (from === undefined || to === undefined) continue
      connect({
        from,
        to,
        kind: 'link',
        label: 'link',
        verified: ['direction', 'equal subject languages', 'equal payload schemas'],
      })
    }
  }
  for (const s of streamDecl.values())
    add({
      id: streamId(s.binding, s.name),
      kind: 'stream',
      ...(s.owner !== undefined ? { contract: s.owner } : {}),
      label: s.name,
      ...(s.source ? { source: s.source } : {}),
      data: { binding: s.binding, name: s.name, subjects: s.subjects, owner: s.owner ?? null, declaredBy: [...new Set(s.declaredBy)].sort(), config: s.config },
    })
  for (const c of consumerDecl.values()) {
    const id = consumerId(c.binding, c.stream, c.name)
    add({
      id,
      kind: 'consumer',
      ...(c.owner !== undefined ? { contract: c.owner } : {}),
      label: c.name,
      ...(c.source ? { source: c.source } : {}),
      data: {
        binding: c.binding,
        stream: c.stream,
        name: c.name,
        filter: c.filter ?? null,
        owner: c.owner ?? null,
        declaredBy: [...new Set(c.declaredBy)].sort(),
        config: c.config,
      },
    })
    connect({ from: id, to: streamId(c.binding, c.stream), kind: 'consumer-stream', label: c.filter ?? 'all subjects', verified: ['filter within the stream'] })
  }
  // Captures: a channel's subjects against each stream of its binding, exactly over the token languages.
  for (const { model } of models) {
    const appKey = applicationId(model.contract.id, model.contract.version)
    for (const c of model.channels) {
      if (c.address === undefined) continue
      const types: Record<string, TokenType> = {}
      for (const [p, t] of Object.entries(c.parameters)) setOwn(types, p, model.tokenTypes[t]!)
      const language = positions(templateTokens(c.address), types) as Language
      for (const s of streamDecl.values()) {
        if (s.binding !== model.deployment.binding) continue
        const patterns = s.subjects.flatMap((subject): PatternPosition[][] => {
          const parsed = parseFilter(subject)
          return 'tokens' in parsed ? [positions(parsed.tokens, {}) as PatternPosition[]] : []
        })
        if (!patterns.some((p) => patternIntersects(p, language))) continue
        let covered: boolean | 'undecided'
        try {
          covered = patternsCover(patterns, language)
        } catch (error) {
          if (!(error instanceof CoverUndecided)) throw error
          covered = 'undecided'
        }
        connect({
          from: channelId(appKey, c.id),
          to: streamId(s.binding, s.name),
          kind: 'capture',
          label: covered === true ? 'captured' : 'partly captured',
          verified: ['exact over the token languages'],
          data: { complete: covered === true },
        })
      }
    }
  }
  const nodeList = byId([...nodes.values()])
  const known = new Set(nodeList.map((n) => n.id))
  // Every edge joins two nodes of the projection (a link to an application outside the inputs is left out).
  const edgeList = [...edges.values()].filter((e) => known.has(e.from) && known.has(e.to)).sort((a, b) => (edgeKey(a) < edgeKey(b) ? -1 : 1))
  // Frozen as a copy: nodes carry parts of the models (configs, sources), and a model may be the
  // compiler's own, kept with a cached compile (`ContractCompiler.model`), which is not frozen.
  return deepFreeze(structuredClone({ nodes: nodeList, edges: edgeList }))
}
