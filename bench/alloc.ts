/** Ad-hoc: allocation by function for one format's compile (`tsx bench/alloc.ts nats 500`). */
import { Session } from 'node:inspector/promises'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ContractCompiler } from '../dist/src/index.js'
import { benzeneDocument, natsDocument } from './generate.js'
const [kind = 'nats', n = '500'] = process.argv.slice(2)
const dir = mkdtempSync(join(tmpdir(), 'contracts-alloc-'))
const file = join(dir, kind === 'nats' ? `a${n}.asyncapi.yaml` : `a${n}.spec.json`)
writeFileSync(file, kind === 'nats' ? natsDocument(Number(n)) : benzeneDocument(Number(n)))
for (let i = 0; i < 5; i++) await new ContractCompiler().compile(file)
const session = new Session()
session.connect()
await session.post('HeapProfiler.startSampling', {
  samplingInterval: 4096,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
} as never)
const N = Number(process.env.ALLOC_RUNS ?? 10)
for (let i = 0; i < N; i++) await new ContractCompiler().compile(file)
const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: any } }
const self = new Map<string, number>()
const callers = new Map<string, number>()
const watch = (process.env.ALLOC_CALLERS ?? '').split(',')
const walk = (node: any, parent: string) => {
  const cf = node.callFrame
  const key = `${cf.functionName || '(anon)'} ${cf.url.replace(/.*node_modules\//, 'nm/').replace(/.*work\/main\//, '')}:${cf.lineNumber}`
  self.set(key, (self.get(key) ?? 0) + node.selfSize)
  if (watch.includes(cf.functionName)) callers.set(`${cf.functionName} <- ${parent}`, (callers.get(`${cf.functionName} <- ${parent}`) ?? 0) + node.selfSize)
  for (const child of node.children) walk(child, key)
}
walk(profile.head, '')
const total = [...self.values()].reduce((a, b) => a + b, 0)
console.log('MB per compile', (total / N / 1e6).toFixed(2))
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log((v / N / 1e6).toFixed(2).padStart(7), k)
for (const [k, v] of [...callers].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log((v / N / 1e6).toFixed(2).padStart(7), k)
