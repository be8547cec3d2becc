/**
 * `npx tsx bench/ab-bundler-builds.ts <before-root> <after-root> [rounds] [bundler,...] [--cache]`:
 * the builds of bench/bundler-build.ts (100 contracts, and their plain-JSON twin) with two builds of
 * this package (each root holds a `dist/`, e.g. a checkout of an earlier commit after `npm run
 * build`), each build a fresh process, the twin and both sides alternated round by round (which side
 * goes first alternates too), each in plain `node` as bench/bundler-build.ts runs it (the TypeScript
 * loader only for Rollup, whose twin needs it: its work on every module loaded falls mostly on the
 * plugin's side). Prints,
 * per side, the median wall time, the process's CPU time and its peak RSS, and the median of the
 * per-round ratios to the twin. The CPU ratio holds better than the wall one on a busy machine (the
 * bundler's own threads and processes are not in it: esbuild's work is in its own process). With
 * `--cache`, each side's builds share a persistent cache folder: every measured build is a second
 * build with unchanged contracts.
 */
import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { BUILDS, LOADER, writeApps } from './bundler-build.js'

const args = process.argv.slice(2)
const warm = args.includes('--cache')
const [before, after, rounds = '2', names = 'vite,rollup,esbuild,webpack'] = args.filter((a) => a !== '--cache')
if (!before || !after) throw new Error('usage: npx tsx bench/ab-bundler-builds.ts <before-root> <after-root> [rounds] [bundler,...] [--cache]')
const work = join(import.meta.dirname, '.work/ab-bundler-builds')
const { contracts, plain } = writeApps(work)

type Run = { ms: number; cpu: number; rssKb: number }
/** One build in a fresh process whose working directory is `root` (so `unplugin-contracts` is that root's build). */
function run(root: string, code: string, loader: boolean): Run {
  const script = `const t = performance.now();${code}\nconst u = process.cpuUsage(); console.log(JSON.stringify({ ms: performance.now() - t, cpu: (u.user + u.system) / 1000, rssKb: process.resourceUsage().maxRSS }))`
  const out = execFileSync(process.execPath, [...(loader ? ['--import', 'tsx'] : []), '--input-type=module', '-e', script], {
    cwd: resolve(root),
    encoding: 'utf8',
  })
  return JSON.parse(out.trim().split('\n').at(-1)!) as Run
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const sides = { before, after }
for (const name of names.split(',')) {
  const build = BUILDS[name]
  if (!build) throw new Error(`no such bundler: ${name}`)
  const loader = LOADER.has(name)
  const runs: Record<string, Run[]> = { plain: [], before: [], after: [] }
  if (warm) for (const side of Object.keys(sides)) rmSync(join(work, `cache-${side}-${name}`), { recursive: true, force: true })
  for (let i = 0; i <= Number(rounds); i++) {
    const round: Record<string, Run> = { plain: run(before, build(plain, false), loader) }
    for (const [side, root] of i % 2 === 0 ? Object.entries(sides) : Object.entries(sides).reverse()) {
      const cache = join(work, `cache-${side}-${name}`)
      if (!warm) rmSync(cache, { recursive: true, force: true })
      round[side] = run(root, build(contracts, `{ types: false, cache: ${warm ? JSON.stringify(cache) : 'false'} }`), loader)
    }
    // The first round warms the file system's cache (and, with --cache, fills each side's folder).
    if (i > 0) for (const side of Object.keys(runs)) runs[side]!.push(round[side]!)
  }
  const twin = runs.plain!
  for (const [side, list] of Object.entries(runs)) {
    const ratio = (of: (r: Run) => number) => median(list.map((r, i) => of(r) / of(twin[i]!))).toFixed(2)
    console.log(
      `${name}${warm ? ' (second build)' : ''} ${side.padEnd(6)} wall ${median(list.map((r) => r.ms)).toFixed(0)} ms, cpu ${median(list.map((r) => r.cpu)).toFixed(0)} ms, peak ${(median(list.map((r) => r.rssKb)) / 1024).toFixed(0)} MB` +
        ` | vs the twin: wall ${ratio((r) => r.ms)}, cpu ${ratio((r) => r.cpu)}, peak ${ratio((r) => r.rssKb)}`,
    )
  }
  // After against before, round by round: the change alone, with the lowest and highest round.
  const paired = (of: (r: Run) => number) => {
    const ratios = runs.after!.map((r, i) => of(r) / of(runs.before![i]!))
    return `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`
  }
  console.log(`${name} after / before: wall ${paired((r) => r.ms)}, cpu ${paired((r) => r.cpu)}, peak ${paired((r) => r.rssKb)}`)
}
