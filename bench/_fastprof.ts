import { loadFastYaml } from '../dist/src/core/yaml-fast.js'
import { load } from 'js-yaml'
import { readFileSync } from 'node:fs'
const text = readFileSync('/tmp/nb/r500.asyncapi.yaml', 'utf8')
const f = process.argv[2] === 'base' ? () => load(text) : () => loadFastYaml(text)
for (let i = 0; i < 300; i++) f()
