/**
 * Bundler-build cases of `npm run bench` (bench/run.ts); `npx tsx bench/bundler-build.ts` runs them
 * alone and merges their rows into bench/results.json (`npx tsx bench/bundler-build.ts 3 warm` only the
 * warm-cache rows, `... 3 esbuild` one bundler's rows). An app importing 50
 * Benzene contracts (20 topics each) and 50 NATS contracts (20 channels each), built by Vite, Rollup,
 * esbuild and webpack, each build a fresh process, against the same app importing the same documents
 * as plain JSON (the NATS ones converted to JSON), alternated. Wall time of the process and its peak
 * RSS. The `build-100-contracts-*` rows compile every contract (`cache: false`); the `-warm-cache`
 * rows are a second build with unchanged contracts, served by the persistent cache (issue 33).
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { load } from 'js-yaml'
import { benzeneDocument, natsDocument } from './generate.js'
import { roundRatios } from './measure.js'
import { mergeIntoResults } from './results-file.js'

const root = join(import.meta.dirname, '..')

export function writeApps(dir: string): { contracts: string; plain: string } {
  rmSync(dir, { recursive: true, force: true })
  const contracts = join(dir, 'contracts')
  const plain = join(dir, 'plain')
  mkdirSync(contracts, { recursive: true })
  mkdirSync(plain, { recursive: true })
  const lines: string[] = []
  const plainLines: string[] = []
  for (let i = 0; i < 50; i++) {
    const benzene = benzeneDocument(20, i).replace('"synthetic-20"', `"synthetic-${i}"`)
    writeFileSync(join(contracts, `b${i}.spec.json`), benzene)
    writeFileSync(join(plain, `b${i}.json`), benzene)
    const nats = natsDocument(20).replace(/contract: ([\w-]+)/, `contract: app${i}`)
    writeFileSync(join(contracts, `n${i}.asyncapi.yaml`), nats)
    writeFileSync(join(plain, `n${i}.json`), JSON.stringify(load(nats)))
    lines.push(`export * as b${i} from './b${i}.spec.json'`, `export * as n${i} from './n${i}.asyncapi.yaml'`)
    plainLines.push(`export { default as b${i} } from './b${i}.json'`, `export { default as n${i} } from './n${i}.json'`)
  }
  writeFileSync(join(contracts, 'main.js'), lines.join('\n') + '\n')
  writeFileSync(join(plain, 'main.js'), plainLines.join('\n') + '\n')
  return { contracts, plain }
}

/** Each bundler's build of the app in `dir`: with the plugin given these options (source text), or of the plain app without it. */
export const BUILDS: Record<string, (dir: string, plugin: string | false) => string> = {
  vite: (dir, plugin) => `
    const { build } = await import('vite')
    const plugins = ${!!plugin} ? [(await import('unplugin-contracts/vite')).default(${plugin})] : []
    await build({ configFile: false, logLevel: 'silent', root: ${JSON.stringify(dir)}, plugins,
      build: { outDir: ${JSON.stringify(join(dir, 'out'))}, emptyOutDir: true, minify: false, lib: { entry: ${JSON.stringify(join(dir, 'main.js'))}, formats: ['es'], fileName: () => 'main.js' } } })`,
  rollup: (dir, plugin) => `
    const { rollup } = await import('rollup')
    const plugins = ${!!plugin} ? [(await import('unplugin-contracts/rollup')).default(${plugin})] : [(await import('./bench/rollup-json.ts')).json()]
    const bundle = await rollup({ input: ${JSON.stringify(join(dir, 'main.js'))}, plugins, onwarn: () => {} })
    await bundle.write({ file: ${JSON.stringify(join(dir, 'out/main.js'))}, format: 'es' })`,
  esbuild: (dir, plugin) => `
    const { build } = await import('esbuild')
    const plugins = ${!!plugin} ? [(await import('unplugin-contracts/esbuild')).default(${plugin})] : []
    await build({ entryPoints: [${JSON.stringify(join(dir, 'main.js'))}], bundle: true, format: 'esm', platform: 'neutral', outfile: ${JSON.stringify(join(dir, 'out/main.js'))}, plugins, logLevel: 'silent' })`,
  webpack: (dir, plugin) => `
    const { default: webpack } = await import('webpack')
    const plugins = ${!!plugin} ? [(await import('unplugin-contracts/webpack')).default(${plugin})] : []
    const compiler = webpack({ mode: 'production', context: ${JSON.stringify(dir)}, entry: './main.js', target: 'node', optimization: { minimize: false },
      output: { path: ${JSON.stringify(join(dir, 'out'))}, filename: 'main.js', library: { type: 'module' }, module: true, chunkFormat: 'module' }, experiments: { outputModule: true }, plugins })
    await new Promise((done, fail) => compiler.run((e, s) => (e || s.hasErrors() ? fail(e ?? new Error(s.toString('errors-only'))) : compiler.close(done))))`,
}

/**
 * One build in a fresh process: its wall time, its CPU time (every thread of the process: the
 * plugin's workers count; esbuild's own process does not, on either side) and its peak RSS. The
 * TypeScript loader only for a build that imports TypeScript (Rollup's plain app, `rollup-json.ts`),
 * as a user's build runs its bundler: the loader's work on every module the process loads fell
 * mostly on the plugin's side.
 */
function run(code: string, loader: boolean): Sample {
  const script = `const t = performance.now();${code}\nconst cpu = process.cpuUsage(); console.log(JSON.stringify({ ms: performance.now() - t, cpuMs: (cpu.user + cpu.system) / 1000, rssKb: process.resourceUsage().maxRSS }))`
  const out = execFileSync(process.execPath, [...(loader ? ['--import', 'tsx'] : []), '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' })
  return JSON.parse(out.trim().split('\n').at(-1)!)
}

type Sample = { ms: number; cpuMs: number; rssKb: number }
/** The bundlers whose builds run with the TypeScript loader (see `run`). */
export const LOADER = new Set(['rollup'])
type Result = { ratio: number; met: boolean; [k: string]: unknown }
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** `RUNS` rounds of the plugin's build against the plain app's, alternated, after one round that warms the file system's (and the persistent) cache. */
function compare(RUNS: number, ours: () => Sample, theirs: () => Sample) {
  const a: Sample[] = []
  const b: Sample[] = []
  for (let i = 0; i < RUNS + 1; i++) {
    const x = ours()
    const y = theirs()
    if (i === 0) continue // warms the file system cache and the bundlers' own caches on disk
    a.push(x)
    b.push(y)
  }
  const { ratio, spread } = roundRatios(
    a.map((o) => o.ms),
    b.map((o) => o.ms),
  )
  return {
    ours_ms: median(a.map((o) => o.ms)),
    baseline_ms: median(b.map((o) => o.ms)),
    ratio,
    spread,
    cpu_ratio: Math.round(median(a.map((o, i) => o.cpuMs / b[i]!.cpuMs)) * 100) / 100,
    memory_ratio: median(a.map((o, i) => o.rssKb / b[i]!.rssKb)),
    ours_max_rss_kb: median(a.map((o) => o.rssKb)),
    plain_max_rss_kb: median(b.map((o) => o.rssKb)),
  }
}

/** `only`: `'warm'` the warm-cache rows alone, a bundler's name its rows alone. */
export async function bundlerBuildCases(RUNS: number, work: string, only?: string): Promise<Record<string, Result>> {
  const { contracts, plain } = writeApps(join(work, 'bundler-build'))
  const results: Record<string, Result> = {}
  for (const [name, build] of Object.entries(BUILDS)) {
    if (only !== undefined && only !== name) continue
    const loader = LOADER.has(name)
    const row = compare(
      RUNS,
      () => run(build(contracts, '{ types: false, cache: false }'), loader),
      () => run(build(plain, false), loader),
    )
    results[`build-100-contracts-${name}`] = {
      ...row,
      target: '<= 2 (time), <= 1.5 (peak RSS) vs the plain-JSON app',
      met: row.ratio <= 2 && row.memory_ratio <= 1.5,
    }
  }
  // A second build with unchanged contracts (issue 33): the first round fills the cache, every
  // measured one is answered by it (each build a fresh process, as a CI job's or a developer's next).
  for (const name of ['vite', 'rollup']) {
    if (only !== undefined && only !== 'warm' && only !== name) continue
    const loader = LOADER.has(name)
    const cache = join(work, 'bundler-build', `cache-${name}`)
    rmSync(cache, { recursive: true, force: true })
    const row = compare(
      RUNS,
      () => run(BUILDS[name]!(contracts, `{ types: false, cache: ${JSON.stringify(cache)} }`), loader),
      () => run(BUILDS[name]!(plain, false), loader),
    )
    results[`build-100-contracts-${name}-warm-cache`] = {
      ...row,
      target: '<= 1.1 (time) vs the plain-JSON app, a second build with unchanged contracts',
      met: row.ratio <= 1.1,
    }
  }
  return results
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await bundlerBuildCases(Number(process.argv[2] ?? 3), join(import.meta.dirname, '.work'), process.argv[3])
  console.table(rows)
  mergeIntoResults(rows)
}
