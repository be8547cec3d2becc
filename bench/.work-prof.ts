import { writeFileSync, mkdirSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { Session } from 'node:inspector/promises'
import { ContractCompiler } from '../dist/src/core/compile.js'
import { loadDiffer } from '../dist/src/formats/diffs.js'
import { formats } from '../dist/src/formats/index.js'
import { editedDocument } from './diff-edit.js'
import { natsDocument } from './generate.js'
const n = 5000
const work = join(import.meta.dirname, '.work'); mkdirSync(work, { recursive: true })
const text = natsDocument(n, { payloads: true })
const oldFile = resolve(work, `p-old.asyncapi.yaml`), newFile = resolve(work, `p-new.asyncapi.yaml`)
writeFileSync(oldFile, text); writeFileSync(newFile, editedDocument(text))
const nats = formats.find((f) => f.name === 'nats')!
const differ = (await loadDiffer('nats'))!
const read = (file: string) => readFile(file, 'utf8')
const which = process.argv[2] ?? 'compare'
const s = new Session(); s.connect(); await s.post('Profiler.enable'); await s.post('Profiler.setSamplingInterval', { interval: 200 })
for (let r = 0; r < 3; r++) {
  const prof = r === 2
  if (which === 'compare') {
    const [a, b] = await Promise.all([new ContractCompiler({ formats }).model(oldFile, nats), new ContractCompiler({ formats }).model(newFile, nats)])
    if (prof) await s.post(process.env.HEAP ? 'HeapProfiler.startSampling' : 'Profiler.start', process.env.HEAP ? { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } : undefined)
    const t = performance.now()
    const f = await differ.diff({ file: oldFile, model: a.model, read }, { file: newFile, model: b.model, read })
    console.log('compare', performance.now() - t, f.length)
  } else if (which === 'check') {
    if (prof) await s.post('Profiler.start')
    const t = performance.now()
    await new ContractCompiler({ formats }).model(oldFile, nats)
    console.log('check', performance.now() - t)
  } else {
    if (prof) await s.post('Profiler.start')
    const t = performance.now()
    await new ContractCompiler({ formats }).compile(oldFile)
    console.log('compile', performance.now() - t)
  }
  if (prof && process.env.HEAP) { const { profile } = await s.post('HeapProfiler.stopSampling'); writeFileSync(`/tmp/prof/${which}.heapprofile`, JSON.stringify(profile)) } else if (prof) { const { profile } = await s.post('Profiler.stop'); writeFileSync(`/tmp/prof/${which}.cpuprofile`, JSON.stringify(profile)) }
}
