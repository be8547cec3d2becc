/**
 * What `contracts lock` would change in a bundle, computed whole before anything is written: every
 * digest the documents pin (imports, external artifacts, workflows) filled in from the bytes they
 * name, in dependency order (a pin changes the bytes of the document that holds it, so an imported
 * document is finished before the digest of it is written into its importer), then the lock with
 * every member's digest. A bundle that cannot be locked (a file that does not parse, a missing or
 * linked file, an import cycle, a pin that cannot be rewritten in place) gives diagnostics and no
 * writes. Work is bounded: at most LOCK_LIMITS.members files of at most the file limit each, and
 * LOCK_LIMITS.bytes in all, each read and parsed once.
 */
import { isUtf8 } from 'node:buffer'
import { lstatSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { CORE_CODES } from '../../../core/codes.js'
import { declaredDiagnostics, type Diagnostic, type Locatable } from '../../../core/diagnostics.js'
import { findCycles } from '../../../core/graph.js'
import { fileProblem, readRegularFile, sha256 } from '../../../core/input-host.js'
import { refFilePath, refSites } from '../../../core/json-refs.js'
import { parseJsonSource, type JsonSource } from '../../../core/json-source.js'
import { LIMITS } from '../../../core/limits.js'
import { joinPointer, splitPointer } from '../../../runtime/shared/json-pointer.js'
import { NATS_LOAD_CODES, NATS_LOCK_CODES } from '../codes.js'
import { APPLICATION_DOCUMENT_NAME, isObject } from '../document.js'
import { describeCycle } from '../import-cycles.js'
import { lockPathProblem, parseByExtension } from '../load.js'
import { readBundleFile } from './bundle-files.js'
import { pinsOf, type Pin } from './pins.js'
import { replaceScalars } from './scalar-edit.js'

export const LOCK_FILE = 'bundle.lock.json'

/** How much one lock may read: files, and bytes in all (each file is also held to the file limit). */
export const LOCK_LIMITS = { members: 10_000, bytes: 256 * 1024 * 1024 }

/** One file `contracts lock` writes: its bundle path, its new text, and the bytes it was read with. */
export interface LockWrite {
  path: string
  text: string
  replaces: Buffer
}

export interface LockPlan {
  root: string
  lockFile: string
  /** Why the bundle cannot be locked; when there is any, `writes` is empty. */
  diagnostics: Diagnostic[]
  /** One `NATS_LOCK_STALE` per digest that would change (and one for a lock not in the written form). */
  stale: Diagnostic[]
  /** The files whose text changes (the lock last). */
  writes: LockWrite[]
  /** Every file read, by absolute path (code frames are shown of these only). */
  read: string[]
}

/** A file of the bundle: read once; a document is parsed and its pins found. */
interface Member {
  rel: string
  abs: string
  bytes: Buffer
  /** An application document (named so, or imported): its pins are filled in. */
  document: boolean
  /** Parsed (a document, or a `$ref` target whose own `$ref`s are followed). */
  source?: JsonSource
  pins: Pin[]
  /** Where in the queue it stands: read, parsed as a file of `$ref`s, parsed as a document. */
  done: 'read' | 'refs' | 'document'
  /** Its bytes once its pins are filled in. */
  final?: string
  digest?: string
}

const diagnostic = declaredDiagnostics({ ...CORE_CODES, ...NATS_LOAD_CODES, ...NATS_LOCK_CODES })

/**
 * A path or digest from the bundle as a message shows it: as it is when it is printable ASCII, else
 * quoted with everything else escaped, so that no control or direction character of a hostile
 * document reaches a terminal.
 */
export const printable = (text: string): string =>
  /^[\x21-\x7e]*$/.test(text) ? text : JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
const posix = (path: string) => path.split(sep).join('/')

/** Plans the lock of the bundle whose root folder is `root` (the folder of its `bundle.lock.json`). */
export function planLock(root: string): LockPlan {
  const top = resolve(root)
  const lockFile = join(top, LOCK_FILE)
  const plan: LockPlan = { root: top, lockFile, diagnostics: [], stale: [], writes: [], read: [] }
  const lock = readLock(lockFile, plan)
  if (!lock) return plan
  const members = readMembers(top, lock, plan)
  if (plan.diagnostics.length > 0) return plan
  const order = dependencyOrder(members, plan)
  if (plan.diagnostics.length > 0) return plan
  for (const member of order) fillPins(member, members, plan)
  if (plan.diagnostics.length > 0) return plan
  const lockText = writtenLock(members)
  staleLockEntries(lock, members, lockText, plan)
  if (plan.diagnostics.length > 0) return plan
  for (const member of members.values())
    if (member.final !== undefined && member.final !== member.bytes.toString('utf8'))
      plan.writes.push({ path: member.rel, text: member.final, replaces: member.bytes })
  plan.writes.sort((a, b) => compare(a.path, b.path))
  if (lockText !== lock.text) plan.writes.push({ path: LOCK_FILE, text: lockText, replaces: lock.bytes })
  return plan
}

/**
 * The paths a bundle's lock lists, read as `lock` reads it (a plain file, never a link or a special
 * file; well-formed entries, plain relative paths, each once), or the diagnostics that refuse it:
 * what the topology projection reads before compiling the bundle's documents.
 */
export function lockedPaths(root: string): { paths?: string[]; diagnostics: Diagnostic[] } {
  const top = resolve(root)
  const plan: LockPlan = { root: top, lockFile: join(top, LOCK_FILE), diagnostics: [], stale: [], writes: [], read: [] }
  const lock = readLock(plan.lockFile, plan)
  return lock ? { paths: [...lock.entries.keys()], diagnostics: plan.diagnostics } : { diagnostics: plan.diagnostics }
}

/** The lock as read: its text, its well-formed entries (path -> digest and index). */
interface ReadLock {
  bytes: Buffer
  text: string
  source: JsonSource
  entries: Map<string, { sha256: string; index: number }>
}

/**
 * The lock, held to what the checker accepts (`{ entries: [{ path, sha256 }] }`, plain paths, no
 * path twice, not itself), except that a digest may be anything: it is what lock writes. A lock
 * that is not a plain file is refused.
 */
function readLock(lockFile: string, plan: LockPlan): ReadLock | undefined {
  const problem = (code: 'CONTRACTS_SYMLINK' | 'CONTRACTS_READ_FAILED' | 'CONTRACTS_TOO_LARGE' | 'CONTRACTS_NOT_UTF8', message: string) =>
    void plan.diagnostics.push(fileProblem(code, lockFile, message))
  const stat = lstatSync(lockFile, { throwIfNoEntry: false })
  if (stat?.isSymbolicLink()) return problem('CONTRACTS_SYMLINK', `${lockFile} is a symbolic link; a bundle's lock is a plain file, never followed.`)
  let bytes: Buffer
  try {
    const read = readRegularFile(lockFile, LIMITS.fileBytes)
    if (!Buffer.isBuffer(read)) return problem('CONTRACTS_TOO_LARGE', `${lockFile} has ${read.size} bytes; files are limited to ${LIMITS.fileBytes}.`)
    bytes = read
  } catch (error) {
    return problem('CONTRACTS_READ_FAILED', `${lockFile} cannot be read (${(error as { code?: string }).code ?? (error as Error).message}).`)
  }
  if (!isUtf8(bytes)) return problem('CONTRACTS_NOT_UTF8', `${lockFile} is not UTF-8.`)
  plan.read.push(lockFile)
  const text = bytes.toString('utf8')
  const parsed = parseJsonSource(lockFile, text)
  if (parsed.diagnostics.length > 0) return void plan.diagnostics.push(...parsed.diagnostics)
  const { source } = parsed
  const report = (code: 'NATS_LOCK_INVALID' | 'NATS_LOCK_PATH' | 'NATS_LOCK_SELF', pointer: string, message: string) =>
    void plan.diagnostics.push(diagnostic(source, code, pointer, message))
  const value = source.value
  if (!isObject(value) || !Array.isArray(value.entries)) return report('NATS_LOCK_INVALID', '', `${LOCK_FILE} must be { "entries": [ { "path", "sha256" } ] }.`)
  const extraTop = Object.keys(value).find((k) => k !== 'entries')
  if (extraTop !== undefined)
    return report('NATS_LOCK_INVALID', joinPointer('', extraTop), `${LOCK_FILE} is exactly { "entries": [...] }; ${JSON.stringify(extraTop)} would be dropped.`)
  const entries = new Map<string, { sha256: string; index: number }>()
  value.entries.forEach((entry, index) => {
    const at = joinPointer('', 'entries', index)
    if (!isObject(entry) || typeof entry.path !== 'string' || typeof entry.sha256 !== 'string')
      return report('NATS_LOCK_INVALID', at, 'A lock entry is { "path": string, "sha256": string } (the digest may be "" for lock to fill in).')
    const extra = Object.keys(entry).find((k) => k !== 'path' && k !== 'sha256')
    if (extra !== undefined)
      return report(
        'NATS_LOCK_INVALID',
        joinPointer(at, extra),
        `A lock entry is exactly { "path", "sha256" }; ${JSON.stringify(extra)} is not a member of it.`,
      )
    const pathProblem = lockPathProblem(entry.path) ?? (entry.path.includes('\0') ? 'contains a NUL character' : undefined)
    if (pathProblem) return report('NATS_LOCK_PATH', joinPointer(at, 'path'), `Lock path ${printable(entry.path)} ${pathProblem}.`)
    if (entry.path === LOCK_FILE)
      return report('NATS_LOCK_SELF', joinPointer(at, 'path'), 'The lock never lists itself; a distribution pins its digest separately.')
    if (entries.has(entry.path)) return report('NATS_LOCK_INVALID', joinPointer(at, 'path'), `${printable(entry.path)} is listed twice.`)
    entries.set(entry.path, { sha256: entry.sha256, index })
  })
  if (plan.diagnostics.length > 0) return undefined
  return { bytes, text, source, entries }
}

/**
 * Every member of the bundle: the lock's entries, the files the documents pin (an imported file is
 * a document too), and the files their `$ref`s reach (followed from each file so reached, as the
 * checker follows them), each read once and each document parsed once.
 */
function readMembers(root: string, lock: ReadLock, plan: LockPlan): Map<string, Member> {
  const members = new Map<string, Member>()
  const queue: Member[] = []
  let bytesRead = 0
  const lockAt: Locatable = lock.source
  const report = (where: Locatable, code: Parameters<typeof diagnostic>[1], pointer: string, message: string, data?: Record<string, unknown>) =>
    void plan.diagnostics.push(diagnostic(where, code, pointer, message, data))

  /** Which bound was passed already: each is reported once. */
  const overBound = { members: false, bytes: false }
  /** The member at `rel`, read now if it is new; `as` what it is needed (a document's pins are filled in, a `$ref` target's own `$ref`s followed). */
  const need = (rel: string, as: 'document' | 'refs' | 'file', where: Locatable, pointer: string): void => {
    const known = members.get(rel)
    if (known) {
      if (as === 'document' && !known.document) {
        known.document = true
        queue.push(known)
      } else if (as === 'refs' && known.done === 'read') queue.push(known)
      return
    }
    const pathProblem = lockPathProblem(rel) ?? (rel.includes('\0') ? 'contains a NUL character' : undefined)
    if (pathProblem) return report(where, 'NATS_LOCK_PATH', pointer, `Bundle path ${printable(rel)} ${pathProblem}.`, { path: rel })
    if (rel === LOCK_FILE) return report(where, 'NATS_LOCK_SELF', pointer, 'The lock is not a member of its bundle: nothing may pin it or be read from it.')
    if (members.size >= LOCK_LIMITS.members) {
      // Once, however many files lie past the bound (each asked for was reported again: 10,000 copies for 20,000 files).
      if (!overBound.members)
        report(lockAt, 'CONTRACTS_TOO_LARGE', '', `The bundle has more than ${LOCK_LIMITS.members} files; contracts lock reads at most that many.`)
      overBound.members = true
      return
    }
    const abs = join(root, ...rel.split('/'))
    const read = readBundleFile(root, rel)
    if ('problem' in read) {
      if (read.problem === 'missing') return report(where, 'NATS_LOCKED_FILE_MISSING', pointer, `${printable(rel)} is not in the bundle.`, { path: rel })
      if (read.problem === 'not-plain')
        return report(where, 'NATS_LOCK_PATH', pointer, `${printable(rel)} passes through a symlink or is not a regular file; bundle paths are plain files.`, {
          path: rel,
        })
      if (read.problem === 'too-large')
        return report(where, 'CONTRACTS_TOO_LARGE', pointer, `${printable(rel)} has ${read.size} bytes; files are limited to ${LIMITS.fileBytes}.`, {
          path: rel,
        })
      return report(where, 'CONTRACTS_READ_FAILED', pointer, `${printable(rel)} cannot be read (${read.message}).`, { path: rel })
    }
    bytesRead += read.bytes.length
    if (bytesRead > LOCK_LIMITS.bytes) {
      members.set(rel, { rel, abs, bytes: read.bytes, document: false, pins: [], done: 'document' })
      if (overBound.bytes) return
      overBound.bytes = true
      return report(
        lockAt,
        'CONTRACTS_TOO_LARGE',
        '',
        `The bundle's files have more than ${LOCK_LIMITS.bytes} bytes in all; contracts lock reads at most that much.`,
      )
    }
    plan.read.push(abs)
    const member: Member = { rel, abs, bytes: read.bytes, document: as === 'document' || APPLICATION_DOCUMENT_NAME.test(rel), pins: [], done: 'read' }
    members.set(rel, member)
    if (member.document || as === 'refs') queue.push(member)
  }

  for (const [rel, { index }] of lock.entries) need(rel, 'file', lockAt, joinPointer('', 'entries', index, 'path'))
  for (let next = 0; next < queue.length && bytesRead <= LOCK_LIMITS.bytes; next++) {
    const member = queue[next]!
    if (member.done === 'document' || (member.done === 'refs' && !member.document)) continue
    if (!member.source) {
      if (!isUtf8(member.bytes)) {
        member.done = 'document'
        report({ file: member.abs }, 'CONTRACTS_NOT_UTF8', '', `${printable(member.rel)} is not UTF-8.`)
        continue
      }
      const parsed = parseByExtension(member.abs, member.bytes.toString('utf8'))
      if (parsed.diagnostics.length > 0) {
        member.done = 'document'
        plan.diagnostics.push(...parsed.diagnostics)
        continue
      }
      member.source = parsed.source
      for (const { ref, pointer } of refSites(parsed.source.value)) {
        // A same-document fragment, or a URL (never fetched: the checker says so).
        if (ref.startsWith('#') || /^[a-z][a-z0-9+.-]*:/i.test(ref)) continue
        const target = posix(relative(root, resolve(dirname(member.abs), refFilePath(ref))))
        if (target === '..' || target.startsWith('../') || target === '')
          report(parsed.source, 'NATS_UNLOCKED_FILE', pointer, `$ref ${printable(ref)} leaves the bundle.`, { ref })
        else need(target, 'refs', parsed.source, pointer)
      }
    }
    member.done = 'refs'
    if (!member.document) continue
    member.done = 'document'
    member.pins = pinsOf(member.source.value)
    for (const pin of member.pins) need(pin.path, pin.kind === 'import' ? 'document' : 'file', member.source, joinPointer(pin.owner, 'path'))
  }
  return members
}

/**
 * The documents in the order their pins can be filled in: each after every document it pins. A
 * cycle of pins (of imports: "the contract-import graph is acyclic") can never be filled in, since
 * each digest would change the other; it is reported, naming the cycle, at the pin that closes it.
 */
function dependencyOrder(members: Map<string, Member>, plan: LockPlan): Member[] {
  const documents = [...members.values()].filter((m) => m.document && m.source).sort((a, b) => compare(a.rel, b.rel))
  type Edge = { from: Member; pin: Pin }
  const graph = {
    edges: (member: Member): Edge[] => member.pins.map((pin) => ({ from: member, pin })),
    target: (edge: Edge) => {
      const to = members.get(edge.pin.path)
      return to?.document ? to : undefined
    },
  }
  findCycles(documents, graph, (edge, path, depth) => {
    const files = [...path.nodes.slice(depth).map((m) => m.rel), edge.pin.path]
    plan.diagnostics.push(
      diagnostic(
        edge.from.source!,
        'NATS_IMPORT_CYCLE',
        edge.pin.owner,
        `The digests these documents pin form a cycle: ${describeCycle(files.map(printable))}. Each digest would change the bytes of the document it is pinned in, so they can never all be filled in; the contract-import graph is acyclic: remove one of these imports.`,
        { cycle: files },
      ),
    )
  })
  if (plan.diagnostics.length > 0) return []
  // Depth-first, each document after everything it pins (post-order), without recursion; each
  // document is entered once (the graph is acyclic by now, and `entered` keeps it finite regardless).
  const order: Member[] = []
  const placed = new Set<Member>()
  const entered = new Set<Member>()
  for (const start of documents) {
    const stack: Array<{ member: Member; expanded: boolean }> = [{ member: start, expanded: false }]
    while (stack.length > 0) {
      const top = stack.pop()!
      if (placed.has(top.member)) continue
      if (top.expanded) {
        placed.add(top.member)
        order.push(top.member)
        continue
      }
      if (entered.has(top.member)) continue
      entered.add(top.member)
      stack.push({ member: top.member, expanded: true })
      for (const pin of top.member.pins) {
        const to = members.get(pin.path)
        if (to?.document && !placed.has(to)) stack.push({ member: to, expanded: false })
      }
    }
  }
  return order
}

/**
 * A document's pins filled in from the final digests of what they name (finished before it), each
 * change reported as stale; the new text is parsed again and must read as the old value with only
 * those digests changed.
 */
function fillPins(member: Member, members: Map<string, Member>, plan: LockPlan): void {
  const source = member.source!
  const digestOf = (rel: string) => {
    const target = members.get(rel)!
    return (target.digest ??= sha256(target.bytes))
  }
  const edits: Array<{ pointer: string; value: string }> = []
  for (const pin of member.pins) {
    const digest = digestOf(pin.path)
    if (pin.value === digest) continue
    // Two pins may share an object only by pointer; one edit each.
    if (edits.some((e) => e.pointer === pin.pointer)) continue
    edits.push({ pointer: pin.pointer, value: digest })
    const old = typeof pin.value === 'string' ? pin.value : pin.present ? JSON.stringify(pin.value) : '(none)'
    const rewritten = members.get(pin.path)!.final !== undefined && members.get(pin.path)!.final !== members.get(pin.path)!.bytes.toString('utf8')
    plan.stale.push(
      diagnostic(
        source,
        'NATS_LOCK_STALE',
        pin.present ? pin.pointer : pin.owner,
        `The digest pinned here for ${printable(pin.path)} is ${printable(old)}; ${rewritten ? 'once its own digests are filled in, ' : ''}its bytes hash to ${digest}.`,
        { path: pin.path, old: typeof pin.value === 'string' ? pin.value : null, new: digest },
      ),
    )
  }
  const text = member.bytes.toString('utf8')
  if (edits.length === 0) {
    member.final = text
    member.digest = sha256(member.bytes)
    return
  }
  const edited = replaceScalars(member.abs, text, edits)
  for (const refused of edited.refused)
    plan.diagnostics.push(
      diagnostic(
        source,
        'NATS_LOCK_PIN_FORM',
        refused.pointer,
        `The digest of ${printable(member.pins.find((p) => p.pointer === refused.pointer)?.path ?? '')} cannot be filled in here: ${refused.reason}.`,
      ),
    )
  if (edited.text === undefined) return
  const again = parseByExtension(member.abs, edited.text)
  const expected = structuredClone(source.value)
  for (const edit of edits) setAt(expected, edit.pointer, edit.value)
  if (again.diagnostics.length > 0 || !isDeepStrictEqual(again.source.value, expected)) {
    plan.diagnostics.push(
      diagnostic(
        source,
        'CONTRACTS_INTERNAL',
        edits[0]!.pointer,
        `Filling in the digests of ${printable(member.rel)} in place would change more than those digests; nothing was written. Write each \`sha256\` as a plain or quoted value.`,
      ),
    )
    return
  }
  member.final = edited.text
  member.digest = sha256(Buffer.from(edited.text, 'utf8'))
}

function setAt(value: unknown, pointer: string, next: string): void {
  const path = splitPointer(pointer)
  let at = value as Record<string, unknown>
  for (const token of path.slice(0, -1)) at = at[token] as Record<string, unknown>
  at[path.at(-1)!] = next
}

/** The lock as `contracts lock` writes it: every member by path (code-unit order), two-space JSON, a final newline. */
function writtenLock(members: Map<string, Member>): string {
  const entries = [...members.values()].sort((a, b) => compare(a.rel, b.rel)).map((m) => ({ path: m.rel, sha256: m.digest ?? (m.digest = sha256(m.bytes)) }))
  return JSON.stringify({ entries }, null, 2) + '\n'
}

/** The lock entries that would change (a new digest, a member not listed), or the lock's form when only that differs. */
function staleLockEntries(lock: ReadLock, members: Map<string, Member>, lockText: string, plan: LockPlan): void {
  const before = plan.stale.length
  for (const member of [...members.values()].sort((a, b) => compare(a.rel, b.rel))) {
    const entry = lock.entries.get(member.rel)
    const digest = member.digest!
    if (entry === undefined)
      plan.stale.push(
        diagnostic(
          lock.source,
          'NATS_LOCK_STALE',
          '/entries',
          `${printable(member.rel)} is read by the bundle's documents but the lock does not list it; its bytes hash to ${digest}.`,
          {
            path: member.rel,
            old: null,
            new: digest,
          },
        ),
      )
    else if (entry.sha256 !== digest)
      plan.stale.push(
        diagnostic(
          lock.source,
          'NATS_LOCK_STALE',
          joinPointer('', 'entries', entry.index, 'sha256'),
          `${printable(member.rel)} is locked at ${printable(entry.sha256) || '""'}; its bytes${member.final !== undefined && member.final !== member.bytes.toString('utf8') ? ', with its digests filled in,' : ''} hash to ${digest}.`,
          { path: member.rel, old: entry.sha256, new: digest },
        ),
      )
  }
  if (plan.stale.length === before && lockText !== lock.text)
    plan.stale.push(
      diagnostic(
        lock.source,
        'NATS_LOCK_STALE',
        '',
        `Every digest is current, but ${LOCK_FILE} is not in the form contracts lock writes (entries sorted by path, two-space JSON, a final newline).`,
        { path: LOCK_FILE, old: null, new: null },
      ),
    )
}

/** UTF-16 code-unit order, the same everywhere (no locale). */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
