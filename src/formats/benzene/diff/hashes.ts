/**
 * The contract hashes a deployed client can embed (Benzene Contract Document §6, projections §5.2-5.3
 * and 6.4), computed for both versions by the compiler's own hash functions: the whole-service hash,
 * the include-list (service-level) hash when the compile has an include-list, and every request
 * topic's topic-scoped hash (reserved topics included: a client may be generated for one by asking).
 * Each is compared only with the same projection of the other version.
 *
 * Cost: one whole-document hash per version, plus a topic-scoped hash per request entry the model has
 * not already hashed (the model hashes every in-scope topic): O(sum of the topics' closures).
 */
import type { DiffAudience, DiffFinding } from '../../../core/diff/types.js'
import type { RequestEntry } from '../../../runtime/benzene/document.js'
import { contractHash } from '../../../runtime/benzene/hash-node.js'
import { serviceLevel, topicScoped, wholeService } from '../../../runtime/benzene/projection.js'
import { client, quote } from './findings.js'
import type { BenzeneVersion } from './side.js'

/** One hash a client can pin, in both versions (`null` in the new one when its topic is gone). */
export type HashChange =
  | { kind: 'whole-service'; old: string; new: string }
  | { kind: 'service-level'; topics: string[]; old: string; new: string }
  | { kind: 'topic'; topic: string; version?: string; old: string; new: string | null }

function wholeServiceHash(version: BenzeneVersion): string {
  const { model } = version
  return model.projection.kind === 'whole-service' ? model.moduleHash : contractHash(wholeService(version.doc))
}

/** Each request entry's topic-scoped hash by label: the model's where it made one, computed otherwise. */
function topicHashes(version: BenzeneVersion): Map<string, { entry: RequestEntry; hash: string }> {
  const known = new Map<RequestEntry, string>(version.model.topics.map((t) => [t.entry, t.hash]))
  const out = new Map<string, { entry: RequestEntry; hash: string }>()
  for (const [label, { entry }] of version.requests) {
    out.set(label, { entry, hash: known.get(entry) ?? contractHash(topicScoped(version.doc, entry)) })
  }
  return out
}

/** The hashes that differ between the versions, whole-service first, then include-list, then topics in the old document's order. */
export function hashChanges(old: BenzeneVersion, next: BenzeneVersion): HashChange[] {
  const out: HashChange[] = []
  const whole = { old: wholeServiceHash(old), new: wholeServiceHash(next) }
  if (whole.old !== whole.new) out.push({ kind: 'whole-service', ...whole })
  const include = old.model.projection.kind === 'service-level' ? old.model.projection : next.model.projection
  if (include.kind === 'service-level') {
    const topics = [...include.topics]
    const hashes = { old: serviceLevelHash(old, topics), new: serviceLevelHash(next, topics) }
    if (hashes.old !== hashes.new) out.push({ kind: 'service-level', topics, ...hashes })
  }
  const was = topicHashes(old)
  const is = topicHashes(next)
  for (const [label, { entry, hash }] of was) {
    const now = is.get(label)?.hash ?? null
    if (now === hash) continue
    out.push({ kind: 'topic', topic: entry.topic, ...(entry.version === undefined ? {} : { version: entry.version }), old: hash, new: now })
  }
  return out
}

/** The include-list hash of `topics`: the model's own when its compile had that include-list. */
function serviceLevelHash(version: BenzeneVersion, topics: readonly string[]): string {
  const p = version.model.projection
  const same = p.kind === 'service-level' && p.topics.length === topics.length && p.topics.every((t, i) => t === topics[i])
  return same ? version.model.moduleHash : contractHash(serviceLevel(version.doc, topics))
}

const label = (c: { topic: string; version?: string }) => (c.version === undefined ? c.topic : `${c.topic}@${c.version}`)

/** Names in a sentence: the first few, then how many more. */
function names(list: readonly string[]): string {
  const shown = list.slice(0, 5).map(quote).join(', ')
  return list.length > 5 ? `${shown} and ${list.length - 5} more` : shown
}

/** The hash finding: which hashes change (warning: their clients report drift), or that none does (info). */
export function hashFinding(old: BenzeneVersion, next: BenzeneVersion): DiffFinding {
  const changes = hashChanges(old, next)
  const at = { old: old.at(''), new: next.at('') }
  if (changes.length === 0) {
    return {
      rule: 'benzene-hash-changed',
      level: 'info',
      audiences: [client()],
      ...at,
      message: 'No contract hash changes: deployed clients report no drift.',
      data: { hashes: [] },
    }
  }
  const audiences: DiffAudience[] = []
  const parts: string[] = []
  if (changes.some((c) => c.kind === 'whole-service')) parts.push('the whole-service hash')
  if (changes.some((c) => c.kind === 'service-level')) parts.push('the include-list hash')
  if (parts.length > 0) audiences.push(client())
  const topics = changes.flatMap((c) => (c.kind === 'topic' ? [label(c)] : []))
  if (topics.length > 0) parts.push(`the topic hash${topics.length === 1 ? '' : 'es'} of ${names(topics)}`)
  for (const t of topics) audiences.push(client(t))
  return {
    rule: 'benzene-hash-changed',
    level: 'warning',
    audiences,
    ...at,
    message: `Contract hashes change (${parts.join(', ')}): deployed clients that embed them will report drift.`,
    data: { hashes: changes },
  }
}
