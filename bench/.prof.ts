import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ContractCompiler } from '../dist/src/core/compile.js'
import { natsFormat } from '../dist/src/formats/nats/index.js'
import { natsDocument } from './generate.js'
const dir = join(import.meta.dirname, '.work'); mkdirSync(dir, { recursive: true })
const file = join(dir, 'prof.asyncapi.yaml')
const make = () => new ContractCompiler({ formats: [natsFormat] })
const warm = make()
const fresh = process.argv[2] === 'fresh'
const base = natsDocument(500)
const texts = Array.from({ length: 60 }, (_, k) => base.replace('max_msgs: 1000000', `max_msgs: ${2000000 + k}`))
const ts: number[] = []
for (let k = 0; k < 60; k++) {
  writeFileSync(file, texts[k])
  const t = performance.now()
  const r = await (fresh ? make() : warm).compile(file)
  ts.push(performance.now() - t)
  if (r.code === undefined) throw new Error('fail ' + JSON.stringify(r.diagnostics[0]))
}
console.log(ts.slice(5).sort((a, b) => a - b)[27].toFixed(1))
