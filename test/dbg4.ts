import { readFileSync } from 'node:fs'
import { loadFastYaml } from '../src/core/yaml-fast.ts'
const text = readFileSync('bench/.work-profile/p500.asyncapi.yaml', 'utf8')
for (let i = 0; i < 200; i++) loadFastYaml(text)
