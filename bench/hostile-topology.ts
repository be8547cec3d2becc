/**
 * Hostile input families of the topology surface, timed at n and 10n by `bench/complexity.ts`.
 * What is timed is the picture (layout and SVG text) of a projection made beforehand, not a compile:
 * the issue's bundle is compiled once in `run`'s set-up; the larger shapes are projections written
 * by hand (`syntheticProjection`), so that compiling a thousand documents is not the bench's set-up.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { toSvg, topology, type Topology } from '../dist/src/index.js'
import { layeredLayout } from '../dist/src/formats/nats/topology/layered-layout.js'
import { svgOf } from '../dist/src/formats/nats/topology/svg.js'
import { topologyView } from '../dist/src/formats/nats/topology/view.js'
import { consumerBundle, syntheticProjection } from './topology-bundles.js'
import type { Family } from './family.js'

/** The SVG picture of the bundle at `dir`, compiled once beforehand: the layout and the text are what is timed. */
const projectionOf = async (dir: string) => {
  const result = await topology(dir)
  if (!result.topology) throw new Error(`the bench bundle ${dir} does not compile: ${JSON.stringify(result.diagnostics.slice(0, 3))}`)
  return result.topology
}
const picture = async (dir: string) => {
  const projection = await projectionOf(dir)
  return () => toSvg(projection)
}

export const families: Family[] = [
  {
    // Collapsed past the view's threshold: the picture stays the same size, only the projection grows.
    name: 'topology picture, consumers of one stream',
    n: 500,
    make: (n, d) => consumerBundle(d, n),
    run: picture,
    grows: (dir) => join(dir, 'crowd/asyncapi.yaml'),
  },
  {
    // Nothing collapsed (every consumer a node): the plain layered layout and the SVG text of 2,000 and 20,000 nodes.
    name: 'topology plain layout, consumers uncollapsed',
    n: 2000,
    make: (n, d) => syntheticProjection(d, 1, 1, n),
    run: (file) => {
      const view = topologyView(JSON.parse(readFileSync(file, 'utf8')) as Topology, { maxConsumers: Infinity })
      return () => svgOf(view, layeredLayout(view))
    },
  },
  {
    // Applications past the ELK budget at both sizes (100 and 1,000 applications of 5 channels), drawn with the defaults.
    name: 'topology picture, applications past the ELK budget',
    n: 100,
    make: (n, d) => syntheticProjection(d, n, 5),
    run: (file) => {
      const projection = JSON.parse(readFileSync(file, 'utf8')) as Topology
      return () => toSvg(projection)
    },
  },
]
