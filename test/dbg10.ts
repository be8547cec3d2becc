import { recordingHost } from '../src/core/input-host.ts'
import { natsFormat } from '../src/formats/nats/index.ts'
const file = '/work/main/bench/.work-profile/p500.asyncapi.yaml'
const phase = process.argv[2] ?? 'validate'
const inputs = [] as any[]
for (let i = 0; i < 150; i++) inputs.push((await natsFormat.parse(file, recordingHost())).parsed)
const s = performance.now()
for (const input of inputs) {
  if (phase === 'validate') natsFormat.validate(input)
  else if (phase === 'normalize') natsFormat.normalize(input, {} as any, undefined)
  else { const m = natsFormat.normalize(input, {} as any, undefined); natsFormat.generate(m.model!) }
}
console.log(phase, ((performance.now() - s) / inputs.length).toFixed(2))
