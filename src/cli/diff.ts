/**
 * `contracts diff <old> <new>` and `contracts diff --against <ref> [files...]`: the findings of the
 * formats' differs, judged (`--audience`, the ignore file, `--fail-on`) and written as text, JSON,
 * GitHub annotations or SARIF. Exit status 0, 1 (a finding at or above `--fail-on`, or a version
 * with errors), 2 (usage, returned as `{ usage }`).
 */
import { unreported, type Diagnostic } from '../core/diagnostics.js'
import { diffAgainst, GitRefError } from '../core/diff/against.js'
import { sortFindings, type FailOn } from '../core/diff/findings.js'
import { IgnoreFileError, findIgnoreFile, readIgnoreFile, type IgnoreEntry, type IgnoreList } from '../core/diff/ignore.js'
import { DiffUsageError, diffPair, judge, type DiffEntry, type DiffEnvironment, type DiffVerdict } from '../core/diff/runner.js'
import type { SourceReader } from '../core/report.js'
import { loadDiffer } from '../formats/diffs.js'
import { formats } from '../formats/index.js'
import {
  diffJson,
  diffSummary,
  diffText,
  expiredAnnotation,
  expiredLine,
  failed,
  findingAnnotation,
  unusedAnnotation,
  unusedLine,
  type DiffRun,
} from './diff-report.js'
import { jsonText } from './json-text.js'

export interface DiffFlags {
  against?: string
  'fail-on'?: string
  audience?: string
  ignore?: string
  json?: boolean
  format?: string
}

type Output = { out: (text: string) => void; err: (text: string) => void }

/** How the CLI prints a version's diagnostics (with code frames where `read` gives the text), and as a GitHub annotation. */
export interface DiagnosticPrinter {
  frames(diagnostics: readonly Diagnostic[], read: SourceReader | Iterable<string>): void
  annotation(diagnostic: Diagnostic): string
}

const environment: DiffEnvironment = { formats, loadDiffer }

/**
 * The audience kinds `--audience` takes: every kind a format's differ names in its rule catalogue
 * (test/probe-diff-cli.test.ts holds the list to the catalogues), and `everyone` (a removed
 * contract). Any other word is a usage error: a misspelt kind would keep no finding and pass the run.
 */
export const AUDIENCE_KINDS = [
  'client',
  'service',
  'publisher',
  'subscriber',
  'requester',
  'responder',
  'deployment',
  'invoker',
  'peer',
  'host',
  'saved-session',
  'everyone',
] as const

export async function diffCommand(files: string[], flags: DiffFlags, io: Output, print: DiagnosticPrinter): Promise<number | { usage: string }> {
  const failOn = flags['fail-on'] ?? 'breaking'
  if (failOn !== 'breaking' && failOn !== 'warning') return { usage: `--fail-on takes breaking or warning, not ${JSON.stringify(failOn)}.` }
  if (flags.format !== undefined && flags.format !== 'github' && flags.format !== 'sarif')
    return { usage: '`contracts diff --format` takes github or sarif (or use --json).' }
  if (flags.json && flags.format !== undefined) return { usage: 'Use --json or --format, not both.' }
  if (flags.audience !== undefined && !(AUDIENCE_KINDS as readonly string[]).includes(flags.audience))
    return { usage: `--audience takes one of ${AUDIENCE_KINDS.join(', ')}, not ${JSON.stringify(flags.audience)}.` }
  if (flags.against === undefined && files.length !== 2)
    return { usage: '`contracts diff` takes two files (the old version, then the new), or --against <git-ref> [files...].' }
  let explicitIgnore: IgnoreList | undefined
  const ignoreFiles = new Map<string, IgnoreList | undefined>()
  const ignoreFor = (entry: DiffEntry): IgnoreList | undefined => {
    if (explicitIgnore) return explicitIgnore
    const path = findIgnoreFile((entry.new ?? entry.old)!.file)
    if (path === undefined) return undefined
    if (!ignoreFiles.has(path)) ignoreFiles.set(path, readIgnoreFile(path))
    return ignoreFiles.get(path)
  }
  let entries: DiffEntry[]
  let against: DiffRun['against']
  let oldText: ((file: string) => string | undefined) | undefined
  let verdict: DiffVerdict
  try {
    if (flags.ignore !== undefined) explicitIgnore = readIgnoreFile(flags.ignore)
    if (flags.against !== undefined) {
      const result = await diffAgainst(flags.against, files, environment)
      entries = result.entries
      against = { ref: flags.against, commit: result.version.commit }
      oldText = (file) => result.version.overlay.text(file)
    } else entries = [await diffPair({ file: files[0]! }, { file: files[1]! }, environment)]
    verdict = judgeAll(entries, { failOn, audience: flags.audience, ignoreFor })
  } catch (error) {
    if (error instanceof DiffUsageError || error instanceof GitRefError) return { usage: error.message }
    if (error instanceof IgnoreFileError) return { usage: `the ignore file ${error.message}` }
    throw error
  }
  entries = reportedOnce(entries, against?.ref)
  const run: DiffRun = { entries, verdict, failOn, ...(flags.audience !== undefined ? { audience: flags.audience } : {}), ...(against ? { against } : {}) }
  const invalid = entries.filter((e) => !e.valid)
  if (flags.json) io.out(jsonText(diffJson(run)))
  else if (flags.format === 'github') {
    for (const finding of verdict.findings) io.out(findingAnnotation(finding))
    for (const entry of verdict.expired) io.out(expiredAnnotation(entry))
    for (const entry of verdict.unused) io.out(unusedAnnotation(entry))
    for (const e of invalid) for (const d of [...(e.old?.diagnostics ?? []), ...(e.new?.diagnostics ?? [])]) io.out(print.annotation(d))
  } else if (flags.format === 'sarif') io.out(jsonText((await import('./diff-sarif.js')).diffSarifLog(run)))
  else {
    const text = diffText(run)
    if (text.length > 0) io.out(text.join('\n'))
  }
  if (!flags.json && flags.format === undefined) {
    for (const entry of verdict.expired) io.err(expiredLine(entry))
    for (const entry of verdict.unused) io.err(unusedLine(entry))
    for (const e of invalid) {
      // The old version's frames show its text (from git under --against), never the working tree's.
      // As sourceReader does: only the files the compile itself read, never one a diagnostic merely names.
      const read = e.old?.dependencies
      const oldReader: SourceReader | undefined = oldText && read ? (file) => (read.includes(file) ? oldText!(file) : undefined) : undefined
      if (e.old && e.old.diagnostics.length) print.frames(e.old.diagnostics, oldReader ?? e.old.dependencies)
      if (e.new && e.new.diagnostics.length) print.frames(e.new.diagnostics, e.new.dependencies)
    }
  }
  io.err(diffSummary(run))
  return failed(run) ? 1 : 0
}

/**
 * `judge` over several contracts, each with the ignore file that applies to it (the one next to it
 * or above it, unless `--ignore` names one): the shown and ignored findings together, each expired
 * entry once, failed when any contract's verdict fails.
 */
function judgeAll(
  entries: readonly DiffEntry[],
  options: { failOn: FailOn; audience: string | undefined; ignoreFor: (entry: DiffEntry) => IgnoreList | undefined },
): DiffVerdict {
  // Each contract's ignore file found once (finding it walks the folders up from the contract).
  const lists = entries.map((entry) => options.ignoreFor(entry))
  const verdicts = entries.map((entry, i) =>
    judge(entry.findings, {
      failOn: options.failOn,
      ...(options.audience !== undefined ? { audience: options.audience } : {}),
      ignore: lists[i],
      contract: (entry.new ?? entry.old)!.file,
    }),
  )
  const findings = sortFindings(verdicts.flatMap((v) => v.findings))
  const key = (e: IgnoreEntry) => `${e.file}:${e.line}:${e.column}`
  const expired = new Map(verdicts.flatMap((v) => v.expired).map((e) => [key(e), e]))
  // An entry is stale when no contract it applies to has a finding it names; a contract with errors
  // was not compared, so whether its entries name anything is not known: none is called stale then.
  // Used: in date for a contract and not unused there (it named one of that contract's findings).
  const used = new Set<string>()
  for (const [i, v] of verdicts.entries()) for (const e of lists[i]?.entries ?? []) if (!v.expired.includes(e) && !v.unused.includes(e)) used.add(key(e))
  const unused = entries.some((e) => !e.valid)
    ? []
    : [
        ...new Map(
          verdicts
            .flatMap((v) => v.unused)
            .filter((e) => !used.has(key(e)))
            .map((e) => [key(e), e]),
        ).values(),
      ]
  const counts = { breaking: 0, warning: 0, info: 0 }
  for (const f of findings) counts[f.level]++
  return {
    findings,
    ignored: verdicts.flatMap((v) => v.ignored),
    expired: [...expired.values()],
    unused,
    counts,
    failed: verdicts.some((v) => v.failed),
  }
}

/**
 * The entries with each diagnostic once in the run, as `check` reports them: two contracts of one
 * bundle whose version fails on the bundle's lock both report it. Under `--against`, the old
 * version's diagnostics name the working-tree paths its files have, so each says it is the old
 * version's (its text read from `ref`); the new version's are the working tree's own.
 */
function reportedOnce(entries: DiffEntry[], ref: string | undefined): DiffEntry[] {
  const seen = new Set<string>()
  const old = (d: Diagnostic): Diagnostic => (ref === undefined ? d : { ...d, message: `In the old version (${ref}): ${d.message}` })
  return entries.map((e) => {
    if (e.valid) return e
    const out: DiffEntry = { ...e }
    if (e.old) out.old = { ...e.old, diagnostics: unreported(e.old.diagnostics.map(old), seen) }
    if (e.new) out.new = { ...e.new, diagnostics: unreported(e.new.diagnostics, seen) }
    return out
  })
}
