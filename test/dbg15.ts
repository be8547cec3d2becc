import { readFileSync } from 'node:fs'
import { LineIndex } from '../src/core/source-text.ts'
const text = readFileSync('/work/main/bench/.work-profile/b1000.spec.json', 'utf8')
const med = (f: () => unknown) => { for (let i = 0; i < 10; i++) f(); const ts: number[] = []; for (let i = 0; i < 21; i++) { const s = performance.now(); f(); ts.push(performance.now() - s) } ts.sort((x, y) => x - y); return ts[10]!.toFixed(2) }
console.log('bytes', text.length, 'lines', text.split('\n').length)
console.log('LineIndex', med(() => new LineIndex(text)))
console.log('JSON.parse', med(() => JSON.parse(text)))
console.log('indexOf loop typed', med(() => { let n = 0; for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++; return n }))
console.log('local push', med(() => { const a = [0]; for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) a.push(i + 1); return a }))
console.log('includes r', med(() => text.includes('\r')))
