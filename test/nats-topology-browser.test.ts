/**
 * Pictures of a topology in real Chromium: the Mermaid text parses and renders with the `mermaid`
 * package (as GitHub renders it), and the SVG is well-formed XML that the browser draws, the HTML
 * page around it too, readable at 1,400 x 900 (test/helpers/picture.ts). Screenshots go to
 * test/.tmp/screenshots/ with CONTRACTS_SCREENSHOTS=1.
 */
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM, launchChromium } from './helpers/chromium.js'
import { pictureFacts } from './helpers/picture.js'
import { toHtml, toSvg, topology } from '../src/index.js'
import { screenshot } from './helpers/screenshot.js'

const root = join(import.meta.dirname, '..')

describe.skipIf(!CHROMIUM)('topology Mermaid in Chromium', () => {
  let browser: Browser
  // One tab for the file, each test setting its window size (a new tab costs a renderer process).
  let page: Page
  beforeAll(async () => {
    browser = await launchChromium()
    page = await browser.newPage()
  }, 60_000)
  afterAll(async () => browser?.close())

  it('the shop golden parses and renders to an SVG with every application and stream', async () => {
    await page.setViewportSize({ width: 1280, height: 720 })
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

  it('the SVG is well-formed and drawn; the HTML page shows it with every channel listed', async () => {
    const shop = (await topology(join(root, 'fixtures/nats/shop'))).topology!
    const svg = await toSvg(shop)
    await page.setViewportSize({ width: 1600, height: 900 })
    const parsed = await page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml')
      return { error: doc.getElementsByTagName('parsererror').length, root: doc.documentElement.nodeName, groups: doc.querySelectorAll('g.group').length }
    }, svg)
    expect(parsed).toEqual({ error: 0, root: 'svg', groups: 4 })
    await page.setContent(await toHtml(shop))
    expect(await page.locator('svg g.node').count()).toBe(20)
    expect(await page.locator('details li').count()).toBe(14)
    const shots = join(root, 'test/.tmp/screenshots')
    mkdirSync(shots, { recursive: true })
    await screenshot(page, join(shots, 'topology-shop.png'))
  }, 60_000)

  it('at 1,400 x 900 the pictures are readable: reachable whole, labels at least 11 px, a legend of the kinds drawn', async () => {
    await page.setViewportSize({ width: 1400, height: 900 })
    // The shop page: wider than the window, so it scrolls sideways in its container instead of shrinking.
    const shop = (await topology(join(root, 'fixtures/nats/shop'))).topology!
    await page.setContent(await toHtml(shop))
    const onPage = await pictureFacts(page)
    expect(await page.$eval('svg', (svg) => svg.getBoundingClientRect().width)).toBeGreaterThan(1400)
    expect(onPage).toMatchObject({ reachable: true, pageFits: true })
    expect(onPage.smallestText).toBeGreaterThanOrEqual(11)
    expect(onPage.legend).toEqual(onPage.drawn)
    // The docs picture opened by itself (as a reader following the image does): the document scrolls to all of it.
    await page.goto(pathToFileURL(join(root, 'docs/images/nats-orders-topology.svg')).href)
    const alone = await pictureFacts(page)
    expect(alone.reachable).toBe(true)
    expect(alone.smallestText).toBeGreaterThanOrEqual(11)
    expect(alone.legend).toEqual(alone.drawn)
    // A bundle without streams: no stream, consumer or capture in the legend either.
    const apps = shop.nodes.filter((n) => n.kind === 'application' || n.kind === 'channel')
    const bare = { nodes: apps, edges: shop.edges.filter((e) => ['link', 'import', 'operation-channel'].includes(e.kind)) }
    await page.goto('about:blank') // from the SVG document back to an HTML one, which setContent writes into
    await page.setContent(await toHtml(bare))
    const plain = await pictureFacts(page)
    expect(plain.legend).toEqual(plain.drawn)
    expect(plain.legend).toEqual(['edge import', 'edge link', 'node channel'])
  }, 60_000)
})
