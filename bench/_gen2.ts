import { recordingHost } from '../dist/src/core/input-host.js'
import { loadInput } from '../dist/src/formats/nats/load.js'
import { NatsContext } from '../dist/src/formats/nats/context.js'
import { buildNatsModel } from '../dist/src/formats/nats/normalize.js'
import { generateNats } from '../dist/src/formats/nats/generate.js'
const file = '/tmp/nb/r500.asyncapi.yaml'
const { input } = await loadInput(file, recordingHost())
const m = buildNatsModel(new NatsContext(input!)).model!
console.log('interactions', m.interactions.length, m.interactions.filter((i: any) => i.payloadSchema).length, 'ops', m.operations.length, 'streams', m.streams.length, 'consumers', m.consumers.length)
const s = performance.now()
for (let i = 0; i < 200; i++) generateNats(m)
console.log(((performance.now() - s) / 200).toFixed(2))
