// Stage times of NATS recompiles vs fresh compiles (temporary profiling aid).
import { writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { natsFormat } from '../dist/src/formats/nats/index.js'
import { recordingHost } from '../dist/src/core/input-host.js'
import { CompileMemos } from '../dist/src/core/memo.js'
import { natsDocument } from './generate.js'
const work = join(import.meta.dirname, '.work'); mkdirSync(work, { recursive: true })
const file = join(work, 'stages.asyncapi.yaml')
const memos = new CompileMemos()
const opts = natsFormat.resolveOptions(undefined, new Map(), file).options
const sums: Record<string, number[]> = {}
const add = (k: string, v: number) => (sums[k] ??= []).push(v)
for (let k = 0; k < 23; k++) {
  writeFileSync(file, natsDocument(500).replace('max_msgs: 1000000', `max_msgs: ${2000000 + k}`))
  for (const m of [memos, undefined]) {
    const tag = m ? 'warm' : 'fresh'
    const host = recordingHost(work, undefined)
    let t = performance.now()
    const loaded = await natsFormat.load(file, host, m); add(tag + ' load', performance.now() - t); t = performance.now()
    const checked = natsFormat.check(loaded.input!, m); add(tag + ' check', performance.now() - t); t = performance.now()
    const modeled = natsFormat.model(checked.checked, opts, m); add(tag + ' model', performance.now() - t); t = performance.now()
    const out = natsFormat.generate(modeled.model!, m); add(tag + ' generate', performance.now() - t)
    if (k === 0 && m) { add('x', 0) }
  }
}
const med = (a: number[]) => [...a.slice(3)].sort((x, y) => x - y)[Math.floor((a.length - 3) / 2)]
for (const [k, v] of Object.entries(sums)) if (k !== 'x') console.log(k.padEnd(16), med(v).toFixed(1))
