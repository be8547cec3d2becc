/**
 * What `contracts diff` does with the findings of the differs, whatever the format: one stable order,
 * no duplicates, the `--audience` selection and the `--fail-on` verdict.
 */
import canonicalize from 'canonicalize'
import { EVERYONE } from './core-rules.js'
import type { DiffFinding, DiffLevel, DiffLocation } from './types.js'

/** What `--fail-on` takes: the lowest level that fails the run. */
export type FailOn = 'breaking' | 'warning'

export const DIFF_LEVELS: readonly DiffLevel[] = ['breaking', 'warning', 'info']

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** Locations by file, line, column, pointer; a missing location after every present one. */
function compareLocation(a: DiffLocation | undefined, b: DiffLocation | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1
  return compareText(a.file, b.file) || a.line - b.line || a.column - b.column || compareText(a.pointer, b.pointer)
}

let unique = 0
/** A finding's identity: its canonical JSON (a finding whose `data` JSON cannot hold is its own, never merged). */
function key(finding: DiffFinding): string {
  try {
    return canonicalize(finding) ?? `\0${unique++}`
  } catch {
    return `\0${unique++}`
  }
}

/** The order of every field but the whole finding's canonical form (the last tie-break). */
function comparePrefix(a: DiffFinding, b: DiffFinding): number {
  return (
    compareLocation(a.new, b.new) ||
    compareLocation(a.old, b.old) ||
    compareText(a.rule, b.rule) ||
    DIFF_LEVELS.indexOf(a.level) - DIFF_LEVELS.indexOf(b.level) ||
    compareText(a.message, b.message)
  )
}

/**
 * The findings in the one order every output shows them (by new location, then old, then rule, then
 * level and message, then the whole finding), each once: a differ that reports the same finding twice
 * (two paths to one change) shows it once.
 *
 * Two equal findings agree on every field the order reads before the whole finding, so they meet in
 * one run of ties of a sort by those fields; the canonical JSON (the costly part: on a 5,000-channel
 * diff it was most of this function) is made only for findings in such a run, which are then kept
 * once each and ordered by it. The same order and the same findings as sorting everything by all the
 * fields at once: the sort is stable, so within a run the first of equal findings is the one kept.
 * O(n log n) comparisons, plus the canonical JSON of the findings that tie.
 */
export function sortFindings(findings: readonly DiffFinding[]): DiffFinding[] {
  const sorted = [...findings].sort(comparePrefix)
  const out: DiffFinding[] = []
  for (let start = 0; start < sorted.length;) {
    let end = start + 1
    while (end < sorted.length && comparePrefix(sorted[start]!, sorted[end]!) === 0) end++
    if (end - start === 1) out.push(sorted[start]!)
    else {
      const once = new Map<string, DiffFinding>()
      for (let i = start; i < end; i++) {
        const k = key(sorted[i]!)
        if (!once.has(k)) once.set(k, sorted[i]!)
      }
      for (const [, finding] of [...once.entries()].sort(([ka], [kb]) => compareText(ka, kb))) out.push(finding)
    }
    start = end
  }
  return out
}

/** Whether a finding concerns an audience kind (`--audience`): it names that kind, or breaks everyone. */
export function concerns(finding: DiffFinding, audience: string): boolean {
  return finding.audiences.some((a) => a.kind === audience || a.kind === EVERYONE)
}

/** Whether a finding is at or above the `--fail-on` level. */
export function fails(finding: DiffFinding, failOn: FailOn): boolean {
  return finding.level === 'breaking' || (failOn === 'warning' && finding.level === 'warning')
}

/** Counts by level. */
export function countLevels(findings: readonly DiffFinding[]): Record<DiffLevel, number> {
  const counts: Record<DiffLevel, number> = { breaking: 0, warning: 0, info: 0 }
  for (const f of findings) counts[f.level]++
  return counts
}
