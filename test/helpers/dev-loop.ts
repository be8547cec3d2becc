/**
 * The Vite dev loop of the Benzene example as a user lives it, in real Chromium: a dev server on a
 * copy of examples/payments-client, its web page open, the contract saved the way an editor saves it
 * (test/helpers/editor-save.ts). `saveAndSee` measures one edit from the save to the change being
 * visible on the page; the browser test checks what is seen, the bench (bench/run.ts) reports the time.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { createServer, type Plugin, type ViteDevServer } from 'vite'
import contracts from 'unplugin-contracts/vite'
import { CHROMIUM, launchChromium } from './chromium.js'
import { EditorFile } from './editor-save.js'

export interface DevLoop {
  readonly page: Page
  readonly base: string
  /** The contract in the copy, and its text as the example ships it. */
  readonly contract: string
  readonly original: string
  /**
   * Saves `text` as the contract and waits (at most 20 s) until `selector` is on the page and
   * `absent` (if given) is not; the time from the save, in ms.
   */
  saveAndSee(text: string, selector: string, absent?: string): Promise<number>
  close(): Promise<void>
}

/** A new contract text: the example's, with one more topic (`payments:void-<n>`) after the refund. */
export function withTopic(original: string, n: number): string {
  const contract = JSON.parse(original) as { requests: Array<{ topic: string }> }
  const refund = contract.requests.find((r) => r.topic === 'payments:refund')!
  contract.requests.push({ ...refund, topic: `payments:void-${n}` })
  return JSON.stringify(contract, null, 2) + '\n'
}

/**
 * `plain`: the app's plain-JSON twin for the bench's baseline: the same document imported as
 * `payments.json` by a page that lists its topics the same way, without the plugin's work.
 */
export async function openDevLoop(root: string, { plain = false } = {}): Promise<DevLoop> {
  if (!CHROMIUM) throw new Error('chromium is not installed')
  rmSync(root, { recursive: true, force: true })
  mkdirSync(root, { recursive: true })
  const example = join(import.meta.dirname, '../../examples/payments-client')
  const contract = join(root, plain ? 'payments.json' : 'payments.spec.json')
  cpSync(join(example, 'payments.spec.json'), contract)
  cpSync(join(example, 'web'), join(root, 'web'), { recursive: true })
  if (plain)
    writeFileSync(
      join(root, 'web/page.ts'),
      [
        "import doc from '../payments.json'",
        "document.querySelector('#topics')!.replaceChildren(...doc.requests.map((r) => {",
        "  const item = document.createElement('li')",
        '  item.dataset.topic = r.topic',
        '  item.textContent = r.topic',
        '  return item',
        '}))',
        '',
      ].join('\n'),
    )
  const original = readFileSync(contract, 'utf8')
  // What happened since the page opened or the last save was seen, each step with its time: a save
  // the page does not show in time fails with this list, which says where the chain stopped (the
  // watcher's event, the plugins' hotUpdate, the reload the page received, the page's requests that
  // failed, its request for the contract and the answer).
  let since = performance.now()
  const trace: string[] = []
  const step = (what: string) => trace.push(`${(performance.now() - since).toFixed(0).padStart(6)} ms ${what}`)
  const tracer: Plugin = {
    name: 'dev-loop-trace',
    hotUpdate({ file, modules }) {
      if (file === contract) step(`hotUpdate (${this.environment.name}): ${modules.length} modules to update`)
    },
  }
  const server: ViteDevServer = await createServer({
    root: join(root, 'web'),
    configFile: false,
    logLevel: 'silent',
    plugins: [contracts({ types: false }), tracer],
    server: { host: '127.0.0.1', port: 0, fs: { allow: [root] } },
  })
  await server.listen()
  const base = `http://127.0.0.1:${(server.httpServer!.address() as { port: number }).port}`
  server.watcher.on('all', (event, path) => {
    if (path === contract) step(`watcher: ${event}`)
  })
  const browser: Browser = await launchChromium()
  const page = await browser.newPage()
  page.on('websocket', (socket) => {
    step('page: HMR socket opened')
    socket.on('framereceived', ({ payload }) => step(`page: HMR message ${String(payload).slice(0, 80)}`))
    socket.on('close', () => step('page: HMR socket closed'))
  })
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) step('page: navigated')
  })
  page.on('response', (response) => {
    if (response.url().includes(basename(contract)) || response.status() >= 400) step(`page: ${response.status()} for ${response.url().slice(base.length)}`)
  })
  page.on('requestfailed', (request) => step(`page: request failed: ${request.url().slice(base.length)} (${request.failure()?.errorText ?? ''})`))
  page.on('pageerror', (error) => step(`page: error ${error.message.slice(0, 120)}`))
  await page.goto(`${base}/`)
  await page.waitForSelector('#topics li', { timeout: 30_000 })
  // The contract lies outside Vite's root: the watcher takes it on when the page's import loads it,
  // and sets the watch up asynchronously. A save before that is never seen (a first edit missed its
  // 20 s once, in a full run): wait (at most 10 s) until the watcher lists the file.
  const watching = () => server.watcher.getWatched()[dirname(contract)]?.includes(basename(contract)) === true
  for (const end = Date.now() + 10_000; !watching() && Date.now() < end;) await new Promise((resolve) => setTimeout(resolve, 25))
  if (!watching()) throw new Error(`the dev server's watcher does not watch ${contract}`)
  const file = new EditorFile(contract)
  return {
    page,
    base,
    contract,
    original,
    async saveAndSee(text, selector, absent) {
      const start = performance.now()
      step('saving: times from here')
      since = start
      await file.save(text)
      step(`saved (${text.length} characters)`)
      try {
        await page.waitForFunction(
          ([present, gone]) => document.querySelector(present) !== null && (gone === undefined || document.querySelector(gone) === null),
          [selector, absent] as const,
          { timeout: 20_000, polling: 'raf' },
        )
      } catch (error) {
        throw new Error(`the page did not show ${selector}${absent ? ` without ${absent}` : ''}; since the save:\n${trace.join('\n')}`, { cause: error })
      }
      file.seen()
      trace.length = 0
      return performance.now() - start
    },
    async close() {
      await browser.close()
      await server.close()
      rmSync(root, { recursive: true, force: true })
    },
  }
}
