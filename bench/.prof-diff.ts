import { mkdirSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Session } from 'node:inspector/promises'
import { ContractCompiler } from '../dist/src/core/compile.js'
import { loadDiffer } from '../dist/src/formats/diffs.js'
import { formats } from '../dist/src/formats/index.js'
import { editedDocument } from './diff-edit.js'
import { natsDocument } from './generate.js'
const n = Number(process.argv[2] ?? 5000)
const work = join(import.meta.dirname, '.work'); mkdirSync(work, { recursive: true })
const text = natsDocument(n, { payloads: true })
const oldFile = join(work, `p-old-${n}.asyncapi.yaml`), newFile = join(work, `p-new-${n}.asyncapi.yaml`)
writeFileSync(oldFile, text); writeFileSync(newFile, editedDocument(text))
const differ = (await loadDiffer('nats'))!
const read = (f: string) => readFile(f, 'utf8')
const session = new Session(); session.connect()
for (let i = 0; i < 4; i++) {
  const t0 = performance.now()
  const o = (await new ContractCompiler({ formats }).model(oldFile, formats[1]!)).model
  const t1 = performance.now()
  const nn = (await new ContractCompiler({ formats }).model(newFile, formats[1]!)).model
  const t2 = performance.now()
  if (i === 3) { await session.post('Profiler.enable'); await session.post('Profiler.start') }
  const f = await differ.diff({ file: oldFile, model: o, read }, { file: newFile, model: nn, read })
  const t3 = performance.now()
  if (i === 3) { const { profile } = await session.post('Profiler.stop'); writeFileSync('/tmp/prof/diff.cpuprofile', JSON.stringify(profile)) }
  console.log('model old', (t1-t0).toFixed(0), 'model new', (t2-t1).toFixed(0), 'compare', (t3-t2).toFixed(0), f.length)
}
const c0 = performance.now(); await new ContractCompiler({ formats }).compile(oldFile); console.log('compile', (performance.now()-c0).toFixed(0))
const c1 = performance.now(); await new ContractCompiler({ formats }).compile(oldFile); console.log('compile', (performance.now()-c1).toFixed(0))
