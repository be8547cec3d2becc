/**
 * Vite dev server, as a developer uses it: a browser-like client holds the HMR socket and fetches
 * modules over HTTP while the contract is edited on disk.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createServer, type ViteDevServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type WebSocket from 'ws'
import { connectedMessages as connectedMessagesOf, hmrSocket } from './helpers/vite-hmr.js'
import contracts from 'unplugin-contracts/vite'
import { inspect } from 'unplugin-contracts'
import { EditorFile } from './helpers/editor-save.js'
import { until } from './helpers/until.js'

const root = join(import.meta.dirname, '.tmp/vite-dev')
const contract = join(root, 'payments.spec.json')
const original = readFileSync(join(import.meta.dirname, 'fixtures/app/payments.spec.json'), 'utf8')

let server: ViteDevServer
let base: string
let socket: WebSocket
const messages: Array<{ type: string; [key: string]: any }> = []

async function serviceHash(): Promise<string> {
  return ((await inspect(contract)).data as { hashes: { service: string } }).hashes.service
}

/** The URL the browser fetches for the contract import, read from the transformed main.js. */
async function contractModuleUrl(): Promise<string> {
  const main = await (await fetch(`${base}/main.js`)).text()
  const url = /from\s+"([^"]*payments\.spec\.json[^"]*)"/.exec(main)?.[1]
  expect(url, main).toBeDefined()
  return url!
}

async function fetchContractModule() {
  const response = await fetch(base + (await contractModuleUrl()))
  return { status: response.status, text: await response.text() }
}

/** The messages a page that connects now gets, up to Vite's `connected` (sent after what a new page is owed), and closes. */
const connectedMessages = () => connectedMessagesOf(server)

/** Saves the contract as an editor does (see EditorFile: spaced, each with its own mtime). */
const editor = new EditorFile(contract)
const save = (text: string) => editor.save(text)

const readSidecar = () => {
  try {
    return readFileSync(join(root, 'payments.spec.d.json.ts'), 'utf8')
  } catch {
    return undefined
  }
}

describe('Vite dev server', () => {
  beforeAll(async () => {
    rmSync(root, { recursive: true, force: true })
    mkdirSync(root, { recursive: true })
    cpSync(join(import.meta.dirname, 'fixtures/app/main.js'), join(root, 'main.js'))
    writeFileSync(contract, original)
    server = await createServer({ root, configFile: false, logLevel: 'silent', plugins: [contracts()], server: { host: '127.0.0.1', port: 0 } })
    await server.listen()
    // The watcher drops a change that comes within 50 ms of its last event for the same file: the
    // previous test can end (its sidecar written) a few ms after the watcher's event for its save,
    // and a save at once then goes unseen. Each event counts as seen, so the next save waits 80 ms.
    server.watcher.on('change', (file) => {
      if (file === contract) editor.seen()
    })
    const address = server.httpServer!.address() as { port: number }
    base = `http://127.0.0.1:${address.port}`
    socket = hmrSocket(server)
    socket.on('message', (data) => messages.push(JSON.parse(String(data))))
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
  })

  afterAll(async () => {
    socket?.close()
    await server?.close()
  })

  it('serves the compiled module, then regenerates it when the contract changes', async () => {
    const first = await fetchContractModule()
    expect(first.status).toBe(200)
    expect(first.text).toContain(JSON.stringify(await serviceHash()))
    const before = await serviceHash()

    // A new optional member on CapturePayment changes the contract, so the hash.
    messages.length = 0
    await save(original.replace('"Currency": {', '"Note": { "type": "string" },\n          "Currency": {'))
    const after = await serviceHash()
    expect(after).not.toBe(before)
    await until('the regenerated module', async () => ((await fetchContractModule()).text.includes(JSON.stringify(after)) ? true : undefined))
    // The browser was told: the importer is reloaded (nothing accepts the update on its own).
    await until('an HMR message', async () => messages.find((m) => m.type === 'full-reload' || m.type === 'update'))
    // The sidecar follows once the saves pause (written after the module is served, not before).
    await until('the sidecar of the edited contract', async () => (readSidecar()?.includes(JSON.stringify(after)) ? true : undefined))
    expect(readSidecar()).toContain('Note?: string')
  })

  it('an invalid edit is an error with code and position, on the page and over HTTP', async () => {
    messages.length = 0
    const invalid = original.replace('"#/components/schemas/RefundPayment"', '"#/components/schemas/RefundPaymentt"')
    await save(invalid)
    const failing = async () => {
      const r = await fetchContractModule()
      return r.status === 500 ? r : undefined
    }
    const failed = await until('the failing module', failing)
    expect(failed.text).toContain('BENZENE_REF_MISSING')
    expect(failed.text).toContain(`${contract}:68:17`)
    // Vite's error overlay gets the same diagnostic over the HMR socket.
    const overlay = await until('the error overlay message', async () => messages.find((m) => m.type === 'error'))
    expect(overlay.err.message).toContain('BENZENE_REF_MISSING')
    expect(overlay.err.message).toContain(`${contract}:68:17`)
    expect(overlay.err.loc).toMatchObject({ file: contract, line: 68 })
    // A page that connects later (the page a save reloads, whose socket connects after its request
    // failed while the page it replaces was still connected) gets the same error.
    const late = await connectedMessages()
    expect(late.filter((m) => m.type === 'error').map((m) => m.err.message)).toEqual([overlay.err.message])
  })

  it('a contract that is a link out of the tree: an error that shows none of its target, on the page and in the overlay', async () => {
    // Vite makes a code frame itself from `loc.file` when an error has none: the plugin must never
    // hand it a file it refused to read.
    const outside = join(root, '../vite-dev-outside.txt')
    writeFileSync(outside, 'TOP-SECRET-7f3a {"requests": []}\nsecond line\n')
    for (const [name, target] of [
      ['secret', outside],
      ['environ', '/proc/self/environ'],
    ] as const) {
      symlinkSync(target, join(root, `${name}.spec.json`))
      writeFileSync(join(root, `${name}.js`), `export { contractHash } from './${name}.spec.json'\n`)
      messages.length = 0
      const importer = await (await fetch(`${base}/${name}.js`)).text()
      const url = new RegExp(`from\\s+"([^"]*${name}\\.spec\\.json[^"]*)"`).exec(importer)?.[1]
      expect(url, importer).toBeDefined()
      const response = await fetch(base + url)
      const text = await response.text()
      expect(response.status).toBe(500)
      expect(text).toContain('CONTRACTS_SYMLINK')
      const overlay = await until('the error overlay message', async () => messages.find((m) => m.type === 'error'))
      expect(overlay.err.message).toContain('CONTRACTS_SYMLINK')
      // Neither the secret file's text nor an environment variable (/proc/self/environ is NAME=value pairs).
      for (const shown of [text, JSON.stringify(overlay.err)]) {
        expect(shown).not.toContain('TOP-SECRET')
        expect(shown).not.toContain('PATH=')
      }
    }
  })

  it('the next valid edit recovers without a restart', async () => {
    await save(original.replace('"payments-api"', '"payments-api-2"'))
    const expected = await serviceHash()
    const recovered = await until('the recovered module', async () => {
      const r = await fetchContractModule()
      return r.status === 200 && r.text.includes(JSON.stringify(expected)) ? r : undefined
    })
    expect(recovered.text).toContain('$topic("payments:capture"')
    // And a page that connects now gets no error. (It may get the save's full reload: the module can be
    // served, compiled from the saved text, before the watcher reports the save, and Vite then
    // reloads every page connected, this one too; seen once under the whole suite's load.)
    const types = (await connectedMessages()).map((m) => m.type)
    expect(types[0]).toBe('connected')
    expect(types.filter((type) => type !== 'full-reload')).toEqual(['connected'])
  })
})
