import { readFileSync } from 'node:fs'
import { generateValidators } from '../dist/src/formats/benzene/validators.js'
const doc = JSON.parse(readFileSync('/work/main/bench/.work-profile/b1000.spec.json', 'utf8'))
const reqs: any[] = []
doc.requests.forEach((r: any, i: number) => { reqs.push({ name: `$t${i}$request`, schema: r.request, direction: 'request' }); reqs.push({ name: `$t${i}$response`, schema: r.response, direction: 'response' }) })
const t: number[] = []
for (let i = 0; i < 40; i++) { const s = performance.now(); const m = generateValidators(reqs, doc.components.schemas, 'number'); t.push(performance.now() - s); if (i === 0) console.log('entries', m.size, [...m.values()].reduce((a, b) => a + b.length, 0)) }
t.sort((a, b) => a - b); console.log('generateValidators', t[20]!.toFixed(2))
