/**
 * The NATS example's web page in real Chromium: built by Vite with the plugin, it binds the same
 * contract over nats-server's WebSocket listener, publishes a note and shows what it receives; a
 * Node client on the same server sees the browser's message, and the page's error callback gets a
 * subject outside the contract. With no server, or one the contract refuses, the page says what is
 * wrong and what to do instead of staying on "connecting..." with an uncaught error.
 */
import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { connect } from '@nats-io/transport-node'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM, launchChromium, serveStatic } from './helpers/chromium.js'
import { NATS_SERVER, freePort, startNatsServer, type NatsServer } from './helpers/nats-server.js'

const root = join(import.meta.dirname, '..')
const example = join(root, 'examples/nats-orders')
/** The no-server page is built apart: the two suites may run at once. */
const outDir = join(import.meta.dirname, '.tmp', `nats-web-${process.pid}`)

describe.skipIf(!NATS_SERVER || !CHROMIUM)('NATS client in Chromium over WebSocket', () => {
  let server: NatsServer
  let site: Awaited<ReturnType<typeof serveStatic>>
  let browser: Browser

  beforeAll(async () => {
    execFileSync(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', join(example, 'vite.web.config.ts')], {
      cwd: root,
      stdio: 'pipe',
    })
    server = await startNatsServer({ websocket: true })
    site = await serveStatic(join(example, 'dist-web'))
    browser = await launchChromium()
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await site?.close()
    await server?.stop()
  })

  it('publishes and receives through the contract; out-of-contract subjects reach the error callback', async () => {
    const nc = await connect({ servers: server.url })
    const fromBrowser = new Promise<string>((resolve) => nc.subscribe('shop.*.notes.*', { max: 1, callback: (_e, m) => resolve(`${m.subject} ${m.string()}`) }))
    await nc.flush()
    const page = await browser.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (e) => pageErrors.push(e.message))
    await page.goto(`${site.url}/?server=${encodeURIComponent(server.wsUrl!)}&dev`)
    await page.waitForSelector('#notes li', { timeout: 10_000 })
    expect(await page.textContent('#notes')).toContain('eu 0a1b2c3d: sent from the browser')
    expect(await page.textContent('#status')).toBe('connected')
    expect(await fromBrowser).toBe('shop.eu.notes.0a1b2c3d {"text":"sent from the browser"}')
    // A Node publisher's message arrives typed; one outside the contract never reaches the handler.
    nc.publish('shop.us.notes.ffffffff', JSON.stringify({ text: 'from node' }))
    await page.waitForFunction(() => document.querySelectorAll('#notes li').length === 2, undefined, { timeout: 10_000 })
    nc.publish('shop.us.notes.NOT-HEX', JSON.stringify({ text: 'x' }))
    await page.waitForFunction(() => document.getElementById('status')!.textContent!.startsWith('refused'), undefined, { timeout: 10_000 })
    expect(await page.textContent('#status')).toBe('refused: OUT_OF_CONTRACT_SUBJECT')
    expect(await page.$$eval('#notes li', (items) => items.map((i) => i.textContent))).toEqual(['eu 0a1b2c3d: sent from the browser', 'us ffffffff: from node'])
    expect(pageErrors).toEqual([])
    await nc.close()
  }, 60_000)

  it('refuses the development server without the override: said on the page, no uncaught error', async () => {
    const page = await browser.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (e) => pageErrors.push(e.message))
    await page.goto(`${site.url}/?server=${encodeURIComponent(server.wsUrl!)}`)
    await page.waitForSelector('#status.error', { timeout: 10_000 })
    const status = await page.textContent('#status')
    expect(status).toContain(`The server at ${server.wsUrl!} is refused`)
    expect(status).toContain('needs nats-server 2.11.0 or later')
    expect(status).toContain('add &dev')
    expect(pageErrors).toEqual([])
  }, 30_000)
})

describe.skipIf(!CHROMIUM)('the NATS example page with no server', () => {
  let site: Awaited<ReturnType<typeof serveStatic>>
  let browser: Browser

  beforeAll(async () => {
    execFileSync(
      process.execPath,
      [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', join(example, 'vite.web.config.ts'), '--outDir', outDir],
      {
        cwd: root,
        stdio: 'pipe',
      },
    )
    site = await serveStatic(outDir)
    browser = await launchChromium()
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await site?.close()
    rmSync(outDir, { recursive: true, force: true })
  })

  it('says the server is not reachable at its URL and how to start one, without an uncaught error', async () => {
    // A loopback port nothing listens on: taken free, then closed.
    const closed = `ws://127.0.0.1:${await freePort()}`
    const page = await browser.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (e) => pageErrors.push(e.message))
    await page.goto(`${site.url}/?server=${encodeURIComponent(closed)}&dev`)
    await page.waitForSelector('#status.error', { timeout: 20_000 })
    const status = await page.textContent('#status')
    expect(status).toContain(`No NATS server is reachable at ${closed}.`)
    expect(status).toContain('nats-server -c examples/nats-orders/web/nats-server.conf')
    expect(status).not.toContain('connecting')
    expect(await page.locator('#notes li').count()).toBe(0)
    expect(pageErrors).toEqual([])
  }, 60_000)
})
