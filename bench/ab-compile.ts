/**
 * `npx tsx bench/ab-compile.ts <before-root> <after-root> [blocks] [plain|payloads] [block size]`:
 * two builds of this package (each root holds a `dist/`, e.g. a checkout of an earlier commit after
 * `npm run build`) compiling the 500-channel NATS bench document with fresh compilers, alternated in
 * one process. Each side runs a block of compiles in turn, after a young-generation collection, so
 * that a collection falls inside the block that made its garbage, and a busy machine's slow spells
 * fall on both sides. Checks first that both write the same module and diagnostics. Prints the
 * median wall and processor time per compile of each side, the median of the paired ratios (after /
 * before) and the ratio of the totals.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { natsDocument } from './generate.js'

interface Compiler {
  compile(file: string): Promise<{ code?: string; diagnostics: unknown[] }>
}

const [beforeRoot, afterRoot, blocks = '40', kind = 'plain', size = '5'] = process.argv.slice(2)
if (!beforeRoot || !afterRoot) throw new Error('usage: npx tsx bench/ab-compile.ts <before-root> <after-root> [blocks] [plain|payloads] [block size]')
const load = async (root: string): Promise<new () => Compiler> =>
  ((await import(pathToFileURL(join(resolve(root), 'dist/src/index.js')).href)) as { ContractCompiler: new () => Compiler }).ContractCompiler
const builds = { before: await load(beforeRoot), after: await load(afterRoot) }
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as (options: { type: 'minor' }) => void

const work = join(import.meta.dirname, '.work/ab-compile')
mkdirSync(work, { recursive: true })
const file = join(work, `nc500${kind === 'payloads' ? 'p' : ''}.asyncapi.yaml`)
writeFileSync(file, natsDocument(500, { payloads: kind === 'payloads' }))
const first = { before: await new builds.before().compile(file), after: await new builds.after().compile(file) }
if (first.before.code !== first.after.code || JSON.stringify(first.before.diagnostics) !== JSON.stringify(first.after.diagnostics))
  throw new Error('the two builds write different modules or diagnostics')

const cpu = () => {
  const used = process.cpuUsage()
  return (used.user + used.system) / 1000
}
const BLOCKS = Number(blocks)
const SIZE = Number(size)
const wall = { before: [] as number[], after: [] as number[] }
const used = { before: [] as number[], after: [] as number[] }
for (let k = 0; k < BLOCKS + 2; k++) {
  for (const side of k % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const)) {
    gc({ type: 'minor' })
    const [w, c] = [performance.now(), cpu()]
    for (let j = 0; j < SIZE; j++) await new builds[side]().compile(file)
    // The first two blocks of each side warm up.
    if (k < 2) continue
    wall[side].push((performance.now() - w) / SIZE)
    used[side].push((cpu() - c) / SIZE)
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0)
const report = (name: string, v: { before: number[]; after: number[] }) =>
  `${name}: before ${median(v.before).toFixed(1)} ms, after ${median(v.after).toFixed(1)} ms per compile; after/before: medians ${(median(v.after) / median(v.before)).toFixed(3)}, paired ${median(v.after.map((x, i) => x / v.before[i]!)).toFixed(3)}, totals ${(sum(v.after) / sum(v.before)).toFixed(3)}`
console.log(`${kind}, ${BLOCKS} blocks of ${SIZE} compiles each way`)
console.log(report('wall', wall))
console.log(report('cpu ', used))
