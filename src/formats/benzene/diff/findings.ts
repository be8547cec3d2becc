/**
 * What every part of the Benzene differ shares to write findings: audiences, names quoted as the
 * document writes them, and the last step (duplicates merged, a deterministic order).
 */
import type { DiffAudience, DiffFinding, DiffLevel, DiffLocation } from '../../../core/diff/types.js'

export const client = (name?: string): DiffAudience => (name === undefined ? { kind: 'client' } : { kind: 'client', name })
export const service = (name?: string): DiffAudience => (name === undefined ? { kind: 'service' } : { kind: 'service', name })

/** A topic for `data`: its id, and its version only when it has one (absent and empty differ, §2). */
export const topicData = (entry: { topic: string; version?: string }): { topic: string; version?: string } =>
  entry.version === undefined ? { topic: entry.topic } : { topic: entry.topic, version: entry.version }

/**
 * A name in a message, as the document's JSON writes it (quoted, escapes as JSON spells them): the
 * message is one line whatever the name holds; `data` keeps the name itself.
 */
export const quote = (name: string): string => JSON.stringify(name)

const RANK: Record<DiffLevel, number> = { info: 0, warning: 1, breaking: 2 }

export function maxLevel(levels: Iterable<DiffLevel>): DiffLevel {
  let out: DiffLevel = 'info'
  for (const level of levels) if (RANK[level] > RANK[out]) out = level
  return out
}

function compareLocation(a: DiffLocation | undefined, b: DiffLocation | undefined): number {
  // Every finding of this differ has both; kept for a finding made without one.
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1
  return compareText(a.file, b.file) || a.line - b.line || a.column - b.column || compareText(a.pointer, b.pointer)
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

const audienceKey = (a: DiffAudience) => `${a.kind}\u0000${a.name ?? ''}`

function sortAudiences(audiences: DiffAudience[]): DiffAudience[] {
  const unique = new Map(audiences.map((a) => [audienceKey(a), a]))
  return [...unique.entries()].sort(([a], [b]) => compareText(a, b)).map(([, a]) => a)
}

/**
 * Merges findings of one rule at the same places (two topics reaching one changed component schema
 * report it once, naming both; the schema engine may find one change from a payload and from the
 * component itself): the higher level wins with its sentence and data, the audiences are those at
 * it. Then sorts by new location, old location, rule and message. O(n log n).
 */
export function finalize(findings: readonly DiffFinding[]): DiffFinding[] {
  const merged = new Map<string, DiffFinding>()
  for (const found of findings) {
    // Nobody breaks at info: such a finding names no party (the topic it concerns is in its sentence and data).
    const finding = found.level === 'info' && found.audiences.length > 0 ? { ...found, audiences: [] } : found
    const key = [finding.rule, finding.old?.file ?? '', finding.old?.pointer ?? '\u0000', finding.new?.file ?? '', finding.new?.pointer ?? '\u0000'].join(
      '\u0001',
    )
    const seen = merged.get(key)
    if (!seen) merged.set(key, { ...finding, audiences: sortAudiences(finding.audiences) })
    else if (RANK[finding.level] > RANK[seen.level]) merged.set(key, { ...finding, audiences: sortAudiences(finding.audiences) })
    else if (RANK[finding.level] === RANK[seen.level]) merged.set(key, { ...seen, audiences: sortAudiences([...seen.audiences, ...finding.audiences]) })
  }
  return [...merged.values()].sort(
    (a, b) => compareLocation(a.new, b.new) || compareLocation(a.old, b.old) || compareText(a.rule, b.rule) || compareText(a.message, b.message),
  )
}
