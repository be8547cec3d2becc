import type { BenzeneDocument, RequestEntry } from './document.js'
import { schemaClosure } from './closure.js'
import { isReserved } from './scope.js'

/**
 * The three hash inputs (the Benzene contract document's notes on the wire (docs/runtime.md), Benzene Contract Document §5.3 and 6.4). They are different documents and
 * their hashes are never comparable with each other.
 */
export type Projection =
  | { kind: 'whole-service'; document: BenzeneDocument }
  | { kind: 'service-level'; document: BenzeneDocument }
  | { kind: 'topic-scoped'; document: BenzeneDocument }

export function wholeService(doc: BenzeneDocument): Projection {
  return { kind: 'whole-service', document: doc }
}

/** An include-list of topics: `requests` filtered, `events` and `components` whole. */
export function serviceLevel(doc: BenzeneDocument, topics: readonly string[]): Projection {
  const wanted = new Set(topics)
  return { kind: 'service-level', document: { ...doc, requests: doc.requests.filter((entry) => wanted.has(entry.topic)) } }
}

/** One request entry: only that entry, no events, `components.schemas` narrowed to its closure. */
export function topicScoped(doc: BenzeneDocument, entry: RequestEntry, closure?: readonly string[]): Projection {
  const names = closure ?? schemaClosure([entry.request, entry.response], doc.components.schemas)
  // A closure of a few schemas is a plain object (fast property access while it is hashed); a large
  // one starts as a dictionary without a prototype, since building it as a shaped object made a map
  // transition per key (seconds on a long `$ref` chain). Either way `__proto__` is an own key.
  let schemas: BenzeneDocument['components']['schemas']
  if (names.length <= 64) schemas = Object.fromEntries(names.map((name) => [name, doc.components.schemas[name]!]))
  else {
    schemas = Object.create(null) as BenzeneDocument['components']['schemas']
    for (const name of names) schemas[name] = doc.components.schemas[name]!
  }
  return {
    kind: 'topic-scoped',
    document: { ...doc, requests: [entry], events: [], components: { ...doc.components, schemas } },
  }
}

/**
 * The normalization of Benzene Contract Document §6.2: drops `example` from every entry, the top-level
 * `messageEndpoint` and `transports`, and the `reserved` flag; a document that is not topic-scoped
 * also loses every reserved request entry, decided by the 5.1 rule before the flag goes.
 * Everything else, unknown members included, is kept as it stands. Never mutates its input.
 */
export function normalizeProjection(projection: Projection): Record<string, unknown> {
  const { messageEndpoint: _endpoint, transports: _transports, ...rest } = projection.document
  const requests = projection.kind === 'topic-scoped' ? rest.requests : rest.requests.filter((entry) => !isReserved(entry))
  return {
    ...rest,
    requests: requests.map(({ example: _example, reserved: _reserved, ...entry }) => entry),
    events: rest.events.map(({ example: _example, ...entry }) => entry),
  }
}
