/**
 * The package root bundled into an app, as docs/topology.md suggests for a dashboard: a `?topology`
 * module drawn with `toMermaid` (and the other pictures and the global subject parser). For the
 * browser (Vite, and esbuild with `platform: 'browser'`), the bundle builds without Node's modules
 * and runs in real Chromium; for Node (esbuild, `platform: 'node'`, everything bundled), the bundle
 * runs from a folder outside the package, where no package.json of ours lies beside the code.
 */
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { globalSubjectParser, toHtml, toSvg, topology } from 'unplugin-contracts'
import { bounded } from './helpers/bounded.js'
import { CHROMIUM, launchChromium, serveStatic } from './helpers/chromium.js'

const root = join(import.meta.dirname, '..')
const work = join(import.meta.dirname, '.tmp', `bundled-package-root-${process.pid}`)
const goldens = join(root, 'fixtures/nats/topology')
const SUBJECT = 'orders.eu.0a1b2c3d.placed'

/** The dashboard: every export the docs suggest for it, applied to the bundle's `?topology` module. */
const DASHBOARD = `import shop from './shop/bundle.lock.json?topology'
import { globalSubjectParser, toDot, toHtml, toMermaid, toSvg } from 'unplugin-contracts'

export async function draw() {
  return {
    mermaid: toMermaid(shop),
    dot: toDot(shop),
    svg: await toSvg(shop),
    html: await toHtml(shop),
    candidates: globalSubjectParser(shop).candidates(${JSON.stringify(SUBJECT)}),
  }
}
`

/** An app folder with the package installed as users install it (resolved through its `exports`). */
function app(name: string): string {
  const dir = join(work, name)
  mkdirSync(join(dir, 'node_modules'), { recursive: true })
  symlinkSync(root, join(dir, 'node_modules/unplugin-contracts'), 'dir')
  cpSync(join(root, 'fixtures/nats/shop'), join(dir, 'shop'), { recursive: true })
  writeFileSync(join(dir, 'dashboard.js'), DASHBOARD)
  writeFileSync(join(dir, 'main.js'), "import { draw } from './dashboard.js'\nglobalThis.drawn = draw()\n")
  writeFileSync(join(dir, 'index.html'), '<!doctype html><html><body><script type="module" src="./main.js"></script></body></html>\n')
  return dir
}

/** What the same calls give in this process, from the package itself (computed once). */
let expectedOnce: Promise<Record<string, unknown>> | undefined
const expected = () => (expectedOnce ??= drawnHere())
async function drawnHere(): Promise<Record<string, unknown>> {
  const shop = (await topology(join(root, 'fixtures/nats/shop'))).topology!
  return {
    mermaid: readFileSync(join(goldens, 'shop.mmd'), 'utf8'),
    dot: readFileSync(join(goldens, 'shop.dot'), 'utf8'),
    svg: await toSvg(shop),
    html: await toHtml(shop),
    candidates: JSON.parse(JSON.stringify(globalSubjectParser(shop).candidates(SUBJECT))) as unknown,
  }
}

beforeAll(() => mkdirSync(work, { recursive: true }))
afterAll(() => rmSync(work, { recursive: true, force: true }))

describe.skipIf(!CHROMIUM)('the package root in a browser bundle', () => {
  let browser: Browser
  // One tab for the file (a new tab costs a renderer process): each bundle's page is visited in turn.
  let page: Page
  let errors: string[] = []
  beforeAll(async () => {
    browser = await launchChromium()
    page = await browser.newPage()
    page.on('pageerror', (e) => errors.push(e.message))
  }, 60_000)
  afterAll(async () => browser?.close())

  const builds: Record<string, (dir: string) => Promise<void>> = {
    async vite(dir) {
      const { build } = await import('vite')
      const { default: contracts } = await import('unplugin-contracts/vite')
      await build({
        configFile: false,
        logLevel: 'silent',
        root: dir,
        base: './',
        plugins: [contracts({ types: false })],
        build: { outDir: 'dist', minify: false },
      })
    },
    async esbuild(dir) {
      const { build } = await import('esbuild')
      const { default: contracts } = await import('unplugin-contracts/esbuild')
      await build({
        entryPoints: [join(dir, 'main.js')],
        bundle: true,
        splitting: true,
        format: 'esm',
        platform: 'browser',
        outdir: join(dir, 'dist'),
        plugins: [contracts({ types: false })],
        logLevel: 'silent',
      })
      writeFileSync(join(dir, 'dist/index.html'), readFileSync(join(dir, 'index.html')))
    },
  }

  it.each(Object.keys(builds))(
    '%s builds it for the browser, and in Chromium it draws what Node draws',
    async (name) => {
      const dir = app(name)
      // Each step bounded and named, so that a stall says which step stalled.
      await bounded(`the ${name} build`, builds[name]!(dir), 60_000)
      const server = await serveStatic(join(dir, 'dist'))
      errors = []
      try {
        await page.goto(`${server.url}/`, { timeout: 30_000 })
        await page.waitForFunction(() => 'drawn' in globalThis, undefined, { timeout: 30_000 })
        const drawn = await bounded(
          'the pictures drawn in Chromium',
          page.evaluate(() => (globalThis as unknown as { drawn: Promise<unknown> }).drawn),
          30_000,
        )
        expect(errors).toEqual([])
        expect(drawn).toEqual(await bounded('the pictures drawn in Node', expected(), 30_000))
      } finally {
        await server.close()
      }
    },
    120_000,
  )
})

describe('the package root in a Node bundle', () => {
  it('esbuild bundles everything into a folder outside the package, and the bundle runs', async () => {
    const dir = app('node')
    const { build } = await import('esbuild')
    const { default: contracts } = await import('unplugin-contracts/esbuild')
    const out = mkdtempSync(join(tmpdir(), 'unplugin-contracts-bundled-'))
    try {
      await build({
        entryPoints: [join(dir, 'dashboard.js')],
        bundle: true,
        format: 'esm',
        platform: 'node',
        outfile: join(out, 'dashboard.mjs'),
        plugins: [contracts({ types: false })],
        logLevel: 'silent',
      })
      const script = `import { draw } from './dashboard.mjs'; process.stdout.write(JSON.stringify(await draw()))`
      const drawn = JSON.parse(
        execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: out, encoding: 'utf8', timeout: 60_000 }),
      ) as unknown
      expect(drawn).toEqual(await expected())
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  }, 120_000)
})
