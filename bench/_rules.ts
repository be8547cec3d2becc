import { recordingHost } from '../dist/src/core/input-host.js'
import { loadInput } from '../dist/src/formats/nats/load.js'
import { NatsContext } from '../dist/src/formats/nats/context.js'
import { gateRules, natsRules } from '../dist/src/formats/nats/rules/index.js'
import { buildNatsModel } from '../dist/src/formats/nats/normalize.js'
import { generateNats } from '../dist/src/formats/nats/generate.js'
const file = '/tmp/nb/r500.asyncapi.yaml'
const times = new Map<string, number[]>()
const rec = (k: string, ms: number) => { let a = times.get(k); if (!a) times.set(k, (a = [])); a.push(ms) }
for (let i = 0; i < 30; i++) {
  const { input } = await loadInput(file, recordingHost())
  const ctx = new NatsContext(input!)
  for (const rule of [...gateRules, ...natsRules]) { const s = performance.now(); rule.check(ctx); rec((rule as any).code ?? (rule as any).name ?? rule.check.name, performance.now() - s) }
  let s = performance.now(); const m = buildNatsModel(new NatsContext(input!)); rec('normalize', performance.now() - s)
  s = performance.now(); generateNats(m.model!); rec('generate', performance.now() - s)
}
const med = (xs: number[]) => xs.slice(10).sort((a, b) => a - b)[10]!
let tot = 0
for (const [k, v] of [...times].sort((a, b) => med(b[1]) - med(a[1]))) { tot += med(v); if (med(v) > 0.05) console.log(k.padEnd(40), med(v).toFixed(2)) }
console.log('total', tot.toFixed(1))
