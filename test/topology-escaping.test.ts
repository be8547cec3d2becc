/**
 * Document text in the topology pictures is text in every output language, rendered the way a
 * user renders each (issue 29): the Mermaid text with the `mermaid` package (v11, `securityLevel:
 * 'strict'`) in real Chromium from a page served on loopback, the SVG and the HTML page opened in
 * Chromium, the DOT text laid out by Graphviz's `dot` and its SVG opened in Chromium. In each: no
 * directive or style applied, no script run, no request but the page's own files, and every hostile
 * string shown literally (hidden characters as their code point). Every request is intercepted.
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toDot, toHtml, toMermaid, toSvg, topology, type Topology } from '../src/index.js'
import { displayText, topologyView, type ViewOptions } from '../src/formats/nats/topology/view.js'
import { CHROMIUM, launchChromium, serveStatic } from './helpers/chromium.js'
import { DIRECTIVE, HOSTILE, hostileBundle, hostileTopology } from './helpers/hostile-topology.js'

const repo = join(import.meta.dirname, '..')
const work = join(import.meta.dirname, '.tmp', `topology-escaping-${process.pid}`)
const DOT = ['/usr/bin/dot', '/usr/local/bin/dot'].find((p) => existsSync(p))
if (!DOT) console.warn('\n*** graphviz (dot) is not installed: the DOT rendering test is SKIPPED (apt-get install graphviz; .ci/run does) ***\n')
/** Every hostile string is drawn: the hand-made projection has 13 streams in one binding. */
const ALL: ViewOptions = { maxStreams: 32 }

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** What a page did: every request it made (all intercepted; only the page's own origin is let through), and whether a script ran. */
/**
 * One tab for the file's pictures (a tab per picture cost a renderer process each): every request it
 * makes is recorded, and one to anywhere but the test's server is aborted. `visit` starts a fresh
 * record and navigates; what a page left in its globals is gone with the navigation.
 */
async function tab(browser: Browser, origin: string): Promise<{ page: Page; visit(url: string): Promise<string[]> }> {
  const page = await browser.newPage()
  let requests: string[] = []
  await page.route('**/*', (route) => {
    const url = route.request().url()
    requests.push(url)
    return url.startsWith(`${origin}/`) ? route.continue() : route.abort()
  })
  return {
    page,
    async visit(url) {
      requests = []
      const seen = requests
      await page.goto(url)
      return seen
    },
  }
}

describe.skipIf(!CHROMIUM)('topology pictures with hostile document text, rendered in Chromium', () => {
  let browser: Browser
  let server: { url: string; close(): Promise<void> }
  let page: Page
  let visit: (url: string) => Promise<string[]>
  let bundle: Topology
  const hand = hostileTopology()

  beforeAll(async () => {
    rmSync(work, { recursive: true, force: true })
    mkdirSync(work, { recursive: true })
    copyFileSync(join(repo, 'node_modules/mermaid/dist/mermaid.min.js'), join(work, 'mermaid.min.js'))
    const result = await topology(hostileBundle(join(work, 'bundle')))
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    bundle = result.topology!
    server = await serveStatic(work)
    browser = await launchChromium()
    ;({ page, visit } = await tab(browser, server.url))
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await server?.close()
    rmSync(work, { recursive: true, force: true })
  })

  /** The Mermaid text in a `<pre class="mermaid">` of a page that loads mermaid's browser bundle, rendered as its README says. */
  async function renderMermaid(name: string, text: string) {
    writeFileSync(
      join(work, `${name}.html`),
      `<!doctype html><html><head><meta charset="utf-8"><script src="/mermaid.min.js"></script></head><body><pre class="mermaid">${escapeHtml(text)}</pre>
<script>mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' }); globalThis.rendered = mermaid.run({ querySelector: 'pre.mermaid' }).then(() => undefined, (e) => String(e))</script></body></html>`,
    )
    const requests = await visit(`${server.url}/${name}.html`)
    const error = await page.evaluate(() => (globalThis as unknown as { rendered: Promise<string | undefined> }).rendered)
    await page.waitForLoadState('networkidle')
    const seen = await page.evaluate(() => {
      const svg = document.querySelector('pre.mermaid svg')
      if (!svg) return { style: '', fills: [], text: document.body.textContent ?? '', injected: -1, pwned: null }
      const fills = [...svg.querySelectorAll('.node rect, .node path')].map((e) => getComputedStyle(e).fill)
      return {
        // The theme's rules, with the diagram's own id (a counter) taken out.
        style: [...svg.querySelectorAll('style')].map((s) => s.textContent!.replaceAll(svg.id, 'ID')).join('\n'),
        fills: [...new Set(fills)].sort(),
        text: svg.textContent ?? '',
        injected: svg.querySelectorAll('script, img, iframe, a[href], [onerror]').length,
        pwned: (globalThis as unknown as { __PWNED?: unknown }).__PWNED ?? null,
      }
    })
    return { error, requests, ...seen }
  }

  for (const [name, source, options] of [
    ['a real bundle whose binding is the directive', () => bundle, {}],
    ['a projection with hostile text in every label', () => hand, ALL],
  ] as const) {
    it(`Mermaid of ${name}: no directive, style, script or request; the text shown literally`, async () => {
      const hostile = toMermaid(source(), options)
      // The same picture with harmless labels: what the theme draws when nothing is injected.
      const plain = await renderMermaid('plain', toMermaid(source(), options).replace(/"[^"\n]*"/g, '"x"'))
      const seen = await renderMermaid('hostile', hostile)
      expect(seen.requests).toEqual([`${server.url}/hostile.html`, `${server.url}/mermaid.min.js`])
      expect(seen.pwned).toBeNull()
      expect(seen.injected).toBe(0)
      expect(seen.error).toBeUndefined()
      expect(seen.style).not.toMatch(/fill:\s*red|@import|127\.0\.0\.1:9/)
      expect(seen.style).toBe(plain.style)
      expect(seen.fills).toEqual(plain.fills)
      expect(seen.fills).not.toContain('rgb(255, 0, 0)')
      const drawn = source() === bundle ? [DIRECTIVE] : HOSTILE
      for (const text of drawn) expect(seen.text, JSON.stringify(text)).toContain(displayText(text))
    }, 60_000)

    it(`SVG and HTML of ${name}: no script, no request, the text shown literally`, async () => {
      writeFileSync(join(work, 'topology.svg'), await toSvg(source(), options))
      writeFileSync(join(work, 'topology.html'), await toHtml(source(), options))
      for (const file of ['topology.svg', 'topology.html']) {
        const requests = await visit(`${server.url}/${file}`)
        await page.waitForLoadState('networkidle')
        const seen = await page.evaluate(() => ({
          parsed: document.getElementsByTagName('parsererror').length,
          text: document.documentElement.textContent ?? '',
          injected: document.querySelectorAll('script, img, iframe, foreignObject, a, [onerror], [onload], [href]').length,
          styles: document.querySelectorAll('style').length,
          pwned: (globalThis as unknown as { __PWNED?: unknown }).__PWNED ?? null,
        }))
        expect(requests, file).toEqual([`${server.url}/${file}`])
        expect(seen, file).toMatchObject({ parsed: 0, injected: 0, styles: file.endsWith('.html') ? 1 : 0, pwned: null })
        const drawn = source() === bundle ? [DIRECTIVE] : HOSTILE
        for (const text of drawn) expect(seen.text, `${file}: ${JSON.stringify(text)}`).toContain(displayText(text))
      }
    }, 60_000)

    it.skipIf(!DOT)(
      `DOT of ${name}: Graphviz draws exactly the view's nodes, the text literally, and its SVG runs nothing`,
      async () => {
        const view = topologyView(source(), options)
        const svg = execFileSync(DOT!, ['-Tsvg'], { input: toDot(source(), options), timeout: 30_000, encoding: 'utf8' })
        writeFileSync(join(work, 'dot.svg'), svg)
        const requests = await visit(`${server.url}/dot.svg`)
        await page.waitForLoadState('networkidle')
        const seen = await page.evaluate(() => ({
          nodes: [...document.querySelectorAll('g.node > title')].map((t) => t.textContent).sort(),
          clusters: document.querySelectorAll('g.cluster').length,
          text: [...document.querySelectorAll('text')].map((t) => t.textContent).join('\n'),
          injected: document.querySelectorAll('script, img, iframe, foreignObject, [onerror], [onload]').length,
          pwned: (globalThis as unknown as { __PWNED?: unknown }).__PWNED ?? null,
        }))
        expect(requests).toEqual([`${server.url}/dot.svg`])
        // No label ended its string: exactly the view's nodes and clusters, no node `X`.
        expect(seen.nodes).toEqual(view.groups.flatMap((g) => (g.nodes.length > 0 ? g.nodes.map((n) => n.key) : [`${g.key}_anchor`])).sort())
        expect(seen.clusters).toBe(view.groups.length)
        expect(seen).toMatchObject({ injected: 0, pwned: null })
        // Graphviz draws each label on one line (no line breaks: hidden characters are shown as code points).
        for (const n of view.groups.flatMap((g) => g.nodes)) expect(seen.text.split('\n'), n.label).toContain(n.label)
        const drawn = source() === bundle ? [DIRECTIVE] : HOSTILE
        for (const text of drawn) expect(seen.text, JSON.stringify(text)).toContain(displayText(text))
      },
      60_000,
    )
  }
})
