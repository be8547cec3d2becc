import { writeFileSync } from 'node:fs'
import { ContractCompiler } from '../dist/src/index.js'
import { natsDocument } from '../bench/generate.js'
writeFileSync('/tmp/nb/g5.asyncapi.yaml', natsDocument(5))
const r: any = await new ContractCompiler().compile('/tmp/nb/g5.asyncapi.yaml')
writeFileSync('/tmp/nb/g5.js', r.code); writeFileSync('/tmp/nb/g5.d.ts', r.dts ?? '')
console.log(Object.keys(r))
