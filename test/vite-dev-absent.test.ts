/**
 * A file the compile looked for and did not find changes the verdict when it is made: a real Vite dev
 * server serves a NATS document outside any bundle (valid, so Vite keeps the module), then a
 * `bundle.lock.json` is made in a parent folder that pins another digest for it: the module is
 * served again with the lock's error, without a restart. Vite re-runs a module that failed on every
 * request anyway, so the valid-then-error direction is the one that needs the plugin to watch the
 * paths a compile looked at (`absentDependencies`) as well as the files it read. The DASP case (a
 * definition missing, then made) is checked too.
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ViteDevServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devServer } from './helpers/dev-server-browser.js'
import { until } from './helpers/until.js'

const repo = join(import.meta.dirname, '..')
const root = join(import.meta.dirname, '.tmp/vite-dev-absent')
const definition = join(root, 'extensions/proof-of-authority.dasp-ext.json')
const lock = join(root, 'bundle.lock.json')

let server: ViteDevServer
let base: string

/** A contract's module as the browser fetches it: the URL read from the transformed main.js. */
async function fetchImport(name: string): Promise<{ status: number; text: string }> {
  const main = await (await fetch(`${base}/main.js`)).text()
  const url = new RegExp(`from\\s+"([^"]*${name.replace(/\./g, '\\.')}[^"]*)"`).exec(main)?.[1]
  expect(url, main).toBeDefined()
  const response = await fetch(base + url!)
  return { status: response.status, text: await response.text() }
}
const fetchSelection = () => fetchImport('counter.dasp.json')
const fetchLedger = () => fetchImport('ledger.asyncapi.yaml')

describe('Vite dev: a file made where the compile looked', () => {
  beforeAll(async () => {
    rmSync(root, { recursive: true, force: true })
    mkdirSync(root, { recursive: true })
    for (const part of ['counter.dasp.json', 'extensions', 'pins']) cpSync(join(repo, 'fixtures/dasp', part), join(root, part), { recursive: true })
    rmSync(definition)
    mkdirSync(join(root, 'svc'))
    cpSync(join(repo, 'fixtures/nats/valid/ledger.asyncapi.yaml'), join(root, 'svc/ledger.asyncapi.yaml'))
    writeFileSync(join(root, 'main.js'), "export { selectionRequest } from './counter.dasp.json'\nexport { operations } from './svc/ledger.asyncapi.yaml'\n")
    ;({ server, base } = await devServer(root))
  })

  afterAll(async () => {
    await server?.close()
  })

  it('a NATS document outside any bundle is served; a lock made in a parent folder later brings its verdict', async () => {
    const first = await fetchLedger()
    expect(first.status, first.text.slice(0, 600)).toBe(200)
    expect(first.text).toContain('postEntry')
    writeFileSync(lock, JSON.stringify({ entries: [{ path: 'svc/ledger.asyncapi.yaml', sha256: '0'.repeat(64) }] }))
    const failed = await until("the module with the lock's error", async () => {
      const r = await fetchLedger()
      return r.status === 500 ? r : undefined
    })
    expect(failed.text).toContain('NATS_LOCK_DIGEST')
    rmSync(lock)
    await until('the module without the lock', async () => ((await fetchLedger()).status === 200 ? true : undefined))
  })

  it('a missing definition: the module is an error naming it', async () => {
    const failed = await fetchSelection()
    expect(failed.status).toBe(500)
    expect(failed.text).toContain('DASP_DEFINITION_SOURCE')
  })

  it('the definition created: the module is served valid, without a restart', async () => {
    cpSync(join(repo, 'fixtures/dasp/extensions/proof-of-authority.dasp-ext.json'), definition)
    const served = await until('the valid module', async () => {
      const r = await fetchSelection()
      return r.status === 200 ? r : undefined
    })
    expect(served.text).toContain('selectionRequest')
  })

  it('the definition removed again: the error is back', async () => {
    rmSync(definition)
    const failed = await until('the failing module', async () => {
      const r = await fetchSelection()
      return r.status === 500 ? r : undefined
    })
    expect(failed.text).toContain('DASP_DEFINITION_SOURCE')
  })
})
