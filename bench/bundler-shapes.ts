/**
 * `npx tsx bench/bundler-shapes.ts [rounds] [rollup|vite]` (after `npm run build`; `node --expose-gc
 * --import tsx ...` collects garbage before each build): what each construct of the generated
 * modules costs the bundler. The 100 modules of bench/bundler-build.ts's app are compiled once, then
 * built again and again in this one process (the bundler's code warm, nothing written to disk) as
 * they are and with one construct of every Benzene module rewritten by hand, alternated with the
 * plain-JSON twin round by round. Prints each variant's median CPU time and the median of its
 * per-round ratios to the twin's: a construct whose removal lowers the ratio is one whose cheaper
 * shape pays. Not a build's figure (bench/bundler-build.ts's rows are fresh processes): a ranking.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ContractCompiler } from '../dist/src/index.js'
import { RUNTIME_DEPENDENCIES } from '../dist/src/plugin/runtime-entries.js'
import { writeApps } from './bundler-build.js'

const [rounds = '10', bundler = 'rollup'] = process.argv.slice(2)
const root = join(import.meta.dirname, '..')
const { contracts, plain } = writeApps(join(import.meta.dirname, '.work/bundler-shapes'))
const dependencies: Record<string, string> = Object.fromEntries(RUNTIME_DEPENDENCIES)
const runtime = join(root, 'dist/src/runtime')
/** The app's entry, served by the plugin below (Vite resolves a library's entry against its root first). */
const ENTRY = join(root, 'bundler-shapes-entry.js')

const compiler = new ContractCompiler()
const generated: Record<string, string> = {}
for (let i = 0; i < 50; i++)
  for (const name of [`b${i}.spec.json`, `n${i}.asyncapi.yaml`]) {
    const result = await compiler.compile(join(contracts, name), { declarations: false })
    if (result.code === undefined) throw new Error(`${name} did not compile`)
    generated[name] = result.code
  }

const benzene = (rewrite: (code: string) => string) => (name: string, code: string) => (name.endsWith('.spec.json') ? rewrite(code) : code)
const TOPIC = /^export const (\w+) = \/\* @__PURE__ \*\/ \$topic\(.*;$/gm
/** Each variant: the modules' text with one construct rewritten (the verdicts are not the point: the bundler's work is). */
const VARIANTS: Record<string, (name: string, code: string) => string> = {
  'as generated': (_, code) => code,
  // The topic clients' calls, each replaced by a number: what the calls cost.
  'no topic calls': benzene((code) => code.replace(TOPIC, 'export const $1 = 0;')),
  // The validators' functions with empty bodies: what their code costs.
  'empty validators': benzene((code) => code.replace(/^(const \$(?:shape|req\$)\S* = .*?function \(d, p, e, n\) )\{.*\};$/gm, '$1{};')),
  // Each topic's `$refValidator(...)` call left out, as if the client wrapped the check itself.
  'no $refValidator': benzene((code) => code.replace(TOPIC, (line) => line.replace(/\/\* @__PURE__ \*\/ \$refValidator\(([^()]*(?:\([^()]*\))?)\)/g, '$1'))),
  // The `/* @__PURE__ */` annotations left out (which tree-shaking needs): what reading them costs.
  'no annotations': (_, code) => code.replaceAll('/* @__PURE__ */ ', ''),
}

const names = Object.keys(generated)
const entry = { contracts: names.map((name, i) => `export * as m${i} from './${name}'`).join('\n'), plain: readFileSync(join(plain, 'main.js'), 'utf8') }
/** Serves the app's entry, the modules (`codes`) or the plain app's JSON, and the runtime as the plugin resolves it. */
function serve(codes: Record<string, string> | undefined) {
  return {
    name: 'shapes',
    enforce: 'pre' as const,
    resolveId(source: string, importer?: string) {
      if (source === ENTRY) return '\0main'
      if (source.startsWith('unplugin-contracts/runtime')) return `${runtime}${source.slice(26) || ''}/index.js`
      if (dependencies[source]) return dependencies[source]
      if (importer === '\0main') return codes ? `\0module:${source.slice(2)}` : join(plain, source)
      return null
    },
    load(id: string) {
      if (id === '\0main') return codes ? entry.contracts : entry.plain
      if (id.startsWith('\0module:')) return { code: codes![id.slice(8)]!, moduleType: 'js' }
      // Rollup has no JSON import of its own: the twin's, as bench/rollup-json.ts does it.
      if (!codes && bundler === 'rollup' && id.endsWith('.json')) return `export default ${readFileSync(id, 'utf8')}`
      return null
    },
  }
}

async function build(codes: Record<string, string> | undefined): Promise<number> {
  ;(globalThis as { gc?: () => void }).gc?.()
  const before = process.cpuUsage()
  if (bundler === 'rollup') {
    const { rollup } = await import('rollup')
    await (await rollup({ input: ENTRY, plugins: [serve(codes)], onwarn: () => {} })).generate({ format: 'es' })
  } else {
    const { build } = await import('vite')
    await build({
      configFile: false,
      logLevel: 'silent',
      plugins: [serve(codes)],
      build: { write: false, minify: false, lib: { entry: ENTRY, formats: ['es'], fileName: () => 'main.js' } },
    })
  }
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1000
}

const sides: Record<string, Record<string, string> | undefined> = { twin: undefined }
for (const [variant, rewrite] of Object.entries(VARIANTS)) sides[variant] = Object.fromEntries(names.map((name) => [name, rewrite(name, generated[name]!)]))
const keys = Object.keys(sides)
const cpu: Record<string, number[]> = Object.fromEntries(keys.map((key) => [key, []]))
// Two rounds warm the bundler's code; then each round builds every side, in a turning order.
for (let i = 0; i < Number(rounds) + 2; i++)
  for (let k = 0; k < keys.length; k++) {
    const key = keys[(k + i) % keys.length]!
    const ms = await build(sides[key])
    if (i >= 2) cpu[key]!.push(ms)
  }
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
for (const key of keys) {
  const ratios = cpu[key]!.map((ms, i) => ms / cpu.twin![i]!)
  const bytes = sides[key] ? Object.values(sides[key]!).reduce((sum, code) => sum + code.length, 0) : 0
  console.log(
    `${bundler} ${key.padEnd(18)} ${bytes ? `${(bytes / 1024).toFixed(0)} KB` : ''.padEnd(7)} cpu ${median(cpu[key]!).toFixed(0)} ms | vs the twin ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`,
  )
}
