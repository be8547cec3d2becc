/**
 * `contracts lsp` probed from outside with a real LSP client over stdio (the built server,
 * `npm run build` first): the editor's text with a byte order mark, non-ASCII before an error,
 * CRLF, a burst of edits, a close during a check, requests the server has no answer for, and a
 * client that goes away. Every wait is bounded; nothing asserts a duration.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import {
  createProtocolConnection,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  HoverRequest,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  StreamMessageReader,
  StreamMessageWriter,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
} from 'vscode-languageserver-protocol/node.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recordingHost } from '../src/core/input-host.js'
import { CLI } from './helpers/cli.js'

const root = join(import.meta.dirname, '..')
const WAIT_MS = 30_000
const tmp = mkdtempSync(join(tmpdir(), 'contracts-probe-lsp-'))
const folder = join(tmp, 'contracts')
mkdirSync(folder)

interface Server {
  child: ChildProcess
  connection: ProtocolConnection
  publications: PublishDiagnosticsParams[]
}

async function startServer(): Promise<Server> {
  const child = spawn(process.execPath, [CLI, 'lsp', '--stdio'], { cwd: tmp, stdio: ['pipe', 'pipe', 'pipe'] })
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!))
  const publications: PublishDiagnosticsParams[] = []
  connection.onNotification(PublishDiagnosticsNotification.type, (p) => void publications.push(p))
  // The server's log messages are not what is probed here.
  connection.onNotification('window/logMessage', () => {})
  child.stderr!.resume()
  connection.listen()
  await within(
    connection.sendRequest(InitializeRequest.type, { processId: null, rootUri: pathToFileURL(tmp).href, capabilities: {}, workspaceFolders: null }),
    'initialize',
  )
  void connection.sendNotification(InitializedNotification.type, {})
  return { child, connection, publications }
}

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new Error(`no ${what} within ${WAIT_MS} ms`)), WAIT_MS))),
  ])
}

/** The first publication for `uri` that satisfies `test`, polled (bounded). */
async function published(server: Server, uri: string, test: (p: PublishDiagnosticsParams) => boolean): Promise<PublishDiagnosticsParams> {
  const deadline = Date.now() + WAIT_MS
  for (;;) {
    const found = server.publications.find((p) => p.uri === uri && test(p))
    if (found) return found
    if (Date.now() > deadline) throw new Error(`no publication for ${uri} within ${WAIT_MS} ms`)
    await new Promise((done) => setTimeout(done, 20))
  }
}

const open = (server: Server, name: string, text: string, languageId = 'json') => {
  const uri = pathToFileURL(join(folder, name)).href
  void server.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId, version: 1, text } })
  return uri
}

/** A one-line Benzene contract whose `$ref` is malformed: BENZENE_REF_FORM at the `"#/nope"` string. */
const oneLine = (title: string) => `{"openapi":"3.0.1","info":{"title":"${title}","version":"1"},"requests":[{"topic":"a","request":{"$ref":"#/nope"}}]}`

let server: Server
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => {
  server.child.kill()
  rmSync(tmp, { recursive: true, force: true })
})

describe('positions are the client text’s UTF-16 positions', () => {
  const refAt = async (name: string, text: string) => {
    const uri = open(server, name, text)
    const { diagnostics } = await published(server, uri, () => true)
    const d = diagnostics.find((x) => x.code === 'BENZENE_REF_FORM')
    expect(d, JSON.stringify(diagnostics)).toBeDefined()
    return d!.range
  }

  it('non-ASCII (astral and accented) before the error on its line', async () => {
    const text = oneLine('😀😀é')
    const at = text.indexOf('"#/nope"')
    expect(await refAt('emoji.spec.json', text)).toEqual({ start: { line: 0, character: at }, end: { line: 0, character: at + '"#/nope"'.length } })
  })

  it('a text that keeps a byte order mark: the range counts it, as the client does', async () => {
    const text = '\uFEFF' + oneLine('x')
    const at = text.indexOf('"#/nope"')
    expect(await refAt('bom.spec.json', text)).toEqual({ start: { line: 0, character: at }, end: { line: 0, character: at + '"#/nope"'.length } })
  })

  it('CRLF line ends: the line the client counts', async () => {
    const text = JSON.stringify(JSON.parse(oneLine('x')), null, 2).replace(/\n/g, '\r\n')
    const lines = text.split('\r\n')
    const line = lines.findIndex((l) => l.includes('"#/nope"'))
    const range = await refAt('crlf.spec.json', text)
    expect(range.start).toEqual({ line, character: lines[line]!.indexOf('"#/nope"') })
  })
})

describe('edits and closes', () => {
  const valid = readFileSync(join(root, 'fixtures/benzene/valid/payments.spec.json'), 'utf8')

  it('a burst of 100 edits: the last version is published, never an older one after a newer', async () => {
    const uri = open(server, 'burst.spec.json', valid)
    await published(server, uri, (p) => p.version === 1)
    for (let version = 2; version <= 101; version++) {
      // Odd versions are broken, even ones valid: the last (101) is broken.
      const text = version % 2 ? valid.replace('#/components/schemas/PaymentDto"', `#/components/schemas/Missing${version}"`) : valid
      void server.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges: [{ text }] })
    }
    const last = await published(server, uri, (p) => p.version === 101)
    expect(last.diagnostics.map((d) => d.code)).toContain('BENZENE_REF_MISSING')
    expect(last.diagnostics.every((d) => !d.message.includes('Missing99'))).toBe(true)
    const versions = server.publications.filter((p) => p.uri === uri).map((p) => p.version ?? 0)
    expect(versions).toEqual([...versions].sort((a, b) => a - b))
  })

  it('closed while its check runs: cleared, and nothing published for it afterwards', async () => {
    const big = JSON.parse(valid) as { info: { title: string } }
    big.info.title = 'x'.repeat(2_000_000)
    const uri = open(server, 'closing.spec.json', JSON.stringify(big).replace('#/components/schemas/PaymentDto"', '#/nope"'))
    void server.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } })
    // Another document's check after the close runs after the closed one's would have.
    const later = open(server, 'later.spec.json', valid)
    await published(server, later, () => true)
    const forClosed = server.publications.filter((p) => p.uri === uri)
    expect(forClosed.at(-1)?.diagnostics ?? []).toEqual([])
  })
})

describe('an unsaved document behind a link out of the tree is not read', () => {
  // `linked` is a folder link from the contract's folder to one outside it; `new.json` exists only in the editor.
  const outside = join(tmp, 'outside')
  const linked = join(folder, 'linked')
  beforeAll(() => {
    mkdirSync(join(outside, 'deeper'), { recursive: true })
    writeFileSync(join(outside, 'on-disk.json'), '{"type": "string"}')
    symlinkSync(outside, linked)
  })

  it('the host the checks and hovers read through refuses it as it refuses the saved file', async () => {
    const unsaved = '{"type": "string"}'
    for (const path of [join(linked, 'new.json'), join(linked, 'deeper', 'new.json'), join(linked, 'missing-folder', 'new.json')]) {
      const host = recordingHost(folder, { text: (p) => (p === path ? unsaved : undefined) })
      await expect(host.readText(path), path).rejects.toMatchObject({ diagnostic: { code: 'CONTRACTS_OUTSIDE_TREE' } })
    }
    // Saved, the same file is refused the same way.
    await expect(recordingHost(folder).readText(join(linked, 'on-disk.json'))).rejects.toMatchObject({ diagnostic: { code: 'CONTRACTS_OUTSIDE_TREE' } })
    // An unsaved document inside the tree is read.
    const inside = join(folder, 'fresh', 'new.json')
    expect(await recordingHost(folder, { text: (p) => (p === inside ? unsaved : undefined) }).readText(inside)).toBe(unsaved)
  })

  it('a hover on a $ref to it does not show the editor text', async () => {
    const target = join(linked, 'unsaved.json')
    void server.connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri: pathToFileURL(target).href, languageId: 'json', version: 1, text: '{"type": "string", "description": "UNSAVED OUTSIDE"}' },
    })
    const text = oneLine('x').replace('#/nope', 'linked/unsaved.json')
    const uri = open(server, 'linked-ref.spec.json', text)
    await published(server, uri, () => true)
    const hover = await within(
      server.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 0, character: text.indexOf('linked/unsaved.json') + 2 } }),
      'hover',
    )
    const shown = JSON.stringify(hover?.contents ?? '')
    expect(shown).toContain('cannot be read here')
    expect(shown).not.toContain('UNSAVED OUTSIDE')
  })
})

describe('requests it has no answer for', () => {
  it('a hover on a URI never opened is null; an unknown method is MethodNotFound; the server still answers', async () => {
    const never = pathToFileURL(join(folder, 'never.spec.json')).href
    expect(
      await within(server.connection.sendRequest(HoverRequest.type, { textDocument: { uri: never }, position: { line: 0, character: 0 } }), 'hover'),
    ).toBeNull()
    await expect(within(server.connection.sendRequest('contracts/unknown', {}), 'an answer')).rejects.toMatchObject({ code: -32601 })
    const uri = open(server, 'after.spec.json', '{')
    expect((await published(server, uri, () => true)).diagnostics.map((d) => d.code)).toEqual(['JSON_SYNTAX'])
  })
})

it('a client that goes away with a check pending (its end of the pipe closed): the server exits', async () => {
  const own = await startServer()
  const big = JSON.stringify({ openapi: '3.0.1', info: { title: 'x'.repeat(3_000_000), version: '1' } })
  const uri = open(own, 'gone.spec.json', big)
  // An answer means the server has the document (every earlier message was written); its check is then pending or running.
  await within(own.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 0, character: 1 } }), 'hover')
  const exited = new Promise<number | null>((done) => own.child.once('exit', (code) => done(code)))
  own.connection.dispose()
  own.child.stdin!.end()
  try {
    expect(await within(exited, 'exit after the input closed')).not.toBeNull()
  } finally {
    own.child.kill()
  }
})
