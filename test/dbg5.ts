import { readFileSync } from 'node:fs'
import { load } from 'js-yaml'
import { ContractCompiler } from '../src/index.ts'
import { paired } from '../bench/measure.ts'
const file = '/work/main/bench/.work-profile/p500.asyncapi.yaml'
const text = readFileSync(file, 'utf8')
const r = await paired({ jsyaml: () => load(text), ours: () => new ContractCompiler().compile(file) }, 41)
console.log(r.ms, 'ratio of medians', (r.ms.ours / r.ms.jsyaml).toFixed(2), 'median ratio', r.ratio.ours.toFixed(2))
