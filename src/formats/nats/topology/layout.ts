/**
 * Where a picture's boxes and arrows go, whichever engine placed them: ELK's layered algorithm up to
 * `ELK_BUDGET` elements, the plain layered layout of `layered-layout.ts` past it. ELK's cost grows
 * faster than its input (5,000 consumers on one stream took 270 s and 1.31 GB); below the budget it
 * is a bounded constant, above it the picture costs O((V + E) log (V + E)) at most.
 */
import type { TopologyView } from './view.js'

export const FONT = 12
export const CHAR = 7
export const NODE_HEIGHT = 30

/**
 * The most elements (groups, nodes and edges of the view) ELK lays out. Measured on this machine
 * (`bench/hostile-topology.ts`), ELK on 600 elements of the densest view shape (one group, every
 * node joined to one) takes under 3 s; a view past it goes to the plain layout.
 */
export const ELK_BUDGET = 600

/** The width a label takes (an estimate: no fonts are measured when a picture is written). */
export const width = (label: string, min = 60) => Math.max(min, label.length * CHAR + 24)

export interface Point {
  readonly x: number
  readonly y: number
}

export interface Box extends Point {
  readonly width: number
  readonly height: number
}

export interface LaidEdge {
  /** Polylines in absolute coordinates (ELK may split an edge into several sections). */
  readonly sections: ReadonlyArray<readonly Point[]>
  /** Top-left corners of the labels, absolute. */
  readonly labels: ReadonlyArray<Point & { readonly text: string }>
}

export interface Layout {
  readonly engine: 'elk' | 'layered'
  readonly width: number
  readonly height: number
  /** Every group and node of the view by its key, absolute. */
  readonly boxes: ReadonlyMap<string, Box>
  /** In the order of the view's edges. */
  readonly edges: readonly LaidEdge[]
}

/** The elements a layout engine places: what `ELK_BUDGET` counts. */
export const elementsOf = (view: TopologyView) => view.groups.reduce((sum, g) => sum + 1 + g.nodes.length, 0) + view.edges.length
