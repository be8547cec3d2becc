/** Ad-hoc: `node --import tsx --cpu-prof bench/profile.ts nats|benzene N` (not part of npm run bench). */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ContractCompiler } from '../dist/src/index.js'
import { benzeneDocument, natsDocument } from './generate.js'
const [kind = 'nats', n = '500', runs = '20'] = process.argv.slice(2)
const dir = join(import.meta.dirname, '.work-profile')
mkdirSync(dir, { recursive: true })
const file = join(dir, kind === 'nats' ? `p${n}.asyncapi.yaml` : `p${n}.spec.json`)
writeFileSync(file, kind === 'nats' ? natsDocument(Number(n)) : benzeneDocument(Number(n)))
for (let i = 0; i < 3; i++) await new ContractCompiler().compile(file)
const t = performance.now()
for (let i = 0; i < Number(runs); i++) {
  const r = await new ContractCompiler().compile(file)
  if (i === 0 && r.diagnostics.length) console.log(r.diagnostics.slice(0, 3))
}
console.log(`${kind} ${n}: ${((performance.now() - t) / Number(runs)).toFixed(1)} ms/compile`)
