/**
 * Cold-start cases of `npm run bench` (bench/run.ts); `npx tsx bench/cold-start.ts` runs them alone.
 * Fresh processes, alternated (ours, baseline, ours, ...), on a small NATS document (the ledger
 * fixture, ~3 KB):
 * - `contracts check` as a whole process, against `node -e` loading the same file with js-yaml;
 * - inside a fresh process, the package's import plus its first compile, against js-yaml's import
 *   plus a load of the same text (each side timed from just before its first import), in wall time
 *   and in the process's CPU time (`cpu_ratio`: less moved by other processes on a busy machine).
 * Run alone, it merges its rows into bench/results.json.
 */
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { roundRatios } from './measure.js'
import { mergeIntoResults } from './results-file.js'

const root = join(import.meta.dirname, '..')
const document = join(root, 'fixtures/nats/valid/ledger.asyncapi.yaml')
const cli = join(root, 'dist/cli.js')

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const timed = (args: string[]) => {
  const start = performance.now()
  execFileSync(process.execPath, args, { cwd: root, stdio: 'pipe' })
  return performance.now() - start
}
/** A child that prints how long its own import and first call took, in ms of wall and of CPU time. */
const inside = (code: string): { wall: number; cpu: number } => {
  const timed = `const c = process.cpuUsage(); const t = performance.now(); ${code}; const u = process.cpuUsage(c); console.log(JSON.stringify({ wall: performance.now() - t, cpu: (u.user + u.system) / 1000 }))`
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', timed], { cwd: root, encoding: 'utf8' }).trim()) as {
    wall: number
    cpu: number
  }
}

export async function coldStartCases(RUNS: number): Promise<Record<string, { ratio: number; met: boolean; [k: string]: unknown }>> {
  const check = { ours: [] as number[], baseline: [] as number[] }
  const first = { ours: [] as number[], baseline: [] as number[] }
  const firstCpu = { ours: [] as number[], baseline: [] as number[] }
  const yamlLoad = `import { readFileSync } from 'node:fs'; const { load } = await import('js-yaml'); load(readFileSync(${JSON.stringify(document)}, 'utf8'))`
  for (let i = 0; i < RUNS + 1; i++) {
    const c = timed([cli, 'check', document])
    const b = timed(['--input-type=module', '-e', yamlLoad])
    const f = inside(
      `const { ContractCompiler } = await import('./dist/src/index.js'); const r = await new ContractCompiler().compile(${JSON.stringify(document)}); if (r.code === undefined) process.exit(1)`,
    )
    const y = inside(
      `const { readFileSync } = await import('node:fs'); const { load } = await import('js-yaml'); load(readFileSync(${JSON.stringify(document)}, 'utf8'))`,
    )
    if (i === 0) continue // the first round warms the file system cache
    check.ours.push(c)
    check.baseline.push(b)
    first.ours.push(f.wall)
    first.baseline.push(y.wall)
    firstCpu.ours.push(f.cpu)
    firstCpu.baseline.push(y.cpu)
  }
  /** A row of medians and round ratios, met at `limit`. */
  const row = (sides: { ours: number[]; baseline: number[] }, limit: number, target: string) => {
    const { ratio, spread } = roundRatios(sides.ours, sides.baseline)
    return { ours_ms: median(sides.ours), baseline_ms: median(sides.baseline), ratio, spread, target: `<= ${limit} (${target})`, met: ratio <= limit }
  }
  return {
    'cold-contracts-check-small-nats': row(check, 2, 'whole process vs node -e js-yaml load'),
    'cold-first-compile-small-nats': {
      ...row(first, 3, 'import + first compile vs import + js-yaml load'),
      cpu_ratio: roundRatios(firstCpu.ours, firstCpu.baseline).ratio,
    },
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await coldStartCases(Number(process.argv[2] ?? 7))
  console.table(rows)
  mergeIntoResults(rows)
}
