import { writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { ContractCompiler } from '../dist/src/core/compile.js'
import { natsFormat } from '../dist/src/formats/nats/index.js'
import { parseYamlSource } from '../dist/src/core/yaml-source.js'
import { natsDocument } from './generate.js'
const work = join(import.meta.dirname, '.work'); mkdirSync(work, { recursive: true })
const file = join(work, 'maps.asyncapi.yaml')
const c = new ContractCompiler({ formats: [natsFormat] })
const base = natsDocument(500)
let model: any
for (let k = 0; k < 4; k++) { writeFileSync(file, base.replace('max_msgs: 1000000', `max_msgs: ${k}`)); await c.compile(file); model = (await c.model(file, natsFormat)).model }
const fresh = parseYamlSource(file, base).source.value as any
const kept = (c as any).cache
// find the current doc through the regions memo
const regions = (c.memos as any).held.get('nats:yaml-regions').files.get(file)
const prev = regions.previous
let n = 0, diff = 0
for (const [depth, m] of prev.entries()) for (const [text, region] of m) {
  n++
  const v = region.value
  const f = parseYamlSource(file, text.replace(/^ +/, '')).source.value as any
  const fv = Object.values(f)[0]
  const keysA = Object.keys(v).join(), keysB = Object.keys(fv as object).join()
  // @ts-ignore
  const same = eval('%HaveSameMap(v, fv)')
  if (!same || keysA !== keysB) { diff++; if (diff < 5) console.log(depth, text.slice(0, 60).replace(/\n/g, '|'), same, keysA === keysB) }
}
console.log({ n, diff })
