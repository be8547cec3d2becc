/**
 * What a picture of a topology shows, shared by the Mermaid, DOT and SVG writers: applications as
 * groups with their channels inside, one group of JetStream streams and consumers per deployment
 * binding, and the verified edges between them (links from channel to channel, captures, consumers,
 * imports). Beyond `maxChannels` channels an application shows the channels that have edges first,
 * then one "+N more channels" node, so 20 applications with 500 channels stay readable; streams of a
 * binding and consumers of a stream collapse the same way (`maxStreams`, `maxConsumers`), so 5,000
 * consumers on one stream are 12 nodes and one "+4988 more consumers" node, not 5,000 to lay out.
 *
 * Every label is display text (`displayText`): what a reader could not see or that changes how the
 * rest reads (controls, line breaks, bidi and zero-width characters) is shown as its code point.
 * Each writer then escapes that text for its own language; no key or attribute is document text.
 */
import type { Topology, TopologyNode } from './projection.js'

/** One fill colour per deployment binding (by its index), shared by every picture. */
export const BINDING_COLOURS = ['#dbeafe', '#dcfce7', '#fef3c7', '#fce7f3', '#e0e7ff', '#ccfbf1', '#fee2e2', '#f3e8ff'] as const

export const bindingColour = (index: number) => BINDING_COLOURS[index % BINDING_COLOURS.length]!

export interface ViewNode {
  /** A short identifier safe in every output (`n0`, `n1`, ...), in projection order. */
  readonly key: string
  readonly label: string
  readonly shape: 'channel' | 'stream' | 'consumer' | 'more'
  /** The projection node it stands for (none for a "+N more" node). */
  readonly node?: TopologyNode
}

export interface ViewGroup {
  readonly key: string
  readonly label: string
  readonly kind: 'application' | 'jetstream'
  /** Index of its deployment binding, for colours. */
  readonly binding: number
  readonly nodes: readonly ViewNode[]
}

export interface ViewEdge {
  readonly from: string
  readonly to: string
  readonly kind: 'link' | 'capture' | 'consumer' | 'import'
  readonly label: string
}

export interface TopologyView {
  readonly groups: readonly ViewGroup[]
  readonly edges: readonly ViewEdge[]
  readonly bindings: readonly string[]
}

export interface ViewOptions {
  /** Channels shown per application before the rest collapse into one node (default 12). */
  readonly maxChannels?: number
  /** Streams shown per deployment binding before the rest (and their consumers) collapse into one node (default 12). */
  readonly maxStreams?: number
  /** Consumers shown per stream before the rest collapse into one node (default 12). */
  readonly maxConsumers?: number
}

/**
 * Characters a picture shows as their code point (`\u{202E}`) instead of as themselves: C0 and C1
 * controls and DEL, line and paragraph separators, bidi embeddings, overrides, isolates and marks
 * (they reorder what follows them on screen, U+202E "abc" reads "cba"), zero-width characters and
 * the byte-order mark, lone surrogates and U+FFFE/U+FFFF (not XML text).
 */
const HIDDEN =
  // eslint-disable-next-line no-control-regex -- the controls are what it finds
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/** Document text as a picture shows it: one pass over the text (linear), every hidden character made visible. */
export function displayText(text: string): string {
  return text.replace(HIDDEN, (c) => `\\u{${c.charCodeAt(0).toString(16).toUpperCase()}}`)
}

/** The word an edge into or out of a collapsed node carries: its own labels would be one per hidden member. */
const COLLAPSED_LABEL: Record<ViewEdge['kind'], string> = { link: 'links', capture: 'captures', consumer: 'consumers', import: 'imports' }

/**
 * The view of a projection. Linear in its size after sorting: every node and edge is visited a
 * bounded number of times (indexes by contract and binding, no scan per application), and the
 * view has at most `apps * (maxChannels + 1) + bindings * (maxStreams * (maxConsumers + 2) + 1)`
 * nodes whatever the number of channels, streams and consumers.
 */
export function topologyView(topology: Topology, options: ViewOptions = {}): TopologyView {
  const maxChannels = options.maxChannels ?? 12
  const maxStreams = options.maxStreams ?? 12
  const maxConsumers = options.maxConsumers ?? 12
  const byId = new Map(topology.nodes.map((n) => [n.id, n]))
  const keyOf = new Map<string, string>()
  /** Keys of the "+N more" nodes: an edge touching one is labelled by its kind, once per pair. */
  const collapsed = new Set<string>()
  let next = 0
  const key = () => `n${next++}`
  const bindings = [...new Set(topology.nodes.filter((n) => n.kind === 'application').map((n) => String(n.data.binding)))].sort()
  const bindingIndex = (binding: unknown) => Math.max(0, bindings.indexOf(String(binding)))
  const channelsOf = new Map<string, TopologyNode[]>()
  const resourcesOf = new Map<string, TopologyNode[]>()
  const push = <T>(map: Map<string, T[]>, k: string, value: T) => {
    const list = map.get(k)
    if (list) list.push(value)
    else map.set(k, [value])
  }
  for (const n of topology.nodes) {
    if (n.kind === 'channel') push(channelsOf, n.contract ?? '', n)
    else if (n.kind === 'stream' || n.kind === 'consumer') push(resourcesOf, String(n.data.binding), n)
  }
  // A channel an edge will touch is shown before the others.
  const touched = new Set<string>()
  const channelOfOperation = new Map<string, string>()
  for (const e of topology.edges) if (e.kind === 'operation-channel') channelOfOperation.set(e.from, e.to)
  for (const e of topology.edges) {
    if (e.kind === 'link') for (const op of [e.from, e.to]) touched.add(channelOfOperation.get(op) ?? '')
    if (e.kind === 'capture') touched.add(e.from)
  }
  const groups: ViewGroup[] = []
  const apps = topology.nodes.filter((n) => n.kind === 'application')
  for (const a of apps) {
    const channels = channelsOf.get(a.contract!) ?? []
    const ordered = [...channels.filter((c) => touched.has(c.id)), ...channels.filter((c) => !touched.has(c.id))]
    const shown = ordered.slice(0, maxChannels)
    const nodes: ViewNode[] = shown.map((c) => {
      const k = key()
      keyOf.set(c.id, k)
      return { key: k, label: displayText(c.label), shape: 'channel', node: c }
    })
    if (ordered.length > shown.length) {
      const k = key()
      collapsed.add(k)
      for (const c of ordered.slice(maxChannels)) keyOf.set(c.id, k)
      nodes.push({ key: k, label: `+${ordered.length - shown.length} more channels`, shape: 'more' })
    }
    const groupKey = key()
    keyOf.set(a.id, groupKey)
    groups.push({ key: groupKey, label: displayText(a.label), kind: 'application', binding: bindingIndex(a.data.binding), nodes })
  }
  for (const binding of bindings) {
    const resources = resourcesOf.get(binding) ?? []
    if (resources.length === 0) continue
    // The first `maxStreams` streams (id order) are shown; the rest, with their consumers, are one node.
    const streamNames = resources.filter((r) => r.kind === 'stream').map((r) => String(r.data.name))
    const declaredStreams = new Set(streamNames)
    const shownStreams = new Set(streamNames.slice(0, maxStreams))
    const consumersShown = new Map<string, number>()
    const hiddenConsumers = new Map<string, TopologyNode[]>()
    const hiddenStreams: TopologyNode[] = []
    const nodes: ViewNode[] = []
    for (const r of resources) {
      if (r.kind === 'stream' && !shownStreams.has(String(r.data.name))) {
        hiddenStreams.push(r)
        continue
      }
      if (r.kind === 'consumer') {
        const stream = String(r.data.stream)
        const count = consumersShown.get(stream) ?? 0
        if (!shownStreams.has(stream) && declaredStreams.has(stream)) {
          hiddenStreams.push(r)
          continue
        }
        if (count >= maxConsumers) {
          push(hiddenConsumers, stream, r)
          continue
        }
        consumersShown.set(stream, count + 1)
      }
      const k = key()
      keyOf.set(r.id, k)
      const owner = r.data.owner ? ` (${String(r.data.owner)})` : ' (external)'
      nodes.push({ key: k, label: displayText(`${r.label}${owner}`), shape: r.kind === 'stream' ? 'stream' : 'consumer', node: r })
    }
    for (const [stream, hidden] of hiddenConsumers) {
      const k = key()
      collapsed.add(k)
      for (const r of hidden) keyOf.set(r.id, k)
      nodes.push({ key: k, label: displayText(`+${hidden.length} more consumers of ${stream}`), shape: 'more' })
    }
    if (hiddenStreams.length > 0) {
      const k = key()
      collapsed.add(k)
      for (const r of hiddenStreams) keyOf.set(r.id, k)
      const streams = hiddenStreams.filter((r) => r.kind === 'stream').length
      const consumers = hiddenStreams.length - streams
      nodes.push({ key: k, label: `+${streams} more streams${consumers > 0 ? ` (${consumers} consumers)` : ''}`, shape: 'more' })
    }
    groups.push({ key: key(), label: displayText(`JetStream ${binding}`), kind: 'jetstream', binding: bindingIndex(binding), nodes })
  }
  const edges: ViewEdge[] = []
  const seen = new Set<string>()
  const add = (from: string | undefined, to: string | undefined, kind: ViewEdge['kind'], label: string) => {
    if (!from || !to) return
    const folded = collapsed.has(from) || collapsed.has(to)
    // Edges into a collapsed node are one per pair and kind: N hidden consumers are one arrow, not N.
    if (folded && from === to) return
    const text = folded ? COLLAPSED_LABEL[kind] : displayText(label)
    const k = `${kind}\u0000${from}\u0000${to}\u0000${text}`
    if (seen.has(k)) return
    seen.add(k)
    edges.push({ from, to, kind, label: text })
  }
  // The operation's own id: the id's part after its application's (whose `/` is encoded), decoded (projection.ts, ids).
  const opName = (id: string) => id.slice(id.indexOf('/') + 1).replace(/%(25|2F|40)/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
  for (const e of topology.edges) {
    if (e.kind === 'link')
      add(keyOf.get(channelOfOperation.get(e.from) ?? ''), keyOf.get(channelOfOperation.get(e.to) ?? ''), 'link', `${opName(e.from)} → ${opName(e.to)}`)
    else if (e.kind === 'capture') add(keyOf.get(e.from), keyOf.get(e.to), 'capture', e.label ?? 'captured')
    else if (e.kind === 'consumer-stream') add(keyOf.get(e.to), keyOf.get(e.from), 'consumer', e.label ?? '')
    else if (e.kind === 'import' && byId.has(e.to)) add(keyOf.get(e.from), keyOf.get(e.to), 'import', `imports ${e.label ?? ''}`.trim())
  }
  return { groups, edges, bindings: bindings.map(displayText) }
}
