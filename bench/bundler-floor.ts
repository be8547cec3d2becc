/**
 * `npx tsx bench/bundler-floor.ts [rounds] [vite|rollup]` (after `npm run build`): how much of a warm
 * build's gap to the plain-JSON twin is the plugin at all. The 100 modules of bench/bundler-build.ts's
 * app, compiled once up front (Benzene validators as code, the default, and as data), are served from
 * memory by a plugin of a few lines that imports nothing of this package (the runtime resolved to
 * its build, as the plugin resolves it), against the twin, each build a fresh process, alternated
 * round by round, beside the plugin's own second build (every contract from its persistent cache).
 * Prints the median wall and CPU time of each and the median of the per-round ratios to the twin:
 * what is left with a plugin that costs nothing is the bundler's work on the modules.
 */
import { execFileSync } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ContractCompiler } from '../dist/src/index.js'
import { RUNTIME_DEPENDENCIES } from '../dist/src/plugin/runtime-entries.js'
import { BUILDS, LOADER, writeApps } from './bundler-build.js'

const [rounds = '5', bundler = 'vite'] = process.argv.slice(2)
const root = join(import.meta.dirname, '..')
const work = join(import.meta.dirname, '.work/bundler-floor')
const { contracts, plain } = writeApps(work)
const build = BUILDS[bundler]
if (!build) throw new Error(`no such bundler: ${bundler}`)

/** The app's modules as the plugin makes them (no declarations, no cache), with Benzene's validators as `form`. */
async function modules(form: 'code' | 'data'): Promise<string> {
  const compiler = new ContractCompiler()
  const codes: Record<string, string> = {}
  for (let i = 0; i < 50; i++)
    for (const name of [`b${i}.spec.json`, `n${i}.asyncapi.yaml`]) {
      const result = await compiler.compile(join(contracts, name), { declarations: false, benzene: { validators: form } })
      if (result.code === undefined) throw new Error(`${name} did not compile`)
      codes[name] = result.code
    }
  const file = join(work, `modules-${form}.json`)
  writeFileSync(file, JSON.stringify(codes))
  return file
}

/** The packages the runtime imports, as the plugin resolves them (Rollup has no resolver of its own). */
const dependencies = Object.fromEntries(RUNTIME_DEPENDENCIES)
const runtime = join(root, 'dist/src/runtime')

/** The bundler's build of the contracts app with, in place of this package's plugin, one that serves the modules in `file`. */
const withModules = (file: string) =>
  build(contracts, 'true').replace(
    /const plugins = [^\n]*\n/,
    `const codes = JSON.parse((await import('node:fs')).readFileSync(${JSON.stringify(file)}, 'utf8'))
    const dependencies = ${JSON.stringify(dependencies)}
    const plugins = [{ name: 'modules', enforce: 'pre',
      resolveId(s) {
        if (s.startsWith('unplugin-contracts/runtime')) return ${JSON.stringify(runtime)} + (s === 'unplugin-contracts/runtime' ? '' : s.slice(26)) + '/index.js'
        if (dependencies[s]) return dependencies[s]
        if (s.endsWith('.spec.json') || s.endsWith('.asyncapi.yaml')) return '\\0modules:' + s.slice(2)
        return null
      },
      load(id) { return id.startsWith('\\0modules:') ? { code: codes[id.slice(9)], moduleType: 'js' } : null } }]
`,
  )

type Run = { ms: number; cpu: number }
function run(code: string): Run {
  const script = `const t = performance.now();${code}\nconst u = process.cpuUsage(); console.log(JSON.stringify({ ms: performance.now() - t, cpu: (u.user + u.system) / 1000 }))`
  const out = execFileSync(process.execPath, [...(LOADER.has(bundler) ? ['--import', 'tsx'] : []), '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
  })
  return JSON.parse(out.trim().split('\n').at(-1)!) as Run
}

const sides: Record<string, string> = {
  twin: build(plain, false),
  'modules (validators as code)': withModules(await modules('code')),
  'modules (validators as data)': withModules(await modules('data')),
  // This package's plugin, every contract served by its persistent cache (filled in the first round).
  'the plugin, warm cache': build(contracts, `{ types: false, cache: ${JSON.stringify(join(work, 'cache'))} }`),
}
rmSync(join(work, 'cache'), { recursive: true, force: true })
const runs: Record<string, Run[]> = Object.fromEntries(Object.keys(sides).map((side) => [side, []]))
const names = Object.keys(sides)
for (let i = 0; i <= Number(rounds); i++) {
  const round: Record<string, Run> = {}
  for (let k = 0; k < names.length; k++) {
    const side = names[(k + i) % names.length]!
    round[side] = run(sides[side]!)
  }
  // The first round warms the file system's cache.
  if (i > 0) for (const side of names) runs[side]!.push(round[side]!)
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
for (const side of names) {
  const list = runs[side]!
  const ratios = (of: (r: Run) => number) => list.map((r, i) => of(r) / of(runs.twin![i]!))
  const cpu = ratios((r) => r.cpu)
  console.log(
    `${bundler} ${side.padEnd(30)} wall ${median(list.map((r) => r.ms)).toFixed(0)} ms, cpu ${median(list.map((r) => r.cpu)).toFixed(0)} ms` +
      ` | vs the twin: wall ${median(ratios((r) => r.ms)).toFixed(2)}, cpu ${median(cpu).toFixed(2)} (${Math.min(...cpu).toFixed(2)}-${Math.max(...cpu).toFixed(2)})`,
  )
}
