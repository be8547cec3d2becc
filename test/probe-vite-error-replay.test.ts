/**
 * The replayed overlay error of the Vite dev loop goes to the page it belongs to. The plugin sends
 * the last error of a contract's module again to each page that connects (the page a save reloads
 * connects after its module failed), until a contract changes or one of its modules is served. A
 * page that is another one (the user moved from the page importing the broken contract to a page
 * that imports none) must not get it: nothing of it is on that page. A real Vite dev server; the
 * pages are played as a browser loads one: its HTML, its modules, then its HMR socket.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createServer, type ViteDevServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectedMessages as connectedMessagesOf, hmrSocket } from './helpers/vite-hmr.js'
import contracts from 'unplugin-contracts/vite'

const root = join(import.meta.dirname, '.tmp/probe-vite-error-replay', String(process.pid))
let server: ViteDevServer
let base: string

/** The messages a page that connects now gets, up to Vite's `connected` (bounded: 10 s), then closes. */
const connectedMessages = () => connectedMessagesOf(server)

/** Loads a page as a browser does before its socket connects: the HTML, then each module it imports (the contract's answering 500 when broken). */
async function loadPage(html: string, script: string): Promise<number[]> {
  const page = await fetch(`${base}/${html}`)
  expect(page.status).toBe(200)
  await page.text()
  const main = await (await fetch(`${base}/${script}`)).text()
  const statuses: number[] = []
  for (const [, url] of main.matchAll(/from\s+"([^"]*\.spec\.json[^"]*)"/g)) statuses.push((await fetch(base + url)).status)
  return statuses
}

describe('the Vite dev loop replays an error to the page it belongs to', () => {
  beforeAll(async () => {
    rmSync(root, { recursive: true, force: true })
    mkdirSync(root, { recursive: true })
    cpSync(join(import.meta.dirname, 'fixtures/app/broken.spec.json'), join(root, 'broken.spec.json'))
    writeFileSync(join(root, 'a.js'), "export { contractHash } from './broken.spec.json'\n")
    writeFileSync(join(root, 'a.html'), '<!doctype html><html><body><script type="module" src="/a.js"></script></body></html>\n')
    writeFileSync(join(root, 'b.js'), 'export const b = 1\n')
    writeFileSync(join(root, 'b.html'), '<!doctype html><html><body><script type="module" src="/b.js"></script></body></html>\n')
    server = await createServer({ root, configFile: false, logLevel: 'silent', plugins: [contracts()], server: { host: '127.0.0.1', port: 0 } })
    await server.listen()
    base = `http://127.0.0.1:${(server.httpServer!.address() as { port: number }).port}`
  }, 60_000)

  afterAll(async () => {
    await server?.close()
  })

  it('the page importing the broken contract gets its error when its socket connects after the module failed', async () => {
    // A page already open (the one a save reloads), so Vite sends the error to it and keeps none itself.
    const open = hmrSocket(server)
    await new Promise((resolve, reject) => open.once('open', resolve).once('error', reject))
    try {
      expect(await loadPage('a.html', 'a.js')).toEqual([500])
      const errors = (await connectedMessages()).filter((m) => m.type === 'error')
      expect(errors).toHaveLength(1)
      expect(errors[0]!.err.plugin).toBe('unplugin-contracts')
    } finally {
      open.close()
    }
  })

  it('a page that imports no contract, loaded after it, does not get that error', async () => {
    expect(await loadPage('b.html', 'b.js')).toEqual([])
    expect((await connectedMessages()).map((m) => m.type)).toEqual(['connected'])
  })

  it('the page importing the broken contract, loaded again, gets it again (the error is still there)', async () => {
    const open = hmrSocket(server)
    await new Promise((resolve, reject) => open.once('open', resolve).once('error', reject))
    try {
      expect(await loadPage('a.html', 'a.js')).toEqual([500])
      expect((await connectedMessages()).filter((m) => m.type === 'error')).toHaveLength(1)
    } finally {
      open.close()
    }
  })

  it('the broken contract no longer imported by its page (the page edited, then loaded again): no error', async () => {
    writeFileSync(join(root, 'a.js'), 'export const a = 1\n')
    // The edit reaches Vite's module graph through its watcher: the page's next load reads the new text.
    await server.reloadModule((await server.moduleGraph.getModuleByUrl('/a.js'))!)
    expect(await loadPage('a.html', 'a.js')).toEqual([])
    expect((await connectedMessages()).filter((m) => m.type === 'error')).toEqual([])
    expect(readFileSync(join(root, 'a.js'), 'utf8')).not.toContain('broken')
  })
})
