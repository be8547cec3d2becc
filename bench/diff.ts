/**
 * `contracts diff` on two 5,000-channel NATS documents with a payload on every channel, against
 * compiling one of them (a fresh compiler each, the module generated: what a build pays). The new
 * version (bench/diff-edit.ts) changes what teams change: the shared `Money` schema that every
 * payload reaches gets a required member (narrows: breaks every publisher), every `maxItems: 16`
 * becomes 8 and every stream keeps messages half as long. The diff compiles both versions to their models (no module
 * generated), then compares them: the row's ratio is that whole, end to end, and `diff_only_ms` the
 * comparison alone (the median of three, each on fresh models); `few_channels_ratio` the diff of an
 * edit of three channels' payloads (bench/diff-edit.ts `fewChannelsEdited`) against the same compile,
 * timed in the same rounds. `cpu_ratio` is the same ratio in
 * processor time (the process's, every thread's), per round, for a machine shared with other work.
 *
 *   npx tsx bench/diff.ts [--quick]      (from `npm run bench`, after the build)
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
// The compile baseline runs the same copy of the compiler as the diff (tsc's file-per-module output,
// which the diff runner imports), not the bundled chunks the package root loads: the ratio compares
// the two commands, not two builds of one compiler.
import { ContractCompiler } from '../dist/src/core/compile.js'
import { diffContracts } from '../dist/src/core/diff/runner.js'
import { loadDiffer } from '../dist/src/formats/diffs.js'
import { formats } from '../dist/src/formats/index.js'
import { editedDocument, fewChannelsEdited } from './diff-edit.js'
import { natsDocument } from './generate.js'
import { paired, roundRatios } from './measure.js'
import { mergeIntoResults } from './results-file.js'

interface Row {
  ours_ms: number
  baseline_ms: number
  ratio: number
  spread: [number, number]
  target: string
  met: boolean
  [extra: string]: unknown
}

export async function diffCases(rounds: number, work: string, n = 5000): Promise<Record<string, Row>> {
  const text = natsDocument(n, { payloads: true })
  const oldFile = join(work, `diff-old-${n}.asyncapi.yaml`)
  const newFile = join(work, `diff-new-${n}.asyncapi.yaml`)
  const fewFile = join(work, `diff-few-${n}.asyncapi.yaml`)
  writeFileSync(oldFile, text)
  writeFileSync(newFile, editedDocument(text))
  writeFileSync(fewFile, fewChannelsEdited(text))
  const env = { formats, loadDiffer }
  const first = await diffContracts({ file: oldFile }, { file: newFile }, env)
  if (!first.valid) throw new Error(`bench/diff.ts: a version does not compile: ${JSON.stringify([first.old.diagnostics[0], first.new.diagnostics[0]])}`)
  const few = await diffContracts({ file: oldFile }, { file: fewFile }, env)
  if (!few.valid || few.findings.length === 0) throw new Error('bench/diff.ts: the three-channel edit does not diff')
  const levels = { breaking: 0, warning: 0, info: 0 }
  for (const f of first.findings) levels[f.level]++
  // The comparison alone (the differ on two models, positions read), on models made afresh for
  // each run outside the timing: reused models would let the schema diff's memo of proven-equal
  // pairs (kept per pair of documents) answer a round from the previous one.
  const differ = (await loadDiffer('nats'))!
  const read = (file: string) => readFile(file, 'utf8')
  const compares: number[] = []
  for (let i = 0; i < 3; i++) {
    const [oldModel, newModel] = [
      (await new ContractCompiler({ formats }).model(oldFile, formats[1]!)).model,
      (await new ContractCompiler({ formats }).model(newFile, formats[1]!)).model,
    ]
    const start = performance.now()
    await differ.diff({ file: oldFile, model: oldModel, read }, { file: newFile, model: newModel, read })
    compares.push(performance.now() - start)
  }
  const compare = compares.sort((a, b) => a - b)[1]!
  // The processor time of each run beside its wall time: on a machine shared with other work the
  // wall-clock ratio wanders with the load (1.8 to 4.2 in one run), the processor time much less.
  const cpu = { compile: [] as number[], diff: [] as number[] }
  const timed = (into: number[], run: () => Promise<unknown>) => async () => {
    const start = process.cpuUsage()
    await run()
    const used = process.cpuUsage(start)
    into.push((used.user + used.system) / 1000)
  }
  const m = await paired(
    {
      compile: timed(cpu.compile, () => new ContractCompiler({ formats }).compile(oldFile)),
      diff: timed(cpu.diff, () => diffContracts({ file: oldFile }, { file: newFile }, env)),
      few: () => diffContracts({ file: oldFile }, { file: fewFile }, env),
    },
    rounds,
    2,
  )
  // The warm-up rounds are the first two of each list.
  const cpuRatio = roundRatios(cpu.diff.slice(2), cpu.compile.slice(2))
  return {
    [`diff-nats-${n}-vs-compile`]: {
      ours_ms: m.ms.diff,
      baseline_ms: m.ms.compile,
      ratio: m.ratio.diff,
      spread: m.spread.diff,
      target: '<= 2 (contracts diff of two versions / compiling one)',
      met: m.ratio.diff <= 2,
      cpu_ratio: cpuRatio.ratio,
      cpu_spread: cpuRatio.spread,
      diff_only_ms: compare,
      diff_only_ratio: compare / m.ms.compile,
      channels: n,
      document_bytes: text.length,
      findings: first.findings.length,
      ...Object.fromEntries(Object.entries(levels).map(([level, count]) => [`findings_${level}`, count])),
      few_channels_ratio: m.ratio.few,
      few_channels_findings: few.findings.length,
    },
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const work = join(import.meta.dirname, '.work')
  mkdirSync(work, { recursive: true })
  const quick = process.argv.includes('--quick')
  const rows = await diffCases(quick ? 3 : 7, work, quick ? 500 : 5000)
  console.table(rows)
  if (!quick) mergeIntoResults(rows)
}
