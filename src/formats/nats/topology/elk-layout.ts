/**
 * ELK (`elkjs`, the Eclipse Layout Kernel's layered algorithm) for views within `ELK_BUDGET`:
 * the picture of every bundle of a readable size, deterministic.
 */
import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js'
import { FONT, NODE_HEIGHT, width, type Box, type LaidEdge, type Layout } from './layout.js'
import type { TopologyView } from './view.js'

type Elk = new () => { layout(graph: ElkNode): Promise<ElkNode> }
// Module-level by design: the layout library, loaded once per process; no document's facts.
let elk: Promise<Elk> | undefined
/**
 * The bundled (worker-free) ELK: a CommonJS module whose export is the constructor (its types say
 * `default`). Loaded when the first picture is laid out, not with the package: it is a large
 * module (about 140 ms of every process that imports the package root, bench/cold-start.ts).
 */
const loadElk = (): Promise<Elk> => (elk ??= import('elkjs/lib/elk.bundled.js').then((m) => ((m as { default?: unknown }).default ?? m) as unknown as Elk))

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

export async function elkLayout(view: TopologyView): Promise<Layout> {
  const ELK = await loadElk()
  const laid = await new ELK().layout(elkGraph(view))
  // Absolute positions: ELK gives each node relative to its parent.
  const boxes = new Map<string, Box>()
  const stack: Array<[ElkNode, number, number]> = [[laid, 0, 0]]
  while (stack.length > 0) {
    const [node, ox, oy] = stack.pop()!
    const x = ox + (node.x ?? 0)
    const y = oy + (node.y ?? 0)
    boxes.set(node.id, { x, y, width: node.width ?? 0, height: node.height ?? NODE_HEIGHT })
    for (const child of node.children ?? []) stack.push([child, x, y])
  }
  const edges = (laid.edges ?? []).map((edge): LaidEdge => {
    const container = boxes.get((edge as ElkExtendedEdge & { container?: string }).container ?? 'root') ?? { x: 0, y: 0 }
    return {
      sections: (edge.sections ?? []).map((s) =>
        [s.startPoint, ...(s.bendPoints ?? []), s.endPoint].map((pt) => ({ x: pt.x + container.x, y: pt.y + container.y })),
      ),
      labels: (edge.labels ?? []).map((label) => ({ x: (label.x ?? 0) + container.x, y: (label.y ?? 0) + container.y, text: label.text ?? '' })),
    }
  })
  return { engine: 'elk', width: laid.width ?? 0, height: laid.height ?? 0, boxes, edges }
}
