/**
 * `npm run bench:complexity`: each hostile input family (bench/hostile.ts) compiled at size n and
 * 10n, fresh compiler each time, medians of several runs. Target: 10x the size costs at most ~12x
 * the time (no family is super-linear). The same ratio for parsing the text alone (js-yaml or
 * JSON.parse) is reported beside it: memory and garbage collection make even a parse grow a little
 * faster than its input. Writes bench/complexity.json and prints a table.
 *
 * One family is quadratic by definition, not by the compiler: topics entering a long `$ref` chain
 * at every point (each topic-scoped hash covers its own closure, Contract Document §5.3). Its row
 * is normalized by the closure entries hashed, and the whole is bounded by
 * BENZENE_CLOSURE_TOO_LARGE.
 *
 * `--only <text>` runs the families whose name contains the text, and merges their rows into
 * bench/complexity.json (the others stay as the last full run wrote them).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { load } from 'js-yaml'
import { ContractCompiler } from '../dist/src/index.js'
import * as hostile from './hostile.js'
import type { Family } from './family.js'
import { families as validatorFamilies } from './hostile-validators.js'
import { families as topologyFamilies } from './hostile-topology.js'
import { families as ruleFamilies } from './hostile-rules.js'
import { families as daspFamilies } from './hostile-dasp.js'
import { paired } from './measure.js'

const quick = process.argv.includes('--quick')
const RUNS = quick ? 3 : 9
const onlyAt = process.argv.indexOf('--only')
const only = onlyAt === -1 ? undefined : process.argv[onlyAt + 1]
const work = join(import.meta.dirname, '.work/complexity')
rmSync(work, { recursive: true, force: true })
mkdirSync(work, { recursive: true })

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
  { name: 'JSON nested past the depth limit', n: 20000, make: (n, d) => file('c.spec.json')(hostile.deepJson(n), d) },
  { name: 'YAML alias bomb', n: 10, make: (n, d) => file('c.asyncapi.yaml')(hostile.aliasBomb(n), d) },
  { name: 'empty Benzene requests', n: 4500, make: (n, d) => file('c.spec.json')(hostile.emptyTopics(n), d) },
  { name: '$ref chain', n: 1600, make: (n, d) => file('c.spec.json')(hostile.schemaChain(n, '$ref'), d) },
  { name: 'allOf chain', n: 1600, make: (n, d) => file('c.spec.json')(hostile.schemaChain(n, 'allOf'), d) },
  { name: 'DASP dependency cycle', n: 200, make: (n, d) => hostile.daspDependencyChain(d, n) },
  {
    name: 'DASP dependencies',
    n: 400,
    make: (n, d) => hostile.daspManyDependencies(d, n),
    grows: (f) => join(dirname(f), 'extensions/proof-of-authority.dasp-ext.json'),
  },
  {
    name: 'topics on a $ref chain (per closure entry)',
    n: 140,
    make: (n, d) => file('c.spec.json')(hostile.schemaChain(n, '$ref', n), d),
    work: (n) => (n * (n + 1)) / 2,
  },
  ...validatorFamilies,
  ...topologyFamilies,
  ...ruleFamilies,
  ...daspFamilies,
]

/** The parse of the same text (js-yaml for YAML, JSON.parse for JSON): the floor a compile scales with. */
const parseOf = (path: string) => {
  const text = readFileSync(path, 'utf8')
  return path.endsWith('.json') ? () => JSON.parse(text) : () => load(text)
}

const rows: Record<string, unknown> = {}
console.log('| family | n | ms at n | ms at 10n | ratio | parse ratio | target | met |')
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |')
for (const family of families) {
  if (only !== undefined && !family.name.includes(only)) continue
  const [small, large] = [family.n, family.n * 10].map((n) => {
    const dir = join(work, `${family.name.replace(/\W+/g, '-')}-${n}`)
    mkdirSync(dir, { recursive: true })
    return family.make(n, dir)
  })
  // n and 10n compiled in alternation (a, b, a, b, ...), a fresh compiler each time: the ratio is
  // the median of per-round ratios, so a slow spell of the machine falls on both sides.
  const compile = (path: string) => () => new ContractCompiler().compile(path)
  const run = family.run ?? compile
  const compiled = await paired({ small: await run(small!), large: await run(large!) }, RUNS)
  const floor = family.grows ?? ((f: string) => f)
  const parsed = await paired({ small: parseOf(floor(small!)), large: parseOf(floor(large!)) }, RUNS)
  const scale = family.work ? family.work(family.n * 10) / family.work(family.n) / 10 : 1
  const ratio = compiled.ratio.large / scale
  const parseRatio = parsed.ratio.large
  const met = ratio <= 12
  rows[family.name] = {
    n: family.n,
    ms: round(compiled.ms.small),
    ms10: round(compiled.ms.large),
    ratio: round(ratio),
    parseRatio: round(parseRatio),
    target: '<= 12',
    met,
  }
  console.log(
    `| ${family.name} | ${family.n} | ${compiled.ms.small.toFixed(1)} | ${compiled.ms.large.toFixed(1)} | ${ratio.toFixed(2)} | ${parseRatio.toFixed(2)} | <= 12 | ${met ? 'yes' : 'NO'} |`,
  )
}
const resultsFile = join(import.meta.dirname, 'complexity.json')
const today = new Date().toISOString().slice(0, 10)
// A partial run keeps the file's date, node and rounds (the last full run's) and dates its own rows.
const written =
  only === undefined
    ? { date: today, node: process.version, quick, families: rows }
    : (() => {
        const last = JSON.parse(readFileSync(resultsFile, 'utf8')) as { families: Record<string, unknown> }
        const dated = Object.fromEntries(Object.entries(rows).map(([name, row]) => [name, { ...(row as object), date: today, node: process.version, quick }]))
        return { ...last, families: { ...last.families, ...dated } }
      })()
writeFileSync(resultsFile, JSON.stringify(written, null, 2) + '\n')

function round(n: number): number {
  return Number(n.toFixed(2))
}
