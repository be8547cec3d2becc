/**
 * Cold-start cases of `npm run bench` (bench/run.ts); `npx tsx bench/cold-start.ts` runs them alone.
 * Fresh processes, alternated (ours, baseline, ours, ...), on a small NATS document (the ledger
 * fixture, ~3 KB):
 * - `contracts check` as a whole process, against `node -e` loading the same file with js-yaml;
 * - inside a fresh process, the package's import plus its first compile, against js-yaml's import
 *   plus a load of the same text (each side timed from just before its first import).
 */
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { roundRatios } from './measure.js'

const root = join(import.meta.dirname, '..')
const document = join(root, 'fixtures/nats/valid/ledger.asyncapi.yaml')
const cli = join(root, 'dist/cli.js')

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const timed = (args: string[]) => {
  const start = performance.now()
  execFileSync(process.execPath, args, { cwd: root, stdio: 'pipe' })
  return performance.now() - start
}
/** A child that prints how long its own import and first call took, in ms. */
const inside = (code: string) => Number(execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' }).trim())

export async function coldStartCases(RUNS: number): Promise<Record<string, { ratio: number; met: boolean; [k: string]: unknown }>> {
  const check = { ours: [] as number[], baseline: [] as number[] }
  const first = { ours: [] as number[], baseline: [] as number[] }
  const yamlLoad = `import { readFileSync } from 'node:fs'; const { load } = await import('js-yaml'); load(readFileSync(${JSON.stringify(document)}, 'utf8'))`
  for (let i = 0; i < RUNS + 1; i++) {
    const c = timed([cli, 'check', document])
    const b = timed(['--input-type=module', '-e', yamlLoad])
    const f = inside(
      `const t = performance.now(); const { ContractCompiler } = await import('./dist/src/index.js'); const r = await new ContractCompiler().compile(${JSON.stringify(document)}); if (r.code === undefined) process.exit(1); console.log(performance.now() - t)`,
    )
    const y = inside(
      `const t = performance.now(); const { readFileSync } = await import('node:fs'); const { load } = await import('js-yaml'); load(readFileSync(${JSON.stringify(document)}, 'utf8')); console.log(performance.now() - t)`,
    )
    if (i === 0) continue // the first round warms the file system cache
    check.ours.push(c)
    check.baseline.push(b)
    first.ours.push(f)
    first.baseline.push(y)
  }
  /** A row of medians and round ratios, met at `limit`. */
  const row = (sides: { ours: number[]; baseline: number[] }, limit: number, target: string) => {
    const { ratio, spread } = roundRatios(sides.ours, sides.baseline)
    return { ours_ms: median(sides.ours), baseline_ms: median(sides.baseline), ratio, spread, target: `<= ${limit} (${target})`, met: ratio <= limit }
  }
  return {
    'cold-contracts-check-small-nats': row(check, 2, 'whole process vs node -e js-yaml load'),
    'cold-first-compile-small-nats': row(first, 3, 'import + first compile vs import + js-yaml load'),
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.table(await coldStartCases(5))
