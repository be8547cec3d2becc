/**
 * `contracts lsp` probed from outside with a real LSP client over stdio (the built server,
 * `npm run build` first), on what an editor really sends and what a hostile workspace holds:
 * incremental edits at the edges of lines, documents, surrogate pairs and CRLFs; version
 * disorder; files on disk that change under open documents (edited, deleted, a link out of the
 * tree, a folder, a FIFO); hovers at odd places; URIs in odd spellings; the lifecycle; and many
 * documents at once. The oracle for every published diagnostic is `contracts check --json` on the
 * same final text on disk (the final text computed with vscode-languageserver-textdocument, the
 * reference implementation of LSP's incremental sync). Every wait is bounded; nothing asserts a
 * duration.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { TextDocument } from 'vscode-languageserver-textdocument'
import MarkdownIt from 'markdown-it'
import {
  CancellationTokenSource,
  createProtocolConnection,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  HoverRequest,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic as LspDiagnostic,
  type Hover,
  type MarkupContent,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
  type TextDocumentContentChangeEvent,
} from 'vscode-languageserver-protocol/node.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI } from './helpers/cli.js'

const root = join(import.meta.dirname, '..')
/** How long any one wait may take before the test fails with what it was waiting for. */
const WAIT_MS = 15_000

const escapes: unknown[] = []
process.on('unhandledRejection', (reason) => void escapes.push(reason))
process.on('uncaughtException', (error) => void escapes.push(error))

mkdirSync(join(root, 'test/.tmp/probe-lsp-edits'), { recursive: true })
const tmp = mkdtempSync(join(root, 'test/.tmp/probe-lsp-edits/run-'))
/** The server's working folder; every contract folder is below it. */
const ws = join(tmp, 'ws')
mkdirSync(ws)
/** A file outside every contract's tree whose text must never reach the client. */
const SECRET = 'SECRET-OUTSIDE-7f3a91'
const secretFile = join(tmp, 'secret.json')
writeFileSync(secretFile, JSON.stringify({ streams: [{ name: SECRET }, { name: SECRET, description: SECRET }], type: 'string', description: SECRET }))

let sentinels = 0
/** How long a test that expects a publication which may never come waits after the run that should have made it. */
const GRACE_MS = 2_000

/** A client over the server's stdio: what it was sent, and bounded waits for what it expects. */
class Client {
  readonly publications: PublishDiagnosticsParams[] = []
  private readonly listeners = new Set<() => void>()
  readonly versions = new Map<string, number>()
  readonly stderr: string[] = []
  exitCode: number | null | undefined = undefined
  readonly exited: Promise<number | null>

  private constructor(
    readonly child: ChildProcess,
    readonly connection: ProtocolConnection,
  ) {
    connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      this.publications.push(params)
      for (const listener of this.listeners) listener()
    })
    connection.onNotification('window/logMessage', () => {})
    connection.onError(() => {})
    connection.onClose(() => {})
    child.stderr!.on('data', (chunk: Buffer) => this.stderr.push(chunk.toString()))
    child.stdin!.on('error', () => {})
    this.exited = new Promise((done) => child.once('exit', (code) => done((this.exitCode = code))))
  }

  static async start(cwd = ws): Promise<Client> {
    const child = spawn(process.execPath, [CLI, 'lsp', '--stdio'], { cwd, stdio: ['pipe', 'pipe', 'pipe'] })
    const connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!))
    connection.listen()
    const client = new Client(child, connection)
    await within(
      connection.sendRequest(InitializeRequest.type, {
        processId: process.pid,
        rootUri: pathToFileURL(cwd).href,
        capabilities: { textDocument: { publishDiagnostics: { relatedInformation: true }, hover: { contentFormat: ['markdown'] } } },
        workspaceFolders: null,
      }),
      'initialize',
    )
    void connection.sendNotification(InitializedNotification.type, {})
    return client
  }

  /** The first publication for `uri` from index `since` on that satisfies `test` (already received, or within WAIT_MS). */
  published(uri: string, test: (p: PublishDiagnosticsParams) => boolean, since = 0, what = 'a publication', ms = WAIT_MS): Promise<PublishDiagnosticsParams> {
    return new Promise((done, fail) => {
      const look = () => {
        const found = this.publications.slice(since).find((p) => p.uri === uri && test(p))
        if (!found) return false
        clearTimeout(timer)
        this.listeners.delete(check)
        done(found)
        return true
      }
      const check = () => void look()
      const timer = setTimeout(() => {
        this.listeners.delete(check)
        const seen = this.publications.filter((p) => p.uri === uri).map((p) => `v${p.version}: ${p.diagnostics.map((d) => d.code).join(',') || 'none'}`)
        fail(new Error(`no ${what} for ${uri} within ${ms} ms (seen: ${seen.slice(-5).join(' | ') || 'nothing'}; stderr: ${this.stderr.join('')})`))
      }, ms)
      if (!look()) this.listeners.add(check)
    })
  }

  async checked(uri: string, version: number, ms = WAIT_MS): Promise<LspDiagnostic[]> {
    return (await this.published(uri, (p) => p.version === version, 0, `publication of version ${version}`, ms)).diagnostics
  }

  /** A run of checks has ended: a fresh document opened now is published (bounded). */
  async settled(): Promise<void> {
    const uri = this.open(join(ws, 'sentinel', `s${++sentinels}.spec.json`), '{')
    await this.checked(uri, 1)
    this.close(uri)
  }

  last(uri: string): PublishDiagnosticsParams | undefined {
    return this.publications.filter((p) => p.uri === uri).at(-1)
  }

  openUri(uri: string, text: string, languageId = 'json', version = 1): string {
    this.versions.set(uri, version)
    void this.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId, version, text } })
    return uri
  }

  open(file: string, text: string): string {
    return this.openUri(pathToFileURL(file).href, text, file.endsWith('.json') ? 'json' : 'yaml')
  }

  change(uri: string, ...contentChanges: TextDocumentContentChangeEvent[]): number {
    const version = (this.versions.get(uri) ?? 0) + 1
    this.versions.set(uri, version)
    void this.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges })
    return version
  }

  close(uri: string): void {
    void this.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } })
  }

  hover(uri: string, line: number, character: number): Promise<Hover | null> {
    return within(this.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line, character } }), 'a hover')
  }

  kill(): void {
    this.connection.dispose()
    this.child.kill()
  }
}

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new Error(`no answer: ${what} within ${WAIT_MS} ms`)), WAIT_MS))),
  ])
}

interface Seen {
  code: string
  start: { line: number; character: number }
}

/** `contracts check --json` on files on disk (bounded: a FIFO must not hang the oracle): LSP start positions by file. */
function checkOnDisk(files: string[]): Map<string, Seen[]> {
  const r = spawnSync(process.execPath, [CLI, 'check', '--json', ...files], { cwd: ws, encoding: 'utf8', timeout: WAIT_MS })
  if (r.error) throw r.error
  const byFile = new Map<string, Seen[]>()
  for (const d of (JSON.parse(r.stdout) as { diagnostics: Array<{ code: string; file: string; line: number; column: number }> }).diagnostics) {
    const list = byFile.get(d.file) ?? []
    byFile.set(d.file, list)
    list.push({ code: d.code, start: { line: d.line - 1, character: d.column - 1 } })
  }
  return byFile
}

const seen = (diagnostics: LspDiagnostic[]): Seen[] => diagnostics.map((d) => ({ code: String(d.code), start: d.range.start }))
const markdown = (hover: Hover | null) => (hover?.contents as MarkupContent | undefined)?.value ?? ''
/** The HTML a Markdown renderer (CommonMark, HTML allowed, as an editor's hover renders it) makes of a hover. */
const rendered = (text: string) => new MarkdownIt({ html: true }).render(text)
/** Elements the contract's text must never become in a rendered hover (escaped, they render as text). */
const INJECTED = /<(img|b|script|div)\b|<a\s/

/** The text after `changes`, as LSP 3.17 defines them (the reference implementation's reading). */
function applied(text: string, changes: TextDocumentContentChangeEvent[]): string {
  const doc = TextDocument.create('file:///x', 'json', 1, text)
  return TextDocument.update(doc, changes, 2).getText()
}

/** A one-line Benzene contract whose `$ref` is malformed: BENZENE_REF_FORM at the `"#/nope"` string. */
const oneLine = (title: string) => `{"openapi":"3.0.1","info":{"title":"${title}","version":"1"},"requests":[{"topic":"a","request":{"$ref":"#/nope"}}]}`
const pretty = (title: string) => JSON.stringify(JSON.parse(oneLine(title)), null, 2)

let client: Client
beforeAll(async () => {
  client = await Client.start()
})
afterAll(() => {
  client?.kill()
  rmSync(tmp, { recursive: true, force: true })
})

/** Opens `text` unsaved at `name`, sends `batches` (one didChange each), and holds the last publication equal to `check` on the final text. */
async function editAndCompare(name: string, text: string, batches: TextDocumentContentChangeEvent[][]) {
  const folder = join(ws, 'inc')
  const disk = join(ws, 'inc-disk')
  mkdirSync(folder, { recursive: true })
  mkdirSync(disk, { recursive: true })
  const uri = client.open(join(folder, name), text)
  let final = text
  let version = 1
  for (const changes of batches) {
    final = applied(final, changes)
    version = client.change(uri, ...changes)
  }
  const published = await client.checked(uri, version)
  writeFileSync(join(disk, name), final)
  const expected = checkOnDisk([join(disk, name)]).get(join(disk, name)) ?? []
  return { published, expected, final, uri }
}

describe('incremental sync at the edges (final text as LSP 3.17 defines it; diagnostics as `contracts check --json` on it)', () => {
  it('a range past the end of a line: the character defaults back to the line length', async () => {
    // Holds (pinned): LSP 3.17 Position: "If the character value is greater than the line length it defaults back to the line length."
    const text = pretty('x')
    const line = text.split('\n').findIndex((l) => l.includes('"title"'))
    const r = await editAndCompare('past-line.spec.json', text, [[{ range: { start: { line, character: 500 }, end: { line, character: 900 } }, text: ' ' }]])
    expect(seen(r.published)).toEqual(r.expected)
    expect(r.expected.length).toBeGreaterThan(0)
  })

  it('a range past the end of the document: appended at the end', async () => {
    // Holds (pinned): a line past the last one is the end of the document.
    const text = pretty('x')
    const r = await editAndCompare('past-doc.spec.json', text, [
      [{ range: { start: { line: 9_999, character: 3 }, end: { line: 99_999, character: 0 } }, text: '\n{' }],
    ])
    expect(seen(r.published)).toEqual(r.expected)
    expect(r.expected.map((d) => d.code)).toEqual(['JSON_SYNTAX'])
  })

  it('a range that splits a surrogate pair (an emoji) before the error', async () => {
    // Holds (pinned): UTF-16 columns count the lone surrogates as the client does.
    const text = oneLine('a😀b😀c')
    const at = text.indexOf('😀')
    const r = await editAndCompare('surrogate.spec.json', text, [
      [{ range: { start: { line: 0, character: at + 1 }, end: { line: 0, character: at + 1 } }, text: 'é' }],
      [{ range: { start: { line: 0, character: at + 4 }, end: { line: 0, character: at + 5 } }, text: '' }],
    ])
    expect(seen(r.published)).toEqual(r.expected)
    expect(r.expected.map((d) => d.code)).toContain('BENZENE_REF_FORM')
  })

  it('a range whose character falls between the CR and LF of a CRLF: clamped to the line end, as LSP defines it', async () => {
    // Holds (pinned): the character past a CRLF line's length is that line's end, before the CR (LSP 3.17 Position).
    const text = pretty('x').replace(/\n/g, '\r\n')
    const lines = text.split('\r\n')
    const line = lines.findIndex((l) => l.includes('"title"'))
    const len = lines[line]!.length
    // The character is the line's length + 1: past the line, so back to its end (before the CR).
    const r = await editAndCompare('crlf-split.spec.json', text, [
      [{ range: { start: { line, character: len + 1 }, end: { line, character: len + 1 } }, text: 'X' }],
    ])
    expect(r.final.split('\r\n')[line]).toBe(lines[line] + 'X')
    expect(seen(r.published)).toEqual(r.expected)
  })

  it('a range that ends between CR and LF while deleting across lines', async () => {
    // Holds (pinned): a deletion ending past a CRLF line's end and a lone CR inserted later are read as LSP defines them.
    const text = pretty('x').replace(/\n/g, '\r\n')
    const lines = text.split('\r\n')
    const line = lines.findIndex((l) => l.includes('"title"'))
    const r = await editAndCompare('crlf-span.spec.json', text, [
      [{ range: { start: { line: line - 1, character: 2 }, end: { line, character: lines[line]!.length + 1 } }, text: '' }],
      [{ range: { start: { line: line + 2, character: 0 }, end: { line: line + 2, character: 0 } }, text: '\r' }],
    ])
    expect(seen(r.published)).toEqual(r.expected)
  })

  it('empty-text changes: a deletion, and a whole text emptied', async () => {
    // Holds (pinned): an empty replacement deletes; an empty whole text is checked as an empty file is.
    const text = pretty('x')
    const at = text.split('\n').findIndex((l) => l.includes('"#/nope"'))
    const del = await editAndCompare('empty-range.spec.json', text, [
      [{ range: { start: { line: at, character: 0 }, end: { line: at + 1, character: 0 } }, text: '' }],
    ])
    expect(seen(del.published)).toEqual(del.expected)
    const whole = await editAndCompare('empty-whole.spec.json', text, [[{ text: '' }]])
    expect(seen(whole.published)).toEqual(whole.expected)
    expect(whole.expected.length).toBeGreaterThan(0)
  })

  it('ranged and whole-text changes in one notification, applied in order', async () => {
    // Holds (pinned): LSP 3.17 didChange: changes apply in the order sent, a whole text replacing everything before it.
    const text = oneLine('x')
    const base = pretty('yy')
    const ref = base.split('\n').findIndex((l) => l.includes('"#/nope"'))
    const r = await editAndCompare('mixed.spec.json', text, [
      [
        { range: { start: { line: 0, character: 1 }, end: { line: 0, character: 5 } }, text: 'garbage that the next change replaces' },
        { text: base },
        { range: { start: { line: ref, character: 0 }, end: { line: ref, character: 0 } }, text: '\n\n  ' },
        { range: { start: { line: 1, character: 2 }, end: { line: 1, character: 2 } }, text: '😀' },
      ],
    ])
    expect(seen(r.published)).toEqual(r.expected)
    expect(r.expected.length).toBeGreaterThan(0)
  })

  it('3,000 one-character edits in a burst: the last version is published and equals the check of the final text', async () => {
    // Holds (pinned): the last of a burst is published, versions never go backwards, and it equals the check of the final text.
    const text = pretty('x')
    const titleLine = text.split('\n').findIndex((l) => l.includes('"title"'))
    const col = text.split('\n')[titleLine]!.indexOf('"x"') + 2
    const batches: TextDocumentContentChangeEvent[][] = []
    for (let i = 0; i < 3_000; i++) {
      // Type, then every tenth keystroke deletes one back; the 2,999th leaves a broken title (an unclosed string).
      const pos = { line: titleLine, character: col + (i % 7) }
      batches.push(
        i % 10 === 9
          ? [{ range: { start: { line: titleLine, character: col }, end: { line: titleLine, character: col + 1 } }, text: '' }]
          : [{ range: { start: pos, end: pos }, text: i === 2_999 ? '"' : 'é😀'[i % 2]! }],
      )
    }
    const r = await editAndCompare('burst.spec.json', text, batches)
    expect(seen(r.published)).toEqual(r.expected)
    const versions = client.publications.filter((p) => p.uri === r.uri).map((p) => p.version ?? 0)
    expect(versions).toEqual([...versions].sort((a, b) => a - b))
  })
})

describe('versions out of order and notifications for documents in the wrong state', () => {
  const folder = join(ws, 'versions')
  beforeAll(() => mkdirSync(folder, { recursive: true }))

  it('a didChange with an older version than the last: no crash; the server answers and publishes later edits', async () => {
    const uri = client.open(join(folder, 'older.spec.json'), pretty('x'))
    await client.checked(uri, 1)
    void client.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version: 10 }, contentChanges: [{ text: '{' }] })
    expect((await client.checked(uri, 10)).map((d) => d.code)).toEqual(['JSON_SYNTAX'])
    void client.connection.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version: 5 },
      contentChanges: [{ text: pretty('y') }],
    })
    // Holds (pinned): a version older than the last (a client breaking LSP's "the version increases") is not refused:
    // its text is taken as the document and published with the version it came with.
    expect((await client.checked(uri, 5)).map((d) => d.code)).toContain('BENZENE_REF_FORM')
    void client.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version: 11 }, contentChanges: [{ text: '[' }] })
    expect((await client.checked(uri, 11)).map((d) => d.code)).toEqual(['JSON_SYNTAX'])
    expect(client.child.exitCode).toBeNull()
  })

  it('malformed edits (a reversed range, negative numbers, an empty list of changes): read as the reference does, no crash', async () => {
    // Holds (pinned): a reversed range is the same range the right way round and a negative line or character is the
    // start of the document or line, as vscode-languageserver-textdocument reads them; the result is checked like any text.
    const r = await editAndCompare('malformed.spec.json', pretty('x'), [
      [{ range: { start: { line: 3, character: 4 }, end: { line: 1, character: 0 } }, text: 'R' }],
      [{ range: { start: { line: -1, character: -5 }, end: { line: 0, character: -1 } }, text: '\n\n' }],
    ])
    expect(seen(r.published)).toEqual(r.expected)
    client.change(r.uri)
    expect((await client.checked(r.uri, client.change(r.uri, { text: '{' }))).map((d) => d.code)).toEqual(['JSON_SYNTAX'])
    expect(client.child.exitCode).toBeNull()
  })

  it('an edit that leaves the diagnostics as they were is still published, with its version', async () => {
    const valid = readFileSync(join(root, 'fixtures/benzene/valid/payments.spec.json'), 'utf8')
    const clean = client.open(join(folder, 'clean.spec.json'), valid)
    expect(await client.checked(clean, 1)).toEqual([])
    const broken = client.open(join(folder, 'broken.spec.json'), pretty('x'))
    const first = seen(await client.checked(broken, 1))
    const end = { line: 9_999, character: 0 }
    const v1 = client.change(clean, { range: { start: end, end }, text: '\n' })
    const v2 = client.change(broken, { range: { start: end, end }, text: '\n' })
    await client.settled()
    const [a, b] = await Promise.allSettled([client.checked(clean, v1, GRACE_MS), client.checked(broken, v2, GRACE_MS)])
    // Was a defect (fixed): after an edit that left a contract's diagnostics as they were (here a trailing newline),
    // nothing was published for the new version: neither for the clean contract ([] again) nor for the broken one (the
    // same errors). Now each check of an open contract is published with the version it checked. docs/editors.md: "A
    // checked contract without problems is published with none, so the editor knows it was checked."
    expect([
      a.status === 'fulfilled' ? a.value : 'no publication of version 2 (clean)',
      b.status === 'fulfilled' ? seen(b.value) : 'no publication of version 2 (broken)',
    ]).toEqual([[], first])
  })

  it('didOpen twice for one URI: the second text is the document', async () => {
    // Holds (pinned): the second open replaces the first (its version and text are published).
    const uri = pathToFileURL(join(folder, 'twice.spec.json')).href
    client.openUri(uri, pretty('x'))
    client.openUri(uri, '{', 'json', 7)
    const d = await client.checked(uri, 7)
    expect(d.map((x) => x.code)).toEqual(['JSON_SYNTAX'])
  })

  it('didClose of a URI never opened, and didChange of a closed document: nothing published for them, no crash', async () => {
    const never = pathToFileURL(join(folder, 'never.spec.json')).href
    client.close(never)
    const uri = client.open(join(folder, 'closed.spec.json'), pretty('x'))
    await client.checked(uri, 1)
    client.close(uri)
    await client.published(uri, (p) => p.version === undefined && p.diagnostics.length === 0, 0, 'the clearing on close')
    const before = client.publications.length
    void client.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version: 2 }, contentChanges: [{ text: '{' }] })
    void client.connection.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version: 3 },
      contentChanges: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '{' }],
    })
    // A later document's check runs after anything the closed one's edits would have started.
    const later = client.open(join(folder, 'later.spec.json'), '{')
    await client.checked(later, 1)
    // Holds (pinned): an edit to a document that is not open is dropped: nothing is published for it.
    expect(client.publications.slice(before).filter((p) => p.uri === uri || p.uri === never)).toEqual([])
    expect(client.child.exitCode).toBeNull()
  })
})

describe('files on disk that change under an open document (not open in the editor)', () => {
  // A bundle copied from fixtures/nats/shop with an unlocked service (ledger) that `$ref`s the locked native/streams.json.
  const bundle = join(ws, 'shop')
  const ledger = join(bundle, 'ledger/asyncapi.yaml')
  const streams = join(bundle, 'native/streams.json')
  const lock = join(bundle, 'bundle.lock.json')
  const ledgerBase = readFileSync(join(root, 'fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8').replace(
    "$ref: '#/components/messages/EntryPosted'",
    "$ref: '../native/streams.json#/streams/1'",
  )
  const streamsText = readFileSync(join(root, 'fixtures/nats/shop/native/streams.json'), 'utf8')
  const lockText = readFileSync(join(root, 'fixtures/nats/shop/bundle.lock.json'), 'utf8')
  let uri: string
  let edits = 0

  beforeAll(async () => {
    cpSync(join(root, 'fixtures/nats/shop'), bundle, { recursive: true })
    mkdirSync(dirname(ledger))
    writeFileSync(ledger, ledgerBase)
    uri = client.open(ledger, ledgerBase)
    await client.checked(uri, 1)
  })

  /** Edits the open ledger (a comment line; the same text saved, so the CLI checks what the editor holds) and compares every file's latest publication with the CLI. */
  async function editThenCompare() {
    edits++
    const text = `${ledgerBase}# edit ${edits}\n`
    writeFileSync(ledger, text)
    const before = client.publications.length
    client.change(uri, { range: { start: { line: 999, character: 0 }, end: { line: 999, character: 0 } }, text: `# edit ${edits}\n` })
    // The end of the check is told by two later documents (the second opens after the first's run, so after the
    // ledger's): written when the server published nothing for a version whose diagnostics did not change (fixed above),
    // it also waits for the lock's and the locked document's publications of the same run.
    await client.settled()
    await client.settled()
    const expected = checkOnDisk([ledger])
    const files = [ledger, lock, streams]
    // Other files' publications of this run follow the document's (bounded wait until they agree, then held equal).
    const latest = () => Object.fromEntries(files.map((f) => [f, seen(client.last(pathToFileURL(f).href)?.diagnostics ?? [])]))
    const wanted = Object.fromEntries(files.map((f) => [f, expected.get(f) ?? []]))
    const end = Date.now() + 3_000
    while (JSON.stringify(latest()) !== JSON.stringify(wanted) && Date.now() < end) await new Promise((r) => setTimeout(r, 50))
    expect(latest()).toEqual(wanted)
    const all = JSON.stringify(client.publications.slice(before))
    expect(all).not.toContain(SECRET)
    return wanted
  }

  const restore = () => {
    rmSync(streams, { recursive: true, force: true })
    writeFileSync(streams, streamsText)
    rmSync(lock, { recursive: true, force: true })
    writeFileSync(lock, lockText)
  }

  it('the locked document edited on disk: NATS_LOCK_DIGEST at the lock, as the CLI says', async () => {
    writeFileSync(streams, streamsText.replace('PAYMENTS', 'PAYMENTZ'))
    const wanted = await editThenCompare()
    // Holds (pinned): a locked document changed on disk is read again at the next check of the open contract.
    expect(wanted[lock]!.map((d) => d.code)).toEqual(['NATS_LOCK_DIGEST'])
    restore()
  })

  it('the locked document deleted', async () => {
    // Holds (pinned): NATS_LOCKED_FILE_MISSING at the lock and the $ref, as the CLI says.
    rmSync(streams)
    const wanted = await editThenCompare()
    expect(wanted[lock]!.map((d) => d.code)).toEqual(['NATS_LOCKED_FILE_MISSING'])
    restore()
  })

  it('the locked document replaced by a link to a file outside the tree: never read', async () => {
    // Holds (pinned): NATS_LOCK_PATH as the CLI says; the secret never appears in a publication or the hover.
    rmSync(streams)
    symlinkSync(secretFile, streams)
    const wanted = await editThenCompare()
    expect(wanted[lock]!.map((d) => d.code)).toEqual(['NATS_LOCK_PATH'])
    const at = ledgerBase.split('\n').findIndex((l) => l.includes('../native/streams.json'))
    const hover = markdown(await client.hover(uri, at, ledgerBase.split('\n')[at]!.indexOf('streams.json') + 2))
    expect(hover).not.toContain(SECRET)
    restore()
  })

  it('the locked document replaced by a folder, then by a FIFO: answered, never a hang', async () => {
    // Holds (pinned): NATS_LOCK_PATH for both, as the CLI says; neither the check nor a hover hangs on the FIFO.
    rmSync(streams)
    mkdirSync(streams)
    expect((await editThenCompare())[lock]!.map((d) => d.code)).toEqual(['NATS_LOCK_PATH'])
    rmSync(streams, { recursive: true })
    spawnSync('mkfifo', [streams])
    expect((await editThenCompare())[lock]!.map((d) => d.code)).toEqual(['NATS_LOCK_PATH'])
    const at = ledgerBase.split('\n').findIndex((l) => l.includes('../native/streams.json'))
    await client.hover(uri, at, ledgerBase.split('\n')[at]!.indexOf('streams.json') + 2)
    restore()
  })

  it('the lock replaced by a link to a file outside the tree, then edited back: CONTRACTS_SYMLINK, then cleared', async () => {
    // Holds (pinned): CONTRACTS_SYMLINK at the lock as the CLI says, then cleared once restored; the secret is never shown.
    rmSync(lock)
    symlinkSync(secretFile, lock)
    expect((await editThenCompare())[lock]!.map((d) => d.code)).toEqual(['CONTRACTS_SYMLINK'])
    restore()
    await editThenCompare()
  })

  it('the lock replaced by a folder', async () => {
    // Holds (pinned): the diagnostics the CLI reports, then cleared once restored.
    rmSync(lock)
    mkdirSync(lock)
    await editThenCompare()
    restore()
    await editThenCompare()
    expect(client.child.exitCode).toBeNull()
  })
})

describe('hover at odd places', () => {
  const folder = join(ws, 'hover')
  const schemas = {
    'a/b~c': { type: 'object', properties: { x: { type: 'string' } } },
    'a b': { type: 'string', enum: ['</div><script>alert(1)</script>', '*bold* `tick`'] },
    Html: {
      type: 'object',
      description: '```\n<img src=x onerror=alert(1)>\n```',
      required: ['<img src=x onerror=alert(1)>'],
      properties: { '<img src=x onerror=alert(1)>': { type: 'string' }, '`x`|[l](javascript:alert(1))': { type: 'string' } },
    },
  }
  const contract = (refs: string[]) =>
    JSON.stringify(
      {
        openapi: '3.0.1',
        info: { title: 't', version: '1' },
        requests: refs.map((ref, i) => ({ topic: `t${i}`, request: { $ref: ref }, response: { $ref: '#/components/schemas/Html' } })),
        events: [],
        components: { schemas },
      },
      null,
      2,
    )
  const refs = ['#/components/schemas/a~1b~0c', '#/components/schemas/a%20b', '#/components/schemas/Missing']
  const text = contract(refs)
  let uri: string
  const at = (needle: string, plus = 3) => {
    const lines = text.split('\n')
    const line = lines.findIndex((l) => l.includes(needle))
    return { line, character: lines[line]!.indexOf(needle) + plus }
  }

  beforeAll(async () => {
    mkdirSync(folder, { recursive: true })
    uri = client.open(join(folder, 'hover.spec.json'), text)
    await client.checked(uri, 1)
  })

  it('a $ref with ~0/~1 escapes resolves to the member it names', async () => {
    const p = at('"#/components/schemas/a~1b~0c"')
    const h = markdown(await client.hover(uri, p.line, p.character))
    // Holds (pinned): the escaped pointer is resolved to the "a/b~c" schema's line.
    const line = Number(/line (\d+)/.exec(h)?.[1])
    expect(text.split('\n')[line - 1]).toContain('"a/b~c"')
  })

  it('a description and a property name shown in the one-line summary are escaped', async () => {
    const folder2 = join(ws, 'hover-summary')
    mkdirSync(folder2, { recursive: true })
    const summary = JSON.stringify(
      {
        openapi: '3.0.1',
        info: { title: 't', version: '1' },
        requests: [{ topic: 't', request: { $ref: '#/components/schemas/S' }, response: { $ref: '#/components/schemas/S' } }],
        events: [],
        components: {
          schemas: {
            S: {
              type: 'object',
              description: 'plain <img src=x onerror=alert(1)> [l](javascript:alert(1))',
              properties: { 'a` <b>x</b> `b': { type: 'string' } },
            },
          },
        },
      },
      null,
      2,
    )
    const suri = client.open(join(folder2, 'summary.spec.json'), summary)
    await client.checked(suri, 1)
    const lines = summary.split('\n')
    const line = lines.findIndex((l) => l.includes('"#/components/schemas/S"'))
    const h = markdown(await client.hover(suri, line, lines[line]!.indexOf('#/components') + 2))
    // Was a defect (fixed): the schema's description and property names were written into the hover's Markdown as
    // they are: a description's `<img …>` rendered as an image element, and a property name holding backticks closed
    // the code span the hover put it in, so its `<b>` rendered as HTML. Now contract text in a hover is escaped (or in
    // a code span it cannot close) and renders as the text it is (docs/editors.md, Hover).
    expect(rendered(h), h).not.toMatch(INJECTED)
  })

  it('a $ref with percent-encoding, and one to a missing target: a hover, no failure', async () => {
    // Holds (pinned): both answered with a hover naming the reference.
    const p = at('"#/components/schemas/a%20b"')
    const encoded = markdown(await client.hover(uri, p.line, p.character))
    expect(encoded).toContain('a%20b')
    const m = at('"#/components/schemas/Missing"')
    const missing = markdown(await client.hover(uri, m.line, m.character))
    expect(missing).toContain('Missing')
  })

  it('contract text shown outside a code block is Markdown-safe (no raw HTML, no link, code spans intact)', async () => {
    // Holds (pinned): a description holding a code fence and HTML, and names holding backticks, render as text here.
    const p = at('"#/components/schemas/Html"')
    const h = markdown(await client.hover(uri, p.line, p.character))
    expect(h).toContain('<img src=x onerror=alert(1)>')
    expect(rendered(h), h).not.toMatch(INJECTED)
    const e = at('"#/components/schemas/a%20b"')
    const enumHover = markdown(await client.hover(uri, e.line, e.character))
    expect(rendered(enumHover), enumHover).not.toMatch(INJECTED)
  })

  it('positions past the end of a line and of the document, and a negative-free huge line: null or a hover, never an error', async () => {
    // Holds (pinned): null for a position past a line's end or the document's, never an error.
    expect(await client.hover(uri, 0, 10_000)).toBeNull()
    expect(await client.hover(uri, 100_000, 0)).toBeNull()
    expect(await client.hover(uri, 2 ** 31 - 1, 2 ** 31 - 1)).toBeNull()
  })

  it('right after an edit (before its check ran): the hover reads the edited text', async () => {
    const lines = text.split('\n')
    const line = lines.findIndex((l) => l.includes('"#/components/schemas/Missing"'))
    const col = lines[line]!.indexOf('Missing')
    client.change(uri, { range: { start: { line, character: col }, end: { line, character: col + 'Missing'.length } }, text: 'Html' })
    const h = markdown(await client.hover(uri, line, col))
    // Holds (pinned): the hover is answered from the text as of the last didChange.
    expect(h).toContain('#/components/schemas/Html')
  })

  it('a $ref in YAML to a message whose description holds a code fence and HTML: the hover shows it as text', async () => {
    const nats = join(ws, 'hover-nats')
    cpSync(join(root, 'fixtures/nats/shop'), nats, { recursive: true })
    const file = join(nats, 'ledger/asyncapi.yaml')
    mkdirSync(dirname(file))
    const yaml = readFileSync(join(root, 'fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8').replace(
      '    EntryPosted:\n      payload:\n',
      '    EntryPosted:\n      description: |\n        ok\n\n        ```\n\n        <img src=x onerror=alert(1)> [x](javascript:alert(1))\n      payload:\n',
    )
    writeFileSync(file, yaml)
    const yuri = client.open(file, yaml)
    await client.checked(yuri, 1)
    const lines = yaml.split('\n')
    const line = lines.findIndex((l) => l.includes("$ref: '#/components/messages/EntryPosted'"))
    const h = markdown(await client.hover(yuri, line, lines[line]!.indexOf('#/components') + 3))
    expect(h).toContain('EntryPosted')
    // Was a defect (fixed): the fenced JSON block was safe, but the line above it showed the message's description
    // raw: its `<img …>` rendered as an image element and `[x](javascript:…)` as link syntax. Now escaped.
    expect(rendered(h), h).not.toMatch(INJECTED)
  })

  it('a $ref to a huge file in the tree: a bounded hover', async () => {
    // Holds (pinned): a 12 MB target's hover is short.
    const nats = join(ws, 'hover-huge')
    cpSync(join(root, 'fixtures/nats/shop'), nats, { recursive: true })
    const file = join(nats, 'ledger/asyncapi.yaml')
    mkdirSync(dirname(file))
    writeFileSync(join(nats, 'huge.json'), JSON.stringify({ big: { type: 'string', description: 'y'.repeat(12 * 1024 * 1024) } }, null, 2))
    const yaml = readFileSync(join(root, 'fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8').replace(
      'cents: { type: integer }',
      "cents: { $ref: '../huge.json#/big' }",
    )
    const yuri = client.open(file, yaml)
    await client.checked(yuri, 1)
    const lines = yaml.split('\n')
    const line = lines.findIndex((l) => l.includes('../huge.json#/big'))
    const h = markdown(await client.hover(yuri, line, lines[line]!.indexOf('huge.json') + 2))
    expect(h.length).toBeLessThan(20_000)
  })

  it('a placeholder with odd names in a NATS address', async () => {
    const nats = join(ws, 'hover-odd')
    mkdirSync(nats, { recursive: true })
    const file = join(nats, 'odd.asyncapi.yaml')
    const yaml = readFileSync(join(root, 'fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8')
      .replace('address: ledger.{region}.{entryId}.posted', 'address: ledger.{<b>x</b>}.{}.{`a`}.{entryId}.posted')
      .replace('{ region: region', '{ region: region')
    const yuri = client.open(file, yaml)
    await client.checked(yuri, 1)
    const lines = yaml.split('\n')
    const line = lines.findIndex((l) => l.includes('address: ledger.{<b>'))
    const shown: string[] = []
    for (const needle of ['{<b>', '{}', '{`a`', '{entryId']) shown.push(markdown(await client.hover(yuri, line, lines[line]!.indexOf(needle) + 1)))
    expect(shown[3]).toContain('token type `entryId`')
    // Was a defect (fixed): the placeholder's name was written in bold as it is: `**{<b>x</b>}**` rendered a <b>
    // element (the same name later in the hover was in a code span and safe). Now escaped.
    for (const h of shown) expect(rendered(h), h).not.toMatch(INJECTED)
  })
})

describe('URIs in odd spellings and schemes', () => {
  it('a path with spaces, #, % and non-ASCII: diagnostics go to the URI the editor sent, at the check’s positions', async () => {
    // Holds (pinned): published to the URI sent, with the CLI's codes and positions.
    const folder = join(ws, 'odd name # 100% é 😀')
    mkdirSync(folder, { recursive: true })
    const file = join(folder, 'a b#c%20.spec.json')
    const text = pretty('x')
    writeFileSync(file, text)
    const uri = client.open(file, text)
    expect(uri).toContain('%23')
    const d = await client.checked(uri, 1)
    expect(seen(d)).toEqual(checkOnDisk([file]).get(file))
  })

  it('file://localhost/… names the same file: checked, published to that URI', async () => {
    const folder = join(ws, 'localhost')
    mkdirSync(folder, { recursive: true })
    const file = join(folder, 'l.spec.json')
    const uri = client.openUri(pathToFileURL(file).href.replace('file:///', 'file://localhost/'), '{')
    // Holds (pinned): RFC 8089: "localhost" is the local host.
    expect((await client.checked(uri, 1)).map((d) => d.code)).toEqual(['JSON_SYNTAX'])
  })

  it('a query or a fragment on a file URI: the server does not crash and still answers', async () => {
    // Holds (pinned): no crash; the server goes on.
    const folder = join(ws, 'query')
    mkdirSync(folder, { recursive: true })
    const base = pathToFileURL(join(folder, 'q.spec.json')).href
    client.openUri(`${base}?x=1`, '{')
    client.openUri(`${base}#frag`, '{')
    const later = client.open(join(folder, 'after.spec.json'), '{')
    await client.checked(later, 1)
    expect(client.child.exitCode).toBeNull()
  })

  it('a URI whose path is a folder, and other schemes: no diagnostics, no crash', async () => {
    // Holds (pinned): docs/editors.md: documents of another scheme than file: get no diagnostics.
    const folder = join(ws, 'dir.spec.json')
    mkdirSync(folder, { recursive: true })
    const before = client.publications.length
    client.openUri(pathToFileURL(folder).href + '/', '{')
    for (const scheme of ['git:/x/a.spec.json?{}', 'vscode-notebook-cell:/x/a.spec.json#c1', 'vscode-remote://ssh/x/a.spec.json', 'untitled:a.spec.json']) {
      client.openUri(scheme, '{')
    }
    const later = client.open(join(ws, 'after-schemes.spec.json'), '{')
    await client.checked(later, 1)
    const others = client.publications.slice(before).filter((p) => !p.uri.startsWith('file:'))
    expect(others).toEqual([])
    expect(client.child.exitCode).toBeNull()
  })
})

describe('lifecycle', () => {
  it('exit without shutdown: exit code 1 (LSP 3.17: "exit code 1 otherwise")', async () => {
    // Holds (pinned): exit code 1.
    const own = await Client.start()
    void own.connection.sendNotification(ExitNotification.type)
    expect(await within(own.exited, 'exit')).toBe(1)
  })

  it('requests after shutdown: InvalidRequest; then exit: 0', async () => {
    const own = await Client.start()
    await within(own.connection.sendRequest(ShutdownRequest.type), 'shutdown')
    const uri = pathToFileURL(join(ws, 'after-shutdown.spec.json')).href
    // Was a defect (fixed): a hover sent after the shutdown request was answered (null) like any other. Now an
    // InvalidRequest error (-32600). LSP 3.17, Shutdown Request: "If a server receives requests after a shutdown
    // request those requests should error with InvalidRequest."
    await expect(
      within(own.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 0, character: 0 } }), 'hover'),
    ).rejects.toMatchObject({
      code: -32600,
    })
    void own.connection.sendNotification(ExitNotification.type)
    expect(await within(own.exited, 'exit')).toBe(0)
  })

  it('$/cancelRequest of a hover: answered (result or RequestCancelled), the server goes on', async () => {
    // Holds (pinned): the cancelled hover is answered (a result or RequestCancelled) and checks go on.
    const file = join(ws, 'cancel.spec.json')
    const uri = client.open(file, pretty('x'))
    const source = new CancellationTokenSource()
    const p = client.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 1, character: 3 } }, source.token)
    source.cancel()
    await within(
      p.then(
        () => undefined,
        (e: { code?: number }) => expect(e.code).toBe(-32800),
      ),
      'the cancelled hover',
    )
    expect((await client.checked(uri, 1)).map((d) => d.code)).toContain('BENZENE_REF_FORM')
  })

  it('the client closes stdin mid-check: the server exits without a crash report', async () => {
    // Holds (pinned): the server exits, with no stack trace on stderr.
    const own = await Client.start()
    const big = JSON.stringify({ openapi: '3.0.1', info: { title: 'x'.repeat(3_000_000), version: '1' } })
    const uri = own.open(join(ws, 'gone.spec.json'), big)
    await own.hover(uri, 0, 1)
    own.connection.dispose()
    own.child.stdin!.end()
    const code = await within(own.exited, 'exit after stdin closed')
    expect(code).not.toBeNull()
    expect(own.stderr.join('')).not.toMatch(/Error:|at .*\.js:\d+/)
  })
})

describe('many documents', () => {
  it('200 open contracts, then an edit of one: every publication arrives within the bound and stays correct', async () => {
    // Holds (pinned): all 200 published, each equal to the CLI's check, and one edit republishes few documents.
    const own = await Client.start()
    try {
      const folder = join(ws, 'many')
      mkdirSync(folder, { recursive: true })
      const valid = readFileSync(join(root, 'fixtures/benzene/valid/payments.spec.json'), 'utf8')
      const broken = valid.replace('#/components/schemas/PaymentDto"', '#/components/schemas/Nope"')
      const uris: string[] = []
      for (let i = 0; i < 200; i++) uris.push(own.open(join(folder, `c${i}.spec.json`), i % 2 ? broken : valid))
      for (const uri of uris) await own.checked(uri, 1)
      writeFileSync(join(folder, 'valid.spec.json'), valid)
      writeFileSync(join(folder, 'broken.spec.json'), broken)
      const oracle = checkOnDisk([join(folder, 'valid.spec.json'), join(folder, 'broken.spec.json')])
      const expectFor = (i: number) => oracle.get(join(folder, i % 2 ? 'broken.spec.json' : 'valid.spec.json')) ?? []
      const before = own.publications.length
      const version = own.change(uris[0]!, { text: broken })
      expect(seen(await own.checked(uris[0]!, version))).toEqual(expectFor(1))
      for (let i = 1; i < 200; i++) expect(seen(own.last(uris[i]!)!.diagnostics), `c${i}`).toEqual(expectFor(i))
      // Bounded work: the one edit did not publish every other document again.
      expect(own.publications.length - before).toBeLessThan(20)
      expect(own.child.exitCode).toBeNull()
    } finally {
      own.kill()
    }
  })
})

describe('the server never crashed', () => {
  it('still alive, nothing on stderr that looks like a crash, nothing escaped in the test process', async () => {
    // Holds (pinned): after everything above the server still runs and no crash text or secret reached stderr.
    const uri = client.open(join(ws, 'final.spec.json'), '{')
    await client.checked(uri, 1)
    expect(client.child.exitCode).toBeNull()
    expect(client.stderr.join('')).not.toMatch(/TypeError|RangeError|ReferenceError|at .*\.js:\d+/)
    expect(client.stderr.join('')).not.toContain(SECRET)
    expect(escapes).toEqual([])
  })
})
