/**
 * `npm run bench:complexity`: each hostile input family (bench/hostile.ts) compiled at size n and
 * 10n, fresh compiler each time, medians of several runs. Target: 10x the size costs at most ~12x
 * the time (no family is super-linear). Writes bench/complexity.json and prints a table.
 *
 * One family is quadratic by definition, not by the compiler: topics entering a long `$ref` chain
 * at every point (each topic-scoped hash covers its own closure, Contract Document §5.3). Its row
 * is normalized by the closure entries hashed, and the whole is bounded by
 * BENZENE_CLOSURE_TOO_LARGE.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ContractCompiler } from '../dist/src/index.js'
import * as hostile from './hostile.js'

const quick = process.argv.includes('--quick')
const RUNS = quick ? 3 : 5
const work = join(import.meta.dirname, '.work/complexity')
rmSync(work, { recursive: true, force: true })
mkdirSync(work, { recursive: true })

interface Family {
  name: string
  n: number
  make: (n: number, dir: string) => string
  /** Units of inherent work at size n, when it is not n itself. */
  work?: (n: number) => number
}

const file = (name: string) => (text: string, dir: string) => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}
const families: Family[] = [
  { name: 'stream cover, one-hex parameters', n: 8, make: (n, d) => file('c.asyncapi.yaml')(hostile.coverBomb(n), d) },
  { name: 'channels that all overlap', n: 500, make: (n, d) => file('c.asyncapi.yaml')(hostile.overlapAll(n), d) },
  { name: 'channels sharing first and last tokens', n: 3200, make: (n, d) => file('c.asyncapi.yaml')(hostile.sharedBucket(n), d) },
  { name: 'enum against enum', n: 8000, make: (n, d) => file('c.asyncapi.yaml')(hostile.enumPair(n), d) },
  { name: 'one long YAML flow line', n: 20000, make: (n, d) => file('c.asyncapi.yaml')(hostile.longFlowLine(n), d) },
  { name: 'empty Benzene requests', n: 4500, make: (n, d) => file('c.spec.json')(hostile.emptyTopics(n), d) },
  { name: '$ref chain', n: 1600, make: (n, d) => file('c.spec.json')(hostile.schemaChain(n, '$ref'), d) },
  { name: 'allOf chain', n: 1600, make: (n, d) => file('c.spec.json')(hostile.schemaChain(n, 'allOf'), d) },
  { name: 'DASP dependencies', n: 400, make: (n, d) => hostile.daspManyDependencies(d, n) },
  { name: 'topics on a $ref chain (per closure entry)', n: 140, make: (n, d) => file('c.spec.json')(hostile.schemaChain(n, '$ref', n), d), work: (n) => (n * (n + 1)) / 2 },
]

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

async function time(path: string): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < RUNS + 1; i++) {
    const start = performance.now()
    await new ContractCompiler().compile(path)
    if (i > 0) times.push(performance.now() - start)
  }
  return median(times)
}

const rows: Record<string, unknown> = {}
console.log('| family | n | ms at n | ms at 10n | ratio | target | met |')
console.log('| --- | --- | --- | --- | --- | --- | --- |')
for (const family of families) {
  const [small, large] = [family.n, family.n * 10].map((n) => {
    const dir = join(work, `${family.name.replace(/\W+/g, '-')}-${n}`)
    mkdirSync(dir, { recursive: true })
    return family.make(n, dir)
  })
  const a = await time(small!)
  const b = await time(large!)
  const scale = family.work ? family.work(family.n * 10) / family.work(family.n) / 10 : 1
  const ratio = b / a / scale
  const met = ratio <= 12
  rows[family.name] = { n: family.n, ms: a, ms10: b, ratio: Number(ratio.toFixed(2)), target: '<= 12', met }
  console.log(`| ${family.name} | ${family.n} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${ratio.toFixed(2)} | <= 12 | ${met ? 'yes' : 'NO'} |`)
}
writeFileSync(join(import.meta.dirname, 'complexity.json'), JSON.stringify({ date: new Date().toISOString().slice(0, 10), node: process.version, quick, families: rows }, null, 2) + '\n')
