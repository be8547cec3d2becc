/**
 * A topology as a self-contained SVG (and an HTML page around it), laid out when it is written:
 * nothing is fetched or computed at view time. Applications and JetStream bindings are boxes with
 * their channels and resources inside, coloured by deployment binding; links dotted, imports thick,
 * captures and consumers plain arrows, each labelled; a legend below, of the kinds drawn. Pages show
 * it at its own size, scrolling sideways when it is wider (`PICTURE_STYLE`).
 *
 * Layout is bounded (`layout.ts`): ELK's layered algorithm up to `ELK_BUDGET` elements of the view,
 * the plain layered layout past it (said so under the legend), and the view itself collapses
 * channels, streams and consumers past its thresholds. Every text from a document is display text
 * (`displayText`) XML-escaped into an element's content; attributes, ids and classes are numbers,
 * fixed words and the view's generated keys, never document text; there is no script and no link.
 */
import { ELK_BUDGET, FONT, elementsOf, width, type Layout } from './layout.js'
import { elkLayout } from './elk-layout.js'
import { layeredLayout } from './layered-layout.js'
import type { Topology, TopologyNode } from './projection.js'
import { bindingColour, displayText, topologyView, type TopologyView, type ViewEdge, type ViewNode, type ViewOptions } from './view.js'

export function xmlText(text: string): string {
  let out = ''
  for (const c of text) {
    const code = c.codePointAt(0)!
    // Control characters, lone surrogates and U+FFFE/U+FFFF are not XML 1.0 text (tab, line feed and
    // carriage return are): a space instead, so no document text can make the picture unparsable.
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) || code === 0x2028 || code === 0x2029) out += ' '
    else if ((code >= 0xd800 && code <= 0xdfff) || code === 0xfffe || code === 0xffff) out += ' '
    else out += c === '&' || c === '<' || c === '>' || c === '"' || c === "'" ? `&#${code};` : c
  }
  return out
}

/** The view laid out by the engine its size allows (`ELK_BUDGET`). */
export async function layoutView(view: TopologyView): Promise<Layout> {
  return elementsOf(view) <= ELK_BUDGET ? elkLayout(view) : layeredLayout(view)
}

const EDGE_STYLE: Record<ViewEdge['kind'], string> = {
  link: 'stroke="#7c3aed" stroke-dasharray="5 4"',
  import: 'stroke="#111827" stroke-width="2.5"',
  capture: 'stroke="#2563eb"',
  consumer: 'stroke="#059669"',
}

/** What the legend says of each kind of arrow and box; it lists only the kinds the picture draws. */
const EDGE_LEGEND: ReadonlyArray<readonly [ViewEdge['kind'], string]> = [
  ['link', 'link (verified)'],
  ['import', 'import (locked)'],
  ['capture', 'stream capture'],
  ['consumer', 'consumer'],
]
const SHAPE_LEGEND: ReadonlyArray<readonly [ViewNode['shape'], string]> = [
  ['channel', 'channel'],
  ['stream', 'stream'],
  ['consumer', 'consumer'],
  ['more', 'collapsed (+N more)'],
]

/** The smallest text the picture draws (edge labels): readable at its own size, which pages keep (`PICTURE_STYLE`). */
export const SMALL_FONT = FONT - 1

/**
 * How a page shows a picture: at its own size in a container that scrolls sideways when the picture
 * is wider than the page, never shrunk to fit (a wide bundle shrunk to a window would draw its labels
 * a few pixels high). The picture goes in `<div class="picture">`.
 */
export const PICTURE_STYLE = '.picture{overflow-x:auto;max-width:100%;border:1px solid #e5e7eb}.picture svg{display:block;max-width:none}'

/** A node's box as the picture draws it, by shape (the legend draws the same). */
function nodeBox(shape: ViewNode['shape'], x: number, y: number, w: number, h: number): string {
  if (shape === 'stream') return `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="14" fill="#ffffff" stroke="#2563eb" stroke-width="1.5"/>`
  if (shape === 'consumer') return `<ellipse cx="${x + w / 2}" cy="${y + h / 2}" rx="${w / 2}" ry="${h / 2}" fill="#ffffff" stroke="#059669"/>`
  if (shape === 'more') return `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="4" fill="#f9fafb" stroke="#9ca3af" stroke-dasharray="3 3"/>`
  return `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="4" fill="#ffffff" stroke="#374151"/>`
}

/** The picture as one SVG document. */
export async function toSvg(topology: Topology, options: ViewOptions = {}): Promise<string> {
  const view = topologyView(topology, options)
  return svgOf(view, await layoutView(view))
}

/** One legend entry: its sample drawn at (x, y) (the row's top), and its text. */
interface LegendEntry {
  readonly kind: string
  readonly text: string
  readonly sample: (x: number, y: number) => string
  readonly sampleWidth: number
}

/** The SVG text of a laid-out view: linear in the view and its labels. */
export function svgOf(view: TopologyView, laid: Layout): string {
  const shapes = new Map(view.groups.flatMap((g) => g.nodes.map((n) => [n.key, n.shape] as const)))
  const note = laid.engine === 'layered' ? `Plain layered layout: ${elementsOf(view)} elements, past the ${ELK_BUDGET} ELK lays out.` : undefined
  const totalWidth = Math.max(laid.width, 560)
  // The legend: a swatch per binding, then a sample of each kind of box and arrow the picture draws
  // (and no other), in rows that wrap at the picture's width.
  const drawnShapes = new Set(shapes.values())
  const drawnEdges = new Set(view.edges.filter((_, i) => (laid.edges[i]?.sections.length ?? 0) > 0).map((e) => e.kind))
  const rows: LegendEntry[][] = [
    view.bindings.map((binding, i) => ({
      kind: 'binding',
      text: binding,
      sampleWidth: 14,
      sample: (x: number, y: number) => `<rect x="${x}" y="${y + 1}" width="14" height="14" fill="${bindingColour(i)}" stroke="#6b7280"/>`,
    })),
    SHAPE_LEGEND.filter(([shape]) => drawnShapes.has(shape)).map(([shape, text]) => ({
      kind: `node ${shape}`,
      text,
      sampleWidth: 30,
      sample: (x: number, y: number) => nodeBox(shape, x, y, 30, 16),
    })),
    EDGE_LEGEND.filter(([kind]) => drawnEdges.has(kind)).map(([kind, text]) => ({
      kind: `edge ${kind}`,
      text,
      sampleWidth: 30,
      sample: (x: number, y: number) => `<line x1="${x}" y1="${y + 8}" x2="${x + 30}" y2="${y + 8}" ${EDGE_STYLE[kind]} marker-end="url(#arrow)"/>`,
    })),
  ]
  const legendY = laid.height + 10
  const placed: string[] = []
  let rowY = legendY + 22
  for (const row of rows.filter((r) => r.length > 0)) {
    let x = 16
    for (const entry of row) {
      const entryWidth = entry.sampleWidth + 6 + width(entry.text, 0) - 24
      if (x > 16 && x + entryWidth > totalWidth - 16) {
        x = 16
        rowY += 22
      }
      placed.push(
        `<g class="legend-entry" data-kind="${entry.kind}">${entry.sample(x, rowY)}<text x="${x + entry.sampleWidth + 6}" y="${rowY + 12}">${xmlText(entry.text)}</text></g>`,
      )
      x += entryWidth + 24
    }
    rowY += 22
  }
  const legendHeight = rowY - legendY + (note ? 16 : 0)
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${totalWidth}" height="${legendY + legendHeight}" viewBox="0 0 ${totalWidth} ${legendY + legendHeight}" font-family="Helvetica, Arial, sans-serif" font-size="${FONT}">`,
    // The arrowhead in the picture's units: the same size on a thin link and on a thick import.
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#374151"/></marker></defs>',
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
  ]
  for (const g of view.groups) {
    const p = laid.boxes.get(g.key)!
    out.push(
      `<g class="group ${g.kind}"><rect x="${p.x}" y="${p.y}" width="${p.width}" height="${p.height}" rx="8" fill="${bindingColour(g.binding)}" stroke="#6b7280"/>`,
      `<text x="${p.x + 10}" y="${p.y + 18}" font-weight="bold">${xmlText(g.label)}</text>`,
    )
    for (const n of g.nodes) {
      const { x, y, width: w, height: h } = laid.boxes.get(n.key)!
      const shape = shapes.get(n.key)!
      out.push(
        `<g class="node ${shape}">${nodeBox(shape, x, y, w, h)}<text x="${x + w / 2}" y="${y + h / 2 + 4}" text-anchor="middle">${xmlText(n.label)}</text></g>`,
      )
    }
    out.push('</g>')
  }
  for (const [i, edge] of laid.edges.entries()) {
    const e = view.edges[i]!
    for (const s of edge.sections)
      out.push(
        `<polyline class="edge ${e.kind}" points="${s.map((pt) => `${pt.x},${pt.y}`).join(' ')}" fill="none" ${EDGE_STYLE[e.kind]} marker-end="url(#arrow)"/>`,
      )
    for (const label of edge.labels)
      out.push(`<text class="edge-label" x="${label.x}" y="${label.y + SMALL_FONT - 1}" font-size="${SMALL_FONT}" fill="#374151">${xmlText(label.text)}</text>`)
  }
  out.push(`<g class="legend"><text x="16" y="${legendY + 14}" font-weight="bold">Legend</text>`, ...placed)
  if (note) out.push(`<text class="layout-note" x="16" y="${rowY + 8}" fill="#6b7280">${xmlText(note)}</text>`)
  out.push('</g>', '</svg>')
  return out.join('\n') + '\n'
}

/** A self-contained page: the picture, then every application's channels in full (collapsed past the picture's threshold, expandable). */
export async function toHtml(topology: Topology, options: ViewOptions = {}): Promise<string> {
  const svg = await toSvg(topology, options)
  const apps = topology.nodes.filter((n) => n.kind === 'application')
  // Channels by application, indexed once: the page is linear in the projection.
  const channelsOf = new Map<string, TopologyNode[]>()
  for (const n of topology.nodes) {
    if (n.kind !== 'channel') continue
    const list = channelsOf.get(n.contract ?? '')
    if (list) list.push(n)
    else channelsOf.set(n.contract ?? '', [n])
  }
  const text = (value: unknown) => xmlText(displayText(String(value)))
  const lists = apps.map((a) => {
    const channels = channelsOf.get(a.contract ?? '') ?? []
    const items = channels.map((c) => `<li><code>${text(c.label)}</code> <small>${text(c.data.channel)}</small></li>`).join('')
    return `<details${channels.length <= (options.maxChannels ?? 12) ? ' open' : ''}><summary>${text(a.label)}: ${channels.length} channels (${text(a.data.binding)})</summary><ul>${items}</ul></details>`
  })
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Contract topology</title>
<style>body{font-family:Helvetica,Arial,sans-serif;margin:16px;color:#111827}${PICTURE_STYLE}details{margin:4px 0}code{font-size:12px}</style>
</head>
<body>
<h1>Contract topology</h1>
<p>Projected from the application contracts; every link, import and capture shown was verified by the compiler.</p>
<div class="picture">${svg}</div>
<h2>Channels by application</h2>
${lists.join('\n')}
</body>
</html>
`
}
