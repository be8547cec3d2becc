/**
 * `npx tsx bench/ab-builds.ts <before-root> <after-root> [rounds]`: two builds of this package (each
 * root holds a `dist/`, e.g. a checkout of an earlier commit after `npm run build`) timed in one
 * process, alternated edit by edit, so that a busy machine's slow spells fall on both. Prints the
 * median wall and CPU time of each side and the median of the paired ratios (after / before).
 *
 * Cases: the work a Vite dev server does for one edit of the 100-topic dev-loop contract (the
 * module, then the sidecar's declarations: two compiles before issue 32, one compile and its `dts`
 * after), and the recompile rows of bench/incremental.ts (a warm compiler, default options), with
 * and without the declarations read.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { benzeneDocument, natsDocument } from './generate.js'

interface Compiler {
  compile(file: string, options?: Record<string, unknown>): Promise<{ dts?: string }>
}
type Make = () => Compiler

const [beforeRoot, afterRoot, rounds = '25'] = process.argv.slice(2)
if (!beforeRoot || !afterRoot) throw new Error('usage: npx tsx bench/ab-builds.ts <before-root> <after-root> [rounds]')
const load = async (root: string): Promise<Make> => {
  const { ContractCompiler } = (await import(pathToFileURL(join(resolve(root), 'dist/src/index.js')).href)) as { ContractCompiler: new () => Compiler }
  return () => new ContractCompiler()
}
const builds = { before: await load(beforeRoot), after: await load(afterRoot) }
const ROUNDS = Number(rounds)
const work = join(import.meta.dirname, '.work/ab-builds')
mkdirSync(work, { recursive: true })
const cpu = () => {
  const used = process.cpuUsage()
  return (used.user + used.system) / 1000
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const fixed = (n: number) => n.toFixed(1)

async function ab(
  name: string,
  file: string,
  text: (k: number) => string,
  edit: { before: (c: Compiler) => Promise<void>; after: (c: Compiler) => Promise<void> },
) {
  const compilers = { before: builds.before(), after: builds.after() }
  const wall = { before: [] as number[], after: [] as number[] }
  const used = { before: [] as number[], after: [] as number[] }
  for (let k = 0; k < ROUNDS + 3; k++) {
    writeFileSync(file, text(k))
    for (const side of k % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const)) {
      const [w, c] = [performance.now(), cpu()]
      await edit[side](compilers[side])
      // Not counted: the first compile, the first recompile (it fills the memos) and one more.
      if (k < 3) continue
      wall[side].push(performance.now() - w)
      used[side].push(cpu() - c)
    }
  }
  const ratio = (v: { before: number[]; after: number[] }) => median(v.after.map((x, i) => x / v.before[i]!)).toFixed(2)
  console.log(
    `${name}\n  wall: before ${fixed(median(wall.before))} ms, after ${fixed(median(wall.after))} ms, paired ratio ${ratio(wall)}\n  cpu:  before ${fixed(median(used.before))} ms, after ${fixed(median(used.after))} ms, paired ratio ${ratio(used)}`,
  )
}

const options = { query: '', benzene: { topics: undefined } }
const dev = (k: number) => benzeneDocument(100).replace('"synthetic-100"', `"synthetic-100-edit-${k}"`)
await ab('dev edit, server side (100 topics: the module and the sidecar declarations)', join(work, 'dev.spec.json'), dev, {
  // Before issue 32 the plugin compiled without declarations for the module, then with them for the sidecar.
  before: async (c) => {
    await c.compile(join(work, 'dev.spec.json'), { ...options, declarations: false })
    void (await c.compile(join(work, 'dev.spec.json'), { ...options, declarations: true })).dts
  },
  after: async (c) => void (await c.compile(join(work, 'dev.spec.json'), { ...options, declarations: true })).dts,
})
const cases = {
  'benzene-recompile-500-one-topic-edited': {
    name: 'edit500.spec.json',
    text: (k: number) => benzeneDocument(500).replace('"maxLength": 23', `"maxLength": ${1000 + k}`),
  },
  'nats-recompile-500-one-stream-edited': {
    name: 'edit500.asyncapi.yaml',
    text: (k: number) => natsDocument(500).replace('max_msgs: 1000000', `max_msgs: ${2000000 + k}`),
  },
}
for (const [row, { name, text }] of Object.entries(cases)) {
  const file = join(work, name)
  const compile = async (c: Compiler) => void (await c.compile(file))
  const declared = async (c: Compiler) => void (await c.compile(file)).dts
  await ab(`${row} (as bench/incremental.ts runs it: declarations not read)`, file, text, { before: compile, after: compile })
  await ab(`${row} (declarations read)`, file, text, { before: declared, after: declared })
}
