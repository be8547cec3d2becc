import type { HashAnswer, HashSelector, Inspection } from '../../core/format.js'
import type { BenzeneModel } from './model.js'

/**
 * What `contracts inspect --json` prints for a Benzene document. One key rule for requests and events:
 * the topic id, or `topic@version` when the topic has several versions in scope (among its own list).
 */
export interface BenzeneInspection {
  format: 'benzene'
  /** In-scope request topics, in document order. */
  topics: string[]
  /** Each in-scope request entry with the key it has in `closure` and `hashes.topics`, and the name the module exports it as. */
  entries: Array<{ key: string; topic: string; version?: string; exportName: string }>
  /** In-scope events, in document order, keyed by the same rule as requests. */
  events: string[]
  /** Each in-scope event's key in the module's `events` map (its name, chosen like a request's export name). */
  eventNames: Record<string, string>
  /** Each in-scope topic's schema closure, sorted. */
  closure: Record<string, string[]>
  hashes: {
    /** Whole-service domain hash, or the service-level include-list hash when there is an include-list. */
    service: string
    /** Topic-scoped hash of each in-scope topic. */
    topics: Record<string, string>
  }
}

/** The inspection, read off the model: the same scope, closures and hashes the module embeds. */
export function inspectBenzene(model: BenzeneModel): Inspection {
  // fromEntries: topic ids such as `__proto__` become keys, never prototypes.
  const data: BenzeneInspection = {
    format: 'benzene',
    topics: [...new Set(model.topics.map((t) => t.mapKey))],
    entries: model.topics.map((t) => ({
      key: t.mapKey,
      topic: t.entry.topic,
      ...(t.entry.version === undefined ? {} : { version: t.entry.version }),
      exportName: t.exportName,
    })),
    events: model.events.map((e) => e.mapKey),
    eventNames: Object.fromEntries(model.events.map((e) => [e.mapKey, e.exportName])),
    closure: Object.fromEntries(model.topics.map((t) => [t.mapKey, t.components])),
    hashes: { service: model.moduleHash, topics: Object.fromEntries(model.topics.map((t) => [t.mapKey, t.hash])) },
  }
  const text = [`benzene contract ${model.file}`, `service hash: ${data.hashes.service}`]
  for (const t of model.topics) text.push(`  topic ${t.mapKey}  ${t.hash}  (export ${t.exportName})`)
  for (const e of model.events) text.push(`  event ${e.mapKey}  (events.${e.exportName})`)
  return { data, text }
}

/**
 * `contracts hash`: the module's hash (whole-service, or service-level with an include-list), or
 * with `topic` the topic-scoped hash of that topic's one entry (`version` picks among several).
 */
export function hashBenzene(model: BenzeneModel, selector: HashSelector): HashAnswer {
  if (selector.topic === undefined) return { hash: model.moduleHash }
  const entries = model.topics.filter((t) => t.entry.topic === selector.topic)
  const matching = entries.filter((t) =>
    selector.unversioned ? t.entry.version === undefined : selector.version === undefined || t.entry.version === selector.version,
  )
  if (matching.length === 1) return { hash: matching[0]!.hash }
  const choices = entries.map((t) => (t.entry.version === undefined ? `${selector.topic} --unversioned` : `${selector.topic} --version ${t.entry.version}`))
  return {
    usage: `${matching.length === 0 ? 'no' : 'more than one'} entry of ${JSON.stringify(selector.topic)} matches in ${model.file}; pick one of: ${choices.join(', ')}.`,
  }
}
