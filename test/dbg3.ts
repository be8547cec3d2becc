import { readFileSync } from 'node:fs'
import { load } from 'js-yaml'
import { parseYamlSource } from '../src/core/yaml-source.ts'
import { loadFastYaml } from '../src/core/yaml-fast.ts'
const text = readFileSync('bench/.work-profile/p500.asyncapi.yaml', 'utf8')
const fs: Record<string, () => unknown> = { jsyaml: () => load(text), fast: () => loadFastYaml(text), source: () => parseYamlSource('x', text) }
const t: Record<string, number[]> = {}
for (let r = 0; r < 60; r++) for (const [k, f] of Object.entries(fs)) { const s = performance.now(); f(); if (r >= 10) (t[k] ??= []).push(performance.now() - s) }
const med = (a: number[]) => a.sort((x, y) => x - y)[a.length >> 1]!
for (const k of Object.keys(t)) console.log(k, med(t[k]!).toFixed(2), (med(t[k]!) / med(t.jsyaml!)).toFixed(2))
