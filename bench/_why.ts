import { loadFastYaml } from '../dist/src/core/yaml-fast.js'
import { natsDocument } from './generate.js'
const text = natsDocument(500)
console.log(!!loadFastYaml(text))
import { writeFileSync } from 'node:fs'; writeFileSync('/tmp/nb/w.yaml', text)
