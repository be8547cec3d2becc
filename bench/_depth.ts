import { load } from 'js-yaml'
import { readFileSync } from 'node:fs'
const text = readFileSync('/tmp/nb/r500.asyncapi.yaml', 'utf8')
const opened: number[] = []; const hist = new Map<number, number>(); let dup = 0, last: unknown
const seen = new Set()
load(text, { listener: (e: string, s: any) => { if (e === 'open') { opened.push(s.position); return } opened.pop(); const r = s.result; if (r !== null && typeof r === 'object') { if (seen.has(r)) { dup++; if (r !== last) console.log('nonconsecutive dup'); return } seen.add(r); last = r; hist.set(opened.length, (hist.get(opened.length) ?? 0) + 1) } else last = undefined } } as any)
console.log(hist, 'dups', dup)
const v: any = load(text)
console.log(Object.keys(v.channels).length)
