import type { BenzeneDocument, RequestEntry } from './document.js'

/** Benzene Contract Document §5.1: reserved when the flag is true OR the topic starts with `benzene:` (case-sensitive). */
export function isReserved(entry: { topic: string; reserved?: unknown }): boolean {
  return entry.reserved === true || entry.topic.startsWith('benzene:')
}

/** Benzene Contract Document §3 and §5.1: an event entry has no flag, so only the `benzene:` prefix marks it reserved. */
export function isReservedEvent(entry: { topic: string }): boolean {
  return entry.topic.startsWith('benzene:')
}

export interface ScopeRequest {
  /** The include-list; absent or empty means "no include-list". */
  topics?: readonly string[]
  includeReserved?: boolean
}

export interface Scope {
  /** In-scope request entries, in document order. */
  entries: RequestEntry[]
  /** Whether an include-list decided the scope (and so which projection the module hash covers). */
  hasIncludeList: boolean
  /** Include-list names the document does not have (Benzene Contract Document §5.2: fail loud). */
  unknownTopics: string[]
  /** Every request topic id of the document, for the fail-loud message. */
  validTopics: string[]
}

/** Benzene Contract Document §5.1 and §5.2: which request topics are in scope. */
export function selectScope(doc: BenzeneDocument, request: ScopeRequest): Scope {
  const validTopics = [...new Set(doc.requests.map((entry) => entry.topic))]
  const list = request.topics?.filter((t) => t !== '') ?? []
  if (list.length === 0) {
    const entries = doc.requests.filter((entry) => request.includeReserved || !isReserved(entry))
    return { entries, hasIncludeList: false, unknownTopics: [], validTopics }
  }
  const wanted = new Set(list)
  const known = new Set(validTopics)
  return {
    // The include-list overrides 5.1 entirely: a named reserved topic is admitted.
    entries: doc.requests.filter((entry) => wanted.has(entry.topic)),
    hasIncludeList: true,
    unknownTopics: [...wanted].filter((t) => !known.has(t)),
    validTopics,
  }
}
