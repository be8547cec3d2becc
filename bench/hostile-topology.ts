/**
 * Hostile input families of the topology surface, timed at n and 10n by `bench/complexity.ts`.
 * What is timed is the picture (layout and SVG text) of a projection made beforehand, not a compile:
 * the bundle is compiled once in `run`'s set-up.
 */
import { join } from 'node:path'
import { toSvg, topology } from '../dist/src/index.js'
import { consumerBundle } from './topology-bundles.js'
import type { Family } from './family.js'

/** The SVG picture of the bundle at `dir`, compiled once beforehand: the layout and the text are what is timed. */
const picture = async (dir: string) => {
  const result = await topology(dir)
  if (!result.topology) throw new Error(`the bench bundle ${dir} does not compile: ${JSON.stringify(result.diagnostics.slice(0, 3))}`)
  const projection = result.topology
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
]
