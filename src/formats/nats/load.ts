import { CORE_CODES, type CoreCode } from '../../core/codes.js'
import { NATS_LOAD_CODES, type NatsLoadCode } from './codes.js'
import { append } from '../../core/append.js'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { declaredDiagnostics, type Diagnostic } from '../../core/diagnostics.js'
import type { InputHost } from '../../core/format.js'
import { InputError } from '../../core/input-host.js'
import { joinPointer } from '../../runtime/shared/json-pointer.js'
import { refFilePath, refSites, type RefSite } from '../../core/json-refs.js'
import { parseJsonSource, readPastParse, type JsonSource } from '../../core/json-source.js'
import { parseYamlSource } from '../../core/yaml-source.js'
import type { CompileMemos } from '../../core/memo.js'
import { YamlRegionsByFile, type YamlRegions } from '../../core/yaml-regions.js'
import { parsedFromCredentialFreeText, parsedWithoutCredential, valuesMayHoldCredential } from '../../core/yaml-fast.js'
import { APPLICATION_DOCUMENT_NAME, isObject } from './document.js'
import { credentialIn, findCredential, lineOf, type CredentialSite } from './credentials.js'
import { cycleFiles, cyclePointer, describeCycle, importCycles } from './import-cycles.js'
import { withStandardRefs } from './standard-refs.js'

/** A file validation read, with its exact-bytes digest. */
export interface LoadedFile {
  file: string
  source: JsonSource
  sha256: string
}

export interface Bundle {
  root: string
  lockFile: string
  lock: JsonSource
  /** The bundle version: the lock's path and the SHA-256 of its bytes (a relock makes a new one). */
  version: string
  /** Lock path (relative POSIX) -> digest, for the entries that are well formed. */
  entries: Map<string, string>
}

/** Everything the rules look at: the document, its bundle, and every other file read for it. */
export interface NatsInput {
  main: LoadedFile
  bundle?: Bundle
  /** Application documents by absolute path: the imported ones, transitively, and the others the lock lists. */
  documents: Map<string, LoadedFile>
  /** Other files read (external artifacts, `$ref` targets) by absolute path. */
  files: Map<string, LoadedFile>
}

const LOCK = 'bundle.lock.json'
export const HEX64 = /^[0-9a-f]{64}$/

/** How reading the bundle reports: at a pointer of a file it read, with one of its own codes. */
export type Report = (
  file: string,
  source: JsonSource | undefined,
  code: NatsLoadCode | CoreCode,
  pointer: string,
  message: string,
  data?: Record<string, unknown>,
) => void

/** Reading's diagnostics, at their codes' declared severities (NATS's reading codes and core's). */
const loadDiagnostic = declaredDiagnostics({ ...CORE_CODES, ...NATS_LOAD_CODES })

export function reporter(diagnostics: Diagnostic[]): Report {
  return (file, source, code, pointer, message, data) => void diagnostics.push(loadDiagnostic({ file, locate: source?.locate }, code, pointer, message, data))
}

/** `regions`: what the last parse of the file read, for a YAML document (core/yaml-regions.ts). */
export function parseByExtension(file: string, text: string, regions?: YamlRegions) {
  return /\.ya?ml$/.test(file) ? parseYamlSource(file, text, regions) : parseJsonSource(file, text)
}

/**
 * Parsed locked files by path and digest: every compile of a bundle reads the bundle's other
 * documents (the bundle-wide rules), so a build or a topology of n documents parsed each of them n
 * times. The bytes are the key (their SHA-256), so an edit is never served stale; the sources are
 * only read by the rules. At most PARSED_CACHE_SIZE entries (the oldest go first): a bundle of more
 * documents than that, read in the same order by each compile, would miss every time (512 made a
 * 600-application topology parse each document 600 times: 45 s, an outside pass), so the bound is
 * far past a real bundle's, and the characters' bound below is what keeps the memory.
 */
const PARSED_CACHE_SIZE = 4096
/** And at most this many characters of source text behind them (a parsed source is a few times its text). */
const PARSED_CACHE_CHARS = 16 * 1024 * 1024
// Module-level by design: content-keyed memo (path and SHA-256 of the bytes), bounded; not a fact about one compile.
const parsedCache = new Map<string, { result: ReturnType<typeof parseByExtension>; chars: number }>()
let cachedChars = 0
function parsedLocked(file: string, text: string, sha256: string): ReturnType<typeof parseByExtension> {
  const key = `${file}\u0000${sha256}`
  const known = parsedCache.get(key)
  if (known) return known.result
  const result = parseByExtension(file, text)
  if (text.length > PARSED_CACHE_CHARS) return result
  while (parsedCache.size >= PARSED_CACHE_SIZE || cachedChars + text.length > PARSED_CACHE_CHARS) {
    const [oldest, entry] = parsedCache.entries().next().value!
    parsedCache.delete(oldest)
    cachedChars -= entry.chars
  }
  parsedCache.set(key, { result, chars: text.length })
  cachedChars += text.length
  return result
}

/**
 * What verifying a locked file found in its bytes (a credential, or null for none), by bundle
 * version and lock path, found once per bundle version: every compile of a bundle's documents
 * verifies every locked file, and scanning the other documents for credentials again on each was
 * about a seventh of building a 20-document bundle. A lock path's locked digest is fixed by the
 * version, and only bytes with that digest are scanned, so what is kept is a function of the bytes.
 * What depends on the file system (present, a plain path, the locked digest) is still checked on
 * every compile: a file changed since is reported as before. At most VERIFIED_VERSIONS versions
 * (the oldest go first).
 */
const VERIFIED_VERSIONS = 32
// Module-level by design: content-keyed memo (the bundle version fixes each locked file's digest), bounded.
const verifiedCredentials = new Map<string, Map<string, CredentialSite | null>>()
function verifiedIn(bundle: Bundle): Map<string, CredentialSite | null> {
  let verified = verifiedCredentials.get(bundle.version)
  if (verified) return verified
  if (verifiedCredentials.size >= VERIFIED_VERSIONS) verifiedCredentials.delete(verifiedCredentials.keys().next().value!)
  verifiedCredentials.set(bundle.version, (verified = new Map()))
  return verified
}

/**
 * Reading a bundle for one document: every file is read through here, so each locked file is
 * verified (present, plain, the locked digest) once, and a tampered one is reported once, at the lock.
 */
class BundleReader {
  readonly diagnostics: Diagnostic[] = []
  readonly report: Report = reporter(this.diagnostics)
  /** Lock paths whose bytes were found not to be the locked ones (reported once, at the lock). */
  readonly tampered = new Set<string>()

  constructor(
    readonly input: NatsInput,
    readonly host: InputHost,
  ) {}

  reportTampered(rel: string, actual: string): void {
    reportLockDigest(this.report, this.input.bundle!, rel, actual)
  }

  /**
   * The bytes of a locked file, if it is present, a plain file and has the locked digest; otherwise a
   * diagnostic at `pointer` of `from` (or, for a changed digest, at the lock entry) and undefined.
   */
  async verifyLocked(
    rel: string,
    locked: string,
    from: { file: string; source: JsonSource },
    pointer: string,
  ): Promise<{ abs: string; text: string; sha256: string } | undefined> {
    const bundle = this.input.bundle!
    if (this.tampered.has(rel)) return undefined
    const abs = join(bundle.root, ...rel.split('/'))
    if ((await this.host.kind(abs)) === 'missing') {
      this.report(from.file, from.source, 'NATS_LOCKED_FILE_MISSING', pointer, `${rel} is locked but not in the bundle.`, { path: rel })
      return undefined
    }
    if (!(await pathIsPlain(bundle.root, rel, this.host))) {
      this.report(
        from.file,
        from.source,
        'NATS_LOCK_PATH',
        pointer,
        `${rel} passes through a symlink or is not a regular file; bundle paths are plain files.`,
        {
          path: rel,
        },
      )
      return undefined
    }
    let got: { text: string; sha256: string }
    try {
      got = await this.host.read(abs)
    } catch (error) {
      if (error instanceof InputError) {
        this.report(from.file, from.source, 'NATS_LOCKED_FILE_MISSING', pointer, `${rel} is locked but cannot be read.`, { path: rel })
        return undefined
      }
      throw error
    }
    if (got.sha256 !== locked) {
      this.tampered.add(rel)
      this.reportTampered(rel, got.sha256)
      return undefined
    }
    const verified = verifiedIn(bundle)
    let credential = verified.get(rel)
    if (credential === undefined) verified.set(rel, (credential = lockedCredential(abs, got.text, got.sha256) ?? null))
    if (credential) {
      const where = credential.offset === undefined ? `at ${credential.pointer || '/'}` : `line ${lineOf(got.text, credential.offset)}`
      this.report(
        bundle.lockFile,
        bundle.lock,
        'NATS_BUNDLED_CREDENTIAL',
        lockPointer(bundle, rel, 'path'),
        `${rel} (${where}) carries ${credential.kind}; credentials are deployment inputs and never bundled.`,
        credential.offset === undefined ? { path: rel, pointer: credential.pointer } : { path: rel },
      )
    }
    return { abs, ...got }
  }

  /** Reads a bundle file named by a lock-relative path, if the lock lists it with that digest. */
  async readLocked(
    rel: string,
    expected: string | undefined,
    from: LoadedFile,
    pointer: string,
    onMismatch?: (locked: string) => void,
  ): Promise<LoadedFile | undefined> {
    const bundle = this.input.bundle
    if (!bundle) {
      this.report(
        from.file,
        from.source,
        'NATS_BUNDLE_REQUIRED',
        pointer,
        `${rel} is outside this document, so the document needs a bundle: no ${LOCK} was found in its folder or above.`,
      )
      return undefined
    }
    const locked = bundle.entries.get(rel)
    if (locked === undefined) {
      this.report(
        from.file,
        from.source,
        'NATS_UNLOCKED_FILE',
        pointer,
        `${rel} is read for validation but ${LOCK} does not list it; every file besides the document must be locked.`,
        { path: rel },
      )
      return undefined
    }
    if (expected !== undefined && expected !== locked) {
      if (onMismatch) return void onMismatch(locked)
      this.report(
        from.file,
        from.source,
        'NATS_LOCK_MISMATCH',
        pointer,
        `The digest given here for ${rel} is not the one ${LOCK} pins (${locked}); \`contracts lock\` on the bundle's folder writes each pin from the file's bytes.`,
        {
          path: rel,
          expected: locked,
          given: expected,
        },
      )
      return undefined
    }
    const abs = join(bundle.root, ...rel.split('/'))
    const cached = this.input.documents.get(abs) ?? this.input.files.get(abs)
    if (cached) return cached
    const got = await this.verifyLocked(rel, locked, from, pointer)
    if (!got) return undefined
    const result = parsedLocked(abs, got.text, got.sha256)
    append(this.diagnostics, result.diagnostics)
    // A key mistake (a duplicate key) is read past for the rules (codes.ts READ_PAST).
    if (!readPastParse(result)) return undefined
    if (result.warnings) append(this.diagnostics, result.warnings)
    return { file: abs, source: standardRefsResolved(result.source), sha256: got.sha256 }
  }
}

/**
 * A parsed AsyncAPI document as the rules read it: its root channels, root operations, replies and
 * parameters given as Reference Objects replaced by what they name (standard-refs.ts). A new source
 * object only when something was replaced: the parsed one (cached, and reused by a recompile) is
 * never changed.
 */
function standardRefsResolved(source: JsonSource): JsonSource {
  const value = withStandardRefs(source.value)
  return value === source.value ? source : { ...source, value }
}

/**
 * A locked file's credential: a JSON or YAML file in both readings (decoded strings, then the raw
 * text), parsed once through the cache readLocked uses too; any other file (or one that does not
 * parse) as text.
 */
function lockedCredential(abs: string, text: string, sha256: string): CredentialSite | undefined {
  if (/\.(json|ya?ml)$/.test(abs)) {
    const parsed = parsedLocked(abs, text, sha256)
    if (parsed.diagnostics.length === 0) return credentialOf(parsed.source)
  }
  const raw = findCredential(text)
  return raw && { kind: raw.kind, pointer: '', offset: raw.offset }
}

/**
 * `credentialIn` of a parsed file. A text without the characters a credential is made of
 * (`valuesMayHoldCredential`, which the fast YAML path has already asked) holds none, in a string
 * or in its raw text; a value the fast path found no credential in while making its strings is not
 * walked again, and only its raw text (comments) is scanned.
 */
function credentialOf(source: JsonSource): CredentialSite | undefined {
  if (parsedFromCredentialFreeText(source.value) || !valuesMayHoldCredential(source.text)) return undefined
  if (!parsedWithoutCredential(source.value)) return credentialIn(source)
  const raw = findCredential(source.text)
  return raw && { kind: raw.kind, pointer: '', offset: raw.offset }
}

/** Reads the document, finds its bundle, and reads every locked file validation needs. */
export async function loadInput(file: string, host: InputHost, memos?: CompileMemos): Promise<{ input?: NatsInput; diagnostics: Diagnostic[] }> {
  const read = await host.read(file)
  // `*.asyncapi.json` is strict JSON (with its own positions and duplicate-key check); the rest YAML.
  // A recompile takes the regions of the text its last parse read unchanged from there.
  const regions = memos?.kept('nats:yaml-regions', () => new YamlRegionsByFile()).of(file)
  const parsed = parseByExtension(file, read.text, regions)
  const main: LoadedFile = { file, source: standardRefsResolved(parsed.source), sha256: read.sha256 }
  const reader = new BundleReader({ main, documents: new Map(), files: new Map() }, host)
  const { input } = reader
  const lockFile = await findLock(dirname(file), host)
  if (lockFile) input.bundle = await readLock(lockFile, host, reader.report)
  const mainRel = input.bundle && relative(input.bundle.root, file).split(sep).join('/')
  const mainTampered = input.bundle !== undefined && input.bundle.entries.has(mainRel!) && input.bundle.entries.get(mainRel!) !== read.sha256
  if (!readPastParse(parsed)) {
    // Unreadable; if the lock pins other bytes, say that too (it may be tampering, not a typo).
    if (mainTampered) reader.reportTampered(mainRel!, read.sha256)
    return { diagnostics: [...reader.diagnostics, ...parsed.diagnostics] }
  }
  // A key mistake (a duplicate key) is reported, and the rest read past it (codes.ts READ_PAST).
  append(reader.diagnostics, parsed.diagnostics)
  if (parsed.warnings) append(reader.diagnostics, parsed.warnings)
  const credential = credentialOf(parsed.source)
  if (credential) {
    // Only the text carries it (a comment): positioned at its line, with the document's pointer.
    const { offset } = credential
    const at = offset === undefined ? parsed.source : { ...parsed.source, locate: () => ({ ...parsed.source.lines.position(offset), offset }) }
    reader.report(
      file,
      at,
      'NATS_BUNDLED_CREDENTIAL',
      credential.pointer,
      `This document carries ${credential.kind}${offset === undefined ? '' : ' outside its values (a comment)'}; credentials are deployment inputs and never bundled.`,
    )
  }
  const mismatches = await readImports(reader)
  await readOtherDocuments(reader)
  reportImports(reader, mismatches)
  await readArtifacts(reader)
  await readFileRefs(reader)
  // The lock vouches for the whole bundle, so every entry is checked, the document itself included,
  // not only the files this document reads: a tampered bundle fails every build that uses it.
  if (input.bundle) {
    const bundle = input.bundle
    if (mainTampered) reader.reportTampered(mainRel!, main.sha256)
    // The document's own entry is held to what every other compile of the bundle holds it to: a path
    // through a link (its folder a link out of the bundle) is refused here as it is from a sibling.
    if (bundle.entries.has(mainRel!) && !(await pathIsPlain(bundle.root, mainRel!, host)))
      reader.report(
        bundle.lockFile,
        bundle.lock,
        'NATS_LOCK_PATH',
        lockPointer(bundle, mainRel!, 'path'),
        `${mainRel} passes through a symlink or is not a regular file; bundle paths are plain files.`,
        { path: mainRel },
      )
    for (const [rel, locked] of bundle.entries) {
      const abs = join(bundle.root, ...rel.split('/'))
      if (rel === mainRel || reader.tampered.has(rel) || input.documents.has(abs) || input.files.has(abs)) continue
      await reader.verifyLocked(rel, locked, { file: bundle.lockFile, source: bundle.lock }, lockPointer(bundle, rel, 'path'))
    }
  }
  return { input, diagnostics: reader.diagnostics }
}

/** An import whose digest is not the lock's: reported after the import graph is known (a cycle explains it). */
interface ImportMismatch {
  doc: LoadedFile
  alias: string
  rel: string
  given: string
  locked: string
}

/**
 * Imported application documents, transitively; an import naming another digest than the lock's
 * is kept aside, not reported yet: on a cycle of imports no digest can ever verify (each document
 * pins the other's bytes), and the cycle, not the lock, is what the user must fix.
 */
async function readImports(reader: BundleReader): Promise<ImportMismatch[]> {
  const { input } = reader
  const mismatches: ImportMismatch[] = []
  const queue: LoadedFile[] = [input.main]
  for (let next = 0; next < queue.length; next++) {
    const doc = queue[next]!
    const profile = profileOf(doc.source.value)
    const imports = isObject(profile?.imports) ? profile.imports : {}
    for (const [alias, entry] of Object.entries(imports)) {
      if (!isObject(entry) || typeof entry.path !== 'string') continue
      const pointer = joinPointer('', 'x-nats-contract', 'imports', alias, 'path')
      if (input.documents.has(join(input.bundle?.root ?? '', ...entry.path.split('/')))) continue
      const given = typeof entry.sha256 === 'string' ? entry.sha256 : undefined
      const loaded = await reader.readLocked(entry.path, given, doc, pointer, (locked) =>
        mismatches.push({ doc, alias, rel: entry.path as string, given: given!, locked }),
      )
      if (loaded && loaded.file !== input.main.file) {
        input.documents.set(loaded.file, loaded)
        queue.push(loaded)
      }
    }
  }
  return mismatches
}

/**
 * The import graph's cycles that the document reaches (NATS_IMPORT_CYCLE, naming the cycle, at the
 * import that starts it), then the digest mismatches that are not edges of a cycle. Every
 * application document of the bundle has been read by now (by its locked digest), so the graph is
 * whole. O(documents + imports).
 */
function reportImports(reader: BundleReader, mismatches: ImportMismatch[]): void {
  const { input, report } = reader
  const root = input.bundle?.root
  const onCycle = new Set<string>()
  if (root !== undefined) {
    for (const cycle of importCycles(input.main, input.documents, root)) {
      for (const edge of cycle) onCycle.add(`${edge.from}\u0000${edge.alias}`)
      const first = cycle[0]!
      const file = first.from === input.main.file ? input.main : input.documents.get(first.from)!
      const files = cycleFiles(cycle, root)
      report(
        file.file,
        file.source,
        'NATS_IMPORT_CYCLE',
        cyclePointer(first),
        `The contract imports form a cycle: ${describeCycle(files)}. The contract-import graph is acyclic (and the digests of a cycle can never all verify); remove one of these imports.`,
        { cycle: files },
      )
    }
  }
  for (const m of mismatches) {
    if (onCycle.has(`${m.doc.file}\u0000${m.alias}`)) continue
    report(
      m.doc.file,
      m.doc.source,
      'NATS_LOCK_MISMATCH',
      joinPointer('', 'x-nats-contract', 'imports', m.alias, 'path'),
      `The digest given here for ${m.rel} is not the one ${LOCK} pins (${m.locked}); \`contracts lock\` on the bundle's folder writes each pin from the file's bytes.`,
      { path: m.rel, expected: m.locked, given: m.given },
    )
  }
}

/** The other application documents of the bundle, for identity uniqueness. */
async function readOtherDocuments(reader: BundleReader): Promise<void> {
  const { input } = reader
  if (!input.bundle) return
  for (const rel of input.bundle.entries.keys()) {
    const abs = join(input.bundle.root, ...rel.split('/'))
    if (!APPLICATION_DOCUMENT_NAME.test(rel) || abs === input.main.file || input.documents.has(abs)) continue
    const loaded = await reader.readLocked(rel, undefined, input.main, '')
    if (loaded) input.documents.set(abs, loaded)
  }
}

/** External native artifacts of streams and consumers, and workflow documents (Open Workflow, YAML or JSON). */
async function readArtifacts(reader: BundleReader): Promise<void> {
  const { input } = reader
  const profile = profileOf(input.main.source.value)
  const artifacts: Array<{ artifact: Record<string, unknown>; pointer: string }> = []
  for (const kind of ['streams', 'consumers'] as const) {
    const resources = isObject(profile?.[kind]) ? (profile[kind] as Record<string, unknown>) : {}
    for (const [key, resource] of Object.entries(resources)) {
      if (isObject(resource) && resource.authority === 'external' && isObject(resource.artifact)) {
        artifacts.push({ artifact: resource.artifact, pointer: joinPointer('', 'x-nats-contract', kind, key, 'artifact', 'path') })
      }
    }
  }
  for (const [key, workflow] of Object.entries(isObject(profile?.workflows) ? (profile.workflows as Record<string, unknown>) : {})) {
    if (isObject(workflow) && isObject(workflow.artifact))
      artifacts.push({ artifact: workflow.artifact, pointer: joinPointer('', 'x-nats-contract', 'workflows', key, 'artifact', 'path') })
  }
  for (const { artifact, pointer } of artifacts) {
    if (typeof artifact.path !== 'string') continue
    const loaded = await reader.readLocked(artifact.path, typeof artifact.sha256 === 'string' ? artifact.sha256 : undefined, input.main, pointer)
    if (loaded) input.files.set(loaded.file, loaded)
  }
}

/**
 * Standard `$ref`s to other files: relative to the declaring file, never to the network. Followed
 * from the document, from the bundle's other documents (a link compares their payloads too) and
 * from every file so read, each file once: the locked files the payload schemas need. Problems are
 * reported for the document and the files it reaches; another document's are its own build's.
 */
async function readFileRefs(reader: BundleReader): Promise<void> {
  const { input, report } = reader
  const queue: Array<{ doc: LoadedFile; own: boolean }> = [{ doc: input.main, own: true }, ...[...input.documents.values()].map((doc) => ({ doc, own: false }))]
  const visited = new Set(queue.map((q) => q.doc.file))
  for (let i = 0; i < queue.length; i++) {
    const { doc, own } = queue[i]!
    for (const { ref, pointer } of fileRefs(doc.source.value)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(ref)) {
        if (own)
          report(
            doc.file,
            doc.source,
            'NATS_REMOTE_REF',
            pointer,
            `$ref ${JSON.stringify(ref)} names a URL; contracts are validated from the bundle alone and nothing is fetched.`,
            {
              ref,
            },
          )
        continue
      }
      const target = resolve(dirname(doc.file), refFilePath(ref))
      const rel = input.bundle ? relative(input.bundle.root, target).split(sep).join('/') : ref
      if (input.bundle && (rel.startsWith('../') || rel === '..')) {
        if (own) report(doc.file, doc.source, 'NATS_UNLOCKED_FILE', pointer, `$ref ${JSON.stringify(ref)} leaves the bundle.`, { ref })
        continue
      }
      if (!own && !input.bundle?.entries.has(rel)) continue
      const loaded = input.files.get(target) ?? input.documents.get(target) ?? (await reader.readLocked(rel, undefined, doc, pointer))
      if (!loaded) continue
      if (!input.documents.has(loaded.file)) input.files.set(loaded.file, loaded)
      if (!visited.has(loaded.file)) {
        visited.add(loaded.file)
        queue.push({ doc: loaded, own })
      }
    }
  }
}

export function profileOf(doc: unknown): Record<string, unknown> | undefined {
  return isObject(doc) && isObject(doc['x-nats-contract']) ? doc['x-nats-contract'] : undefined
}

function reportLockDigest(report: Report, bundle: Bundle, rel: string, actual: string): void {
  report(
    bundle.lockFile,
    bundle.lock,
    'NATS_LOCK_DIGEST',
    lockPointer(bundle, rel, 'sha256'),
    `${rel} does not have the digest the lock pins: its bytes hash to ${actual}. After a deliberate change, \`contracts lock\` on the bundle's folder writes the new digests.`,
    { path: rel, locked: bundle.entries.get(rel), actual },
  )
}

function lockPointer(bundle: Bundle, rel: string, member: 'path' | 'sha256'): string {
  const entries = isObject(bundle.lock.value) && Array.isArray(bundle.lock.value.entries) ? bundle.lock.value.entries : []
  const index = entries.findIndex((e) => isObject(e) && e.path === rel)
  return index === -1 ? '/entries' : joinPointer('', 'entries', index, member)
}

/** Every `$ref` whose value is not a same-document fragment. */
function fileRefs(value: unknown): RefSite[] {
  return refSites(value).filter((site) => !site.ref.startsWith('#'))
}

/**
 * The nearest `bundle.lock.json` at or above `dir`. Whatever is there counts, not only a plain file:
 * a link, a FIFO or a folder of that name is the bundle's lock refused (`readLock` reads it through
 * the host, which says why), never skipped for one further up or read as no bundle at all.
 */
async function findLock(dir: string, host: InputHost): Promise<string | undefined> {
  for (let current = dir; ; current = dirname(current)) {
    const candidate = join(current, LOCK)
    if ((await host.kind(candidate)) !== 'missing') return candidate
    if (dirname(current) === current) return undefined
  }
}

async function pathIsPlain(root: string, rel: string, host: InputHost): Promise<boolean> {
  let current = root
  const parts = rel.split('/')
  for (let i = 0; i < parts.length; i++) {
    current = join(current, parts[i]!)
    const kind = await host.kind(current)
    if (kind !== (i === parts.length - 1 ? 'file' : 'directory')) return false
  }
  return true
}

/** The lock: `{ entries: [{ path, sha256 }] }`, each path a plain relative POSIX path, each digest 64 lowercase hex. */
async function readLock(lockFile: string, host: InputHost, report: Report): Promise<Bundle | undefined> {
  // The bundle's tree is the lock's folder: every locked file is read from there.
  host.allowTree(dirname(lockFile))
  const read = await host.read(lockFile)
  const { source, diagnostics } = parseJsonSource(lockFile, read.text)
  const bundle: Bundle = { root: dirname(lockFile), lockFile, lock: source, version: `${lockFile}\u0000${read.sha256}`, entries: new Map() }
  if (diagnostics.length > 0) {
    for (const d of diagnostics) report(lockFile, source, d.code as CoreCode, d.pointer, d.message)
    return bundle
  }
  const value = source.value
  if (!isObject(value) || !Array.isArray(value.entries)) {
    report(lockFile, source, 'NATS_LOCK_INVALID', '', `${LOCK} must be { "entries": [ { "path", "sha256" } ] }.`)
    return bundle
  }
  value.entries.forEach((entry, i) => {
    const at = joinPointer('', 'entries', i)
    if (!isObject(entry) || typeof entry.path !== 'string' || typeof entry.sha256 !== 'string') {
      return report(lockFile, source, 'NATS_LOCK_INVALID', at, 'A lock entry is { "path": string, "sha256": string }.')
    }
    // "Lock entries are {path, sha256}": exactly, so nothing else can ride along unverified.
    const extra = Object.keys(entry).find((k) => k !== 'path' && k !== 'sha256')
    if (extra !== undefined) {
      return report(
        lockFile,
        source,
        'NATS_LOCK_INVALID',
        joinPointer(at, extra),
        `A lock entry is exactly { "path", "sha256" }; ${JSON.stringify(extra)} is not a member of it.`,
      )
    }
    const problem = lockPathProblem(entry.path)
    if (problem)
      return report(lockFile, source, 'NATS_LOCK_PATH', joinPointer(at, 'path'), `Lock path ${JSON.stringify(entry.path)} ${problem}.`, { path: entry.path })
    if (entry.path === LOCK)
      return report(lockFile, source, 'NATS_LOCK_SELF', joinPointer(at, 'path'), 'The lock never lists itself; a distribution pins its digest separately.')
    if (!HEX64.test(entry.sha256))
      return report(lockFile, source, 'NATS_LOCK_DIGEST_FORM', joinPointer(at, 'sha256'), 'A digest is 64 lowercase hexadecimal digits.', { path: entry.path })
    if (bundle.entries.has(entry.path)) return report(lockFile, source, 'NATS_LOCK_INVALID', joinPointer(at, 'path'), `${entry.path} is listed twice.`)
    bundle.entries.set(entry.path, entry.sha256)
  })
  return bundle
}

/** Why a lock path is not a relative POSIX path inside the bundle, or undefined. */
export function lockPathProblem(path: string): string | undefined {
  if (path === '') return 'is empty'
  if (path.includes('\\')) return 'contains a backslash'
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return 'is absolute'
  const parts = path.split('/')
  if (parts.some((p) => p === '..')) return 'leaves the bundle (..)'
  if (parts.some((p) => p === '' || p === '.')) return 'has an empty or "." segment'
  return undefined
}
