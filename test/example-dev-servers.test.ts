/**
 * The examples' web pages as `npm run dev:payments-web` and `npm run dev:nats-web` serve them: the
 * Vite CLI on each example's `vite.web.config.ts` (on a free loopback port) prints the URL to open,
 * and that URL serves the page and its module. The output stays a banner: no line per module.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..')
const vite = join(root, 'node_modules/vite/bin/vite.js')

interface Served {
  child: ChildProcess
  url: string
  output: () => string
}

/**
 * Starts the Vite CLI on a config (port 0: the system picks a free one) and waits, at most 30 s, for
 * the URL it prints. The child is handed to `started` at once, so it is stopped even when no URL comes.
 */
function serve(config: string, started: (child: ChildProcess) => void): Promise<Served> {
  const child = spawn(process.execPath, [vite, '--config', join(root, config), '--port', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
  started(child)
  let output = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed in 30 s:\n${output}`)), 30_000)
    const read = (chunk: Buffer) => {
      // Vite colours its banner where CI is set (the port in bold): the URL is read from the plain text.
      output += stripVTControlCharacters(chunk.toString())
      const url = /http:\/\/(?:127\.0\.0\.1|localhost):\d+\//.exec(output)?.[0]
      if (url === undefined) return
      clearTimeout(timer)
      resolve({ child, url, output: () => output })
    }
    child.stdout!.on('data', read)
    child.stderr!.on('data', read)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`vite exited (${code}) before printing its URL:\n${output}`))
    })
  })
}

describe('the example dev servers print their URL and serve it', () => {
  let running: ChildProcess | undefined
  afterEach(async () => {
    if (running && running.exitCode === null) {
      const exited = new Promise((resolve) => running!.once('exit', resolve))
      running.kill()
      await exited
    }
    running = undefined
  })

  it.each([
    ['examples/payments-client/vite.web.config.ts', 'payments-client', '/page.ts'],
    ['examples/nats-orders/vite.web.config.ts', 'Order notes over NATS', '/main.ts'],
  ])(
    '%s',
    async (config, title, entry) => {
      const served = await serve(config, (child) => (running = child))
      expect(served.output()).toMatch(/Local: +http:\/\/127\.0\.0\.1:\d+\//)
      const page = await fetch(served.url, { signal: AbortSignal.timeout(20_000) })
      expect(page.status).toBe(200)
      const html = await page.text()
      expect(html).toContain(`<title>${title}</title>`)
      expect(html).toContain('/@vite/client')
      // The page's module, with the contract import it makes, is served too (compiled by the plugin on request).
      const module = await fetch(new URL(entry, served.url), { signal: AbortSignal.timeout(20_000) })
      expect(module.status).toBe(200)
      expect(await module.text()).toMatch(/\.(spec\.json|yaml)/)
      // Low noise: Vite's banner, not a line per module served.
      const lines = served
        .output()
        .split('\n')
        .filter((line) => line.trim() !== '')
      expect(lines.length, served.output()).toBeLessThanOrEqual(6)
    },
    60_000,
  )
})
