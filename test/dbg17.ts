import { readFileSync } from 'node:fs'
import { schemaClosure } from '../src/formats/benzene/closure.ts'
const doc = JSON.parse(readFileSync('/work/main/bench/.work-profile/b1000.spec.json', 'utf8'))
const cat = doc.components.schemas
let t = performance.now()
for (const r of doc.requests) schemaClosure([r.request, r.response], cat)
console.log('first pass', (performance.now() - t).toFixed(2))
t = performance.now()
for (const r of doc.requests) schemaClosure([r.request, r.response], cat)
console.log('second pass', (performance.now() - t).toFixed(2))
console.log(doc.requests[5], Object.keys(cat).length)
