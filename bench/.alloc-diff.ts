import { writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Session } from 'node:inspector/promises'
import { ContractCompiler } from '../dist/src/core/compile.js'
import { loadDiffer } from '../dist/src/formats/diffs.js'
import { formats } from '../dist/src/formats/index.js'
const n = 5000
const work = join(import.meta.dirname, '.work')
const oldFile = join(work, `p-old-${n}.asyncapi.yaml`), newFile = join(work, `p-new-${n}.asyncapi.yaml`)
const differ = (await loadDiffer('nats'))!
const read = (f: string) => readFile(f, 'utf8')
const session = new Session(); session.connect()
for (let i = 0; i < 2; i++) {
  const o = (await new ContractCompiler({ formats }).model(oldFile, formats[1]!)).model
  const nn = (await new ContractCompiler({ formats }).model(newFile, formats[1]!)).model
  if (i === 1) await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as any)
  await differ.diff({ file: oldFile, model: o, read }, { file: newFile, model: nn, read })
  if (i === 1) { const { profile } = await session.post('HeapProfiler.stopSampling'); writeFileSync('/tmp/prof/diff.heapprofile', JSON.stringify(profile)) }
}
