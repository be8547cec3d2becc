/**
 * The plain layered layout, for views past `ELK_BUDGET`: groups in columns by the direction of
 * their edges (applications, then what they feed), each group's nodes in sub-columns of at most
 * `ROWS`, edges drawn straight from the right side of their source to the left side of their
 * target. Deterministic (only the view's order decides) and linear: every group, node and edge is
 * visited a bounded number of times, so O(V + E) time and memory whatever the view's shape.
 */
import { FONT, NODE_HEIGHT, width, type Box, type LaidEdge, type Layout } from './layout.js'
import type { TopologyView } from './view.js'

/** Nodes stacked in one sub-column of a group before the next one starts. */
const ROWS = 20
const COLUMN_GAP = 96
const GROUP_GAP = 24
const NODE_GAP = 18
const SUB_GAP = 24
const PAD = { top: 30, left: 12, bottom: 12, right: 12 }
const MARGIN = { top: 36, left: 16, bottom: 16, right: 16 }

/**
 * Columns of groups: a group's column is one past the furthest column of the groups with an edge
 * into it (Kahn's order; a FIFO queue, so the first ready group in view order goes first). A cycle
 * (two applications linked both ways) is broken at its first group in view order, whose edges from
 * groups not yet placed are ignored. O(V + E).
 */
function columns(view: TopologyView): number[] {
  const groupOf = new Map<string, number>()
  view.groups.forEach((g, i) => {
    groupOf.set(g.key, i)
    for (const n of g.nodes) groupOf.set(n.key, i)
  })
  const count = view.groups.length
  const into: number[][] = Array.from({ length: count }, () => [])
  const out: number[][] = Array.from({ length: count }, () => [])
  const waiting = new Array<number>(count).fill(0)
  for (const e of view.edges) {
    const from = groupOf.get(e.from)
    const to = groupOf.get(e.to)
    if (from === undefined || to === undefined || from === to) continue
    out[from]!.push(to)
    into[to]!.push(from)
    waiting[to]!++
  }
  const column = new Array<number>(count).fill(-1)
  const queue: number[] = []
  for (let i = 0; i < count; i++) if (waiting[i] === 0) queue.push(i)
  let head = 0
  let scan = 0
  for (let placed = 0; placed < count; placed++) {
    let g: number
    if (head < queue.length) g = queue[head++]!
    else {
      // Only cycles are left: the first unplaced group in view order goes next (the scan only moves forward).
      while (column[scan] !== -1) scan++
      g = scan
    }
    let c = 0
    for (const p of into[g]!) if (column[p]! >= 0) c = Math.max(c, column[p]! + 1)
    column[g] = c
    for (const t of out[g]!) if (--waiting[t]! === 0 && column[t] === -1) queue.push(t)
  }
  return column
}

export function layeredLayout(view: TopologyView): Layout {
  const column = columns(view)
  const boxes = new Map<string, Box>()
  // Each group's size and its nodes' offsets inside it.
  const sizes = view.groups.map((g) => {
    const subWidths: number[] = []
    g.nodes.forEach((n, i) => {
      const sub = Math.floor(i / ROWS)
      subWidths[sub] = Math.max(subWidths[sub] ?? 0, width(n.label))
    })
    const rows = Math.min(ROWS, g.nodes.length)
    const inner = subWidths.reduce((sum, w) => sum + w, 0) + SUB_GAP * Math.max(0, subWidths.length - 1)
    return {
      subWidths,
      width: Math.max(PAD.left + inner + PAD.right, width(g.label) + PAD.left + PAD.right),
      height: PAD.top + Math.max(rows * (NODE_HEIGHT + NODE_GAP) - NODE_GAP, FONT) + PAD.bottom,
    }
  })
  const columnCount = column.reduce((max, c) => Math.max(max, c + 1), 0)
  const columnWidth = new Array<number>(columnCount).fill(0)
  view.groups.forEach((_, i) => (columnWidth[column[i]!] = Math.max(columnWidth[column[i]!]!, sizes[i]!.width)))
  const columnX: number[] = []
  let x = MARGIN.left
  for (let c = 0; c < columnCount; c++) {
    columnX.push(x)
    x += columnWidth[c]! + COLUMN_GAP
  }
  const columnY = new Array<number>(columnCount).fill(MARGIN.top)
  let height = MARGIN.top
  view.groups.forEach((g, i) => {
    const c = column[i]!
    const size = sizes[i]!
    const gx = columnX[c]!
    const gy = columnY[c]!
    columnY[c] = gy + size.height + GROUP_GAP
    height = Math.max(height, gy + size.height)
    boxes.set(g.key, { x: gx, y: gy, width: size.width, height: size.height })
    let subX = gx + PAD.left
    g.nodes.forEach((n, j) => {
      const sub = Math.floor(j / ROWS)
      if (j > 0 && j % ROWS === 0) subX += size.subWidths[sub - 1]! + SUB_GAP
      boxes.set(n.key, { x: subX, y: gy + PAD.top + (j % ROWS) * (NODE_HEIGHT + NODE_GAP), width: width(n.label), height: NODE_HEIGHT })
    })
  })
  const edges = view.edges.map((e): LaidEdge => {
    const from = boxes.get(e.from)
    const to = boxes.get(e.to)
    if (!from || !to) return { sections: [], labels: [] }
    const start = { x: from.x + from.width, y: from.y + from.height / 2 }
    const end = { x: to.x, y: to.y + to.height / 2 }
    const label = { x: (start.x + end.x) / 2 - width(e.label, 10) / 2, y: (start.y + end.y) / 2 - FONT, text: e.label }
    return { sections: [[start, end]], labels: e.label ? [label] : [] }
  })
  const totalWidth = columnCount === 0 ? MARGIN.left + MARGIN.right : x - COLUMN_GAP + MARGIN.right
  return { engine: 'layered', width: totalWidth, height: height + MARGIN.bottom, boxes, edges }
}
