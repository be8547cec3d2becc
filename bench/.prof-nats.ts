import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Session } from 'node:inspector/promises'
import { load } from 'js-yaml'
import { ContractCompiler } from '../dist/src/index.js'
import { natsDocument } from './generate.js'
const work = join(import.meta.dirname, '.work'); mkdirSync(work, { recursive: true })
const text = natsDocument(500); const file = join(work, 'pn500.asyncapi.yaml'); writeFileSync(file, text)
const fresh = () => new ContractCompiler().compile(file)
for (let i = 0; i < 30; i++) await fresh()
const t: number[] = [], y: number[] = []
for (let i = 0; i < 40; i++) { let s = performance.now(); await fresh(); t.push(performance.now() - s); s = performance.now(); load(text); y.push(performance.now() - s) }
const med = (a: number[]) => a.sort((p, q) => p - q)[a.length >> 1]
console.log('ours', med(t).toFixed(1), 'js-yaml', med(y).toFixed(1), 'ratio', (med(t) / med(y)).toFixed(2))
if (process.argv[2] === 'prof') {
  const session = new Session(); session.connect(); await session.post('Profiler.enable'); await session.post('Profiler.setSamplingInterval', { interval: 100 }); await session.post('Profiler.start')
  for (let i = 0; i < 100; i++) await fresh()
  const { profile } = await session.post('Profiler.stop'); writeFileSync('/tmp/prof/nats500.cpuprofile', JSON.stringify(profile))
}
