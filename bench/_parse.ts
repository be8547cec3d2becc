import { readFileSync } from 'node:fs'
import { load } from 'js-yaml'
import { loadFastYaml } from '../dist/src/core/yaml-fast.js'
import { parseYamlSource } from '../dist/src/core/yaml-source.js'
import { natsDocument } from './generate.js'
const text = natsDocument(500)
const t = (name: string, f: () => unknown) => { const xs: number[] = []; for (let i = 0; i < 40; i++) { const s = performance.now(); f(); xs.push(performance.now() - s) } console.log(name, xs.sort((a, b) => a - b)[20]!.toFixed(2)) }
for (let r = 0; r < 2; r++) {
t('js-yaml', () => load(text))
t('fast', () => loadFastYaml(text))
t('JSON', () => JSON.parse(JSON.stringify(load(text))))
}
console.log(text.length)
