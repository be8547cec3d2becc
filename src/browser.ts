/**
 * The package root as a browser bundle resolves it (the `browser` condition of `exports`): the
 * exports that compute from data they are given and read no file, so that a dashboard drawing the
 * `?topology` module of a bundle bundles for the browser. The compiler (`compile`, `topology`,
 * `ContractCompiler`, ...) reads contract files and stays Node's: a browser bundle importing it
 * fails to build, naming the missing export, rather than failing when it runs.
 */
export { toDot } from './formats/nats/topology/dot.js'
export { toMermaid } from './formats/nats/topology/mermaid.js'
export { globalSubjectParser } from './formats/nats/topology/parser.js'
export type { ChannelIdentity, GlobalSubjectParser, Topology, TopologyEdge, TopologyNode, ViewOptions } from './formats/nats/topology/index.js'
import type { Topology, ViewOptions } from './formats/nats/topology/index.js'

/** The topology as an SVG picture (laid out by ELK, or by the built-in layered layout past its budget). */
export async function toSvg(topology: Topology, options: ViewOptions = {}): Promise<string> {
  return (await import('./formats/nats/topology/svg.js')).toSvg(topology, options)
}

/** The topology as a self-contained HTML page around its SVG picture. */
export async function toHtml(topology: Topology, options: ViewOptions = {}): Promise<string> {
  return (await import('./formats/nats/topology/svg.js')).toHtml(topology, options)
}
