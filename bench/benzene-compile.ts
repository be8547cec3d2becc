/**
 * The Benzene compile rows of `npm run bench` on their own (`npx tsx bench/benzene-compile.ts
 * [--merge]`, after `npm run build`): a 1,000-topic compile against `JSON.parse`, `canonicalize`
 * and SHA-256 of the document, with and without validators and with the data form, measured as
 * bench/run.ts measures them. `--merge` writes the two rows bench/run.ts writes into
 * bench/results.json.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import canonicalize from 'canonicalize'
import { ContractCompiler } from '../dist/src/index.js'
import { benzeneDocument } from './generate.js'
import { pairedWithCpu } from './nats-compile.js'
import { mergeIntoResults } from './results-file.js'

const work = join(import.meta.dirname, '.work-profile')
mkdirSync(work, { recursive: true })
const text = benzeneDocument(1000)
const file = join(work, 'b1000.spec.json')
writeFileSync(file, text)
const fresh = (options?: object) => new ContractCompiler().compile(file, options)
const runs = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 15)
const m = await pairedWithCpu(
  {
    baseline: () =>
      createHash('sha256')
        .update(canonicalize(JSON.parse(text))!)
        .digest('hex'),
    ours: () => fresh(),
    unchecked: () => fresh({ benzene: { validate: false } }),
    data: () => fresh({ benzene: { validators: 'data' } }),
  },
  runs,
)
const fmt = (k: 'ours' | 'unchecked' | 'data') =>
  `${k}: ${m.ms[k].toFixed(0)} ms, ratio ${m.ratio[k].toFixed(2)} (${m.spread[k].map((x) => x.toFixed(2)).join('-')}), cpu ratio ${m.cpuRatio[k].toFixed(2)}`
console.log(`baseline ${m.ms.baseline.toFixed(1)} ms; ${fmt('ours')}; ${fmt('unchecked')}; ${fmt('data')}`)
if (process.argv.includes('--merge'))
  mergeIntoResults({
    'benzene-compile-1000': {
      ours_ms: m.ms.ours,
      baseline_ms: m.ms.baseline,
      ratio: m.ratio.ours,
      spread: m.spread.ours,
      cpu_ratio: m.cpuRatio.ours,
      target: '<= 4',
      met: m.ratio.ours <= 4,
      note: 'default options: runtime validators generated for 2,000 payload schemas',
    },
    'benzene-compile-1000-without-validators': {
      ours_ms: m.ms.unchecked,
      baseline_ms: m.ms.baseline,
      ratio: m.ratio.unchecked,
      cpu_ratio: m.cpuRatio.unchecked,
      target: '<= 4',
      met: m.ratio.unchecked <= 4,
      note: 'validate: false',
    },
  })
