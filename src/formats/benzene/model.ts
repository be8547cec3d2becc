import type { BenzeneDocument, RequestEntry } from './document.js'

/** One in-scope request topic, ready to generate. */
export interface TopicModel {
  entry: RequestEntry
  /** Index in `requests[]`, for pointers. */
  index: number
  exportName: string
  /** Key in the module's `topics` map: the topic id, or `topic@version` when one topic has several versions in scope. */
  mapKey: string
  /** Hash of the topic-scoped projection. */
  hash: string
  /** The topic's schema closure, sorted. */
  components: string[]
}

export interface BenzeneModel {
  file: string
  document: BenzeneDocument
  topics: TopicModel[]
  /** Hash of the projection the module covers (whole-service domain, or the service-level include-list). */
  moduleHash: string
  projection: 'whole-service' | 'service-level'
  /** Where each topic entry starts in the source, for the source map. */
  positions: Map<number, { line: number; column: number }>
}
