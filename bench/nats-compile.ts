/**
 * NATS compile and module size (issue 33), cases of `npm run bench` (bench/run.ts); `npx tsx
 * bench/nats-compile.ts [--quick]` runs them alone (after `npm run build`) and merges their rows into
 * bench/results.json.
 *
 * - `nats-compile-500-vs-js-yaml`: a 500-channel contract (`natsDocument(500)`, one payload shared
 *   by every channel) compiled by a fresh compiler, against js-yaml loading the same text, paired
 *   rounds. Fair: the document is read and parsed on every compile (the parse cache of
 *   `load.ts` keeps only a bundle's other, locked files, and this document has no bundle), and a
 *   fresh compiler keeps no memos; only the fixed AsyncAPI and profile schemas stay compiled (as
 *   js-yaml keeps its own tables), so the cost of the compiler's first use is left out of both.
 * - `nats-compile-500-payloads-vs-js-yaml`: the same with a payload of its own on every channel
 *   (`natsDocument(500, { payloads: true })`: 5 to 15 typed members, nested, enums, formats).
 * - `nats-compile-500-vs-asyncapi-parser`: how many times faster than `@asyncapi/parser`, each timed
 *   against js-yaml (the parser takes about a second, so both compare through the same baseline).
 * - `module-size-nats-500` (and `-payloads`): the generated module alone, minified (esbuild) and
 *   gzipped, against the document minified (its JSON form, gzipped: the ratio) and as it is (YAML,
 *   gzipped: `ratio_to_yaml`).
 * Modules are compiled with the default options (validators as data for the schema interpreter); the
 * payload rows also give the figures with the option `validators: 'code'` (`validators_code_*`), and
 * the plain module size row its module bytes with it.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { transform } from 'esbuild'
import { load } from 'js-yaml'
import { parseDocument } from 'yaml'
import { ContractCompiler } from '../dist/src/index.js'
import { natsDocument } from './generate.js'
import { paired } from './measure.js'
import { mergeIntoResults } from './results-file.js'

type Row = { ratio: number; met: boolean; [k: string]: unknown }

/**
 * `paired` (measure.ts) that also takes each side's processor time (user + system of this
 * process) per round: on a machine loaded beyond its cores the wall-clock ratio wanders with the
 * load, the processor-time ratio less (`cpu_ratio`: the median of the per-round ratios).
 */
export async function pairedWithCpu<K extends string>(
  fns: Record<K, () => unknown>,
  runs: number,
): Promise<Awaited<ReturnType<typeof paired<K>>> & { cpuRatio: Record<K, number> }> {
  const names = Object.keys(fns) as K[]
  const cpu: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, [] as number[]]))
  const timed = Object.fromEntries(
    names.map((n) => [
      n,
      async () => {
        const before = process.cpuUsage()
        await fns[n]()
        const used = process.cpuUsage(before)
        cpu[n]!.push((used.user + used.system) / 1000)
      },
    ]),
  ) as Record<K, () => Promise<void>>
  const warmup = Math.max(3, Math.ceil(runs / 2))
  const m = await paired(timed, runs, warmup)
  const first = cpu[names[0]!]!.slice(warmup)
  const med = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const cpuRatio = Object.fromEntries(names.map((n) => [n, med(cpu[n]!.slice(warmup).map((t, i) => t / Math.max(first[i]!, 0.001)))])) as Record<K, number>
  return { ...m, cpuRatio }
}

/** The option that writes validators as generated functions (docs/options.md, `nats.validators`; the default is data). */
const CODE = { nats: { validators: 'code' } }

const FAIR =
  'fresh compiler per compile; the document is read and parsed every time (no parse cache holds it), as js-yaml parses it every time; only the fixed AsyncAPI/profile schemas stay compiled'

export async function natsCompileCases(rounds: number, work: string, { parser = true } = {}): Promise<Record<string, Row>> {
  const results: Record<string, Row> = {}
  const fresh = (file: string, options?: object) => new ContractCompiler().compile(file, options)
  const documents = { plain: natsDocument(500), payloads: natsDocument(500, { payloads: true }) }
  const files = { plain: join(work, 'nc500.asyncapi.yaml'), payloads: join(work, 'nc500p.asyncapi.yaml') }
  for (const kind of ['plain', 'payloads'] as const) {
    writeFileSync(files[kind], documents[kind])
    const check = await fresh(files[kind])
    if (check.code === undefined || check.diagnostics.length > 0) throw new Error(`${kind}: ${JSON.stringify(check.diagnostics.slice(0, 2))}`)
  }
  for (const kind of ['plain', 'payloads'] as const) {
    const text = documents[kind]
    // With a payload per channel, also the option validators: 'code' (a function per schema).
    const sides = { jsYaml: () => load(text), ours: () => fresh(files[kind]), ...(kind === 'payloads' ? { code: () => fresh(files[kind], CODE) } : {}) }
    const m = await pairedWithCpu<'jsYaml' | 'ours' | 'code'>(sides as Record<'jsYaml' | 'ours' | 'code', () => unknown>, rounds)
    const row: Row = {
      ours_ms: m.ms.ours,
      baseline_ms: m.ms.jsYaml,
      ratio: m.ratio.ours,
      spread: m.spread.ours,
      cpu_ratio: m.cpuRatio.ours,
      target: '<= 2.5',
      met: m.ratio.ours <= 2.5,
      document_bytes: text.length,
      note: FAIR,
    }
    if (kind === 'payloads') {
      row.validators_code_ms = m.ms.code
      row.validators_code_ratio = m.ratio.code
      row.validators_code_cpu_ratio = m.cpuRatio.code
    }
    if (kind === 'plain') {
      // Apart: a yaml Document leaves garbage that would be collected during whatever runs next.
      const yamlDoc = await paired({ jsYaml: () => load(text), yamlDoc: () => parseDocument(text) }, Math.max(5, Math.ceil(rounds / 3)))
      row.yaml_parseDocument_ms = yamlDoc.ms.yamlDoc
      row.yaml_parseDocument_ratio = yamlDoc.ratio.yamlDoc
    }
    results[kind === 'plain' ? 'nats-compile-500-vs-js-yaml' : 'nats-compile-500-payloads-vs-js-yaml'] = row
  }
  if (parser) {
    const text = documents.plain
    const { Parser } = await import('@asyncapi/parser')
    const official = new Parser({ __unstable: { resolver: { resolvers: [] } } } as never)
    // The official parser takes about a second: timed against js-yaml as well, so both compare
    // through the same baseline (one warm-up round).
    const theirs = await paired({ jsYaml: () => load(text), parser: () => official.parse(text) }, Math.max(2, Math.ceil(rounds / 6)), 1)
    const ours = results['nats-compile-500-vs-js-yaml']!
    const faster = theirs.ratio.parser / ours.ratio
    results['nats-compile-500-vs-asyncapi-parser'] = {
      ours_ms: ours.ours_ms,
      baseline_ms: theirs.ms.parser,
      ratio: faster,
      target: '>= 30 (times faster)',
      met: faster >= 30,
    }
  }
  const gz = (text: string) => gzipSync(text).length
  const moduleBytes = async (file: string, options?: object) => gz((await transform((await fresh(file, options)).code!, { minify: true, format: 'esm' })).code)
  for (const kind of ['plain', 'payloads'] as const) {
    const module = await moduleBytes(files[kind])
    const yaml = gz(documents[kind])
    const json = gz(JSON.stringify(load(documents[kind])))
    const row: Row = {
      ratio: module / json,
      target: '<= 1 (module min+gzip / document min+gzip, its minified JSON form)',
      met: module / json <= 1,
      module_bytes: module,
      document_json_bytes: json,
      document_yaml_bytes: yaml,
      ratio_to_yaml: module / yaml,
    }
    const code = await moduleBytes(files[kind], CODE)
    row.validators_code_module_bytes = code
    row.validators_code_ratio = code / json
    results[kind === 'plain' ? 'module-size-nats-500' : 'module-size-nats-500-payloads'] = row
  }
  return results
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const work = join(import.meta.dirname, '.work')
  mkdirSync(work, { recursive: true })
  const quick = process.argv.includes('--quick')
  const rows = await natsCompileCases(quick ? 9 : 31, work, { parser: !process.argv.includes('--no-parser') })
  console.table(rows)
  mergeIntoResults(rows)
}
