import { recordingHost } from '../dist/src/core/input-host.js'
import { loadInput } from '../dist/src/formats/nats/load.js'
import { NatsContext } from '../dist/src/formats/nats/context.js'
import { buildNatsModel } from '../dist/src/formats/nats/normalize.js'
import { natsFormat } from '../dist/src/formats/nats/index.js'
const file = '/tmp/nb/r500.asyncapi.yaml'
let t = 0
for (let i = 0; i < 150; i++) {
  const { input } = await loadInput(file, recordingHost())
  natsFormat.validate(input!)
  const s = performance.now()
  buildNatsModel(new NatsContext(input!))
  t += performance.now() - s
}
console.log((t / 150).toFixed(2))
