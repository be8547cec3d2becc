import type { Diagnostic } from '../../core/diagnostics.js'
import type { ImportQuery } from '../../core/format.js'
import type { JsonSource } from '../../core/json-source.js'
import { schemaClosure } from './closure.js'
import { entryLabel, type BenzeneDocument } from './document.js'
import { contractHash } from './hash.js'
import { resolveScope, scopeOptions } from './normalize-model.js'
import type { BenzeneOptions } from './options.js'
import { serviceLevel, topicScoped, wholeService } from './projection.js'

/** What `contracts inspect --json` prints for a Benzene document. Keys are `topic` or `topic@version`. */
export interface BenzeneInspection {
  format: 'benzene'
  /** In-scope request topics, in document order. */
  topics: string[]
  /** Each in-scope request entry with the key it has in `closure` and `hashes.topics`. */
  entries: Array<{ key: string; topic: string; version?: string }>
  events: string[]
  /** Each in-scope topic's schema closure, sorted. */
  closure: Record<string, string[]>
  hashes: {
    /** Whole-service domain hash, or the service-level include-list hash when there is an include-list. */
    service: string
    /** Topic-scoped hash of each in-scope topic. */
    topics: Record<string, string>
  }
}

export function inspectBenzene(source: JsonSource, query: ImportQuery, options: BenzeneOptions | undefined): { data?: BenzeneInspection; diagnostics: Diagnostic[] } {
  const doc = source.value as BenzeneDocument
  const diagnostics: Diagnostic[] = []
  const effective = scopeOptions(query, options)
  const scope = resolveScope(source, doc, effective, diagnostics)
  if (!scope) return { diagnostics }
  // A topic with several versions in scope is keyed `topic@version`, like the module's `topics` map.
  const counts = new Map<string, number>()
  for (const entry of scope.entries) counts.set(entry.topic, (counts.get(entry.topic) ?? 0) + 1)
  const key = (entry: (typeof scope.entries)[number]) => ((counts.get(entry.topic) ?? 0) > 1 ? entryLabel(entry) : entry.topic)
  const data: BenzeneInspection = {
    format: 'benzene',
    topics: [...new Set(scope.entries.map(key))],
    entries: scope.entries.map((entry) => ({ key: key(entry), topic: entry.topic, ...(entry.version === undefined ? {} : { version: entry.version }) })),
    events: doc.events.map(entryLabel),
    // fromEntries: topic ids such as `__proto__` become keys, never prototypes.
    closure: Object.fromEntries(scope.entries.map((entry) => [key(entry), schemaClosure([entry.request, entry.response], doc.components.schemas)])),
    hashes: {
      service: contractHash(scope.hasIncludeList ? serviceLevel(doc, effective.topics!) : wholeService(doc)),
      topics: Object.fromEntries(scope.entries.map((entry) => [key(entry), contractHash(topicScoped(doc, entry))])),
    },
  }
  return { data, diagnostics }
}
