/**
 * What a picture of a topology shows, shared by the Mermaid and DOT writers: applications as groups
 * with their channels inside, one group of JetStream streams and consumers per deployment binding,
 * and the verified edges between them (links from channel to channel, captures, consumers, imports).
 * Beyond `maxChannels` channels an application shows the channels that have edges first, then one
 * "+N more channels" node, so 20 applications with 500 channels stay readable.
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
}

export function topologyView(topology: Topology, options: ViewOptions = {}): TopologyView {
  const maxChannels = options.maxChannels ?? 12
  const byId = new Map(topology.nodes.map((n) => [n.id, n]))
  const keyOf = new Map<string, string>()
  let next = 0
  const key = () => `n${next++}`
  const bindings = [...new Set(topology.nodes.filter((n) => n.kind === 'application').map((n) => String(n.data.binding)))].sort()
  const bindingIndex = (binding: unknown) => Math.max(0, bindings.indexOf(String(binding)))
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
    const contract = a.contract!
    const channels = topology.nodes.filter((n) => n.kind === 'channel' && n.contract === contract)
    const ordered = [...channels.filter((c) => touched.has(c.id)), ...channels.filter((c) => !touched.has(c.id))]
    const shown = ordered.slice(0, maxChannels)
    const nodes: ViewNode[] = shown.map((c) => {
      const k = key()
      keyOf.set(c.id, k)
      return { key: k, label: c.label, shape: 'channel', node: c }
    })
    if (ordered.length > shown.length) {
      const k = key()
      for (const c of ordered.slice(maxChannels)) keyOf.set(c.id, k)
      nodes.push({ key: k, label: `+${ordered.length - shown.length} more channels`, shape: 'more' })
    }
    const groupKey = key()
    keyOf.set(a.id, groupKey)
    groups.push({ key: groupKey, label: a.label, kind: 'application', binding: bindingIndex(a.data.binding), nodes })
  }
  for (const binding of bindings) {
    const resources = topology.nodes.filter((n) => (n.kind === 'stream' || n.kind === 'consumer') && n.data.binding === binding)
    if (resources.length === 0) continue
    const nodes: ViewNode[] = resources.map((r) => {
      const k = key()
      keyOf.set(r.id, k)
      const owner = r.data.owner ? ` (${String(r.data.owner)})` : ' (external)'
      return { key: k, label: `${r.label}${owner}`, shape: r.kind === 'stream' ? 'stream' : 'consumer', node: r }
    })
    groups.push({ key: key(), label: `JetStream ${binding}`, kind: 'jetstream', binding: bindingIndex(binding), nodes })
  }
  const edges: ViewEdge[] = []
  const seen = new Set<string>()
  const push = (edge: ViewEdge | undefined) => {
    if (!edge) return
    const k = `${edge.kind}\u0000${edge.from}\u0000${edge.to}\u0000${edge.label}`
    if (seen.has(k)) return
    seen.add(k)
    edges.push(edge)
  }
  const opName = (id: string) => id.slice(id.indexOf('/') + 1)
  for (const e of topology.edges) {
    if (e.kind === 'link') {
      const from = keyOf.get(channelOfOperation.get(e.from) ?? '')
      const to = keyOf.get(channelOfOperation.get(e.to) ?? '')
      if (from && to) push({ from, to, kind: 'link', label: `${opName(e.from)} → ${opName(e.to)}` })
    } else if (e.kind === 'capture') {
      const from = keyOf.get(e.from)
      const to = keyOf.get(e.to)
      if (from && to) push({ from, to, kind: 'capture', label: e.label ?? 'captured' })
    } else if (e.kind === 'consumer-stream') {
      const from = keyOf.get(e.to)
      const to = keyOf.get(e.from)
      if (from && to) push({ from, to, kind: 'consumer', label: e.label ?? '' })
    } else if (e.kind === 'import') {
      const from = keyOf.get(e.from)
      const to = keyOf.get(e.to)
      if (from && to && byId.has(e.to)) push({ from, to, kind: 'import', label: `imports ${e.label ?? ''}`.trim() })
    }
  }
  return { groups, edges, bindings }
}
