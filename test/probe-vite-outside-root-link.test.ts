/**
 * A contract outside Vite's root, watched on its own, deleted and made again as a link to a file
 * outside the allowed tree (a secret of the user's). The plugin watches the deleted file's folder
 * and, when the name is back, watches it and reports it added: the reload that follows must not
 * read through the link, neither into the module, the HTTP answer nor the overlay's error.
 */
import { mkdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createServer, type ViteDevServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type WebSocket from 'ws'
import { hmrSocket } from './helpers/vite-hmr.js'
import contracts from 'unplugin-contracts/vite'
import { until } from './helpers/until.js'

const original = readFileSync(join(import.meta.dirname, 'fixtures/app/payments.spec.json'), 'utf8')
const work = join(import.meta.dirname, '.tmp/probe-vite-outside-root-link', String(process.pid))
const dir = join(work, 'app')
const root = join(dir, 'web')
const contract = join(dir, 'payments.spec.json')
const secret = join(work, 'secret.txt')

describe('a watched contract outside the root replaced by a link out of the tree', () => {
  let server: ViteDevServer
  let base: string
  let socket: WebSocket
  const messages: Array<{ type: string; [key: string]: any }> = []

  const moduleAnswer = async () => {
    const main = await (await fetch(`${base}/main.js`)).text()
    const url = /from\s+"([^"]*payments\.spec\.json[^"]*)"/.exec(main)?.[1]
    expect(url, main).toBeDefined()
    const response = await fetch(base + url)
    return { status: response.status, text: await response.text() }
  }

  beforeAll(async () => {
    rmSync(work, { recursive: true, force: true })
    mkdirSync(root, { recursive: true })
    writeFileSync(secret, 'TOP-SECRET-c0ffee {"requests": []}\n')
    writeFileSync(join(root, 'main.js'), "export { contractHash } from '../payments.spec.json'\n")
    writeFileSync(contract, original)
    server = await createServer({
      root,
      configFile: false,
      logLevel: 'silent',
      plugins: [contracts({ types: false })],
      server: { host: '127.0.0.1', port: 0, fs: { allow: [dir] } },
    })
    await server.listen()
    const port = (server.httpServer!.address() as { port: number }).port
    base = `http://127.0.0.1:${port}`
    socket = hmrSocket(server)
    socket.on('message', (data) => messages.push(JSON.parse(String(data))))
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
  }, 60_000)

  afterAll(async () => {
    socket?.close()
    await server?.close()
    rmSync(work, { recursive: true, force: true })
  })

  it('is seen again (a reload), and refused without a byte of the link’s target', async () => {
    expect((await moduleAnswer()).status).toBe(200)
    await until('the watcher watching the contract', () => (server.watcher.getWatched()[dir]?.includes('payments.spec.json') ? true : undefined), 10_000, 25)
    messages.length = 0
    unlinkSync(contract)
    await until('the deletion seen (a reload)', () => messages.find((m) => m.type === 'full-reload'), 20_000)
    messages.length = 0
    symlinkSync(secret, contract)
    // The plugin watches the folder for the file to be back: its creation reloads the page.
    await until('the re-made name seen (a reload)', () => messages.find((m) => m.type === 'full-reload'), 20_000)
    const answer = await moduleAnswer()
    expect(answer.status).toBe(500)
    expect(answer.text).toContain('CONTRACTS_SYMLINK')
    const error = await until('the overlay error', () => messages.find((m) => m.type === 'error'), 20_000)
    for (const shown of [answer.text, JSON.stringify(error)]) expect(shown).not.toContain('TOP-SECRET')
  }, 90_000)
})
