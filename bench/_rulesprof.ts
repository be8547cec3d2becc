import { recordingHost } from '../dist/src/core/input-host.js'
import { loadInput } from '../dist/src/formats/nats/load.js'
import { natsFormat } from '../dist/src/formats/nats/index.js'
const file = '/tmp/nb/r500.asyncapi.yaml'
const inputs = []
for (let i = 0; i < 150; i++) inputs.push((await loadInput(file, recordingHost())).input!)
const s = performance.now()
for (const input of inputs) natsFormat.validate(input)
console.log(((performance.now() - s) / inputs.length).toFixed(2), 'ms/validate')
