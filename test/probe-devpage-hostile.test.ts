/**
 * An outside hostile pass over the Vite dev server's contract page `/__contracts/` and the error
 * overlay the plugin feeds (probe r16). Tested from the outside: a real Vite dev server on loopback
 * with the plugin as users install it, real Chromium (the run's shared one) with every request
 * recorded, raw HTTP requests on a socket (so paths reach the server unnormalised).
 *
 * Each behaviour is either pinned ("Holds (pinned): ...") or a defect this pass found ("DEFECT:
 * ..."), written so that the test fails while the defect is there. No assertion is on a duration;
 * every wait has a bound. Files live under test/.tmp/probe-devpage-hostile/.
 */
import { mkdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bounded } from './helpers/bounded.js'
import { CHROMIUM, launchChromium } from './helpers/chromium.js'
import { devServer } from './helpers/dev-server-browser.js'

const repo = join(import.meta.dirname, '..')
const work = join(import.meta.dirname, '.tmp', 'probe-devpage-hostile', String(process.pid))
/** The Vite root: a package of its own, so Vite's `server.fs.allow` (the workspace root) is this folder. */
const web = join(work, 'web')
/** A folder outside the Vite root and outside `server.fs.allow`. */
const outside = join(work, 'outside')

/** Folder and file names with markup, quotes, an attribute breakout, bidi and zero-width characters. */
const FOLDER = `c<img src=x onerror=window.__pwned=3>"'<svg onload=window.__pwned=4>&amp;`
const FILE = `x<b>\u202Eevil\u200B.spec.json`
/** Markup for a `$ref` (it reaches the diagnostic's message and its code frame). */
const MARKUP = `<img src=x onerror=window.__pwned=5></pre><script>window.__pwned=6</script><style>*{display:none}</style>javascript:alert(1)`

const HOSTILE_SPEC = JSON.parse(readFileSync(join(repo, 'fixtures/benzene/valid/hostile-names.spec.json'), 'utf8')) as {
  info: { title: string }
  requests: Array<{ topic: string; request: unknown }>
}
HOSTILE_SPEC.info.title = `</title><script>window.__pwned=1</script>"><img src=x onerror=window.__pwned=2>`
const OK_TEXT = JSON.stringify(HOSTILE_SPEC, null, 2)
const BAD_TEXT = OK_TEXT.replace('"#/components/schemas/Weird Name*~1"', JSON.stringify(`#/components/schemas/${MARKUP}`))

/** A small valid Benzene contract. */
const small = (n: number | string) =>
  JSON.stringify({
    openapi: '3.0.1',
    info: { title: `c${n}`, version: '' },
    requests: [{ topic: `t${n}:get`, request: { type: 'object' }, response: { type: 'string' } }],
    events: [],
    components: { schemas: {} },
  })
const MANY = 100

/** What the docs call hidden: shown as a code point, never raw (bidi overrides, isolates, zero-width). */
const HIDDEN = /[\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/u

/** One raw HTTP/1.1 exchange on a socket (the path exactly as written), bounded. */
function raw(port: number, request: string, ms = 10_000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let data = ''
    socket.setTimeout(ms, () => {
      socket.destroy()
      resolve(`TIMEOUT ${data}`)
    })
    socket.on('data', (chunk) => (data += chunk.toString('latin1')))
    socket.on('end', () => resolve(data))
    socket.on('error', (error) => resolve(`ERROR ${String(error)} ${data}`))
    socket.write(request)
  })
}
const get = (port: number, path: string, method = 'GET') =>
  raw(port, `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
const statusOf = (response: string) => response.split('\r\n')[0] ?? ''

/** What the page shows, read again when a self-reload comes between (at most four more times). */
async function afterReloads<T>(page: Page, ready: string, read: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      await page.waitForSelector(ready, { timeout: 20_000 })
      return await read()
    } catch (error) {
      if (attempt >= 4 || !/context was destroyed|navigat/i.test(String(error))) throw error
      await page.waitForLoadState('load', { timeout: 20_000 })
    }
  }
}

describe.skipIf(!CHROMIUM)('the /__contracts/ dev page and the overlay against hostile contracts and requests', () => {
  let browser: Browser
  let server: Awaited<ReturnType<typeof devServer>>['server']
  let base: string
  let port: number
  let shownText = ''
  const alive = async () => (await fetch(`${base}/__contracts/version`, { signal: AbortSignal.timeout(10_000) })).status

  beforeAll(async () => {
    rmSync(work, { recursive: true, force: true })
    mkdirSync(join(web, FOLDER), { recursive: true })
    mkdirSync(join(web, 'many'), { recursive: true })
    mkdirSync(outside, { recursive: true })
    writeFileSync(join(web, 'package.json'), '{"name":"probe-devpage-web","private":true}\n')
    writeFileSync(join(web, FOLDER, FILE), OK_TEXT)
    writeFileSync(join(web, FOLDER, 'bad.spec.json'), BAD_TEXT)
    writeFileSync(join(web, 'edit.spec.json'), small('edit'))
    for (let i = 0; i < MANY; i++) writeFileSync(join(web, 'many', `c${i}.spec.json`), small(i))
    // Outside the Vite root: a contract, a plain JSON file, and a folder of the root linked to it.
    writeFileSync(join(outside, 'secret.spec.json'), small(4242))
    writeFileSync(join(outside, 'plain.json'), '{"secret":4242}')
    symlinkSync(outside, join(web, 'linked'))
    writeFileSync(join(web, 'index.html'), '<!doctype html><script type="module" src="/app.js"></script>')
    const modules = [`./${FOLDER}/${FILE}`, `./${FOLDER}/bad.spec.json`, './edit.spec.json']
    writeFileSync(
      join(web, 'app.js'),
      `window.done = []\n${modules.map((m, i) => `import(${JSON.stringify(m)}).then(() => 'ok', (e) => String(e)).then((r) => { window.done[${i}] = r })`).join('\n')}\n`,
    )
    writeFileSync(join(web, 'many.html'), '<!doctype html><script type="module" src="/many.js"></script>')
    writeFileSync(
      join(web, 'many.js'),
      `window.done = 0\n${Array.from({ length: MANY }, (_, i) => `import('./many/c${i}.spec.json').finally(() => window.done++)`).join('\n')}\n`,
    )
    ;({ server, base } = await bounded('dev server', devServer(web, { cacheDir: join(work, '.vite') }), 60_000))
    port = Number(new URL(base).port)
    browser = await launchChromium()
  }, 90_000)

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    rmSync(work, { recursive: true, force: true })
  })

  it('Holds (pinned): hostile folder and file names, a hostile title and a diagnostic with markup are text on the page and in the overlay; nothing runs or is fetched', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } })
    const requests: string[] = []
    const dialogs: string[] = []
    const errors: string[] = []
    page.on('dialog', (d) => {
      dialogs.push(d.message())
      void d.dismiss()
    })
    page.on('pageerror', (e) => errors.push(String(e)))
    await page.route('**/*', (route) => {
      const url = route.request().url()
      requests.push(url)
      return url.startsWith(`${base}/`) ? route.continue() : route.abort()
    })
    await page.goto(`${base}/`, { timeout: 30_000 })
    await page.waitForFunction(() => (window as unknown as { done: unknown[] }).done.filter((x) => x !== undefined).length === 3, undefined, {
      timeout: 30_000,
    })
    const done = await page.evaluate(() => (window as unknown as { done: string[] }).done)
    expect(done[0]).toBe('ok')
    expect(done[2]).toBe('ok')
    expect(done[1]).not.toBe('ok')

    // The overlay the plugin fed for the failing contract: its text has the markup, no element made of it.
    await page.waitForSelector('vite-error-overlay', { timeout: 20_000, state: 'attached' })
    const overlay = await page.locator('vite-error-overlay').evaluate((el) => ({
      text: el.shadowRoot!.textContent ?? '',
      elements: el.shadowRoot!.querySelectorAll('img, svg, iframe, object, embed, script:not([data-vite]), [onerror], [onload]').length,
    }))
    expect(overlay.text).toContain(MARKUP.slice(0, 40))
    expect(overlay.elements).toBe(0)

    requests.length = 0
    await page.goto(`${base}/__contracts/`, { timeout: 30_000 })
    const ready = 'body:has(pre.diagnostic)'
    const seen = await afterReloads(page, ready, () =>
      page.evaluate(() => ({
        pwned: (window as unknown as { __pwned?: unknown }).__pwned ?? null,
        injected: document.querySelectorAll('img, svg:not(section.topology svg), iframe, object, embed, a[href], [onerror], [onload], style:not(head style)')
          .length,
        scripts: document.querySelectorAll('script').length,
        title: document.title,
        files: [...document.querySelectorAll('section.contract')].map((s) => s.getAttribute('data-file') ?? ''),
        headings: [...document.querySelectorAll('section.contract h2')].map((h) => h.textContent ?? ''),
        diagnostics: [...document.querySelectorAll('pre.diagnostic')].map((p) => (p as HTMLElement).innerText),
        text: document.body.innerText,
        visible: getComputedStyle(document.body).display,
      })),
    )
    // Only the page and its own version poll, on the dev server's origin.
    await page.waitForTimeout(1_500)
    expect(requests.filter((u) => !/^http:\/\/127\.0\.0\.1:\d+\/__contracts\/(?:version)?$/.test(u))).toEqual([])
    expect([seen.pwned, dialogs, errors]).toEqual([null, [], []])
    expect(seen.injected).toBe(0)
    expect(seen.scripts).toBe(1)
    expect(seen.title).toBe('Contracts')
    expect(seen.visible).toBe('block')
    // The folder's markup comes back exactly as written (attribute and text), not dropped or mangled.
    const shownFile = `${FOLDER}/${FILE.replace(/[\u202e\u200b]/gu, '')}`
    const plain = (s: string) => s.replace(/\\u\{[0-9a-f]+\}|[\u202e\u200b]/giu, '')
    expect(seen.files.map(plain)).toContain(shownFile)
    expect(seen.headings.map(plain)).toContain(shownFile)
    expect(seen.files).toContain(`${FOLDER}/bad.spec.json`)
    // The failing contract's diagnostic: the $ref's markup in the message and in the code frame, as text.
    const bad = seen.diagnostics.join('\n')
    expect(bad).toContain(MARKUP)
    expect(bad).toMatch(/bad\.spec\.json:\d+:\d+/)
    shownText = seen.text
    await page.close()
  }, 90_000)

  it("Was a defect (fixed): a file name's zero-width space is raw in the page's text (headings), where bidi overrides are shown as code points", () => {
    // DEFECT: a contract file named `x<b>\u202Eevil\u200B.spec.json`: the page shows the U+202E as a code
    // point (the earlier pass's fix), but the U+200B zero-width space raw in the contract's heading and
    // file. Expected, as docs/topology.md says for document text in pictures and the earlier fix did for
    // bidi: zero-width characters shown as their code point. Why it matters: two files whose names differ
    // only by a zero-width character read as the same name on the page that says which contract is which.
    expect(shownText).not.toBe('')
    const raw = [...shownText].filter((c) => HIDDEN.test(c)).map((c) => `U+${c.codePointAt(0)!.toString(16)}`)
    expect(raw).toEqual([])
  })

  it('Was a defect (fixed): a GET for an absolute filesystem path outside the Vite root and server.fs.allow compiles and serves the contract there, and lists it on the page', async () => {
    // DEFECT: `GET /<abs path outside the root>/secret.spec.json?import` (also `//abs/...`) answers 200 with
    // the compiled module of a contract outside the Vite root and outside `server.fs.allow`, and
    // `/__contracts/` then lists it with its identity and exports. Vite itself refuses the same file
    // through `/@fs/` (403) and does not serve `plain.json` beside it by the same URL (its HTML fallback).
    // Expected: the plugin reads no contract Vite would not serve (403, or Vite's fallback) and the page
    // never lists it. Why it matters: anyone who can reach a dev server (`--host`, a DNS-rebinding page)
    // reads any contract-named file on the machine (another checkout's contracts, a user's files named
    // `*.spec.json` / `*.asyncapi.yaml` / `*.dasp.json`), which `server.fs` exists to prevent.
    const target = join(outside, 'secret.spec.json')
    // Vite's own stance on the same folder (pinned).
    expect(statusOf(await get(port, `/@fs${target}`))).toMatch(/ 403 /)
    expect(await get(port, `${join(outside, 'plain.json')}?import`)).not.toContain('4242')
    const answers = await Promise.all([`${target}?import`, `/${target}?import`].map((path) => get(port, path)))
    const page = await (await fetch(`${base}/__contracts/`, { signal: AbortSignal.timeout(20_000) })).text()
    expect(answers.map((a) => [statusOf(a), a.includes('t4242:get')])).toEqual([
      [expect.not.stringMatching(/ 200 /), false],
      [expect.not.stringMatching(/ 200 /), false],
    ])
    expect(page).not.toContain('outside/secret.spec.json')
  })

  it('Was a defect (fixed): a folder of the root that is a symbolic link out of the tree is followed: its contract is compiled, served and listed', async () => {
    // DEFECT: web/linked -> ../outside (a folder outside the Vite root and server.fs.allow);
    // `GET /linked/secret.spec.json?import` answers 200 with the compiled module and the page lists
    // `linked/secret.spec.json` with its identity and "no diagnostics". Expected, as docs/reliability.md
    // says ("a folder that is a link out of the tree does not count as inside. Symbolic links are never
    // followed (CONTRACTS_SYMLINK)"): refused with a diagnostic. The module's source map also carries the
    // outside file's whole text (`sourcesContent`). Why it matters: a cloned tree (another
    // team's contracts) can carry a link that makes the dev server read and serve files elsewhere.
    const answer = await get(port, '/linked/secret.spec.json?import')
    const page = await (await fetch(`${base}/__contracts/`, { signal: AbortSignal.timeout(20_000) })).text()
    const section = page.match(/<section class="contract" data-file="linked\/secret\.spec\.json">[^]*?<\/section>/)?.[0] ?? ''
    expect([statusOf(answer), answer.includes('t4242:get')]).toEqual([expect.not.stringMatching(/ 200 /), false])
    expect(section).not.toContain('no diagnostics')
  })

  it('Holds (pinned): traversal, encoded, backslash and NUL paths under /__contracts/ read no file; odd methods and a huge query get bounded answers; the server lives', async () => {
    const secrets = [/"name":\s*"unplugin-contracts"/, /root:x:0:0/, /4242/]
    const paths = [
      '/__contracts/../../package.json',
      '/__contracts/../package.json',
      '/__contracts/%2e%2e/%2e%2e/package.json',
      '/__contracts/%2e%2e%2fpackage.json',
      '/__contracts/..%5c..%5cpackage.json',
      '/__contracts/..\\..\\package.json',
      '/__contracts/version/../../../../../../../../etc/passwd',
      '/__contracts/%00',
      '/__contracts/version%00.json',
      '/__contracts//etc/passwd',
      '/__contracts/..%252f..%252fpackage.json',
      `/__contracts/${'../'.repeat(40)}etc/passwd`,
      `/__contracts/${encodeURIComponent(outside)}/plain.json`,
      '/__contracts/?file=../../package.json',
      '/__contracts/version?' + 'q'.repeat(6_000),
    ]
    const leaks: string[] = []
    for (const path of paths) {
      const answer = await get(port, path)
      expect(answer.startsWith('HTTP/1.1 '), path).toBe(true)
      if (secrets.some((s) => s.test(answer))) leaks.push(path + ' ' + answer.slice(0, 400))
    }
    expect(leaks).toEqual([])
    // A query past Node's header limit is refused by Node, not parsed.
    expect(statusOf(await get(port, '/__contracts/?' + 'a'.repeat(100_000)))).toMatch(/ 431 /)
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'HEAD', 'PROPFIND', 'FOO']) {
      const answer = await get(port, '/__contracts/', method)
      expect(answer.startsWith('HTTP/1.1 '), method).toBe(true)
      expect(answer, method).not.toMatch(/TIMEOUT/)
    }
    // A request whose body never ends, and a half request: neither stops the server answering others.
    const slow = raw(port, `POST /__contracts/ HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\nabc`, 3_000)
    const half = raw(port, `GET /__contracts/ HTTP/1.1\r\nHost: x\r\n`, 3_000)
    expect(await alive()).toBe(200)
    await Promise.all([slow, half])
    expect(await alive()).toBe(200)
  })

  it('Was a defect (fixed): every request for a contract-named file that does not exist adds a section to the page, without bound', async () => {
    // DEFECT: 50 requests `GET /nope-<n>.spec.json?import` (no such files) leave 50 more sections on
    // `/__contracts/` ("CONTRACTS_READ_FAILED ... there is no such file"), kept after the requests; the
    // page grows with every distinct URL anyone sends. Expected: a file that does not exist is not a
    // contract the server compiled (or the failures are bounded / dropped). Why it matters: bounded cost,
    // and the page's list is what a developer reads to know what the app uses: anyone who can reach the
    // server can fill it with entries (with any text in their names) and grow its memory.
    const count = async () => {
      const html = await (await fetch(`${base}/__contracts/`, { signal: AbortSignal.timeout(20_000) })).text()
      return (html.match(/<section class="contract"/g) ?? []).length
    }
    const before = await count()
    for (let i = 0; i < 50; i++) await get(port, `/nope-${i}.spec.json?import`)
    expect((await count()) - before).toBe(0)
  })

  it(`Holds (pinned): ${MANY} contracts are listed, each once, and the page loads, scrolls and reports them`, async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } })
    await page.goto(`${base}/many.html`, { timeout: 30_000 })
    await page.waitForFunction((n) => (window as unknown as { done: number }).done === n, MANY, { timeout: 60_000 })
    const started = Date.now()
    await page.goto(`${base}/__contracts/`, { timeout: 30_000 })
    const files = await afterReloads(page, 'section.contract', () =>
      page.locator('section.contract').evaluateAll((s) => s.map((e) => e.getAttribute('data-file') ?? '')),
    )
    const many = files.filter((f) => f.startsWith('many/'))
    expect(many.length).toBe(MANY)
    expect(new Set(many).size).toBe(MANY)
    await page.locator(`section.contract[data-file="many/c${MANY - 1}.spec.json"]`).scrollIntoViewIfNeeded({ timeout: 10_000 })
    const bytes = (await page.content()).length
    console.log(`probe-devpage-hostile: ${files.length} contracts, ${bytes} bytes of page, loaded and read in ${Date.now() - started} ms`)
    await page.close()
  }, 90_000)

  it('Holds (pinned): an edit that makes a contract invalid shows the diagnostic (markup as text), the fix clears it, a deletion is shown; the page follows by itself', async () => {
    const file = join(web, 'edit.spec.json')
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } })
    const dialogs: string[] = []
    page.on('dialog', (d) => {
      dialogs.push(d.message())
      void d.dismiss()
    })
    await page.goto(`${base}/__contracts/`, { timeout: 30_000 })
    const section = 'section.contract[data-file="edit.spec.json"]'
    await afterReloads(page, `${section} .identity`, async () => undefined)

    // Invalid, with markup in the $ref: the page reloads itself and shows the diagnostic as text.
    const broken = JSON.parse(small('edit')) as { requests: Array<{ request: unknown }> }
    broken.requests[0]!.request = { $ref: `#/components/schemas/${MARKUP}` }
    writeFileSync(file, JSON.stringify(broken, null, 2))
    const diagnostic = await afterReloads(page, `${section} pre.diagnostic`, () => page.locator(`${section} pre.diagnostic`).first().innerText())
    expect(diagnostic).toContain(MARKUP)
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned ?? null)).toBeNull()

    // The fix: the diagnostic goes, the identity is back.
    writeFileSync(file, small('edit'))
    await page.waitForFunction((s) => document.querySelector(`${s} .identity`) !== null && document.querySelector(`${s} pre.diagnostic`) === null, section, {
      timeout: 20_000,
    })

    // Deleted while the page is open: the page says so (a read failure) or drops the entry; it keeps working.
    unlinkSync(file)
    await page.waitForFunction((s) => document.querySelector(s) === null || document.querySelector(`${s} pre.diagnostic`) !== null, section, {
      timeout: 20_000,
    })
    expect(await page.locator('#count').textContent({ timeout: 10_000 })).toMatch(/^\d+ contracts?$/)
    expect(dialogs).toEqual([])
    expect(await alive()).toBe(200)
    await page.close()
  }, 90_000)
})
