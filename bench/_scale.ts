import { writeFileSync } from 'node:fs'
import { ContractCompiler } from '../dist/src/index.js'
import { natsDocument } from './generate.js'
import { paired } from './measure.js'
writeFileSync('/tmp/nb/s500.asyncapi.yaml', natsDocument(500)); writeFileSync('/tmp/nb/s5000.asyncapi.yaml', natsDocument(5000))
for (let k = 0; k < 2; k++) {
const r = await paired({ small: () => new ContractCompiler().compile('/tmp/nb/s500.asyncapi.yaml'), large: () => new ContractCompiler().compile('/tmp/nb/s5000.asyncapi.yaml') }, 7, 3)
console.log(r.ms, r.ratio.large.toFixed(2))
}
