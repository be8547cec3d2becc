/**
 * The language server's state: the documents the editor has open (their unsaved text), the last
 * check of each open contract, and what was published where. Independent of the transport: the
 * server (server.ts) feeds it the editor's events and sends what it publishes.
 *
 * - An open document a format claims is a contract, checked as `contracts check` checks it (the
 *   same compiler, default options), reading every open document's text instead of its file (the
 *   compiler's overlay), still confined to the contract's tree.
 * - Any open document (a contract, a `$ref`'d file, a NATS bundle's lock or locked document) that a
 *   contract's last check read re-checks that contract when it changes or closes.
 * - Edits are debounced (`debounceMs` after the last one, and never more than `maxWaitMs` after
 *   the first of a burst); one check runs at a time, each open contract at most once per run, and
 *   edits that arrive during a run make the next one. Unchanged inputs are answered from the
 *   compiler's cache (by digest), so a contract re-checked for nothing costs its digests.
 * - A diagnostic is published at the file it points into (the contract, or the lock or document
 *   of its bundle it names); a file's diagnostics are those of every open contract's check that
 *   point there. Closing a contract drops its check: what only it reported is cleared.
 */
import { dirname, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Diagnostic as LspDiagnostic } from 'vscode-languageserver/node.js'
import { ContractCompiler } from '../../core/compile.js'
import type { Diagnostic } from '../../core/diagnostics.js'
import { recordingHost } from '../../core/input-host.js'
import { sourceReader } from '../../core/report.js'
import { LineIndex } from '../../core/source-text.js'
import { formats } from '../../formats/index.js'
import { toLspDiagnostic } from './diagnostics.js'
import { hoverAt, type HoverAnswer } from './hover.js'

export interface Publication {
  uri: string
  /** The version of the open document the diagnostics were computed from, when it is open. */
  version?: number
  diagnostics: LspDiagnostic[]
}

export interface Timing {
  debounceMs: number
  maxWaitMs: number
}

interface OpenDocument {
  uri: string
  version: number
  text: string
}

interface Check {
  /** Every file the check read (the contract first). */
  dependencies: Set<string>
  /** Its diagnostics for the client, by the file they point into. */
  byFile: Map<string, LspDiagnostic[]>
  /** The versions of the open documents it read. */
  versions: Map<string, number>
}

/** What `contracts check` passes (no flags): the same options make the same diagnostics, and the same cache key. */
const CHECK_OPTIONS = { benzene: {}, declarations: false }

export class Workspace {
  private readonly documents = new Map<string, OpenDocument>()
  /** The texts the check in progress reads: the open documents as they were when the run began. */
  private snapshot = new Map<string, string>()
  private readonly compiler = new ContractCompiler({ formats, overlay: { text: (path) => this.snapshot.get(path) } })
  private readonly checks = new Map<string, Check>()
  /**
   * What was last sent for each URI (its version and diagnostics, as JSON), so that a file whose
   * diagnostics and version are unchanged is not sent again. The version is part of it: an edit
   * that leaves a contract's diagnostics as they were (a blank line added) is still published with
   * its version, so the editor knows the text it shows was checked.
   */
  private readonly published = new Map<string, string>()
  private readonly dirty = new Set<string>()
  private timer: NodeJS.Timeout | undefined
  private burstStart: number | undefined
  private running: Promise<void> | undefined

  constructor(
    private readonly send: (publication: Publication) => void,
    private readonly timing: Timing = { debounceMs: 150, maxWaitMs: 750 },
    private readonly log: (message: string) => void = () => {},
  ) {}

  /** A document opened or changed (its whole text, as the editor has it now). */
  update(uri: string, version: number, text: string): void {
    const path = pathOf(uri)
    if (path === undefined) return
    this.documents.set(path, { uri, version, text })
    if (this.isContract(path)) this.dirty.add(path)
    this.dependentsOf(path).forEach((root) => this.dirty.add(root))
    this.schedule()
  }

  /** A document closed: its check is dropped (and what only it reported cleared); its dependents read the file again. */
  close(uri: string): void {
    const path = pathOf(uri)
    if (path === undefined) return
    this.documents.delete(path)
    this.dirty.delete(path)
    this.checks.delete(path)
    this.dependentsOf(path).forEach((root) => this.dirty.add(root))
    this.publish()
    this.schedule()
  }

  /** Files may have changed on disk (a save, a checkout): every open contract is checked again (from the cache where nothing changed). */
  refresh(): void {
    for (const path of this.documents.keys()) if (this.isContract(path)) this.dirty.add(path)
    this.schedule()
  }

  dispose(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    this.dirty.clear()
  }

  /** Hover at a UTF-16 offset of an open document. */
  async hover(uri: string, offset: number): Promise<HoverAnswer | undefined> {
    const path = pathOf(uri)
    const document = path === undefined ? undefined : this.documents.get(path)
    if (path === undefined || document === undefined) return undefined
    const read = async (file: string) => {
      const host = recordingHost(dirname(path), { text: (p) => this.documents.get(p)?.text })
      // A file a check already read (a bundle's document beside this one) is readable wherever its bundle lies.
      if ([...this.checks.values()].some((check) => check.dependencies.has(file))) host.allowTree(dirname(file))
      try {
        return await host.readText(file)
      } catch {
        return undefined
      }
    }
    return hoverAt({ file: path, format: this.compiler.formatOf(path)?.name, text: document.text, offset, read })
  }

  private isContract(path: string): boolean {
    return this.compiler.formatOf(path) !== undefined
  }

  /** The open contracts whose last check read `path`. */
  private dependentsOf(path: string): string[] {
    return [...this.checks].filter(([root, check]) => root !== path && check.dependencies.has(path)).map(([root]) => root)
  }

  private schedule(): void {
    if (this.dirty.size === 0) return
    const now = Date.now()
    this.burstStart ??= now
    clearTimeout(this.timer)
    const wait = Math.max(0, Math.min(this.timing.debounceMs, this.burstStart + this.timing.maxWaitMs - now))
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.burstStart = undefined
      // A run in progress takes what is dirty when it finishes its batch.
      this.running ??= this.run().finally(() => (this.running = undefined))
    }, wait)
  }

  /** Checks what is dirty, batch by batch, until nothing is; publishes after each batch. Never throws. */
  private async run(): Promise<void> {
    while (this.dirty.size > 0) {
      const roots = [...this.dirty].filter((path) => this.documents.has(path))
      this.dirty.clear()
      this.snapshot = new Map([...this.documents].map(([path, document]) => [path, document.text]))
      const versions = new Map([...this.documents].map(([path, document]) => [path, document.version]))
      const texts = this.snapshot
      for (const root of roots) {
        try {
          const result = await this.compiler.compile(root, CHECK_OPTIONS)
          if (!this.documents.has(root)) continue
          const dependencies = new Set([root, ...result.dependencies])
          // A file the check read from disk (a definition, a locked document not open): its text as read
          // now, so that a range there runs to the end of its token as it does in an open document.
          const disk = sourceReader(result.dependencies)
          this.checks.set(root, {
            dependencies,
            byFile: forClient(
              result.diagnostics,
              (file) => texts.get(file) ?? disk(file),
              (file) => this.uriOf(file),
            ),
            versions: new Map([...versions].filter(([path]) => dependencies.has(path))),
          })
        } catch (error) {
          // The compiler answers every input with diagnostics; this is a bug of the server's own.
          this.log(`contracts lsp: checking ${root} failed: ${(error as Error).stack ?? String(error)}`)
        }
      }
      this.publish()
    }
  }

  /** Sends each file's diagnostics (the union of every open contract's check) where they changed, and clears files nothing reports on any more. */
  private publish(): void {
    type Entry = { diagnostics: Map<string, LspDiagnostic>; version?: number }
    const now = new Map<string, Entry>()
    for (const check of this.checks.values()) {
      for (const [file, diagnostics] of check.byFile) {
        const uri = this.uriOf(file)
        const entry: Entry = now.get(uri) ?? { diagnostics: new Map() }
        now.set(uri, entry)
        for (const d of diagnostics) entry.diagnostics.set(JSON.stringify(d), d)
        const version = check.versions.get(file)
        if (version !== undefined && (entry.version === undefined || version > entry.version)) entry.version = version
      }
    }
    // A checked contract is published even when clean: the editor learns it was checked.
    for (const [root, check] of this.checks) {
      const uri = this.uriOf(root)
      if (!now.has(uri)) now.set(uri, { diagnostics: new Map(), version: check.versions.get(root) })
    }
    for (const [uri, entry] of now) {
      const diagnostics = [...entry.diagnostics.values()]
      const sent = JSON.stringify([entry.version ?? null, diagnostics])
      if (this.published.get(uri) === sent) continue
      this.published.set(uri, sent)
      this.send({ uri, ...(entry.version !== undefined ? { version: entry.version } : {}), diagnostics })
    }
    for (const uri of [...this.published.keys()]) {
      if (now.has(uri)) continue
      this.published.delete(uri)
      this.send({ uri, diagnostics: [] })
    }
  }

  /** The URI the editor knows a file by (its own spelling for an open document), else the file's URL. */
  private uriOf(file: string): string {
    return this.documents.get(file)?.uri ?? pathToFileURL(file).href
  }
}

/** A check's diagnostics for the client, by file; ranges read the texts the check read (the editor's, else the file's). */
function forClient(diagnostics: readonly Diagnostic[], textOf: (file: string) => string | undefined, uriOf: (file: string) => string) {
  const lines = new Map<string, LineIndex | undefined>()
  const linesOf = (file: string) => {
    if (!lines.has(file)) {
      const text = textOf(file)
      lines.set(file, text === undefined ? undefined : new LineIndex(text))
    }
    return lines.get(file)
  }
  const byFile = new Map<string, LspDiagnostic[]>()
  for (const d of diagnostics) {
    const list = byFile.get(d.file) ?? []
    byFile.set(d.file, list)
    list.push(toLspDiagnostic(d, linesOf, uriOf))
  }
  return byFile
}

/** The path of a `file:` URI; undefined for any other scheme (an untitled buffer has no folder to check it in). */
function pathOf(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined
  try {
    // In normal form (`a//b`, `a/./b`, `a/x/../b` are `a/b`), as the compiler names the files it
    // reads: the editor's text is found under that name, and its diagnostics under the editor's URI.
    return resolve(fileURLToPath(uri))
  } catch {
    return undefined
  }
}
