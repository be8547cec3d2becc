import { writeFileSync, mkdirSync } from 'node:fs'
import { load } from 'js-yaml'
import { ContractCompiler } from '../dist/src/index.js'
import { natsDocument } from './generate.js'
import { paired } from './measure.js'
mkdirSync('/tmp/nb', { recursive: true })
const text = natsDocument(500)
writeFileSync('/tmp/nb/r500.asyncapi.yaml', text)
for (let k = 0; k < Number(process.argv[2] ?? 2); k++) {
  const r = await paired({ jsYaml: () => load(text), ours: () => new ContractCompiler().compile('/tmp/nb/r500.asyncapi.yaml') }, 21)
  console.log(r.ms.jsYaml.toFixed(1), r.ms.ours.toFixed(1), r.ratio.ours.toFixed(2))
}
