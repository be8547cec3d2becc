import { readFileSync, readdirSync } from 'node:fs'
import { loadFastYaml } from '../src/core/yaml-fast.ts'
import { parseExactYaml } from '../src/core/yaml-source.ts'
const files = readdirSync('/work/main/fixtures/nats', { recursive: true, withFileTypes: true }).filter(e => e.isFile() && /\.ya?ml$/.test(e.name)).map(e => e.parentPath + '/' + e.name)
const muts = JSON.parse(process.argv[2])
let text = readFileSync(files.sort ? files[muts[0].text] : '', 'utf8')
let last = 0; const firstAt = muts[0].at % (text.length + 1)
for (const m of muts) { const at = m.at % (text.length + 1); last = at; text = text.slice(0, at) + m.insert + text.slice(at + m.cut) }
console.log(JSON.stringify(text.slice(Math.max(0, firstAt - 150), firstAt + 100)))
console.log(parseExactYaml('d', text).diagnostics.slice(0, 2), !!loadFastYaml(text))
