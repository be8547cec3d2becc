/**
 * Vite dev and each way an editor saves a contract (test/helpers/editor-save.ts): in place
 * (truncated, then written), atomically (a new file renamed over it), or deleted and made again; the
 * contract inside Vite's root (in the tree its watcher watches) or outside it (watched on its own,
 * as the Benzene example's `payments.spec.json` beside its `web/` root). A client that does what the
 * page does (reloads when the server says so, then requests the contract's module) ends showing the
 * text saved last, also when the watcher's event comes between a save's two steps (held there: a
 * slow disk, a busy editor); and the reload of an in-place save does not go out while the file is
 * still empty.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createServer, type Plugin, type ViteDevServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type WebSocket from 'ws'
import { hmrSocket } from './helpers/vite-hmr.js'
import contracts from 'unplugin-contracts/vite'
import { inspect } from 'unplugin-contracts'
import { EditorFile, type SaveStyle } from './helpers/editor-save.js'
import { until } from './helpers/until.js'

const original = readFileSync(join(import.meta.dirname, 'fixtures/app/payments.spec.json'), 'utf8')
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** What the page shows: the answer to its last request for the contract's module. */
interface Answer {
  status: number
  text: string
}

describe.each(['inside', 'outside'] as const)("Vite dev, the contract %s Vite's root, saved the ways editors save", (layout) => {
  const dir = join(import.meta.dirname, '.tmp', `vite-dev-saves-${layout}`)
  const root = join(dir, 'web')
  const contract = join(layout === 'inside' ? root : dir, 'payments.spec.json')
  const editor = new EditorFile(contract)
  let server: ViteDevServer
  let base: string
  let socket: WebSocket
  /** Resolved when the plugins' hotUpdate for the contract is entered (the watcher's event was read). */
  let entered: () => void = () => {}
  /** The contract's text when the plugin's hotUpdate is done, that is, when the reload goes out (undefined: no file). */
  const atReload: Array<string | undefined> = []
  /** Each answer the page got, in order; the last is what it shows. */
  const answers: Answer[] = []
  /** What happened since the last save was seen: a save the page does not show fails with it. */
  const trace: string[] = []
  let since = performance.now()
  const step = (what: string) => trace.push(`${(performance.now() - since).toFixed(0).padStart(6)} ms ${what}`)
  let loading = Promise.resolve()

  /** The page's load: main.js, then the contract's module it imports. */
  const load = () =>
    (loading = loading.then(async () => {
      // A load that fails (main.js not served, a request cut) is in the trace, and tried again, at
      // most three times, as a person would reload the page; a failed one never stops the next.
      for (let attempt = 1; attempt <= 3; attempt++)
        try {
          const main = await fetch(`${base}/main.js`)
          const code = await main.text()
          const url = /from\s+"([^"]*payments\.spec\.json[^"]*)"/.exec(code)?.[1]
          if (url === undefined) throw new Error(`main.js (${main.status}) does not import the contract: ${code.slice(0, 300)}`)
          const response = await fetch(base + url)
          answers.push({ status: response.status, text: await response.text() })
          step(`page: ${response.status} for the contract's module`)
          return
        } catch (error) {
          step(`page: load ${attempt} failed: ${String(error)}`)
          await sleep(200)
        }
    }))

  beforeAll(async () => {
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(root, { recursive: true })
    writeFileSync(join(root, 'main.js'), `export { contractHash } from '${layout === 'inside' ? '.' : '..'}/payments.spec.json'\n`)
    writeFileSync(contract, original)
    // Before the plugin's hotUpdate (both are `enforce: 'pre'`, this one first) and after it.
    const before: Plugin = {
      name: 'test:before-contracts',
      enforce: 'pre',
      hotUpdate({ file }) {
        if (file === contract && this.environment.name === 'client') entered()
      },
    }
    const after: Plugin = {
      name: 'test:after-contracts',
      hotUpdate({ file }) {
        if (file === contract && this.environment.name === 'client') atReload.push(existsSync(contract) ? readFileSync(contract, 'utf8') : undefined)
      },
    }
    server = await createServer({
      root,
      configFile: false,
      logLevel: 'silent',
      plugins: [before, contracts({ types: false }), after],
      server: { host: '127.0.0.1', port: 0, fs: { allow: [dir] } },
    })
    await server.listen()
    server.watcher.on('all', (event, path) => {
      if (path === contract) step(`watcher: ${event}`)
    })
    const port = (server.httpServer!.address() as { port: number }).port
    base = `http://127.0.0.1:${port}`
    socket = hmrSocket(server)
    socket.on('message', (data) => {
      const type = (JSON.parse(String(data)) as { type: string }).type
      step(`page: HMR message ${type}`)
      if (type === 'full-reload') void load()
    })
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
    await load()
    expect(answers.at(-1)?.status).toBe(200)
    // Watched once the module was compiled (the watch is set up asynchronously).
    const watching = () => server.watcher.getWatched()[join(contract, '..')]?.includes('payments.spec.json') === true
    await until('the watcher watching the contract', () => (watching() ? true : undefined), 10_000, 25)
  })

  afterAll(async () => {
    socket?.close()
    await server?.close()
  })

  /** The client shows `text`'s module (at most 30 s): its last answer carries that text's contract hash. */
  const shows = async (text: string, what: string) => {
    const hash = ((await inspect(contract)).data as { hashes: { service: string } }).hashes.service
    expect(readFileSync(contract, 'utf8')).toBe(text)
    await until(
      `the page showing ${what}`,
      () => {
        const last = answers.at(-1)
        return last?.status === 200 && last.text.includes(JSON.stringify(hash)) ? true : undefined
      },
      30_000,
      25,
    )
    editor.seen()
  }

  let saves = 0
  /** The next text to save (the service renamed); the trace's times count from here. */
  const next = () => {
    step('saving: times from here')
    since = performance.now()
    return original.replace('"payments-api"', `"payments-api-${layout}-${++saves}"`)
  }

  it.each(['in-place', 'atomic', 'delete-create'] as const)('%s, in one go: the page shows the saved text, and the next save too', async (style: SaveStyle) => {
    const text = next()
    await editor.save(text, { style })
    await shows(text, `the ${style} save`)
    const later = next()
    await editor.save(later)
    await shows(later, `the save after the ${style} save`)
  })

  it('in place, the watcher reading its event between truncate and write: the reload goes out once the file is written, and the page shows it', async () => {
    const text = next()
    const held = new Promise<void>((resolve) => (entered = resolve))
    atReload.length = 0
    // The write comes 40 ms after the plugins' hotUpdate was entered for the truncation: within the
    // 50 ms in which the watcher drops a second change, and within the time Vite's `read` waits.
    await editor.save(text, {
      between: async () => {
        await Promise.race([held, sleep(10_000).then(() => Promise.reject(new Error('no hotUpdate for the truncated contract in 10 s')))])
        await sleep(40)
      },
    })
    await shows(text, 'the in-place save held between truncate and write')
    expect(atReload.length).toBeGreaterThan(0)
    for (const seen of atReload) expect(seen).toBe(text)
  })

  it('deleted, the watcher reporting the deletion, then made again: the page shows the new text', async () => {
    const text = next()
    const unlinked = new Promise<void>((resolve) => {
      const on = (path: string) => {
        if (path !== contract) return
        server.watcher.off('unlink', on)
        resolve()
      }
      server.watcher.on('unlink', on)
    })
    await editor.save(text, {
      style: 'delete-create',
      between: () => Promise.race([unlinked, sleep(10_000).then(() => Promise.reject(new Error('no unlink event for the deleted contract in 10 s')))]),
    })
    await shows(text, 'the contract made again')
    // And a save after that is seen as well.
    const later = next()
    await editor.save(later)
    await shows(later, 'the save after the contract was made again')
  })
})
