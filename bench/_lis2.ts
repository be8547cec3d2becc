import { load } from 'js-yaml'
import { readFileSync } from 'node:fs'
import { loadFastYaml } from '../dist/src/core/yaml-fast.js'
import { paired } from './measure.js'
const text = readFileSync('/tmp/nb/r500.asyncapi.yaml', 'utf8')
const minimal = () => {
  const opened: number[] = []; const starts = new Map<object, number>()
  load(text, { listener: (e: string, s: any) => { if (e === 'open') { opened.push(s.position); return } const o = opened.pop()!; const r = s.result; if (r !== null && typeof r === 'object' && !starts.has(r)) starts.set(r, o) } } as any)
}
const noMap = () => {
  const opened: number[] = []
  load(text, { listener: (e: string, s: any) => { if (e === 'open') { opened.push(s.position); return } const o = opened.pop()!; const r = s.result } } as any)
}
const r = await paired({ base: () => load(text), noMap, minimal, fast: () => loadFastYaml(text) }, 40)
console.log(r.ratio)
