import type { BenzeneDocument, EventEntry, RequestEntry } from '../../runtime/benzene/document.js'
import type { JsonSource } from '../../core/json-source.js'
import type { NamedEntry } from './naming.js'
import type { SchemaFacts } from './schema-facts.js'
import type { BenzeneOptions } from './options.js'

/** One in-scope request topic, ready to generate. */
export interface TopicModel extends NamedEntry<RequestEntry> {
  /** Hash of the topic-scoped projection. */
  hash: string
  /** The topic's schema closure, sorted. */
  components: string[]
}

export type EventModel = NamedEntry<EventEntry>

/** The projection the module's `contractHash` covers, as drift checks need to recompute it. */
export type ModuleProjection = { kind: 'whole-service' } | { kind: 'service-level'; topics: string[] }

/** What the check stage hands to the model stage: the source, and the facts its rules derived (schema-facts.ts). */
export interface BenzeneChecked {
  source: JsonSource
  facts: SchemaFacts
}

export interface BenzeneModel {
  file: string
  document: BenzeneDocument
  /** The facts the check stage derived, read by the generators (hierarchy, merges). */
  facts: SchemaFacts
  topics: TopicModel[]
  events: EventModel[]
  /** Hash of `projection`. */
  moduleHash: string
  projection: ModuleProjection
  options: Required<Pick<BenzeneOptions, 'validate' | 'int64' | 'validators'>>
  /** Where each entry starts in the source (`/requests/3`, `/events/0`), for the source map. */
  positions: Map<string, { line: number; column: number }>
  /**
   * The text the model was made from, with its line index, so `contracts diff` can place any node
   * (not only the entries `positions` holds). The source's file, text and lines only: its `locate`
   * may hold a syntax tree of the whole document, and compiled models are kept in the compiler's
   * cache. Non-enumerable: nothing that lists the model's members shows it.
   */
  readonly source: Pick<JsonSource, 'file' | 'text' | 'lines'>
}
