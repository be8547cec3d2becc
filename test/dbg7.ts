import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import { load } from 'js-yaml'
const require = createRequire(import.meta.url)
const Ajv = require('ajv')
const schema = require('@asyncapi/specs/schemas/3.1.0-without-$id.json')
const doc = load(readFileSync('bench/.work-profile/p500.asyncapi.yaml', 'utf8'))
let t = performance.now()
const a = new Ajv({ allErrors: true, strict: false, validateFormats: false }).compile(schema)
console.log('compile all', (performance.now() - t).toFixed(1))
t = performance.now()
const b = new Ajv({ allErrors: false, strict: false, validateFormats: false }).compile(schema)
console.log('compile first', (performance.now() - t).toFixed(1))
const med = (f: () => unknown) => { for (let i = 0; i < 20; i++) f(); const ts: number[] = []; for (let i = 0; i < 40; i++) { const s = performance.now(); f(); ts.push(performance.now() - s) } ts.sort((x, y) => x - y); return ts[20]!.toFixed(2) }
console.log('validate all', med(() => a(doc)), a(doc))
console.log('validate first', med(() => b(doc)), b(doc))
console.log('jsyaml', med(() => load(readFileSync('bench/.work-profile/p500.asyncapi.yaml', 'utf8'))))
