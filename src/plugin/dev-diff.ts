/**
 * The Vite dev option `diff: '<git-ref>'`: after a contract is saved, it is compared with its version
 * at that ref (as `contracts diff --against <ref> <file>`), and the breaking findings, with whom they
 * break, are printed as one warning in the terminal. Never a failure: the working version's errors
 * are the compile's to report, a version at the ref with errors is said in the warning (nothing was
 * compared), and anything else that goes wrong (no repository, a ref that names nothing) is one
 * warning, once per reason.
 */
import { relative, sep } from 'node:path'
import { diffAgainst } from '../core/diff/against.js'
import type { DiffFinding } from '../core/diff/types.js'
import { terminalSafe } from '../core/terminal-text.js'
import { loadDiffer } from '../formats/diffs.js'
import { formats } from '../formats/index.js'

/** What the dev server gives the diff: where to warn, and the project root paths are shown from. */
export interface DevDiffHost {
  warn(message: string): void
  /** What the last diff of a file found breaking (undefined: nothing): the dev page shows it. */
  report?(file: string, warning: string | undefined): void
  root: string
}

/**
 * The breaking findings of a saved contract against `ref`, as a warning (undefined when nothing
 * breaks). A version at the ref with errors is compared with nothing: the warning says so and names
 * its first error, which no compile of the working tree reports (the working version's errors are the
 * compile's to report, as always).
 */
export async function breakingWarning(file: string, ref: string, root: string): Promise<string | undefined> {
  const { version, entries } = await diffAgainst(ref, [file], { formats, loadDiffer }, root)
  const breaking: DiffFinding[] = entries.filter((e) => e.valid).flatMap((e) => e.findings.filter((f) => f.level === 'breaking'))
  const shown = (path: string) => {
    const rel = relative(root, path)
    return rel === '' || rel.startsWith('..') ? path : rel.split(sep).join('/')
  }
  const at = `${ref} (${version.commit.slice(0, 12)})`
  const uncompared = entries.flatMap((e) => {
    const errors = e.valid ? [] : (e.old?.diagnostics ?? []).filter((d) => d.severity === 'error')
    const first = errors[0]
    if (first === undefined) return []
    const more = errors.length === 1 ? '' : ` (and ${errors.length - 1} more)`
    return [`  its version at ${ref} has errors: ${first.code} at ${shown(first.file)}:${first.line}:${first.column}${more}: ${first.message}`]
  })
  if (breaking.length === 0 && uncompared.length === 0) return undefined
  const lines = breaking.map((f) => {
    const where = (f.new ?? f.old)!
    const whom = f.audiences.map((a) => (a.name === undefined ? a.kind : `${a.kind} ${a.name}`)).join(', ') || 'no named party'
    return `  breaks ${whom}: ${f.rule} at ${shown(where.file)}:${where.line}:${where.column}: ${f.message}`
  })
  const said = breaking.length > 0 ? `has ${breaking.length} breaking change${breaking.length === 1 ? '' : 's'} against ${at}` : `was not compared with ${at}`
  return terminalSafe(`${shown(file)} ${said}:\n${[...lines, ...uncompared].join('\n')}`)
}

/**
 * Compares saved contracts one at a time (a save while one runs is compared after it, once), and
 * warns of what breaks; never throws.
 */
export class DevDiff {
  private running: Promise<void> = Promise.resolve()
  private readonly pending = new Set<string>()
  private readonly warned = new Set<string>()

  constructor(
    private readonly ref: string,
    private readonly host: DevDiffHost,
  ) {}

  /** Queues a diff of `file`; the promise settles when it has been compared (tests wait on it). */
  saved(file: string): Promise<void> {
    if (this.pending.has(file)) return this.running
    this.pending.add(file)
    this.running = this.running.then(async () => {
      this.pending.delete(file)
      try {
        const warning = await breakingWarning(file, this.ref, this.host.root)
        this.host.report?.(file, warning)
        if (warning !== undefined) this.host.warn(`unplugin-contracts: ${warning}`)
      } catch (error) {
        const reason = terminalSafe(error instanceof Error ? error.message : String(error))
        if (!this.warned.has(reason)) {
          this.warned.add(reason)
          this.host.warn(`unplugin-contracts: the diff against ${terminalSafe(this.ref)} was not made: ${reason}`)
        }
      }
    })
    return this.running
  }
}
