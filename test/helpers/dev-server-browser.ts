/**
 * A real Vite dev server on loopback with the plugin, and real Chromium to look at it: what the dev
 * page tests share. `close()` ends both.
 */
import type { Browser } from 'playwright-core'
import { createServer, type InlineConfig, type ViteDevServer } from 'vite'
import contracts from 'unplugin-contracts/vite'
import { launchChromium } from './chromium.js'

export interface DevServerBrowser {
  server: ViteDevServer
  browser: Browser
  /** `http://127.0.0.1:<port>` */
  base: string
  close(): Promise<void>
}

/** A real Vite dev server on loopback with the plugin (sidecars off), listening. */
export async function devServer(root: string, config: InlineConfig = {}): Promise<{ server: ViteDevServer; base: string }> {
  const server = await createServer({
    root,
    configFile: false,
    logLevel: 'silent',
    plugins: [contracts({ types: false })],
    server: { host: '127.0.0.1', port: 0 },
    ...config,
  })
  await server.listen()
  return { server, base: `http://127.0.0.1:${(server.httpServer!.address() as { port: number }).port}` }
}

export async function devServerWithBrowser(root: string, config: InlineConfig = {}): Promise<DevServerBrowser> {
  const { server, base } = await devServer(root, config)
  const browser = await launchChromium()
  return {
    server,
    browser,
    base,
    async close() {
      await browser.close()
      await server.close()
    },
  }
}
