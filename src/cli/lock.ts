/**
 * `contracts lock <bundle>`: fills in every digest a NATS bundle pins and writes its lock;
 * `--check` writes nothing and lists what would change (for CI). The plan is computed whole first
 * (src/formats/nats/lock/plan.ts), then written by the project's one writer, all files or none:
 * only files of the bundle that were read, only while they still have the bytes that were read,
 * never through a link.
 */
import { lstatSync, statSync } from 'node:fs'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import type { Diagnostic } from '../core/diagnostics.js'
import { writeOwnedFiles } from '../core/safe-write.js'
import { writeRefusedDiagnostic } from '../core/write-refused.js'
import { LOCK_FILE, planLock, printable, type LockPlan } from '../formats/nats/lock/plan.js'
import { jsonText } from './json-text.js'

export interface LockFlags {
  check?: boolean
  json?: boolean
}

interface Output {
  out: (text: string) => void
  err: (text: string) => void
}

/** How the CLI prints diagnostics (code frames of the files read, and of no other). */
export type PrintDiagnostics = (diagnostics: readonly Diagnostic[], read: Iterable<string>) => void

/**
 * The bundle root an argument names: a folder with `bundle.lock.json`, or that file itself; a
 * usage sentence otherwise.
 */
export function bundleRoot(argument: string): string | { usage: string } {
  const path = resolve(argument)
  const stat = lstatSync(path, { throwIfNoEntry: false })
  if (basename(path) === LOCK_FILE && stat !== undefined && !stat.isDirectory()) return dirname(path)
  if (stat === undefined) return { usage: `${argument} does not exist.` }
  // The folder the user names may be reached through a link (a linked workspace package); what is below it is checked.
  let folder: boolean
  try {
    folder = statSync(path).isDirectory()
  } catch {
    folder = false
  }
  if (!folder) return { usage: `\`contracts lock\` takes a bundle folder or its ${LOCK_FILE}; ${argument} is neither.` }
  if (lstatSync(join(path, LOCK_FILE), { throwIfNoEntry: false }) === undefined)
    return {
      usage: `${argument} has no ${LOCK_FILE}. A bundle's lock lists its documents; start one with {"entries": [{"path": "orders/asyncapi.yaml", "sha256": ""}]} and run contracts lock to fill it in.`,
    }
  return path
}

/** `contracts lock`: exit 0 when everything is current (or was written), 1 when something is stale (`--check`) or cannot be locked. */
export function lockCommand(positionals: readonly string[], flags: LockFlags, io: Output, print: PrintDiagnostics): number | { usage: string } {
  if (positionals.length !== 1) return { usage: '`contracts lock` takes exactly one bundle folder (or its bundle.lock.json).' }
  const root = bundleRoot(positionals[0]!)
  if (typeof root !== 'string') return root
  const plan = planLock(root)
  const named = (path: string) => relative(process.cwd(), path).split(sep).join('/') || '.'
  const shown = (path: string) => printable(named(path))
  if (plan.diagnostics.length > 0)
    return failed(plan.diagnostics, plan, flags, io, print, `${shown(plan.lockFile)}: the bundle cannot be locked; nothing was written.`)
  if (flags.check) {
    if (plan.stale.length === 0 && plan.writes.length === 0) {
      if (flags.json) io.out(jsonText({ diagnostics: [] }))
      io.err(`${shown(plan.lockFile)}: every digest is current.`)
      return 0
    }
    const count = digestChanges(plan)
    const what =
      count === 0
        ? `every digest is current, but ${plan.writes.length === 1 ? 'the file is' : `${plan.writes.length} files are`} not in the form contracts lock writes`
        : `${count} digest${count === 1 ? ' is' : 's are'} stale in ${plan.writes.length} file${plan.writes.length === 1 ? '' : 's'}`
    return failed(plan.stale, plan, flags, io, print, `${shown(plan.lockFile)}: ${what}; run \`contracts lock ${positionals[0]}\`.`)
  }
  if (plan.writes.length === 0) {
    if (flags.json) io.out(jsonText({ diagnostics: [], written: [] }))
    io.err(`${shown(plan.lockFile)}: every digest is current; nothing written.`)
    return 0
  }
  // All or nothing (writeOwnedFiles checks every target first): each file only while it still has
  // the bytes the plan read, and each replaced whole (a temp file renamed over it).
  const result = writeOwnedFiles(
    plan.root,
    plan.writes.map((w) => ({ path: w.path, text: w.text, replaces: w.replaces })),
    { atomic: true },
  )
  if (!result.ok) {
    // Only a tree changed in the moment of the renames leaves some replaced: then they are named.
    const some = (result.written ?? []).map((f) => shown(f.path))
    const summary = some.length === 0 ? 'nothing was written.' : `only ${some.join(', ')} ${some.length === 1 ? 'was' : 'were'} written; lock again.`
    return failed(result.refused.map(writeRefusedDiagnostic), plan, flags, io, print, `${shown(plan.lockFile)}: ${summary}`)
  }
  const written = result.files.filter((f) => f.status === 'written').map((f) => named(f.path))
  // In --json each the file's own name (JSON escapes it), on the terminal as shown there.
  if (flags.json) io.out(jsonText({ diagnostics: [], written, updated: plan.stale }))
  for (const file of written) io.err(`wrote ${printable(file)}`)
  const count = digestChanges(plan)
  io.err(
    count === 0
      ? `${shown(plan.lockFile)}: every digest was current; rewritten in the form contracts lock writes.`
      : `${shown(plan.lockFile)}: ${count} digest${count === 1 ? '' : 's'} filled in.`,
  )
  return 0
}

/** The stale findings that change a digest (a lock only out of its written form changes none: its finding has no new digest). */
function digestChanges(plan: LockPlan): number {
  return plan.stale.filter((d) => (d.data as { new?: unknown } | undefined)?.new != null).length
}

function failed(diagnostics: readonly Diagnostic[], plan: LockPlan, flags: LockFlags, io: Output, print: PrintDiagnostics, summary: string): number {
  if (flags.json) io.out(jsonText({ diagnostics }))
  else print(diagnostics, plan.read)
  io.err(summary)
  return 1
}
