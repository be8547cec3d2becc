/**
 * A topology as a self-contained SVG (and an HTML page around it), laid out by ELK (`elkjs`, the
 * Eclipse Layout Kernel's layered algorithm) when it is written: nothing is fetched or computed
 * at view time. Applications and JetStream bindings are boxes with their channels and resources
 * inside, coloured by deployment binding; links dotted, imports thick, captures and consumers
 * plain arrows, each labelled; a legend below. Every text from a document is XML-escaped.
 */
import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js'
import type { Topology } from './projection.js'
import { bindingColour, topologyView, type TopologyView, type ViewEdge, type ViewOptions } from './view.js'

type Elk = new () => { layout(graph: ElkNode): Promise<ElkNode> }
let elk: Promise<Elk> | undefined
/**
 * The bundled (worker-free) ELK: a CommonJS module whose export is the constructor (its types say
 * `default`). Loaded when the first picture is laid out, not with the package: it is a large
 * module (about 140 ms of every process that imports the package root, bench/cold-start.ts).
 */
const loadElk = (): Promise<Elk> => (elk ??= import('elkjs/lib/elk.bundled.js').then((m) => ((m as { default?: unknown }).default ?? m) as unknown as Elk))

const FONT = 12
const CHAR = 7
const NODE_HEIGHT = 30

export function xmlText(text: string): string {
  let out = ''
  for (const c of text) {
    const code = c.codePointAt(0)!
    // Control characters are not XML 1.0 text (tab, line feed and carriage return are): a space instead.
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) || code === 0x2028 || code === 0x2029) out += ' '
    else out += c === '&' || c === '<' || c === '>' || c === '"' || c === "'" ? `&#${code};` : c
  }
  return out
}

const width = (label: string, min = 60) => Math.max(min, label.length * CHAR + 24)

function elkGraph(view: TopologyView): ElkNode {
  return {
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
      'elk.spacing.nodeNode': '18',
      'elk.layered.spacing.nodeNodeBetweenLayers': '48',
      'elk.edgeLabels.inline': 'false',
      'elk.padding': '[top=36,left=16,bottom=16,right=16]',
    },
    children: view.groups.map((g) => ({
      id: g.key,
      layoutOptions: { 'elk.padding': '[top=30,left=12,bottom=12,right=12]' },
      labels: [{ text: g.label, width: width(g.label), height: FONT + 4 }],
      children: g.nodes.map((n) => ({ id: n.key, width: width(n.label), height: NODE_HEIGHT, labels: [{ text: n.label }] })),
    })),
    edges: view.edges.map((e, i): ElkExtendedEdge => ({
      id: `e${i}`,
      sources: [e.from],
      targets: [e.to],
      labels: [{ text: e.label, width: width(e.label, 10), height: FONT }],
    })),
  }
}

/** Absolute positions of every laid-out node, by id. */
function positions(root: ElkNode): Map<string, { x: number; y: number; node: ElkNode }> {
  const out = new Map<string, { x: number; y: number; node: ElkNode }>()
  const stack: Array<[ElkNode, number, number]> = [[root, 0, 0]]
  while (stack.length > 0) {
    const [node, ox, oy] = stack.pop()!
    const x = ox + (node.x ?? 0)
    const y = oy + (node.y ?? 0)
    out.set(node.id, { x, y, node })
    for (const child of node.children ?? []) stack.push([child, x, y])
  }
  return out
}

const EDGE_STYLE: Record<ViewEdge['kind'], string> = {
  link: 'stroke="#7c3aed" stroke-dasharray="5 4"',
  import: 'stroke="#111827" stroke-width="2.5"',
  capture: 'stroke="#2563eb"',
  consumer: 'stroke="#059669"',
}

/** The picture as one SVG document. */
export async function toSvg(topology: Topology, options: ViewOptions = {}): Promise<string> {
  const view = topologyView(topology, options)
  const ELK = await loadElk()
  const laid = await new ELK().layout(elkGraph(view))
  const at = positions(laid)
  const shapes = new Map(view.groups.flatMap((g) => g.nodes.map((n) => [n.key, n.shape] as const)))
  const legendY = (laid.height ?? 0) + 10
  const totalWidth = Math.max(laid.width ?? 0, 560)
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${totalWidth}" height="${legendY + 70}" viewBox="0 0 ${totalWidth} ${legendY + 70}" font-family="Helvetica, Arial, sans-serif" font-size="${FONT}">`,
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#374151"/></marker></defs>',
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
  ]
  for (const g of view.groups) {
    const p = at.get(g.key)!
    out.push(
      `<g class="group ${g.kind}"><rect x="${p.x}" y="${p.y}" width="${p.node.width}" height="${p.node.height}" rx="8" fill="${bindingColour(g.binding)}" stroke="#6b7280"/>`,
      `<text x="${p.x + 10}" y="${p.y + 18}" font-weight="bold">${xmlText(g.label)}</text>`,
    )
    for (const n of g.nodes) {
      const q = at.get(n.key)!
      const [x, y, w, h] = [q.x, q.y, q.node.width ?? 0, q.node.height ?? NODE_HEIGHT]
      const shape = shapes.get(n.key)
      const box =
        shape === 'stream'
          ? `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="14" fill="#ffffff" stroke="#2563eb" stroke-width="1.5"/>`
          : shape === 'consumer'
            ? `<ellipse cx="${x + w / 2}" cy="${y + h / 2}" rx="${w / 2}" ry="${h / 2}" fill="#ffffff" stroke="#059669"/>`
            : shape === 'more'
              ? `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="4" fill="#f9fafb" stroke="#9ca3af" stroke-dasharray="3 3"/>`
              : `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="4" fill="#ffffff" stroke="#374151"/>`
      out.push(`<g class="node ${shape}">${box}<text x="${x + w / 2}" y="${y + h / 2 + 4}" text-anchor="middle">${xmlText(n.label)}</text></g>`)
    }
    out.push('</g>')
  }
  for (const [i, edge] of (laid.edges ?? []).entries()) {
    const e = view.edges[i]!
    const container = at.get((edge as ElkExtendedEdge & { container?: string }).container ?? 'root') ?? { x: 0, y: 0 }
    for (const s of edge.sections ?? []) {
      const points = [s.startPoint, ...(s.bendPoints ?? []), s.endPoint].map((pt) => `${pt.x + container.x},${pt.y + container.y}`)
      out.push(`<polyline class="edge ${e.kind}" points="${points.join(' ')}" fill="none" ${EDGE_STYLE[e.kind]} marker-end="url(#arrow)"/>`)
    }
    for (const label of edge.labels ?? [])
      out.push(
        `<text class="edge-label" x="${(label.x ?? 0) + container.x}" y="${(label.y ?? 0) + container.y + FONT - 2}" font-size="${FONT - 2}" fill="#374151">${xmlText(label.text ?? '')}</text>`,
      )
  }
  // Legend: a swatch per binding, a sample per edge kind.
  let x = 16
  out.push(`<g class="legend"><text x="16" y="${legendY + 14}" font-weight="bold">Legend</text>`)
  view.bindings.forEach((binding, i) => {
    out.push(
      `<rect x="${x}" y="${legendY + 24}" width="14" height="14" fill="${bindingColour(i)}" stroke="#6b7280"/>`,
      `<text x="${x + 20}" y="${legendY + 35}">${xmlText(binding)}</text>`,
    )
    x += width(binding) + 30
  })
  let ex = 16
  for (const [kind, text] of [
    ['link', 'link (verified)'],
    ['import', 'import (locked)'],
    ['capture', 'stream capture'],
    ['consumer', 'consumer'],
  ] as const) {
    out.push(
      `<line x1="${ex}" y1="${legendY + 56}" x2="${ex + 30}" y2="${legendY + 56}" ${EDGE_STYLE[kind]} marker-end="url(#arrow)"/>`,
      `<text x="${ex + 36}" y="${legendY + 60}">${text}</text>`,
    )
    ex += 150
  }
  out.push('</g>', '</svg>')
  return out.join('\n') + '\n'
}

/** A self-contained page: the picture, then every application's channels in full (collapsed past the picture's threshold, expandable). */
export async function toHtml(topology: Topology, options: ViewOptions = {}): Promise<string> {
  const svg = await toSvg(topology, options)
  const apps = topology.nodes.filter((n) => n.kind === 'application')
  const lists = apps.map((a) => {
    const channels = topology.nodes.filter((n) => n.kind === 'channel' && n.contract === a.contract)
    const items = channels.map((c) => `<li><code>${xmlText(c.label)}</code> <small>${xmlText(String(c.data.channel))}</small></li>`).join('')
    return `<details${channels.length <= (options.maxChannels ?? 12) ? ' open' : ''}><summary>${xmlText(a.label)}: ${channels.length} channels (${xmlText(String(a.data.binding))})</summary><ul>${items}</ul></details>`
  })
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Contract topology</title>
<style>body{font-family:Helvetica,Arial,sans-serif;margin:16px;color:#111827}svg{max-width:100%;height:auto;border:1px solid #e5e7eb}details{margin:4px 0}code{font-size:12px}</style>
</head>
<body>
<h1>Contract topology</h1>
<p>Projected from the application contracts; every link, import and capture shown was verified by the compiler.</p>
${svg}
<h2>Channels by application</h2>
${lists.join('\n')}
</body>
</html>
`
}
