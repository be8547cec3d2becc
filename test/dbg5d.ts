import { readFileSync } from 'node:fs'
import { load } from 'js-yaml'
import { ContractCompiler } from '../dist/src/index.js'
import { paired } from '../bench/measure.ts'
const file = '/work/main/bench/.work-profile/p500.asyncapi.yaml'
const text = readFileSync(file, 'utf8')
const r = await paired({ ours: () => new ContractCompiler().compile(file), jsyaml: () => load(text) }, 61)
console.log(r, (r.ours / r.jsyaml).toFixed(2))
