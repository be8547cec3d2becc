import { load } from 'js-yaml'
import { readFileSync } from 'node:fs'
import { paired } from './measure.js'
const text = readFileSync('/tmp/nb/r500.asyncapi.yaml', 'utf8')
const withMap = () => {
  const opened: number[] = []; const starts = new Map<object, number>()
  load(text, { listener: (e: string, s: any) => { if (e === 'open') { opened.push(s.position); return } const o = opened.pop()!; const r = s.result; if (r !== null && typeof r === 'object' && !starts.has(r)) starts.set(r, o) } } as any)
}
const withArrays = () => {
  const opened: number[] = []; const objs: object[] = []; const offs: number[] = []
  load(text, { listener: (e: string, s: any) => { if (e === 'open') { opened.push(s.position); return } const o = opened.pop()!; const r = s.result; if (r !== null && typeof r === 'object' && objs[objs.length - 1] !== r) { objs.push(r); offs.push(o) } } } as any)
}
const onlyCheck = () => {
  const opened: number[] = []; let n = 0
  load(text, { listener: (e: string, s: any) => { if (e === 'open') { opened.push(s.position); return } const o = opened.pop()!; const r = s.result; if (r !== null && typeof r === 'object') n += o } } as any)
}
const r = await paired({ base: () => load(text), onlyCheck, withArrays, withMap }, 40)
console.log(r.ratio)
