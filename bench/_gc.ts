import { load } from 'js-yaml'
import { readFileSync } from 'node:fs'
import { ContractCompiler } from '../dist/src/index.js'
const text = readFileSync('/tmp/nb/r500.asyncapi.yaml', 'utf8')
for (let i = 0; i < 10; i++) { load(text); await new ContractCompiler().compile('/tmp/nb/r500.asyncapi.yaml') }
console.log('--- ours x5')
for (let i = 0; i < 5; i++) await new ContractCompiler().compile('/tmp/nb/r500.asyncapi.yaml')
console.log('--- js-yaml x5')
for (let i = 0; i < 5; i++) load(text)
