/**
 * The server side of the Vite dev loop, a case of `npm run bench` (bench/run.ts);
 * `npx tsx bench/dev-loop-server.ts` runs it alone. A 150 KB Benzene contract (100 topics) and its
 * plain-JSON twin (the same text as `twin.json`), both imported by the app: an edit of one is
 * saved, and the time is taken until the dev server serves the changed module, over 20 edits of
 * each, alternated. (The browser side, edit to visible in Chromium, is vite-dev-edit-to-visible-chromium.)
 * `compiles_per_edit` counts the compiles each measured edit of the contract cost (the module
 * served, then its sidecar written once the saves pause): one since issue 32, two before.
 */
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createServer } from 'vite'
import contractsVite from '../dist/plugins/vite.js'
import { ContractCompiler } from '../dist/src/index.js'
import { benzeneDocument } from './generate.js'
import { roundRatios } from './measure.js'

export async function devLoopServerCases(edits: number, work: string): Promise<Record<string, { ratio: number; met: boolean; [k: string]: unknown }>> {
  const dir = join(work, 'dev-loop-server')
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const text = (n: number) => benzeneDocument(100).replace('"synthetic-100"', `"synthetic-100-edit-${n}"`)
  const files = { contract: join(dir, 'c.spec.json'), plain: join(dir, 'twin.json') }
  const compiler = new ContractCompiler()
  let counted = 0
  writeFileSync(files.contract, text(0))
  writeFileSync(files.plain, text(0))
  writeFileSync(join(dir, 'main.js'), "export * as contract from './c.spec.json'\nexport { default as plain } from './twin.json'\n")
  const server = await createServer({
    root: dir,
    configFile: false,
    logLevel: 'silent',
    // The default options, as an app has them: sidecar types on (written once the saves pause); a
    // compiler of our own only to count its compiles.
    plugins: [contractsVite({ compiler })],
    server: { host: '127.0.0.1', port: 0 },
  })
  await server.listen()
  const base = `http://127.0.0.1:${(server.httpServer!.address() as { port: number }).port}`
  const main = await (await fetch(`${base}/main.js`)).text()
  const [contractUrl, plainUrl] = [...main.matchAll(/from "([^"]+)"/g)].map((m) => base + m[1]!)
  const urls = { contract: contractUrl!, plain: plainUrl! }
  const served = { contract: await (await fetch(urls.contract)).text(), plain: await (await fetch(urls.plain)).text() }
  const times = { contract: [] as number[], plain: [] as number[] }
  let stamp = Date.now() / 1000 + 10
  for (let i = 1; i <= edits + 2; i++) {
    if (i === 3) counted = compiler.compilations
    for (const side of ['contract', 'plain'] as const) {
      const start = performance.now()
      writeFileSync(files[side], text(i))
      utimesSync(files[side], stamp, stamp)
      stamp += 1
      // Polled until the served module differs (bounded: 5 s).
      let now = served[side]
      while (now === served[side] && performance.now() - start < 5000) now = await (await fetch(urls[side])).text()
      if (now === served[side]) throw new Error(`the ${side} edit was not served within 5 s`)
      served[side] = now
      if (i > 2) times[side].push(performance.now() - start) // two warm-up edits
      await new Promise((r) => setTimeout(r, 120)) // the watcher's own debounce
    }
  }
  counted = compiler.compilations - counted
  await server.close()
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const { ratio, spread } = roundRatios(times.contract, times.plain)
  return {
    'vite-dev-edit-served-150kb': {
      ours_ms: median(times.contract),
      baseline_ms: median(times.plain),
      ratio,
      spread,
      target: '<= 1.5 (the same edit of the plain-JSON twin)',
      met: ratio <= 1.5,
      edits,
      compiles_per_edit: counted / edits,
    },
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.table(await devLoopServerCases(20, join(import.meta.dirname, '.work')))
