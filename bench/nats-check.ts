import { readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { load } from 'js-yaml'
import { paired } from './measure.js'
import { natsDocument } from './generate.js'
const { ContractCompiler } = await import('../dist/src/index.js')
mkdirSync('/tmp/nb', { recursive: true })
const file = '/tmp/nb/n500.asyncapi.yaml'
writeFileSync(file, natsDocument(500))
writeFileSync('/tmp/nb/n5000.asyncapi.yaml', natsDocument(5000))
const text = readFileSync(file, 'utf8')
const r = await paired({ jsYaml: () => load(text), ours: () => new ContractCompiler().compile(file) }, 31)
console.log('vs js-yaml', r.ms, r.ratio.ours.toFixed(2))
const s = await paired({ small: () => new ContractCompiler().compile(file), large: () => new ContractCompiler().compile('/tmp/nb/n5000.asyncapi.yaml') }, 7, 3)
console.log('scaling', s.ms, s.ratio.large.toFixed(2))
