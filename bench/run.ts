/**
 * `npm run bench [-- --quick]`: the performance targets of the project, each measured against a
 * baseline in the same process. Prints a table and writes bench/results.json.
 *
 * What is measured is the built package (`dist/`, what an application runs; `npm run bench` builds
 * it first). A ratio is the median over rounds of ours / baseline timed back to back in the same
 * round (`paired`), so a slow spell of a shared machine falls on both sides of it.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import canonicalize from 'canonicalize'
import { transform } from 'esbuild'
import { rollup } from 'rollup'
import { createServer } from 'vite'
import { ContractCompiler } from '../dist/src/index.js'
import contractsRollup from '../dist/plugins/rollup.js'
import contractsVite from '../dist/plugins/vite.js'
import { benzeneDocument, natsBundle, natsDocument } from './generate.js'
import { paired, roundRatios } from './measure.js'
import { subjectCases } from './subjects.js'
import { runtimeSizeCases } from './runtime-size.js'
import { validatorCases } from './validators.js'
import { moduleSizeCases } from './module-size.js'
import { coldStartCases } from './cold-start.js'
import { bundlerBuildCases } from './bundler-build.js'
import { incrementalCases } from './incremental.js'
import { natsCompileCases, pairedWithCpu } from './nats-compile.js'
import { typeCases } from './types.js'
import { devLoopServerCases } from './dev-loop-server.js'
import { natsClientCases } from './nats-client.js'
import { natsValidatorFormCases } from './nats-validator-forms.js'
import { diffCases } from './diff.js'
import { executorCases } from './executor.js'
import { clusterCases } from './cluster.js'
import { CHROMIUM } from '../test/helpers/chromium-path.js'
import { openDevLoop, withTopic } from '../test/helpers/dev-loop.js'

const quick = process.argv.includes('--quick')
const RUNS = quick ? 3 : 9
const work = join(import.meta.dirname, '.work')
rmSync(work, { recursive: true, force: true })
mkdirSync(work, { recursive: true })

interface Row {
  ours_ms?: number
  baseline_ms?: number
  ratio: number
  target: string
  met: boolean
  note?: string
  [extra: string]: unknown
}
const results: Record<string, Row> = {}

{
  // `contracts topology` on 20 applications x 25 channels, as a user runs it: a whole CLI process
  // (first: later cases leave servers and caches behind that slow a child process's start).
  const dir = natsBundle(join(work, 'topology-20x25'), 20, 25)
  const cli = join(import.meta.dirname, '../dist/cli.js')
  const times: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now()
    execFileSync(process.execPath, [cli, 'topology', dir, '--format', 'mermaid'], { stdio: 'ignore' })
    times.push(performance.now() - start)
  }
  const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!
  results['nats-topology-20x25-cli'] = { ours_ms: median, ratio: median / 1000, target: '< 1000 ms (whole process)', met: median < 1000 }
}

const fresh = (file: string, options?: object) => new ContractCompiler().compile(file, options)
/** 10x the input at most 11x the time (issue 21): a `paired` measurement of `small` against `large`. */
const scalingRow = (m: Awaited<ReturnType<typeof paired<'small' | 'large'>>>): Row => ({
  ours_ms: m.ms.large,
  baseline_ms: m.ms.small,
  ratio: m.ratio.large,
  spread: m.spread.large,
  target: '<= 11',
  met: m.ratio.large <= 11,
})

function write(name: string, text: string): string {
  const file = join(work, name)
  writeFileSync(file, text)
  return file
}

// NATS compile near the parse floor, and against the official parser.
const nats: Record<number, string> = {}
for (const n of quick ? [50, 500] : [50, 500, 5000]) nats[n] = write(`n${n}.asyncapi.yaml`, natsDocument(n))
// The 500-channel compile against js-yaml (plain and with a payload per channel) and the official
// parser, and the module size against the document's (bench/nats-compile.ts).
Object.assign(results, await natsCompileCases(quick ? 9 : 31, work))
if (nats[5000]) {
  // Subjects sharing their first and last literals (`acme.{region}.{entityId}.thing<i>.<verb>`, three
  // verbs): the input family the default generator's unique last tokens hide from the overlap indexes.
  const small = write('shared500.asyncapi.yaml', natsDocument(500, { sharedPrefix: true }))
  const large = write('shared5000.asyncapi.yaml', natsDocument(5000, { sharedPrefix: true }))
  const shared = await paired({ small: () => fresh(small), large: () => fresh(large) }, 5, 2)
  results['nats-scaling-shared-prefix-5000-vs-500'] = scalingRow(shared)
}
if (nats[5000]) {
  const scaling = await paired({ small: () => fresh(nats[500]!), large: () => fresh(nats[5000]!) }, 7, 3)
  results['nats-scaling-5000-vs-500'] = scalingRow(scaling)
}

// Benzene compile, hashes and generated code included.
{
  const text = benzeneDocument(1000)
  const file = write('b1000.spec.json', text)
  const benzene = await pairedWithCpu(
    {
      baseline: () =>
        createHash('sha256')
          .update(canonicalize(JSON.parse(text))!)
          .digest('hex'),
      ours: () => fresh(file),
      unchecked: () => fresh(file, { benzene: { validate: false } }),
    },
    quick ? 5 : 15,
  )
  // 10x the topics: at most 11x the time (issue 21), as for NATS channels.
  const small = write('b100.spec.json', benzeneDocument(100))
  const scaling = await paired({ small: () => fresh(small), large: () => fresh(file) }, quick ? 3 : 7, 2)
  results['benzene-scaling-1000-vs-100'] = scalingRow(scaling)
  results['benzene-compile-1000'] = {
    ours_ms: benzene.ms.ours,
    baseline_ms: benzene.ms.baseline,
    ratio: benzene.ratio.ours,
    spread: benzene.spread.ours,
    cpu_ratio: benzene.cpuRatio.ours,
    target: '<= 4',
    met: benzene.ratio.ours <= 4,
    note: 'default options: runtime validators generated for 2,000 payload schemas',
  }
  results['benzene-compile-1000-without-validators'] = {
    ours_ms: benzene.ms.unchecked,
    baseline_ms: benzene.ms.baseline,
    ratio: benzene.ratio.unchecked,
    cpu_ratio: benzene.cpuRatio.unchecked,
    target: '<= 4',
    met: benzene.ratio.unchecked <= 4,
    note: 'validate: false',
  }
}

Object.assign(results, await incrementalCases(quick ? 5 : 15, work))

// Warm rebuild in a Vite dev server with 20 contracts.
{
  const dir = join(work, 'vite')
  mkdirSync(dir, { recursive: true })
  const files = Array.from({ length: 20 }, (_, i) => write(`vite/c${i}.spec.json`, benzeneDocument(20 + i)))
  writeFileSync(join(dir, 'main.js'), files.map((_, i) => `export * as c${i} from './c${i}.spec.json'`).join('\n'))
  const compiler = new ContractCompiler()
  const server = await createServer({
    root: dir,
    configFile: false,
    logLevel: 'silent',
    plugins: [contractsVite({ compiler, types: false })],
    server: { host: '127.0.0.1', port: 0 },
  })
  await server.listen()
  const base = `http://127.0.0.1:${(server.httpServer!.address() as { port: number }).port}`
  const fetchAll = async () => {
    const main = await (await fetch(`${base}/main.js`)).text()
    const urls = [...main.matchAll(/from "([^"]+)"/g)].map((m) => m[1]!)
    return Promise.all(urls.map(async (u) => (await fetch(base + u)).text()))
  }
  await fetchAll()
  const first = compiler.compilations
  const edited = benzeneDocument(20).replace('"synthetic-20"', '"synthetic-20-edited"')
  writeFileSync(files[0]!, edited)
  utimesSync(files[0]!, Date.now() / 1000 + 5, Date.now() / 1000 + 5)
  let after = first
  for (let tries = 0; tries < 100 && after === first; tries++) {
    await new Promise((r) => setTimeout(r, 100))
    await fetchAll()
    after = compiler.compilations
  }
  // Restarting the module graph would recompile everything the cache does not answer.
  const again = compiler.compilations
  await Promise.all(files.map((f) => compiler.compile(f, { benzene: { topics: undefined, includeReserved: undefined } as never })))
  await server.close()
  const recompiled = after - first
  results['vite-warm-rebuild'] = {
    ratio: recompiled,
    target: '1 recompilation after editing 1 of 20',
    met: recompiled === 1 && again === after,
    compilations_initial: first,
    recompiled,
  }
}

Object.assign(results, await subjectCases(RUNS))
Object.assign(results, await validatorCases(RUNS))
Object.assign(results, await coldStartCases(quick ? 3 : 7))
Object.assign(results, await bundlerBuildCases(quick ? 1 : 3, work))
Object.assign(results, await typeCases(quick ? 1 : 3, work))
Object.assign(results, await devLoopServerCases(quick ? 6 : 20, work))
Object.assign(results, await natsClientCases(quick ? 5 : 15))
// A NATS module's payload validators in the default (data) form against the option validators: 'code' (bench/nats-validator-forms.ts).
Object.assign(results, await natsValidatorFormCases(quick ? 5 : 15, join(work, 'nats-validator-forms')))
// `contracts diff` of two 5,000-channel versions against compiling one (bench/diff.ts).
Object.assign(results, await diffCases(quick ? 3 : 5, work, quick ? 500 : 5000))
// A five-peer quorum interaction through the executor against a nats.js scatter-gather (bench/executor.ts).
Object.assign(results, await executorCases(quick ? 3 : 9))
// JetStream publish and durable consume through the client on a 3-node cluster against raw nats.js (bench/cluster.ts).
Object.assign(results, await clusterCases(quick ? 5 : 11))

// Module size: a contract's whole module (min+gzip) against its document (bytes, not time).
Object.assign(results, await moduleSizeCases(join(work, 'module-size')))

// Tree-shaking: one topic or channel from a large contract costs what it costs from a small one.
async function bundledSize(entryCode: string, name: string, options: object = {}): Promise<number> {
  const entry = write(`${name}.entry.js`, entryCode)
  const bundle = await rollup({ input: entry, plugins: [contractsRollup({ types: false, ...options })], onwarn: () => {} })
  const { output } = await bundle.generate({ format: 'es' })
  await bundle.close()
  const min = await transform(output[0].code, { minify: true, format: 'esm' })
  return gzipSync(min.code).length
}
{
  write('b200.spec.json', benzeneDocument(200))
  write('b1.spec.json', benzeneDocument(1))
  const big = await bundledSize("import { operation0 } from './b200.spec.json'\nconsole.log(operation0)", 'b200')
  const small = await bundledSize("import { operation0 } from './b1.spec.json'\nconsole.log(operation0)", 'b1')
  results['tree-shaking-benzene'] = {
    ratio: big - small,
    target: '<= 1024 bytes more (min+gzip)',
    met: big - small <= 1024,
    large_bytes: big,
    small_bytes: small,
  }
  // What a browser app ships for one Benzene topic called over HTTP, and what each part weighs (bench/runtime-size.ts).
  Object.assign(results, await runtimeSizeCases(join(work, 'runtime-size')))
  write('n200.asyncapi.yaml', natsDocument(200))
  write('n1.asyncapi.yaml', natsDocument(1))
  const bigN = await bundledSize("import { channel0 } from './n200.asyncapi.yaml'\nconsole.log(channel0)", 'n200')
  const smallN = await bundledSize("import { channel0 } from './n1.asyncapi.yaml'\nconsole.log(channel0)", 'n1')
  // The same with the option validators: 'code' (a function per payload schema, no schema interpreter in the bundle).
  const code = { nats: { validators: 'code' } }
  const bigCode = await bundledSize("import { channel0 } from './n200.asyncapi.yaml'\nconsole.log(channel0)", 'n200-code', code)
  const smallCode = await bundledSize("import { channel0 } from './n1.asyncapi.yaml'\nconsole.log(channel0)", 'n1-code', code)
  results['tree-shaking-nats'] = {
    ratio: bigN - smallN,
    target: '<= 1024 bytes more (min+gzip)',
    met: bigN - smallN <= 1024,
    large_bytes: bigN,
    small_bytes: smallN,
    validators_code_large_bytes: bigCode,
    validators_code_small_bytes: smallCode,
  }
}

// Peak memory of the N = 5,000 compile, next to js-yaml loading the same text.
if (nats[5000]) {
  const peak = (code: string) =>
    JSON.parse(
      execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { encoding: 'utf8', cwd: join(import.meta.dirname, '..') }),
    )
  const ours = peak(
    `import { ContractCompiler } from './dist/src/index.js'; await new ContractCompiler().compile(${JSON.stringify(nats[5000])}); console.log(JSON.stringify(process.resourceUsage().maxRSS))`,
  )
  const baseline = peak(
    `import { load } from 'js-yaml'; import { readFileSync } from 'node:fs'; load(readFileSync(${JSON.stringify(nats[5000])}, 'utf8')); console.log(JSON.stringify(process.resourceUsage().maxRSS))`,
  )
  results['nats-memory-5000'] = {
    ours_ms: undefined,
    ratio: ours / baseline,
    target: '<= 2 (peak RSS)',
    met: ours / baseline <= 2,
    ours_max_rss_kb: ours,
    js_yaml_max_rss_kb: baseline,
  }
}

// The dev loop in real Chromium: the Benzene example's page open in Vite dev, a contract edit
// (one more topic) saved as an editor saves it, until the new topic is on the page; beside the same
// edit of the plain-JSON twin (the same document imported as `payments.json`), alternated.
if (CHROMIUM) {
  const contract = await openDevLoop(join(work, 'dev-loop-contract'))
  const plain = await openDevLoop(join(work, 'dev-loop-json'), { plain: true })
  const rounds = quick ? 6 : 20
  const times = { contract: [] as number[], plain: [] as number[] }
  for (let i = 1; i <= rounds; i++) {
    times.contract.push(await contract.saveAndSee(withTopic(contract.original, i), `li[data-topic="payments:void-${i}"]`))
    times.plain.push(await plain.saveAndSee(withTopic(plain.original, i), `li[data-topic="payments:void-${i}"]`))
  }
  await contract.close()
  await plain.close()
  const med = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const { ratio, spread } = roundRatios(times.contract, times.plain)
  results['vite-dev-edit-to-visible-chromium'] = {
    ours_ms: med(times.contract),
    baseline_ms: med(times.plain),
    ratio,
    spread,
    target: '<= 1.5 (the same edit of the plain-JSON twin)',
    met: ratio <= 1.5,
    edits: rounds,
  }
} else console.warn('chromium is not installed: vite-dev-edit-to-visible-chromium not measured')

writeFileSync(join(import.meta.dirname, 'results.json'), JSON.stringify(results, null, 2) + '\n')
const fmt = (v: unknown) => (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : v === undefined ? '' : String(v))
console.log(`| case | ours (ms) | baseline (ms) | ratio | spread | target | met |\n| --- | --- | --- | --- | --- | --- | --- |`)
const spread = (r: Row) => (Array.isArray(r.spread) ? `${fmt(r.spread[0])}-${fmt(r.spread[1])}` : '')
for (const [name, r] of Object.entries(results))
  console.log(`| ${name} | ${fmt(r.ours_ms)} | ${fmt(r.baseline_ms)} | ${fmt(r.ratio)} | ${spread(r)} | ${r.target} | ${r.met ? 'yes' : 'NO'} |`)
rmSync(work, { recursive: true, force: true })
process.exit(0)
