/** The global topology of NATS contracts: the projection, its pictures and the global subject parser. */
export {
  project,
  topology,
  type Topology,
  type TopologyEdge,
  type TopologyEdgeKind,
  type TopologyNode,
  type TopologyNodeKind,
  type TopologyResult,
} from './projection.js'
export { toMermaid } from './mermaid.js'
export { toDot } from './dot.js'
export { toHtml, toSvg } from './svg.js'
export { globalSubjectParser, type ChannelIdentity, type GlobalSubjectParser } from './parser.js'
export type { ViewOptions } from './view.js'
