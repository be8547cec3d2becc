/**
 * `contracts lsp`: the built server (`node dist/cli.js lsp --stdio`, `npm run build` first) driven
 * by a real LSP client over stdio (vscode-languageserver-protocol's connection, as editors' clients
 * use). Diagnostics are held equal, code and position, to `contracts check --json` on the same text
 * written to disk. Every wait is bounded.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import {
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
  type InitializeResult,
  type MarkupContent,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
  type TextDocumentContentChangeEvent,
} from 'vscode-languageserver-protocol/node.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Diagnostic } from '../src/core/diagnostics.js'
import { CLI, contracts } from './helpers/cli.js'

const root = join(import.meta.dirname, '..')
/** How long any one wait may take before the test fails with what it was waiting for. */
const WAIT_MS = 30_000

const tmp = mkdtempSync(join(tmpdir(), 'contracts-lsp-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** A client over the server's stdio: what it was sent, and bounded waits for what it expects. */
class Client {
  readonly publications: PublishDiagnosticsParams[] = []
  private readonly listeners = new Set<() => void>()
  private readonly versions = new Map<string, number>()
  readonly stderr: string[] = []

  private constructor(
    readonly child: ChildProcess,
    readonly connection: ProtocolConnection,
  ) {
    connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      this.publications.push(params)
      for (const listener of this.listeners) listener()
    })
    child.stderr!.on('data', (chunk: Buffer) => this.stderr.push(chunk.toString()))
  }

  static start(cwd: string): Client {
    const child = spawn(process.execPath, [CLI, 'lsp', '--stdio'], { cwd, stdio: ['pipe', 'pipe', 'pipe'] })
    const connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!))
    connection.listen()
    return new Client(child, connection)
  }

  /** The first publication for `uri` from index `since` on that satisfies `test` (already received, or within WAIT_MS). */
  published(uri: string, test: (p: PublishDiagnosticsParams) => boolean, since = 0, what = 'a publication'): Promise<PublishDiagnosticsParams> {
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
        fail(new Error(`no ${what} for ${uri} within ${WAIT_MS} ms (seen: ${seen.join(' | ') || 'nothing'}; stderr: ${this.stderr.join('')})`))
      }, WAIT_MS)
      if (!look()) this.listeners.add(check)
    })
  }

  /** The diagnostics published for `version` of an open document. */
  async checked(uri: string, version: number): Promise<LspDiagnostic[]> {
    return (await this.published(uri, (p) => p.version === version, 0, `publication of version ${version}`)).diagnostics
  }

  open(file: string, text: string, languageId = file.endsWith('.json') ? 'json' : 'yaml'): { uri: string; version: number } {
    const uri = pathToFileURL(file).href
    this.versions.set(uri, 1)
    void this.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId, version: 1, text } })
    return { uri, version: 1 }
  }

  /** Sends edits (ranges or whole texts) as the next version of the document; returns that version. */
  change(uri: string, ...contentChanges: TextDocumentContentChangeEvent[]): number {
    const version = this.versions.get(uri)! + 1
    this.versions.set(uri, version)
    void this.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges })
    return version
  }

  close(uri: string): void {
    void this.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } })
  }

  async hover(uri: string, line: number, character: number): Promise<Hover | null> {
    return within(this.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line, character } }), 'a hover')
  }

  /** The LSP ending: shutdown, exit; the process's exit status. */
  async stop(): Promise<number | null> {
    const exited = new Promise<number | null>((done) => this.child.once('exit', (code) => done(code)))
    await within(this.connection.sendRequest(ShutdownRequest.type), 'the shutdown answer')
    void this.connection.sendNotification(ExitNotification.type)
    return within(exited, 'the server to exit')
  }
}

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new Error(`no answer: ${what} within ${WAIT_MS} ms`)), WAIT_MS))),
  ])
}

/** The position of the first occurrence of `needle` in `text` (0-based line, UTF-16 character). */
function positionOf(text: string, needle: string, plus = 0): { line: number; character: number } {
  const offset = text.indexOf(needle)
  if (offset === -1) throw new Error(`${needle} is not in the text`)
  const before = text.slice(0, offset + plus).split('\n')
  return { line: before.length - 1, character: before.at(-1)!.length }
}

/** An incremental edit: the first `from` in `text` becomes `to`. */
function replacing(text: string, from: string, to: string): TextDocumentContentChangeEvent {
  const start = positionOf(text, from)
  const end = positionOf(text, from, from.length)
  return { range: { start, end }, text: to }
}

/** What `contracts check --json` reports for files on disk, as code and LSP start position per file. */
function checkOnDisk(files: string[]): { status: number | null; byFile: Map<string, Array<{ code: string; start: { line: number; character: number } }>> } {
  const r = contracts(['check', '--json', ...files])
  const byFile = new Map<string, Array<{ code: string; start: { line: number; character: number } }>>()
  for (const d of (JSON.parse(r.stdout) as { diagnostics: Diagnostic[] }).diagnostics) {
    const list = byFile.get(d.file) ?? []
    byFile.set(d.file, list)
    const entry = { code: d.code, start: { line: d.line - 1, character: d.column - 1 } }
    if (!list.some((e) => JSON.stringify(e) === JSON.stringify(entry))) list.push(entry)
  }
  return { status: r.status, byFile }
}

const seen = (diagnostics: LspDiagnostic[]) => diagnostics.map((d) => ({ code: d.code, start: d.range.start }))
const markdown = (hover: Hover | null) => (hover?.contents as MarkupContent | undefined)?.value ?? ''

let client: Client
let initialized: InitializeResult

beforeAll(async () => {
  client = Client.start(tmp)
  initialized = await within(
    client.connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: pathToFileURL(tmp).href,
      capabilities: {
        textDocument: { publishDiagnostics: { relatedInformation: true, codeDescriptionSupport: true }, hover: { contentFormat: ['markdown'] } },
      },
      workspaceFolders: null,
    }),
    'initialize',
  )
  void client.connection.sendNotification(InitializedNotification.type, {})
})

describe('contracts lsp over stdio', () => {
  it('initializes as an LSP 3.17 server: incremental text sync and hover', () => {
    expect(initialized.capabilities.textDocumentSync).toMatchObject({ openClose: true, change: 2 })
    expect(initialized.capabilities.hoverProvider).toBe(true)
    expect(initialized.serverInfo?.name).toBe('contracts')
  })

  describe('a Benzene contract', () => {
    const folder = join(tmp, 'benzene')
    const file = join(folder, 'payments.spec.json')
    const valid = readFileSync(join(root, 'fixtures/benzene/valid/payments.spec.json'), 'utf8')
    let uri: string

    beforeAll(() => {
      mkdirSync(folder)
      writeFileSync(file, valid)
      uri = client.open(file, valid).uri
    })

    it('opened valid: published with no diagnostics', async () => {
      expect(await client.checked(uri, 1)).toEqual([])
    })

    it('edited into an error (unsaved, an incremental edit): the codes and positions of `contracts check` on that text', async () => {
      const broken = valid.replace('"$ref": "#/components/schemas/PaymentDto"', '"$ref": "#/components/schemas/PaymentDtos"')
      const version = client.change(uri, replacing(valid, '"#/components/schemas/PaymentDto"', '"#/components/schemas/PaymentDtos"'))
      const published = await client.checked(uri, version)
      // The same text on disk, checked by the CLI (the editor's file itself still holds the valid text).
      const disk = join(tmp, 'benzene-on-disk')
      mkdirSync(disk)
      writeFileSync(join(disk, 'payments.spec.json'), broken)
      const check = checkOnDisk([join(disk, 'payments.spec.json')])
      expect(check.status).toBe(1)
      expect(seen(published)).toEqual(check.byFile.get(join(disk, 'payments.spec.json')))
      expect(published[0]).toMatchObject({
        code: 'BENZENE_REF_MISSING',
        severity: 1,
        source: 'contracts',
        range: { start: positionOf(broken, '"#/components/schemas/PaymentDtos"'), end: positionOf(broken, '"#/components/schemas/PaymentDtos"', 34) },
        codeDescription: { href: `${pathToFileURL(join(root, 'docs/diagnostics.md')).href}#benzene_ref_missing` },
      })
      expect(published[0]!.message).toContain('which does not exist')
      // The file on disk was never touched: the server read the editor's text.
      expect(readFileSync(file, 'utf8')).toBe(valid)
    })

    it('edited back (a whole-text change): cleared', async () => {
      expect(await client.checked(uri, client.change(uri, { text: valid }))).toEqual([])
    })

    it('hover on a $ref shows the pointer it resolves to and the start of the schema', async () => {
      const at = positionOf(valid, '"#/components/schemas/PaymentDto"', 5)
      const text = markdown(await client.hover(uri, at.line, at.character))
      expect(text).toContain('**$ref** `#/components/schemas/PaymentDto` → this document, line ')
      expect(text).toContain('`/components/schemas/PaymentDto`')
      expect(text).toMatch(/```json\n\{\n {2}"/)
      const line = Number(/line (\d+)/.exec(text)![1])
      expect(valid.split('\n')[line - 1]).toContain('"PaymentDto": {')
    })

    it('a rule that names another place: relatedInformation at it', async () => {
      const duplicate = readFileSync(join(root, 'fixtures/benzene/invalid/duplicate-topic.spec.json'), 'utf8')
      const other = join(folder, 'duplicate.spec.json')
      const { uri: otherUri } = client.open(other, duplicate)
      const [d] = await client.checked(otherUri, 1)
      expect(d).toMatchObject({
        code: 'BENZENE_DUPLICATE_TOPIC',
        range: { start: { line: 18, character: 4 } },
        relatedInformation: [{ location: { uri: otherUri, range: { start: { line: 8, character: 4 } } }, message: 'requests[0] declares it first.' }],
      })
      client.close(otherUri)
      await client.published(otherUri, (p) => p.diagnostics.length === 0 && p.version === undefined, 0, 'the clearing on close')
    })

    it('closed: cleared', async () => {
      const before = client.publications.length
      client.close(uri)
      const cleared = await client.published(uri, () => true, before, 'the clearing on close')
      expect(cleared.diagnostics).toEqual([])
    })
  })

  describe('a NATS bundle (bundle context from its lock)', () => {
    const bundle = join(tmp, 'shop')
    const payments = join(bundle, 'payments/asyncapi/asyncapi.yaml')
    // A service of the bundle its lock does not list yet: checked with the bundle (the lock, the other documents).
    const ledger = join(bundle, 'ledger/asyncapi.yaml')
    const lock = join(bundle, 'bundle.lock.json')
    const lockUri = pathToFileURL(lock).href
    const ledgerText = readFileSync(join(root, 'fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8')
    let text: string
    let uri: string
    let ledgerUri: string

    /** A copy of the bundle on disk with files replaced (and the ledger added), checked by the CLI; diagnostics by path in the bundle. */
    const checkCopy = (name: string, files: Record<string, string>, checked: string) => {
      const copy = join(tmp, name)
      cpSync(bundle, copy, { recursive: true })
      for (const [rel, replaced] of Object.entries(files)) writeFileSync(join(copy, rel), replaced)
      const check = checkOnDisk([join(copy, checked)])
      return { status: check.status, at: (rel: string) => check.byFile.get(join(copy, rel)) ?? [] }
    }

    beforeAll(() => {
      cpSync(join(root, 'fixtures/nats/shop'), bundle, { recursive: true })
      mkdirSync(dirname(ledger))
      writeFileSync(ledger, ledgerText)
      text = readFileSync(payments, 'utf8')
      uri = client.open(payments, text).uri
      ledgerUri = client.open(ledger, ledgerText).uri
    })

    it('opened: each checked with its bundle, no diagnostics', async () => {
      expect(await client.checked(uri, 1)).toEqual([])
      expect(await client.checked(ledgerUri, 1)).toEqual([])
    })

    it('a document edited into an error: the codes and positions of `contracts check` on that text in the bundle', async () => {
      const from = 'entryId: { kind: token, alphabet: hex, first: any, minLength: 12, maxLength: 12'
      const to = from.replace('maxLength: 12', 'maxLength: 400')
      const published = await client.checked(ledgerUri, client.change(ledgerUri, replacing(ledgerText, from, to)))
      const check = checkCopy('shop-token-type', { 'ledger/asyncapi.yaml': ledgerText.replace(from, to) }, 'ledger/asyncapi.yaml')
      expect(check.status).toBe(1)
      expect(seen(published)).toEqual(check.at('ledger/asyncapi.yaml'))
      expect(published).toMatchObject([{ code: 'NATS_TOKEN_TYPE', range: { start: { line: 12, character: 13 } }, severity: 1 }])
      expect(await client.checked(ledgerUri, client.change(ledgerUri, { text: ledgerText }))).toEqual([])
    })

    it('a locked document edited: the lock no longer vouches for it (at the lock, as `contracts check` says); edited back, cleared', async () => {
      const from = 'paymentId: { kind: token, alphabet: lower, first: letter, minLength: 8, maxLength: 40, prefix: pay- }'
      const to = from.replace('maxLength: 40', 'maxLength: 400')
      const before = client.publications.length
      client.change(uri, replacing(text, from, to))
      const atLock = await client.published(lockUri, (p) => p.diagnostics.length > 0, before, 'diagnostics at the lock')
      const check = checkCopy(
        'shop-locked',
        { 'ledger/asyncapi.yaml': ledgerText, 'payments/asyncapi/asyncapi.yaml': text.replace(from, to) },
        'payments/asyncapi/asyncapi.yaml',
      )
      expect(check.status).toBe(1)
      expect(seen(atLock.diagnostics)).toEqual(check.at('bundle.lock.json'))
      expect(atLock.diagnostics.map((d) => d.code)).toEqual(['NATS_LOCK_DIGEST'])
      // Reading stops at the broken lock (the build does too): nothing more at the document.
      expect(check.at('payments/asyncapi/asyncapi.yaml')).toEqual([])
      expect(client.publications.filter((p) => p.uri === uri).at(-1)!.diagnostics).toEqual([])
      const back = client.publications.length
      client.change(uri, { text })
      expect((await client.published(lockUri, () => true, back, 'the lock cleared')).diagnostics).toEqual([])
    })

    it('an open dependency (the lock) edited: the contracts that read it are checked again with the unsaved lock', async () => {
      const lockText = readFileSync(lock, 'utf8')
      const { uri: openLock } = client.open(lock, lockText)
      expect(openLock).toBe(lockUri)
      const ordersDigest = /"path": "orders\/asyncapi\/asyncapi.yaml",\s*"sha256": "([0-9a-f]{64})"/.exec(lockText)![1]!
      const edited = lockText.replace(ordersDigest, '0'.repeat(64))
      const before = client.publications.length
      const version = client.change(lockUri, replacing(lockText, ordersDigest, '0'.repeat(64)))
      const atLock = await client.published(lockUri, (p) => p.version === version && p.diagnostics.length > 0, before, 'diagnostics at the edited lock')
      const atDocument = await client.published(uri, (p) => p.diagnostics.length > 0, before, 'diagnostics at the document')
      const check = checkCopy('shop-lock', { 'ledger/asyncapi.yaml': ledgerText, 'bundle.lock.json': edited }, 'payments/asyncapi/asyncapi.yaml')
      expect(seen(atLock.diagnostics)).toEqual(check.at('bundle.lock.json'))
      expect(seen(atDocument.diagnostics)).toEqual(check.at('payments/asyncapi/asyncapi.yaml'))
      expect(atDocument.diagnostics.map((d) => d.code)).toContain('NATS_LOCK_MISMATCH')
      // Closed unsaved: the lock on disk is read again, and everything clears.
      const closing = client.publications.length
      client.close(lockUri)
      await client.published(uri, (p) => p.diagnostics.length === 0, closing, 'the document cleared')
      await client.published(lockUri, (p) => p.diagnostics.length === 0, closing, 'the lock cleared')
    })

    it('hover on a channel parameter placeholder shows its token type', async () => {
      const at = positionOf(text, 'address: orders.{zone}.{order}.placed', 'address: orders.{z'.length)
      const hover = await client.hover(uri, at.line, at.character)
      expect(markdown(hover)).toContain('**{zone}**, a parameter of channel `orderPlaced`: token type `region`')
      expect(markdown(hover)).toContain('one of `eu`, `us`')
      expect(hover!.range).toEqual({ start: { line: at.line, character: at.character - 2 }, end: { line: at.line, character: at.character + 4 } })
      const id = positionOf(text, 'address: payments.{region}.{paymentId}.captured', 'address: payments.{region}.{pay'.length)
      const token = markdown(await client.hover(uri, id.line, id.character))
      expect(token).toContain('token type `paymentId`')
      expect(token).toContain('a token of the lower alphabet, 8 to 40 characters, starting with a letter, prefix `pay-`')
    })

    it('hover on a $ref in YAML resolves it in the document', async () => {
      const at = positionOf(text, "$ref: '#/components/messages/PaymentCaptured'", 10)
      const hover = markdown(await client.hover(uri, at.line, at.character))
      expect(hover).toContain('**$ref** `#/components/messages/PaymentCaptured` → this document, line ')
      expect(hover).toContain('`/components/messages/PaymentCaptured`')
    })

    it("hover on a $ref to another file of the bundle reads it (the editor's text, or the file); one outside the tree is not read", async () => {
      const referring = ledgerText
        .replace("$ref: '#/components/messages/EntryPosted'", "$ref: '../native/streams.json#/streams/1'")
        .replace('cents: { type: integer }', "cents: { $ref: '../../../../../etc/hostname#/x' }")
      const version = client.change(ledgerUri, { text: referring })
      await client.published(ledgerUri, (p) => p.version === version, 0, `publication of version ${version}`)
      const at = positionOf(referring, "'../native/streams.json#/streams/1'", 3)
      const hover = markdown(await client.hover(ledgerUri, at.line, at.character))
      expect(hover).toContain('**$ref** `../native/streams.json#/streams/1` → `../native/streams.json`, line 4, `/streams/1`')
      expect(hover).toContain('"name": "PAYMENTS"')
      const outside = positionOf(referring, "'../../../../../etc/hostname#/x'", 3)
      expect(markdown(await client.hover(ledgerUri, outside.line, outside.character))).toContain(
        "cannot be read here (missing, a link, or outside the contract's tree)",
      )
      await client.checked(ledgerUri, client.change(ledgerUri, { text: ledgerText }))
    })

    it('closed: cleared', async () => {
      const before = client.publications.length
      client.close(uri)
      client.close(ledgerUri)
      expect((await client.published(uri, () => true, before, 'the clearing on close')).diagnostics).toEqual([])
      expect((await client.published(ledgerUri, () => true, before, 'the clearing on close')).diagnostics).toEqual([])
    })
  })

  describe('hostile edits are answered with diagnostics, never a crash', () => {
    const file = join(tmp, 'hostile', 'unsaved.spec.json')
    let uri: string

    beforeAll(() => {
      mkdirSync(dirname(file))
      // Never written to disk: an unsaved document is checked from the editor's text alone.
      uri = client.open(file, '{"openapi": ').uri
    })

    const codesOf = async (version: number) => (await client.checked(uri, version)).map((d) => d.code)

    it('garbage', async () => {
      expect(await codesOf(1)).toEqual(['JSON_SYNTAX'])
      expect(await codesOf(client.change(uri, { text: '\u0000\uFFFF}{][ "\uD800 garbage' }))).toEqual(['JSON_SYNTAX'])
    })

    it('a 5 MB text', async () => {
      const big = JSON.stringify({ openapi: '3.0.1', info: { title: 'x'.repeat(5 * 1024 * 1024), version: '1' } })
      const codes = await codesOf(client.change(uri, { text: big }))
      expect(codes.length).toBeGreaterThan(0)
      expect(codes.every((code) => code.startsWith('BENZENE_'))).toBe(true)
    })

    it('deep nesting', async () => {
      const deep = '['.repeat(100_000) + ']'.repeat(100_000)
      expect(await codesOf(client.change(uri, { text: deep }))).toEqual(['CONTRACTS_TOO_DEEP'])
      // Hover on it has nothing to say, and says so without failing.
      expect(await client.hover(uri, 0, 50_000)).toBeNull()
    })

    it('a document outside any format, and a non-file URI, are left alone; the server still answers', async () => {
      client.open(join(tmp, 'hostile', 'notes.txt'), 'not a contract')
      void client.connection.sendNotification(DidOpenTextDocumentNotification.type, {
        textDocument: { uri: 'untitled:Untitled-1', languageId: 'json', version: 1, text: '{' },
      })
      expect(await codesOf(client.change(uri, { text: '{"openapi": ' }))).toEqual(['JSON_SYNTAX'])
      expect(client.publications.some((p) => p.uri.endsWith('notes.txt') || p.uri.startsWith('untitled:'))).toBe(false)
      client.close(uri)
    })
  })

  it('`contracts lsp` takes no files (a usage error, exit 2)', () => {
    const r = contracts(['lsp', 'payments.spec.json'])
    expect([r.status, r.stderr]).toEqual([2, expect.stringContaining('`contracts lsp` takes no files')])
  })

  it('shutdown and exit end the process with status 0', async () => {
    expect(await client.stop()).toBe(0)
  })
})
