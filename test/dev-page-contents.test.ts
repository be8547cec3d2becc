/**
 * What the `/__contracts/` dev page says, in real Chromium, for a Vite root beside its contracts (as
 * the examples' `web/` folders are): one contract of each format and a NATS bundle, imported by an app page, and a
 * NATS document outside any bundle. Each contract's listed exports are exactly what its module
 * exports (the app imports every module and reports its namespace); the bundle is named by its
 * folder and lock, never by a path like `..`; the document outside a bundle says why it has no
 * picture and what to do; the picture is readable at 1,400 x 900 (its own size, scrolling sideways,
 * labels at least 11 px) with a legend of exactly the kinds drawn.
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM } from './helpers/chromium.js'
import { devServerWithBrowser, type DevServerBrowser } from './helpers/dev-server-browser.js'
import { pictureFacts } from './helpers/picture.js'
import { screenshot } from './helpers/screenshot.js'

const repo = join(import.meta.dirname, '..')
const tmp = join(import.meta.dirname, '.tmp', `dev-page-contents-${process.pid}`)
const web = join(tmp, 'web')

/** Each contract as the app imports it (from web/) and as the page names it (relative to the Vite root). */
const MODULES = {
  payments: '../payments-client/payments.spec.json',
  counter: '../dasp-counter/counter.dasp.json',
  orders: '../nats-orders/orders/asyncapi.yaml',
  fulfilment: '../nats-orders/fulfilment/asyncapi.yaml',
  ledger: '../lone/ledger.asyncapi.yaml',
} as const

describe.skipIf(!CHROMIUM)('the /__contracts/ dev page, contract by contract', () => {
  let dev: DevServerBrowser
  let browser: Browser
  let base: string

  beforeAll(async () => {
    rmSync(tmp, { recursive: true, force: true })
    mkdirSync(web, { recursive: true })
    const skip = (src: string) => !/dist|src$|\.d\.(json|yaml)\.ts$/.test(src)
    cpSync(join(repo, 'examples/payments-client/payments.spec.json'), join(tmp, 'payments-client/payments.spec.json'))
    cpSync(join(repo, 'examples/dasp-counter'), join(tmp, 'dasp-counter'), { recursive: true, filter: skip })
    cpSync(join(repo, 'examples/nats-orders'), join(tmp, 'nats-orders'), { recursive: true, filter: skip })
    cpSync(join(repo, 'fixtures/nats/valid/ledger.asyncapi.yaml'), join(tmp, 'lone/ledger.asyncapi.yaml'))
    writeFileSync(join(web, 'index.html'), '<!doctype html><script type="module" src="/app.js"></script>')
    writeFileSync(
      join(web, 'app.js'),
      Object.entries(MODULES)
        .map(([name, path]) => `import * as ${name} from ${JSON.stringify(path)}`)
        .concat(`window.modules = {${Object.entries(MODULES).map(([name, path]) => `${JSON.stringify(path)}: Object.keys(${name})`)}}`)
        .join('\n'),
    )
    dev = await devServerWithBrowser(web, { cacheDir: join(tmp, '.vite') })
    ;({ browser, base } = dev)
  }, 60_000)

  afterAll(async () => {
    await dev?.close()
    rmSync(tmp, { recursive: true, force: true })
  })

  it('lists what each module exports, names the bundle, says why a document has no picture, draws a readable picture', async () => {
    // One tab (a tab costs a renderer process): the app page first (its imports are what the dev server
    // compiles), then the dev page, which lists what the server compiled.
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } })
    await page.goto(`${base}/`)
    await page.waitForFunction(() => (window as unknown as { modules?: object }).modules !== undefined, undefined, { timeout: 30_000 })
    const exported = await page.evaluate(() => (window as unknown as { modules: Record<string, string[]> }).modules)

    await page.goto(`${base}/__contracts/`)
    expect(await page.textContent('#count')).toBe('5 contracts')
    const listed = await page
      .locator('section.contract')
      .evaluateAll((sections) =>
        Object.fromEntries(sections.map((s) => [s.getAttribute('data-file')!, [...s.querySelectorAll('.exports code')].map((c) => c.textContent!)])),
      )
    expect(Object.keys(listed).sort()).toEqual(Object.values(MODULES).sort())
    for (const path of Object.values(MODULES)) expect([...listed[path]!].sort(), path).toEqual([...exported[path]!].sort())
    // DASP's checks are functions of the module: listed like its data.
    expect(listed[MODULES.counter]).toEqual(expect.arrayContaining(['isExactSelection', 'checkSessionFloor', 'checkPlacement', 'conformanceReport']))

    // The bundle by its folder and lock, whatever the Vite root.
    const bundle = page.locator('section.topology[data-bundle]')
    expect(await bundle.count()).toBe(1)
    expect(await bundle.locator('h2').textContent()).toBe('Topology of the nats-orders bundle')
    expect(await bundle.locator('.lock').textContent()).toBe('locked by ../nats-orders/bundle.lock.json')
    expect(await page.locator('h2').allTextContents()).not.toContain('Topology of ..')

    // The document outside a bundle: why there is no picture, and what to do.
    const lone = page.locator('section.topology.none')
    expect(await lone.getAttribute('data-file')).toBe(MODULES.ledger)
    expect(await lone.locator('h2').textContent()).toBe(`No topology for ${MODULES.ledger}`)
    const why = (await lone.locator('.why').textContent())!
    expect(why).toContain('not in a bundle (no bundle.lock.json in its folder or any folder above it)')
    expect(why).toContain('put the document in a folder with a bundle.lock.json that lists it')

    // The picture at 1,400 x 900: all of it reachable, labels readable, the legend of what is drawn.
    const facts = await pictureFacts(page)
    expect(facts.reachable).toBe(true)
    expect(facts.pageFits).toBe(true)
    expect(facts.smallestText).toBeGreaterThanOrEqual(11)
    expect(facts.legend).toEqual(facts.drawn)
    expect(facts.drawn).toEqual(['edge capture', 'edge consumer', 'edge import', 'edge link', 'node channel', 'node consumer', 'node stream'])
    await screenshot(page, join(repo, 'test/.tmp/screenshots/dev-page-contents.png'))
  }, 90_000)
})
