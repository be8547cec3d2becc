/**
 * The ignore file of `contracts diff` (`.contracts-diff-ignore.yaml`): the breaks a team has
 * accepted, so that an intentional change can merge. A YAML list of entries
 *
 *   - rule: subject-narrowed           # the finding's rule id
 *     pointer: /channels/orders         # its JSON Pointer, in the new version or the old
 *     reason: orders.v1 is retired       # why it is accepted (shown with the ignored finding)
 *     expires: 2026-12-31                # optional: from the day after, the entry ignores nothing
 *     contract: orders/asyncapi.yaml     # optional: only this contract's findings (relative to this file)
 *
 * Without `contract`, an entry accepts its rule at its pointer in every contract the file applies to
 * (`contract-removed` at `''` accepts every deleted contract): `contract` scopes it to one.
 * An expired entry no longer ignores (its break fails the run again) and is reported. A file that
 * is not such a list is a usage error positioned at the offending node (file:line:column).
 */
import { existsSync, lstatSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { LineCounter, parseDocument, isMap, isSeq, isScalar, type Node } from 'yaml'
import { readRegularFile } from '../input-host.js'
import { LIMITS } from '../limits.js'
import type { DiffFinding } from './types.js'
import { loneCrsAsLineFeeds } from '../source-text.js'

export const IGNORE_FILE_NAME = '.contracts-diff-ignore.yaml'

export interface IgnoreEntry {
  rule: string
  pointer: string
  reason: string
  /** `YYYY-MM-DD`: the last day the entry ignores. */
  expires?: string
  /** The contract it is for (absolute; written relative to the ignore file's folder): without it, every contract the file applies to. */
  contract?: string
  /** Where the entry is (its `- ` item), for the reports. */
  file: string
  line: number
  column: number
}

export interface IgnoreList {
  file: string
  entries: IgnoreEntry[]
}

/** A malformed ignore file: a usage error, at the node that is wrong. */
export class IgnoreFileError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(`${file}:${line}:${column}: ${reason}`)
  }
}

const KEYS = new Set(['rule', 'pointer', 'reason', 'expires', 'contract'])
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

/** A real calendar day written `YYYY-MM-DD`. */
function isDay(text: string): boolean {
  const m = DATE.exec(text)
  if (!m) return false
  const date = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!))
  return date.getUTCFullYear() === +m[1]! && date.getUTCMonth() === +m[2]! - 1 && date.getUTCDate() === +m[3]!
}

/** Reads and checks an ignore file; throws `IgnoreFileError` when it cannot be read or is malformed. */
export function readIgnoreFile(path: string): IgnoreList {
  const file = resolve(path)
  let bytes: Buffer | { size: number }
  try {
    if (lstatSync(file).isSymbolicLink()) throw new IgnoreFileError(file, 1, 1, 'the ignore file is a symbolic link, which is never followed.')
    bytes = readRegularFile(file, LIMITS.fileBytes)
  } catch (error) {
    if (error instanceof IgnoreFileError) throw error
    throw new IgnoreFileError(file, 1, 1, `cannot read the ignore file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`)
  }
  if (!Buffer.isBuffer(bytes)) throw new IgnoreFileError(file, 1, 1, `the ignore file has ${bytes.size} bytes (at most ${LIMITS.fileBytes}).`)
  return parseIgnoreFile(file, bytes.toString('utf8'))
}

/** Parses an ignore file's text (`file` names it in the entries and errors). */
export function parseIgnoreFile(file: string, text: string): IgnoreList {
  const lineCounter = new LineCounter()
  const doc = parseDocument(loneCrsAsLineFeeds(text), { lineCounter, uniqueKeys: true })
  const at = (offset: number | undefined) => {
    const pos = lineCounter.linePos(offset ?? 0)
    return { line: pos.line, column: pos.col }
  }
  const fail = (node: Node | null | undefined, reason: string): never => {
    const { line, column } = at(node?.range?.[0])
    throw new IgnoreFileError(file, line, column, reason)
  }
  const [syntax] = doc.errors
  if (syntax) {
    const [line, column] = syntax.linePos?.[0] ? [syntax.linePos[0].line, syntax.linePos[0].col] : [1, 1]
    throw new IgnoreFileError(file, line, column, syntax.message.split('\n')[0]!)
  }
  const root = doc.contents
  if (root === null || (isScalar(root) && (root.value === null || root.value === undefined))) return { file, entries: [] }
  if (!isSeq(root)) return fail(root, 'the ignore file is a list of entries ({rule, pointer, reason, expires?}).')
  const entries: IgnoreEntry[] = []
  for (const item of root.items) {
    if (!isMap(item)) return fail(item as Node, 'an entry is a mapping with rule, pointer, reason and an optional expires date.')
    const fields: Record<string, string> = {}
    // Each value's node: a value that is no good is reported where it is written, not at its entry.
    const nodes: Record<string, Node> = {}
    for (const pair of item.items) {
      const keyNode = pair.key as Node | null
      const name = isScalar(keyNode) ? String(keyNode.value) : undefined
      if (name === undefined || !KEYS.has(name))
        return fail(keyNode, `unknown key ${JSON.stringify(name ?? '?')} (an entry has rule, pointer, reason, expires and contract).`)
      const value = pair.value as Node | null
      // A date YAML reads as a string or a number would be wrong here: only strings are taken, as written.
      if (!isScalar(value) || (typeof value.value !== 'string' && !(name === 'expires' && value.source !== undefined)))
        return fail(value ?? keyNode, `${name} must be a string.`)
      fields[name] = String(value.source ?? value.value)
      nodes[name] = value
    }
    for (const required of ['rule', 'pointer', 'reason']) if (fields[required] === undefined) return fail(item, `the entry has no ${required}.`)
    if (fields.reason!.trim() === '') return fail(nodes.reason, 'the entry has an empty reason: say why the break is accepted.')
    if (fields.pointer !== '' && !fields.pointer!.startsWith('/'))
      return fail(
        nodes.pointer,
        `pointer ${JSON.stringify(fields.pointer)} is not a JSON Pointer: a pointer is empty (the whole document) or starts with "/" (RFC 6901).`,
      )
    // RFC 6901: `~` is only ever `~0` or `~1`; a pointer with any other escape names nothing and would ignore nothing.
    if (/~(?![01])/.test(fields.pointer!))
      return fail(nodes.pointer, `pointer ${JSON.stringify(fields.pointer)} is not a JSON Pointer: "~" is written "~0" and "/" inside a name "~1" (RFC 6901).`)
    if (fields.expires !== undefined && !isDay(fields.expires))
      return fail(nodes.expires, `expires ${JSON.stringify(fields.expires)} is not a day: write a calendar date as YYYY-MM-DD (2027-02-28).`)
    if (fields.contract !== undefined && fields.contract.trim() === '')
      return fail(nodes.contract, 'contract is empty: name the contract file the entry is for (relative to the ignore file), or leave the key out.')
    entries.push({
      rule: fields.rule!,
      pointer: fields.pointer!,
      reason: fields.reason!,
      ...(fields.expires !== undefined ? { expires: fields.expires } : {}),
      ...(fields.contract !== undefined ? { contract: resolve(dirname(file), fields.contract) } : {}),
      file,
      ...at(item.range?.[0]),
    })
  }
  return { file, entries }
}

/**
 * The ignore file that applies to a contract: `.contracts-diff-ignore.yaml` in its folder or the
 * nearest folder above it, up to the project root (the first folder with a package.json or a .git),
 * or none.
 */
export function findIgnoreFile(contract: string): string | undefined {
  let dir = dirname(resolve(contract))
  for (let depth = 0; depth < 256; depth++) {
    const candidate = join(dir, IGNORE_FILE_NAME)
    if (existsSync(candidate)) return candidate
    if (existsSync(join(dir, 'package.json')) || existsSync(join(dir, '.git'))) return undefined
    const parent = dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
  return undefined
}

/** Today, as the ignore file writes days (UTC). */
export function today(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10)
}

/** Whether an entry has expired on `day` (it ignores through its `expires` day). */
export const expired = (entry: IgnoreEntry, day: string): boolean => entry.expires !== undefined && entry.expires < day

/**
 * Whether an entry names a finding: the same rule, and the pointer of its new or its old location;
 * with `contract`, also that contract (the one compared, or the file the finding is in).
 */
export function matches(entry: IgnoreEntry, finding: DiffFinding, contract?: string): boolean {
  if (entry.rule !== finding.rule || (entry.pointer !== finding.new?.pointer && entry.pointer !== finding.old?.pointer)) return false
  if (entry.contract === undefined) return true
  return [contract, finding.new?.file, finding.old?.file].some((f) => f !== undefined && resolve(f) === entry.contract)
}
