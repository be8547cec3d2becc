/**
 * The Vite dev page `/__contracts/` in real Chromium, on a copy of the NATS example: it lists the
 * contracts the dev server compiled with the topology picture of their bundle, shows a diagnostic
 * with its code frame after an invalid edit, and the picture again after the fix, by itself (the
 * page follows the server's version). Screenshots go to test/.tmp/screenshots/ with CONTRACTS_SCREENSHOTS=1.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM } from './helpers/chromium.js'
import { devServerWithBrowser, type DevServerBrowser } from './helpers/dev-server-browser.js'
import { contracts as cli } from './helpers/cli.js'
import { screenshot } from './helpers/screenshot.js'

const repo = join(import.meta.dirname, '..')
const root = join(import.meta.dirname, '.tmp', `dev-page-${process.pid}`)
const shots = join(import.meta.dirname, '.tmp', 'screenshots')

/**
 * `read` once the page shows `ready`, read again (at most four more times) when the page reloads
 * between the wait and the read: the dev page reloads itself whenever a compile changed something.
 */
async function afterReloads<T>(page: Page, ready: string, read: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      await page.waitForSelector(ready, { timeout: 20_000 })
      return await read()
    } catch (error) {
      if (attempt >= 4 || !/context was destroyed|navigat/i.test(String(error))) throw error
      await page.waitForLoadState('load')
    }
  }
}

describe.skipIf(!CHROMIUM)('the /__contracts/ dev page', () => {
  let dev: DevServerBrowser
  let browser: Browser
  let base: string
  const orders = join(root, 'orders/asyncapi.yaml')
  let original: string
  // As the example's README says: `contracts lock` fills in the digests the bundle pins.
  const relock = () => expect(cli(['lock', root]).status).toBe(0)

  beforeAll(async () => {
    rmSync(root, { recursive: true, force: true })
    mkdirSync(shots, { recursive: true })
    cpSync(join(repo, 'examples/nats-orders'), root, { recursive: true, filter: (src) => !/dist|\.d\.yaml\.ts$/.test(src) })
    original = readFileSync(orders, 'utf8')
    // An app module that imports both contracts, as the services do.
    writeFileSync(join(root, 'index.html'), '<!doctype html><script type="module" src="/app.js"></script>')
    writeFileSync(
      join(root, 'app.js'),
      "import * as orders from './orders/asyncapi.yaml'\nimport * as fulfilment from './fulfilment/asyncapi.yaml'\nwindow.loaded = [orders.contract.id, fulfilment.contract.id]\n",
    )
    dev = await devServerWithBrowser(root)
    ;({ browser, base } = dev)
  }, 60_000)

  afterAll(async () => {
    await dev?.close()
    rmSync(root, { recursive: true, force: true })
  })

  it('lists the compiled contracts with the bundle picture, a diagnostic after an invalid edit, the picture after the fix', async () => {
    const app = await browser.newPage()
    await app.goto(`${base}/`)
    await app.waitForFunction(() => (window as unknown as { loaded?: string[] }).loaded?.length === 2, undefined, { timeout: 20_000 })
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } })
    await page.goto(`${base}/__contracts/`)
    expect(await page.textContent('#count')).toBe('2 contracts')
    expect(await page.locator('section.contract .format').allTextContents()).toEqual(['nats', 'nats'])
    expect(await page.locator('section.contract').evaluateAll((s) => s.map((e) => e.getAttribute('data-file')))).toEqual([
      'fulfilment/asyncapi.yaml',
      'orders/asyncapi.yaml',
    ])
    expect(await page.locator('section.contract .exports').first().textContent()).toContain('orderPlaced')
    expect(await page.locator('section.topology svg g.group').count()).toBe(3)
    await screenshot(page, join(shots, 'dev-page.png'))

    // An invalid edit, relocked as the example's README says (contracts lock): a token type the profile refuses.
    writeFileSync(orders, original.replace('minLength: 8, maxLength: 8', 'minLength: 8, maxLength: 300'))
    relock()
    // The page reloads itself for the edit and again for the lock: what it shows is read once it
    // shows the diagnostic, and read again when a reload comes between (the reads failed with
    // "Execution context was destroyed" once, under the whole suite's load).
    // Ready when it shows both the diagnostic and the failed picture: the two can arrive with different
    // reloads (the edit's and the lock's), and a read between them saw the diagnostic without the
    // failed picture once, under the whole suite's load.
    const ready = 'body:has(pre.diagnostic[data-code="NATS_TOKEN_TYPE"]):has(section.topology.failed)'
    const [text, failed] = await afterReloads(page, ready, async (): Promise<[string, number]> => [
      (await page.locator('pre.diagnostic').allTextContents()).join('\n'),
      await page.locator('section.topology.failed').count(),
    ])
    expect(text).toMatch(/asyncapi\.yaml:\d+:\d+/)
    expect(text).toContain('maxLength: 300')
    expect(failed).toBe(1)
    await screenshot(page, join(shots, 'dev-page-invalid.png'))

    // The fix (relocked): the picture is back.
    writeFileSync(orders, original)
    relock()
    // The page may be redrawn more than once on the way (the edit, then the lock): wait for the state
    // that must come, the picture back and no diagnostic left, not for the first sign of it.
    await page.waitForFunction(
      () => document.querySelector('section.topology svg') !== null && document.querySelectorAll('pre.diagnostic').length === 0,
      null,
      {
        timeout: 20_000,
      },
    )
    expect(await page.locator('pre.diagnostic').count()).toBe(0)
    expect(await page.locator('section.topology.failed').count()).toBe(0)
    await screenshot(page, join(shots, 'dev-page-fixed.png'))
  }, 90_000)
})
