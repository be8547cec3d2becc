/** The Mermaid picture of a topology parses and renders with the `mermaid` package, in real Chromium (as GitHub renders it). */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM } from './helpers/chromium.js'

const root = join(import.meta.dirname, '..')

describe.skipIf(!CHROMIUM)('topology Mermaid in Chromium', () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
  }, 60_000)
  afterAll(async () => browser?.close())

  it('the shop golden parses and renders to an SVG with every application and stream', async () => {
    const page = await browser.newPage()
    await page.setContent('<!doctype html><html><body><div id="out"></div></body></html>')
    await page.addScriptTag({ content: readFileSync(join(root, 'node_modules/mermaid/dist/mermaid.min.js'), 'utf8') })
    const text = readFileSync(join(root, 'fixtures/nats/topology/shop.mmd'), 'utf8')
    const result = await page.evaluate(async (source) => {
      const mermaid = (globalThis as unknown as { mermaid: any }).mermaid
      mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' })
      const parsed = await mermaid.parse(source)
      const { svg } = await mermaid.render('topology', source)
      return { parsed: Boolean(parsed), svg: svg as string }
    }, text)
    expect(result.parsed).toBe(true)
    for (const label of ['orders 1.2.0', 'payments 1.4.0', 'shipping 0.9.0', 'JetStream shop-prod', 'ORDERS (orders)', 'placeOrder → onOrderPlaced'])
      expect(result.svg, label).toContain(label)
    expect(result.svg.startsWith('<svg')).toBe(true)
  }, 60_000)
})
