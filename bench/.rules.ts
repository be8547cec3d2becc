import { writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { natsFormat } from '../dist/src/formats/nats/index.js'
import { natsRules, gateRules } from '../dist/src/formats/nats/rules/index.js'
import { NatsContext } from '../dist/src/formats/nats/context.js'
import { runRules } from '../dist/src/core/rule-runner.js'
import { recordingHost } from '../dist/src/core/input-host.js'
import { natsDocument } from './generate.js'
const work = join(import.meta.dirname, '.work'); mkdirSync(work, { recursive: true })
const file = join(work, 'rules.asyncapi.yaml')
writeFileSync(file, natsDocument(500))
const times = new Map<string, number[]>()
for (let k = 0; k < 15; k++) {
  const loaded = await natsFormat.load(file, recordingHost(work, undefined))
  const ctx = new NatsContext(loaded.input!)
  const target = { main: { file, locate: ctx.main.source.locate } }
  for (const rule of [...gateRules, ...natsRules]) {
    const t = performance.now()
    runRules([rule], ctx, target as any)
    const name = rule.code; (times.get(name) ?? times.set(name, []).get(name)!).push(performance.now() - t)
  }
}
const rows = [...times].map(([n, v]) => [n, v.slice(3).sort((a, b) => a - b)[6]] as const).sort((a, b) => b[1] - a[1])
let total = 0; for (const [, v] of rows) total += v
console.log('total', total.toFixed(1))
for (const [n, v] of rows.slice(0, 25)) console.log(v.toFixed(2).padStart(7), n)
