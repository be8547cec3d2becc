/**
 * Real Chromium for browser tests (playwright-core driving Debian's `chromium`, which `.ci/run`
 * installs when missing). Where it cannot be found the browser tests say so loudly and skip.
 */
import { createReadStream, existsSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { extname, join, normalize } from 'node:path'
import { chromium, type Browser } from 'playwright-core'
import { inject } from 'vitest'
import { CHROMIUM, CHROMIUM_ARGS } from './chromium-path.js'

export { CHROMIUM, CHROMIUM_ARGS }

/**
 * A browser for one test file: a connection to the run's shared Chromium (test/global-chromium.ts)
 * when there is one, else a Chromium of its own. Either way `close()` leaves nothing behind: on the
 * shared one it closes this file's contexts and disconnects.
 */
export async function launchChromium(): Promise<Browser> {
  if (!CHROMIUM) throw new Error('chromium is not installed')
  const endpoint = inject('chromiumEndpoint')
  if (endpoint) return chromium.connect(endpoint, { timeout: 30_000 })
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
}

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' }

/** Serves a built folder on a free loopback port (GET only, nothing outside the folder). */
export async function serveStatic(root: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    const file = normalize(join(root, path === '/' ? 'index.html' : path))
    if (!file.startsWith(root) || !existsSync(file)) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' })
    createReadStream(file).pipe(res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  // `close` alone waits for every open connection to end, and the browser keeps its keep-alive
  // connections (one may be mid-request when a test gives up): they are cut, so closing is bounded.
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  return { url: `http://127.0.0.1:${port}`, close }
}
