import { recordingHost } from '../dist/src/core/input-host.js'
import { parseYamlSource } from '../dist/src/core/yaml-source.js'
import { loadFastYaml } from '../dist/src/core/yaml-fast.js'
import { refSites } from '../dist/src/core/json-refs.js'
import { loadInput } from '../dist/src/formats/nats/load.js'
import { LineIndex } from '../dist/src/core/source-text.js'
import { load } from 'js-yaml'
const file = '/work/main/bench/.work-profile/p500.asyncapi.yaml'
const med = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(2)
const t = async (name: string, f: () => unknown) => { const xs: number[] = []; for (let i = 0; i < 40; i++) { const s = performance.now(); await f(); xs.push(performance.now() - s) } console.log(name.padEnd(12), med(xs)) }
const text = (await recordingHost().read(file)).text
for (let r = 0; r < 2; r++) {
await t('js-yaml', () => load(text))
await t('host.read', () => recordingHost().read(file))
await t('fast', () => loadFastYaml(text))
await t('yamlSource', () => parseYamlSource(file, text))
await t('lines', () => new LineIndex(text))
await t('refSites', () => refSites(JSON.parse(JSON.stringify({a: 1}))))
const v = loadFastYaml(text)!.value
await t('refSites', () => refSites(structuredClone(v)))
await t('clone', () => structuredClone(v))
await t('loadInput', () => loadInput(file, recordingHost()))
}
