/**
 * Ad-hoc (not part of `npm run bench`): where `contracts diff` spends its processor time on the
 * bench/diff.ts edit, phase by phase, against one compile, in one process, rounds alternated after
 * a warm-up. Per round: the compile, the two versions' checks (each version's model, as the runner
 * makes them), the comparison, and the garbage collection inside each (main-thread pauses from
 * `PerformanceObserver`, young and full collections apart). Processor time is the process's (every
 * thread's); run with `node --single-threaded` to keep collection on the main thread, where a
 * loaded machine moves it least.
 *
 * `--shared-check` also times the two checks made by one compiler, the second version checked as a
 * recompile of the first (it takes the first parse's unchanged YAML regions and replays the rule
 * reports whose inputs are the same objects), beside two separate checks; the findings and the
 * diagnostics of both ways are compared once first.
 *
 * `--few` diffs the edit of three channels' payloads (bench/diff-edit.ts `fewChannelsEdited`) instead.
 *
 *   npm run build && node --single-threaded --import tsx bench/diff-phases.ts [channels] [rounds] [--shared-check] [--few]
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { PerformanceObserver, constants } from 'node:perf_hooks'
import { ContractCompiler } from '../dist/src/core/compile.js'
import { loadDiffer } from '../dist/src/formats/diffs.js'
import { formats } from '../dist/src/formats/index.js'
import { editedDocument, fewChannelsEdited } from './diff-edit.js'
import { natsDocument } from './generate.js'

const args = process.argv.slice(2)
const sharedCheck = args.includes('--shared-check')
const [n = 5000, rounds = 5] = args.filter((a) => !a.startsWith('--')).map(Number)
const work = join(import.meta.dirname, '.work')
mkdirSync(work, { recursive: true })
const text = natsDocument(n, { payloads: true })
const oldFile = resolve(work, `diff-old-${n}.asyncapi.yaml`)
const newFile = resolve(work, `diff-new-${n}.asyncapi.yaml`)
writeFileSync(oldFile, text)
writeFileSync(newFile, args.includes('--few') ? fewChannelsEdited(text) : editedDocument(text))
const nats = formats.find((f) => f.name === 'nats')!
const differ = (await loadDiffer('nats'))!
const read = (file: string) => readFile(file, 'utf8')

/** Every main-thread collection pause (they are delivered late: each is counted in the window it began in). */
const pauses: Array<{ start: number; duration: number; minor: boolean }> = []
new PerformanceObserver((list) => {
  for (const entry of list.getEntries())
    pauses.push({
      start: entry.startTime,
      duration: entry.duration,
      minor: (entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR,
    })
}).observe({ entryTypes: ['gc'] })
interface Window {
  from: number
  to: number
}
const window = (from: number): Window => ({ from, to: performance.now() })
/** The pauses that began in a window, young and full collections apart (read once every pause has arrived). */
const pausesIn = (w: Window) => {
  const inside = pauses.filter((p) => p.start >= w.from && p.start < w.to)
  const sum = (minor: boolean) => inside.filter((p) => p.minor === minor).reduce((total, p) => total + p.duration, 0)
  return { minor: sum(true), major: sum(false) }
}
const cpu = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

type Models = Array<Awaited<ReturnType<ContractCompiler['model']>>>

const separateChecks = (): Promise<Models> =>
  Promise.all([new ContractCompiler({ formats }).model(oldFile, nats), new ContractCompiler({ formats }).model(newFile, nats)])

/** The recompile path's internals, reached for this measurement only. */
interface Internals {
  memos: { kept(name: string, make: () => never): { files: Map<string, unknown> } }
  request(file: string, options: object): Promise<unknown>
  modelStages(file: string, request: unknown, memos: unknown): Promise<{ model: unknown; diagnostics: unknown[] }>
}

async function sharedChecks(): Promise<Models> {
  const compiler = new ContractCompiler({ formats }) as unknown as Internals
  const first = await compiler.modelStages(oldFile, await compiler.request(oldFile, {}), compiler.memos)
  // What the first check kept for its file is handed to the second version's file.
  for (const name of ['nats:yaml-regions', 'nats:rule-reports']) {
    const byFile = compiler.memos.kept(name, () => {
      throw new Error(`bench/diff-phases.ts: the compile kept no ${name}`)
    })
    byFile.files.set(newFile, byFile.files.get(oldFile))
    byFile.files.delete(oldFile)
  }
  const second = await compiler.modelStages(newFile, await compiler.request(newFile, {}), compiler.memos)
  return [first, second] as unknown as Models
}

async function phases(checks: () => Promise<Models>) {
  const start = cpu()
  const checkFrom = performance.now()
  const [a, b] = await checks()
  const checkGc = window(checkFrom)
  const checked = cpu()
  const compareFrom = performance.now()
  const findings = await differ.diff({ file: oldFile, model: a!.model, read }, { file: newFile, model: b!.model, read })
  const compareGc = window(compareFrom)
  const compared = cpu()
  return {
    checks: checked - start,
    compare: compared - checked,
    checkGc,
    compareGc,
    out: JSON.stringify([findings, a!.diagnostics, b!.diagnostics]),
  }
}

async function compile() {
  const start = cpu()
  const from = performance.now()
  await new ContractCompiler({ formats }).compile(oldFile)
  const gc = window(from)
  return { cpu: cpu() - start, gc }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const range = (values: number[]) => `${Math.round(Math.min(...values))}-${Math.round(Math.max(...values))}`

await compile()
const plain = await phases(separateChecks)
if (sharedCheck) {
  const shared = await phases(sharedChecks)
  console.log(`shared check: findings and diagnostics ${shared.out === plain.out ? 'identical' : 'DIFFER'}`)
}
const rows: Record<string, number[]> = {}
const push = (name: string, value: number) => (rows[name] ??= []).push(value)
const gcRows: Array<[string, Window]> = []
const pushGc = (name: string, w: Window) => gcRows.push([name, w])
for (let round = 0; round < rounds; round++) {
  const c = await compile()
  push('compile', c.cpu)
  pushGc('compile', c.gc)
  const ways: Array<[string, () => Promise<Models>]> = [['', separateChecks]]
  if (sharedCheck) ways.push([' shared', sharedChecks])
  if (round % 2 === 1) ways.reverse()
  for (const [suffix, checks] of ways) {
    const p = await phases(checks)
    push(`two checks${suffix}`, p.checks)
    pushGc(`two checks${suffix}`, p.checkGc)
    if (suffix === '') {
      push('comparison', p.compare)
      pushGc('comparison', p.compareGc)
    }
  }
}
// Every pause has arrived once the event loop has turned a few times.
await new Promise((done) => setTimeout(done, 200))
for (const [name, w] of gcRows) {
  const { minor, major } = pausesIn(w)
  push(`${name} gc (young)`, minor)
  push(`${name} gc (full)`, major)
}
const compileCpu = rows.compile!
console.log(`${n} channels, ${rounds} rounds; processor time (ms, every thread) and main-thread collection pauses (ms)`)
for (const [name, values] of Object.entries(rows)) {
  const perCompile = name.includes(' gc (') ? '' : `  ${median(values.map((v, i) => v / compileCpu[i]!)).toFixed(2)} compiles`
  console.log(`${name.padEnd(30)} median ${String(Math.round(median(values))).padStart(6)}  (${range(values)})${perCompile}`)
}
if (sharedCheck) {
  const ratios = rows['two checks shared']!.map((v, i) => v / rows['two checks']![i]!)
  console.log(`shared / separate checks, per round: median ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`)
}
