/** Vite dev under churn: 50 alternating invalid and valid edits leave the last valid module served, with no growing memory or watchers. */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { devServer } from './helpers/dev-server-browser.js'
import { EditorFile } from './helpers/editor-save.js'

const root = join(import.meta.dirname, '.tmp/vite-resilience')

describe('Vite dev resilience', () => {
  it('50 alternating invalid and valid edits', async () => {
    rmSync(root, { recursive: true, force: true })
    mkdirSync(root, { recursive: true })
    cpSync(join(import.meta.dirname, 'fixtures/app/main.js'), join(root, 'main.js'))
    const contract = join(root, 'payments.spec.json')
    const original = readFileSync(join(import.meta.dirname, 'fixtures/app/payments.spec.json'), 'utf8')
    writeFileSync(contract, original)
    const { server, base } = await devServer(root)
    const fetchModule = async () => {
      const main = await (await fetch(`${base}/main.js`)).text()
      const url = /from\s+"([^"]*payments\.spec\.json[^"]*)"/.exec(main)![1]!
      const r = await fetch(base + url)
      return { status: r.status, text: await r.text() }
    }
    const watched = () => Object.values(server.watcher.getWatched()).reduce((n, files) => n + files.length, 0)
    const editor = new EditorFile(contract)
    const save = async (text: string, expectOk: boolean, marker: string) => {
      await editor.save(text)
      for (let tries = 0; tries < 200; tries++) {
        const r = await fetchModule()
        if (expectOk ? r.status === 200 && r.text.includes(marker) : r.status === 500 && r.text.includes(marker)) return editor.seen()
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
      const r = await fetchModule()
      throw new Error(`the server did not pick up the edit (${marker}): ${r.status} ${r.text.slice(0, 300)}`)
    }
    expect((await fetchModule()).status).toBe(200)
    // Vite pre-transforms the runtime's own imports after the first request and watches them; that
    // settles in the first rounds, so watchers are counted from round 5 on.
    let watchersSettled = 0
    const samples: number[] = []
    for (let i = 0; i < 25; i++) {
      await save(original.replace('"#/components/schemas/RefundPayment"', `"#/components/schemas/Missing${i}"`), false, `Missing${i}`)
      await save(original.replace('"payments-api"', `"payments-api-${i}"`), true, '$topic(')
      if (i === 4) watchersSettled = watched()
      if (i % 5 === 4) {
        globalThis.gc?.()
        samples.push(process.memoryUsage().heapUsed)
      }
    }
    const last = await fetchModule()
    expect(last.status).toBe(200)
    // The last valid edit is what is served.
    const { inspect } = await import('unplugin-contracts')
    const hash = ((await inspect(contract)).data as { hashes: { service: string } }).hashes.service
    expect(last.text).toContain(JSON.stringify(hash))
    expect(watched()).toBe(watchersSettled)
    // Memory settles: the last samples are not steadily above the first (allowing GC noise).
    expect(samples.at(-1)!).toBeLessThan(samples[0]! * 1.5 + 20 * 1024 * 1024)
    await server.close()
  })
})
