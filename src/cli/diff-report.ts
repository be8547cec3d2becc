/**
 * What `contracts diff` prints: the text grouped by audience, the JSON document (`--json`, shape
 * `DiffJson`, documented in docs/cli.md), and GitHub annotations (`--format github`). SARIF is in
 * diff-sarif.ts. Every string from a document is escaped for where it goes: the terminal's control
 * characters (terminal-text.ts), the workflow command's escaping, JSON encoding.
 */
import { relative, sep } from 'node:path'
import type { Diagnostic } from '../core/diagnostics.js'
import { EVERYONE } from '../core/diff/core-rules.js'
import type { FailOn } from '../core/diff/findings.js'
import type { IgnoreEntry } from '../core/diff/ignore.js'
import type { DiffEntry, DiffVerdict } from '../core/diff/runner.js'
import type { DiffAudience, DiffFinding, DiffLocation } from '../core/diff/types.js'
import { terminalLine } from '../core/terminal-text.js'
import { annotationFile, commandData, commandProperty } from './workflow-command.js'

/** A whole `contracts diff` run: each contract compared, and the verdict on all their findings. */
export interface DiffRun {
  entries: DiffEntry[]
  verdict: DiffVerdict
  failOn: FailOn
  audience?: string
  /** Under `--against`: the ref and the commit it named. */
  against?: { ref: string; commit: string }
}

/** The JSON document of `contracts diff --json` (docs/cli.md); `version` changes only when a field changes meaning or goes. */
export interface DiffJson {
  version: 1
  failOn: FailOn
  audience: string | null
  against: { ref: string; commit: string } | null
  /** Whether the run fails (exit status 1): a shown finding at or above failOn, or an invalid version. */
  failed: boolean
  summary: { contracts: number; invalid: number; breaking: number; warning: number; info: number; ignored: number }
  contracts: Array<{ change: DiffEntry['change']; format: string; old: string | null; new: string | null; valid: boolean }>
  findings: DiffFinding[]
  ignored: Array<DiffFinding & { reason: string; ignoredBy: { file: string; line: number; column: number } }>
  expiredIgnores: Array<Omit<IgnoreEntry, 'expires'> & { expires: string }>
  /** Entries in date that name no finding of the run (a misspelt rule id, a pointer that moved): they ignore nothing. */
  unusedIgnores: IgnoreEntry[]
  /** The diagnostics of the versions that have errors (no diff was made of those contracts). */
  diagnostics: Diagnostic[]
}

export const invalidDiagnostics = (run: DiffRun): Diagnostic[] =>
  run.entries.filter((e) => !e.valid).flatMap((e) => [...(e.old?.diagnostics ?? []), ...(e.new?.diagnostics ?? [])])

export function diffJson(run: DiffRun): DiffJson {
  const { verdict } = run
  return {
    version: 1,
    failOn: run.failOn,
    audience: run.audience ?? null,
    against: run.against ?? null,
    failed: failed(run),
    summary: {
      contracts: run.entries.length,
      invalid: run.entries.filter((e) => !e.valid).length,
      ...verdict.counts,
      ignored: verdict.ignored.length,
    },
    contracts: run.entries.map((e) => ({ change: e.change, format: e.format, old: e.old?.file ?? null, new: e.new?.file ?? null, valid: e.valid })),
    findings: verdict.findings,
    ignored: verdict.ignored.map(({ finding, reason, entry }) => ({
      ...finding,
      reason,
      ignoredBy: { file: entry.file, line: entry.line, column: entry.column },
    })),
    expiredIgnores: verdict.expired.map((e) => ({ ...e, expires: e.expires! })),
    unusedIgnores: verdict.unused,
    diagnostics: invalidDiagnostics(run),
  }
}

/** Whether the run exits 1. */
export const failed = (run: DiffRun): boolean => run.verdict.failed || run.entries.some((e) => !e.valid)

/** A path as the reports show it: relative to the working directory when under it. */
function shown(file: string, cwd: string): string {
  const rel = relative(cwd, file)
  return rel === '' || rel.startsWith('..') ? file : rel.split(sep).join('/')
}

/**
 * Where an annotation or a SARIF result puts a finding: its new location (something removed is
 * located in the new version at the node that held it), else its old one (a contract removed).
 */
export const whereShown = (finding: DiffFinding): DiffLocation => (finding.new ?? finding.old)!

/**
 * Where the text output points a reader: the new location, or the old one when the new one only
 * encloses what was removed (the old pointer is inside the new one's node), which shows the thing.
 */
export function whereRead(finding: DiffFinding): DiffLocation {
  const { old, new: next } = finding
  if (old === undefined || next === undefined) return (next ?? old)!
  return old.pointer !== next.pointer && old.pointer.startsWith(next.pointer + '/') ? old : next
}

const audienceText = (a: DiffAudience) => (a.name === undefined ? a.kind : `${a.kind} ${a.name}`)

/**
 * The findings for people, grouped by the audience kind they break (a finding that breaks two kinds
 * is under both; `everyone` first, then the kinds in order, then the findings that break no one),
 * each line: level, rule id, file:line:column (and pointer) of the new location (the old one for
 * something removed: `whereRead`), the
 * parties named, the sentence. Then what the ignore file accepted, with its reasons.
 */
export function diffText(run: DiffRun, cwd: string = process.cwd()): string[] {
  const groups = new Map<string, Array<{ finding: DiffFinding; names: string[] }>>()
  const add = (kind: string, finding: DiffFinding, names: string[]) => {
    let group = groups.get(kind)
    if (group === undefined) groups.set(kind, (group = []))
    group.push({ finding, names })
  }
  for (const finding of run.verdict.findings) {
    if (finding.audiences.length === 0) add('', finding, [])
    // With --audience, a finding is shown for that audience (or everyone) alone, not under the other kinds it also breaks.
    const kinds = [...new Set(finding.audiences.map((a) => a.kind))].filter((k) => run.audience === undefined || k === run.audience || k === EVERYONE)
    for (const kind of kinds)
      add(
        kind,
        finding,
        finding.audiences.filter((a) => a.kind === kind && a.name !== undefined).map((a) => a.name!),
      )
  }
  const order = [...groups.keys()].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
  const lines: string[] = []
  const line = (finding: DiffFinding, extra = '') => {
    const at = whereRead(finding)
    const place = `${shown(at.file, cwd)}:${at.line}:${at.column}${at.pointer ? ` (${at.pointer})` : ''}`
    return terminalLine(`  ${finding.level.padEnd(8)} ${finding.rule}  ${place}${extra}  ${finding.message}`)
  }
  for (const kind of order) {
    const group = groups.get(kind)!
    lines.push(kind === '' ? 'Breaks no one:' : kind === EVERYONE ? 'Breaks everyone:' : `Breaks ${terminalLine(kind)}:`)
    for (const { finding, names } of group) lines.push(line(finding, names.length ? `  [${names.join(', ')}]` : ''))
    lines.push('')
  }
  if (run.verdict.ignored.length > 0) {
    lines.push('Ignored (accepted in the ignore file):')
    for (const { finding, reason, entry } of run.verdict.ignored)
      lines.push(
        line(finding, `  [${finding.audiences.map(audienceText).join(', ')}]`) + terminalLine(`  (${shown(entry.file, cwd)}:${entry.line}: ${reason})`),
      )
    lines.push('')
  }
  return lines.length > 0 && lines.at(-1) === '' ? lines.slice(0, -1) : lines
}

const rank = (kind: string) => (kind === EVERYONE ? 0 : kind === '' ? 2 : 1)

/** The warning line for an ignore entry past its date. */
export function expiredLine(entry: IgnoreEntry, cwd: string = process.cwd()): string {
  return terminalLine(
    `warning: ${shown(entry.file, cwd)}:${entry.line}:${entry.column}: the entry for ${entry.rule} at ${entry.pointer || '(the whole document)'} expired on ${entry.expires}; it ignores nothing now.`,
  )
}

/** `2 contracts compared: 1 breaking, 2 warnings, 0 info (1 ignored); fails on breaking.` */
export function diffSummary(run: DiffRun): string {
  const { counts } = run.verdict
  const n = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`
  const invalid = run.entries.filter((e) => !e.valid).length
  const against = run.against ? ` against ${run.against.ref} (${run.against.commit.slice(0, 12)})` : ''
  const ignored = run.verdict.ignored.length ? ` (${run.verdict.ignored.length} ignored)` : ''
  const body = `${counts.breaking} breaking, ${n(counts.warning, 'warning')}, ${counts.info} info${ignored}`
  // A version with errors is not compared: the count of contracts compared leaves it out, and says so.
  const compared = run.entries.length - invalid
  const head = `${n(compared, 'contract')} compared${against}${run.audience !== undefined ? ` for ${run.audience}` : ''}`
  const verdict = invalid > 0 ? `${n(invalid, 'contract')} with errors, not compared` : failed(run) ? `fails on ${run.failOn}` : 'passes'
  return terminalLine(`${head}: ${body}; ${verdict}.`)
}

/**
 * A finding as a GitHub Actions annotation on the new file's line (for something removed, the line
 * of the node that held it; the old file's only for a contract removed):
 * `::error` for breaking, `::warning` for a warning, `::notice` for info; the title is the rule id,
 * the message names whom it breaks.
 */
export function findingAnnotation(finding: DiffFinding, cwd: string = process.cwd()): string {
  const at = whereShown(finding)
  const command = finding.level === 'breaking' ? 'error' : finding.level === 'warning' ? 'warning' : 'notice'
  const whom = finding.audiences.length ? ` (breaks: ${finding.audiences.map(audienceText).join(', ')})` : ''
  const file = commandProperty(annotationFile(at.file, cwd))
  return `::${command} file=${file},line=${at.line},col=${at.column},title=${commandProperty(finding.rule)}::${commandData(finding.message + whom)}`
}

/** An ignore entry that names no finding, as a warning line. */
export function unusedLine(entry: IgnoreEntry, cwd: string = process.cwd()): string {
  return terminalLine(
    `warning: ${shown(entry.file, cwd)}:${entry.line}:${entry.column}: the entry for ${entry.rule} at ${entry.pointer || '(the whole document)'} names no finding of this diff; it ignores nothing (a rule id misspelt, or a pointer that moved?).`,
  )
}

/** An ignore entry that names no finding, as a GitHub annotation on the ignore file. */
export function unusedAnnotation(entry: IgnoreEntry, cwd: string = process.cwd()): string {
  const message = `The ignore entry for ${entry.rule} at ${entry.pointer || '(the whole document)'} names no finding of this diff; it ignores nothing.`
  return `::warning file=${commandProperty(annotationFile(entry.file, cwd))},line=${entry.line},col=${entry.column},title=diff-ignore-unused::${commandData(message)}`
}

/** An expired ignore entry as a GitHub annotation on the ignore file. */
export function expiredAnnotation(entry: IgnoreEntry, cwd: string = process.cwd()): string {
  const message = `The ignore entry for ${entry.rule} at ${entry.pointer} expired on ${entry.expires}; it ignores nothing now.`
  return `::warning file=${commandProperty(annotationFile(entry.file, cwd))},line=${entry.line},col=${entry.column},title=diff-ignore-expired::${commandData(message)}`
}
