import { readFileSync } from 'node:fs'
import { load, CORE_SCHEMA } from 'js-yaml'
import { loadFastYaml } from '../src/core/yaml-fast.ts'
const text = readFileSync('bench/.work-profile/p500.asyncapi.yaml', 'utf8')
let n = 0
const stack: number[] = []
const fs: Record<string, () => unknown> = {
  jsyaml: () => load(text),
  core: () => load(text, { schema: CORE_SCHEMA }),
  noop: () => load(text, { schema: CORE_SCHEMA, listener: () => { n++ } }),
  push: () => load(text, { schema: CORE_SCHEMA, listener: (e, s) => { if (e === 'open') stack.push(s.position); else stack.pop() } }),
  fast: () => loadFastYaml(text),
}
const t: Record<string, number[]> = {}
for (let r = 0; r < 60; r++) for (const [k, f] of Object.entries(fs)) { const s = performance.now(); f(); if (r >= 10) (t[k] ??= []).push(performance.now() - s) }
const med = (a: number[]) => a.sort((x, y) => x - y)[a.length >> 1]!
for (const k of Object.keys(t)) console.log(k, med(t[k]!).toFixed(2), (med(t[k]!) / med(t.jsyaml!)).toFixed(2))
console.log(n / 60)
