import { readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { load } from 'js-yaml'
import { paired } from './measure.js'
import { natsDocument } from './generate.js'
const which = process.argv[2] ?? 'dist'
const { ContractCompiler } = await import(which === 'dist' ? '../dist/src/index.js' : '../src/index.js')
mkdirSync('/tmp/nb', { recursive: true })
const file = '/tmp/nb/n500.asyncapi.yaml'
writeFileSync(file, natsDocument(500))
const text = readFileSync(file, 'utf8')
for (let k = 0; k < 3; k++) {
  const r = await paired({ jsYaml: () => load(text), ours: () => new ContractCompiler().compile(file) }, 21)
  console.log(which, r.ms, r.ratio.ours.toFixed(2))
}
