import { writeFileSync } from 'node:fs'
import { ContractCompiler } from '../dist/src/index.js'
import { natsDocument } from './generate.js'
for (const n of [1, 10, 50, 200, 500]) { writeFileSync(`/tmp/nb/c${n}.asyncapi.yaml`, natsDocument(n)); const r = await new ContractCompiler().compile(`/tmp/nb/c${n}.asyncapi.yaml`); console.log(n, r.diagnostics.map((d: any) => d.code + ' ' + d.message).slice(0, 3), r.code?.length) }
